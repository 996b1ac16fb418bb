#!/usr/bin/env bash
# Floors raised while the server runs, by kid_raise_floors() and
# kid_adopt_database() (runs alone or from run-all.sh; its own servers on
# ports 54420-54422):
# test/server/39-run_time_floors.py (psycopg 3) checks that the commit horizon
# stays at or below the ids of transactions open across the rise, in the
# same and in another database, and that sessions of every database that
# generated before the rise make their next ids above the new floors.
# Then, on a fresh server, the floors kid_raise_floors() raises are durable
# before it returns (kid.lease and the WAL): raised an hour past the clock,
# with no id made since (an id would renew the lease by itself), they bound
# the first ids of the server itself after its postmaster is killed by
# SIGKILL, and of a streaming standby promoted after it replayed the rise.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

RF_P=54420
cluster_init rf $RF_P "kid.koid_max_clock_wait_ms = 0" || exit 1
cluster_start rf || exit 1
PGHOST=$KID_TMP PGPORT=$RF_P PGUSER=postgres /usr/bin/python3 -B test/server/39-run_time_floors.py \
    >"$KID_TMP/run_time_floors.out" 2>&1
count_program_checks "floors raised at run time" "$KID_TMP/run_time_floors.out" $?

cluster_stop rf

# Durable, on a server of its own (the floors above are an hour ahead too):
# an id of every scheme at the true time, then a streaming standby, whose
# base backup copies a kid.lease below the new floors, so that it can
# learn them from the WAL only.  Every generator line rises to F, an hour
# past the clock, but sno's tick 1, on which sno goes on below F.
RF_P=54422
RF_S=54421
cluster_init rd $RF_P "kid.koid_max_clock_wait_ms = 0" && cluster_start rd || exit 1
rfq() { kpsql $RF_P -d postgres "$@"; }
rfq -c "CREATE EXTENSION kid" -c "SELECT tid_new(), koid_new(), uid_new(), uid_global_new(), sno_new(), uuidv7_new()" >/dev/null
standby_init rds $RF_P $RF_S && cluster_start rds || exit 1
rf_floor=$(rfq -c "SELECT date_trunc('second', clock_timestamp()) + interval '1 hour'")
rf_floor_us=$(rfq -c "SELECT (extract(epoch FROM '$rf_floor'::timestamptz) * 1000000)::bigint")
expect_eq "durable: kid_raise_floors() raises sno tick 0, atproto_tid, koid, uid and uuid to F, an hour ahead" \
    "$(rfq -c "SELECT string_agg(f.line, ',' ORDER BY f.line) FROM (SELECT array_agg(line) AS lines, array_agg('$rf_floor'::timestamptz) AS floors FROM kid_lease() WHERE line NOT LIKE '% horizon' AND line <> 'sno tick 1') x, kid_raise_floors(x.lines, x.floors) f WHERE f.floor_after = '$rf_floor'")" \
    "atproto_tid,koid,sno tick 0,uid,uuid"
# The raised lines as kid_lease() lists them, and kid.lease's atproto_tid mark.
rf_raised="line IN ('sno tick 0', 'atproto_tid', 'koid', 'uid', 'uuid')"
expect_eq "durable: before any id, the lease covers F on every raised line (kid_lease(), and kid.lease's atproto_tid mark)" \
    "$(rfq -c "SELECT count(*) FILTER (WHERE covered_until >= '$rf_floor') FROM kid_lease() WHERE $rf_raised") $(awk -v f="$rf_floor_us" '{for (i = 6; i < NF; i++) if ($i == "atproto_tid") print ($(i + 1) >= f) ? "t" : "f"}' "$KID_TMP/rd/data/kid.lease")" \
    "5 t"
check "durable: the standby replayed the primary's WAL up to the rise" wait_replayed $RF_S "$(rfq -c "SELECT pg_current_wal_lsn()")"
expect_eq "durable: the standby's replayed marks reach F (atproto_tid koid uid uuid)" \
    "$(kpsql $RF_S -d postgres -c "SELECT string_agg((replayed_until >= '$rf_floor')::text, ' ' ORDER BY scheme) FROM kid_node_info() WHERE scheme <> 'sno'")" \
    "true true true true"
# rf_first_ids WHAT PORT: the first ids of a server started since the rise,
# its clock an hour behind F: tid, uid, uid_global and uuidv7 above F; then
# (the first id sets a promoted server's floors) its floors at F or above
# on every scheme (sno's: its tick 0); koid refusing (55000;
# kid.koid_max_clock_wait_ms = 0) and sno on tick 1.  (koid and sno would
# do the same below any floor ahead of the clock, such as the 10 s of a
# lease written ahead: the floors are what tell.)
rf_first_ids() {
    local what=$1 out
    expect_eq "durable: $what: the first tid, uid, uid_global and uuidv7 ids are above F" \
        "$(kpsql "$2" -d postgres -c "SELECT (tid_to_timestamp(tid_new()) > '$rf_floor') || ' ' || (uid_to_timestamp(uid_new()) > '$rf_floor') || ' ' ||
            (uid_global_to_timestamp(uid_global_new(), current_setting('kid.uid_interval')::int) > '$rf_floor') || ' ' || (uuidv7_to_timestamp(uuidv7_new()) > '$rf_floor')")" \
        "true true true true"
    expect_eq "durable: $what: then the generators' floors are at F or above (atproto_tid koid sno uid uuid)" \
        "$(kpsql "$2" -d postgres -c "SELECT string_agg((generator_floor >= '$rf_floor')::text, ' ' ORDER BY scheme) FROM kid_node_info()")" \
        "true true true true true"
    out=$(kpsql "$2" -d postgres -v VERBOSITY=verbose -c "SELECT koid_new()" 2>&1)
    expect_eq "durable: $what: koid refuses (55000) below F, and sno goes on on tick 1" \
        "$(grep -c 'ERROR:  55000' <<<"$out") $(kpsql "$2" -d postgres -c "SELECT sno_tick(sno_new())")" "1 1"
}
check "durable: the primary is killed (SIGKILL) before any id" crash_postmaster rd
cluster_start rd 2>/dev/null # pg_ctl warns about the dead postmaster's pid file
rf_first_ids "after the crash" $RF_P
cluster_stop rd immediate
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/rds/data" -w -t 60 promote >/dev/null
rf_first_ids "the standby promoted" $RF_S
cluster_stop rds

kid_finish
