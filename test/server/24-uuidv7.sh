#!/usr/bin/env bash
# uuidv7_new() and kid's operators on PostgreSQL's uuid (runs alone or from
# run-all.sh; its own cluster on port 54397, under libfaketime):
#   - concurrency: 4 backends x 5000 ids at once: no duplicate, each
#     backend's ids strictly increasing in call order, and k-ordered: an id
#     whose call returned at least 1 ms before another call started is
#     smaller (checked for every id against every earlier-returned one);
#     a backend's uuidv7 and sno ids carry one partition;
#   - a clock step back of 1 h in the middle of a session: its ids keep
#     increasing, no duplicate; a new backend during the step back too;
#   - a crash restart (SIGKILL of a backend): every new id above every old
#     one, from the lease, even with the clock still 1 h behind;
#   - pg_dump | pg_restore of a database whose uuid primary key is range
#     scanned by time: the restored one scans it the same way;
#   - DROP EXTENSION kid leaves PostgreSQL's uuid families as they were, and
#     CREATE EXTENSION works again.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

UPORT=54397
faketime_set "$FT_FILE" +0
cluster_init uuidv7 $UPORT
# CLOCK_MONOTONIC stays true, as on a real machine (faketime_cluster_start).
start() { faketime_cluster_start uuidv7; }
start || exit 1
uq() { kpsql $UPORT -d postgres "$@"; }
uq -c "CREATE EXTENSION kid" \
    -c "CREATE TABLE u (id uuid PRIMARY KEY, backend int NOT NULL, n int NOT NULL, t0 timestamptz, t1 timestamptz, round int NOT NULL)"

# ------------------------------------------------------------------ concurrency
# Each call is timed: t0 just before, t1 just after (the target list is
# evaluated left to right, generate_series in call order).
for b in 1 2 3 4; do
    uq -c "INSERT INTO u SELECT c.id, $b, c.n, c.t0, clock_timestamp(), 0 FROM (
              SELECT n, clock_timestamp() AS t0, uuidv7_new() AS id FROM generate_series(1, 5000) n) c" &
done
wait
expect_eq "concurrency: 20000 ids from 4 backends at once, all distinct" \
    "$(uq -c "SELECT count(DISTINCT id) FROM u WHERE round = 0")" 20000
expect_eq "concurrency: every id is version 7 of the RFC variant, with kid.node_id in its node bits" \
    "$(uq -c "SELECT count(*) FROM u WHERE uuidv7_to_timestamp(id) IS NOT NULL
              AND ((('x' || substr(replace(id::text, '-', ''), 17, 4))::bit(16)::int >> 4) & 1023) = current_setting('kid.node_id')::int")" 20000
expect_eq "concurrency: each backend's ids strictly increase in call order" \
    "$(uq -c "SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY backend ORDER BY n) AS prev FROM u WHERE round = 0) s WHERE prev >= id")" 0
expect_eq "concurrency: the 4 backends used 4 partitions" \
    "$(uq -c "SELECT count(DISTINCT substr(replace(id::text, '-', ''), 20, 2)) FROM u WHERE round = 0")" 4
# One partition per backend, whichever scheme claims it first: a session's
# uuidv7 ids carry the partition its sno ids carry (two claims, one per
# scheme, would give it two).
expect_eq "one partition per backend: a session's uuidv7 ids carry the partition of its sno ids (uuidv7 claimed first, then sno first)" \
    "$(uq -c "SELECT substr(replace(uuidv7_new()::text, '-', ''), 20, 2) = lpad(to_hex(sno_partition(sno_new()) & 255), 2, '0')")/$(uq -c "SELECT lpad(to_hex(sno_partition(sno_new()) & 255), 2, '0') = substr(replace(uuidv7_new()::text, '-', ''), 20, 2)")" t/t
# k-order: the largest id among calls that returned by t - 1 ms, for each
# call starting at t, is below the call's id (ids compare as their text).
expect_eq "concurrency: k-ordered across backends (no id below one whose call returned 1 ms before it started)" \
    "$(uq -c "CREATE TEMP TABLE runmax AS SELECT t1, max(id::text) OVER (ORDER BY t1) AS top FROM u WHERE round = 0" \
          -c "CREATE INDEX ON runmax (t1)" \
          -c "SELECT count(*) FROM u b, LATERAL (SELECT top FROM runmax r WHERE r.t1 <= b.t0 - interval '1 ms' ORDER BY r.t1 DESC LIMIT 1) r
              WHERE b.round = 0 AND r.top >= b.id::text")" 0
