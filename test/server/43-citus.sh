#!/usr/bin/env bash
# kid on Citus: a coordinator and two workers on this machine (runs alone or
# from run-all.sh, on PostgreSQL 15 with Citus 13.2.2 and on 18 with 14.0.1;
# test/tools/citus-build.sh builds Citus once and installs it into the PostgreSQL
# of PG_CONFIG).
#
# Citus connects its nodes over TCP: each server listens on 127.0.0.1 only,
# on a port found free at run time (other test runs share the machine), and
# on its private Unix socket for psql.  kid.node_id is each node's Citus
# group id (coordinator 0, workers 1 and 2), as docs/citus.md recommends.
# Asserts: every kid type as a distribution column, each fixed id on the
# shard its pinned hash says; where Citus generates (coordinator or worker,
# read from the node field of the ids); zero duplicates over the cluster
# under concurrent clients on all three nodes; routing, pruning and index
# use; colocated and reference joins; a shard move keeping every row;
# kid_cluster_check() on a correct cluster and misconfigured ones (every
# problem in one ERROR, each with its fix); and every
# example of docs/citus.md, its output compared with the text shown there.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

start=$SECONDS
if ! citus_log=$(test/tools/citus-build.sh "$PG_CONFIG" 2>&1); then
    echo "$citus_log"
    check "Citus built and installed (test/tools/citus-build.sh)" false
    kid_finish
    exit 1
fi
echo "(Citus ready in $((SECONDS - start)) s: $(echo "$citus_log" | tail -1))"

# free_port: a TCP port nothing listens on at 127.0.0.1, from a range
# chosen at random (a server that then fails to bind is retried).
free_port() {
    local p
    for _ in $(seq 200); do
        p=$((20000 + RANDOM % 30000))
        grep -qx "$p" "$KID_TMP/ports.used" 2>/dev/null && continue
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p" >> "$KID_TMP/ports.used"
            echo "$p"
            return 0
        fi
    done
    return 1
}

NODES="coord w1 w2"
declare -A PORTS NODE_IDS=([coord]=0 [w1]=1 [w2]=2)
DB=kid_citus
# start_node NAME: init (once) and start, on a fresh free port if the first fails.
start_node() {
    local name=$1
    for _ in 1 2 3; do
        PORTS[$name]=$(free_port) || return 1
        if [ ! -d "$KID_TMP/$name/data" ]; then
            cluster_init "$name" "${PORTS[$name]}" \
                "shared_preload_libraries = 'citus,kid'" \
                "listen_addresses = '127.0.0.1'" \
                "kid.node_id = ${NODE_IDS[$name]}" \
                "citus.local_hostname = '127.0.0.1'" \
                "citus.shard_count = 4" \
                "max_worker_processes = 16" \
                "wal_level = logical" || return 1
        else
            sed -i "s/^port = .*/port = ${PORTS[$name]}/" "$KID_TMP/$name/data/postgresql.conf"
        fi
        cluster_start "$name" 2>/dev/null && return 0
    done
    return 1
}
for n in $NODES; do
    start_node "$n" || { check "node $n started" false; kid_finish; exit 1; }
done
C=${PORTS[coord]}
W1=${PORTS[w1]}
W2=${PORTS[w2]}
echo "(coordinator on port $C, workers on $W1 and $W2)"
for n in $NODES; do
    kpsql "${PORTS[$n]}" -d postgres -c "CREATE DATABASE $DB" &&
        kpsql "${PORTS[$n]}" -d $DB -c "CREATE EXTENSION citus" -c "CREATE EXTENSION kid" ||
        { check "citus and kid created on $n" false; kid_finish; exit 1; }
done
q() { kpsql "$C" -d $DB "$@"; }
on() { local n=$1; shift; kpsql "${PORTS[$n]}" -d $DB "$@"; }
q -c "SELECT citus_set_coordinator_host('127.0.0.1', $C)" \
    -c "SELECT citus_add_node('127.0.0.1', $W1)" -c "SELECT citus_add_node('127.0.0.1', $W2)" >/dev/null ||
    { check "cluster formed" false; kid_finish; exit 1; }

# --- kid_cluster_check on the correct cluster: one row per node, its node id its group id.
expect_eq "kid_cluster_check: three nodes, node id = Citus group id, one epoch and interval" \
    "$(q -c "SELECT string_agg(format('%s:%s/%s/%s/%s/%s/%s', nodeport, groupid, node_id, koid_generator_id, uid_node = lpad(to_hex(uid_node_fingerprint()), 8, '0'), koid_epoch_ms, uid_interval), ' ' ORDER BY groupid) FROM kid_cluster_check()")" \
    "$C:0/0/0/t/0/8 $W1:1/1/1/f/0/8 $W2:2/2/2/f/0/8"

