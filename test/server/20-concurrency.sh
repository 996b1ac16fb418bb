#!/usr/bin/env bash
# Concurrency (runs alone or from run-all.sh; uses the "main" cluster).
#
# Long-lived and short-lived (pgbench -C: one connection per transaction)
# clients generate at the same time, so partitions are claimed, released
# and reused while others generate.  Asserts: every id made it into the
# table (a duplicate would fail the primary key and lose its transaction),
# and each backend's ids rise strictly in the order it made them; and
# kid_generator_stats() counts every id exactly, also those of the backends
# that exited (each backend counts in its own slot; the next one on the
# same PGPROC continues the count).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ensure_main_cluster || exit 1
main_db kid_stress || exit 1
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

# The counter schemes' counts before the clients: tid, koid, uid (uid and uid_global together).
counts() { kpsql $PORT -d kid_stress -c "SELECT string_agg(generated::text, ' ' ORDER BY scheme) FROM kid_generator_stats() WHERE scheme IN ('atproto_tid', 'koid', 'uid')"; }
read -r tid0 koid0 uid0 <<<"$(counts)"

long_lived() { main_pgbench kid_stress -c 8 -j 2 -t 300 -f "$KID_TMP/conc.sql"; }
short_lived() { main_pgbench kid_stress -C -c 6 -j 2 -t 150 -f "$KID_TMP/conc.sql"; }

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
expect_eq "sno: all partitions released after the clients left" \
    "$(kpsql $PORT -d kid_stress -c 'SELECT sum(generated) FROM kid_generator_stats() WHERE scheme = '"'"'sno'"'"'' | awk '{print ($1 >= '"$expected"') ? "t" : "f"}')" t
read -r tid1 koid1 uid1 <<<"$(counts)"
expect_eq "kid_generator_stats: every tid, koid, uid and uid_global counted once, exited backends included" \
    "$((tid1 - tid0)) $((koid1 - koid0)) $((uid1 - uid0))" "$expected $expected $((2 * expected))"
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

kid_finish
