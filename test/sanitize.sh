#!/usr/bin/env bash
# test/sanitize.sh: the regression suite against kid built with
# AddressSanitizer and UndefinedBehaviorSanitizer (make sanitize-check).
#
# Nothing outside a temporary directory is touched: the source tree is
# copied there, PostgreSQL too (it is relocatable), kid is built with
# SANITIZE=1 and installed into that copy, and a throwaway server runs with
# the ASan runtime preloaded (PostgreSQL itself is not instrumented, so the
# runtime cannot be linked in).  Then pg_regress runs the same tests as
# make installcheck.  Fails on a failed test, on any sanitizer report, and
# on any backend that died (a crash restart of the server).
#
# What it can see: every read or write by kid's own code outside a stack
# variable, a global or a malloc'd block, and undefined behaviour in kid's
# code (signed overflow, bad shifts, misaligned or null access, ...).
# Memory from palloc lives inside PostgreSQL's own blocks, so an overrun
# that stays inside a block is invisible to ASan.
set -uo pipefail
cd "$(dirname "$0")/.."
source test/lib.sh

SRC_PG_BIN=$PG_BIN
PRIV="$KID_TMP/pg"
SRC="$KID_TMP/src"
REPORTS="$KID_TMP/sanitizer"
PORT=${SANITIZE_PORT:-54339}

fail() { echo "sanitize: $*"; exit 1; }

echo "-- private PostgreSQL and source copy in $KID_TMP"
libdir=$(cd "$SRC_PG_BIN/.." && pwd)
case "$libdir" in
*/usr/lib/postgresql/*)
    # Debian's layout: <root>/usr/lib/postgresql/15, <root>/usr/share/postgresql/15,
    # <root>/usr/include/postgresql; pg_config finds the rest relative to itself.
    ver=$(basename "$libdir")
    mkdir -p "$PRIV/usr/lib/postgresql" "$PRIV/usr/share/postgresql" "$PRIV/usr/include"
    cp -a "$libdir" "$PRIV/usr/lib/postgresql/" &&
        cp -a "$($PG_CONFIG --sharedir)" "$PRIV/usr/share/postgresql/$ver" &&
        cp -a "$($PG_CONFIG --includedir)" "$PRIV/usr/include/postgresql" ||
        fail "cannot copy PostgreSQL"
    copy_bin="$PRIV/usr/lib/postgresql/$ver/bin"
    ;;
*)
    # A source build's one prefix (test/tools/pg18.sh): bin, lib, include, share.
    mkdir -p "$PRIV" && cp -a "$libdir" "$PRIV/prefix" || fail "cannot copy PostgreSQL"
    copy_bin="$PRIV/prefix/bin"
    ;;
esac
PG_CONFIG="$copy_bin/pg_config"
PG_BIN=$($PG_CONFIG --bindir)
[ "$PG_BIN" == "$copy_bin" ] || fail "the PostgreSQL copy is not relocatable: $PG_BIN"

mkdir -p "$SRC"
tar -c --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=node_modules \
    --exclude=./test/fuzz --exclude=./results . | tar -x -C "$SRC" ||
    fail "cannot copy the source tree"

echo "-- build kid with -fsanitize=address,undefined"
make -C "$SRC" -s -j2 SANITIZE=1 PG_CONFIG="$PG_CONFIG" >"$KID_TMP/build.log" 2>&1 &&
    make -C "$SRC" -s SANITIZE=1 PG_CONFIG="$PG_CONFIG" install >>"$KID_TMP/build.log" 2>&1 ||
    { tail -30 "$KID_TMP/build.log"; fail "build failed"; }
so="$($PG_CONFIG --pkglibdir)/kid.so"
[ "$(nm -D "$so" | grep -c __asan_report)" -gt 0 ] || fail "$so is not instrumented"

# The runtime the compiler linked kid against, preloaded into every server process.
asan_rt=$(ldd "$so" | awk '/libasan/ { print $3 }')
[ -n "$asan_rt" ] && [ -f "$asan_rt" ] || fail "no ASan runtime found for $so"

# The preload list: the ASan runtime last, after every library postgres
# links except libc's own.  The runtime initialises lazily, at the first
# malloc; preloaded alone it would be initialised after the libraries'
# constructors, and libgpg-error's (a dependency via gnutls) calls malloc
# inside bindtextdomain() while holding glibc's gettext lock, which leaves
# that lock stuck: postgres -V then hangs for ever.  Listed before the
# runtime, those libraries are initialised after it.  None of them defines
# a function ASan intercepts (malloc, memcpy, ...), so the runtime's versions
# still win; hence verify_asan_link_order=0.
preload=$(ldd "$PG_BIN/postgres" | awk '$3 ~ /^\// { print $3 }' |
    grep -vE '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s)\.so' | tr '\n' ' ')
preload="$preload$asan_rt"

mkdir -p "$REPORTS"
chown postgres: "$REPORTS"
cluster_init san $PORT || fail "initdb failed"
# detect_leaks=0: PostgreSQL frees by dropping memory contexts and at exit,
# which LeakSanitizer would report as leaks.  ASan writes its reports to
# files in $REPORTS (one per process); gcc's UBSan runtime writes to stderr,
# that is the server log.  Both are checked.
san_env=(
    LD_PRELOAD="$preload"
    ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=0:abort_on_error=1:halt_on_error=1:log_path=$REPORTS/asan:print_summary=1"
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$REPORTS/ubsan"
)
as_postgres env "${san_env[@]}" "$PG_BIN/pg_ctl" -D "$KID_TMP/san/data" -l "$KID_TMP/san/server.log" \
    -w -t 120 start >/dev/null || { tail -30 "$KID_TMP/san/server.log"; cat "$REPORTS"/* 2>/dev/null; fail "server did not start"; }
head -1 "$KID_TMP/san/data/postmaster.pid" >> "$KID_PIDS"
# The library the server loaded is the instrumented one.
grep -q "$so" "/proc/$(cluster_pid san)/maps" || fail "the server did not load $so"

echo "-- pg_regress against the sanitized build"
rc=0
make -C "$SRC" -s installcheck PG_CONFIG="$PG_CONFIG" PGHOST="$KID_TMP" PGPORT=$PORT PGUSER=postgres \
    >"$KID_TMP/regress.log" 2>&1 || rc=1
# (As notes: pg_regress of 16 and later prints TAP of its own, and this
# script's output is part of test/run-all.sh's.)
grep -E '^(not )?ok |^test |tests (passed|failed)' "$KID_TMP/regress.log" | sed 's/^/# /'
[ $rc -eq 0 ] || { tail -5 "$KID_TMP/regress.log" | sed 's/^/# /'; head -100 "$SRC/regression.diffs" 2>/dev/null; }
cluster_stop san

if compgen -G "$REPORTS/*" >/dev/null; then
    echo "sanitizer reports:"
    head -60 "$REPORTS"/*
    rc=1
fi
# A backend that died makes the postmaster log its exit and reinitialise.
if grep -E 'AddressSanitizer|runtime error|terminated by signal|server process .* exited with exit code|terminating any other active server processes|reinitializing' \
    "$KID_TMP/san/server.log"; then
    echo "sanitizer report or crashed backend in the server log"
    rc=1
fi
[ $rc -eq 0 ] && echo "sanitize: pg_regress clean under ASan and UBSan ($(ls "$SRC"/test/sql/*.sql | wc -l) tests, ${SECONDS} s)"
exit $rc
