#!/usr/bin/env bash
# test/tools/clock_burst.sh [TREE]: the figures of docs/lease.md, "The trusted
# time".  Builds and installs kid from TREE (default: this one) into
# PG_CONFIG's PostgreSQL, then on a throwaway server: ids, the postmaster
# killed by SIGKILL, a start, 20 million tid_new() in one statement, the
# newest tid against the clock and the floor, then for 35 s one tid_new()
# every 10 ms and the longest of those calls.  A measurement, not a test.
set -uo pipefail
cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" || exit 1
make -s -j2 PG_CONFIG="${PG_CONFIG:-pg_config}" install >/dev/null || exit 1
source test/lib.sh || exit 1
P=54399
cluster_init m $P
cluster_start m
q() { kpsql $P -d postgres "$@"; }
q -c "CREATE EXTENSION kid" -c "SELECT count(tid_new()) FROM generate_series(1, 1000)" >/dev/null
pid=$(cluster_pid m); children=$(pgrep -P "$pid" | tr '\n' ' ')
kill -KILL "$pid"
for _ in $(seq 150); do alive=0; for c in $children; do kill -0 "$c" 2>/dev/null && alive=1; done; [ $alive = 0 ] && break; sleep 0.2; done
cluster_start m 2>/dev/null
q -c "SELECT 'floor ahead of clock after start: ' || (generator_floor - clock_timestamp()) FROM kid_node_info() WHERE scheme = 'atproto_tid'"
q -c "SELECT 'burst start ' || clock_timestamp()" -c "\timing on" -c "SELECT count(tid_new()) FROM generate_series(1, 20000000)" -c "\timing off" \
  -c "SELECT 'after burst: newest tid - clock = ' || (tid_to_timestamp(tid_new()) - clock_timestamp()) || ', newest tid - floor = ' || (tid_to_timestamp(tid_new()) - generator_floor) FROM kid_node_info() WHERE scheme = 'atproto_tid'" \
  -c "SELECT 'stats ' || generated || ' ahead_waits ' || ahead_waits FROM kid_generator_stats() WHERE scheme = 'atproto_tid'"
q -c "DO \$\$ DECLARE t0 timestamptz; d interval; worst interval := '0'; n int := 0; stop timestamptz := clock_timestamp() + interval '35 s'; BEGIN
  WHILE clock_timestamp() < stop LOOP
    t0 := clock_timestamp(); PERFORM tid_new(); d := clock_timestamp() - t0;
    IF d > worst THEN worst := d; END IF; n := n + 1;
    PERFORM pg_sleep(0.01);
  END LOOP;
  RAISE NOTICE 'calls in the next 35 s: %, longest single call: %', n, worst; END \$\$" \
  -c "SELECT 'then: newest tid - clock = ' || (tid_to_timestamp(tid_new()) - clock_timestamp())"
cluster_stop m
