#!/usr/bin/env bash
# Cross-check of atproto_tid against the AT Protocol's reference code, the
# npm packages @atproto/common-web (TID) and @atproto/syntax (isValidTid,
# isValidRecordKey), pinned in test/xcheck/package.json (runs alone or from
# run-all.sh; uses the "main" cluster; npm installs the packages once into
# test/xcheck/node_modules).
#   1. 2,000 tids made by tid_new(): valid for the reference, same time and clock id.
#   2. 2,100 tids made by the reference: kid reads the same time and clock id.
#   3. 5,000 strings near the syntax (mutated tids, ".", ".."): kid accepts
#      exactly the strings isValidTid accepts, and atproto_rkey_is_valid
#      agrees with isValidRecordKey.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

if xcheck_begin kid_xcheck_atproto; then
    xcheck_kid "atproto xcheck: 2000 kid tids valid for the reference, same time and clock id" atproto.mjs tids 2000 \
        "SELECT id::text || E'\t' || (tid_info(id)).unix_us || E'\t' || tid_clock_id(id) FROM (SELECT tid_new() AS id FROM generate_series(1, 2000)) s"

    xcheck_ref "atproto xcheck: 2100 reference tids decode to the same time and clock id" 2100 atproto.mjs make 2000 <<SQL
CREATE TEMP TABLE ref (tid text, unix_us bigint, clock_id int);
\copy ref FROM '$XC/ref.tsv'
SELECT * FROM ref WHERE (tid_info(tid::atproto_tid)).unix_us <> unix_us OR tid_clock_id(tid::atproto_tid) <> clock_id
   OR tid::atproto_tid::text <> tid;
SQL

    xcheck_ref "atproto xcheck: kid's tid and record-key syntax agree with the reference on 5000 strings" 5000 atproto.mjs syntax 5000 <<SQL
CREATE FUNCTION pg_temp.kid_accepts_tid(s text) RETURNS boolean LANGUAGE plpgsql AS \$\$
BEGIN
    PERFORM s::atproto_tid;
    RETURN true;
EXCEPTION WHEN invalid_text_representation THEN
    RETURN false;
END \$\$;
CREATE TEMP TABLE syntax (s text, tid_ok boolean, rkey_ok boolean);
\copy syntax FROM '$XC/ref.tsv'
SELECT * FROM syntax WHERE pg_temp.kid_accepts_tid(s) <> tid_ok OR atproto_rkey_is_valid(s) <> rkey_ok;
SELECT count(*) FILTER (WHERE tid_ok) AS valid, count(*) FILTER (WHERE NOT tid_ok) AS invalid,
       count(*) FILTER (WHERE NOT rkey_ok) AS bad_rkeys FROM syntax \\gset
\\warn 'syntax strings: valid tids, invalid tids, invalid record keys:' :valid :invalid :bad_rkeys
SQL
fi
xcheck_end

kid_finish
