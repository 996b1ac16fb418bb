#!/usr/bin/env bash
# test/tools/pg17.sh: PostgreSQL 17 for the tests, as Debian 13 (trixie) packages
# it, in a chroot made once and cached outside the repository; prints the
# chroot's directory on the last line (its pg_config is
# /usr/lib/postgresql/17/bin/pg_config inside).
#
# Debian 12 has no PostgreSQL 17 and its source is not vendored, but trixie's
# binary packages are on the Debian mirror this machine's apt already uses:
# debootstrap makes a minbase trixie and apt-get installs into it what the
# parts test/run-majors.sh runs on 17 need (PACKAGES below).
#
#   KID_PG_CACHE       where the chroot is kept (default: /var/cache/kid)
#   KID_DEBIAN_MIRROR  the Debian mirror (default: the URI of apt's sources
#                      that serves this machine's own release, so a machine
#                      behind a mirror or proxy uses the same one)
#
# The chroot goes to $KID_PG_CACHE/debian-trixie-pg17-<16 hex digits of the
# sha256 of this script>.  It is made in a temporary directory beside it and
# renamed into place: an interrupted run leaves no half-made cache, and two
# runs at once serialize on a lock.  A chroot an earlier version of this
# script made (another package list) is used when there is no chroot of
# this one's: the PACKAGES it lacks are installed into it.  Needs debootstrap (test/tools/install-deps.sh) and root.  About a
# minute and 400 MB.
set -euo pipefail
cd "$(dirname "$0")/../.."

SUITE=trixie
# postgresql-17 (server, pgbench, pg_walinspect), its client (psql, pg_dump,
# pg_regress is in server-dev), what kid is built with, and what the server
# tests that run on 17 use: procps (pgrep), libfaketime (clock_faults,
# promotion), perl (the install script, random_literals), python3 and both
# psycopgs, asyncpg and SQLAlchemy (client_python), ruby-pg, PHP pgsql and
# DBD::Pg (client_ruby_php_perl), Django and ActiveRecord (client_orm),
# wal2json (cdc), git (upgrade.sh reads 0.1.0's files from history),
# what building the Debian package postgresql-17-kid needs
# (debian_package: dpkg-buildpackage with pg_buildext), and pg_partman 5.2
# (pg_partman).
PACKAGES="postgresql-17 postgresql-server-dev-17 postgresql-client-17 make g++ procps
libfaketime perl python3 python3-psycopg python3-psycopg2 python3-asyncpg python3-sqlalchemy
ruby-pg php-cli php-pgsql libdbd-pg-perl git ca-certificates
build-essential dpkg-dev debhelper fakeroot postgresql-server-dev-all
python3-django ruby-activerecord postgresql-17-wal2json postgresql-17-partman"
KID_PG_CACHE=${KID_PG_CACHE:-/var/cache/kid}

fail() { echo "pg17.sh: $*" >&2; exit 1; }

# apt_mirror: the URI of the apt source that serves this machine's release
# (one-line sources.list and deb822 .sources files alike).
apt_mirror() {
    local codename
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$codename" ] || return 1
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk -v want="$codename" '
            # one-line format: deb [options] URI SUITE COMPONENTS
            /^deb[ \t]/ { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                          if ($(i + 1) == want) { print $i; exit } next }
            # deb822: a stanza of Key: value lines, stanzas apart by blank lines
            /^[ \t]*$/ { if (uri != "" && suites ~ (" " want " ")) { print uri; exit } uri = ""; suites = ""; next }
            tolower($1) == "uris:" { uri = $2 }
            tolower($1) == "suites:" { suites = " "; for (j = 2; j <= NF; j++) suites = suites $j " " }
            END { if (uri != "" && suites ~ (" " want " ")) print uri }' | head -1
}

hash=$(sha256sum "$0" | cut -c1-16)
root="$KID_PG_CACHE/debian-$SUITE-pg17-$hash"
PG17_CONFIG=/usr/lib/postgresql/17/bin/pg_config
if [ ! -x "$root$PG17_CONFIG" ]; then
    for other in "$KID_PG_CACHE"/debian-$SUITE-pg17-*; do
        if [ -x "$other$PG17_CONFIG" ]; then root=$other; break; fi
    done
