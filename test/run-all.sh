#!/usr/bin/env bash
# Every test of kid on one PostgreSQL, in one go (make test runs it on each
# major: test/run-majors.sh):
#   1. C++ unit tests of src/core (GoogleTest), and the formatting check
#   2. pg_regress: every SQL object and error, on a throwaway server
#   3. the server tests of test/server/, each a program of its own
#      (concurrency, restarts, replication, clock faults, clients, ...),
#      in the order of their numbers
#   4. hostile input: the unit tests under valgrind and with ASan+UBSan,
#      libFuzzer on every decoder (FUZZ_SECONDS each, default 15), and
#      pg_regress against kid built with ASan+UBSan (test/sanitize.sh)
# With names, only those parts run (test/run-all.sh -h lists them).
# Ends with "N passed, N failed" and exits non-zero on any failure.
#
# A check is one thing that can fail: each GoogleTest test, each pg_regress
# file, each check of a server test.  What only has to hold for a test to
# run (a tool installed, a program that ran to its end) prints a note ("# ")
# and counts only when it fails.  The output is one TAP stream (as each
# server test's is, test/lib.sh): every check line numbered in the order
# printed, the server tests' lines renumbered so, their plans turned into
# notes, and the plan "1..N" before the closing "N passed, N failed".
#
# KID_SERVERLESS_DONE=1 (test/run-majors.sh sets it after the first major)
# leaves out what gives the same result on any PostgreSQL: the server
# tests marked "# kid-test: server-independent" and the install-script
# check; they ran on the first major.
set -uo pipefail
cd "$(dirname "$0")/.."

