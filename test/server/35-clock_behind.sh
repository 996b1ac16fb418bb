#!/usr/bin/env bash
# A clock behind the generators' floors, on a server under
# libfaketime (offset read from a file at every clock call; CLOCK_MONOTONIC
# left true, as a real clock step leaves it):
#   1. after a crash restart with the clock 1 h behind the lease, the first
#      tid and uid are above their floors; 5,000,000 tids stay within 1 ms of
#      the trusted time (floor + time since the restart); when the clock then
#      passes the floor but not the newest tid, tid_new() does not wait;
#   2. a server that ran once with its clock 10 years ahead, restarted
#      cleanly with the clock right: koid's 55000 names the clock that was
#      ahead and the floor; tid and uid carry the floor's time (no bound on
#      a single reading: docs/lease.md, "A clock that was ahead");
#   3. the allowance itself, whatever the machine's speed: a server whose
#      clocks (wall and monotonic) run a thousand times slower than real
#      time, started on a floor an hour ahead: a burst of tids and one of
#      uids run ahead of the trusted time until they wait (shown: waits
#      counted), and then the newest tid is at most 1 ms, the newest uid at
#      most one 1.024 ms step, above the trusted time (the floor plus the
#      server's time since its clock started).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

CB_PORT=54356
cluster_init cb $CB_PORT
faketime_cluster_start cb || exit 1
cq() { kpsql $CB_PORT -d postgres "$@"; }
floor_of() { echo "(SELECT generator_floor FROM kid_node_info() WHERE scheme = '$1')"; }
cq -c "CREATE EXTENSION kid" \
   -c "SELECT count(tid_new()) + count(uid_new()) FROM generate_series(1, 2000)" >/dev/null

# 1. A crash restart (a backend killed by SIGKILL) with the clock an hour
# behind.  The server's clock is read just before the crash: the restart
# sets the floors, and anchors the trusted time at them, after it.
faketime_set "$FT_FILE" "-3601.001"
reinits() { grep -c 'all server processes terminated; reinitializing' "$KID_TMP/cb/server.log"; }
reinits_before=$(reinits)
before_crash=$(cq -c "SELECT clock_timestamp()")
need "clock behind: a backend killed by SIGKILL, the postmaster reinitialised, the server back up" \
    crash_backend $CB_PORT "$KID_TMP/cb/server.log"
expect_eq "clock behind: the postmaster crash-restarted (server log)" "$(reinits)" $((reinits_before + 1))
expect_eq "clock behind: after the crash the first tid is above the tid floor, the clock 1 h behind it" \
    "$(cq -c "SELECT tid_to_timestamp(tid_new()) > $(floor_of atproto_tid) AND clock_timestamp() < $(floor_of atproto_tid) - interval '50 minutes'")" t
expect_eq "clock behind: after the crash the first uid is above the uid floor, the clock 1 h behind it" \
    "$(cq -c "SELECT uid_to_timestamp(uid_new()) > $(floor_of uid) AND clock_timestamp() < $(floor_of uid) - interval '50 minutes'")" t
# Below the floor, tid_new() may run at most 1 ms ahead of the trusted time
# (the floor advanced by the time since the restart), whatever the volume:
# the newest of 5,000,000 tids is at most (floor - clock before the crash) +
# 1 ms ahead of the clock, the restart's own duration included in that
# slack.  (Before the trusted time it was the floor + 5 s, which this
# catches wherever one backend makes more than a tid a microsecond; the
# 1 ms itself is section 3's.)
expect_eq "clock behind: 5,000,000 tids below the floor stay within the floor + elapsed time (+ the restart + 1 ms)" \
    "$(cq -c "WITH b AS (SELECT max(tid_new()) AS m FROM generate_series(1, 5000000))
              SELECT tid_to_timestamp(m) - clock_timestamp() <= $(floor_of atproto_tid) - '$before_crash'::timestamptz + interval '1 ms' FROM b")" t
# The clock jumps to 1 s past the floor, 4 s below the newest tid (floor +
# 5 s): the next tid_new() must not wait for the clock to pass that tid
# (before the fix it waited about 4 s, 30,000 sleeps).  ahead_waits counts
# every sleep.
floor_epoch=$(cq -c "SELECT extract(epoch FROM $(floor_of atproto_tid))")
faketime_set "$FT_FILE" "$(python3 -c "import time; print('%+.6f' % ($floor_epoch - time.time() + 1.0))")"
lead=$(cq -c "SELECT clock_timestamp() > $(floor_of atproto_tid) AND last_made > clock_timestamp() + interval '2 s' FROM kid_node_info() WHERE scheme = 'atproto_tid'")
ahead_waits() { cq -c "SELECT ahead_waits FROM kid_generator_stats() WHERE scheme = 'atproto_tid'"; }
w0=$(ahead_waits)
cq -c "SELECT tid_new()" >/dev/null
w1=$(ahead_waits)
expect_eq "clock behind: the clock past the floor, 2 s or more below the newest tid: the next tid_new() does not wait (lead, waits)" \
    "$lead $((w1 - w0))" "t 0"

