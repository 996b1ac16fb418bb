#!/usr/bin/env bash
# Many servers: logical replication of ids from two generating servers into a
# third (runs alone or from run-all.sh; its own three servers on ports 54370-54372).
#
# A (kid.node_id = 1) and B (kid.node_id = 2) generate concurrently into the
# same table definitions, one table per id scheme; C (node id 3, generating
# nothing) subscribes to both with PostgreSQL's built-in publication /
# subscription.  Asserts, once C has caught up: every row of A and B is on C,
# no id twice, no apply error.  Prints how far C's order by id departs from
# time order (the k of k-sorted), per scheme, and from the order in which
# rows were applied on C.
#
# uid (64-bit local) has no node field: two servers can make the same uid.
# Its table is keyed by (node fingerprint, id) and the test counts how many
# local ids A and B both made, and checks uid_to_global(id, node) is unique.
#
# Then B restarts with A's node id (a misconfiguration): the node field
# decoded from ids, grouped per origin, must expose it, and any id both
# servers made must surface as an apply error on C (the subscriptions are
# created with disable_on_error), never as a duplicate row.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1
source test/server/lib/doc_run.sh || exit 1

LR_A=54370
LR_B=54371
LR_C=54372
LR_DB=kid_logical
LR_TABLES="lr_sno lr_tid lr_koid lr_uid lr_uid_global"
LR_CLIENTS=4           # pgbench clients per publisher
LR_TXNS=250            # transactions per client
LR_ROWS=20             # rows per table per transaction
LR_EXPECTED=$((LR_CLIENTS * LR_TXNS * LR_ROWS))   # rows per table per publisher

cluster_init lr_a $LR_A "cluster_name = 'A'" "kid.node_id = 1" "wal_level = logical"
cluster_init lr_b $LR_B "cluster_name = 'B'" "kid.node_id = 2" "wal_level = logical"
cluster_init lr_c $LR_C "cluster_name = 'C'" "kid.node_id = 3" \
    "max_logical_replication_workers = 8" "max_worker_processes = 16" \
    "wal_retrieve_retry_interval = '200ms'"
cluster_start lr_a
cluster_start lr_b
cluster_start lr_c

# The same definitions on all three servers.  made is read right after the
# id (defaults are evaluated in column order); origin is the server's
# cluster_name.  uid: the key includes the node fingerprint (see above).
for p in $LR_A $LR_B $LR_C; do
    kpsql $p -d postgres -c "CREATE DATABASE $LR_DB"
    kpsql $p -d $LR_DB <<'SQL'
CREATE EXTENSION kid;
CREATE TABLE lr_sno (
    id sno PRIMARY KEY DEFAULT sno_new(),
    made timestamptz NOT NULL DEFAULT clock_timestamp(),
    origin text NOT NULL DEFAULT current_setting('cluster_name'));
CREATE TABLE lr_tid (
    id atproto_tid PRIMARY KEY DEFAULT tid_new(),
    made timestamptz NOT NULL DEFAULT clock_timestamp(),
    origin text NOT NULL DEFAULT current_setting('cluster_name'));
CREATE TABLE lr_koid (
    id koid PRIMARY KEY DEFAULT koid_new(),
    made timestamptz NOT NULL DEFAULT clock_timestamp(),
    origin text NOT NULL DEFAULT current_setting('cluster_name'));
CREATE TABLE lr_uid (
    id uid NOT NULL DEFAULT uid_new(),
    made timestamptz NOT NULL DEFAULT clock_timestamp(),
    origin text NOT NULL DEFAULT current_setting('cluster_name'),
    node bigint NOT NULL DEFAULT uid_node_fingerprint(),
    PRIMARY KEY (node, id));
CREATE TABLE lr_uid_global (
    id uid_global PRIMARY KEY DEFAULT uid_global_new(),
    made timestamptz NOT NULL DEFAULT clock_timestamp(),
    origin text NOT NULL DEFAULT current_setting('cluster_name'));
SQL
done

