#!/usr/bin/env bash
# test/tools/pg_source.sh PG_CONFIG: the source tarball of the PostgreSQL
# that PG_CONFIG belongs to, for the server tests that run PostgreSQL's own
# regression files against kid (test/server/12-catalog_sanity.sh,
# test/server/12-uuid_core.sh); prints its path on the last line.
#
#   - A PostgreSQL that a Debian package installed (19 in the chroot of
#     test/tools/pg19.sh): the upstream tarball of Debian's source package
#     of that very version (postgresql-19_19~rc1.orig.tar.bz2 for 19~rc1-1).
#     Its .dsc comes first, from the first Debian mirror of apt's sources
#     that has it (or KID_DEBIAN_MIRROR), then the tarball the .dsc names,
#     from the same mirror; the tarball's sha256 must be the one the .dsc
#     gives.  Both are kept in $KID_PG_CACHE/debian-source (default
#     /var/cache/kid, as the other tools), downloaded once, the tarball
#     checked again at every use.  The .dsc itself is only as trustworthy as
#     the mirror (its signature is a Debian developer's, whose keyring is not
#     installed): the check catches a broken or truncated download, and a
#     tarball that is not the .dsc's.
#   - Any other (18, built by test/tools/pg18.sh): the vendored release
#     tarball of its version, $KID_VENDOR/postgresql-VERSION.tar.bz2
#     (default ../shared/vendor), whose sha256 must be SHA256SUMS's there.
#
# test/tools/pg_source.sh --vendored: the vendored PostgreSQL release
# tarball, whatever the server (the newest SHA256SUMS lists, checked the
# same way), for test/server/12-catalog_sanity.sh on a major whose own
# source is not to be had.  test/run-majors.sh shows KID_VENDOR to a
# chroot major, read-only, at the same path.
#
# The download is apt's own (apt-helper download-file): it goes through
# apt's proxy settings, as the chroot's packages do, and needs no curl or
# wget, which a minbase chroot lacks.
#
# Exit status: 0, the path printed; 2, no tarball to be had (the mirror
# lacks the source package, nothing vendored): the reason on stderr, for the
# caller to skip; 1, a tarball whose checksum is not the expected one, or
# another failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

[ $# -eq 1 ] || { echo "usage: $0 PG_CONFIG | --vendored" >&2; exit 1; }
PG_CONFIG=$1
KID_PG_CACHE=${KID_PG_CACHE:-/var/cache/kid}
KID_VENDOR=${KID_VENDOR:-$(realpath -m ../shared/vendor)}
me=$(basename "$0")

fail() { echo "$me: $*" >&2; exit 1; }
none() { echo "$me: $*" >&2; exit 2; }


# check_sha256 FILE SHA256: FILE's sha256 is SHA256, else 1 with a
# message.
check_sha256() {
    local actual
    actual=$(sha256sum "$1" | cut -d' ' -f1)
    [ "$actual" = "$2" ] || { echo "$me: $1: sha256 $actual, expected $2" >&2; return 1; }
}

# vendored NAME WHY: $KID_VENDOR/NAME printed, its sha256 SHA256SUMS's, and
# exit 0; exit 2 (WHY) when it is not there.
vendored() {
    local tarball=$KID_VENDOR/$1 expected
    [ -f "$tarball" ] || none "no $tarball${2:+ $2}"
    expected=$(awk -v f="$1" '$2 == f || $2 == "*" f { print $1 }' "$KID_VENDOR/SHA256SUMS" 2>/dev/null)
    [ -n "$expected" ] || fail "$1 is not in $KID_VENDOR/SHA256SUMS"
    check_sha256 "$tarball" "$expected" || exit 1
    echo "$tarball"
    exit 0
}

if [ "$PG_CONFIG" = --vendored ]; then
    newest=$(awk '{ sub(/^\*/, "", $2) } $2 ~ /^postgresql-[0-9.]+\.tar\.bz2$/ { print $2 }' "$KID_VENDOR/SHA256SUMS" 2>/dev/null |
        sort -V | tail -1)
    [ -n "$newest" ] || none "no PostgreSQL release tarball in $KID_VENDOR/SHA256SUMS"
    vendored "$newest" ""
fi

bindir=$("$PG_CONFIG" --bindir) || fail "$PG_CONFIG --bindir failed"

# The package that installed the server (its postgres binary), else the
# one that installed pg_config: none for a server built from source.
package=$(dpkg -S "$bindir/postgres" 2>/dev/null || dpkg -S "$PG_CONFIG" 2>/dev/null)
package=${package%%[:,]*}

if [ -z "$package" ]; then
    version=$("$PG_CONFIG" --version | sed -n 's/^PostgreSQL \([^ ]*\).*/\1/p')
    vendored "postgresql-$version.tar.bz2" "(PostgreSQL $version was not installed by a Debian package, and its source is not vendored)"
fi

# Debian's source package: name and version (an epoch is in no file name).
read -r src_pkg source_version < <(dpkg-query -W -f='${source:Package} ${source:Version}\n' "$package") ||
    fail "dpkg-query found no source package for $package"
file_version=${source_version#*:}
case $src_pkg in lib*) pool_dir=${src_pkg:0:4}/$src_pkg ;; *) pool_dir=${src_pkg:0:1}/$src_pkg ;; esac
dsc_name=${src_pkg}_$file_version.dsc
dir=$KID_PG_CACHE/debian-source
dsc=$dir/$dsc_name