# 2. One run with the clock 10 years ahead (one id per scheme), a clean
# restart, the clock right again.
faketime_set "$FT_FILE" "+315360000"
cq -c "SELECT sno_new(), tid_new(), koid_new(), uid_new(), uid_global_new()" >/dev/null
newest_koid=$(cq -c "SELECT koid_to_timestamp(koid_new())")
cluster_stop cb fast
faketime_set "$FT_FILE" "+0"
faketime_cluster_start cb || exit 1
out=$(cq -c "SET kid.koid_max_clock_wait_ms = 0" -c "SELECT koid_new()" 2>&1)
echo "$out" | sed 's/^/  /'
expect_eq "clock ahead once: koid_new() fails with 55000 naming the clock that was ahead and the floor (the newest koid)" \
    "$(grep -c "ERROR:  the system clock is behind the koid floor" <<<"$out") $(grep -c "Either the clock was ahead when ids were made (floor $newest_koid is 31535[0-9]\{4\}\.[0-9]\{3\} s ahead of the clock now" <<<"$out")" "1 1"
expect_eq "clock ahead once: tid, uid and uid_global carry the floor's time, 10 years ahead (no bound on one reading)" \
    "$(cq -c "SELECT tid_to_timestamp(tid_new()) > clock_timestamp() + interval '3649 days'
                 AND uid_to_timestamp(uid_new()) > clock_timestamp() + interval '3649 days'
                 AND uid_global_to_timestamp(uid_global_new(), current_setting('kid.uid_interval')::int) > clock_timestamp() + interval '3649 days'")" t
cluster_stop cb fast

# 3. The allowance, in slow motion.  Both clocks of the server start at a
# fixed time S when the postmaster starts and run at a thousandth of real
# time (libfaketime's absolute start and speed factor, CLOCK_MONOTONIC faked
# too), so that any machine makes many ids per microsecond of the server's
# time and runs ahead to the allowance.  (Its sleeps are a thousand times
# longer too: pg_ctl is not asked to wait.)  The floor, written by hand an
# hour after S, anchors the trusted time as the postmaster starts, at or
# after S: the trusted time is at most the floor plus the server's time
# since S.  That time grows by a microsecond per millisecond of real time
# (the sleep below, each psql's start: seconds on a loaded machine), so
# each batch counts it at its start and makes that many ids more than
# would fit: however long the set-up took, the batch runs into the
# allowance and waits.
SLOW_PORT=54357
SLOW_S="2030-01-01 00:00:00"
slow_floor=$(( ($(date -u -d "$SLOW_S" +%s) + 3600) * 1000000 ))
faketime_set "$FT_FILE" "@$SLOW_S x0.001"
# slow_start: the slow cluster made and started, 0 once it runs a query.
# Otherwise what it shows (its log, its processes and where they wait) is
# printed, it is stopped and removed, and 1.  (One CI run saw it accept
# nothing in 60 s on PostgreSQL 17, once in many runs: this print and the
# second start are there to tell a harness that could not start a server
# under libfaketime from a server that cannot start.)
slow_start() {
    local log=$KID_TMP/slow/server.log pm p children=
    cluster_init slow $SLOW_PORT || return 1
    echo "kid lease floor $slow_floor" | as_postgres tee "$KID_TMP/slow/data/kid.lease" >/dev/null
    faketime_cluster_start slow --fake-monotonic -W >/dev/null 2>&1
    wait_accepting $SLOW_PORT && { head -1 "$KID_TMP/slow/data/postmaster.pid" >>"$KID_PIDS"; return 0; }
    [ -f "$log" ] && tail -20 "$log" | sed 's/^/  server log: /'
    pm=$(head -1 "$KID_TMP/slow/data/postmaster.pid" 2>/dev/null)
    if [ -n "$pm" ]; then
        echo "$pm" >>"$KID_PIDS"
        children=$(pgrep -P "$pm")
        for p in $pm $children; do
            echo "  process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) state $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) wchan $(cat "/proc/$p/wchan" 2>/dev/null)"
        done
    fi
    cluster_stop slow immediate
    [ -z "$pm" ] || kill -KILL $pm $children 2>/dev/null
    rm -rf "$KID_TMP/slow"
    return 1
}
if ! slow_start; then
    echo "  the slow server did not come up; starting it once more"
    need "slow motion: the server accepts queries (second start)" slow_start || exit 1
else
    note "slow motion: the server accepts queries"
fi
sq() { kpsql $SLOW_PORT -d postgres "$@"; }
sq -c "CREATE EXTENSION kid"
slow_t0=$(sq -c "SELECT clock_timestamp()")
sleep 1
expect_eq "slow motion: the server's clock runs at a thousandth of real time (1 s of real time: under 0.1 s), an hour behind the floor" \
    "$(sq -c "SELECT clock_timestamp() - '$slow_t0' < interval '100 ms'"), $(sq -c "SELECT to_timestamp($slow_floor / 1e6) - clock_timestamp() > interval '59 minutes'")" "t, t"
slow_waits() { sq -c "SELECT overflow_waits + ahead_waits FROM kid_generator_stats() WHERE scheme = '$1'"; }
# The server's microseconds since S at a statement's start.
slow_since_s="(extract(epoch FROM statement_timestamp() - '$SLOW_S+00') * 1e6)::int"
# E + 3,000 tids, E the microseconds since S: E + 1,000 fit in the allowance
# above the floor (one tid per microsecond); the rest wait for the trusted
# time (1 us of it per ms of real time).
w0=$(slow_waits atproto_tid)
tid_over=$(sq -c "WITH b AS MATERIALIZED (SELECT max(tid_new()) AS m, count(*) AS n FROM generate_series(1, $slow_since_s + 3000))
    SELECT n || ' ' || ((extract(epoch FROM tid_to_timestamp(m)) * 1e6)::bigint - $slow_floor)
           || ' ' || (extract(epoch FROM tid_to_timestamp(m) - to_timestamp($slow_floor / 1e6)
                                      - (clock_timestamp() - '$SLOW_S+00')) * 1e6)::bigint FROM b")
read -r tid_n tid_past tid_over_trusted <<<"$tid_over"
expect_eq "slow motion: E + 3,000 tids (E: the microseconds since S) ran ahead of the trusted time to the allowance, one per microsecond above the floor (they waited)" \
    "$([ "${tid_n:-0}" -gt 3000 ] && [ "$tid_past" = "$tid_n" ] && echo "one per microsecond") $([ $(( $(slow_waits atproto_tid) - w0 )) -gt 0 ] && echo waited)" \
    "one per microsecond waited"
expect_eq "slow motion: the newest tid is at most 1 ms above the trusted time (floor + time since S)" \
    "$([ "$tid_over_trusted" -le 1000 ] && echo within || echo "$tid_over_trusted us above")" within
# 16,384 uids for each 1.024 ms step since S, and 50,000 more: the steps
# the trusted time has reached and two more fit (the floor's step is used
# up); the rest wait for the trusted time to reach the next step.
w0=$(slow_waits uid)
uid_over=$(sq -c "WITH b AS MATERIALIZED (SELECT max(uid_new()) AS m, count(*) AS n FROM generate_series(1, ($slow_since_s / 1024 + 1) * 16384 + 50000))
    SELECT n || ' ' || (uid_to_timestamp(m) > to_timestamp($slow_floor / 1e6))
           || ' ' || (extract(epoch FROM uid_to_timestamp(m) - to_timestamp($slow_floor / 1e6)
                                      - (clock_timestamp() - '$SLOW_S+00')) * 1e6)::bigint FROM b")
read -r uid_n uid_above uid_over_trusted <<<"$uid_over"
expect_eq "slow motion: 16,384 uids per step since S and 50,000 more ran ahead of the trusted time to the allowance (they waited)" \
    "$([ "${uid_n:-0}" -gt 50000 ] && echo made) $uid_above $([ $(( $(slow_waits uid) - w0 )) -gt 0 ] && echo waited)" "made true waited"
# uid_to_timestamp is the start of the id's step: one step above the
# trusted time's step starts at most one step (1.024 ms) above it.
expect_eq "slow motion: the newest uid's step starts at most one 1.024 ms step above the trusted time" \
    "$([ "$uid_over_trusted" -le 1024 ] && echo within || echo "$uid_over_trusted us above")" within
echo "  the newest tid is $tid_over_trusted us above the floor + the time since S; the newest uid's step starts $uid_over_trusted us above"
cluster_stop slow immediate

kid_finish
