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

XC="$KID_TMP/xcheck"
XC_JS="$PWD/test/xcheck"
mkdir -p "$XC"
ensure_main_cluster || exit 1
main_db kid_xcheck_atproto || exit 1
if xcheck_install; then
    kpsql $PORT -d kid_xcheck_atproto -c "SELECT id::text || E'\t' || (tid_info(id)).unix_us || E'\t' || tid_clock_id(id) FROM (SELECT tid_new() AS id FROM generate_series(1, 2000)) s" > "$XC/kid.tsv"
    # Each comparison names the exit status of node (a missing reference
    # script or package fails it) and of psql, and what each side read.
    (cd "$XC" && node "$XC_JS/atproto.mjs" check-kid < kid.tsv > disagreements.txt 2> summary.txt)
    rc=$?
    cat "$XC/summary.txt"
    expect_eq "atproto xcheck: 2000 kid tids valid for the reference, same time and clock id" \
        "node $rc, $(wc -l < "$XC/disagreements.txt") of $(wc -l < "$XC/kid.tsv") disagree, $(grep -o '^checked [0-9]* kid tids, [0-9]* disagreements' "$XC/summary.txt")" \
        "node 0, 0 of 2000 disagree, checked 2000 kid tids, 0 disagreements"

    (cd "$XC" && node "$XC_JS/atproto.mjs" make 2000 > ref.tsv)
    rc=$?
    kpsql $PORT -d kid_xcheck_atproto <<SQL
CREATE TEMP TABLE ref (tid text, unix_us bigint, clock_id int);
\copy ref FROM '$XC/ref.tsv'
\o $XC/ref_mismatch.txt
SELECT * FROM ref WHERE (tid_info(tid::atproto_tid)).unix_us <> unix_us OR tid_clock_id(tid::atproto_tid) <> clock_id
   OR tid::atproto_tid::text <> tid;
\o
SQL
    psql_rc=$?
    expect_eq "atproto xcheck: 2100 reference tids decode to the same time and clock id" \
        "node $rc, psql $psql_rc, $(grep -c . "$XC/ref_mismatch.txt") of $(wc -l < "$XC/ref.tsv") disagree" "node 0, psql 0, 0 of 2100 disagree"

    (cd "$XC" && node "$XC_JS/atproto.mjs" syntax 5000 > syntax.tsv)
    rc=$?
    kpsql $PORT -d kid_xcheck_atproto <<SQL
CREATE FUNCTION pg_temp.kid_accepts_tid(s text) RETURNS boolean LANGUAGE plpgsql AS \$\$
BEGIN
    PERFORM s::atproto_tid;
    RETURN true;
EXCEPTION WHEN invalid_text_representation THEN
    RETURN false;
END \$\$;
CREATE TEMP TABLE syntax (s text, tid_ok boolean, rkey_ok boolean);
\copy syntax FROM '$XC/syntax.tsv'
\o $XC/syntax_mismatch.txt
SELECT * FROM syntax WHERE pg_temp.kid_accepts_tid(s) <> tid_ok OR atproto_rkey_is_valid(s) <> rkey_ok;
\o
\o $XC/syntax_counts.txt
SELECT count(*) FILTER (WHERE tid_ok), count(*) FILTER (WHERE NOT tid_ok), count(*) FILTER (WHERE NOT rkey_ok) FROM syntax;
\o
SQL
    psql_rc=$?
    echo "syntax strings: valid tids, invalid tids, invalid record keys: $(cat "$XC/syntax_counts.txt")"
    expect_eq "atproto xcheck: kid's tid and record-key syntax agree with the reference on 5000 strings" \
        "node $rc, psql $psql_rc, $(grep -c . "$XC/syntax_mismatch.txt") of $(wc -l < "$XC/syntax.tsv") disagree" "node 0, psql 0, 0 of 5000 disagree"
else
    check "atproto xcheck: npm install of the reference packages" false
fi
kpsql $PORT -d postgres -c "DROP DATABASE kid_xcheck_atproto"

kid_finish
