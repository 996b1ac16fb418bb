#!/usr/bin/env bash
# A build is for one PostgreSQL major and is never installed into another
# (runs alone or from run-all.sh; starts its own servers).
#
# PGXS tracks no change of PG_CONFIG: a tree built for 15 would be linked and
# installed as it is by "make install PG_CONFIG=<18>", and the server would not
# start (undefined symbol).  The Makefile's .kid-built-for makes every object
# depend on the PostgreSQL it was built for.  In a copy of the source tree,
# kid is built for PG_CONFIG's PostgreSQL, then installed (DESTDIR, nothing
# outside $KID_TMP is touched) for the other major, then for PG_CONFIG's again;
# each install must preload in a server of its own major.
#
#   KID_PG15_CONFIG, KID_PG18_CONFIG   the other major's pg_config (default:
#                                      Debian's 15; for 18, test/tools/pg18.sh's)
#
# On the first major it builds for 15, then 18, then 15 again: both ways
# between two majors.  On 18 it would build 18, 15, 18, the same moves in
# another order, so it runs on the first major only:
# kid-test: server-independent
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

major() { "$1" --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/'; }
this_config=$PG_CONFIG
this_major=$(major "$this_config")
if [ "$this_major" = 18 ]; then
    other_config=${KID_PG15_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
else
    other_config=${KID_PG18_CONFIG:-$(test/tools/pg18.sh | tail -1)}
fi
if [ ! -x "$other_config" ]; then
    check "a PostgreSQL of another major than $this_major ($other_config)" false
    kid_finish
    exit
fi
other_major=$(major "$other_config")
echo "-- PostgreSQL $this_major ($this_config) and $other_major ($other_config)"

SRC=$KID_TMP/src
mkdir -p "$SRC"
tar -c --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=.kid-built-for \
    --exclude=node_modules --exclude=./test/fuzz --exclude=./results . | tar -x -C "$SRC" ||
    { check "copy of the source tree" false; kid_finish; exit; }

# built CONFIG: make in the copy for CONFIG's PostgreSQL.
built() { make -C "$SRC" -s -j2 PG_CONFIG="$1" >>"$KID_TMP/build.log" 2>&1; }
# installed CONFIG DIR: make install for CONFIG's PostgreSQL into DESTDIR=DIR.
installed() { make -C "$SRC" -s install PG_CONFIG="$1" DESTDIR="$2" >>"$KID_TMP/build.log" 2>&1; }

# starts_with_kid NAME PORT CONFIG DIR: a server of CONFIG's PostgreSQL preloads
# the kid.so installed under DIR and generates with it.
starts_with_kid() {
    local name=$1 port=$2 config=$3 dir=$4 so
    so=$dir$("$config" --pkglibdir)/kid.so
    [ -f "$so" ] || { echo "no $so"; return 1; }
    local PG_BIN
    PG_BIN=$("$config" --bindir)
    cluster_init "$name" "$port" "shared_preload_libraries = '$so'" || return 1
    cluster_start "$name" || return 1
    local got
    got=$(kpsql "$port" -d postgres -c "SELECT current_setting('server_version_num')::int / 10000, current_setting('kid.node_id')")
    cluster_stop "$name"
    [ "$got" = "$(major "$config")|0" ] || { echo "got: $got"; return 1; }
}

check "kid builds for PostgreSQL $this_major" built "$this_config"
so_before=$(stat -c %Y "$SRC/kid.so" 2>/dev/null)
sleep 1
built "$this_config"
expect_eq "make again for the same PostgreSQL rebuilds nothing" "$(stat -c %Y "$SRC/kid.so" 2>/dev/null)" "$so_before"

check "make install PG_CONFIG=<$other_major> after a build for $this_major installs" \
    installed "$other_config" "$KID_TMP/inst$other_major"
check "... a kid.so that PostgreSQL $other_major preloads" \
    starts_with_kid other 54400 "$other_config" "$KID_TMP/inst$other_major"
check "make install PG_CONFIG=<$this_major> after that installs" \
    installed "$this_config" "$KID_TMP/inst$this_major"
check "... a kid.so that PostgreSQL $this_major preloads" \
    starts_with_kid this 54401 "$this_config" "$KID_TMP/inst$this_major"
check "make says it rebuilds for the other PostgreSQL" \
    grep -q "^kid was built for PostgreSQL $this_major.*; rebuilding for PostgreSQL $other_major" "$KID_TMP/build.log"
[ "$KID_FAILED" -eq 0 ] || tail -20 "$KID_TMP/build.log"

kid_finish
