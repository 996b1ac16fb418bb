#!/usr/bin/env bash
# Every floor of every scheme, checked directly (runs alone or from
# run-all.sh; its own cluster, under libfaketime).
#
# For each lease line (sno tick 0, sno tick 1, atproto_tid, koid, uid, which
# uid_global shares, and uuid, uuidv7_new()'s) the floor recorded before a restart (kid_lease() and
# kid.lease) must bound the first id after it, with the server's clock an
# hour behind that floor:
#   (a) a crash: the postmaster killed by SIGKILL, proved (its pid is gone,
#       the next start runs crash recovery, kid_node_info says "ahead");
#   (b) a clean restart (pg_ctl stop -m fast), proved ("exact");
#   (c) a promotion: a streaming standby promoted after its primary stopped
#       (immediate), its floors the primary's marks plus the 10 s margin.
# After each, with the clock 1 h behind: the first tid, uid, uid_global and
# uuidv7 ids are above their line's floor (and above every earlier id); koid
# refuses (55000) rather than go below its floor, and back at the true time
# its first id is above it; sno, whose two timelines both have floors above
# the clock, waits (cancelled by statement_timeout, 57014) rather than go
# below either, and with the clock between the tick-1 floor and the tick-0
# floor its first id is on tick 1, above the tick-1 floor.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

FL_P=54396
FL_DIR=$KID_TMP/fl
cluster_init fl $FL_P || exit 1
fl_start() { faketime_cluster_start fl --fake-monotonic "$@"; }
fl_start || exit 1
FL_Q=$FL_P # the server the checks ask
flq() { kpsql $FL_Q -d postgres "$@"; }
flq -c "CREATE EXTENSION kid" -c "
CREATE TABLE fl_sno (id sno PRIMARY KEY, round int);
CREATE TABLE fl_tid (id atproto_tid PRIMARY KEY, round int);
CREATE TABLE fl_koid (id koid PRIMARY KEY, round int);
CREATE TABLE fl_uid (id uid PRIMARY KEY, round int);
CREATE TABLE fl_uidg (id uid_global PRIMARY KEY, round int);
CREATE TABLE fl_uuid (id uuid PRIMARY KEY, round int);"

