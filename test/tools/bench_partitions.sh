#!/usr/bin/env bash
# What partitions on the id cost and save (not a test: it prints figures),
# side by side in one run on one throwaway server, as ratios:
#   1. single-row INSERT ... DEFAULT sno_new() with pgbench (CLIENTS
#      clients, SECONDS per round) into a plain table and into the parent
#      of 36 monthly partitions made by kid_partition_by_time() (the rows go
#      to the newest), rounds interleaved, the median kept;
#   2. the newest 1% of ROWS rows (over the 36 months of the partitions,
#      backfilled evenly up to now), WHERE id >= now() - 1% of that time, in one plain
#      table and over the 36 partitions: planning and execution time and
#      shared buffers from EXPLAIN (ANALYZE, BUFFERS), best of RANGE_ROUNDS
#      interleaved rounds in one warm session; also with the bound as a
#      parameter of a generic plan (PREPARE, plan_cache_mode).
# BENCH_ROWS (default 3600000), BENCH_ROUNDS (5), BENCH_SECONDS (5),
# BENCH_CLIENTS (2), BENCH_RANGE_ROUNDS (30).  On PG_CONFIG's PostgreSQL:
#   PG_CONFIG=$(test/tools/pg18.sh) test/tools/bench_partitions.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh

ROWS=${BENCH_ROWS:-3600000}
ROUNDS=${BENCH_ROUNDS:-5}
SECONDS_PER_ROUND=${BENCH_SECONDS:-5}
CLIENTS=${BENCH_CLIENTS:-2}
RANGE_ROUNDS=${BENCH_RANGE_ROUNDS:-30}

make -s -j2 PG_CONFIG="$PG_CONFIG" >/dev/null
make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
PORT=54334
cluster_init pbench $PORT "shared_buffers = 512MB" "synchronous_commit = off" "max_wal_size = 4GB" "checkpoint_timeout = 30min"
cluster_start pbench
q() { kpsql $PORT -d postgres "$@"; }
echo "PostgreSQL $(q -c "SHOW server_version"), $ROWS rows over 36 months"

q <<SQL >/dev/null
CREATE EXTENSION kid;
CREATE TABLE plain (id sno PRIMARY KEY DEFAULT sno_new(), payload int);
CREATE TABLE parted (id sno NOT NULL DEFAULT sno_new(), payload int, PRIMARY KEY (id)) PARTITION BY RANGE (id);
-- 36 months ending with this one's: made as at 35 months ago, 35 ahead.
SELECT count(*) FROM kid_partition_by_time('parted', '1 month', premake => 35, at => now() - interval '35 months');
CREATE TABLE range_results (label text, round int, planning float8, execution float8, buffers bigint);
CREATE FUNCTION bench_plan(label text, round int, query text) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || query INTO plan;
    INSERT INTO range_results VALUES (label, round, (plan->0->>'Planning Time')::float8, (plan->0->>'Execution Time')::float8,
        (plan->0->'Plan'->>'Shared Hit Blocks')::bigint + (plan->0->'Plan'->>'Shared Read Blocks')::bigint);
END \$\$;
SQL
echo "(parted: $(q -c "SELECT count(*) - 1 FROM pg_inherits WHERE inhparent = 'parted'::regclass") partitions and the default one)"

# ---------------------------------------------------------------- INSERT
echo "INSERT INTO plain (payload) VALUES (1);" >"$KID_TMP/plain.sql"
echo "INSERT INTO parted (payload) VALUES (1);" >"$KID_TMP/parted.sql"
chmod 644 "$KID_TMP"/plain.sql "$KID_TMP"/parted.sql
tps() {
    "$PG_BIN/pgbench" -h "$KID_TMP" -p $PORT -U postgres -n -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_PER_ROUND" -M prepared \
        -f "$KID_TMP/$1.sql" postgres 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | cut -d. -f1
}
declare -A runs
for r in $(seq "$ROUNDS"); do
    # Odd rounds the plain table first, even rounds the partitioned one.
    order="plain parted"
    [ $((r % 2)) -eq 1 ] || order="parted plain"
    for t in $order; do runs[$t]="${runs[$t]:-} $(tps $t)"; done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