REGRESS_TESTS=$(ls test/sql/*.sql | xargs -n1 basename | sed 's/\.sql$//')
# A server test is test/server/NN-NAME.sh: NN orders them (the order a reader
# should meet them in, docs/testing.md), NAME is what it is called by.
SERVER_TESTS=$(ls test/server/[0-9][0-9]-*.sh | xargs -n1 basename | sed -e 's/^[0-9][0-9]-//' -e 's/\.sh$//')
# server_script NAME: the file of server test NAME.
server_script() { ls test/server/[0-9][0-9]-"$1".sh; }

usage() {
    cat <<EOF
usage: test/run-all.sh [NAME...]
  no NAME        everything (what make test runs)
  unit           C++ unit tests of src/core (GoogleTest)
  format         the tree is formatted as .clang-format says (make format-check)
  regress        every pg_regress test; or one or more by name:
$(echo $REGRESS_TESTS | fold -s -w 60 | sed 's/^/                   /')
  server         every server test of test/server/; or one or more by name:
$(echo $SERVER_TESTS | fold -s -w 60 | sed 's/^/                   /')
  hostile        valgrind unit-sanitize sanitize fuzz, that is:
  valgrind       the unit tests under valgrind's memcheck
  unit-sanitize  the unit tests built with ASan and UBSan
  sanitize       pg_regress against kid built with ASan and UBSan
  fuzz           libFuzzer on every decoder, FUZZ_SECONDS (15) each
A server test also runs alone: test/server/NN-NAME.sh (see CONTRIBUTING.md).
EOF
}

# What to run: parts, pg_regress tests and server tests.
ALL_PARTS="unit format regress server valgrind unit-sanitize sanitize fuzz"
parts=""
regress_sel=""
server_sel=""
if [ $# -eq 0 ]; then
    parts=$ALL_PARTS
    server_sel=$SERVER_TESTS
fi
for name in "$@"; do
    case " unit format regress valgrind unit-sanitize sanitize fuzz " in
    *" $name "*) parts="$parts $name"; continue ;;
    esac
    if [ "$name" = hostile ]; then
        parts="$parts valgrind unit-sanitize sanitize fuzz"
    elif [ "$name" = server ]; then
        server_sel="$server_sel $SERVER_TESTS"
    else
        # A name can be both a server test and a pg_regress test (uuidv7,
        # new_with_time): both run.
        known=
        grep -qx -- "$name" <<<"$SERVER_TESTS" && server_sel="$server_sel $name" known=1
        grep -qx -- "$name" <<<"$REGRESS_TESTS" && regress_sel="$regress_sel $name" known=1
        if [ -z "$known" ]; then
            [ "$name" = -h ] || [ "$name" = --help ] || echo "unknown test: $name" >&2
            usage >&2
            exit 2
        fi
    fi
done
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
# "regress" runs every pg_regress test, whatever else is named.
! want regress || regress_sel=""

source test/lib.sh

# server_independent NAME: test/server/NAME.sh's result does not depend on
# the PostgreSQL it runs on, and it ran on an earlier major already.
server_independent() {
    [ "${KID_SERVERLESS_DONE:-}" = 1 ] && grep -qx '# kid-test: server-independent' "$(server_script "$1")"
}

echo "== build and install (PostgreSQL $($PG_CONFIG --version | sed 's/^PostgreSQL //'))"
# Objects built for another PostgreSQL are rebuilt by make itself (the
# Makefile's .kid-built-for).
make -s -j2 PG_CONFIG="$PG_CONFIG" >/dev/null && make -s install PG_CONFIG="$PG_CONFIG" >/dev/null ||
    { echo "build failed"; exit 1; }
# After the build: the check compares the scripts with the built library's entry points.
if [ "${KID_SERVERLESS_DONE:-}" = 1 ]; then
    echo "(install script is up to date: checked on the first major)"
else
    check "install script is up to date, and names exactly kid.so's entry points" make -s check-install-script PG_CONFIG="$PG_CONFIG"
fi

# count_each PART EXPECTED RESULTS RC: one check per test of a test program
# (GoogleTest, pg_regress), the name of each in the file EXPECTED, the
# program's verdicts in RESULTS ("NAME ok" or "NAME FAILED" lines), RC its
# exit status.  A test without a verdict (the program stopped before it, or
# could not start) fails, and so does a program that failed with every
# verdict ok.
count_each() {
    local part=$1 expected=$2 results=$3 rc=$4 name verdict failed_before=$KID_FAILED
    [ -s "$expected" ] || { check "$part: the list of its tests is not empty" false; return; }
    while read -r name; do
        verdict=$(awk -v n="$name" '$1 == n { print $2; exit }' "$results")
        case $verdict in
        ok) check "$part: $name" true ;;
        FAILED) check "$part: $name" false ;;
        *) check "$part: $name (no result: the run stopped before it, exit status $rc)" false ;;
        esac
    done <"$expected"
    if [ "$rc" -ne 0 ] && [ "$KID_FAILED" -eq "$failed_before" ]; then
        check "$part: exits with status 0 (it exited with $rc)" false
    fi
}

if want unit; then
    echo "== C++ unit tests"
    unit_tests() {
        local bin=test/unit/kid_unit_tests log=$KID_TMP/unit.log rc
        if ! make -s "$bin" >"$KID_TMP/unit-build.log" 2>&1; then
            cat "$KID_TMP/unit-build.log"
            check "unit: the GoogleTest program builds" false
            return
        fi
        # Every test the program holds ("Suite." lines, then "  Name" lines).
        "$bin" --gtest_list_tests | awk '/^[^ ]/ { s = $1 } /^  / { print s $1 }' >"$KID_TMP/unit.expected"
        "$bin" --gtest_brief=0 >"$log" 2>&1
        rc=$?
        # A verdict line ends with the test's time; the summary's do not.
        sed -n -e 's/^\[       OK \] \([^ ]*\) ([0-9]* ms)$/\1 ok/p' \
            -e 's/^\[  FAILED  \] \([^ ]*\) ([0-9]* ms)$/\1 FAILED/p' "$log" >"$KID_TMP/unit.results"
        # What a failed test printed, from its RUN line to its verdict.
        awk '/^\[ RUN      \]/ { buf = "" } { buf = buf $0 "\n" }
             /^\[  FAILED  \] .* \([0-9]+ ms\)$/ { printf "%s", buf }' "$log"
        [ $rc -eq 0 ] || tail -5 "$log"
        count_each unit "$KID_TMP/unit.expected" "$KID_TMP/unit.results" $rc
    }
    unit_tests
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

# One main cluster for pg_regress and the server tests that need a general
# server; each script that needs one starts its own when run alone.
if want regress || [ -n "$regress_sel" ] || [ -n "$server_sel" ]; then
    PORT=54329
    cluster_init main $PORT || exit 1
    cluster_start main || exit 1
    export KID_MAIN_PORT=$PORT KID_MAIN_SOCK=$KID_TMP KID_MAIN_DIR=$KID_TMP/main
fi

if want regress || [ -n "$regress_sel" ]; then
    echo "== regression tests (pg_regress)"
    regress() {
        local log=$KID_TMP/regress.log rc
        if [ -n "$regress_sel" ]; then
            tr ' ' '\n' <<<"$regress_sel" | grep . >"$KID_TMP/regress.expected"
        else
            echo "$REGRESS_TESTS" >"$KID_TMP/regress.expected"
        fi
        rm -f regression.diffs
        make -s installcheck PGHOST="$KID_TMP" PGPORT=$PORT PGUSER=postgres ${regress_sel:+REGRESS="${regress_sel# }"} >"$log" 2>&1
        rc=$?
        # (pg_regress of 16 and later prints TAP of its own: notes here.)
        note "$(cat "$log")"
        [ $rc -eq 0 ] || head -200 regression.diffs 2>/dev/null
        # One verdict per test: PostgreSQL 15 prints "test NAME ... ok"
        # (FAILED, or "failed (ignored)"; a parallel group's lines have no
        # "test"), 16 and later "ok N - NAME" or "not ok N - NAME" ("+"
        # for a parallel group).
        sed -n -E -e 's/^(test)? +([a-z0-9_]+) +\.\.\. ok .*/\2 ok/p' \
            -e 's/^(test)? +([a-z0-9_]+) +\.\.\. (FAILED|failed).*/\2 FAILED/p' \
            -e 's/^ok +[0-9]+ +[-+] ([a-z0-9_]+) .*/\1 ok/p' \
            -e 's/^not ok +[0-9]+ +[-+] ([a-z0-9_]+) .*/\1 FAILED/p' "$log" >"$KID_TMP/regress.results"
        count_each pg_regress "$KID_TMP/regress.expected" "$KID_TMP/regress.results" $rc
    }
    regress