# id >= t holds for the ids of t's millisecond and later.
expect_eq "concurrency: the time range id >= t counts what decoding counts" \
    "$(uq -c "SELECT (SELECT count(*) FROM u WHERE id >= t) = (SELECT count(*) FROM u WHERE uuidv7_to_timestamp(id) >= date_trunc('milliseconds', t))
              FROM (SELECT t0 + (t1 - t0) / 2 AS t FROM u WHERE round = 0 ORDER BY n LIMIT 1 OFFSET 2500) m")" t

# ------------------------------------------------------------------ a partition handed over
# (Before any floor: the server has made no lease yet that could cover the
# last owner's ids.)  A backend makes ids and exits; the clock steps back an
# hour (so that it is still far behind however long the search for the
# partition's new owner takes on a loaded machine); a new backend
# given the same id partition (backends take partitions by their pid, so
# new ones come until one gets it) starts above the last owner's last id,
# and goes on from there at once instead of waiting for the clock.
read -r hand_slot hand_last < <(uq -F ' ' -c "WITH i AS (SELECT uuidv7_new() AS id FROM generate_series(1, 100))
    SELECT substr(replace(max(id::text), '-', ''), 20, 2), max(id::text) FROM i")
faketime_set "$FT_FILE" -3600
hand_out=""
for _ in $(seq 2000); do
    hand_out=$(uq -v ON_ERROR_STOP=0 2>&1 <<SQL
SELECT lpad(to_hex(sno_partition(sno_new()) & 255), 2, '0') = '$hand_slot' AS mine \gset
\if :mine
SET statement_timeout = '5s';
SELECT 'above the last owner''s ids: ' || (uuidv7_new() > '$hand_last') || ', clock behind them: '
       || (clock_timestamp() < uuidv7_to_timestamp('$hand_last') - interval '30 minutes');
\endif
SQL
)
    [ -z "$hand_out" ] || break
done
expect_eq "a partition handed over with the clock an hour behind its last id: the new owner's id, within 5 s (no wait for the clock)" \
    "$hand_out" "above the last owner's ids: true, clock behind them: true"
faketime_set "$FT_FILE" +0

# ------------------------------------------------------------------ clock step back
# One session: ids, then the clock 1 h back, then more ids.
out=$(uq <<SQL 2>&1
INSERT INTO u SELECT uuidv7_new(), 10, n, NULL, NULL, 1 FROM generate_series(1, 3000) n;
\! echo "-3600" > $FT_FILE.new && mv -f $FT_FILE.new $FT_FILE
SELECT 'clock behind ' || (clock_timestamp() < uuidv7_to_timestamp(id) - interval '50 minutes') FROM u WHERE backend = 10 AND n = 3000;
INSERT INTO u SELECT uuidv7_new(), 10, n, NULL, NULL, 1 FROM generate_series(3001, 9000) n;
SQL
)
expect_eq "clock step back: the session's clock went 1 h back" "$(grep -c 'clock behind true' <<<"$out")" 1
expect_eq "clock step back: the session's ids keep increasing in call order across the step" \
    "$(uq -c "SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM u WHERE backend = 10) s WHERE prev >= id")" 0
expect_eq "clock step back: after the step the session's ids stay within a few ms past its last id before it" \
    "$(uq -c "SELECT uuidv7_to_timestamp(max(id::text)::uuid) - uuidv7_to_timestamp((SELECT id FROM u WHERE backend = 10 AND n = 3000)) < interval '10 seconds' FROM u WHERE backend = 10")" t
# A new backend while the clock is behind: distinct ids (the primary key).
check "clock step back: a new backend makes 3000 more distinct ids" \
    uq -c "INSERT INTO u SELECT uuidv7_new(), 11, n, NULL, NULL, 1 FROM generate_series(1, 3000) n"
OLD_MAX=$(uq -c "SELECT max(id::text) FROM u")

# ------------------------------------------------------------------ crash restart
before=$(grep -c 'all server processes terminated; reinitializing' "$KID_TMP/uuidv7/server.log")
uq -c "SELECT uuidv7_new(); SELECT pg_sleep(30)" >/dev/null 2>&1 &
pid=""
for _ in $(seq 100); do
    pid=$(uq -c "SELECT pid FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid() LIMIT 1")
    [ -n "$pid" ] && break
    sleep 0.1
