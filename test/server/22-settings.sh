#!/usr/bin/env bash
# kid's settings on real servers (runs alone or from run-all.sh).
#
# 1. An invalid value of any kid setting, or an unknown kid.* name, in
#    postgresql.conf stops a server with kid preloaded from starting, with a
#    message naming the setting (PostgreSQL alone would log a WARNING and run
#    with the default).
# 2. A preloaded server with kid.koid_epoch_ms, kid.uid_interval = 5 and
#    kid.node_id: its own uid_global ids decode to the time they were made
#    through every decoder without a neighbourhood argument.
# 3. The same settings on a server without preloading: the decoders, the
#    range comparisons and uid_node_fingerprint() give the same answers as on
#    the preloaded server; a session's SET does not change them, nor does a
#    client's, role's or database's value of any kid setting (a WARNING, and
#    the server configuration's value); an invalid value in the server
#    configuration makes every use of kid in a session fail, naming it.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

SET_PORT=54374
NOPRE_PORT=54375
SET_CONF=(
    "kid.koid_epoch_ms = 1288834974657"
    "kid.uid_interval = 5"
    "kid.node_id = 7"
)

cluster_init setbad $SET_PORT "include_if_exists = 'kid_settings.conf'"
setbad_conf="$KID_TMP/setbad/data/kid_settings.conf"

# start_with LINE: pg_ctl start with one kid line; the exit status of pg_ctl.
start_with() {
    printf '%s\n' "$1" | as_postgres tee "$setbad_conf" >/dev/null
    as_postgres rm -f "$KID_TMP/setbad/server.log"
    as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/setbad/data" -l "$KID_TMP/setbad/server.log" -w -t 20 start >/dev/null 2>&1
    local rc=$?
    if [ $rc -eq 0 ]; then
        head -1 "$KID_TMP/setbad/data/postmaster.pid" >> "$KID_PIDS"
        cluster_stop setbad
    fi
    return $rc
}