# C alone records when each row was applied there (a subscriber may have
# extra columns; the apply worker fills them with their defaults).
for t in $LR_TABLES; do
    kpsql $LR_C -d $LR_DB -c "ALTER TABLE $t ADD COLUMN applied timestamptz DEFAULT clock_timestamp()"
done

# A few rows before subscribing, so the initial copy (copy_data) is tested too.
lr_fill="INSERT INTO lr_sno SELECT FROM generate_series(1, $LR_ROWS);
INSERT INTO lr_tid SELECT FROM generate_series(1, $LR_ROWS);
INSERT INTO lr_koid SELECT FROM generate_series(1, $LR_ROWS);
INSERT INTO lr_uid SELECT FROM generate_series(1, $LR_ROWS);
INSERT INTO lr_uid_global SELECT FROM generate_series(1, $LR_ROWS);"
for p in $LR_A $LR_B; do
    kpsql $p -d $LR_DB -c "$lr_fill" \
        -c "CREATE PUBLICATION lr_pub FOR TABLE ${LR_TABLES// /, }"
done
kpsql $LR_C -d $LR_DB \
    -c "CREATE SUBSCRIPTION lr_sub_a CONNECTION 'host=$KID_TMP port=$LR_A user=postgres dbname=$LR_DB' PUBLICATION lr_pub WITH (copy_data = true, disable_on_error = true)" \
    -c "CREATE SUBSCRIPTION lr_sub_b CONNECTION 'host=$KID_TMP port=$LR_B user=postgres dbname=$LR_DB' PUBLICATION lr_pub WITH (copy_data = true, disable_on_error = true)" \
    2>&1 | grep -v "^NOTICE:  created replication slot"

# lr_wait DESCRIPTION SQL_ON_C EXPECTED [TRIES]: poll C every 0.5 s.
lr_wait() {
    local what=$1 sql=$2 want=$3 tries=${4:-240} got=
    for _ in $(seq "$tries"); do
        got=$(kpsql $LR_C -d $LR_DB -c "$sql" 2>&1)
        [ "$got" = "$want" ] && return 0
        sleep 0.5
    done
    echo "lr_wait: $what: got '$got', expected '$want'"
    return 1
}
check "logical: initial copy of both publications done" \
    lr_wait "initial copy" "SELECT count(*) FILTER (WHERE srsubstate <> 'r') || ' ' || count(*) FROM pg_subscription_rel" "0 10"

# Both publishers generate at the same time while C applies.
cat > "$KID_TMP/lr_load.sql" <<SQL
BEGIN;
$lr_fill
COMMIT;
SQL
chmod 644 "$KID_TMP/lr_load.sql"
lr_bench() {   # PORT CLIENTS TXNS
    "$PG_BIN/pgbench" -h "$KID_TMP" -p "$1" -U postgres -n -c "$2" -j 2 -t "$3" \
        -f "$KID_TMP/lr_load.sql" $LR_DB > "$KID_TMP/lr_pgbench.$1.log" 2>&1 ||
        { tail -5 "$KID_TMP/lr_pgbench.$1.log"; return 1; }
}
lr_started=$(date +%s.%N)
lr_bench $LR_A $LR_CLIENTS $LR_TXNS & lr_pa=$!
lr_bench $LR_B $LR_CLIENTS $LR_TXNS & lr_pb=$!
wait $lr_pa; lr_ra=$?
wait $lr_pb; lr_rb=$?
lr_loaded=$(date +%s.%N)
expect_eq "logical: A generated without error (no duplicate on A)" "$lr_ra" 0
expect_eq "logical: B generated without error (no duplicate on B)" "$lr_rb" 0

# Per table, "rows of A + rows of B" on the publishers, and "rows" on C.
lr_counts_sql=""
for t in $LR_TABLES; do
    lr_counts_sql="$lr_counts_sql${lr_counts_sql:+ || ' ' || }(SELECT count(*) FROM $t)"
