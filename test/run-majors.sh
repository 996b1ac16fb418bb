#!/usr/bin/env bash
# test/run-majors.sh: what make test runs.  test/run-all.sh on PostgreSQL 15,
# then on PostgreSQL 18.6 (built once and cached by test/pg18.sh), and one
# "N passed, N failed" line summing both.  Each check's line names the major
# it ran on ("ok: pg15 ...", "FAILED: pg18 ...").
#
# PostgreSQL 15 runs everything; 18 runs what depends on the server: pg_regress,
# every stress script and pg_regress under ASan+UBSan (the unit tests, the
# formatting check, valgrind and the fuzzers test src/core, which includes no
# PostgreSQL header: they would run the same code again).
#
#   KID_MAJORS        which to run (default "15 18")
#   KID_PG15_CONFIG   PostgreSQL 15's pg_config (default: $PG_CONFIG, else Debian's)
#   KID_PG18_CONFIG   PostgreSQL 18's pg_config (default: the one test/pg18.sh prints)
#   KID_VENDOR, KID_PG_CACHE: see test/pg18.sh
# With NAMEs (test/run-all.sh -h), only those run, on every major.
set -uo pipefail
cd "$(dirname "$0")/.."

KID_MAJORS=${KID_MAJORS:-15 18}
PG15_CONFIG=${KID_PG15_CONFIG:-${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}}
# test/stress/pg_upgrade.sh upgrades from this 15 on the 18 pass too.
export KID_PG15_CONFIG=$PG15_CONFIG
passed=0
failed=0
log=$(mktemp /tmp/kid-majors.XXXXXX)
trap 'rm -f "$log"' EXIT

# run_major LABEL PG_CONFIG NAME...: test/run-all.sh on one server, its lines labelled.
run_major() {
    local label=$1 config=$2 p f
    shift 2
    echo "=== $label: $("$config" --version) ($config)"
    env -u PG_BIN PG_CONFIG="$config" test/run-all.sh "$@" 2>&1 |
        sed -u -e "s/^\(ok\|FAILED\): /\1: $label /" -e "s/^\([0-9]* passed, [0-9]* failed\)$/$label: \1/" |
        tee "$log"
    read -r p f < <(sed -n "s/^$label: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" "$log" | tail -1)
    if [ -z "${p:-}" ]; then
        echo "FAILED: $label test/run-all.sh ended without its counts"
        p=0 f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
}

for major in $KID_MAJORS; do
    case $major in
    15)
        run_major pg15 "$PG15_CONFIG" "$@"
        ;;
    18)
        config=${KID_PG18_CONFIG:-}
        if [ -z "$config" ]; then
            start=$SECONDS
            config=$(test/pg18.sh | tail -1)
            echo "(PostgreSQL 18: $config, $((SECONDS - start)) s)"
        fi
        if [ -x "$config" ]; then
            if [ $# -eq 0 ]; then run_major pg18 "$config" regress stress sanitize; else run_major pg18 "$config" "$@"; fi
        else
            echo "FAILED: pg18 no PostgreSQL 18 (test/pg18.sh)"
            failed=$((failed + 1))
        fi
        ;;
    *)
        echo "unknown major in KID_MAJORS: $major" >&2
        exit 2
        ;;
    esac
done

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
