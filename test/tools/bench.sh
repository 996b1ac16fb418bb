#!/usr/bin/env bash
# kid's benchmark ("make bench"): not a test, it prints figures.
#
# One throwaway server, one run, everything side by side as ratios, since
# absolute times on a shared machine mean little:
#   1. per-call cost of each generator in
#        SELECT count(f()) FROM generate_series(1, N)
#      next to the floor (count(g) over the same series), nextval(),
#      clock_timestamp(), gen_random_uuid(), uuid-ossp, a UUIDv7 function in
#      SQL and, on PostgreSQL 18, the built-in uuidv7();
#      timed on the server (clock_timestamp() around EXECUTE), rounds
#      interleaved, the best of ROUNDS rounds kept.
#   2. per-row cost of each decoder (*_to_timestamp) in
#        SELECT count(f(col)) FROM bench_decode
#      over N precomputed ids, next to its floor (count(col) over the same
#      table), and on PostgreSQL 18 uuid_extract_timestamp() over uuidv7()s.
#   3. single-row INSERT throughput (pgbench, 2 clients) into a table whose
#      primary key has each generator as DEFAULT, next to bigserial and
#      uuid DEFAULT gen_random_uuid(), rounds interleaved, median kept.
#   4. range scans by time: the newest 1% of BENCH_ROWS rows through
#      (a) id >= timestamptz, (b) id >= *_from_timestamp(), (c) decoding in
#      WHERE, against (d) a bigserial table by id; shared buffers and
#      execution time from EXPLAIN (ANALYZE, BUFFERS), best of rounds.
#
# BENCH_N (calls per query, default 1000000), BENCH_ROUNDS (default 5),
# BENCH_SECONDS (pgbench seconds per round, default 5), BENCH_ROWS (rows per
# range-scan table, default 2000000), BENCH_RANGE_ROUNDS (rounds of the
# range scans, a few ms each, default 30) tune it; BENCH_SECTIONS (default
# "calls decode insert range") runs only the sections named, e.g.
#   BENCH_SECTIONS=range BENCH_ROUNDS=3 test/tools/bench.sh
# "clients" (not in the default) measures throughput with 1-8 clients: see
# that section.  BENCH_BASELINE_PG_CONFIG runs "calls" and "clients" on a
# second server too, with another build of kid, for a before/after run.
# It runs on PG_CONFIG's PostgreSQL; "make bench18" on PostgreSQL 18, e.g.
#   PG_CONFIG=$(test/tools/pg18.sh) test/tools/bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh

N=${BENCH_N:-1000000}
ROUNDS=${BENCH_ROUNDS:-5}
SECONDS_PER_ROUND=${BENCH_SECONDS:-5}
SECTIONS=" ${BENCH_SECTIONS:-calls decode insert range} "
section() { [[ $SECTIONS == *" $1 "* ]]; }

# Objects built for another PostgreSQL are rebuilt by make (.kid-built-for).
make -s -j2 PG_CONFIG="$PG_CONFIG" >/dev/null
make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
PORT=54332
cluster_init bench $PORT "shared_buffers = 256MB" "synchronous_commit = off" "max_wal_size = 4GB" "checkpoint_timeout = 30min"
cluster_start bench

# PostgreSQL 18 has uuidv7() and uuid_extract_timestamp() built in: they get
# rows of their own.  uuid-ossp is compared where it is installed (a source
# build without --with-uuid has none).
server_version_num=$(kpsql $PORT -d postgres -c "SHOW server_version_num")
pg18=$([ "$server_version_num" -ge 180000 ] && echo yes || echo)
ossp=$(kpsql $PORT -d postgres -c "SELECT 'yes' FROM pg_available_extensions WHERE name = 'uuid-ossp'")
echo "PostgreSQL $(kpsql $PORT -d postgres -c "SHOW server_version")"
[ -n "$ossp" ] || echo "(uuid-ossp is not installed on this server: its rows are left out)"

