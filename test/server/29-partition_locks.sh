#!/usr/bin/env bash
# The locks of kid_partition_maintain() beside other transactions (runs
# alone or from run-all.sh; its own cluster on port 54387):
# test/server/29-partition_locks.py (psycopg 3) makes, each step waiting for
# a named lock in pg_locks, a run whose plan needs a stronger lock once it
# has its first, beside a reader that holds the table; runs on a table tied
# by foreign keys beside transactions that write the tied tables and the
# table in either order, with two tied tables, and in a call for every
# table; and a tied table the caller may not lock.  It checks that the
# other transactions commit, that the run ends (failing only where
# docs/partitioning.md says it may, never looping), leaves lock_timeout as
# it was, and makes and retires the partitions it should.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

PL_PORT=54387
cluster_init pl $PL_PORT || exit 1
cluster_start pl || exit 1
kpsql $PL_PORT -d postgres -c "CREATE EXTENSION kid" || exit 1
PGHOST=$KID_TMP PGPORT=$PL_PORT PGUSER=postgres PGDATABASE=postgres /usr/bin/python3 -B test/server/29-partition_locks.py \
    >"$KID_TMP/partition_locks.out" 2>&1
count_program_checks "partition locks" "$KID_TMP/partition_locks.out" $?
cluster_stop pl

kid_finish
