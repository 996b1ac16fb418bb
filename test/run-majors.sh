#!/usr/bin/env bash
# test/run-majors.sh: what make test runs.  test/run-all.sh on PostgreSQL 15
# and 18.6 (built once and cached by test/tools/pg18.sh) on this machine, and
# on 17 and 19 in Debian chroots made once and cached (test/tools/pg17.sh:
# Debian 13's packages; test/tools/pg19.sh: Debian's 19~rc1 from
# experimental on sid), and one "N passed, N failed" line summing them.  The
# output is one TAP stream: each check's line names the major it ran on and
# is numbered on from the majors before ("ok 614 - pg17 ...", "not ok 1290 -
# pg18 ..."), each major's plan and counts are notes, and the plan of the
# whole comes before the summed line, after the failed checks' lines again.
#
# Two majors run at once: 17 beside 15, then 19 beside 18 (below, where
# start_chroot_major is).  KID_SERIAL=1 runs them one after another.
#
# PostgreSQL 15 runs everything; the others run what depends on the server:
# pg_regress, the server tests and pg_regress under ASan+UBSan (the unit
# tests, the formatting check, valgrind and the fuzzers test src/core, which
# includes no PostgreSQL header: they would run the same code again).  18
# runs every server test; 17 all but PG17_SKIP below: those whose tools
# (Citus's vendored builds, a JDK, Go, Node.js, zip) the chroot does not
# have and which test client libraries, src/core's codecs and the release
# archive, the same on every major; and those that drive kid's generators
# through libfaketime clocks (scheme_marks, clock_faults, clock_behind,
# koid_overflow): src/core's clock logic and the lease, the same code on
# every major, which 15, 18 and 19 run (kid's C++ has no branch for 17
# alone: its version tests are >= 16, >= 17 and >= 19, which 18 takes too),
# at about 70 s a major.  19 runs the same server tests as 18 but
# PG19_SKIP: those whose tools the chroot does not have, as 17's first
# list, and pg_partman, which no suite packages for 19.
#
#   KID_MAJORS        which to run (default "15 17 18 19")
#   KID_SERIAL        1: one major at a time
#   KID_PG15_CONFIG   PostgreSQL 15's pg_config (default: $PG_CONFIG, else Debian's)
#   KID_PG17_ROOT     the PostgreSQL 17 chroot (default: the one test/tools/pg17.sh prints)
#   KID_PG18_CONFIG   PostgreSQL 18's pg_config (default: the one test/tools/pg18.sh prints)
#   KID_PG19_ROOT     the PostgreSQL 19 chroot (default: the one test/tools/pg19.sh prints)
#   KID_VENDOR, KID_PG_CACHE: see test/tools/pg18.sh (and test/tools/pg17.sh)
# With NAMEs (test/run-all.sh -h), only those run, on every major.
set -uo pipefail
cd "$(dirname "$0")/.."

KID_MAJORS=${KID_MAJORS:-15 17 18 19}
PG17_SKIP="citus client_jdbc client_pgx client_node client_knex xcheck_atproto xcheck_koid xcheck_ulid dist build_majors
    scheme_marks clock_faults clock_behind koid_overflow"
PG19_SKIP="citus client_jdbc client_pgx client_node client_knex xcheck_atproto xcheck_koid xcheck_ulid dist build_majors
    pg_partman"
PG15_CONFIG=${KID_PG15_CONFIG:-${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}}
# test/server/37-pg_upgrade.sh upgrades from this 15 on the 18 pass too.
export KID_PG15_CONFIG=$PG15_CONFIG
# The vendored sources, as test/tools/pg18.sh finds them, here, where
# ../shared/vendor is beside the tree (a chroot major runs in a copy of it).
export KID_VENDOR=${KID_VENDOR:-$(realpath -m ../shared/vendor)}
passed=0
failed=0
checks=0 # check lines printed
log=$(mktemp /tmp/kid-majors.XXXXXX)
# Every failed check's line, printed again just before the counts: CI shows
# only the tail of a run.
failures=$(mktemp /tmp/kid-majors-failed.XXXXXX)

