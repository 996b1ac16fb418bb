# test/tools/debian_chroot.sh: sourced by test/tools/pg17.sh and
# test/tools/pg19.sh, not run alone.  A PostgreSQL major as a Debian release
# packages it, in a minbase chroot that debootstrap makes once and that is
# cached outside the repository; prints the chroot's directory on the last
# line (its pg_config is /usr/lib/postgresql/MAJOR/bin/pg_config inside).
#
# The sourcing script sets, before it sources this file:
#   MAJOR              the PostgreSQL major (17)
#   SUITE              the Debian suite debootstrap makes (trixie)
#   PACKAGES           what apt-get installs into it; NAME/SUITE takes NAME
#                      from that suite (postgresql-19/experimental)
#   EXTRA_SUITES       (optional) suites of the same mirror added to the
#                      chroot's apt sources after debootstrap (experimental,
#                      trixie), for the PACKAGES named NAME/SUITE and what
#                      only they have of their dependencies
#   IGNORE_VALID_UNTIL (optional) 1: the chroot's apt accepts Release files
#                      past their Valid-Until date (a mirror's sid can be a
#                      snapshot whose Release has expired)
# and reads:
#   KID_PG_CACHE       where the chroot is kept (default: /var/cache/kid)
#   KID_DEBIAN_MIRROR  the Debian mirror (default: the URI of apt's sources
#                      that serves this machine's own release, so a machine
#                      behind a mirror or proxy uses the same one)
#
# The chroot goes to $KID_PG_CACHE/debian-SUITE-pgMAJOR-<16 hex digits of the
# sha256 of the sourcing script and this file>.  It is made in a temporary
# directory beside it and renamed into place: an interrupted run leaves no
# half-made cache, and two runs at once serialize on a lock.  A chroot an
# earlier version of these scripts made (another package list) is used when
# there is no chroot of this one's: the PACKAGES it lacks are installed into
# it.  Needs debootstrap (test/tools/install-deps.sh) and root.

KID_PG_CACHE=${KID_PG_CACHE:-/var/cache/kid}
EXTRA_SUITES=${EXTRA_SUITES:-}
IGNORE_VALID_UNTIL=${IGNORE_VALID_UNTIL:-0}
chroot_script=$(basename "$0")

fail() { echo "$chroot_script: $*" >&2; exit 1; }

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

hash=$(cat "$0" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)
name="debian-$SUITE-pg$MAJOR"
root="$KID_PG_CACHE/$name-$hash"
pg_config_path=/usr/lib/postgresql/$MAJOR/bin/pg_config
if [ ! -x "$root$pg_config_path" ]; then
    for other in "$KID_PG_CACHE/$name"-*; do
        if [ -x "$other$pg_config_path" ]; then root=$other; break; fi
    done
fi
# missing_packages: the PACKAGES the chroot has not installed, as PACKAGES
# names them (NAME or NAME/SUITE).
missing_packages() {
    local p
    for p in $PACKAGES; do
        chroot "$root" dpkg-query -W -f='${Status}' "${p%%/*}" 2>/dev/null | grep -q "install ok installed" || echo "$p"
    done
}
# in_root ROOT COMMAND...: COMMAND in the chroot ROOT, with /proc and /dev
# mounted in a mount namespace of its own (they vanish with it, whatever
# happens).
in_root() {
    unshare --mount --propagation private /bin/bash -c '
        root=$1; shift
        mount -t proc proc "$root/proc" && mount --bind /dev "$root/dev" &&
            chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"' _ "$@"
}
# lock: the lock that serializes the runs which make or change the chroot.
lock() {
    [ "$(id -u)" = 0 ] || fail "making or changing the PostgreSQL $MAJOR chroot needs root"
    mkdir -p "$KID_PG_CACHE"
    exec 9>"$KID_PG_CACHE/.$name.lock"
    flock 9
}
# configure_apt ROOT MIRROR: the chroot's apt set up for EXTRA_SUITES and
# IGNORE_VALID_UNTIL.  apt prefers the chroot's own suite whatever the
# extra suites hold (APT::Default-Release; experimental is pinned low by
# its Release file anyway, but a stable suite's point release can hold a
# higher version than sid's), so only the PACKAGES named NAME/SUITE, and
# what only the extra suites have, come from them.
configure_apt() {
    local root=$1 mirror=$2 s
    for s in $EXTRA_SUITES; do
        echo "deb $mirror $s main" > "$root/etc/apt/sources.list.d/$s.list"
    done
    if [ -n "$EXTRA_SUITES" ]; then
        echo "APT::Default-Release \"$SUITE\";" > "$root/etc/apt/apt.conf.d/90kid-default-release"
    fi
    if [ "$IGNORE_VALID_UNTIL" = 1 ]; then
        echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/90kid-valid-until"
    fi
}

