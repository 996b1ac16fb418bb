#!/usr/bin/env bash
# make installcheck as a user runs it on a Debian server (runs alone or from
# run-all.sh; a server of its own): kid preloaded after pg_stat_statements,
# as the README's example list has it ('pg_stat_statements,kid', which turns
# on compute_query_id, so that EXPLAIN VERBOSE prints a "Query Identifier"
# line), local connections through peer authentication as Debian's
# pg_hba.conf has them, and make run as root without PGUSER, from a copy of
# the tree that only root can read, and kid's settings left at their
# defaults (the partition worker on).  Every pg_regress test must pass.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

IC_P=54351
need "a server with shared_preload_libraries = 'pg_stat_statements,kid' and peer authentication" \
    eval 'cluster_init ic $IC_P "shared_preload_libraries = '"'"'pg_stat_statements,kid'"'"'" &&
        echo "local all all peer" >"$KID_TMP/ic/data/pg_hba.conf" &&
        sed -i "/^kid\.partition_maintenance_interval = 0\$/d" "$KID_TMP/ic/data/postgresql.conf" && cluster_start ic' || { kid_finish; exit; }
expect_eq "kid's settings as the README leaves them: the partition worker at its default" \
    "$(as_postgres "$PG_BIN/psql" -h "$KID_TMP" -p $IC_P -X -A -t -d postgres -c "SELECT setting FROM pg_settings WHERE name = 'kid.partition_maintenance_interval'")" 600

# What makes this server the one users met: EXPLAIN VERBOSE names the query,
# and root is no role it lets in.
expect_eq "pg_stat_statements preloaded: EXPLAIN VERBOSE prints a Query Identifier line" \
    "$(as_postgres "$PG_BIN/psql" -h "$KID_TMP" -p $IC_P -X -A -t -d postgres -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT 1" | grep -c '^Query Identifier: ')" 1
ic_root_refused() {
    ! env -u PGUSER "$PG_BIN/psql" -h "$KID_TMP" -p $IC_P -X -d postgres -c "SELECT 1" >/dev/null 2>&1 &&
        ! PGUSER=postgres "$PG_BIN/psql" -h "$KID_TMP" -p $IC_P -X -d postgres -c "SELECT 1" >/dev/null 2>&1
}
check "peer authentication: root connects neither as root nor as postgres" ic_root_refused

# A copy of the tree where a root user keeps it: readable by root only.
ic_tree=$KID_TMP/root-only/kid
mkdir -p "$ic_tree" && chmod 700 "$KID_TMP/root-only"
tar -cf - --exclude=.git --exclude=results --exclude='regression.*' . | tar -xf - -C "$ic_tree"
ic_tests=$(ls test/sql/*.sql | wc -l)
(cd "$ic_tree" && env -u PGUSER make -s installcheck PG_CONFIG="$PG_CONFIG" PGHOST="$KID_TMP" PGPORT=$IC_P) >"$KID_TMP/installcheck.out" 2>&1
ic_rc=$?
# (As notes: pg_regress of 16 and later prints TAP of its own.)
note "$(grep -v -e '^ok ' -e '^test ' -e '^ *[a-z_0-9]* *\.\.\. ok' "$KID_TMP/installcheck.out" | head -40)"
expect_eq "make installcheck as root (peer authentication, pg_stat_statements preloaded): every pg_regress test passes" \
    "$ic_rc, $(grep -c -E '^(# )? *All [0-9]+ tests passed\.' "$KID_TMP/installcheck.out"), $(grep -o -E 'All [0-9]+ tests passed' "$KID_TMP/installcheck.out")" \
    "0, 1, All $ic_tests tests passed"
expect_eq "... and says it ran pg_regress as the postgres user; its results are back in the tree" \
    "$(grep -c '^make installcheck as root: pg_regress runs as the postgres user' "$KID_TMP/installcheck.out"), $(ls "$ic_tree/results"/*.out 2>/dev/null | wc -l)" \
    "1, $ic_tests"

cluster_stop ic
kid_finish