bench_setup_sql=$( ([ -z "$ossp" ] || echo 'CREATE EXTENSION "uuid-ossp";'); cat <<'SQL'
CREATE EXTENSION kid;
CREATE SEQUENCE bench_seq;
-- A UUIDv7 as users write it on PostgreSQL 15 (no built-in): 48-bit Unix ms
-- over the bytes of a random v4 UUID, version and variant bits set.  Not
-- named uuidv7: on PostgreSQL 18 pg_catalog.uuidv7() would hide it.
CREATE FUNCTION uuidv7_sql() RETURNS uuid LANGUAGE sql VOLATILE AS $$
    SELECT encode(
        set_bit(set_bit(
            overlay(uuid_send(gen_random_uuid())
                    PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                    FROM 1 FOR 6),
            52, 1), 53, 1),
        'hex')::uuid
$$;
-- Best-of-rounds server-side timing of a query, in milliseconds.
CREATE FUNCTION bench_ms(query text) RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; t1 timestamptz;
BEGIN
    t0 := clock_timestamp();
    EXECUTE query;
    t1 := clock_timestamp();
    RETURN extract(epoch FROM t1 - t0) * 1000;
END $$;
SQL
)
kpsql $PORT -d postgres <<<"$bench_setup_sql"
kpsql $PORT -d postgres -c "CREATE TABLE bench_results (server text, label text, round int, ms double precision)"

# BENCH_BASELINE_PG_CONFIG names another PostgreSQL install of the same
# major with another build of kid installed (e.g. the main branch's, built
# with PG_CONFIG pointing there): a second server runs from it, and the
# sections "calls" and "clients" run every query on both servers, one after
# the other (which one first alternates from round to round), and give both
# and their ratio.
servers=("this|$PORT|$PG_BIN")
if [ -n "${BENCH_BASELINE_PG_CONFIG:-}" ]; then
    base_bin=$("$BENCH_BASELINE_PG_CONFIG" --bindir)
    BASE_PORT=$((PORT + 1))
    PG_BIN=$base_bin cluster_init bench_base $BASE_PORT "shared_buffers = 256MB" "synchronous_commit = off"
    # A baseline kid older than kid.partition_maintenance_interval (which
    # cluster_init sets) refuses to start with it: its worker is not there.
    sed -i '/^kid\.partition_maintenance_interval = /d' "$KID_TMP/bench_base/data/postgresql.conf"
    PG_BIN=$base_bin cluster_start bench_base
    PG_BIN=$base_bin kpsql $BASE_PORT -d postgres <<<"$bench_setup_sql"
    servers+=("baseline|$BASE_PORT|$base_bin")
fi
# servers_in_round R: the servers, this build first in odd rounds, the baseline first in even ones.
servers_in_round() {
    if [ $(($1 % 2)) -eq 1 ]; then printf '%s\n' "${servers[@]}"; else printf '%s\n' "${servers[@]}" | tac; fi
}

# What "calls" and "clients" compare, label|expression: the floor (a count
# of nothing) first, kid's generators, then what users would use instead.
generators=(
    "floor: count(g)|g"
    "sno_new()|sno_new()"
    "tid_new()|tid_new()"
    "koid_new()|koid_new()"
    "uid_new()|uid_new()"
    "uid_global_new()|uid_global_new()"
    "nextval()|nextval('bench_seq')"
    "gen_random_uuid()|gen_random_uuid()"
)

# ---------------------------------------------------------------- per-call cost
if section calls; then
# label|expression; the floor must come first.
calls=(
    "${generators[@]}"
    "clock_timestamp()|clock_timestamp()"
    "uuidv7() (SQL function)|uuidv7_sql()"
)
[ -z "$ossp" ] || calls+=(
    "uuid_generate_v1() (uuid-ossp)|uuid_generate_v1()"
    "uuid_generate_v4() (uuid-ossp)|uuid_generate_v4()"
)
[ -z "$pg18" ] || calls+=("uuidv7() (built in, 18)|uuidv7()")
for extra in ${BENCH_EXTRA_CALLS:-}; do calls+=("$extra"); done

