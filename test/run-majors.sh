#!/usr/bin/env bash
# test/run-majors.sh: what make test runs.  test/run-all.sh on PostgreSQL 15,
# then on PostgreSQL 17 (Debian 13's packages in a chroot made once and cached
# by test/tools/pg17.sh), then on PostgreSQL 18.6 (built once and cached by
# test/tools/pg18.sh), and one "N passed, N failed" line summing them.  The
# output is one TAP stream: each check's line names the major it ran on and
# is numbered on from the majors before ("ok 614 - pg17 ...", "not ok 1290 -
# pg18 ..."), each major's plan and counts are notes, and the plan of the
# whole comes before the summed line.
#
# PostgreSQL 15 runs everything; 17 and 18 run what depends on the server:
# pg_regress, the server tests and pg_regress under ASan+UBSan (the unit
# tests, the formatting check, valgrind and the fuzzers test src/core, which
# includes no PostgreSQL header: they would run the same code again).  18
# runs every server test; 17 all but PG17_SKIP below: those whose tools
# (Citus's vendored builds, a JDK, Go, Node.js, zip) the chroot does not
# have and which test client libraries, src/core's codecs and the release
# archive, the same on every major; and those that drive kid's generators
# through libfaketime clocks (scheme_marks, clock_faults, clock_behind,
# koid_overflow): src/core's clock logic and the lease, the same code on
# every major, which 15 and 18 run (kid's C++ has no branch for 17 alone:
# its version tests are >= 16, >= 17 and >= 19, which 18 takes too), at
# about 70 s a major.
#
# PostgreSQL 19 (Debian's 19~rc1 from experimental, in the sid chroot of
# test/tools/pg19.sh) is not in the default KID_MAJORS yet:
# KID_MAJORS="15 17 18 19" adds it, or KID_MAJORS=19 alone.  It runs the
# same server tests as 18 but PG19_SKIP: those whose tools the chroot does
# not have, as 17's first list, and pg_partman, which no suite packages for
# 19.
#
#   KID_MAJORS        which to run (default "15 17 18")
#   KID_PG15_CONFIG   PostgreSQL 15's pg_config (default: $PG_CONFIG, else Debian's)
#   KID_PG17_ROOT     the PostgreSQL 17 chroot (default: the one test/tools/pg17.sh prints)
#   KID_PG18_CONFIG   PostgreSQL 18's pg_config (default: the one test/tools/pg18.sh prints)
#   KID_PG19_ROOT     the PostgreSQL 19 chroot (default: the one test/tools/pg19.sh prints)
#   KID_VENDOR, KID_PG_CACHE: see test/tools/pg18.sh (and test/tools/pg17.sh)
# With NAMEs (test/run-all.sh -h), only those run, on every major.
set -uo pipefail
cd "$(dirname "$0")/.."

KID_MAJORS=${KID_MAJORS:-15 17 18}
PG17_SKIP="citus client_jdbc client_pgx client_node client_knex xcheck_atproto xcheck_koid dist build_majors
    scheme_marks clock_faults clock_behind koid_overflow"
PG19_SKIP="citus client_jdbc client_pgx client_node client_knex xcheck_atproto xcheck_koid dist build_majors
    pg_partman"
PG15_CONFIG=${KID_PG15_CONFIG:-${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}}
# test/server/37-pg_upgrade.sh upgrades from this 15 on the 18 pass too.
export KID_PG15_CONFIG=$PG15_CONFIG
passed=0
failed=0
checks=0 # check lines printed
log=$(mktemp /tmp/kid-majors.XXXXXX)
trap 'rm -f "$log"' EXIT