if [ ! -x "$root$pg_config_path" ]; then
    lock
fi
if [ ! -x "$root$pg_config_path" ]; then
    command -v debootstrap >/dev/null || fail "debootstrap not found (test/tools/install-deps.sh installs it)"
    mirror=${KID_DEBIAN_MIRROR:-$(apt_mirror || true)}
    [ -n "$mirror" ] || fail "no Debian mirror in /etc/apt/sources.list*: set KID_DEBIAN_MIRROR"
    start=$SECONDS
    work=$(mktemp -d "$KID_PG_CACHE/.$SUITE.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    echo "making a Debian $SUITE chroot with PostgreSQL $MAJOR in $root from $mirror (once; later runs reuse it)" >&2
    make_root() {
        debootstrap --variant=minbase "$SUITE" "$work/root" "$mirror" &&
            configure_apt "$work/root" "$mirror" &&
            # No main cluster and no service start: the tests make their own
            # throwaway clusters.
            mkdir -p "$work/root/etc/postgresql-common" &&
            echo 'create_main_cluster = false' > "$work/root/etc/postgresql-common/createcluster.conf" &&
            printf '#!/bin/sh\nexit 101\n' > "$work/root/usr/sbin/policy-rc.d" &&
            chmod 755 "$work/root/usr/sbin/policy-rc.d" &&
            { [ -z "$EXTRA_SUITES" ] || in_root "$work/root" apt-get update -q; } &&
            in_root "$work/root" apt-get install -y -q --no-install-recommends $PACKAGES &&
            chroot "$work/root" /usr/bin/apt-get clean
    }
    if ! (make_root) >"$work/make.log" 2>&1; then
        cp "$work/make.log" "$KID_PG_CACHE/$name.log"
        tail -30 "$work/make.log" >&2
        fail "failed; log in $KID_PG_CACHE/$name.log"
    fi
    mv -T "$work/root" "$root"
    echo "made the PostgreSQL $MAJOR chroot ($(chroot "$root" $pg_config_path --version)) in $((SECONDS - start)) s" >&2
fi
if [ -n "$(missing_packages)" ]; then
    lock
    missing=$(missing_packages | tr '\n' ' ')
    if [ -n "$missing" ]; then
        echo "installing into the PostgreSQL $MAJOR chroot $root: $missing" >&2
        # The chroot's apt as this version sets it up (an earlier one may
        # have had fewer EXTRA_SUITES), from the mirror the chroot was made from.
        mirror=$(awk '$1 == "deb" { print $2; exit }' "$root/etc/apt/sources.list")
        if ! { configure_apt "$root" "$mirror" &&
            in_root "$root" apt-get update -q && in_root "$root" apt-get install -y -q --no-install-recommends $missing &&
            chroot "$root" /usr/bin/apt-get clean; } >"$KID_PG_CACHE/$name.install.log" 2>&1; then
            tail -30 "$KID_PG_CACHE/$name.install.log" >&2
            fail "failed; log in $KID_PG_CACHE/$name.install.log"
        fi
    fi
fi
echo "$root"
