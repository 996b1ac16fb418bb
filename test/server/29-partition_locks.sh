#!/usr/bin/env bash
# The locks of kid_partition_maintain() beside a reader (runs alone or from
# run-all.sh; its own cluster on port 54387): test/server/29-partition_locks.py
# (psycopg 3) makes a run whose plan needs a stronger lock once it has its
# first (a row older than the retention committed while it waited), with a
# reader that holds the table, and checks that neither fails (no deadlock)
# and that the row's partition is made and retired.
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
