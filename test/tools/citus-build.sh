#!/usr/bin/env bash
# test/tools/citus-build.sh PG_CONFIG: Citus for the PostgreSQL of PG_CONFIG, built
# once from the vendored tarball, cached outside the repository, and
# installed into that PostgreSQL's tree; prints the cache directory on the
# last line.
#
#   KID_VENDOR    the vendored sources (default: ../shared/vendor beside the
#                 repository): citus-*.tar.gz and SHA256SUMS
#   KID_PG_CACHE  where builds are kept (default: /var/cache/kid)
#
# Which Citus: 13.2.2 on PostgreSQL 15 (it supports 15 to 17), 14.0.1 on 18
# (16 to 18).  The tarball's sha256 is checked against SHA256SUMS.  The cache
# key is the tarball (first 16 hex digits of its sha256) and the PostgreSQL it
# was compiled against (its version and installation directories: a
# PostgreSQL copied elsewhere is another tree to install into, and the staged
# files carry its absolute paths), so the build goes to
# $KID_PG_CACHE/citus-VERSION-<sha>-pg<key>/root, a DESTDIR install.
# Installing copies that staged tree over /: the test servers load Citus from
# the PostgreSQL they run from (Debian's /usr/lib/postgresql/15 in make test,
# test/tools/pg18.sh's tree on 18), so building is not enough.  A later run builds
# nothing and copies only when the installed citus.so differs.
#
# with_llvm=no: no LLVM bitcode for JIT inlining (it would compile every
# file a second time, with clang, for nothing the tests use).
# configure --without-libcurl: with libcurl Citus sends anonymous usage
# statistics to citusdata.com from every server; tests must not reach the
# network.  lz4 and zstd (columnar compression) are required by configure.
# Needs liblz4-dev and libzstd-dev, and libkrb5-dev for Debian's PostgreSQL
# server headers (test/tools/install-deps.sh).  About 65 s for
# 13.2.2 and 35 s for 14.0.1 on an idle 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() { echo "citus-build.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || fail "usage: test/tools/citus-build.sh PG_CONFIG"
pg_config=$(command -v "$1") || fail "$1 not found"
[ -x "$pg_config" ] || fail "$1 is not an executable pg_config"
KID_VENDOR=${KID_VENDOR:-$(realpath -m ../shared/vendor)}
KID_PG_CACHE=${KID_PG_CACHE:-/var/cache/kid}

pg_version=$("$pg_config" --version)                  # "PostgreSQL 15.20 (Debian ...)"
major=$(echo "$pg_version" | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
case $major in
15) VERSION=13.2.2 ;;
18) VERSION=14.0.1 ;;
*) fail "no vendored Citus for PostgreSQL $major (15 and 18 are supported here)" ;;
esac
TARBALL=citus-$VERSION.tar.gz
[ -f "$KID_VENDOR/$TARBALL" ] || fail "$KID_VENDOR/$TARBALL not found (set KID_VENDOR)"
expected=$(awk -v f="$TARBALL" '$2 == f || $2 == "*" f { print $1 }' "$KID_VENDOR/SHA256SUMS")
[ -n "$expected" ] || fail "$TARBALL is not listed in $KID_VENDOR/SHA256SUMS"
pg_key=$(printf '%s\n' "$pg_version" "$("$pg_config" --bindir)" "$("$pg_config" --pkglibdir)" \
    "$("$pg_config" --sharedir)" "$("$pg_config" --includedir-server)" | sha256sum | cut -c1-12)
cache="$KID_PG_CACHE/citus-$VERSION-${expected:0:16}-pg$major-$pg_key"

if [ ! -f "$cache/root$("$pg_config" --pkglibdir)/citus.so" ]; then
    mkdir -p "$KID_PG_CACHE"
    exec 9>"$KID_PG_CACHE/.citus-$VERSION-pg$major-$pg_key.lock"
    flock 9
fi
if [ ! -f "$cache/root$("$pg_config" --pkglibdir)/citus.so" ]; then
    actual=$(sha256sum "$KID_VENDOR/$TARBALL" | cut -d' ' -f1)
    [ "$actual" = "$expected" ] || fail "$TARBALL: sha256 $actual, SHA256SUMS says $expected"
    # Called from make test, MAKELEVEL=1 would make Citus's make take itself
    # for a sub-make (as for PostgreSQL in test/tools/pg18.sh).
    unset MAKELEVEL MAKEFLAGS MFLAGS
    start=$SECONDS
    work=$(mktemp -d "$KID_PG_CACHE/.citus-build.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    echo "building Citus $VERSION for $pg_version into $cache (once; later runs reuse it)" >&2
    tar -xzf "$KID_VENDOR/$TARBALL" -C "$work"
    src="$work/citus-$VERSION"
    # Citus 13.2.2 defines, for PostgreSQL 15, its own static inline
    # have_createdb_privilege(); PostgreSQL 15.20 (Debian's) exports a
    # function of that name from commands/dbcommands.h, and the two
    # declarations clash ("static declaration follows non-static
    # declaration").  Renaming Citus's copy is the whole fix: the caller then
    # uses it on 15, and the PostgreSQL 16+ macro maps the new name to
    # PostgreSQL's function.  Sources that no longer have the copy are left
    # as they are.
    compat="$src/src/include/pg_version_compat.h"
    if grep -q '^have_createdb_privilege(void)' "$compat"; then
        sed -i -e 's/^have_createdb_privilege(void)/citus_have_createdb_privilege(void)/' \
            -e 's/^#define have_createdb_privilege() have_createdb_privilege()/#define citus_have_createdb_privilege() have_createdb_privilege()/' \
            "$compat"
        sed -i 's/!have_createdb_privilege()/!citus_have_createdb_privilege()/' \
            "$src/src/backend/distributed/commands/serialize_distributed_ddls.c"
    fi
    build() {
        cd "$src" &&
            ./configure PG_CONFIG="$pg_config" --without-libcurl &&
            make -j2 with_llvm=no &&
            make install with_llvm=no DESTDIR="$work/root"
    }
    if ! (build) >"$work/build.log" 2>&1; then
        cp "$work/build.log" "$KID_PG_CACHE/citus-$VERSION-pg$major.build.log"
        tail -30 "$work/build.log" >&2
        fail "build failed; log in $KID_PG_CACHE/citus-$VERSION-pg$major.build.log"
    fi
    chmod -R a+rX "$work/root"
    mkdir -p "$work/cache"
    mv -T "$work/root" "$work/cache/root"
    mv -T "$work/cache" "$cache"
    echo "built Citus $VERSION in $((SECONDS - start)) s" >&2
fi

# Install: the staged files over the PostgreSQL tree, unless already there.
installed="$("$pg_config" --pkglibdir)/citus.so"
if ! cmp -s "$cache/root$installed" "$installed"; then
    # --no-overwrite-dir: directories that exist (/usr …) keep their owner and mode.
    tar -C "$cache/root" -cf - . | tar -C / -xf - --no-overwrite-dir
    echo "installed Citus $VERSION into $("$pg_config" --pkglibdir)" >&2
fi
echo "$cache"