# run_all_on LABEL PG_CONFIG NAME...: test/run-all.sh on one server, as it
# prints it (a "=== LABEL: version" line first).  With KID_CHROOT set,
# test/run-all.sh runs inside that chroot (PG_CONFIG is the chroot's), in a
# mount namespace of its own: the repository (the current directory; and
# its git directory, for a worktree) bind-mounted at the same path, /proc
# for pgrep and /dev, and KID_VENDOR read-only at the same path (18.6's
# regression suites for test/server/12-catalog_sanity.sh); the mounts go
# with the namespace, whatever happens.
run_all_on() {
    local label=$1 config=$2 gitdir
    shift 2
    if [ -z "${KID_CHROOT:-}" ]; then
        echo "=== $label: $("$config" --version) ($config)"
        env -u PG_BIN PG_CONFIG="$config" test/run-all.sh "$@"
        return
    fi
    echo "=== $label: $(chroot "$KID_CHROOT" "$config" --version) ($config in $KID_CHROOT, the tree $PWD)"
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
        if [ -d "$KID_VENDOR" ]; then
            mkdir -p "$root$KID_VENDOR" && mount --bind "$KID_VENDOR" "$root$KID_VENDOR" &&
                mount -o remount,bind,ro "$root$KID_VENDOR" || exit 1
        fi
        exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
            PG_CONFIG="$config" KID_VENDOR="$KID_VENDOR" ${FUZZ_SECONDS:+FUZZ_SECONDS=$FUZZ_SECONDS} KID_RUN_START=$KID_RUN_START \
            ${KID_TEST_LIMIT:+KID_TEST_LIMIT=$KID_TEST_LIMIT} \
            /bin/bash -c "cd \"\$0\" && exec test/run-all.sh \"\$@\"" "$repo" "$@"' \
        _ "$KID_CHROOT" "$PWD" "$gitdir" "$config" "$@"
}

# label_and_count LABEL: the output of one major's test/run-all.sh on stdin,
# labelled and numbered on (label_major), printed and kept in $log; then
# count_major LABEL, in this shell, adds it to the counts.
label_and_count() { label_major "$1" | tee "$log"; }
count_major() {
    local label=$1 p f
    checks=$((checks + $(grep -c -E '^(not )?ok [0-9]+ - ' "$log")))
    grep -E '^not ok [0-9]+ - ' "$log" >>"$failures"
    read -r p f < <(sed -n "s/^# $label: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" "$log" | tail -1)
    if [ -z "${p:-}" ]; then
        not_ok "$label test/run-all.sh ended without its counts"
        p=0 f=0
    fi
    passed=$((passed + p))
    failed=$((failed + f))
}

# run_major LABEL PG_CONFIG NAME...: test/run-all.sh on one server, its lines
# printed as they come.
run_major() {
    run_all_on "$@" 2>&1 | label_and_count "$1"
    count_major "$1"
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
    echo "not ok $checks - $1" | tee -a "$failures"
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

# chroot_parts SKIP NAME...: what test/run-all.sh runs on a chroot major:
# with no NAME pg_regress, every server test but the names in SKIP, and the
# sanitizer run; else the NAMEs.
chroot_parts() {
    local skip=$1
    shift
    if [ $# -gt 0 ]; then
        echo "$@"
        return
    fi
    echo regress $(ls test/server/[0-9][0-9]-*.sh | xargs -n1 basename | sed -e 's/^[0-9][0-9]-//' -e 's/\.sh$//' |
        grep -vxF "$(tr ' ' '\n' <<<"$skip")") sanitize
}

# A chroot major runs beside a major of this machine (15 beside 17, 18
# beside 19): the two share no server, no directory of PostgreSQL and no TCP
# port (the chroot's tests that listen on TCP, citus and client_jdbc, do not
# run there), and most server tests wait on the real clock rather than the
# processor.  It runs in a copy of the tree (its own build of kid; the
# chroot sees the copy at the same path), its output kept in a file and
# printed, numbered on, when the major beside it has ended.
state=$(mktemp -d /tmp/kid-majors.XXXXXX)
chmod 755 "$state"
background= # pid of the chroot major running in the background
trap 'stop_background; rm -rf "$log" "$failures" "$state"' EXIT
# stop_background: the chroot major in the background stopped (its
# test/run-all.sh stops its servers on TERM).
stop_background() {
    [ -n "$background" ] || return 0
    kill -TERM -- "-$background" 2>/dev/null
    wait "$background" 2>/dev/null
    background=
}

# find_root MAJOR: root set to the chroot of MAJOR (KID_PGnn_ROOT, else what
# test/tools/pgMAJOR.sh printed: started at the beginning of the run and
# waited for here, in this shell, whose child it is).
find_root() {
    root=$(eval echo "\${KID_PG$1_ROOT:-}")
    [ -z "$root" ] || return 0
    wait "$(cat "$state/maker$1.pid")" 2>/dev/null
    root=$(cat "$state/root$1")
}

# start_chroot_major MAJOR SKIP NAME...: test/run-all.sh on MAJOR in its
# chroot, in the background, in a copy of the tree.
start_chroot_major() {
    local major=$1 skip=$2 config=/usr/lib/postgresql/$1/bin/pg_config tree=$state/tree-pg$1
    shift 2
    find_root "$major"
    if [ ! -x "$root$config" ]; then
        echo "not ok 1 - pg$major no PostgreSQL $major (test/tools/pg$major.sh)" >"$state/pg$major.out"
        return
    fi
    mkdir -p "$tree"
    tar -c --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=.kid-built-for --exclude=node_modules \
        --exclude=./results --exclude=./test/fuzz/obj --exclude='./regression.*' . | tar -x -C "$tree"
    set -m # its own process group, for stop_background
    (cd "$tree" && KID_CHROOT=$root run_all_on "pg$major" "$config" $(chroot_parts "$skip" "$@")) >"$state/pg$major.out" 2>&1 </dev/null &
    background=$!
    set +m
    echo "(PostgreSQL $major runs beside, from $(date -u +%H:%M:%S) UTC, in $tree: its lines follow when it ends)"
}

# run_chroot_major MAJOR SKIP NAME...: the same in the foreground, in the
# tree itself, its lines printed as they come (a chroot major alone).
run_chroot_major() {
    local major=$1 skip=$2 config=/usr/lib/postgresql/$1/bin/pg_config
    shift 2
    find_root "$major"
    if [ ! -x "$root$config" ]; then
        not_ok "pg$major no PostgreSQL $major (test/tools/pg$major.sh)"
        return
    fi
    KID_CHROOT=$root run_major "pg$major" "$config" $(chroot_parts "$skip" "$@")
}

# finish_chroot_major MAJOR: its output, once it has ended.
finish_chroot_major() {
    [ -z "$background" ] || wait "$background"
    background=
    if [ "$(head -c 7 "$state/pg$1.out")" = "not ok " ]; then
        not_ok "$(sed 's/^not ok 1 - //' "$state/pg$1.out")"
        return
    fi
    label_and_count "pg$1" <"$state/pg$1.out"
    count_major "pg$1"
    rm -rf "$state/tree-pg$1"
}

# run_host_major MAJOR NAME...: test/run-all.sh on MAJOR of this machine.
run_host_major() {
    local major=$1 config
    shift
    case $major in
    15) run_major pg15 "$PG15_CONFIG" "$@" ;;
    18)
        config=$KID_PG18_CONFIG
        if [ ! -x "$config" ]; then
            not_ok "pg18 no PostgreSQL 18 (test/tools/pg18.sh)"
        elif [ $# -eq 0 ]; then
            run_major pg18 "$config" regress server sanitize
        else
            run_major pg18 "$config" "$@"
        fi
        ;;
    esac
}

host_majors=()
chroot_majors=()
for major in $KID_MAJORS; do
    case $major in
    15 | 18) host_majors+=("$major") ;;
    17 | 19) chroot_majors+=("$major") ;;
    *)
        echo "unknown major in KID_MAJORS: $major" >&2
        exit 2
        ;;
    esac
