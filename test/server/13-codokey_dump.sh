#!/usr/bin/env bash
# Named codokey contexts survive pg_dump and restore (runs alone or from run-all.sh;
# uses the "main" cluster).
#
# A context defined with INSERT lives in an extension configuration table:
# pg_dump must write its row (and not the 'default' row, which CREATE
# EXTENSION makes), so that keys decode identically after a restore, in
# custom format through pg_restore and in plain format through psql.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

codokey_dump_sql() {
    kpsql $PORT -d "$1" -c "$2"
}

ensure_main_cluster || exit 1
kpsql $PORT -d postgres <<'SQL'
DROP DATABASE IF EXISTS codokey_dump_src;
DROP DATABASE IF EXISTS codokey_dump_custom;
DROP DATABASE IF EXISTS codokey_dump_plain;
DROP ROLE IF EXISTS codokey_dump_writer;
CREATE DATABASE codokey_dump_src;
CREATE ROLE codokey_dump_writer;
SQL
kpsql $PORT -d codokey_dump_src <<'SQL'
CREATE EXTENSION kid;
INSERT INTO codokey_context VALUES ('archive', 1900, 2199, 999);
GRANT INSERT ON codokey_context TO codokey_dump_writer;
CREATE TABLE documents (key codokey PRIMARY KEY, created timestamptz NOT NULL);
INSERT INTO documents
SELECT codokey(t, 6, 'archive'), t
FROM (SELECT timestamptz '1900-01-01 00:00:00+00' + i * interval '11 days 7 hours 13 minutes 17.123456 seconds' AS t
      FROM generate_series(0, 9000) i) s;
SQL

# What every check compares: the contexts, and every key with its decoding.
contexts_q="SELECT string_agg(name || ':' || since || ':' || until || ':' || split_max, ' ' ORDER BY name) FROM codokey_context"
decoded_q="SELECT count(*) || ' ' || md5(string_agg(key::text || '=' || extract(epoch FROM codokey_to_timestamp(key, 'archive')) || '/' || codokey_precision(key, 'archive'), ',' ORDER BY key)) FROM documents"
src_contexts=$(codokey_dump_sql codokey_dump_src "$contexts_q")
src_decoded=$(codokey_dump_sql codokey_dump_src "$decoded_q")
expect_eq "codokey dump: source has the default and the named context" "$src_contexts" \
    "archive:1900:2199:999 default:1970:3265:9"
expect_eq "codokey dump: keys of the named context decode to the times they were made from" \
    "$(codokey_dump_sql codokey_dump_src "SELECT count(*) FILTER (WHERE codokey_to_timestamp(key, 'archive') <> date_trunc('milliseconds', created)) FROM documents")" 0

"$PG_BIN/pg_dump" -h "$KID_MAIN_SOCK" -p $PORT -U postgres -Fc -f "$KID_TMP/codokey.dump" codokey_dump_src
"$PG_BIN/pg_dump" -h "$KID_MAIN_SOCK" -p $PORT -U postgres -Fp -f "$KID_TMP/codokey.sql" codokey_dump_src
expect_eq "codokey dump: the plain dump holds the named context's row and not the default's" \
    "$(grep -c '^archive	1900	2199	999$' "$KID_TMP/codokey.sql") $(grep -c '^default	' "$KID_TMP/codokey.sql")" "1 0"

kpsql $PORT -d postgres -c "CREATE DATABASE codokey_dump_custom" -c "CREATE DATABASE codokey_dump_plain"
check "codokey dump: pg_restore of the custom-format dump succeeds" \
    "$PG_BIN/pg_restore" -h "$KID_MAIN_SOCK" -p $PORT -U postgres --exit-on-error -d codokey_dump_custom "$KID_TMP/codokey.dump"
check "codokey dump: psql restore of the plain dump succeeds" \
    kpsql $PORT -d codokey_dump_plain -f "$KID_TMP/codokey.sql" -o /dev/null

for db in codokey_dump_custom codokey_dump_plain; do
    expect_eq "codokey dump ($db): the same contexts, the default once" \
        "$(codokey_dump_sql $db "$contexts_q")" "$src_contexts"
    expect_eq "codokey dump ($db): every key decodes identically" \
        "$(codokey_dump_sql $db "$decoded_q")" "$src_decoded"
    expect_eq "codokey dump ($db): new keys of the named context encode identically" \
        "$(codokey_dump_sql $db "SELECT codokey(timestamptz '2150-06-30 12:34:56.789+00', 6, 'archive')")" \
        "$(codokey_dump_sql codokey_dump_src "SELECT codokey(timestamptz '2150-06-30 12:34:56.789+00', 6, 'archive')")"
    expect_eq "codokey dump ($db): the guard still refuses a change of numbers" \
        "$(codokey_dump_sql $db "UPDATE codokey_context SET until = 2100 WHERE name = 'archive'" 2>&1 | grep -c 'cannot be changed')" 1
    expect_eq "codokey dump ($db): the guard still refuses deleting or renaming a context" \
        "$(codokey_dump_sql $db "DELETE FROM codokey_context WHERE name = 'archive'" 2>&1 | grep -c 'cannot be deleted') $(codokey_dump_sql $db "UPDATE codokey_context SET name = 'archive2' WHERE name = 'archive'" 2>&1 | grep -c 'cannot be changed')" "1 1"
    expect_eq "codokey dump ($db): the grant to define contexts is kept, and everyone may read them" \
        "$(codokey_dump_sql $db "SELECT has_table_privilege('codokey_dump_writer', 'codokey_context', 'INSERT') || ' ' || has_table_privilege('public', 'codokey_context', 'SELECT')")" "true true"
done

# A second dump of a restored database is the same: nothing doubles on the
# way.  (Comments and the random \restrict key of recent pg_dump differ.)
"$PG_BIN/pg_dump" -h "$KID_MAIN_SOCK" -p $PORT -U postgres -Fp -f "$KID_TMP/codokey2.sql" codokey_dump_custom
# kid_database_origin is compared apart: each restore adds the row of its
# own CREATE EXTENSION (docs/lease.md).
codokey_dump_origin() {
    sed -n '/^COPY .*kid_database_origin /,/^\\\.$/p' "$1"
}
codokey_dump_body() {
    grep -v -e '^--' -e '^\\restrict ' -e '^\\unrestrict ' "$1" | sed '/^COPY .*kid_database_origin /,/^\\\.$/d'
}
expect_eq "codokey dump: dumping the restored database gives the same dump" \
    "$(diff <(codokey_dump_body "$KID_TMP/codokey.sql") <(codokey_dump_body "$KID_TMP/codokey2.sql") | wc -l)" 0
expect_eq "codokey dump: kid_database_origin keeps its rows, plus the restore's own 'created' row" \
    "$(codokey_dump_origin "$KID_TMP/codokey.sql" | wc -l) $(codokey_dump_origin "$KID_TMP/codokey2.sql" | wc -l)" "3 4"

kpsql $PORT -d postgres <<'SQL'
DROP DATABASE codokey_dump_src;
DROP DATABASE codokey_dump_custom;
DROP DATABASE codokey_dump_plain;
DROP ROLE codokey_dump_writer;
SQL

kid_finish