# refused LINE PATTERN [DETAIL]: the server does not start and its log has a
# FATAL matching PATTERN, and the DETAIL line given (the valid values, as the
# Settings table of docs/settings.md gives them).
refused() {
    start_with "$1" && return 1
    grep -q "FATAL: .*$2" "$KID_TMP/setbad/server.log" || { cat "$KID_TMP/setbad/server.log"; return 1; }
    [ $# -lt 3 ] || grep -qx ".* DETAIL:  $3" "$KID_TMP/setbad/server.log" || { cat "$KID_TMP/setbad/server.log"; return 1; }
}

check "bad setting: kid.node_id = 300 stops the server" refused "kid.node_id = 300" 'invalid value for parameter "kid.node_id": "300"' \
    "kid.node_id must be an integer from 0 to 255."
check "bad setting: kid.node_id = abc stops the server" refused "kid.node_id = abc" 'invalid value for parameter "kid.node_id": "abc"' \
    "kid.node_id must be an integer from 0 to 255."
check "bad setting: kid.koid_epoch_ms = -5 stops the server" refused "kid.koid_epoch_ms = -5" 'invalid value for parameter "kid.koid_epoch_ms": "-5"' \
    "kid.koid_epoch_ms must be a whole number of milliseconds from 0 to 4398046511103."
check "bad setting: kid.koid_epoch_ms = 1000.5 (not whole) stops the server" refused "kid.koid_epoch_ms = 1000.5" '"kid.koid_epoch_ms": "1000.5"' \
    "kid.koid_epoch_ms must be a whole number of milliseconds from 0 to 4398046511103."
check "bad setting: kid.koid_generator_id = 1024 stops the server" refused "kid.koid_generator_id = 1024" '"kid.koid_generator_id": "1024"' \
    "kid.koid_generator_id must be an integer from -1 to 1023."
check "bad setting: kid.koid_generator_id = -2 stops the server" refused "kid.koid_generator_id = -2" '"kid.koid_generator_id": "-2"' \
    "kid.koid_generator_id must be an integer from -1 to 1023."
check "bad setting: kid.uid_interval = 11 stops the server" refused "kid.uid_interval = 11" 'invalid value for parameter "kid.uid_interval": "11"' \
    "kid.uid_interval must be an integer from 5 to 10."
check "bad setting: kid.uid_interval = 4 stops the server" refused "kid.uid_interval = 4" 'invalid value for parameter "kid.uid_interval": "4"' \
    "kid.uid_interval must be an integer from 5 to 10."
check "bad setting: kid.uid_node = xyz stops the server" refused "kid.uid_node = 'xyz'" 'invalid value for parameter "kid.uid_node": "xyz"' \
    "kid.uid_node must be empty or exactly 8 hexadecimal digits."
check "bad setting: kid.wal_rmgr_id = 5 stops the server" refused "kid.wal_rmgr_id = 5" '"kid.wal_rmgr_id": "5"' \
    "kid.wal_rmgr_id must be 0 or a custom resource manager id from 128 to 255."
check "bad setting: kid.wal_rmgr_id = 127 stops the server" refused "kid.wal_rmgr_id = 127" '"kid.wal_rmgr_id": "127"' \
    "kid.wal_rmgr_id must be 0 or a custom resource manager id from 128 to 255."
check "bad setting: kid.wal_rmgr_id = 256 stops the server" refused "kid.wal_rmgr_id = 256" '"kid.wal_rmgr_id": "256"' \
    "kid.wal_rmgr_id must be 0 or a custom resource manager id from 128 to 255."
check "bad setting: kid.standby_generation = maybe stops the server" refused "kid.standby_generation = maybe" '"kid.standby_generation": "maybe"' \
    "kid.standby_generation must be a boolean."
check "bad setting: kid.koid_max_clock_wait_ms = 2h stops the server" refused "kid.koid_max_clock_wait_ms = '2h'" '"kid.koid_max_clock_wait_ms": "2h"' \
    "kid.koid_max_clock_wait_ms must be a time from 0 to 3600000 ms."
check "bad setting: kid.koid_overflow_error = 2 stops the server" refused "kid.koid_overflow_error = 2" '"kid.koid_overflow_error": "2"' \
    "kid.koid_overflow_error must be a boolean."
check "bad setting: kid.partition_maintenance_interval = -1 stops the server" refused "kid.partition_maintenance_interval = -1" '"kid.partition_maintenance_interval": "-1"' \
    "kid.partition_maintenance_interval must be a time from 0 to 604800 s."
check "bad setting: kid.partition_maintenance_interval = 2 weeks stops the server" refused "kid.partition_maintenance_interval = '14d'" '"kid.partition_maintenance_interval": "14d"' \
    "kid.partition_maintenance_interval must be a time from 0 to 604800 s."
check "bad setting: an unknown kid.uid_intreval stops the server" refused "kid.uid_intreval = 5" 'unrecognized configuration parameter "kid.uid_intreval"'
# Every bound the Settings table gives is accepted.
check "good setting: kid.node_id = 255 starts" start_with "kid.node_id = 255"
check "good setting: kid.koid_generator_id = 1023 starts" start_with "kid.koid_generator_id = 1023"
check "good setting: kid.uid_interval = 10 starts" start_with "kid.uid_interval = 10"
check "good setting: kid.uid_interval = 5 starts" start_with "kid.uid_interval = 5"
check "good setting: kid.wal_rmgr_id = 255 starts" start_with "kid.wal_rmgr_id = 255"
check "good setting: kid.wal_rmgr_id = 128 starts" start_with "kid.wal_rmgr_id = 128"
check "good setting: kid.wal_rmgr_id = 0 starts" start_with "kid.wal_rmgr_id = 0"
check "good setting: kid.koid_epoch_ms = 0 starts" start_with "kid.koid_epoch_ms = 0"
check "good setting: kid.koid_max_clock_wait_ms = 1min starts" start_with "kid.koid_max_clock_wait_ms = '1min'"
check "good setting: kid.koid_max_clock_wait_ms = 1h starts" start_with "kid.koid_max_clock_wait_ms = '1h'"
check "good setting: kid.partition_maintenance_interval = 1h starts" start_with "kid.partition_maintenance_interval = '1h'"

# 2 and 3: the same queries on a preloaded and a non-preloaded server.
printf '%s\n' "${SET_CONF[@]}" | as_postgres tee "$setbad_conf" >/dev/null
cluster_start setbad
cluster_init setnopre $NOPRE_PORT "${SET_CONF[@]}"
sed -i "s/^shared_preload_libraries = 'kid'/shared_preload_libraries = ''/" "$KID_TMP/setnopre/data/postgresql.conf"
cluster_start setnopre
for p in $SET_PORT $NOPRE_PORT; do kpsql $p -d postgres -c "CREATE EXTENSION kid" >/dev/null; done

# Every decoder and comparison that reads a setting, over ids of 2000 times
# spread over 40 days (so every second's low bits occur), with fixed inputs.
DECODE_SQL="SET TIME ZONE 'UTC';
WITH t AS (SELECT timestamptz '2026-02-03 04:05:06.789' + i * interval '1733.123457 s' AS t FROM generate_series(0, 1999) i),
     g AS (SELECT t, uid_to_timestamp(uid_from_timestamp(t)) AS step, uid_to_global(uid_from_timestamp(t), 305419896) AS gid FROM t)
SELECT koid_to_timestamp('0123456789abcdef'), (koid_info('0123456789abcdef')).time,
       koid_from_timestamp('2026-01-01 00:00:00'),
       '0123456789abcdef'::koid > '2011-06-18 07:24:08.039'::timestamptz AND '0123456789abcdef'::koid < '2011-06-18 07:24:08.040'::timestamptz,
       uid_node_fingerprint(), uid_to_global('......3....')::text,
       uid_global_from_timestamp('2026-01-01 00:00:00')::text,
       count(*) FILTER (WHERE uid_global_to_timestamp(gid) <> step) AS to_timestamp_wrong,
       count(*) FILTER (WHERE (uid_global_info(gid)).time <> step OR (uid_global_info(gid)).node <> 305419896) AS info_wrong,
       count(*) FILTER (WHERE (gid >= t) <> (gid >= uid_global_from_timestamp(t))) AS ge_disagrees,
       count(*) FILTER (WHERE (gid < t) <> (gid < uid_global_from_timestamp(t))) AS lt_disagrees,
       count(*) FILTER (WHERE uid_global_to_timestamp(gid) <> uid_global_to_timestamp(gid, 5)) AS not_interval_5
FROM g"
pre=$(kpsql $SET_PORT -d postgres -c "$DECODE_SQL")
nopre=$(kpsql $NOPRE_PORT -d postgres -c "$DECODE_SQL")
expected_decode="2011-06-18 07:24:08.039+00|2011-06-18 07:24:08.039+00|1bd893690fc00000|t|2393759706|$(kpsql $SET_PORT -d postgres -c "SELECT uid_to_global('......3....', 2393759706, 5)::text")|$(kpsql $SET_PORT -d postgres -c "SELECT uid_global_from_timestamp('2026-01-01 00:00:00+00', 5)::text")|0|0|0|0|0"
expect_eq "interval 5, preloaded: koid epoch, fingerprint, every uid_global decoder agrees with the setting" \
    "$pre" "$expected_decode"
expect_eq "interval 5, not preloaded: the same answers as the preloaded server" "$nopre" "$expected_decode"
SETTINGS_SQL="SELECT uid_node_fingerprint(), current_setting('kid.node_id'), current_setting('kid.uid_interval'), current_setting('kid.koid_epoch_ms')"
expect_eq "preloaded: the settings as configured (SHOW kid.koid_epoch_ms with every digit)" \
    "$(kpsql $SET_PORT -d postgres -c "$SETTINGS_SQL")" "2393759706|7|5|1288834974657"
expect_eq "not preloaded: the settings as configured, uid_node_fingerprint() is kid.node_id 7's" \
    "$(kpsql $NOPRE_PORT -d postgres -c "$SETTINGS_SQL")" "2393759706|7|5|1288834974657"

# Ids the interval-5 server generates decode to the time they were made (item 9);
# gid < t holds from the 32 s window after the id's on (ids of a node other
# than 0 sort by node within a window).
expect_eq "interval 5, preloaded: generated uid_global ids decode to when they were made, by every decoder" \
    "$(kpsql $SET_PORT -d postgres -c "
        CREATE TEMP TABLE made AS SELECT clock_timestamp() AS before, uid_global_new() AS gid, clock_timestamp() AS after FROM generate_series(1, 3000);
        SELECT count(*) FILTER (WHERE uid_global_to_timestamp(gid) BETWEEN before - interval '1.024 ms' AND after
                                  AND (uid_global_info(gid)).time = uid_global_to_timestamp(gid)
                                  AND (uid_global_info(gid)).node = uid_node_fingerprint()
                                  AND gid >= before - interval '1.024 ms' AND gid < after + interval '32 s')
        FROM made")" "3000"

# A session's SET does not reach the decoders of a non-preloaded server:
# before kid is loaded the value is a placeholder's, which loading refuses.
expect_eq "not preloaded: SET kid.koid_epoch_ms before kid loads does not change koid_to_timestamp" \
    "$(kpsql $NOPRE_PORT -d postgres 2>/dev/null <<'SQL'
SET kid.koid_epoch_ms = 5;
SET kid.uid_interval = 8;
SELECT koid_to_timestamp('0123456789abcdef') = '2011-06-18 07:24:08.039+00', current_setting('kid.uid_interval'),
       uid_global_to_timestamp(uid_global_from_timestamp('2026-01-01 00:00:00.5+00')) = '2026-01-01 00:00:00.499712+00';
SQL
)" "t|5|t"
out=$(kpsql $NOPRE_PORT -d postgres -v VERBOSITY=verbose -c "SELECT uid_node_fingerprint()" -c "SET kid.uid_interval = 8" 2>&1)
expect_eq "not preloaded: SET of a loaded kid.uid_interval is refused (55P02)" "$(grep -c 'ERROR:  55P02' <<<"$out")" 1