# Ids of every line: sno on tick 0 at the true time, then on tick 1 with the
# clock BACK seconds back (one session: sno's timelines live in its
# partition).
fl_gen() { # round back
    flq <<SQL
INSERT INTO fl_sno SELECT sno_new(), $1 FROM generate_series(1, 1000);
\! echo "-$2" > $FT_FILE.new && mv -f $FT_FILE.new $FT_FILE
INSERT INTO fl_sno SELECT sno_new(), $1 FROM generate_series(1, 1000);
\! echo "+0" > $FT_FILE.new && mv -f $FT_FILE.new $FT_FILE
INSERT INTO fl_tid SELECT tid_new(), $1 FROM generate_series(1, 1000);
SET kid.koid_max_clock_wait_ms = 15000;
INSERT INTO fl_koid SELECT koid_new(), $1 FROM generate_series(1, 1000);
INSERT INTO fl_uid SELECT uid_new(), $1 FROM generate_series(1, 1000);
INSERT INTO fl_uidg SELECT uid_global_new(), $1 FROM generate_series(1, 1000);
INSERT INTO fl_uuid SELECT uuidv7_new(), $1 FROM generate_series(1, 1000);
SQL
}
# A kid_lease() column per generator line (the commit horizons' lines, which
# no horizon read here raises, left out), in Unix microseconds (0: none), in
# kid.lease's order.
fl_lease() {
    flq -c "SELECT string_agg(coalesce((extract(epoch FROM $1) * 1000000)::bigint, 0)::text, ' ' ORDER BY ord) FROM kid_lease() WITH ORDINALITY AS l(line, covered_until, startup_floor, ord) WHERE line NOT LIKE '% horizon'"
}
# kid.lease's own marks, line by line: the word after each line's name (generator lines).
fl_file() { awk '{s = ""; for (i = 6; i < NF; i++) if ($i ~ /^[a-z_]/ && $i !~ /_horizon$/) s = s (s == "" ? "" : " ") $(i + 1); print s}' "$FL_DIR/data/kid.lease"; }
fl_checks() { # what round between
    local what=$1 round=$2 between=$3 out
    faketime_set "$FT_FILE" "-3600"
    expect_eq "$what, clock 1 h behind: the server's clock is behind every floor" \
        "$(flq -c "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint < least($(tr ' ' ',' <<<"$fl_floors"))")" t
    # One session, first thing after the start: tid, uid, uid_global and uuidv7.
    out=$(flq -c "INSERT INTO fl_tid VALUES (tid_new(), $round) RETURNING (extract(epoch FROM tid_to_timestamp(id)) * 1000000)::bigint" \
        -c "INSERT INTO fl_uid VALUES (uid_new(), $round) RETURNING (extract(epoch FROM uid_to_timestamp(id)) * 1000000)::bigint" \
        -c "INSERT INTO fl_uidg VALUES (uid_global_new(), $round) RETURNING (extract(epoch FROM uid_global_to_timestamp(id, current_setting('kid.uid_interval')::int)) * 1000000)::bigint" \
        -c "INSERT INTO fl_uuid VALUES (uuidv7_new(), $round) RETURNING (extract(epoch FROM uuidv7_to_timestamp(id)) * 1000000)::bigint")
    local tid uid uidg uuid
    read -r tid uid uidg uuid <<<"$(tr '\n' ' ' <<<"$out")"
    fl_above "$what: atproto_tid" 3 "$tid"
    fl_above "$what: uid" 5 "$uid"
    fl_above "$what: uid_global" 5 "$uidg"
    # (uuidv7's time is its millisecond: the floor's counts as used up.)
    fl_above "$what: uuid (uuidv7_new)" 6 "$uuid"
    expect_eq "$what: the first tid, uid, uid_global and uuid sort above every earlier id" \
        "$(flq -c "SELECT (SELECT min(id) FROM fl_tid WHERE round = $round) > (SELECT max(id) FROM fl_tid WHERE round < $round)
            AND (SELECT min(id) FROM fl_uid WHERE round = $round) > (SELECT max(id) FROM fl_uid WHERE round < $round)
            AND (SELECT min(id) FROM fl_uidg WHERE round = $round) > (SELECT max(id) FROM fl_uidg WHERE round < $round)
            AND (SELECT id FROM fl_uuid WHERE round = $round ORDER BY id LIMIT 1) > (SELECT id FROM fl_uuid WHERE round < $round ORDER BY id DESC LIMIT 1)")" t
    # koid: no wait allowed, so below the floor it can only refuse.
    out=$(flq -v VERBOSITY=verbose -c "SET kid.koid_max_clock_wait_ms = 0" -c "SELECT koid_new()" 2>&1)
    expect_eq "$what, clock 1 h behind: koid refuses (55000) rather than go below its floor" \
        "$(grep -c 'ERROR:  55000' <<<"$out")" 1
    # sno: both timelines have floors above the clock: it waits.
    out=$(flq -v VERBOSITY=verbose -c "SET statement_timeout = '1s'" -c "SELECT sno_to_timestamp(sno_new())" 2>&1)
    expect_eq "$what, clock 1 h behind: sno waits (57014 after statement_timeout) rather than go below either tick's floor" \
        "$(grep -c 'ERROR:  57014' <<<"$out") $(grep -vc 'ERROR\|STATEMENT\|LOCATION' <<<"$out")" "1 0"
    # Between the tick-1 floor (minutes back) and the tick-0 floor.
    faketime_set "$FT_FILE" "-$between"
    expect_eq "$what, clock $between s behind: the clock is between the tick-1 and the tick-0 floors" \
        "$(flq -c "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint BETWEEN $(cut -d' ' -f2 <<<"$fl_floors") AND $(cut -d' ' -f1 <<<"$fl_floors")")" t
    out=$(flq -c "INSERT INTO fl_sno VALUES (sno_new(), $round) RETURNING sno_tick(id), (extract(epoch FROM sno_to_timestamp(id)) * 1000000)::bigint")
    expect_eq "$what, clock $between s behind: the first sno is on tick 1" "${out%%|*}" 1
    fl_above "$what: sno tick 1" 2 "${out#*|}"
    faketime_set "$FT_FILE" "+0"
    out=$(flq -c "SET kid.koid_max_clock_wait_ms = 30000" -c "INSERT INTO fl_koid VALUES (koid_new(), $round) RETURNING (extract(epoch FROM koid_to_timestamp(id)) * 1000000)::bigint")
    fl_above "$what, true time: koid" 4 "$out"
}
# fl_above LABEL LINE_INDEX(1-6, kid.lease's order) TIME_US
fl_above() {
    local floor
    floor=$(cut -d' ' -f"$2" <<<"$fl_floors")
    if [ -n "$3" ] && [ "$floor" -gt 0 ] && [ "$3" -gt "$floor" ]; then
        check "$1: the first id is above the line's floor" true
    else
        check "$1: the first id is above the line's floor (id $3, floor $floor)" false
    fi
}

