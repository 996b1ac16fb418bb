#!/usr/bin/env bash
# test/tools/pg19.sh: PostgreSQL 19 for the tests, as Debian packages it in
# experimental (19~rc1 when this was written), in a Debian sid chroot made
# once and cached outside the repository; prints the chroot's directory on
# the last line (its pg_config is /usr/lib/postgresql/19/bin/pg_config
# inside).
#
# No Debian release ships 19 yet and its source is not vendored; experimental
# is on the Debian mirror this machine's apt already uses, and its packages
# are built against sid: debootstrap makes a minbase sid and apt-get installs
# into it what the parts test/run-majors.sh runs on 19 need (PACKAGES below).
# Each package of 19 is named NAME/experimental: `-t experimental` would take
# every package experimental has (a perl that conflicts with sid's among
# them).  The mirror's sid may be a snapshot whose Release file is past its
# Valid-Until date, so the chroot's apt does not check that date.
#
# Beside 19 the chroot holds the majors test/server/37-pg_upgrade.sh
# upgrades from on 19 (18 -> 19, 17 -> 19, 15 -> 19), each with its
# server-dev package (the test builds kid for it): sid's postgresql-18,
# trixie's postgresql-17 and bookworm's postgresql-15, the two older ones
# named NAME/trixie and NAME/bookworm from those suites of the same mirror.
# The chroot's apt prefers sid (APT::Default-Release, debian_chroot.sh), so
# apt resolves them against sid's libraries and takes from trixie and
# bookworm only what sid lacks (for bookworm's 15 libicu72, libldap-2.5-0
# and LLVM 14).  About 1.0 GB more, most of it the clang and LLVM their
# server-dev packages depend on, which kid's build does not use (the
# Makefile turns the bitcode off).  docs/testing.md says what to do should
# sid one day refuse them.
#
# How the chroot is made, cached and named, and the settings it reads
# (KID_PG_CACHE, KID_DEBIAN_MIRROR): test/tools/debian_chroot.sh, which
# test/tools/pg17.sh shares.
set -euo pipefail
cd "$(dirname "$0")/../.."

MAJOR=19
SUITE=sid
EXTRA_SUITES="experimental trixie bookworm"
IGNORE_VALID_UNTIL=1
# postgresql-19 (server, pgbench, pg_walinspect), its client (psql, pg_dump;
# pg_regress is in server-dev) and libpq of experimental (19's client tools
# need its newer libpq5), what kid is built with, and what the server tests
# that run on 19 use: as test/tools/pg17.sh's list, less the extensions
# no suite has built for 19 yet; and the old majors pg_upgrade starts from
# (above).
PACKAGES="postgresql-19/experimental postgresql-server-dev-19/experimental postgresql-client-19/experimental
libpq-dev/experimental libpq5/experimental make g++ procps
postgresql-18 postgresql-server-dev-18 postgresql-17/trixie postgresql-server-dev-17/trixie
postgresql-15/bookworm postgresql-server-dev-15/bookworm
libfaketime perl python3 python3-psycopg python3-psycopg2 python3-asyncpg python3-sqlalchemy
ruby-pg php-cli php-pgsql libdbd-pg-perl git ca-certificates
build-essential dpkg-dev debhelper fakeroot postgresql-server-dev-all
python3-django ruby-activerecord"
. test/tools/debian_chroot.sh