done
lr_counts_sql="SELECT $lr_counts_sql"
lr_a_counts=$(kpsql $LR_A -d $LR_DB -c "$lr_counts_sql")
lr_b_counts=$(kpsql $LR_B -d $LR_DB -c "$lr_counts_sql")
lr_want=$(paste -d' ' <(tr ' ' '\n' <<<"$lr_a_counts") <(tr ' ' '\n' <<<"$lr_b_counts") |
    awk '{printf "%s%d", (NR > 1 ? " " : ""), $1 + $2}')
expect_eq "logical: each publisher made every row" "$lr_a_counts $lr_b_counts" \
    "$(printf "$((LR_EXPECTED + LR_ROWS)) %.0s" $LR_TABLES $LR_TABLES | sed 's/ $//')"
check "logical: C caught up with A + B in every table" lr_wait "catch-up" "$lr_counts_sql" "$lr_want"
lr_caught=$(date +%s.%N)

# No id twice on C (uid: no (node, id) twice, and the global form unique).
lr_dups=""
for t in lr_sno lr_tid lr_koid lr_uid_global; do
    lr_dups="$lr_dups $(kpsql $LR_C -d $LR_DB -c "SELECT count(*) - count(DISTINCT id) FROM $t")"
done
lr_dups="$lr_dups $(kpsql $LR_C -d $LR_DB -c "SELECT count(*) - count(DISTINCT (node, id)) FROM lr_uid")"
lr_dups="$lr_dups $(kpsql $LR_C -d $LR_DB -c "SELECT count(*) - count(DISTINCT uid_to_global(id, node, 8)) FROM lr_uid")"
expect_eq "logical: zero duplicate ids on C (sno tid koid uid_global, uid per node, uid_to_global)" \
    "$lr_dups" " 0 0 0 0 0 0"
expect_eq "logical: each origin's rows carry only its own node (sno tid koid uid_global uid)" \
    "$(kpsql $LR_C -d $LR_DB <<'SQL'
SELECT string_agg(origin || ':' || nodes, ' ' ORDER BY origin) FROM (
    SELECT origin, string_agg(n::text, '/' ORDER BY n) AS nodes FROM (
        SELECT DISTINCT origin, 's' || (sno_partition(id) >> 8) AS n FROM lr_sno
        UNION ALL SELECT DISTINCT origin, 't' || tid_clock_id(id) FROM lr_tid
        UNION ALL SELECT DISTINCT origin, 'k' || (koid_info(id)).generator_id FROM lr_koid
        UNION ALL SELECT DISTINCT origin, 'g' || ((uid_global_info(id)).node = node)
            FROM lr_uid_global JOIN (SELECT DISTINCT origin, node FROM lr_uid) u USING (origin)
    ) s GROUP BY origin) o;
SQL
)" "A:gtrue/k1/s1/t1 B:gtrue/k2/s2/t2"
# Every *_error_count column, whatever the major names them (19 splits
# sync_error_count into sync_seq_error_count and sync_table_error_count).
expect_eq "logical: no apply or sync error on C" \
    "$(kpsql $LR_C -d $LR_DB -c "SELECT sum(e.value::bigint) || ' ' || bool_and(subenabled) FROM pg_stat_subscription_stats st JOIN pg_subscription s ON s.oid = st.subid, jsonb_each_text(to_jsonb(st)) e WHERE e.key LIKE '%error_count'")" "0 true"
expect_eq "logical: no ERROR in C's server log" "$(grep -c 'ERROR' "$KID_TMP/lr_c/server.log")" 0
lr_uid_shared=$(kpsql $LR_C -d $LR_DB -c "SELECT count(*) FROM (SELECT id FROM lr_uid GROUP BY id HAVING count(DISTINCT origin) > 1) s")

