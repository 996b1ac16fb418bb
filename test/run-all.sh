#!/usr/bin/env bash
# Every test of kid, in one go (the README's "make test" runs this):
#   1. C++ unit tests of src/core (GoogleTest)
#   2. pg_regress: every SQL object and error, on a throwaway server
#   3. concurrency and short-lived connections against that server
#   4. restarts and crash restarts
# Ends with "N passed, N failed" and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
source test/lib.sh

echo "== build and install"
make -s -j2 >/dev/null && make -s install >/dev/null || { echo "build failed"; exit 1; }

echo "== C++ unit tests"
check "unit tests (GoogleTest)" make -s unit

PORT=54329
cluster_init main $PORT
cluster_start main

echo "== regression tests (pg_regress)"
regress() {
    make -s installcheck PGHOST="$KID_TMP" PGPORT=$PORT PGUSER=postgres ||
        { cat regression.diffs 2>/dev/null | head -200; return 1; }
}
check "pg_regress" regress

for t in test/stress/*.sh; do
    echo "== $(basename "$t" .sh)"
    source "$t"
done

cluster_stop main
echo
echo "${KID_PASSED} passed, ${KID_FAILED} failed"
[ "$KID_FAILED" -eq 0 ]
