#!/usr/bin/env bash
# koid's limit of 4096 ids per millisecond (runs alone or from run-all.sh;
# starts its own server).
#
# The 4097th koid of a millisecond waits for the next millisecond, or with
# kid.koid_overflow_error = on is an ERROR 53400.  Whether 4097 calls fall
# into one millisecond of a real clock depends on how fast the machine is
# (a sanitizer build may never get there), so the server runs under
# libfaketime and its clock is stopped for these statements: every call
# then reads the same millisecond, and the outcome is the same every run.
# The stopped time lies ahead of every koid made before, so the generator
# is not waiting for a clock that went back.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

PORT=54407
cluster_init overflow $PORT
# Only the wall clock is faked: PostgreSQL's waits and timers run on the
# monotonic clock, which keeps going.
faketime_cluster_start overflow || { check "server under libfaketime started" false; kid_finish; exit 1; }
kpsql $PORT -d postgres -c "CREATE EXTENSION kid" -c "SELECT koid_new()" >/dev/null

# An absolute time without "@" stops libfaketime's clock there.
stopped=$(date -u -d '+10 seconds' '+%Y-%m-%d %H:%M:%S')
faketime_set "$FT_FILE" "$stopped"
# (pg_sleep would never end: it waits for the wall clock.)
expect_eq "the server's clock is stopped" \
    "$(kpsql $PORT -d postgres -c "SELECT bool_and(clock_timestamp() = '$stopped+00') FROM generate_series(1, 100000)")" t

out=$(kpsql $PORT -d postgres -v ON_ERROR_STOP=0 -v VERBOSITY=verbose 2>&1 <<'SQL'
SET kid.koid_overflow_error = on;
SELECT count(DISTINCT k) AS koids, count(DISTINCT koid_to_timestamp(k)) AS milliseconds,
       max((koid_info(k)).counter) AS last_counter
FROM (SELECT koid_new() AS k FROM generate_series(1, 4096)) s;
SELECT koid_new();
SQL
)
expect_eq "4096 koids in one millisecond: distinct, counters 0 to 4095" "$(sed -n 1p <<<"$out")" "4096|1|4095"
expect_eq "kid.koid_overflow_error = on: the 4097th is ERROR 53400" \
    "$(grep -c '^ERROR:  53400: more than 4096 koids in one millisecond' <<<"$out")" 1

# Without it the 4097th waits for the next millisecond: here, until cancelled.
kpsql $PORT -d postgres -v ON_ERROR_STOP=0 -v VERBOSITY=verbose \
    -c "SELECT count(koid_new()) FROM generate_series(1, 4097)" >"$KID_TMP/wait.out" 2>&1 &
waiter=$!
waiting=
for _ in $(seq 100); do
    waiting=$(kpsql $PORT -d postgres -c "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT count(koid_new())%' AND state = 'active'")
    [ -n "$waiting" ] && break
    sleep 0.1
done
waits=$(kpsql $PORT -d postgres -c "SELECT overflow_waits > 0 FROM kid_generator_stats() WHERE scheme = 'koid'")
[ -z "$waiting" ] || kpsql $PORT -d postgres -c "SELECT pg_cancel_backend($waiting)" >/dev/null
wait "$waiter"
expect_eq "kid.koid_overflow_error = off: the 4097th waits (overflow_waits counts it), and a cancel ends the wait (57014)" \
    "$waits $(grep -c '^ERROR:  57014' "$KID_TMP/wait.out")" "t 1"

faketime_set "$FT_FILE" "+0"
cluster_stop overflow
kid_finish
