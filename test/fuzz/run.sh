#!/usr/bin/env bash
# test/fuzz/run.sh [TARGET...]: run kid's libFuzzer targets one after the
# other for FUZZ_SECONDS each (default 15), starting from seeds made of
# valid ids (test/fuzz/seeds) and from the corpus earlier runs kept in
# test/fuzz/corpus/.  Prints one line per target (executions, crashes,
# round-trip mismatches) and fails if any target found anything; a failing
# input is saved as test/fuzz/artifacts/<target>-crash-*.
#   make fuzz                    the bounded run (also part of make test)
#   make fuzz FUZZ_SECONDS=600   a longer session
# Build the binaries first (make fuzz does): test/fuzz/<target>_fuzz.
set -uo pipefail
cd "$(dirname "$0")"
SECONDS_EACH=${FUZZ_SECONDS:-15}
targets=("$@")
# Every target there is (each test/fuzz/<target>_fuzz.cpp), by default.
if [ ${#targets[@]} -eq 0 ]; then
    for f in *_fuzz.cpp; do targets+=("${f%_fuzz.cpp}"); done
fi

rm -rf seeds-out
./seeds seeds-out >/dev/null || { echo "seed generator failed"; exit 1; }
mkdir -p corpus artifacts logs

failed=0
total=0
printf '%-10s %14s %8s %8s %11s %7s\n' target executions exec/s crashes mismatches corpus
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    log="logs/$t.log"
    # -timeout: an input that takes 10 s is a hang, reported like a crash.
    # -use_value_profile: lets the fuzzer climb byte-by-byte comparisons.
    "./${t}_fuzz" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=1024 \
        -use_value_profile=1 -print_final_stats=1 -artifact_prefix="artifacts/$t-" \
        "corpus/$t" "seeds-out/$t" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    mismatches=$(grep -c '^round-trip mismatch' "$log")
    # libFuzzer stops at the first failing input: a mismatch (an abort from
    # the target's own check) or a crash (a sanitizer report, a signal, a hang).
    crashes=0
    [ $rc -eq 0 ] || [ "$mismatches" -gt 0 ] || crashes=1
    files=$(find "corpus/$t" -type f | wc -l)
    printf '%-10s %14s %8s %8s %11s %7s\n' "$t" "${execs:-?}" "${rate:-?}" "$crashes" "$mismatches" "$files"
    total=$((total + ${execs:-0}))
    if [ $rc -ne 0 ] || [ -z "$execs" ]; then
        failed=1
        echo "--- $t failed (exit $rc); from test/fuzz/$log:"
        grep -E -A3 '^round-trip mismatch|runtime error|ERROR: ' "$log" | head -20
        grep -E '^SUMMARY|Test unit written|^Base64' "$log"
    fi
done
echo "fuzz: ${#targets[@]} targets, ${SECONDS_EACH} s each, $total executions in all"
exit $failed
