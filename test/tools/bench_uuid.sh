#!/usr/bin/env bash
# kid's uuid benchmark: not a test, it prints figures (docs/performance.md,
# "uuid").  One throwaway server, one run, side by side on PostgreSQL 18
# (on 15 and 17, which have no core uuidv7(): sections 1 to 3 without it,
# and with pg_uuidv7's uuid_generate_v7() where that extension is installed):
#   1. per-call cost of uuidv7_new(), core uuidv7(), gen_random_uuid() and
#      sno_new() in SELECT count(f()) FROM generate_series(1, N), as a ratio
#      to the floor count(g) over the same series; best of ROUNDS,
#      interleaved, timed on the server;
#   2. the same call in a loop from 1, 2, 4 and 8 pgbench clients (ids per
#      second over all clients): how it scales with cores;
#   3. INSERT into a table whose uuid (sno) primary key has the generator as
#      DEFAULT: single-row and 100-row statements, 1 and 8 pgbench clients;
#   4. the newest 1 % of BENCH_ROWS rows of a table keyed by core uuidv7()
#      through id >= t (kid's operators, an index range scan) against
#      uuid_extract_timestamp(id) >= t, and an sno table through id >= t:
#      execution time and shared buffers from EXPLAIN (ANALYZE, BUFFERS),
#      best of rounds.
# BENCH_N (default 1000000), BENCH_ROUNDS (5), BENCH_SECONDS (5 per pgbench
# run), BENCH_ROWS (1000000) tune it:
#   PG_CONFIG=/path/to/pg18/bin/pg_config test/tools/bench_uuid.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh

N=${BENCH_N:-1000000}
ROUNDS=${BENCH_ROUNDS:-5}
SECS=${BENCH_SECONDS:-5}
ROWS=${BENCH_ROWS:-1000000}

make -s -j2 PG_CONFIG="$PG_CONFIG" >/dev/null
make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
PORT=54333
cluster_init benchu $PORT "shared_buffers = 256MB" "synchronous_commit = off" "max_wal_size = 4GB" "checkpoint_timeout = 30min" "max_connections = 40"
cluster_start benchu
q() { kpsql $PORT -d postgres "$@"; }
pg18=$([ "$(q -c "SHOW server_version_num")" -ge 180000 ] && echo yes || echo)
pg_uuidv7=$(q -c "SELECT 'yes' FROM pg_available_extensions WHERE name = 'pg_uuidv7'")
echo "PostgreSQL $(q -c "SHOW server_version"), $(nproc) cores"
[ -z "$pg_uuidv7" ] || q -c "CREATE EXTENSION pg_uuidv7"
q <<'SQL'
CREATE EXTENSION kid;
CREATE FUNCTION bench_ms(query text) RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz;
BEGIN
    t0 := clock_timestamp();
    EXECUTE query;
    RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;
SQL

GENS="uuidv7_new() ${pg18:+uuidv7()} ${pg_uuidv7:+uuid_generate_v7()} gen_random_uuid() sno_new()"

# ------------------------------------------------------------------ 1. per call
echo
echo "## 1. per call: SELECT count(f()) FROM generate_series(1, $N), best of $ROUNDS"
declare -A best
for r in $(seq "$ROUNDS"); do
    for f in "floor" $GENS; do
        if [ "$f" = floor ]; then query="SELECT count(g) FROM generate_series(1, $N) g"; else query="SELECT count($f) FROM generate_series(1, $N)"; fi
        ms=$(q -c "SELECT bench_ms('$query')")
        if [ -z "${best[$f]:-}" ] || awk "BEGIN {exit !($ms < ${best[$f]})}"; then best[$f]=$ms; fi
    done
done
printf '| %s | %s | %s | %s |\n' "function" "ms for $N calls" "ns per call above the floor" "x floor"
printf '|---|---:|---:|---:|\n'
for f in "floor" $GENS; do
    awk -v f="$f" -v ms="${best[$f]}" -v fl="${best[floor]}" -v n="$N" \
        'BEGIN {printf "| `%s` | %.1f | %.1f | %.2f |\n", f, ms, (ms - fl) * 1e6 / n, ms / fl}'
done

# ------------------------------------------------------------------ 2. scaling
echo
echo "## 2. scaling: pgbench clients each running SELECT count(f()) FROM generate_series(1, 10000); ids/s over all clients"
printf '| function | 1 client | 2 | 4 | 8 |\n|---|---:|---:|---:|---:|\n'
for f in $GENS; do
    echo "SELECT count($f) FROM generate_series(1, 10000);" >"$KID_TMP/scale.sql"
    row="| \`$f\`"
    for c in 1 2 4 8; do
        tps=$("$PG_BIN/pgbench" -h "$KID_TMP" -p $PORT -U postgres -n -c $c -j $c -T "$SECS" -f "$KID_TMP/scale.sql" postgres 2>/dev/null |
            awk '/^tps = / {print $3}')
        row="$row | $(awk -v t="$tps" 'BEGIN {printf "%.2fM", t * 10000 / 1e6}')"
    done
    echo "$row |"
