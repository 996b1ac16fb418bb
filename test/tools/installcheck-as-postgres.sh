#!/usr/bin/env bash
# test/tools/installcheck-as-postgres.sh PG_REGRESS ARGS...: what make installcheck
# runs as root when PGUSER is not set (the Makefile decides).  A Debian server
# lets local connections in through peer authentication: the OS user must be
# the role, root has no role, and PGUSER=postgres is refused to root.  So
# pg_regress runs as the postgres OS user, which the server lets in as the
# postgres superuser, on a copy of the tests in a directory of its own (the
# tree may not be readable by postgres, under /root for one); its results/,
# regression.diffs and regression.out come back here, and its exit status is
# pg_regress's.
set -uo pipefail
work=$(mktemp -d /tmp/kid-installcheck.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/test" && cp -R test/sql "$work/test/" && cp -R expected "$work/" &&
    chown -R postgres: "$work" && chmod 755 "$work" || exit 1
echo "make installcheck as root: pg_regress runs as the postgres user (peer authentication), on a copy of the tests in $work"
(cd "$work" && runuser -u postgres -- "$@")
rc=$?
rm -rf results regression.diffs regression.out
for f in results regression.diffs regression.out; do
    [ ! -e "$work/$f" ] || cp -R "$work/$f" .
done
[ ! -e regression.diffs ] || echo "(the differences are copied to $PWD/regression.diffs)"
exit $rc