# mirrors: KID_DEBIAN_MIRROR, else every URI of apt's sources (one-line
# .list files and deb822 .sources files), in their order, once each.
mirrors() {
    if [ -n "${KID_DEBIAN_MIRROR:-}" ]; then
        echo "$KID_DEBIAN_MIRROR"
        return
    fi
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '/^deb[ \t]/ { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } print $i }
             tolower($1) == "uris:" { for (j = 2; j <= NF; j++) print $j }' | awk '!seen[$0]++'
}

# fetch URL FILE: URL downloaded to FILE (through FILE.part: an interrupted
# download leaves no FILE); apt-helper's words in $dir/download.log.
fetch() {
    rm -f "$2.part"
    /usr/lib/apt/apt-helper download-file "$1" "$2.part" >"$dir/download.log" 2>&1 && mv -f "$2.part" "$2"
}

mkdir -p "$dir" || fail "cannot make $dir"
# Two runs at once download once: the second waits, then finds the files.
exec 9>"$dir/.lock" && flock 9 || fail "cannot lock $dir/.lock"

if [ ! -f "$dsc" ]; then
    tried=""
    for m in $(mirrors); do
        if fetch "${m%/}/pool/main/$pool_dir/$dsc_name" "$dsc"; then
            echo "${m%/}" >"$dsc.mirror"
            break
        fi
        tried="$tried
  ${m%/}/pool/main/$pool_dir/$dsc_name: $(grep -m1 '^E:' "$dir/download.log" || tail -1 "$dir/download.log")"
    done
    [ -f "$dsc" ] || none "no mirror of apt's sources has the source package $src_pkg $source_version:$tried"
fi

# The upstream tarball the .dsc names, with its sha256 (Checksums-Sha256:
# lines " SHA256 SIZE NAME").
read -r orig_sha256 orig_name < <(awk '/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 }
    on && $3 ~ /\.orig\.tar\.[a-z0-9]+$/ { print $1, $3; exit }' "$dsc")
[ -n "${orig_name:-}" ] || fail "$dsc names no .orig.tar.* in its Checksums-Sha256"
orig=$dir/$orig_name
if [ -f "$orig" ]; then
    # A kept tarball changed since: an error, not a download (remove it).
    check_sha256 "$orig" "$orig_sha256" || exit 1
else
    m=$(cat "$dsc.mirror")
    echo "$me: downloading $orig_name from $m (once; later runs reuse it)" >&2
    fetch "$m/pool/main/$pool_dir/$orig_name" "$orig" ||
        none "$m/pool/main/$pool_dir/$orig_name: $(grep -m1 '^E:' "$dir/download.log" || tail -1 "$dir/download.log")"
    # Not the .dsc's tarball: not kept, the next run downloads again.
    check_sha256 "$orig" "$orig_sha256" || { rm -f "$orig"; exit 1; }
fi
echo "$orig"
