#!/usr/bin/env bash
# Concurrency (runs alone or from run-all.sh; its own server on port 54200,
# with room for 300 connections).
#
# Long-lived and short-lived (pgbench -C: one connection per transaction)
# clients generate at the same time, so partitions are claimed, released
# and reused while others generate.  Asserts: every id made it into the
# table (a duplicate would fail the primary key and lose its transaction),
# and each backend's ids rise strictly in the order it made them; and
# kid_generator_stats() counts every id exactly, also those of the backends
# that exited (each backend counts in its own slot; the next one on the
# same PGPROC continues the count).  Then the partition table itself: once
# every client's backend has exited, all 256 partitions are free, which 256
# new sessions show by each claiming one at the same time (a partition a
# backend kept after it exited would leave one of them none); while they
# hold them, uuidv7_new() finds none either (one table for both schemes).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

PORT=54200
cluster_init conc $PORT "max_connections = 300" && cluster_start conc || exit 1
kpsql $PORT -d postgres -c "CREATE DATABASE kid_stress" && kpsql $PORT -d kid_stress -c "CREATE EXTENSION kid" || exit 1
kpsql $PORT -d kid_stress <<'SQL'
CREATE TABLE conc_tid (
    id atproto_tid PRIMARY KEY DEFAULT tid_new(),
    session text NOT NULL,
    n bigserial
);
CREATE TABLE conc_koid (
    id koid PRIMARY KEY DEFAULT koid_new(),
    session text NOT NULL,
    n bigserial
);
CREATE TABLE conc_uid (
    id uid PRIMARY KEY DEFAULT uid_new(),
    gid uid_global UNIQUE DEFAULT uid_global_new(),
    session text NOT NULL,
    n bigserial
);
CREATE TABLE conc_sno (
    id sno PRIMARY KEY DEFAULT sno_new(),
    session text NOT NULL,
    n bigserial
);
SQL

# A transaction of the clients: 20 rows into each table, each naming its
# backend (pid, server start and backend start: a pid reused by a later
# backend is another session).
for t in sno tid uid koid; do
    cat <<SQL
INSERT INTO conc_$t (session)
SELECT pg_backend_pid() || '@' || pg_postmaster_start_time() || '@' ||
       (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())
FROM generate_series(1, 20);
SQL
done >"$KID_TMP/conc.sql"
chmod 644 "$KID_TMP/conc.sql"

# The counts before the clients: tid, koid, sno, uid (uid and uid_global together).
counts() { kpsql $PORT -d kid_stress -c "SELECT string_agg(generated::text, ' ' ORDER BY scheme) FROM kid_generator_stats() WHERE scheme IN ('atproto_tid', 'koid', 'sno', 'uid')"; }
read -r tid0 koid0 sno0 uid0 <<<"$(counts)"

conc_pgbench() {
    "$PG_BIN/pgbench" -h "$KID_TMP" -p $PORT -U postgres -n "$@" kid_stress \
        >"$KID_TMP/pgbench.$BASHPID.$RANDOM.log" 2>&1
}
long_lived() { conc_pgbench -c 8 -j 2 -t 300 -f "$KID_TMP/conc.sql"; }
short_lived() { conc_pgbench -C -c 6 -j 2 -t 150 -f "$KID_TMP/conc.sql"; }

long_lived & p1=$!
short_lived & p2=$!
wait $p1; rc1=$?
wait $p2; rc2=$?
expect_eq "sno: pgbench long-lived clients succeeded" "$rc1" 0
expect_eq "sno: pgbench short-lived clients succeeded" "$rc2" 0

expected=$(( (8 * 300 + 6 * 150) * 20 ))
expect_eq "sno: every id of concurrent backends is unique and stored" \
    "$(kpsql $PORT -d kid_stress -c 'SELECT count(DISTINCT id) FROM conc_sno')" "$expected"
expect_eq "sno: ids rise strictly within each backend" \
    "$(kpsql $PORT -d kid_stress -c 'SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY session ORDER BY n) AS prev FROM conc_sno) s WHERE prev >= id')" 0
expect_eq "sno: short-lived backends reused partitions (fewer distinct partitions than sessions)" \
    "$(kpsql $PORT -d kid_stress -c 'SELECT count(DISTINCT sno_partition(id)) < count(DISTINCT session) FROM conc_sno')" t
read -r tid1 koid1 sno1 uid1 <<<"$(counts)"
expect_eq "kid_generator_stats: every sno, tid, koid, uid and uid_global counted once, exited backends included" \
    "$((sno1 - sno0)) $((tid1 - tid0)) $((koid1 - koid0)) $((uid1 - uid0))" "$expected $expected $expected $((2 * expected))"

