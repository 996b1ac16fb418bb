#!/usr/bin/env bash
# Restarts (runs alone or from run-all.sh; its own cluster on port 54385).
#
# Generates, then restarts the server three ways (clean stop, immediate
# stop, and kill -9 of a backend, which makes the postmaster reinitialise
# shared memory), generating after each; zero duplicates overall, and the
# lease file in the data directory carries the high-water mark across (the
# exact marks after the clean stop, the lease written ahead after the other
# two: clean_restart.sh checks which is which).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

RS_PORT=54385
cluster_init restart $RS_PORT || exit 1
cluster_start restart || exit 1
kpsql $RS_PORT -d postgres <<'SQL'
CREATE EXTENSION kid;
CREATE TABLE restart_sno (id sno PRIMARY KEY DEFAULT sno_new(), round int);
INSERT INTO restart_sno (round) SELECT 0 FROM generate_series(1, 5000);
SQL

rs_log_count() { grep -c "$1" "$KID_TMP/restart/server.log"; }
# restart_round ROUND HOW: the restart, and its proof, a line the server
# logs once more after it: the start found a shutdown checkpoint (clean),
# ran crash recovery (immediate), the postmaster reinitialised (a backend
# killed by SIGKILL, which holds a partition: crash restart).
restart_round() {
    local round=$1 how=$2 proof proved before
    case $how in
    clean) proof='database system was shut down at' proved="the restart was clean (the start found a shutdown checkpoint)" ;;
    immediate) proof='database system was not properly shut down' proved="the immediate stop was a crash (the start ran crash recovery)" ;;
    kill-backend) proof='all server processes terminated; reinitializing' proved="the postmaster crash-restarted (server log)" ;;
    esac
    before=$(rs_log_count "$proof")
    case $how in
    clean | immediate)
        cluster_stop restart "${how/clean/fast}"
        cluster_start restart
        ;;
    kill-backend)
        check "round $round: a backend killed by SIGKILL" \
            crash_backend $RS_PORT "$KID_TMP/restart/server.log" "SELECT sno_new()"
        ;;
    esac
    expect_eq "round $round: $proved" "$(rs_log_count "$proof")" $((before + 1))
    kpsql $RS_PORT -d postgres -c "INSERT INTO restart_sno (round) SELECT $round FROM generate_series(1, 5000)"
}

restart_round 1 clean
restart_round 2 immediate
restart_round 3 kill-backend
expect_eq "sno: no duplicate across clean, immediate and crash restarts" \
    "$(kpsql $RS_PORT -d postgres -c 'SELECT count(DISTINCT id) FROM restart_sno')" 20000
expect_eq "sno: later rounds sort after earlier rounds" \
    "$(kpsql $RS_PORT -d postgres -c 'SELECT count(*) FROM restart_sno a JOIN (SELECT round, min(id) AS lo FROM restart_sno GROUP BY round) b ON b.round = a.round + 1 WHERE a.id >= b.lo')" 0
expect_eq "sno: lease file written in the data directory" \
    "$(test -s "$KID_TMP/restart/data/kid.lease" && echo yes)" yes
expect_eq "sno: after restart the generator floor comes from the lease" \
    "$(kpsql $RS_PORT -d postgres -c "SELECT startup_floor IS NOT NULL FROM kid_lease() WHERE line = 'sno tick 0'")" t
expect_eq "crash recovery replays the server's own lease records (kid_node_info)" \
    "$(kpsql $RS_PORT -d postgres -c "SELECT bool_and(replayed_records > 0 AND replayed_node_id = node_id AND covered_until >= replayed_until) FROM kid_node_info()")" t
cluster_stop restart

kid_finish
