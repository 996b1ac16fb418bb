#!/usr/bin/env bash
# test/tools/sizes.sh: what a table keyed by each id type takes on disk, not a
# test: it prints figures (README "Which type to choose", docs/types.md).
#
# One throwaway server; per type a table (id TYPE PRIMARY KEY, body text),
# SIZES_ROWS rows (default 1000000) made by its generator (body 'event N'),
# VACUUM ANALYZE, then the heap's and the primary key's size, in pages and
# MB, and the bytes per row of each.  Beside them bigint (a bigserial key),
# the same with the created timestamptz column and its index that reading
# by time needs there, and uuid with gen_random_uuid() and with uuidv7_new().
#   SIZES_ROWS=100000 test/tools/sizes.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh

ROWS=${SIZES_ROWS:-1000000}
PORT=54352
make -s -j2 PG_CONFIG="$PG_CONFIG" >/dev/null && make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
cluster_init sizes $PORT
cluster_start sizes
kpsql $PORT -d postgres -c "CREATE EXTENSION kid"
echo "PostgreSQL $("$PG_CONFIG" --version | sed 's/^PostgreSQL //'), $ROWS rows per table (id, body text); MB = 2^20 bytes"
echo
# name | column type | generator (DEFAULT) | extra column and index
while IFS='|' read -r name type gen extra; do
    kpsql $PORT -d postgres -c "CREATE SEQUENCE IF NOT EXISTS t_${name}_seq" -c "CREATE TABLE t_$name (id $type PRIMARY KEY DEFAULT $gen, body text${extra:+, $extra})" \
        -c "INSERT INTO t_$name (body) SELECT 'event ' || i FROM generate_series(1, $ROWS) i" \
        -c "VACUUM ANALYZE t_$name"
    [ -z "$extra" ] || kpsql $PORT -d postgres -c "CREATE INDEX ON t_$name (created)"
done <<'TABLES'
sno|sno|sno_new()|
atproto_tid|atproto_tid|tid_new()|
koid|koid|koid_new()|
uid|uid|uid_new()|
uid_global|uid_global|uid_global_new()|
bigserial|bigint|nextval('t_bigserial_seq')|
bigserial_created|bigint|nextval('t_bigserial_created_seq')|created timestamptz NOT NULL DEFAULT clock_timestamp()
uuid_v4|uuid|gen_random_uuid()|
uuid_v7|uuid|uuidv7_new()|
TABLES
kpsql $PORT -d postgres -P footer=off -A -F ' | ' -c "
SELECT '| \`' || replace(c.relname, 't_', '') || '\`', (SELECT typlen FROM pg_type WHERE oid = a.atttypid) AS id_bytes,
       c.relpages AS heap_pages, round(pg_relation_size(c.oid) / 1048576.0) AS heap_mb,
       round(pg_relation_size(c.oid)::numeric / $ROWS, 1) AS heap_bytes_per_row,
       i.relpages AS key_pages, round(pg_relation_size(i.oid) / 1048576.0) AS key_mb,
       round(pg_relation_size(i.oid)::numeric / $ROWS, 1) AS key_bytes_per_row,
       coalesce((SELECT round(sum(pg_relation_size(x.indexrelid)) / 1048576.0) FROM pg_index x
                 WHERE x.indrelid = c.oid AND NOT x.indisprimary), 0) || ' |' AS other_index_mb
FROM pg_class c JOIN pg_index p ON p.indrelid = c.oid AND p.indisprimary JOIN pg_class i ON i.oid = p.indexrelid
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'id'
WHERE c.relname LIKE 't\_%' ORDER BY c.oid" | sed 's/^/ /'
cluster_stop sizes
