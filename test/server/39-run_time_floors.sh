#!/usr/bin/env bash
# Floors raised while the server runs, by kid_raise_floors() and
# kid_adopt_database() (runs alone or from run-all.sh; its own cluster):
# test/server/39-run_time_floors.py (psycopg 3) checks that the commit horizon
# stays at or below the ids of transactions open across the rise, in the
# same and in another database, and that sessions of every database that
# generated before the rise make their next ids above the new floors.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

RF_P=54420
cluster_init rf $RF_P "kid.koid_max_clock_wait_ms = 0" || exit 1
cluster_start rf || exit 1
PGHOST=$KID_TMP PGPORT=$RF_P PGUSER=postgres /usr/bin/python3 -B test/server/39-run_time_floors.py \
    >"$KID_TMP/run_time_floors.out" 2>&1
count_program_checks "floors raised at run time" "$KID_TMP/run_time_floors.out" $?
cluster_stop rf

kid_finish