# The k of k-sorted, on C's merged tables: order by id against order by made.
#   inversion: how much earlier a row was made than the latest row with a
#              smaller id (ms; 0 when in time order);
#   displacement: |position by id - position by made| (rows).
# Also within one origin only, to separate one server's own disorder from
# the merging of two servers.  And the order in which rows became visible on
# C (commit order on each publisher, then each subscription's apply):
#   late: how long after some row with a larger id a row was applied on C
#         (ms), i.e. how far back a reader that follows C by id must look.
lr_k() {   # TABLE
    kpsql $LR_C -d $LR_DB -F ' ' <<SQL
WITH o AS (
    SELECT origin, made,
        row_number() OVER (ORDER BY id, origin) AS by_id,
        row_number() OVER (ORDER BY made, id, origin) AS by_made,
        row_number() OVER (PARTITION BY origin ORDER BY id) AS own_by_id,
        row_number() OVER (PARTITION BY origin ORDER BY made, id) AS own_by_made,
        greatest(0, 1000 * extract(epoch FROM
            max(made) OVER (ORDER BY id, origin ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) - made))
            AS inv,
        greatest(0, 1000 * extract(epoch FROM
            max(made) OVER (PARTITION BY origin ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) - made))
            AS own_inv,
        greatest(0, 1000 * extract(epoch FROM
            applied - min(applied) OVER (ORDER BY id DESC, origin DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)))
            AS late
    FROM $1)
SELECT count(*),
    round(max(inv), 3), round(percentile_cont(0.99) WITHIN GROUP (ORDER BY inv)::numeric, 3),
    max(abs(by_id - by_made)), percentile_disc(0.99) WITHIN GROUP (ORDER BY abs(by_id - by_made)),
    round(max(own_inv), 3), max(abs(own_by_id - own_by_made)),
    round(100.0 * count(*) FILTER (WHERE inv > 0) / count(*), 1),
    round(max(late)), round(percentile_cont(0.99) WITHIN GROUP (ORDER BY late)::numeric)
FROM o;
SQL
}
echo "   k of k-sorted on C (A and B generating concurrently, $(awk "BEGIN{printf \"%.1f\", $lr_loaded - $lr_started}") s load, caught up $(awk "BEGIN{printf \"%.1f\", $lr_caught - $lr_loaded}") s later):"
printf '   %-11s %6s %11s %11s %9s %9s %13s %13s %8s %12s %12s\n' scheme rows "max inv ms" "p99 inv ms" \
    "max disp" "p99 disp" "1-server inv" "1-server disp" "% inv>0" "max late ms" "p99 late ms"
for t in $LR_TABLES; do
    printf '   %-11s %6s %11s %11s %9s %9s %13s %13s %8s %12s %12s\n' "${t#lr_}" $(lr_k $t)
done
echo "   uid (local, no node field): $lr_uid_shared ids made by both A and B (kept apart by the node column)"

# ---------------------------------------------------------------------------
# Misconfiguration: B restarts with A's node id.  Pause B's subscription over
# the restart (a lost connection is an apply-worker error too, and would
# disable it), then one row per table from B alone, so that detection does
# not depend on timing.
kpsql $LR_C -d $LR_DB -c "ALTER SUBSCRIPTION lr_sub_b DISABLE"
check "misconfig: B's apply worker stopped" \
    lr_wait "sub_b stop" "SELECT count(*) FROM pg_stat_subscription WHERE subname = 'lr_sub_b' AND pid IS NOT NULL" 0 60
# A clean restart continues from the exact marks written at shutdown, so
# koid generates at once (kid.koid_max_clock_wait_ms keeps its default).
kpsql $LR_B -d postgres -c "ALTER SYSTEM SET kid.node_id = 1"
cluster_stop lr_b
cluster_start lr_b
expect_eq "misconfig: B now has node id 1" "$(kpsql $LR_B -d postgres -c 'SHOW kid.node_id')" 1
kpsql $LR_B -d $LR_DB -c "INSERT INTO lr_koid DEFAULT VALUES" -c "INSERT INTO lr_sno DEFAULT VALUES; INSERT INTO lr_tid DEFAULT VALUES;
    INSERT INTO lr_uid DEFAULT VALUES; INSERT INTO lr_uid_global DEFAULT VALUES;"
