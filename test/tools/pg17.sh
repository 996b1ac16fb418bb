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
# How the chroot is made, cached and named, and the settings it reads
# (KID_PG_CACHE, KID_DEBIAN_MIRROR): test/tools/debian_chroot.sh, which
# test/tools/pg19.sh shares.  About a minute and 400 MB.
set -euo pipefail
cd "$(dirname "$0")/../.."

MAJOR=17
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
. test/tools/debian_chroot.sh