# A parallel worker loads kid itself (from the leader's library list) and
# takes the leader's setting values: the same answers from a worker.
expect_eq "not preloaded: a parallel worker decodes with the same settings" \
    "$(kpsql $NOPRE_PORT -d postgres <<'SQL'
CREATE TABLE IF NOT EXISTS par (k koid, g uid_global);
TRUNCATE par;
INSERT INTO par VALUES ('0123456789abcdef', uid_global_from_timestamp('2026-01-01 00:00:00.5+00'));
SELECT current_setting('server_version_num')::integer >= 160000 AS pg16 \gset
\if :pg16
SET debug_parallel_query = on;
\else
SET force_parallel_mode = on;
\endif
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SELECT koid_to_timestamp(k) = '2011-06-18 07:24:08.039+00', uid_global_to_timestamp(g) = '2026-01-01 00:00:00.499712+00',
       g = uid_global_from_timestamp('2026-01-01 00:00:00.5+00', 5), g >= '2026-01-01 00:00:00.5+00'::timestamptz FROM par;
SQL
)" "t|t|t|t"

# One behaviour for every kid setting a client (connection options), a role
# or a database gives where kid cannot take it, on a server without kid
# preloaded: a WARNING when kid loads, and the session goes on with the
# server configuration's value (as PostgreSQL does for a setting a placeholder
# could not pass on, but with the configured value, not the built-in one).
# The superuser settings are taken from a superuser and ignored from others.
# given_by_client USER NAME VALUE: "warnings|value in force|koid decoded" for
# a session started with -c NAME=VALUE.
given_by_client() {
    local out err
    out=$(PGOPTIONS="-c $2=$3" "$PG_BIN/psql" -h "$KID_TMP" -p $NOPRE_PORT -U "$1" -d postgres -X -q -A -t -v ON_ERROR_STOP=1 \
        -c "SELECT current_setting('$2'), koid_to_timestamp('0123456789abcdef') = '2011-06-18 07:24:08.039+00'" 2>"$KID_TMP/client.err")
    err=$(grep -c "^WARNING:  kid ignores $2 = '$3' from a client, role or database setting" "$KID_TMP/client.err")
    grep -q "^ERROR" "$KID_TMP/client.err" && cat "$KID_TMP/client.err"
    echo "$err|$out"
}
kpsql $NOPRE_PORT -d postgres -c "CREATE ROLE kid_plain LOGIN"
for case in "postgres kid.node_id 3 7" "postgres kid.koid_epoch_ms 5 1288834974657" "postgres kid.koid_generator_id 3 -1" \
    "postgres kid.uid_interval 8 5" "postgres kid.uid_node 01020304 ''" "postgres kid.wal_rmgr_id 130 128" \
    "postgres kid.standby_generation on off" "postgres kid.partition_maintenance_interval 5 0" "kid_plain kid.koid_overflow_error on off" \
    "kid_plain kid.koid_max_clock_wait_ms 5 1s"; do
    read -r user name value configured <<<"$case"
    [ "$configured" = "''" ] && configured=
    expect_eq "not preloaded, -c $name=$value from $user: a WARNING, the session goes on with the server's $name" \
        "$(given_by_client "$user" "$name" "$value")" "1|$configured|t"