kpsql $LR_C -d $LR_DB -c "ALTER SUBSCRIPTION lr_sub_b ENABLE"
lr_want=$(tr ' ' '\n' <<<"$lr_want" | awk '{printf "%s%d", (NR > 1 ? " " : ""), $1 + 1}')
check "misconfig: B's first rows with node id 1 reached C" lr_wait "sentinel" "$lr_counts_sql" "$lr_want"

# The detection query: a node value that more than one origin uses.
lr_detect_sql="SELECT string_agg(scheme || ':' || node || ':' || origins, ' ' ORDER BY scheme) FROM (
    SELECT scheme, node, string_agg(DISTINCT origin, ',') AS origins FROM (
        SELECT 'sno' AS scheme, (sno_partition(id) >> 8)::bigint AS node, origin FROM lr_sno
        UNION ALL SELECT 'tid', tid_clock_id(id), origin FROM lr_tid
        UNION ALL SELECT 'koid', (koid_info(id)).generator_id, origin FROM lr_koid
        UNION ALL SELECT 'uid', node, origin FROM lr_uid
        UNION ALL SELECT 'uid_global', (uid_global_info(id)).node, origin FROM lr_uid_global
    ) s GROUP BY scheme, node HAVING count(DISTINCT origin) > 1) d"
lr_fp1=$(kpsql $LR_A -d $LR_DB -c "SELECT uid_node_fingerprint()")
expect_eq "misconfig: the detection query names node 1 shared by A and B in every scheme" \
    "$(kpsql $LR_C -d $LR_DB -c "$lr_detect_sql")" \
    "koid:1:A,B sno:1:A,B tid:1:A,B uid:$lr_fp1:A,B uid_global:$lr_fp1:A,B"

# Now both generate at the same time with the same node id.
lr_errors_before=$(kpsql $LR_C -d $LR_DB -c "SELECT sum(apply_error_count) FROM pg_stat_subscription_stats")
lr_bench $LR_A 2 50 & lr_pa=$!
lr_bench $LR_B 2 50 & lr_pb=$!
wait $lr_pa; lr_ra=$?
wait $lr_pb; lr_rb=$?
expect_eq "misconfig: A and B each generated without error on their own" "$lr_ra $lr_rb" "0 0"
# Wait until, per origin, C has every row or that origin's subscription is disabled.
lr_a_counts=$(kpsql $LR_A -d $LR_DB -c "$lr_counts_sql")
lr_b_counts=$(kpsql $LR_B -d $LR_DB -c "$lr_counts_sql")
lr_settled_sql="SELECT bool_and(done) FROM (
    SELECT s.subenabled = false OR c.n = p.n AS done
    FROM pg_subscription s
    JOIN (VALUES ('lr_sub_a', 'A', '$lr_a_counts'), ('lr_sub_b', 'B', '$lr_b_counts')) p(sub, origin, n) ON p.sub = s.subname
    CROSS JOIN LATERAL (SELECT concat_ws(' ',
        (SELECT count(*) FROM lr_sno WHERE origin = p.origin), (SELECT count(*) FROM lr_tid WHERE origin = p.origin),
        (SELECT count(*) FROM lr_koid WHERE origin = p.origin), (SELECT count(*) FROM lr_uid WHERE origin = p.origin),
        (SELECT count(*) FROM lr_uid_global WHERE origin = p.origin)) AS n) c) x"
check "misconfig: C settled (all rows in, or a subscription stopped on an error)" \
    lr_wait "settle" "$lr_settled_sql" t

# Ids both publishers made, found by copying B's ids to A (not published).
kpsql $LR_A -d $LR_DB -c "CREATE TABLE lr_from_b (scheme text, id text)"
kpsql $LR_B -d $LR_DB -c "COPY (SELECT 'sno', id::text FROM lr_sno UNION ALL SELECT 'tid', id::text FROM lr_tid
    UNION ALL SELECT 'koid', id::text FROM lr_koid UNION ALL SELECT 'uid', node || ':' || id FROM lr_uid
    UNION ALL SELECT 'uid_global', id::text FROM lr_uid_global) TO STDOUT" |
    kpsql $LR_A -d $LR_DB -c "COPY lr_from_b FROM STDIN"
