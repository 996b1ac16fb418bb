#!/usr/bin/env bash
# Every test of kid, in one go (the README's "make test" runs this):
#   1. C++ unit tests of src/core (GoogleTest)
#   2. pg_regress: every SQL object and error, on a throwaway server
#   3. concurrency and short-lived connections against that server
#   4. restarts and crash restarts
#   5. hostile input: the unit tests under valgrind and with ASan+UBSan,
#      libFuzzer on every decoder (FUZZ_SECONDS each, default 15), and
#      pg_regress against kid built with ASan+UBSan (test/sanitize.sh)
# Ends with "N passed, N failed" and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
source test/lib.sh

check "install script is up to date" make -s check-install-script
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

echo "== hostile input"
hostile_start=$SECONDS
check "unit tests under valgrind (memcheck)" make -s unit-valgrind
check "unit tests built with ASan and UBSan" make -s unit-sanitize
# The fuzzers (one core) run while the sanitizer build and its pg_regress
# (mostly the other core) do; each is bounded in time.
if make -s -j2 fuzz-build >"$KID_TMP/fuzz-build.log" 2>&1; then
    FUZZ_SECONDS=${FUZZ_SECONDS:-15} test/fuzz/run.sh >"$KID_TMP/fuzz.log" 2>&1 &
    fuzz_pid=$!
else
    cat "$KID_TMP/fuzz-build.log"
    fuzz_pid=
fi
check "pg_regress against kid built with ASan and UBSan" timeout 900 test/sanitize.sh
fuzzed() {
    [ -n "$fuzz_pid" ] || return 1
    wait "$fuzz_pid"
    local rc=$?
    cat "$KID_TMP/fuzz.log"
    return $rc
}
check "libFuzzer: every decoder, zero crashes, zero round-trip mismatches" fuzzed
echo "(hostile input: $((SECONDS - hostile_start)) s)"

echo
echo "${KID_PASSED} passed, ${KID_FAILED} failed"
[ "$KID_FAILED" -eq 0 ]