fi

# The server tests run KID_JOBS (3) at a time: most of their time is spent
# waiting on the real clock (a lease ahead, a promotion's margin, a worker's
# round), not on the processor.  Each has its own directory, servers and
# Unix sockets (test/lib.sh); a script marked "# kid-test: alone" runs with
# nothing beside it (it puts other versions' install scripts into the
# server's directories, or compares kid's installed files before and
# after), and the tests that use the "main" cluster (ensure_main_cluster)
# run one at a time.  (npm_install_once serializes the npm installs into a
# directory with a lock.)  Each test's output is kept and printed, numbered on, when it ends;
# the tests start in the order of their numbers and end in any order.
# KID_JOBS=1 runs them one after another.

# shared_things NAME: what test NAME shares with others, one per line
# ("alone" if it runs alone).
shared_things() {
    local script
    script=$(server_script "$1")
    grep -qx '# kid-test: alone' "$script" && echo alone
    grep -q 'ensure_main_cluster' "$script" && echo "the main cluster"
}

# start_server_test NAME: test/server/NN-NAME.sh started as a program of its
# own, in the background, under a time limit, KID_TEST_LIMIT seconds (600):
# a test that hangs fails alone, named, instead of holding the whole run
# until CI's own limit stops it without saying where.  timeout(1) signals
# the test's process group (its own; stdin is /dev/null, as in CI), and the
# test's EXIT trap stops its servers (bash runs it on TERM).
start_server_test() {
    local name=$1
    rm -f "$KID_TMP/$name".{results,lines,rc,out,pid}
    : >"$KID_TMP/$name.pids"
    {
        KID_RESULTS=$KID_TMP/$name.results KID_SERVER_PIDS=$KID_TMP/$name.pids \
            timeout -k 60 "${KID_TEST_LIMIT:-600}" "$(server_script "$name")" </dev/null >"$KID_TMP/$name.out" 2>&1 &
        echo $! >"$KID_TMP/$name.pid"
        wait $!
        echo $? >"$KID_TMP/$name.rc.new"
        mv "$KID_TMP/$name.rc.new" "$KID_TMP/$name.rc"
    } &
    started[$name]=$SECONDS
    running="$running $name"
}

