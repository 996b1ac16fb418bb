#!/usr/bin/env bash
# Install what building and testing kid needs on Debian 12, as root.
#   test/tools/install-deps.sh          everything make test needs
#   test/tools/install-deps.sh --demo   only what building kid and make demo need
#                                 (PostgreSQL 15, its server headers, make, g++)
# Idempotent and quick when everything is there: apt-get runs only for
# packages that are missing, and waits for another apt (DPkg::Lock::Timeout).
set -euo pipefail

# Building kid and running the demo: the compiler, PGXS and PostgreSQL 15.
demo_packages=(
    make g++
    postgresql-15 postgresql-server-dev-15 postgresql-client-15
)
test_packages=(
    pkg-config
    # pgrep, ps: the fault tests find a postmaster's children (a minimal
    # Debian 12, debootstrap minbase or the debian:12 image, has no procps).
    procps
    libpq-dev
    libgtest-dev
    faketime libfaketime
    # Hostile-input tests: clang and its runtimes for libFuzzer and the
    # sanitizer builds (libclang_rt.fuzzer comes with libclang-rt-14-dev, a
    # recommendation only of clang-14); gcc's ASan and UBSan runtimes come
    # with g++; valgrind for the unit tests.
    clang-14 libclang-rt-14-dev valgrind
    # make format-check: clang-format 14 (Debian 12's).
    clang-format-14
    # test/server/73-debian_package.sh: dpkg-buildpackage with pg_buildext
    # (build-essential is a build dependency of every Debian package).
    build-essential dpkg-dev debhelper fakeroot postgresql-server-dev-all
    # test/server/72-dist.sh: make dist archives the checkout with git.
    git
    # test/server/62-client_jdbc.sh: pgJDBC and a JDK to compile and run its
    # test program (big: the headless JDK is about 265 MB installed).
    libpostgresql-jdbc-java default-jdk-headless
    # test/server/63-client_pgx.sh: Go and pgx v4 with its dependencies as
    # Debian's Go library sources, built offline in GOPATH mode (about 340 MB).
    golang-go golang-github-jackc-pgx-v4-dev
    # PostgreSQL 18 built from the vendored tarball (test/tools/pg18.sh): the
    # release tarball has no generated parser files; OpenSSL for uuidv7's
    # random numbers and the TLS code, zlib for pg_dump and base backups.
    bison flex libssl-dev zlib1g-dev bzip2
    # PostgreSQL 17 and 19 (test/tools/pg17.sh, pg19.sh): Debian 13's and
    # experimental's packages in chroots that debootstrap makes.
    debootstrap
    # Citus built from the vendored tarballs (test/tools/citus-build.sh) for
    # test/server/43-citus.sh: lz4 and zstd for its columnar storage (configure
    # requires them), Kerberos's headers because Debian's PostgreSQL server
    # headers include gssapi.h.  No libcurl: Citus is built without it, so
    # that the test servers send no usage statistics.
    liblz4-dev libzstd-dev libkrb5-dev
    # test/server/60-client_python.sh: the Python client libraries, psycopg 3,
    # psycopg2, asyncpg and SQLAlchemy, as Debian packages them (for
    # Debian's /usr/bin/python3).
    python3-psycopg python3-psycopg2 python3-asyncpg python3-sqlalchemy
    # test/server/64-client_ruby_php_perl.sh: ruby-pg, PHP's pgsql, DBD::Pg.
    ruby-pg php-cli php-pgsql libdbd-pg-perl
    # test/server/65-client_orm.sh: Django and Rails' ActiveRecord.
    python3-django ruby-activerecord
    # test/server/67-cdc.sh: the wal2json logical decoding plugin.
    postgresql-15-wal2json
)
case ${1:-} in
--demo) packages=("${demo_packages[@]}") ;;
"")
    packages=("${demo_packages[@]}" "${test_packages[@]}")
    # Node.js and npm run the reference implementations of the cross-checks
    # and node-postgres (test/server/61-client_node.sh); a machine that already
    # has a node (e.g. from nodesource) keeps it.
    command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
    # npm reaches its registry over TLS: the CA certificates (a minimal image has none).
    packages+=(ca-certificates)
    ;;
*)
    echo "usage: test/tools/install-deps.sh [--demo]" >&2
    exit 2
    ;;
esac

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "missing packages: ${missing[*]}; run as root or install them" >&2
        exit 1
    fi
    echo "checked: ${packages[*]}"
    echo "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt_start=$SECONDS
    echo "apt-get update, then apt-get install of ${#missing[@]} packages: a minute or more on a fresh machine"
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    # Debian's postgresql-common creates and starts a "main" cluster with a
    # server package; kid's demo and tests make throwaway clusters instead.
    # So during this install only, a file of createcluster.conf's include_dir
    # says create_main_cluster = false; it goes afterwards, whatever happens,
    # and the configuration is as it was (a later server package makes its
    # main cluster as usual).
    dropin_dir=/etc/postgresql-common/createcluster.d
    dropin=$dropin_dir/zz-kid-install-deps.conf
    [ -d "$dropin_dir" ] || made_dir=1
    trap 'rm -f "$dropin"; [ -z "${made_dir:-}" ] || rmdir "$dropin_dir" 2>/dev/null || true' EXIT
    mkdir -p "$dropin_dir"
    echo "create_main_cluster = false   # test/tools/install-deps.sh, during its apt-get install only" >"$dropin"
    # One line per package apt-get sets up (dpkg's own lines, without the
    # download's): something moves while it works.
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" |
        sed -n 's/^Setting up \([^ ]*\) .*/  set up \1/p'
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "apt-get install failed" >&2; exit 1; }
    echo "installed ${#missing[@]} packages in $((SECONDS - apt_start)) s"
    for p in "${missing[@]}"; do
        case $p in postgresql-[0-9]*[0-9])
            echo "$p is installed without Debian's main cluster (kid's demo and tests make throwaway ones);"
            echo "to make it: pg_createcluster ${p#postgresql-} main --start" ;;
        esac
    done
fi

# The throwaway servers run as this user: PostgreSQL refuses to run as root.
id postgres >/dev/null 2>&1 || useradd --system --home /var/lib/postgresql --shell /bin/bash postgres
