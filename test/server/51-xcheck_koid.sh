#!/usr/bin/env bash
# Cross-check of koid against the npm packages koid and flake-idgen, pinned
# in test/xcheck/package.json (runs alone or from run-all.sh; uses the
# "main" cluster; npm installs the packages once into test/xcheck/node_modules).
#   1. 2,000 koids made by koid_new() under several generator ids: koid's
#      retrieveFromId reads the same time, datacenter, worker and counter.
#   2. 1,000 ids made by koid and flake-idgen with random datacenter/worker:
#      kid reads the same fields and text.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

XC="$KID_TMP/xcheck"
XC_JS="$PWD/test/xcheck"
mkdir -p "$XC"
ensure_main_cluster || exit 1
main_db kid_xcheck_koid || exit 1
if xcheck_install; then
    kpsql $PORT -d kid_xcheck_koid -c "SELECT id::text || E'\t' || i.ms_since_epoch || E'\t' || i.datacenter || E'\t' || i.worker || E'\t' || i.counter FROM (SELECT koid_new() AS id FROM generate_series(1, 2000)) s, koid_info(id) i" > "$XC/kid_koid.tsv"
    # Each comparison names the exit status of node (a missing reference
    # script or package fails it) and of psql, and what each side read.
    (cd "$XC" && node "$XC_JS/koid.mjs" check-kid < kid_koid.tsv > koid_disagreements.txt 2> koid_summary.txt)
    rc=$?
    cat "$XC/koid_summary.txt"
    expect_eq "koid xcheck: 2000 kid koids read the same by the koid package" \
        "node $rc, $(wc -l < "$XC/koid_disagreements.txt") of $(wc -l < "$XC/kid_koid.tsv") disagree, $(grep -o '^checked [0-9]* kid koids, [0-9]* disagreements' "$XC/koid_summary.txt")" \
        "node 0, 0 of 2000 disagree, checked 2000 kid koids, 0 disagreements"

    (cd "$XC" && node "$XC_JS/koid.mjs" make 1000 > ref_koid.tsv)
    rc=$?
    kpsql $PORT -d kid_xcheck_koid <<SQL
CREATE TEMP TABLE ref_koid (hex text, ms bigint, datacenter int, worker int, counter int);
\copy ref_koid FROM '$XC/ref_koid.tsv'
\o $XC/ref_koid_mismatch.txt
SELECT * FROM ref_koid r, koid_info(r.hex::koid) i
WHERE i.ms_since_epoch <> r.ms OR i.datacenter <> r.datacenter OR i.worker <> r.worker
   OR i.counter <> r.counter OR i.generator_id <> r.datacenter * 32 + r.worker OR r.hex::koid::text <> r.hex
   OR r.hex::koid::bigint <> ('x' || r.hex)::bit(64)::bigint;
\o
SQL
    psql_rc=$?
    expect_eq "koid xcheck: 1000 ids of koid and flake-idgen read the same by kid" \
        "node $rc, psql $psql_rc, $(grep -c . "$XC/ref_koid_mismatch.txt") of $(wc -l < "$XC/ref_koid.tsv") disagree" "node 0, psql 0, 0 of 1000 disagree"
else
    check "koid xcheck: npm install of the reference packages" false
fi
kpsql $PORT -d postgres -c "DROP DATABASE kid_xcheck_koid"

kid_finish