# finish_server_test NAME: the ended test's output, its check lines
# renumbered to follow this stream's (renumber_checks); its checks count
# here (the results file kid_cleanup writes).  A script that stops before
# its last line (kid_finish) dropped the checks it did not reach: its
# passes count as failures, and so does the stop; so does a non-zero exit
# with nothing failed.  The time it took, the time of day it ended and,
# under test/run-majors.sh, how long the whole run has gone on are printed
# after it (a run cut short elsewhere shows its pace in its tail).
finish_server_test() {
    local name=$1 results="$KID_TMP/$1.results" lines="$KID_TMP/$1.lines" rc passed=0 failed=0 finished=stopped
    local limit=${KID_TEST_LIMIT:-600} took=$((SECONDS - started[$1])) why
    running=$(tr ' ' '\n' <<<"$running" | grep -vxF "$name" | tr '\n' ' ')
    rc=$(cat "$KID_TMP/$name.rc" 2>/dev/null || echo "none")
    echo "== $name"
    renumber_checks "$KID_CHECKS" "$name" "$lines" <"$KID_TMP/$name.out"
    echo "($name: $took s, ended $(date -u +%H:%M:%S) UTC${KID_RUN_START:+, $(($(date +%s) - KID_RUN_START)) s into the run})"
    KID_CHECKS=$((KID_CHECKS + $(cat "$lines")))
    [ -f "$results" ] && read -r passed failed finished <"$results"
    why="exit status $rc"
    if [ "$rc" = 124 ] || { [ "$rc" = 137 ] && [ "$took" -ge "$limit" ]; }; then
        why="it ran out of its $limit s, KID_TEST_LIMIT"
    fi
    if [ "$finished" != finished ]; then
        # A test killed past its limit ran no EXIT trap: its servers.
        stop_servers "$KID_TMP/$name.pids"
        KID_FAILED=$((KID_FAILED + passed + failed + 1))
        tap_line "not ok" "$name stopped before its end ($why): its $passed passes count as failures"
        return
    fi
    KID_PASSED=$((KID_PASSED + passed))
    KID_FAILED=$((KID_FAILED + failed))
    if [ "$rc" != 0 ] && [ "$failed" -eq 0 ]; then
        kid_fail "$name ended with nothing failed, but not well ($why)"
    fi
}

# may_start NAME: NAME may start beside the tests running now.
may_start() {
    local name=$1 other thing
    [ -z "${running// /}" ] && return 0
    [ "$(wc -w <<<"$running")" -lt "${KID_JOBS:-3}" ] || return 1
    grep -qx alone <<<"${things[$name]}" && return 1
    for other in $running; do
        grep -qx alone <<<"${things[$other]}" && return 1
        while read -r thing; do
            [ -z "$thing" ] || ! grep -qxF "$thing" <<<"${things[$other]}" || return 1
        done <<<"${things[$name]}"
    done
    return 0
}

# finish_ended: finish_server_test for each running test that has ended,
# once at least one has.
finish_ended() {
    local name ended
    while :; do
        ended=
        for name in $running; do
            [ -f "$KID_TMP/$name.rc" ] && ended="$ended $name"
        done
        [ -z "$ended" ] || break
        sleep 0.2
    done
    for name in $ended; do
        finish_server_test "$name"
    done
}

# renumber_checks BASE NAME COUNT_FILE: a server test's output, its check
# lines numbered from BASE + 1 on and its plan a note; the number of check
# lines goes to COUNT_FILE.
renumber_checks() {
    awk -v base="$1" -v name="$2" -v count_file="$3" '{
        if (match($0, /^(not )?ok [0-9]+ - /)) {
            verdict = substr($0, 1, RLENGTH)
            sub(/ [0-9]+ - $/, "", verdict)
            print verdict " " base + (++n) " - " substr($0, RLENGTH + 1)
        } else if (/^1\.\.[0-9]+/)
            print "# " name ": " $0
        else
            print
        fflush()
    }
    END { print n + 0 > count_file }'
}
# stop_running_tests: on ^C or TERM, the tests running (each in a process
# group of its own, under timeout) are sent TERM too, and waited for: their
# EXIT traps stop their servers.
stop_running_tests() {
    local name pid pids="" alive
    for name in $running; do
        pid=$(cat "$KID_TMP/$name.pid" 2>/dev/null) && kill -TERM "$pid" 2>/dev/null && pids="$pids $pid"
    done
    for _ in $(seq 700); do
        alive=
        for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ -n "$alive" ] || return 0
        sleep 0.1
    done
}
trap 'stop_running_tests; exit 130' INT
trap 'stop_running_tests; exit 143' TERM
declare -A things started
running=""
for t in $server_sel; do
    if server_independent "$t"; then
        echo "== $t: server-independent, checked on the first major"
        continue
    fi
    things[$t]=$(shared_things "$t")
    while ! may_start "$t"; do finish_ended; done
    start_server_test "$t"
done
while [ -n "${running// /}" ]; do finish_ended; done
wait

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

echo "1..$KID_CHECKS"
echo
echo "${KID_PASSED} passed, ${KID_FAILED} failed"
[ "$KID_FAILED" -eq 0 ]