done
expect_eq "not preloaded, -c kid.koid_overflow_error=on from a superuser: taken (a superuser setting)" \
    "$(given_by_client postgres kid.koid_overflow_error on)" "0|on|t"
kpsql $NOPRE_PORT -d postgres -c "ALTER ROLE kid_plain SET kid.uid_interval = 9"
expect_eq "not preloaded, ALTER ROLE ... SET kid.uid_interval: a WARNING, the server's value" \
    "$("$PG_BIN/psql" -h "$KID_TMP" -p $NOPRE_PORT -U kid_plain -d postgres -X -q -A -t -c "SELECT current_setting('kid.uid_interval') FROM (SELECT '0123456789abcdef'::koid) k" 2>&1 |
        grep -v -e '^LINE ' -e '^ *\^')" \
    "WARNING:  parameter \"kid.uid_interval\" cannot be changed now
WARNING:  kid ignores kid.uid_interval = '9' from a client, role or database setting
DETAIL:  kid takes kid.uid_interval only from the server configuration; this session has kid.uid_interval = '5' from there.
5"
kpsql $NOPRE_PORT -d postgres -c "ALTER ROLE kid_plain RESET kid.uid_interval"

# A reload with a changed value leaves a session that loaded kid as it was
# (its IMMUTABLE decoders keep their answers); ALTER SYSTEM from such a
# session is refused the same way (55P02), from a fresh one it is taken.
NOPRE_CONF="$KID_TMP/setnopre/data/postgresql.conf"
# The load time before the reload: the session below waits until a new
# session sees it move, so the reload has been read when it looks again.
nopre_loaded=$(kpsql $NOPRE_PORT -d postgres -c "SELECT pg_conf_load_time()")
expect_eq "not preloaded: a reload does not change the settings of a session that loaded kid" \
    "$(kpsql $NOPRE_PORT -d postgres -v ON_ERROR_STOP=0 2>/dev/null <<SQL