# run_major LABEL PG_CONFIG NAME...: test/run-all.sh on one server, its lines
# labelled and its check lines numbered on (label_major).
# With KID_CHROOT set, test/run-all.sh runs inside that chroot (PG_CONFIG is
# the chroot's), in a mount namespace of its own: the repository (and its
# git directory, for a worktree) bind-mounted at the same path, /proc for
# pgrep and /dev; the mounts go with the namespace, whatever happens.
run_major() {
    local label=$1 config=$2 p f version
    shift 2
    if [ -n "${KID_CHROOT:-}" ]; then
        version=$(chroot "$KID_CHROOT" "$config" --version)
        echo "=== $label: $version ($config in $KID_CHROOT)"
    else
        echo "=== $label: $("$config" --version) ($config)"
    fi
    in_env() {
        if [ -z "${KID_CHROOT:-}" ]; then
            env -u PG_BIN PG_CONFIG="$config" test/run-all.sh "$@"
            return
        fi
        local gitdir
        gitdir=$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null) || gitdir=
        case $gitdir in "$PWD"/*) gitdir= ;; esac
        unshare --mount --propagation private /bin/bash -c '
            root=$1 repo=$2 gitdir=$3 config=$4
            shift 4
            mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
                mkdir -p "$root$repo" && mount --bind "$repo" "$root$repo" || exit 1
            if [ -n "$gitdir" ]; then
                mkdir -p "$root$gitdir" && mount --bind "$gitdir" "$root$gitdir" || exit 1
            fi
            exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
                PG_CONFIG="$config" ${FUZZ_SECONDS:+FUZZ_SECONDS=$FUZZ_SECONDS} KID_RUN_START=$KID_RUN_START \
                ${KID_TEST_LIMIT:+KID_TEST_LIMIT=$KID_TEST_LIMIT} \
                /bin/bash -c "cd \"\$0\" && exec test/run-all.sh \"\$@\"" "$repo" "$@"' \
            _ "$KID_CHROOT" "$PWD" "$gitdir" "$config" "$@"
    }
    in_env "$@" 2>&1 | label_major "$label" | tee "$log"
    checks=$((checks + $(grep -c -E '^(not )?ok [0-9]+ - ' "$log")))
    read -r p f < <(sed -n "s/^# $label: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" "$log" | tail -1)
    if [ -z "${p:-}" ]; then
        not_ok "$label test/run-all.sh ended without its counts"
        p=0 f=0
    fi
    passed=$((passed + p))
    failed=$((failed + f))
}

# made MAJOR COMMAND: the last line COMMAND prints (the chroot or the
# pg_config it made, or found made and cached), and how long it took.
made() {
    local start=$SECONDS out
    out=$("${@:2}" | tail -1)
    echo "(PostgreSQL $1: $out, $((SECONDS - start)) s)" >&2
    echo "$out"
}

# not_ok TEXT: a failed check of this script's own.
not_ok() {
    checks=$((checks + 1))
    failed=$((failed + 1))
    echo "not ok $checks - $1"
}

# label_major LABEL: test/run-all.sh's output with LABEL in each check line
# and note, the check lines numbered from checks + 1 on, its plan and its
# closing counts as notes ("# pg15: 613 passed, 0 failed").
label_major() {
    awk -v label="$1" -v base="$checks" '{
        if (match($0, /^(not )?ok [0-9]+ - /)) {
            verdict = substr($0, 1, RLENGTH)
            sub(/ [0-9]+ - $/, "", verdict)
            print verdict " " base + (++n) " - " label " " substr($0, RLENGTH + 1)
        } else if (/^1\.\.[0-9]+$/ || /^[0-9]+ passed, [0-9]+ failed$/)
            print "# " label ": " $0
        else if (/^# /)
            print "# " label " " substr($0, 3)
        else
            print
        fflush()
    }'
}

# run_chroot_major MAJOR ROOT SKIP NAME...: run_major in the Debian chroot
# ROOT (test/tools/pg17.sh, pg19.sh): with no NAME pg_regress, every server
# test but the names in SKIP, and the sanitizer run; else the NAMEs.
run_chroot_major() {
    local major=$1 root=$2 skip=$3 config names
    shift 3
    config=/usr/lib/postgresql/$major/bin/pg_config
    if [ ! -x "$root$config" ]; then
        not_ok "pg$major no PostgreSQL $major (test/tools/pg$major.sh)"
        return
    fi
    if [ $# -eq 0 ]; then
        names=$(ls test/server/[0-9][0-9]-*.sh | xargs -n1 basename | sed -e 's/^[0-9][0-9]-//' -e 's/\.sh$//' | grep -vxF "$(tr ' ' '\n' <<<"$skip")")
        KID_CHROOT=$root run_major "pg$major" "$config" regress $names sanitize
    else
        KID_CHROOT=$root run_major "pg$major" "$config" "$@"
    fi
}

echo "(make test starts at $(date -u +%H:%M:%S) UTC)"
# test/run-all.sh says after each server test how long this run has gone on.
export KID_RUN_START=${KID_RUN_START:-$(date +%s)}
# PostgreSQL 18 is built (or found in the cache) before the first major: the
# first major's build_majors installs kid into it too, and a cold build
# (about 140 s) is no test's time, nor within a test's time limit.
case " $KID_MAJORS " in
*" 18 "*)
    [ -n "${KID_PG18_CONFIG:-}" ] || KID_PG18_CONFIG=$(made 18 test/tools/pg18.sh)
    export KID_PG18_CONFIG
    ;;
esac
for major in $KID_MAJORS; do
    case $major in
    15)
        run_major pg15 "$PG15_CONFIG" "$@"
        ;;
    17)
        run_chroot_major 17 "${KID_PG17_ROOT:-$(made 17 test/tools/pg17.sh)}" "$PG17_SKIP" "$@"
        ;;
    18)
        config=$KID_PG18_CONFIG
        if [ -x "$config" ]; then
            if [ $# -eq 0 ]; then run_major pg18 "$config" regress server sanitize; else run_major pg18 "$config" "$@"; fi
        else
            not_ok "pg18 no PostgreSQL 18 (test/tools/pg18.sh)"
        fi
        ;;
    19)
        run_chroot_major 19 "${KID_PG19_ROOT:-$(made 19 test/tools/pg19.sh)}" "$PG19_SKIP" "$@"
        ;;
    *)
        echo "unknown major in KID_MAJORS: $major" >&2
        exit 2
        ;;
    esac
    # What gives the same result on every major (scripts marked
    # "# kid-test: server-independent", the install-script check) ran on the first.
    export KID_SERVERLESS_DONE=1
done

echo "1..$checks"
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