fi
# missing_packages: the PACKAGES the chroot has not installed.
missing_packages() {
    local p
    for p in $PACKAGES; do
        chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
    done
}
# in_root COMMAND...: COMMAND in the chroot, with /proc and /dev mounted in a
# mount namespace of its own (they vanish with it, whatever happens).
in_root() {
    unshare --mount --propagation private /bin/bash -c '
        root=$1; shift
        mount -t proc proc "$root/proc" && mount --bind /dev "$root/dev" &&
            chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"' _ "$@"
}

if [ ! -x "$root$PG17_CONFIG" ]; then
    [ "$(id -u)" = 0 ] || fail "making the PostgreSQL 17 chroot needs root"
    mkdir -p "$KID_PG_CACHE"
    exec 9>"$KID_PG_CACHE/.debian-$SUITE-pg17.lock"
    flock 9
fi
if [ ! -x "$root$PG17_CONFIG" ]; then
    command -v debootstrap >/dev/null || fail "debootstrap not found (test/tools/install-deps.sh installs it)"
    mirror=${KID_DEBIAN_MIRROR:-$(apt_mirror || true)}
    [ -n "$mirror" ] || fail "no Debian mirror in /etc/apt/sources.list*: set KID_DEBIAN_MIRROR"
    start=$SECONDS
    work=$(mktemp -d "$KID_PG_CACHE/.$SUITE.XXXXXX")
    # The installs run in a mount namespace of their own: /proc and /dev
    # mounted inside the chroot vanish with it, whatever happens.
    trap 'rm -rf "$work"' EXIT
    echo "making a Debian $SUITE chroot with PostgreSQL 17 in $root from $mirror (once; later runs reuse it)" >&2
    make_root() {
        debootstrap --variant=minbase "$SUITE" "$work/root" "$mirror" &&
            # No main cluster and no service start: the tests make their own
            # throwaway clusters.
            mkdir -p "$work/root/etc/postgresql-common" &&
            echo 'create_main_cluster = false' > "$work/root/etc/postgresql-common/createcluster.conf" &&
            printf '#!/bin/sh\nexit 101\n' > "$work/root/usr/sbin/policy-rc.d" &&
            chmod 755 "$work/root/usr/sbin/policy-rc.d" &&
            in_root "$work/root" apt-get install -y -q --no-install-recommends $PACKAGES &&
            chroot "$work/root" /usr/bin/apt-get clean
    }
    if ! (make_root) >"$work/make.log" 2>&1; then
        cp "$work/make.log" "$KID_PG_CACHE/debian-$SUITE-pg17.log"
        tail -30 "$work/make.log" >&2
        fail "failed; log in $KID_PG_CACHE/debian-$SUITE-pg17.log"
    fi
    mv -T "$work/root" "$root"
    echo "made the PostgreSQL 17 chroot ($(chroot "$root" $PG17_CONFIG --version)) in $((SECONDS - start)) s" >&2
fi
if [ -n "$(missing_packages)" ]; then
    [ "$(id -u)" = 0 ] || fail "installing into the PostgreSQL 17 chroot needs root"
    exec 9>"$KID_PG_CACHE/.debian-$SUITE-pg17.lock"
    flock 9
    missing=$(missing_packages | tr '\n' ' ')
    if [ -n "$missing" ]; then
        echo "installing into the PostgreSQL 17 chroot $root: $missing" >&2
        if ! { in_root "$root" apt-get update -q && in_root "$root" apt-get install -y -q --no-install-recommends $missing &&
            chroot "$root" /usr/bin/apt-get clean; } >"$KID_PG_CACHE/debian-$SUITE-pg17.install.log" 2>&1; then
            tail -30 "$KID_PG_CACHE/debian-$SUITE-pg17.install.log" >&2
            fail "failed; log in $KID_PG_CACHE/debian-$SUITE-pg17.install.log"
        fi
    fi
fi
echo "$root"