# (a) The postmaster killed by SIGKILL.
check "round 1: ids of every line (sno on tick 1 600 s back)" fl_gen 1 600
fl_floors=$(fl_lease covered_until)
expect_eq "before the crash: every line has a floor" "$(grep -c ' 0\b\|^0 ' <<<" $fl_floors")" 0
fl_recoveries=$(grep -c 'database system was not properly shut down' "$FL_DIR/server.log")
check "crash: the postmaster and its children are gone" crash_postmaster fl
expect_eq "crash: kid.lease holds the floors kid_lease() showed before it" "$(fl_file)" "$fl_floors"
faketime_set "$FT_FILE" "-3600"
fl_start 2>/dev/null # pg_ctl warns about the dead postmaster's pid file
expect_eq "crash: the next start ran crash recovery (server log)" \
    "$(grep -c 'database system was not properly shut down' "$FL_DIR/server.log")" $((fl_recoveries + 1))
expect_eq "crash: the startup floors are those floors, written ahead" \
    "$(fl_lease startup_floor) $(flq -c "SELECT string_agg(DISTINCT startup_mark, ',') FROM kid_node_info()")" "$fl_floors ahead"
fl_checks "after a crash" 2 300

# Round 3 starts sno on tick 0 at the true time: past the tick-0 floor.
fl_past_tick0() {
    for _ in $(seq 150); do
        [ "$(flq -c "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint > $(cut -d' ' -f1 <<<"$fl_floors")")" = t ] && return 0
        sleep 0.2
    done
    return 1
}
check "the clock passed the tick-0 floor" fl_past_tick0

# (b) A clean restart with the clock behind.
check "round 3: ids of every line (sno on tick 1 200 s back)" fl_gen 3 200
fl_cleans=$(grep -c 'kid: wrote the exact high-water marks' "$FL_DIR/server.log")
cluster_stop fl fast
expect_eq "clean stop: the postmaster wrote exact marks" \
    "$(grep -c 'kid: wrote the exact high-water marks' "$FL_DIR/server.log") $(awk '{print $5}' "$FL_DIR/data/kid.lease")" "$((fl_cleans + 1)) 1"
fl_floors=$(fl_file)
faketime_set "$FT_FILE" "-3600"
fl_start || exit 1
expect_eq "clean restart: the startup floors are the exact marks of kid.lease" \
    "$(fl_lease startup_floor) $(flq -c "SELECT string_agg(DISTINCT startup_mark, ',') FROM kid_node_info()")" "$fl_floors exact"
fl_checks "after a clean restart" 4 100

# (c) A promotion: a streaming standby of this server, the primary's ids of
# every line replayed, the primary gone, the standby promoted with its clock
# 1 h behind.  Its floors: the primary's marks plus the 10 s margin.
FL_S=54397
standby_init fls $FL_P $FL_S
faketime_cluster_start fls --fake-monotonic || exit 1
check "round 5: ids of every line on the primary (sno on tick 1 80 s back)" fl_gen 5 80
fl_marks=$(fl_lease covered_until)
fl_lsn=$(flq -c "SELECT pg_current_wal_lsn()")
check "promotion: the standby replayed round 5" wait_replayed $FL_S "$fl_lsn"
cluster_stop fl immediate
faketime_set "$FT_FILE" "-3600"
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/fls/data" -w -t 60 promote >/dev/null
FL_Q=$FL_S
expect_eq "promotion: the standby is promoted" "$(flq -c "SELECT pg_is_in_recovery()")" f
fl_floors=$(for m in $fl_marks; do printf '%s ' $((m + 10000000)); done)
fl_floors=${fl_floors% }
fl_checks "after a promotion" 6 30

expect_eq "zero duplicates, every round of both servers (rows = distinct ids: sno tid koid uid uid_global uuid)" \
    "$(flq -c "SELECT (SELECT count(*) - count(DISTINCT id) FROM fl_sno) || ' ' || (SELECT count(*) - count(DISTINCT id) FROM fl_tid) || ' ' || (SELECT count(*) - count(DISTINCT id) FROM fl_koid) || ' ' || (SELECT count(*) - count(DISTINCT id) FROM fl_uid) || ' ' || (SELECT count(*) - count(DISTINCT id) FROM fl_uidg) || ' ' || (SELECT count(*) - count(DISTINCT id) FROM fl_uuid)")" \
    "0 0 0 0 0 0"
cluster_stop fls fast

kid_finish