plain_tps=$(median <<<"${runs[plain]}")
parted_tps=$(median <<<"${runs[parted]}")
echo
echo "Single-row INSERT ... DEFAULT sno_new(), pgbench -c $CLIENTS -M prepared -T $SECONDS_PER_ROUND, median of $ROUNDS interleaved rounds:"
printf '%-40s %10s %8s\n' "" "rows/s" "x plain"
printf '%-40s %10s %8s\n' "plain table" "$plain_tps" "1.00"
printf '%-40s %10s %8s\n' "parent of 36 monthly partitions" "$parted_tps" \
    "$(awk -v a="$parted_tps" -v b="$plain_tps" 'BEGIN { printf "%.2f", a / b }')"
echo "(rounds, rows/s: plain${runs[plain]}; partitioned${runs[parted]})"

# ---------------------------------------------------------------- range
# Rows from the first partition's start up to now, evenly, the same ids in
# both tables.
start="date_trunc('month', now() - interval '35 months')"
q <<SQL >/dev/null
TRUNCATE plain, parted;
INSERT INTO plain SELECT sno_new_with_time($start + (now() - $start) * (i::float8 / $ROWS)), i
FROM generate_series(1, $ROWS) i;
INSERT INTO parted SELECT * FROM plain;
VACUUM ANALYZE plain, parted;
SQL
expect_default=$(q -c "SELECT count(*) FROM parted_default")
[ "$expect_default" = 0 ] || echo "WARNING: $expect_default rows in the default partition"
window="(now() - $start) / 100"
queries=(
    "plain table|SELECT count(*), sum(payload) FROM plain WHERE id >= now() - $window"
    "36 partitions|SELECT count(*), sum(payload) FROM parted WHERE id >= now() - $window"
    "plain table, \$1 generic plan|EXECUTE since_plain(now() - $window)"
    "36 partitions, \$1 generic plan|EXECUTE since_parted(now() - $window)"
)
setup="PREPARE since_plain(timestamptz) AS SELECT count(*), sum(payload) FROM plain WHERE id >= \$1;
PREPARE since_parted(timestamptz) AS SELECT count(*), sum(payload) FROM parted WHERE id >= \$1;
SET plan_cache_mode = force_generic_plan;"
a=$(q -c "${queries[0]#*|}")
b=$(q -c "${queries[1]#*|}")
[ "$a" = "$b" ] || echo "WARNING: the two tables answer $a and $b"
echo
echo "Plans (EXPLAIN (COSTS OFF)):"
for qq in "${queries[@]:0:2}"; do
    echo "  ${qq%%|*}:"
    q -c "EXPLAIN (COSTS OFF) ${qq#*|}" | sed 's/^/    /'
done
{
    echo "$setup"
    for qq in "${queries[@]}"; do echo "SELECT bench_plan('warm-up', 0, \$q\$${qq#*|}\$q\$);"; done
    for r in $(seq "$RANGE_ROUNDS"); do
        for qq in "${queries[@]}"; do echo "SELECT bench_plan(\$l\$${qq%%|*}\$l\$, $r, \$q\$${qq#*|}\$q\$);"; done
    done
} >"$KID_TMP/range.sql"
chmod 644 "$KID_TMP/range.sql"
q -f "$KID_TMP/range.sql" >/dev/null
echo
echo "Newest 1% ($a rows|sum), best of $RANGE_ROUNDS interleaved rounds in one warm session (EXPLAIN ANALYZE, BUFFERS):"
q -P footer=off -P format=aligned -t -c "
WITH best AS (SELECT label, min(planning) AS planning, min(execution) AS execution, min(planning + execution) AS total,
                     min(buffers) AS buffers FROM range_results WHERE round > 0 GROUP BY label),
     base AS (SELECT * FROM best WHERE label = 'plain table')
SELECT rpad(b.label, 32), to_char(b.planning, '990.000'), to_char(b.execution, '990.000'),
       to_char(b.total / base.total, '990.00'), to_char(b.buffers, '9999990'), to_char(b.buffers::float8 / base.buffers, '990.00')
FROM best b, base ORDER BY b.label DESC" |
    sed '1i query                            | plan ms  | exec ms  | x plain  | buffers  | x plain'

cluster_stop pbench