# --- Every kid type as a distribution column; fixed ids on their pinned shard.
# shard_index: the position (0..3) of the shard among the table's shards in
# hash order, the same on any cluster of 4 shards.
q <<'SQL' >/dev/null
CREATE TABLE by_sno (id sno PRIMARY KEY, n int);
CREATE TABLE by_atproto_tid (id atproto_tid PRIMARY KEY, n int);
CREATE TABLE by_koid (id koid PRIMARY KEY, n int);
CREATE TABLE by_uid (id uid PRIMARY KEY, n int);
CREATE TABLE by_uid_global (id uid_global PRIMARY KEY, n int);
CREATE TABLE by_codokey (id codokey PRIMARY KEY, n int);
SELECT create_distributed_table('by_' || t, 'id', colocate_with := 'none')
FROM unnest(ARRAY['sno', 'atproto_tid', 'koid', 'uid', 'uid_global', 'codokey']) t;
CREATE FUNCTION shard_index(tab regclass, shard bigint) RETURNS int LANGUAGE sql STABLE
RETURN (SELECT i - 1 FROM (SELECT shardid, row_number() OVER (ORDER BY shardminvalue::int) i
                           FROM pg_dist_shard WHERE logicalrelid = tab) s WHERE shardid = shard);
SQL
# The fixed ids of test/sql/hash_values.sql: their shard (of 4) follows from their hash.
FIXED="sno:8fq9keeo22222222 sno:26jmcrubnh8ww2b5 atproto_tid:3khxr27kexk22 atproto_tid:3jzfcijpj2z2a
koid:63320836cb800000 koid:1565a11f6217a000 uid:.5e1VmL_V.. uid:.QPQHuNkwos
uid_global:.5e1Vk....._dN.. uid_global:.QPQHl7oKbXaBECD codokey:yhbtk1j1i9 codokey:yf17"
placed=""
for f in $FIXED; do
    t=${f%%:*} id=${f#*:}
    q -c "INSERT INTO by_$t VALUES ('$id', 1)" >/dev/null
    # Where Citus says it goes, where the row is (counted in each shard on its worker), and the shard its kid hash falls in.
    placed+="$(q -c "SELECT format('%s %s %s %s', '$t', shard_index('by_$t', get_shard_id_for_distribution_column('by_$t', '$id'::$t)),
        (SELECT shard_index('by_$t', shardid) FROM run_command_on_shards('by_$t', \$\$SELECT count(*) FROM %s WHERE id = '$id'\$\$) WHERE result = '1'),
        (SELECT shard_index('by_$t', shardid) FROM pg_dist_shard WHERE logicalrelid = 'by_$t'::regclass
           AND ${t}_hash('$id') BETWEEN shardminvalue::int AND shardmaxvalue::int))")"$'\n'
done
expect_eq "fixed ids of every type on their pinned shard (routed, stored, and by kid's hash)" "$placed" \
"sno 0 0 0
sno 2 2 2
atproto_tid 3 3 3
atproto_tid 1 1 1
koid 3 3 3
koid 2 2 2
uid 2 2 2
uid 3 3 3
uid_global 1 1 1
uid_global 0 0 0
codokey 1 1 1
codokey 1 1 1
"

# --- Where Citus generates.  events is keyed (tenant, id), distributed by
# tenant; each generated column's node field says which node made the id:
# kid.node_id is the group id, so 0 is the coordinator, 1 and 2 the worker
# holding the row's shard.
q <<'SQL' >/dev/null
CREATE TABLE events (
    tenant int NOT NULL,
    id koid NOT NULL DEFAULT koid_new(),
    s sno NOT NULL DEFAULT sno_new(),
    t atproto_tid NOT NULL DEFAULT tid_new(),
    g uid_global NOT NULL DEFAULT uid_global_new(),
    how text NOT NULL,
    PRIMARY KEY (tenant, id));
SELECT create_distributed_table('events', 'tenant');
CREATE TABLE sources (tenant int, n int);
SELECT create_distributed_table('sources', 'tenant', colocate_with := 'events');
INSERT INTO sources SELECT t, n FROM generate_series(1, 8) t, generate_series(1, 50) n;
SQL
# gen_where HOW: where the ids of the rows written by HOW were made.  The
# rows come to the coordinator first (a CTE), then meet Citus's metadata.
gen_where() {
    q -c "WITH e AS MATERIALIZED (SELECT * FROM events WHERE how = '$1'),
          made_where AS (
            SELECT e.how, (koid_info(e.id)).generator_id AS koid_node, sno_partition(e.s) >> 8 AS sno_node,
                   tid_clock_id(e.t) AS tid_node,
                   (SELECT p.groupid FROM pg_dist_placement p
                    WHERE p.shardid = get_shard_id_for_distribution_column('events', e.tenant)) AS shard_group
            FROM e)
          SELECT string_agg(DISTINCT format('%s:%s', how, CASE
            WHEN koid_node = 0 AND sno_node = 0 AND tid_node = 0 THEN 'coordinator'
            WHEN koid_node = shard_group AND sno_node = shard_group AND tid_node = shard_group THEN 'worker of the shard'
            ELSE format('other (%s %s %s, shard on %s)', koid_node, sno_node, tid_node, shard_group) END), ' ')
          FROM made_where"
}
q -c "INSERT INTO events (tenant, id, s, t, g, how) VALUES (1, koid_new(), sno_new(), tid_new(), uid_global_new(), 'values'), (2, koid_new(), sno_new(), tid_new(), uid_global_new(), 'values')" >/dev/null
expect_eq "INSERT ... VALUES (x_new()): made on the coordinator" "$(gen_where values)" "values:coordinator"
q -c "INSERT INTO events (tenant, how) VALUES (1, 'defaults'), (2, 'defaults'), (5, 'defaults')" >/dev/null
expect_eq "INSERT ... VALUES with DEFAULT columns: made on the coordinator" "$(gen_where defaults)" "defaults:coordinator"
printf '3\tcopy\n4\tcopy\n' | q -c "COPY events (tenant, how) FROM STDIN" >/dev/null
expect_eq "COPY with DEFAULT columns: made on the coordinator" "$(gen_where copy)" "copy:coordinator"
q -c "INSERT INTO events (tenant, how) SELECT tenant, 'select_defaults' FROM sources" >/dev/null
expect_eq "INSERT ... SELECT from a colocated table, DEFAULT columns: made on the worker of each shard" \
    "$(gen_where select_defaults)" "select_defaults:worker of the shard"
q -c "INSERT INTO events (tenant, id, s, t, g, how) SELECT tenant, koid_new(), sno_new(), tid_new(), uid_global_new(), 'select_calls' FROM sources" >/dev/null
expect_eq "INSERT ... SELECT x_new() FROM a distributed table: made on the worker of each shard" \
    "$(gen_where select_calls)" "select_calls:worker of the shard"

# --- Concurrent clients on all three nodes (Citus syncs its metadata to the
# workers, so a worker takes distributed INSERTs too), plus INSERT ... SELECT
# from the coordinator: no id repeats anywhere in the cluster.  (A plain uid
# has no node field: it is unique per server only, so it is not used here.)
CLIENTS=2 ROUNDS=10 ROWS=200
for n in $NODES; do
    for c in $(seq $CLIENTS); do
        (for r in $(seq $ROUNDS); do
            echo "INSERT INTO events (tenant, how) SELECT 1 + (g % 8), 'concurrent' FROM generate_series(1, $ROWS) g;"
            echo "INSERT INTO events (tenant, id, s, t, g, how) VALUES (($r % 8) + 1, koid_new(), sno_new(), tid_new(), uid_global_new(), 'concurrent');"
        done | on "$n" >/dev/null) &
    done
done
(for r in $(seq $ROUNDS); do
    echo "INSERT INTO events (tenant, how) SELECT tenant, 'concurrent' FROM sources;"
done | q >/dev/null) &
wait
concurrent_rows=$((3 * CLIENTS * ROUNDS * (ROWS + 1) + ROUNDS * 400))
expect_eq "concurrent writers on 3 nodes: $concurrent_rows rows, zero duplicate koid, sno, atproto_tid, uid_global" \
    "$(q -c "SELECT format('%s rows, duplicates: %s %s %s %s', count(*), count(*) - count(DISTINCT id), count(*) - count(DISTINCT s),
                count(*) - count(DISTINCT t), count(*) - count(DISTINCT g)) FROM events WHERE how = 'concurrent'")" \
    "$concurrent_rows rows, duplicates: 0 0 0 0"
expect_eq "the whole table: no id of any generated type twice over the cluster" \
    "$(q -c "SELECT count(*) - count(DISTINCT id) + count(*) - count(DISTINCT s) + count(*) - count(DISTINCT t) + count(*) - count(DISTINCT g) FROM events")" 0
echo "(events: $(q -c "SELECT count(*) FROM events") rows over 3 nodes)"

# --- Routing, pruning and indexes.
k=$(q -c "SELECT id FROM by_koid WHERE n = 1 LIMIT 1")
plan=$(q -c "EXPLAIN (COSTS OFF) SELECT * FROM by_koid WHERE id = '$k'")
check "a lookup by id: one task, through the shard's primary key" \
    grep -q "Task Count: 1" <<<"$plan"
check "... an index scan on the one shard" grep -q "Index Scan using by_koid_pkey_" <<<"$plan"
q -c "INSERT INTO by_koid SELECT koid_new(), 2 FROM generate_series(1, 2000)" -c "ANALYZE by_koid" >/dev/null
plan=$(q -c "SET citus.explain_all_tasks = on" -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM by_koid WHERE id >= now() + interval '1 day'")
expect_eq "a time range id >= timestamptz: 4 tasks, each through its shard's index" \
    "$(grep -c "Task Count: 4" <<<"$plan") $(grep -Ec "Index (Only )?Scan using by_koid_pkey_" <<<"$plan")" "1 4"

# Range partitioning by id inside a table distributed by tenant: the
# partitions of a month each, pruned by a time range on the id.
q <<'SQL' >/dev/null
CREATE TABLE readings (tenant int NOT NULL, id sno NOT NULL DEFAULT sno_new(), v int, PRIMARY KEY (tenant, id))
    PARTITION BY RANGE (id);
CREATE TABLE readings_2024_01 PARTITION OF readings FOR VALUES FROM (sno_from_timestamp('2024-01-01 00:00+00')) TO (sno_from_timestamp('2024-02-01 00:00+00'));
CREATE TABLE readings_2024_02 PARTITION OF readings FOR VALUES FROM (sno_from_timestamp('2024-02-01 00:00+00')) TO (sno_from_timestamp('2024-03-01 00:00+00'));
CREATE TABLE readings_2024_03 PARTITION OF readings FOR VALUES FROM (sno_from_timestamp('2024-03-01 00:00+00')) TO (sno_from_timestamp('2024-04-01 00:00+00'));
SELECT create_distributed_table('readings', 'tenant', colocate_with := 'events');
INSERT INTO readings (tenant, id, v)
SELECT t, sno_new_with_time(timestamptz '2024-01-01 00:00+00' + h * interval '1 hour'), h
FROM generate_series(1, 8) t, generate_series(0, 24 * 90 - 1) h;
SQL
expect_eq "readings: rows per month partition" \
    "$(q -c "SELECT string_agg(format('%s=%s', p, c), ' ' ORDER BY p) FROM (SELECT regexp_replace(tableoid::regclass::text, '_[0-9]+$', '') AS p, count(*) AS c FROM readings GROUP BY 1) s")" \
    "readings_2024_01=5952 readings_2024_02=5568 readings_2024_03=5760"
# A time compares below every id of its time unit, so a lower bound given as
# a timestamptz cannot prune the partition that ends there (its index scan
# finds nothing); the same bound as an id, sno_from_timestamp(t), does.
months() { grep -oE " on readings_2024_0[0-9]_[0-9]+" | sed 's/^ on //; s/_[0-9]*$//' | sort | uniq -c | tr -s ' ' | tr '\n' ' '; }
plan=$(q -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM readings WHERE tenant = 3 AND id >= sno_from_timestamp('2024-02-01 00:00+00') AND id < sno_from_timestamp('2024-03-01 00:00+00')")
expect_eq "one tenant, one month by sno bounds: one task, only February's partition" \
    "$(grep -c "Task Count: 1" <<<"$plan") $(months <<<"$plan")" "1  1 readings_2024_02 "
plan=$(q -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM readings WHERE tenant = 3 AND id >= timestamptz '2024-02-01 00:00+00' AND id < timestamptz '2024-03-01 00:00+00'")
expect_eq "one tenant, one month by timestamptz: March pruned, January's end scanned by its index" \
    "$(grep -c "Task Count: 1" <<<"$plan") $(months <<<"$plan") $(grep -c "Index Only Scan using readings_2024_01" <<<"$plan")" "1  1 readings_2024_01  1 readings_2024_02  1"
plan=$(q -c "SET citus.explain_all_tasks = on" -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM readings WHERE id >= sno_from_timestamp('2024-02-01 00:00+00') AND id < sno_from_timestamp('2024-03-01 00:00+00')")
expect_eq "every tenant, one month: 4 tasks, each scanning only February" \
    "$(grep -c "Task Count: 4" <<<"$plan") $(months <<<"$plan")" "1  4 readings_2024_02 "
expect_eq "... and count it right" \
    "$(q -c "SELECT count(*) FROM readings WHERE id >= timestamptz '2024-02-01 00:00+00' AND id < timestamptz '2024-03-01 00:00+00'")" 5568

# --- kid_partition_by_time on a distributed table: the partitions it
# attaches are distributed, colocated with the table, their shards on the
# workers; rows of the default partition move; retired partitions go from
# the workers too.
q <<'SQL' >/dev/null
CREATE TABLE metrics (tenant int NOT NULL, id koid NOT NULL DEFAULT koid_new(), v int, PRIMARY KEY (tenant, id)) PARTITION BY RANGE (id);
SELECT create_distributed_table('metrics', 'tenant', colocate_with := 'events');
SELECT count(*) FROM kid_partition_by_time('metrics', '1 month', premake => 1, retain => '2 months', at => '2025-03-10 00:00+00');
INSERT INTO metrics (tenant, id, v)
SELECT t, koid_new_with_time(timestamptz '2025-02-01 00:00+00' + h * interval '1 hour'), h FROM generate_series(1, 8) t, generate_series(0, 24 * 59 - 1) h;
SQL
expect_eq "kid_partition_by_time on a distributed table: every partition distributed, colocated with it" \
    "$(q -c "SELECT string_agg(format('%s:%s', p.logicalrelid, p.colocationid = m.colocationid), ' ' ORDER BY p.logicalrelid::text)
             FROM pg_dist_partition p, pg_dist_partition m WHERE m.logicalrelid = 'metrics'::regclass AND p.logicalrelid::text LIKE 'metrics\_%'")" \
    "metrics_default:t metrics_p202503:t metrics_p202504:t"
# shards_on_workers NAME: the shards of table NAME on each worker (their tables there).
shards_on_workers() {
    q -c "SELECT string_agg(result, ' ' ORDER BY nodeport) FROM run_command_on_workers(\$\$SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relname ~ '^$1_[0-9]+\$'\$\$)"
}
expect_eq "... the shards of a new partition on both workers (4: 2 and 2)" "$(shards_on_workers metrics_p202503)" "2 2"
expect_eq "... rows before the first partition wait in the default partition" "$(q -c "SELECT count(*) FROM metrics_default")" $((8 * 24 * 28))
expect_eq "kid_partition_maintain at 2025-04-10 on the distributed table: May premade, February made for its rows, which move" \
    "$(q -c "SELECT string_agg(format('%s %s %s', action, partition_name, rows), ', ') FROM kid_partition_maintain('metrics', at => '2025-04-10 00:00+00')")" \
    "create public.metrics_p202505 0, create public.metrics_p202502 $((8 * 24 * 28))"
expect_eq "... every row in the partition of its month, none left in the default one, no local copy left on the coordinator" \
    "$(q -c "SELECT format('%s %s %s %s', (SELECT count(*) FROM metrics_p202502), (SELECT count(*) FROM metrics_p202503), (SELECT count(*) FROM metrics_default),
                    (SELECT count(*) FROM ONLY metrics_p202502 WHERE false) + pg_relation_size('metrics_p202502'))")" \
    "$((8 * 24 * 28)) $((8 * 24 * 31)) 0 0"
expect_eq "... and the new partitions on the workers" "$(shards_on_workers metrics_p202502) $(shards_on_workers metrics_p202505)" "2 2 2 2"
# (Retention counts back from the older of at and the newest row of the
# partitions: a row of 2025-06-10, in June's partition, made by a run that day.)
q -c "INSERT INTO metrics (tenant, id, v) VALUES (1, koid_new_with_time('2025-06-10 00:00+00'), 0)" \
  -c "SELECT count(*) FROM kid_partition_maintain('metrics', at => '2025-06-10 00:00+00') WHERE action = 'create'" >/dev/null 2>&1
expect_eq "retention at 2025-06-10 (2 months): February and March dropped, from the workers too" \
    "$(q -c "SELECT string_agg(format('%s %s', action, partition_name), ', ') FROM kid_partition_maintain('metrics', at => '2025-06-10 00:00+00') WHERE action IN ('drop', 'detach')") $(shards_on_workers metrics_p202502) $(shards_on_workers metrics_p202503)" \
    "drop public.metrics_p202502, drop public.metrics_p202503 0 0 0 0"
# kid's worker on the coordinator maintains a distributed table too.
q <<'SQL' >/dev/null
CREATE TABLE worker_made (tenant int NOT NULL, id sno NOT NULL, PRIMARY KEY (tenant, id)) PARTITION BY RANGE (id);
SELECT create_distributed_table('worker_made', 'tenant', colocate_with := 'events');
SELECT count(*) FROM kid_partition_by_time('worker_made', '1 day', premake => 1, at => now() - interval '5 days');
SQL
offset=$(log_size "$KID_TMP/coord/server.log")
q -c "ALTER SYSTEM SET kid.partition_maintenance_interval = 1" >/dev/null && reload_conf "$C" >/dev/null
check "kid's worker on the coordinator maintains a distributed table" \
    wait_for_log "$KID_TMP/coord/server.log" "$offset" 'kid maintained the partitions of public.worker_made in database "kid_citus": 2 create'
q -c "ALTER SYSTEM RESET kid.partition_maintenance_interval" >/dev/null && reload_conf "$C" >/dev/null
expect_eq "... today's partition, distributed, its shards on the workers" \
    "$(q -c "SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text = 'worker_made_p' || to_char(now(), 'YYYYMMDD')") $(shards_on_workers "worker_made_p$(q -c "SELECT to_char(now(), 'YYYYMMDD')")")" \
    "1 2 2"

# Thirty daily partitions of a distributed table made by kid and by Citus's
# create_time_partitions() (with the cast docs/citus.md shows), timed: a
# figure for docs/citus.md, not a check.
q <<'SQL' >/dev/null
CREATE TABLE timed_kid (tenant int NOT NULL, id sno NOT NULL, PRIMARY KEY (tenant, id)) PARTITION BY RANGE (id);
CREATE TABLE timed_citus (tenant int NOT NULL, id sno NOT NULL, PRIMARY KEY (tenant, id)) PARTITION BY RANGE (id);
SELECT create_distributed_table('timed_kid', 'tenant');
SELECT create_distributed_table('timed_citus', 'tenant');
SQL
t0=$(date +%s%N)
q -c "SELECT count(*) FROM kid_partition_by_time('timed_kid', '1 day', premake => 29, at => '2025-01-01 00:00+00')" >/dev/null
t1=$(date +%s%N)
q -c "CREATE CAST (timestamptz AS sno) WITH FUNCTION sno_from_timestamp(timestamptz)" \
  -c "SELECT create_time_partitions('timed_citus', '1 day', '2025-01-31 00:00+00', '2025-01-01 00:00+00')" -c "DROP CAST (timestamptz AS sno)" >/dev/null
t2=$(date +%s%N)
expect_eq "30 daily partitions of a distributed table made by each (and kid's default partition)" \
    "$(q -c "SELECT string_agg(format('%s:%s', inhparent::regclass, count), ' ' ORDER BY 1) FROM (SELECT inhparent, count(*) FROM pg_inherits WHERE inhparent IN ('timed_kid'::regclass, 'timed_citus'::regclass) GROUP BY 1) s")" \
    "timed_kid:31 timed_citus:30"
echo "(30 daily partitions of a distributed table: kid_partition_by_time $(((t1 - t0) / 1000000)) ms, create_time_partitions $(((t2 - t1) / 1000000)) ms)"

# --- Colocated joins on a kid column, and a reference table.
q <<'SQL' >/dev/null
CREATE TABLE koid_notes (id koid PRIMARY KEY, note text);
SELECT create_distributed_table('koid_notes', 'id', colocate_with := 'by_koid');
INSERT INTO koid_notes SELECT id, 'note ' || n FROM by_koid;
CREATE TABLE kinds (id koid PRIMARY KEY, name text);
SELECT create_reference_table('kinds');
INSERT INTO kinds SELECT id, 'kind' FROM by_koid WHERE n = 1;
SQL
plan=$(q -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM by_koid b JOIN koid_notes n ON n.id = b.id")
expect_eq "a colocated join on a koid column: 4 tasks, no repartitioning" \
    "$(grep -c "Task Count: 4" <<<"$plan") $(grep -ci "repartition\|MapMergeJob" <<<"$plan")" "1 0"
expect_eq "... joins every row" \
    "$(q -c "SELECT count(*) FROM by_koid b JOIN koid_notes n ON n.id = b.id AND n.note = 'note ' || b.n")" \
    "$(q -c "SELECT count(*) FROM by_koid")"
expect_eq "a join with a reference table on a koid column" \
    "$(q -c "SELECT count(*) FROM by_koid b JOIN kinds k ON k.id = b.id")" 2

# --- A shard move keeps every row (block_writes: no logical replication needed).
before=$(q -c "SELECT count(*), md5(string_agg(id::text || s::text || t::text || g::text, ',' ORDER BY id)) FROM events")
shard=$(q -c "SELECT get_shard_id_for_distribution_column('events', 1)")
from=$(q -c "SELECT nodeport FROM citus_shards WHERE shardid = $shard")
to=$([ "$from" = "$W1" ] && echo "$W2" || echo "$W1")
q -c "SELECT citus_move_shard_placement($shard, '127.0.0.1', $from, '127.0.0.1', $to, shard_transfer_mode := 'block_writes')" >/dev/null
expect_eq "shard move: the shard of tenant 1 now on the other worker" "$(q -c "SELECT nodeport FROM citus_shards WHERE shardid = $shard")" "$to"
expect_eq "shard move: every row of events kept, unchanged" \
    "$(q -c "SELECT count(*), md5(string_agg(id::text || s::text || t::text || g::text, ',' ORDER BY id)) FROM events")" "$before"
expect_eq "shard move: tenant 1 rows still reached through the index" \
    "$(q -c "SELECT count(*) FROM events WHERE tenant = 1 AND id >= timestamptz '2000-01-01 00:00+00'")" \
    "$(q -c "SELECT count(*) FROM events WHERE tenant = 1")"

# --- UPDATE ... SET x = sno_new() is refused on a distributed table (Citus
# cannot say on which node a volatile function in an UPDATE runs); run the
# UPDATE on every shard instead, where the worker holding it makes the ids.
expect_eq "UPDATE ... SET s = sno_new() on a distributed table: refused" \
    "$(q -v ON_ERROR_STOP=0 -c "UPDATE events SET s = sno_new() WHERE how = 'values'" -c '\echo :LAST_ERROR_SQLSTATE :LAST_ERROR_MESSAGE' 2>/dev/null)" \
    "0A000 functions used in UPDATE queries on distributed tables must not be VOLATILE"
old=$(q -c "SELECT string_agg(s::text, ',' ORDER BY tenant) FROM events WHERE how = 'values'")
expect_eq "... run on every shard instead: 2 rows updated" \
    "$(q -c "SELECT sum(result::int) FROM run_command_on_shards('events', \$\$WITH u AS (UPDATE %s SET s = sno_new() WHERE how = 'values' RETURNING 1) SELECT count(*) FROM u\$\$)")" 2
expect_eq "... each with its new sno, from the node of its shard" \
    "$(q -c "WITH e AS MATERIALIZED (SELECT tenant, s FROM events WHERE how = 'values')
             SELECT string_agg(format('%s', s::text <> ALL (string_to_array('$old', ',')) AND
                    sno_partition(s) >> 8 = (SELECT groupid FROM pg_dist_placement WHERE shardid = get_shard_id_for_distribution_column('events', tenant))), ' ' ORDER BY tenant) FROM e")" "t t"

# --- kid_cluster_check on misconfigured clusters: one ERROR listing every
# problem, each with the change that fixes it.
# restart_w2 SETTING=VALUE...: worker 2 restarted with these settings (ALTER SYSTEM).
restart_w2() {
    local kv
    for kv in "$@"; do on w2 -c "ALTER SYSTEM SET ${kv%%=*} = '${kv#*=}'" || return 1; done
    cluster_stop w2 && cluster_start w2
}
# cluster_check_error: the ERROR, DETAIL and HINT lines, then the SQLSTATE.
cluster_check_error() {
    local state
    state=$(q -v ON_ERROR_STOP=0 -v SHOW_CONTEXT=never -c "SELECT count(*) FROM kid_cluster_check()" -c '\echo :LAST_ERROR_SQLSTATE' 2>"$KID_TMP/check.err")
    sed -E 's/^psql:[^ ]*:[0-9]+: //' "$KID_TMP/check.err"
    echo "$state"
}
W1_FINGERPRINT=$(on w1 -c "SELECT lpad(to_hex(uid_node_fingerprint()), 8, '0')")
restart_w2 kid.node_id=1
expect_eq "two workers on kid.node_id 1: kid_cluster_check raises once, naming the three node fields it shares, each fixed by kid.node_id" \
    "$(cluster_check_error)" \
    "ERROR:  kid's settings of the Citus nodes have 3 problems
DETAIL:  1. kid.node_id 1 is shared by nodes 127.0.0.1:$W1, 127.0.0.1:$W2: their sno and atproto_tid ids can collide, and Citus checks uniqueness per shard only; give each of them its own kid.node_id (for instance its Citus group id) and restart it.
2. koid generator id 1 is shared by nodes 127.0.0.1:$W1, 127.0.0.1:$W2: their koid ids can collide, and Citus checks uniqueness per shard only; give each of them its own kid.node_id (for instance its Citus group id) and restart it.
3. uid_global node fingerprint $W1_FINGERPRINT is shared by nodes 127.0.0.1:$W1, 127.0.0.1:$W2: their uid_global ids can collide, and Citus checks uniqueness per shard only; give each of them its own kid.node_id (for instance its Citus group id) and restart it.
HINT:  Make every change the detail names, then run kid_cluster_check() again.
22023"
# What the misconfiguration does: the two workers make the same ids.
q -c "CREATE TABLE twins (tenant int, id koid DEFAULT koid_new(), g uid_global DEFAULT uid_global_new())" \
    -c "SELECT create_distributed_table('twins', 'tenant', colocate_with := 'events')" >/dev/null
for _ in $(seq 20); do echo "INSERT INTO twins (tenant) SELECT tenant FROM sources, generate_series(1, 20);"; done | q >/dev/null
echo "(two workers on one node id: $(q -c "SELECT format('%s rows, %s duplicate koids, %s duplicate uid_globals', count(*), count(*) - count(DISTINCT id), count(*) - count(DISTINCT g)) FROM twins"))"
# Node ids apart again, but worker 2's own koid generator id and uid_global
# fingerprint are worker 1's, and its epoch differs: each problem names the
# setting that caused it.
restart_w2 kid.node_id=2 kid.koid_generator_id=1 "kid.uid_node=$W1_FINGERPRINT" kid.koid_epoch_ms=1288834974657
expect_eq "worker 2 with worker 1's koid generator id and fingerprint set, and another epoch: three problems, each with its own fix" \
    "$(cluster_check_error)" \
    "ERROR:  kid's settings of the Citus nodes have 3 problems
DETAIL:  1. koid generator id 1 is shared by nodes 127.0.0.1:$W1, 127.0.0.1:$W2: their koid ids can collide, and Citus checks uniqueness per shard only; give each of them its own kid.koid_generator_id (0 to 1023; -1 takes kid.node_id) and restart it.
2. uid_global node fingerprint $W1_FINGERPRINT is shared by nodes 127.0.0.1:$W1, 127.0.0.1:$W2: their uid_global ids can collide, and Citus checks uniqueness per shard only; give each of them its own kid.uid_node (8 hex digits; empty derives it from kid.node_id) and restart it.
3. kid.koid_epoch_ms differs between nodes (0 on 127.0.0.1:$C, 0 on 127.0.0.1:$W1, 1288834974657 on 127.0.0.1:$W2): a koid decodes to another time, and a time range selects other koids, on each of them; set the same kid.koid_epoch_ms on every node and restart it.
HINT:  Make every change the detail names, then run kid_cluster_check() again.
22023"
on w2 -c "ALTER SYSTEM RESET kid.koid_generator_id" -c "ALTER SYSTEM RESET kid.uid_node" -c "ALTER SYSTEM RESET kid.koid_epoch_ms" \
    -c "ALTER SYSTEM RESET kid.node_id" >/dev/null && cluster_stop w2 && cluster_start w2
expect_eq "corrected again: kid_cluster_check passes, one row per node" "$(q -c "SELECT count(*) FROM kid_cluster_check()")" 3
# An ordinary role may not read the nodes' statistics (pg_read_all_stats may).
expect_eq "kid_cluster_check: for members of pg_read_all_stats" \
    "$(q -c "CREATE ROLE kid_citus_reader LOGIN" -c "SET ROLE kid_citus_reader" -v ON_ERROR_STOP=0 -c "SELECT count(*) FROM kid_cluster_check()" -c '\echo :LAST_ERROR_SQLSTATE' 2>/dev/null)" \
    "42501"

# --- docs/citus.md: every ```sql example, run with psql (aligned output, as a
# reader would) on the coordinator in order, its output (errors without
# psql's file:line prefix) compared with the ```text block right after it;
# trailing blanks are ignored on both sides.
DOC=docs/citus.md
expect_eq "$DOC says it runs on the citus cluster" "$(head -1 $DOC)" "<!-- examples: citus -->"
mkdir -p "$KID_TMP/doc"
awk -v dir="$KID_TMP/doc" '
    /^```sql$/ { n++; mode = "sql"; next }
    /^```text$/ && prev == "```" && last == "sql" { mode = "text"; next }
    /^```$/ { if (mode == "sql") { last = "sql" } else { last = "" }; mode = ""; prev = $0; next }
    mode == "sql" { print > (dir "/" n ".sql") }
    mode == "text" { print > (dir "/" n ".out") }
    { prev = $0; if (mode == "") last = "" }
' "$DOC"
examples=$(ls "$KID_TMP/doc" | grep -c '\.sql$')
check "$DOC has examples, each followed by its output" \
    test "$examples" -gt 0 -a "$examples" = "$(ls "$KID_TMP/doc" | grep -c '\.out$')"
for i in $(seq "$examples"); do
    got=$("$PG_BIN/psql" -h "$KID_TMP" -p "$C" -U postgres -d $DB -X -q -f "$KID_TMP/doc/$i.sql" 2>&1 |
        sed -E 's/^psql:[^ ]*:[0-9]+: //; s/[[:space:]]+$//')
    want=$(sed -E 's/[[:space:]]+$//' "$KID_TMP/doc/$i.out" 2>/dev/null)
    expect_eq "$DOC example $i: $(head -1 "$KID_TMP/doc/$i.sql" | cut -c1-60)" "$got" "$want"
done
# --- What kid_cluster_check cannot see it says: it refuses to read
# secondaries in place of primaries, and warns of an inactive primary (it
# keeps its shards and generates again once activated).
expect_eq "citus.use_secondary_nodes = always: kid_cluster_check refuses (55000)" \
    "$(PGOPTIONS='-c citus.use_secondary_nodes=always' q -v ON_ERROR_STOP=0 -c "SELECT count(*) FROM kid_cluster_check()" -c '\echo :LAST_ERROR_SQLSTATE' 2>/dev/null | tail -1)" \
    "55000"
# (citus_disable_node refuses a node that holds the only placement of a
# shard, as worker 2 does: its catalog row is marked inactive instead, which
# is what run_command_on_all_nodes reads.)
q -c "UPDATE pg_dist_node SET isactive = false WHERE nodeport = $W2" >/dev/null
expect_eq "worker 2 inactive: kid_cluster_check checks the two others and warns it did not check worker 2" \
    "$(q -c "SELECT count(*) FROM kid_cluster_check()" 2>&1 | sed -n 's/.*\(did not check node [^ ]*\).*/\1/p; /^[0-9]*$/p' | tr '\n' ' ')" \
    "did not check node 127.0.0.1:$W2 2 "
q -c "UPDATE pg_dist_node SET isactive = true WHERE nodeport = $W2" >/dev/null
expect_eq "worker 2 active again: kid_cluster_check reads three nodes" "$(q -c "SELECT count(*) FROM kid_cluster_check()" 2>&1)" 3

echo "(citus.sh: $((SECONDS - start)) s)"

kid_finish