done

# ------------------------------------------------------------------ 3. INSERT
echo
echo "## 3. INSERT rows/s into a table whose primary key is DEFAULT f() (pgbench, $SECS s each)"
printf '| DEFAULT | 1 row, 1 client | 1 row, 8 clients | 100 rows, 1 client | 100 rows, 8 clients |\n|---|---:|---:|---:|---:|\n'
for f in $GENS; do
    typ=uuid
    [ "$f" = "sno_new()" ] && typ=sno
    row="| \`$f\`"
    for shape in 1 100; do
        for c in 1 8; do
            q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS ins" -c "CREATE TABLE ins (id $typ PRIMARY KEY DEFAULT $f, v int)" -c "CHECKPOINT"
            if [ "$shape" = 1 ]; then
                echo "INSERT INTO ins (v) VALUES (1);" >"$KID_TMP/ins.sql"
            else
                echo "INSERT INTO ins (v) SELECT 1 FROM generate_series(1, 100);" >"$KID_TMP/ins.sql"
            fi
            tps=$("$PG_BIN/pgbench" -h "$KID_TMP" -p $PORT -U postgres -n -c $c -j $c -T "$SECS" -f "$KID_TMP/ins.sql" postgres 2>/dev/null |
                awk '/^tps = / {print $3}')
            row="$row | $(awk -v t="$tps" -v s="$shape" 'BEGIN {printf "%.0f", t * s}')"
        done
    done
    echo "$row |"
done
q -c "DROP TABLE IF EXISTS ins"

# ------------------------------------------------------------------ 4. range scans
if [ -z "$pg18" ]; then
    echo
    echo "(section 4 needs PostgreSQL 18: its table is keyed by core uuidv7())"
    cluster_stop benchu
    exit 0
fi
echo
echo "## 4. the newest 1 % of $ROWS rows (one row per 10 ms, 2026-01-01 on); best of 20"
q <<SQL >/dev/null
CREATE TABLE core_v7 (id uuid PRIMARY KEY, payload int);
INSERT INTO core_v7 SELECT uuidv7(timestamptz '2026-01-01 00:00+00' + i * interval '10 ms' - clock_timestamp()), i FROM generate_series(1, $ROWS) i;
CREATE TABLE kid_sno (id sno PRIMARY KEY, payload int);
INSERT INTO kid_sno SELECT sno_new_with_time(timestamptz '2026-01-01 00:00+00' + i * interval '10 ms'), i FROM generate_series(1, $ROWS) i;
VACUUM ANALYZE core_v7, kid_sno;
SQL
T=$(q -c "SELECT timestamptz '2026-01-01 00:00+00' + ($ROWS * 0.99)::int * interval '10 ms'")
explain_best() { # query -> "ms buffers rows"
    local bms="" bbuf="" brows=""
    for _ in $(seq 20); do
        out=$(q -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) $1")
        ms=$(grep -o 'Execution Time: [0-9.]*' <<<"$out" | awk '{print $3}')
        buf=$(grep -m1 -o 'shared hit=[0-9]*' <<<"$out" | cut -d= -f2)
        if [ -z "$bms" ] || awk "BEGIN {exit !($ms < $bms)}"; then bms=$ms; bbuf=$buf; fi
    done
    brows=$(q -c "SELECT count(*) FROM ($1) s")
    echo "$bms ${bbuf:-0} $brows $(q -c "EXPLAIN (COSTS OFF) $1" | head -1 | sed 's/ on .*//;s/^ *//')"
}
printf '| query | rows | ms | shared buffers | plan |\n|---|---:|---:|---:|---|\n'
for query in "SELECT payload FROM core_v7 WHERE id >= '$T'::timestamptz" \
    "SELECT payload FROM core_v7 WHERE uuid_extract_timestamp(id) >= '$T'::timestamptz" \
    "SELECT payload FROM kid_sno WHERE id >= '$T'::timestamptz"; do
    read -r ms buf rows plan <<<"$(explain_best "$query")"
    printf '| `%s` | %s | %s | %s | %s |\n' "${query/ '$T'::timestamptz/ t}" "$rows" "$ms" "$buf" "$plan"
done

cluster_stop benchu