SELECT current_setting('kid.uid_interval') FROM (SELECT '0123456789abcdef'::koid) k;
\\! sed -i 's/^kid.uid_interval = 5/kid.uid_interval = 6/' $NOPRE_CONF
SELECT pg_reload_conf();
\\! for i in \$(seq 600); do [ "\$("$PG_BIN/psql" -h "$KID_TMP" -p $NOPRE_PORT -U postgres -XAtqc 'SELECT pg_conf_load_time()' postgres)" != "$nopre_loaded" ] && break; sleep 0.1; done
SELECT current_setting('kid.uid_interval'), uid_global_to_timestamp(uid_global_from_timestamp('2026-01-01 00:00:00.5+00', 5)) = '2026-01-01 00:00:00.499712+00';
ALTER SYSTEM SET kid.uid_interval = 7;
\\echo :SQLSTATE
SQL
)" "5
t
5|t
55P02"
expect_eq "not preloaded: a session started after the reload reads the new value" \
    "$(kpsql $NOPRE_PORT -d postgres -c "SELECT current_setting('kid.uid_interval') FROM (SELECT '0123456789abcdef'::koid) k")" 6
sed -i 's/^kid.uid_interval = 6/kid.uid_interval = 5/' "$NOPRE_CONF"
check "not preloaded: the server reloaded its configuration" reload_conf $NOPRE_PORT

# An invalid value on the non-preloaded server: every use of kid fails, naming it.
echo "kid.uid_interval = 11" | as_postgres tee -a "$KID_TMP/setnopre/data/postgresql.conf" >/dev/null
check "not preloaded: the server reloaded its configuration" reload_conf $NOPRE_PORT
out=$(kpsql $NOPRE_PORT -d postgres -v ON_ERROR_STOP=0 -c "SELECT '0123456789abcdef'::koid" -c "SELECT sno_from_timestamp(now())" 2>&1)
expect_eq "not preloaded, kid.uid_interval = 11: every use of kid fails naming the setting" \
    "$(grep -c 'ERROR:  invalid value for parameter "kid.uid_interval": "11"' <<<"$out")" 2
sed -i '$d' "$KID_TMP/setnopre/data/postgresql.conf"
check "not preloaded: the server reloaded its configuration" reload_conf $NOPRE_PORT
expect_eq "not preloaded, setting fixed again: kid works" \
    "$(kpsql $NOPRE_PORT -d postgres -c "SELECT current_setting('kid.uid_interval') FROM (SELECT '0123456789abcdef'::koid) k")" 5

cluster_stop setnopre
cluster_stop setbad

kid_finish