# Warm-up, then interleaved rounds.
for c in "${calls[@]}"; do
    expr=${c#*|}
    kpsql $PORT -d postgres -c "SELECT count($expr) FROM generate_series(1, 10000) g" >/dev/null
done
for r in $(seq "$ROUNDS"); do
    for c in "${calls[@]}"; do
        label=${c%%|*}
        expr=${c#*|}
        while IFS='|' read -r name port bin; do
            ms=$(PG_BIN=$bin kpsql "$port" -d postgres -c "SELECT bench_ms(\$q\$SELECT count($expr) FROM generate_series(1, $N) g\$q\$)")
            kpsql $PORT -d postgres -c "INSERT INTO bench_results VALUES ('$name', \$l\$$label\$l\$, $r, $ms)"
        done < <(servers_in_round "$r")
    done
done

echo
echo "Per call: SELECT count(f()) FROM generate_series(1, $N), best of $ROUNDS interleaved rounds"
kpsql $PORT -d postgres -P footer=off -P format=aligned -t -c "
WITH best AS (SELECT server, label, min(ms) AS ms,
                     min(min(ms)) FILTER (WHERE label LIKE 'floor%') OVER (PARTITION BY server) AS floor,
                     min(min(ms)) FILTER (WHERE label = 'nextval()') OVER (PARTITION BY server) AS nextval
              FROM bench_results GROUP BY server, label)
SELECT rpad(t.label, 32) AS \"function\",
       to_char(t.ms, '99990.0') AS \"ms\",
       to_char((t.ms - t.floor) * 1e6 / $N, '99990.0') AS \"ns/call over floor\",
       to_char(t.ms / t.floor, '990.00') AS \"x floor\",
       to_char(t.ms / t.nextval, '990.00') AS \"x nextval()\"
       ${BENCH_BASELINE_PG_CONFIG:+, to_char(b.ms / b.floor, '990.00') AS \"baseline x floor\"}
FROM best t LEFT JOIN best b ON b.server = 'baseline' AND b.label = t.label
WHERE t.server = 'this' ORDER BY t.ms" |
    sed "1i function                         |    ms    | ns/call over floor | x floor | x nextval()${BENCH_BASELINE_PG_CONFIG:+ | baseline x floor}"
fi

# ---------------------------------------------------------------- decoders
# Per-row cost of each decoder over N precomputed ids: one table holds one id
# of each kind per row (one row every ms from 2026-01-01; on PostgreSQL 18 a
# uuidv7() column too), so every query scans the same heap:
#   SELECT count(decoder(col)) FROM bench_decode
# next to its floor, the same query without the decoder, count(col) (the
# floor differs by column: deforming the row up to a later column costs a
# few ns more).  No parallel workers; the table is VACUUM ANALYZEd and read
# once before timing; best of ROUNDS interleaved rounds, timed on the server
# as above.
if section decode; then
decode_uuid_col=$([ -z "$pg18" ] || echo "u7 uuid NOT NULL,")
decode_uuid_val=$([ -z "$pg18" ] || echo "uuidv7(),")
kpsql $PORT -d postgres <<SQL
CREATE TABLE bench_decode (s sno NOT NULL, t atproto_tid NOT NULL, k koid NOT NULL, u uid NOT NULL,
                           ug uid_global NOT NULL, $decode_uuid_col g int NOT NULL);
INSERT INTO bench_decode
SELECT sno_new_with_time(at), tid_from_timestamp(at), koid_from_timestamp(at), uid_from_timestamp(at),
       uid_to_global(uid_from_timestamp(at), 0, 8), $decode_uuid_val i
FROM generate_series(1, $N) i, LATERAL (SELECT timestamptz '2026-01-01' + i * interval '1 ms' AS at) a;
VACUUM ANALYZE bench_decode;
CREATE TABLE decode_results (label text, col text, round int, ms double precision);
SQL
# label|column|decoder
decoders=(
    "sno_to_timestamp()|s|sno_to_timestamp"
    "tid_to_timestamp()|t|tid_to_timestamp"
    "koid_to_timestamp()|k|koid_to_timestamp"
    "uid_to_timestamp()|u|uid_to_timestamp"
    "uid_global_to_timestamp()|ug|uid_global_to_timestamp"
)
[ -z "$pg18" ] || decoders+=("uuid_extract_timestamp() (18)|u7|uuid_extract_timestamp")
# Each decoder and its floor, as label|column|expression.
decode_queries=()
for d in "${decoders[@]}"; do
    IFS='|' read -r label col fn <<<"$d"
    decode_queries+=("floor|$col|$col" "$label|$col|$fn($col)")
done
for q in "${decode_queries[@]}"; do
    IFS='|' read -r label col expr <<<"$q"
    kpsql $PORT -d postgres -c "SET max_parallel_workers_per_gather = 0" -c "SELECT count($expr) FROM bench_decode" >/dev/null
done
for r in $(seq "$ROUNDS"); do
    for q in "${decode_queries[@]}"; do
        IFS='|' read -r label col expr <<<"$q"
        kpsql $PORT -d postgres -c "SET max_parallel_workers_per_gather = 0" \
            -c "INSERT INTO decode_results SELECT \$l\$$label\$l\$, '$col', $r, bench_ms(\$q\$SELECT count($expr) FROM bench_decode\$q\$)"
    done
done

echo
echo "Decoders: SELECT count(f(col)) FROM bench_decode ($N precomputed rows) next to its floor count(col), best of $ROUNDS interleaved rounds"
kpsql $PORT -d postgres -P footer=off -P format=aligned -t -c "
WITH best AS (SELECT label, col, min(ms) AS ms FROM decode_results GROUP BY label, col)
SELECT rpad(d.label, 32) AS \"function\",
       to_char(d.ms, '99990.0') AS \"ms\",
       to_char(f.ms, '99990.0') AS \"floor ms\",
       to_char((d.ms - f.ms) * 1e6 / $N, '99990.0') AS \"ns/row over floor\",
       to_char(d.ms / f.ms, '990.00') AS \"x floor\"
FROM best d JOIN best f ON f.col = d.col AND f.label = 'floor'
WHERE d.label <> 'floor' ORDER BY d.ms - f.ms" |
    sed '1i function                         |    ms    | floor ms | ns/row over floor | x floor'
fi

# ---------------------------------------------------------------- INSERT throughput
if section insert; then
kpsql $PORT -d postgres <<'SQL'
CREATE TABLE ins_bigserial (id bigserial PRIMARY KEY, v int);
CREATE TABLE ins_uuid4 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), v int);
CREATE TABLE ins_uuid7 (id uuid PRIMARY KEY DEFAULT uuidv7_sql(), v int);
CREATE TABLE ins_sno (id sno PRIMARY KEY DEFAULT sno_new(), v int);
CREATE TABLE ins_tid (id atproto_tid PRIMARY KEY DEFAULT tid_new(), v int);
CREATE TABLE ins_koid (id koid PRIMARY KEY DEFAULT koid_new(), v int);
CREATE TABLE ins_uid (id uid PRIMARY KEY DEFAULT uid_new(), v int);
CREATE TABLE tps_results (label text, round int, tps double precision);
SQL
tables=(ins_bigserial ins_uuid4 ins_uuid7 ins_sno ins_tid ins_koid ins_uid)
if [ -n "$pg18" ]; then
    kpsql $PORT -d postgres -c "CREATE TABLE ins_uuidv7_builtin (id uuid PRIMARY KEY DEFAULT uuidv7(), v int)"
    tables+=(ins_uuidv7_builtin)
fi
for extra in ${BENCH_EXTRA_TABLES:-}; do tables+=("$extra"); done

for r in $(seq "$ROUNDS"); do
    for t in "${tables[@]}"; do
        echo "INSERT INTO $t (v) VALUES (1);" > "$KID_TMP/ins.sql"
        chmod 644 "$KID_TMP/ins.sql"
        tps=$("$PG_BIN/pgbench" -h "$KID_TMP" -p $PORT -U postgres -n -c 2 -j 2 -T "$SECONDS_PER_ROUND" \
                -f "$KID_TMP/ins.sql" postgres 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
        kpsql $PORT -d postgres -c "INSERT INTO tps_results VALUES ('$t', $r, ${tps:-0})"
    done
done

echo
echo "Single-row INSERT, pgbench -c 2 -T $SECONDS_PER_ROUND, median of $ROUNDS interleaved rounds"
kpsql $PORT -d postgres -P footer=off -P format=aligned -t -c "
WITH med AS (SELECT label, percentile_cont(0.5) WITHIN GROUP (ORDER BY tps) AS tps FROM tps_results GROUP BY label)
SELECT rpad(label, 20), to_char(tps, '9999990'), to_char(tps / (SELECT tps FROM med WHERE label = 'ins_bigserial'), '990.00')
FROM med ORDER BY tps DESC" | sed '1i table                |   TPS    | x bigserial'
for t in "${tables[@]}"; do
    kpsql $PORT -d postgres -c "SELECT rpad('$t', 20) || ' primary key: ' ||
        round(pg_relation_size('${t}_pkey')::numeric / greatest(count(*), 1), 1) || ' bytes/row' FROM $t"
done
fi

# ---------------------------------------------------------------- range scans by time
# 2 million rows, one every 0.5 s (about 11.6 days); the newest 1% by time.
# Each id table holds (id, payload int); (d) is a bigserial table with a
# created timestamptz column (what a bigserial table needs to be queried by
# time), (d') the same without it, as wide as the 8-byte id tables.  Every
# table is loaded in time order, then VACUUM ANALYZEd (visibility map set,
# statistics fresh) and its heap and primary key read once before timing.
if section range; then
ROWS=${BENCH_ROWS:-2000000}
RANGE_ROUNDS=${BENCH_RANGE_ROUNDS:-30}
kpsql $PORT -d postgres <<SQL
CREATE TABLE range_bigserial (id bigserial PRIMARY KEY, created timestamptz NOT NULL, payload int);
INSERT INTO range_bigserial (created, payload)
SELECT timestamptz '2026-01-01' + i * interval '0.5 s', i FROM generate_series(1, $ROWS) i;
CREATE TABLE range_bigserial_narrow (id bigserial PRIMARY KEY, payload int);
INSERT INTO range_bigserial_narrow (payload) SELECT i FROM generate_series(1, $ROWS) i;
CREATE TABLE range_sno (id sno PRIMARY KEY, payload int);
INSERT INTO range_sno SELECT sno_new_with_time(timestamptz '2026-01-01' + i * interval '0.5 s'), i
FROM generate_series(1, $ROWS) i;
CREATE TABLE range_tid (id atproto_tid PRIMARY KEY, payload int);
INSERT INTO range_tid SELECT tid_from_timestamp(timestamptz '2026-01-01' + i * interval '0.5 s'), i
FROM generate_series(1, $ROWS) i;
CREATE TABLE range_koid (id koid PRIMARY KEY, payload int);
INSERT INTO range_koid SELECT koid_from_timestamp(timestamptz '2026-01-01' + i * interval '0.5 s'), i
FROM generate_series(1, $ROWS) i;
CREATE TABLE range_uid (id uid PRIMARY KEY, payload int);
INSERT INTO range_uid SELECT uid_from_timestamp(timestamptz '2026-01-01' + i * interval '0.5 s'), i
FROM generate_series(1, $ROWS) i;
-- uid_global ids of node 0: with another node, id >= t is exact only to the
-- 256 s neighbourhood window (see README), which would change the row count.
CREATE TABLE range_uid_global (id uid_global PRIMARY KEY, payload int);
INSERT INTO range_uid_global SELECT uid_to_global(uid_from_timestamp(timestamptz '2026-01-01' + i * interval '0.5 s'), 0, 8), i
FROM generate_series(1, $ROWS) i;
VACUUM ANALYZE range_bigserial, range_bigserial_narrow, range_sno, range_tid, range_koid, range_uid, range_uid_global;
CREATE TABLE range_results (label text, round int, ms double precision, buffers bigint);
-- Execution time and shared buffers touched, from EXPLAIN (ANALYZE, BUFFERS).
CREATE FUNCTION bench_plan(label text, round int, query text) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || query INTO plan;
    INSERT INTO range_results VALUES (label, round, (plan->0->>'Execution Time')::float8,
        (plan->0->'Plan'->>'Shared Hit Blocks')::bigint + (plan->0->'Plan'->>'Shared Read Blocks')::bigint);
END \$\$;
SQL
kpsql $PORT -d postgres -c "
SELECT rpad(c.relname, 24) || to_char(pg_relation_size(c.oid) / 8192, '999990') || ' heap pages'
       || to_char(pg_relation_size(i.indexrelid) / 8192, '999990') || ' primary-key pages'
FROM pg_class c JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
WHERE c.relname LIKE 'range\_%' ORDER BY c.relname"
cutoff="timestamptz '2026-01-01' + $((ROWS * 99 / 100)) * interval '0.5 s'"
first_id=$((ROWS * 99 / 100))
queries=(
    "(d) bigserial: id >= n|SELECT count(*), sum(payload) FROM range_bigserial WHERE id >= $first_id"
    "(d') bigserial, no created column|SELECT count(*), sum(payload) FROM range_bigserial_narrow WHERE id >= $first_id"
    "(a) sno: id >= timestamptz|SELECT count(*), sum(payload) FROM range_sno WHERE id >= $cutoff"
    "(b) sno: id >= sno_from_timestamp()|SELECT count(*), sum(payload) FROM range_sno WHERE id >= sno_from_timestamp($cutoff)"
    "(c) sno: sno_to_timestamp(id) >= t|SELECT count(*), sum(payload) FROM range_sno WHERE sno_to_timestamp(id) >= $cutoff"
    "(a) tid: id >= timestamptz|SELECT count(*), sum(payload) FROM range_tid WHERE id >= $cutoff"
    "(b) tid: id >= tid_from_timestamp()|SELECT count(*), sum(payload) FROM range_tid WHERE id >= tid_from_timestamp($cutoff)"
    "(c) tid: tid_to_timestamp(id) >= t|SELECT count(*), sum(payload) FROM range_tid WHERE tid_to_timestamp(id) >= $cutoff"
    "(a) koid: id >= timestamptz|SELECT count(*), sum(payload) FROM range_koid WHERE id >= $cutoff"
    "(b) koid: id >= koid_from_timestamp()|SELECT count(*), sum(payload) FROM range_koid WHERE id >= koid_from_timestamp($cutoff)"
    "(c) koid: koid_to_timestamp(id) >= t|SELECT count(*), sum(payload) FROM range_koid WHERE koid_to_timestamp(id) >= $cutoff"
    "(a) uid: id >= timestamptz|SELECT count(*), sum(payload) FROM range_uid WHERE id >= $cutoff"
    "(b) uid: id >= uid_from_timestamp()|SELECT count(*), sum(payload) FROM range_uid WHERE id >= uid_from_timestamp($cutoff)"
    "(c) uid: uid_to_timestamp(id) >= t|SELECT count(*), sum(payload) FROM range_uid WHERE uid_to_timestamp(id) >= $cutoff"
    "(a) uid_global: id >= timestamptz|SELECT count(*), sum(payload) FROM range_uid_global WHERE id >= $cutoff"
    "(b) uid_global: id >= uid_global_from_timestamp()|SELECT count(*), sum(payload) FROM range_uid_global WHERE id >= uid_global_from_timestamp($cutoff)"
    "(c) uid_global: uid_global_to_timestamp(id) >= t|SELECT count(*), sum(payload) FROM range_uid_global WHERE uid_global_to_timestamp(id) >= $cutoff"
)
for extra in "${BENCH_EXTRA_RANGE[@]:-}"; do [ -n "$extra" ] && queries+=("$extra"); done
# Warm-up: every query once (reads the tables into shared buffers); every
# query must find the same rows as (d).  Then the plans, for the record.
expected_result=
for q in "${queries[@]}"; do
    result=$(kpsql $PORT -d postgres -c "${q#*|}")
    [ -n "$expected_result" ] || expected_result=$result
    [ "$result" = "$expected_result" ] ||
        echo "WARNING: ${q%%|*} found (count|sum) $result, (d) $expected_result"
done
echo
echo "Plans (EXPLAIN (COSTS OFF)):"
for q in "${queries[@]}"; do
    case ${q%%|*} in "(c)"*) continue ;; esac
    echo "  ${q%%|*}:"
    kpsql $PORT -d postgres -c "EXPLAIN (COSTS OFF) ${q#*|}" | sed 's/^/    /'
done
# All rounds in one session, after one run of each query in it: a new
# backend's first cross-type scan looks up the (id, timestamptz) btree
# support function in pg_amproc, 6 catalog buffers and a few tens of
# microseconds that a pooled connection pays once, not per query.
{
    for q in "${queries[@]}"; do
        echo "SELECT bench_plan('warm-up', 0, \$q\$${q#*|}\$q\$);"
    done
    for r in $(seq "$RANGE_ROUNDS"); do
        for q in "${queries[@]}"; do
            echo "SELECT bench_plan(\$l\$${q%%|*}\$l\$, $r, \$q\$${q#*|}\$q\$);"
        done
    done
} > "$KID_TMP/range.sql"
chmod 644 "$KID_TMP/range.sql"
kpsql $PORT -d postgres -f "$KID_TMP/range.sql" >/dev/null
echo
echo "Newest 1% of $ROWS rows by time, best of $RANGE_ROUNDS interleaved rounds in one warm session (EXPLAIN ANALYZE, BUFFERS)"
kpsql $PORT -d postgres -P footer=off -P format=aligned -t -c "
WITH best AS (SELECT label, min(ms) AS ms, min(buffers) AS buffers FROM range_results WHERE round > 0 GROUP BY label),
     d AS (SELECT ms, buffers FROM best WHERE label LIKE '(d)%')
SELECT rpad(label, 50), to_char(best.ms, '9990.00'), to_char(best.ms / d.ms, '9990.00'),
       to_char(best.buffers, '99999990'), to_char(best.buffers::float8 / d.buffers, '9990.00')
FROM best, d ORDER BY label" | sed '1i query                                              |    ms    |  x (d)   |  buffers  |  x (d)'
fi

# ---------------------------------------------------------------- clients
# Throughput with 1, 2, 4 and 8 clients: pgbench -n -c C -j C -T SECONDS
# running one query, SELECT count(f()) FROM generate_series(1, 1000) g,
# so that the generator, not the round trip, is most of each transaction;
# ids/s = transactions/s * 1000.  The floor is count(g) over the same
# series.  On a machine with fewer cores than clients the extra clients only
# share the cores: what this section shows there is that nothing gets
# slower, not how the generators scale.  Not in the default sections (it
# takes 4 * ROUNDS * SECONDS per function and server).
# With BENCH_BASELINE_PG_CONFIG (above) the table gives both servers and
# their ratio (this build / baseline), best of ROUNDS rounds.
if section clients; then
client_counts=${BENCH_CLIENTS:-1 2 4 8}
client_queries=("${generators[@]}")
[ -z "$pg18" ] || client_queries+=("uuidv7() (built in, 18)|uuidv7()")
kpsql $PORT -d postgres -c "CREATE TABLE client_results (server text, label text, clients int, round int, tps double precision)"
for r in $(seq "$ROUNDS"); do
    for q in "${client_queries[@]}"; do
        label=${q%%|*}
        echo "SELECT count(${q#*|}) FROM generate_series(1, 1000) g;" > "$KID_TMP/clients.sql"
        chmod 644 "$KID_TMP/clients.sql"
        for c in $client_counts; do
            while IFS='|' read -r name port bin; do
                tps=$("$bin/pgbench" -h "$KID_TMP" -p "$port" -U postgres -n -c "$c" -j "$c" -T "$SECONDS_PER_ROUND" \
                        -f "$KID_TMP/clients.sql" postgres 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
                kpsql $PORT -d postgres -c "INSERT INTO client_results VALUES ('$name', \$l\$$label\$l\$, $c, $r, ${tps:-0})"
            done < <(servers_in_round "$r")
        done
    done
done
echo
echo "Clients: pgbench -c C -j C -T $SECONDS_PER_ROUND, SELECT count(f()) FROM generate_series(1, 1000) g;"
echo "million ids/s, best of $ROUNDS rounds${BENCH_BASELINE_PG_CONFIG:+; this build / baseline in parentheses}"
kpsql $PORT -d postgres -P footer=off -P format=aligned -t -c "
WITH best AS (SELECT server, label, clients, max(tps) * 1000 / 1e6 AS mids FROM client_results GROUP BY 1, 2, 3)
SELECT rpad(t.label, 24) AS label,
       string_agg(lpad(to_char(t.mids, '990.00'), 7) ||
                  coalesce(' (' || to_char(t.mids / nullif(b.mids, 0), '0.00') || ')', ''), ' |' ORDER BY t.clients)
FROM best t LEFT JOIN best b ON b.server = 'baseline' AND b.label = t.label AND b.clients = t.clients
WHERE t.server = 'this' GROUP BY t.label ORDER BY min(t.mids) DESC" |
    sed "1i function                 | clients: $client_counts"
if [ -n "${BENCH_BASELINE_PG_CONFIG:-}" ]; then
    echo "baseline, million ids/s:"
    kpsql $PORT -d postgres -P footer=off -P format=aligned -t -c "
WITH best AS (SELECT label, clients, max(tps) * 1000 / 1e6 AS mids FROM client_results WHERE server = 'baseline' GROUP BY 1, 2)
SELECT rpad(label, 24), string_agg(lpad(to_char(mids, '990.00'), 7), ' |' ORDER BY clients)
FROM best GROUP BY label ORDER BY min(mids) DESC"
fi
fi

[ -z "${BENCH_BASELINE_PG_CONFIG:-}" ] || PG_BIN=$base_bin cluster_stop bench_base
cluster_stop bench
