#!/usr/bin/env bash
# kid on Citus: a coordinator and two workers on this machine (runs alone or
# from run-all.sh, on PostgreSQL 15 with Citus 13.2.2 and on 18 with 14.0.1;
# test/citus-build.sh builds Citus once and installs it into the PostgreSQL
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
# kid_cluster_check() on a correct and two misconfigured clusters; and every
# example of docs/citus.md, its output compared with the text shown there.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

start=$SECONDS
if ! citus_log=$(test/citus-build.sh "$PG_CONFIG" 2>&1); then
    echo "$citus_log"
    check "Citus built and installed (test/citus-build.sh)" false
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

kid_finish