done
check "crash: a backend holding a partition killed by SIGKILL (pid '$pid')" kill -KILL "$pid"
wait 2>/dev/null
for _ in $(seq 150); do
    [ "$(grep -c 'all server processes terminated; reinitializing' "$KID_TMP/uuidv7/server.log")" -gt "$before" ] &&
        uq -c "SELECT 1" >/dev/null 2>&1 && break
    sleep 0.2
done
expect_eq "crash: the postmaster crash-restarted" \
    "$(grep -c 'all server processes terminated; reinitializing' "$KID_TMP/uuidv7/server.log")" $((before + 1))
for b in 20 21; do
    uq -c "INSERT INTO u SELECT uuidv7_new(), $b, n, NULL, NULL, 2 FROM generate_series(1, 2000) n" &
done
wait
expect_eq "crash: every id after the crash restart is above every id before it (clock still 1 h behind)" \
    "$(uq -c "SELECT count(*) FROM u WHERE round = 2 AND id::text <= '$OLD_MAX'")/$(uq -c "SELECT count(*) FROM u WHERE round = 2")" 0/4000
expect_eq "crash: the uuid lease line has a startup floor" \
    "$(uq -c "SELECT startup_floor IS NOT NULL FROM kid_lease() WHERE line = 'uuid'")" t
faketime_set "$FT_FILE" +0

# ------------------------------------------------------------------ pg_dump | pg_restore
uq -c "CREATE DATABASE src" -c "CREATE DATABASE dst"
kpsql $UPORT -d src -c "CREATE EXTENSION kid" \
    -c "CREATE TABLE events (id uuid PRIMARY KEY DEFAULT uuidv7_new(), n int)" \
    -c "INSERT INTO events (id, n) SELECT uuidv7_from_timestamp(timestamptz '2026-01-01 00:00+00' + n * interval '1 minute'), n FROM generate_series(1, 100) n" \
    -c "CREATE VIEW recent AS SELECT * FROM events WHERE id >= '2026-01-01 01:00+00'::timestamptz"
"$PG_BIN/pg_dump" -h "$KID_TMP" -p $UPORT -U postgres -Fc -f "$KID_TMP/src.dump" src
check "pg_restore of a database whose view compares uuid with timestamptz" \
    "$PG_BIN/pg_restore" -h "$KID_TMP" -p $UPORT -U postgres -d dst --exit-on-error "$KID_TMP/src.dump"
expect_eq "pg_restore: the view counts the same, through an index condition on the primary key" \
    "$(kpsql $UPORT -d dst -c "SELECT count(*) FROM recent")/$(kpsql $UPORT -d dst -c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off" -c "EXPLAIN (COSTS OFF) SELECT * FROM recent" | grep -c 'Index Cond: (id >=')" 41/1
expect_eq "pg_restore: the default still makes ids" \
    "$(kpsql $UPORT -d dst -c "INSERT INTO events (n) VALUES (0) RETURNING uuidv7_to_timestamp(id) > '2026-01-02'")" t

# ------------------------------------------------------------------ DROP EXTENSION
uq -c "CREATE DATABASE bare"
families() {
    kpsql $UPORT -d bare -c "SELECT (SELECT count(*) FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily WHERE f.opfname IN ('uuid_ops', 'uuid_minmax_ops'))
        || ' ' || (SELECT count(*) FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily WHERE f.opfname IN ('uuid_ops', 'uuid_minmax_ops'))
        || ' ' || (SELECT count(*) FROM pg_opclass WHERE opcfamily IN (SELECT oid FROM pg_opfamily WHERE opfname = 'uuid_ops'))"
}
BARE=$(families)
kpsql $UPORT -d bare -c "CREATE EXTENSION kid"
expect_eq "DROP EXTENSION: CREATE EXTENSION kid added to uuid_ops and uuid_minmax_ops" "$(test "$(families)" != "$BARE" && echo changed)" changed
kpsql $UPORT -d bare -c "DROP EXTENSION kid"
expect_eq "DROP EXTENSION: PostgreSQL's uuid families are as before CREATE EXTENSION (operators, support functions, classes)" "$(families)" "$BARE"
check "DROP EXTENSION: CREATE EXTENSION kid works again" kpsql $UPORT -d bare -c "CREATE EXTENSION kid"

cluster_stop uuidv7
kid_finish