done
skip_of() { if [ "$1" = 17 ]; then echo "$PG17_SKIP"; else echo "$PG19_SKIP"; fi; }

echo "(make test starts at $(date -u +%H:%M:%S) UTC)"
# test/run-all.sh says after each server test how long this run has gone on.
export KID_RUN_START=${KID_RUN_START:-$(date +%s)}
# The chroots are made (or found in the cache) while PostgreSQL 18 builds.
for major in "${chroot_majors[@]}"; do
    if [ -z "$(eval echo "\${KID_PG${major}_ROOT:-}")" ]; then
        made "$major" "test/tools/pg$major.sh" >"$state/root$major" </dev/null &
        echo $! >"$state/maker$major.pid"
    fi
done
# PostgreSQL 18 is built (or found in the cache) before the first major: a
# cold build (about 140 s) is no test's time, nor within a test's time limit.
case " $KID_MAJORS " in
*" 18 "*)
    [ -n "${KID_PG18_CONFIG:-}" ] || KID_PG18_CONFIG=$(made 18 test/tools/pg18.sh)
    export KID_PG18_CONFIG
    ;;
esac
# Pairs: the i-th major of this machine with the i-th chroot major; a major
# without a partner runs alone.  With KID_SERIAL=1 every major runs alone,
# in the order of KID_MAJORS.
if [ "${KID_SERIAL:-0}" = 1 ]; then
    for major in $KID_MAJORS; do
        case $major in
        15 | 18) run_host_major "$major" "$@" ;;
        *) run_chroot_major "$major" "$(skip_of "$major")" "$@" ;;
        esac
        export KID_SERVERLESS_DONE=1
    done
else
    n=${#host_majors[@]}
    [ ${#chroot_majors[@]} -le "$n" ] || n=${#chroot_majors[@]}
    for ((i = 0; i < n; i++)); do
        host=${host_majors[$i]:-}
        guest=${chroot_majors[$i]:-}
        if [ -z "$host" ]; then
            run_chroot_major "$guest" "$(skip_of "$guest")" "$@"
        elif [ -z "$guest" ]; then
            run_host_major "$host" "$@"
        else
            start_chroot_major "$guest" "$(skip_of "$guest")" "$@"
            run_host_major "$host" "$@"
            finish_chroot_major "$guest"
        fi
        # What gives the same result on every major (scripts marked
        # "# kid-test: server-independent", the install-script check) ran
        # on the first major of this machine.  (A chroot's test/run-all.sh
        # does not inherit this: there they run again, debian_package
        # building that major's package.)
        export KID_SERVERLESS_DONE=1
    done
fi

echo "1..$checks"
echo
if [ -s "$failures" ]; then
    echo "# what failed (each line as above):"
    sed 's/^/# /' "$failures"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