# The partition table once the clients are gone.  A backend frees its
# partition as it exits, before it leaves pg_stat_activity (its exit
# callback was registered after pg_stat_activity's, and they run in
# reverse order), and it exits after its client hung up: wait for the last
# one to leave.  Then 256 sessions claim a partition each (their first
# sno_new()) and hold it, asleep, until all of them have one or one
# failed; they are then ended.
conc_left() { [ "$(kpsql $PORT -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE datname = 'kid_stress'")" = 0 ]; }
# conc_wait COMMAND...: until COMMAND succeeds; bounded: 1,200 tries 0.1 s
# apart (over 2 minutes: 256 connections take a loaded machine a while).
conc_wait() { for _ in $(seq 1200); do "$@" && return 0; sleep 0.1; done; return 1; }
need "every client's backend has exited (none left in pg_stat_activity)" conc_wait conc_left
mkdir -p "$KID_TMP/hold"
for i in $(seq 256); do
    (
        PGAPPNAME=conc_hold kpsql $PORT -d kid_stress -c "SELECT sno_partition(sno_new())" -c "SELECT pg_sleep(600)" \
            >"$KID_TMP/hold/$i.out" 2>"$KID_TMP/hold/$i.err"
        echo $? >"$KID_TMP/hold/$i.rc"
    ) &
done
# All 256 asleep holding their partitions, or one session ended (a failure).
conc_holding() {
    [ "$(kpsql $PORT -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'conc_hold' AND wait_event = 'PgSleep'")" = 256 ] ||
        compgen -G "$KID_TMP/hold/*.rc" >/dev/null
}
need "256 sessions each claimed a partition, or one of them ended" conc_wait conc_holding
# While they hold every partition, uuidv7_new() has none to take either: it
# claims from the same table (a uuidv7 generator that took a partition
# without claiming it would make ids on one an sno session holds).
expect_eq "uuidv7: with all 256 partitions held by sno sessions, uuidv7_new() in a new session is refused (sessions holding; refusals)" \
    "$(kpsql $PORT -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'conc_hold' AND wait_event = 'PgSleep'") $(kpsql $PORT -d kid_stress -c 'SELECT uuidv7_new()' 2>&1 | grep -c 'all 256 id partitions')" "256 1"
# Ended until every session has (one still connecting when a claim failed
# would go to sleep after the first round).
conc_ended() {
    kpsql $PORT -d postgres -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'conc_hold'" >/dev/null
    [ "$(find "$KID_TMP/hold" -name '*.rc' | wc -l)" = 256 ]
}
need "the 256 sessions ended" conc_wait conc_ended
wait
expect_eq "sno: all partitions released after the clients left (256 new sessions at once claim 256 distinct partitions; sessions refused)" \
    "$(cat "$KID_TMP"/hold/*.out | sort -u | grep -c .) $(cat "$KID_TMP"/hold/*.err | grep -c 'all 256 id partitions')" "256 0"
expect_eq "tid: every id of concurrent backends is unique and stored" \
    "$(kpsql $PORT -d kid_stress -c 'SELECT count(DISTINCT id) FROM conc_tid')" "$expected"
expect_eq "tid: ids rise strictly within each backend" \
    "$(kpsql $PORT -d kid_stress -c 'SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY session ORDER BY n) AS prev FROM conc_tid) s WHERE prev >= id')" 0
expect_eq "tid: ids rise strictly across the whole server in commit order of the counter" \
    "$(kpsql $PORT -d kid_stress -c 'SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY id) AS prev FROM conc_tid) s WHERE tid_to_timestamp(id) = tid_to_timestamp(prev)')" 0
expect_eq "koid: every id of concurrent backends is unique and stored" \
    "$(kpsql $PORT -d kid_stress -c 'SELECT count(DISTINCT id) FROM conc_koid')" "$expected"
expect_eq "koid: ids rise strictly within each backend" \
    "$(kpsql $PORT -d kid_stress -c 'SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY session ORDER BY n) AS prev FROM conc_koid) s WHERE prev >= id')" 0
expect_eq "uid: every local and global id of concurrent backends is unique and stored" \
    "$(kpsql $PORT -d kid_stress -c 'SELECT count(DISTINCT id) || '"' '"' || count(DISTINCT gid) FROM conc_uid')" "$expected $expected"
expect_eq "uid: ids rise strictly within each backend" \
    "$(kpsql $PORT -d kid_stress -c 'SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY session ORDER BY n) AS prev FROM conc_uid) s WHERE prev >= id')" 0

cluster_stop conc

kid_finish
