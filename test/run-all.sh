#!/usr/bin/env bash
# Every test of kid, in one go (the README's "make test" runs this):
#   1. C++ unit tests of src/core (GoogleTest), and the formatting check
#   2. pg_regress: every SQL object and error, on a throwaway server
#   3. the server tests of test/stress/, each a program of its own
#      (concurrency, restarts, replication, clock faults, settings, ...)
#   4. hostile input: the unit tests under valgrind and with ASan+UBSan,
#      libFuzzer on every decoder (FUZZ_SECONDS each, default 15), and
#      pg_regress against kid built with ASan+UBSan (test/sanitize.sh)
# With names, only those parts run (test/run-all.sh -h lists them).
# Ends with "N passed, N failed" and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

REGRESS_TESTS=$(ls test/sql/*.sql | xargs -n1 basename | sed 's/\.sql$//')
STRESS_TESTS=$(ls test/stress/*.sh | xargs -n1 basename | sed 's/\.sh$//')

usage() {
    cat <<EOF
usage: test/run-all.sh [NAME...]
  no NAME        everything (what make test runs)
  unit           C++ unit tests of src/core (GoogleTest)
  format         the tree is formatted as .clang-format says (make format-check)
  regress        every pg_regress test; or one or more by name:
$(echo $REGRESS_TESTS | fold -s -w 60 | sed 's/^/                   /')
  stress         every server test of test/stress/; or one or more by name:
$(echo $STRESS_TESTS | fold -s -w 60 | sed 's/^/                   /')
  hostile        valgrind unit-sanitize sanitize fuzz, that is:
  valgrind       the unit tests under valgrind's memcheck
  unit-sanitize  the unit tests built with ASan and UBSan
  sanitize       pg_regress against kid built with ASan and UBSan
  fuzz           libFuzzer on every decoder, FUZZ_SECONDS (15) each
A stress script also runs alone: test/stress/NAME.sh (see CONTRIBUTING.md).
EOF
}

# What to run: parts, pg_regress tests and stress scripts.
ALL_PARTS="unit format regress stress valgrind unit-sanitize sanitize fuzz"
parts=""
regress_sel=""
stress_sel=""
if [ $# -eq 0 ]; then
    parts=$ALL_PARTS
    stress_sel=$STRESS_TESTS
fi
for name in "$@"; do
    case " unit format regress valgrind unit-sanitize sanitize fuzz " in
    *" $name "*) parts="$parts $name"; continue ;;
    esac
    if [ "$name" = hostile ]; then
        parts="$parts valgrind unit-sanitize sanitize fuzz"
    elif [ "$name" = stress ]; then
        stress_sel="$stress_sel $STRESS_TESTS"
    elif grep -qx -- "$name" <<<"$STRESS_TESTS"; then
        stress_sel="$stress_sel $name"
    elif grep -qx -- "$name" <<<"$REGRESS_TESTS"; then
        regress_sel="$regress_sel $name"
    else
        [ "$name" = -h ] || [ "$name" = --help ] || echo "unknown test: $name" >&2
        usage >&2
        exit 2
    fi
done
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

source test/lib.sh

check "install script is up to date" make -s check-install-script
echo "== build and install (PostgreSQL $($PG_CONFIG --version | sed 's/^PostgreSQL //'))"
# Objects built for another PostgreSQL are rebuilt by make itself (the
# Makefile's .kid-built-for).
make -s -j2 PG_CONFIG="$PG_CONFIG" >/dev/null && make -s install PG_CONFIG="$PG_CONFIG" >/dev/null ||
    { echo "build failed"; exit 1; }

if want unit; then
    echo "== C++ unit tests"
    check "unit tests (GoogleTest)" make -s unit
fi
if want format; then
    echo "== formatting"
    formatted() {
        make -s format-check >"$KID_TMP/format.log" 2>&1 && return 0
        echo "places clang-format would change, per file (make format applies .clang-format):"
        grep -o '^[^:]*:[0-9]*:[0-9]*: error' "$KID_TMP/format.log" | cut -d: -f1 | sort | uniq -c
        return 1
    }
    check "C++ sources formatted as .clang-format says (make format-check)" formatted
fi

# One main cluster for pg_regress and the stress scripts that need a general
# server; each script that needs one starts its own when run alone.
if want regress || [ -n "$regress_sel" ] || [ -n "$stress_sel" ]; then
    PORT=54329
    cluster_init main $PORT || exit 1
    cluster_start main || exit 1
    export KID_MAIN_PORT=$PORT KID_MAIN_SOCK=$KID_TMP KID_MAIN_DIR=$KID_TMP/main
fi

if want regress || [ -n "$regress_sel" ]; then
    echo "== regression tests (pg_regress)"
    regress() {
        make -s installcheck PGHOST="$KID_TMP" PGPORT=$PORT PGUSER=postgres ${regress_sel:+REGRESS="${regress_sel# }"} ||
            { cat test/regression.diffs 2>/dev/null | head -200; return 1; }
    }
    check "pg_regress${regress_sel:+:$regress_sel}" regress
fi

# run_stress NAME: test/stress/NAME.sh as a program of its own; its checks
# count here.  A script that ends early with nothing failed counts a failure.
run_stress() {
    local name=$1 results="$KID_TMP/$1.results" rc passed=0 failed=0
    echo "== $name"
    KID_RESULTS=$results "test/stress/$name.sh"
    rc=$?
    [ -f "$results" ] && read -r passed failed <"$results"
    KID_PASSED=$((KID_PASSED + passed))
    KID_FAILED=$((KID_FAILED + failed))
    if [ $rc -ne 0 ] && [ "$failed" -eq 0 ]; then
        KID_FAILED=$((KID_FAILED + 1))
        echo "FAILED: $name ended early (exit status $rc)"
    fi
}
for t in $stress_sel; do
    run_stress "$t"
done

if [ -n "${KID_MAIN_PORT:-}" ]; then
    cluster_stop main
    unset KID_MAIN_PORT KID_MAIN_SOCK KID_MAIN_DIR
fi

if want valgrind || want unit-sanitize || want sanitize || want fuzz; then
    echo "== hostile input"
    hostile_start=$SECONDS
    want valgrind && check "unit tests under valgrind (memcheck)" make -s unit-valgrind
    want unit-sanitize && check "unit tests built with ASan and UBSan" make -s unit-sanitize
    # The fuzzers (one core) run while the sanitizer build and its pg_regress
    # (mostly the other core) do; each is bounded in time.
    fuzz_pid=
    if want fuzz; then
        if make -s -j2 fuzz-build >"$KID_TMP/fuzz-build.log" 2>&1; then
            FUZZ_SECONDS=${FUZZ_SECONDS:-15} test/fuzz/run.sh >"$KID_TMP/fuzz.log" 2>&1 &
            fuzz_pid=$!
        else
            cat "$KID_TMP/fuzz-build.log"
        fi
    fi
    want sanitize && check "pg_regress against kid built with ASan and UBSan" timeout 900 test/sanitize.sh
    fuzzed() {
        [ -n "$fuzz_pid" ] || return 1
        wait "$fuzz_pid"
        local rc=$?
        cat "$KID_TMP/fuzz.log"
        return $rc
    }
    want fuzz && check "libFuzzer: every decoder, zero crashes, zero round-trip mismatches" fuzzed
    echo "(hostile input: $((SECONDS - hostile_start)) s)"
fi

echo
echo "${KID_PASSED} passed, ${KID_FAILED} failed"
[ "$KID_FAILED" -eq 0 ]
