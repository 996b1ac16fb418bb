#!/usr/bin/env bash
# test/tools/pg18.sh: PostgreSQL 18.6, built once from the vendored release tarball
# and cached outside the repository; prints its pg_config on the last line.
#
#   KID_VENDOR    the vendored sources (default: ../shared/vendor beside the
#                 repository): postgresql-18.6.tar.bz2 and SHA256SUMS
#   KID_PG_CACHE  where built PostgreSQLs are kept (default: /var/cache/kid)
#
# The tarball's sha256 is checked against SHA256SUMS; the build goes to
# $KID_PG_CACHE/postgresql-18.6-<first 16 hex digits of the sha256>, so a
# changed tarball is a new directory.  A later run finds that directory and
# builds nothing.  The build (configure --with-openssl, make -j2, plus the
# contrib modules of CONTRIB) is installed with DESTDIR into a temporary
# directory beside it and renamed into place: an interrupted build leaves no
# half-built cache, and two runs at once serialize on a lock.  A cache made
# before a module joined CONTRIB gets it built with PGXS from the same
# tarball and installed into it.  Needs bison, flex, libssl-dev and zlib1g-dev
# (test/tools/install-deps.sh).  About 140 s on an idle 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION=18.6
TARBALL=postgresql-$VERSION.tar.bz2
KID_VENDOR=${KID_VENDOR:-$(realpath -m ../shared/vendor)}
KID_PG_CACHE=${KID_PG_CACHE:-/var/cache/kid}

fail() { echo "pg18.sh: $*" >&2; exit 1; }

[ -f "$KID_VENDOR/$TARBALL" ] || fail "$KID_VENDOR/$TARBALL not found (set KID_VENDOR)"
expected=$(awk -v f="$TARBALL" '$2 == f || $2 == "*" f { print $1 }' "$KID_VENDOR/SHA256SUMS")
[ -n "$expected" ] || fail "$TARBALL is not listed in $KID_VENDOR/SHA256SUMS"
prefix="$KID_PG_CACHE/postgresql-$VERSION-${expected:0:16}"
# The contrib modules the tests use: pg_walinspect (test/server/40-promotion.sh),
# pg_stat_statements (15-installcheck.sh), test_decoding (the CDC test).
CONTRIB="pg_walinspect pg_stat_statements test_decoding"
# missing_contrib: the modules of CONTRIB the cache does not have.
missing_contrib() {
    local m
    for m in $CONTRIB; do [ -f "$prefix/lib/$m.so" ] || echo "$m"; done
}

if [ ! -x "$prefix/bin/pg_config" ] || [ -n "$(missing_contrib)" ]; then
    mkdir -p "$KID_PG_CACHE"
    exec 9>"$KID_PG_CACHE/.postgresql-$VERSION.lock"
    flock 9
fi
if [ ! -x "$prefix/bin/pg_config" ]; then
    actual=$(sha256sum "$KID_VENDOR/$TARBALL" | cut -d' ' -f1)
    [ "$actual" = "$expected" ] || fail "$TARBALL: sha256 $actual, SHA256SUMS says $expected"
    for tool in bison flex; do
        command -v $tool >/dev/null || fail "$tool not found (test/tools/install-deps.sh installs it)"
    done
    # Called from make test, the environment says MAKELEVEL=1: PostgreSQL's
    # top-level make would then take itself for a sub-make and skip
    # generating its headers (utils/errcodes.h …), and a fresh build fails.
    unset MAKELEVEL MAKEFLAGS MFLAGS
    start=$SECONDS
    work=$(mktemp -d "$KID_PG_CACHE/.build.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    echo "building PostgreSQL $VERSION into $prefix (once; later runs reuse it)" >&2
    build() {
        tar -xjf "$KID_VENDOR/$TARBALL" -C "$work" &&
            cd "$work/postgresql-$VERSION" &&
            ./configure --prefix="$prefix" --with-openssl --without-icu --without-readline &&
            make -j2 &&
            make install DESTDIR="$work/root" &&
            for m in $CONTRIB; do
                make -C "contrib/$m" && make -C "contrib/$m" install DESTDIR="$work/root" || return 1
            done
    }
    if ! (build) >"$work/build.log" 2>&1; then
        cp "$work/build.log" "$KID_PG_CACHE/postgresql-$VERSION.build.log"
        tail -30 "$work/build.log" >&2
        fail "build failed; log in $KID_PG_CACHE/postgresql-$VERSION.build.log"
    fi
    # The servers run as the postgres user: everything readable by all.
    chmod -R a+rX "$work/root$prefix"
    mv -T "$work/root$prefix" "$prefix"
    echo "built PostgreSQL $VERSION in $((SECONDS - start)) s" >&2
fi
if [ -n "$(missing_contrib)" ]; then
    # A cache built before: the missing modules, with PGXS, into it.
    unset MAKELEVEL MAKEFLAGS MFLAGS
    work=$(mktemp -d "$KID_PG_CACHE/.build.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    missing=$(missing_contrib | tr '\n' ' ')
    echo "adding contrib modules to $prefix: $missing" >&2
    add_contrib() {
        local m
        tar -xjf "$KID_VENDOR/$TARBALL" -C "$work" "postgresql-$VERSION/contrib" || return 1
        for m in $missing; do
            make -C "$work/postgresql-$VERSION/contrib/$m" USE_PGXS=1 PG_CONFIG="$prefix/bin/pg_config" &&
                make -C "$work/postgresql-$VERSION/contrib/$m" USE_PGXS=1 PG_CONFIG="$prefix/bin/pg_config" install ||
                return 1
        done
        chmod -R a+rX "$prefix"
    }
    if ! (add_contrib) >"$work/contrib.log" 2>&1; then
        cp "$work/contrib.log" "$KID_PG_CACHE/postgresql-$VERSION.contrib.log"
        tail -30 "$work/contrib.log" >&2
        fail "building $missing failed; log in $KID_PG_CACHE/postgresql-$VERSION.contrib.log"
    fi
fi
echo "$prefix/bin/pg_config"