lr_both=$(kpsql $LR_A -d $LR_DB -F ' ' -c "SELECT count(*) FILTER (WHERE scheme = 'sno'), count(*) FILTER (WHERE scheme = 'tid'),
    count(*) FILTER (WHERE scheme = 'koid'), count(*) FILTER (WHERE scheme = 'uid'), count(*) FILTER (WHERE scheme = 'uid_global')
    FROM lr_from_b b JOIN (SELECT 'sno' AS scheme, id::text FROM lr_sno UNION ALL SELECT 'tid', id::text FROM lr_tid
        UNION ALL SELECT 'koid', id::text FROM lr_koid UNION ALL SELECT 'uid', node || ':' || id FROM lr_uid
        UNION ALL SELECT 'uid_global', id::text FROM lr_uid_global) a USING (scheme, id)")
lr_both_total=$(awk '{print $1 + $2 + $3 + $4 + $5}' <<<"$lr_both")
lr_errors=$(( $(kpsql $LR_C -d $LR_DB -c "SELECT sum(apply_error_count) FROM pg_stat_subscription_stats") - lr_errors_before ))
lr_disabled=$(kpsql $LR_C -d $LR_DB -c "SELECT coalesce(string_agg(subname, ',' ORDER BY subname), '-') FROM pg_subscription WHERE NOT subenabled")
# The unique-key error as PostgreSQL 15 to 17 log it, and as 18 does.
lr_conflict_re='duplicate key value violates unique constraint|conflict=insert_exists'
lr_conflicts=$(grep -cE "$lr_conflict_re" "$KID_TMP/lr_c/server.log")
echo "   same node id on A and B: ids made by both (sno tid koid uid uid_global): $lr_both;" \
    "apply errors on C: $lr_errors; disabled: $lr_disabled;" \
    "B's sno ids on tick timeline 1: $(kpsql $LR_B -d $LR_DB -c "SELECT count(*) FROM lr_sno WHERE sno_tick(id) = 1")"
grep -m1 -A1 -E "$lr_conflict_re" "$KID_TMP/lr_c/server.log" | sed 's/^/   C log: /'
expect_eq "misconfig: C never holds a duplicate id" \
    "$(kpsql $LR_C -d $LR_DB -c "SELECT (SELECT count(*) - count(DISTINCT id) FROM lr_sno) + (SELECT count(*) - count(DISTINCT id) FROM lr_tid)
        + (SELECT count(*) - count(DISTINCT id) FROM lr_koid) + (SELECT count(*) - count(DISTINCT id) FROM lr_uid_global)")" 0
# Sound whatever the timing: a duplicate made by the two publishers is an
# apply error (and a disabled subscription) on C; without one, C has it all.
if [ "$lr_both_total" -gt 0 ]; then
    expect_eq "misconfig: the duplicates stopped a subscription with a unique-key error" \
        "$([ "$lr_errors" -gt 0 ] && [ "$lr_disabled" != - ] && [ "$lr_conflicts" -gt 0 ] && echo yes)" yes
else
    expect_eq "misconfig: no duplicate made this time, and C has every row" "$lr_errors $lr_disabled" "0 -"
fi

# docs/logical-replication.md's examples: A publishes, C subscribes.
DOC=docs/logical-replication.md
expect_eq "$DOC says its examples run here" "$(head -1 $DOC)" "<!-- examples: logical_replication -->"
exec 4>"$KID_TMP/doc.count"
doc_run_pair "$DOC" "$KID_TMP" $LR_A $LR_C 3>&4
rc=$?
exec 4>&-
expect_eq "$DOC: its $(cat "$KID_TMP/doc.count") SQL examples run and print what it shows" "$rc" 0

cluster_stop lr_c
cluster_stop lr_a
cluster_stop lr_b

kid_finish
