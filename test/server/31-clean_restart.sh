#!/usr/bin/env bash
# Clean restarts against crashes (runs alone or from run-all.sh; its own cluster).
#
# A clean shutdown (pg_ctl stop -m fast) writes the generators' exact
# high-water marks into kid.lease, so right after the restart:
#   - koid_new() succeeds at once, with kid.koid_max_clock_wait_ms = 0 (any
#     wait for the clock fails);
#   - tid, uid and uid_global ids carry the clock's time, not the lease's
#     (up to 10 s ahead);
#   - sno stays on tick 0 (its clock-regression timeline stays unused);
#   - the startup floors are exactly the last ids made before the stop, and
#     the first id after the start writes a lease ahead (file and WAL record)
#     before it is handed out.
# A crash keeps the lease written ahead: an immediate shutdown (no shutdown
# checkpoint), a backend killed by SIGKILL (crash restart) and a postmaster
# killed by SIGKILL each start above the lease mark covered before.  A clean
# file followed by a crash before any id keeps its exact marks (nothing was
# handed out above them), and a clean stop right after a crash restart keeps
# the floor the crash left.  Every round sorts above the rounds before it;
# every id goes into a primary key (zero duplicates).  A standby restarted
# cleanly after a restartpoint past the primary's lease messages (so that
# it replays none of them again) keeps its replayed marks, from kid.lease
# alone, and its pending promotion margin: promoted with its clock an hour
# behind the old primary's ids, it makes none below them.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

CR_P=54380
cluster_init cr $CR_P "kid.koid_max_clock_wait_ms = 0"
cluster_start cr
crq() { kpsql $CR_P -d postgres "$@"; }
# One table per id type kid_id_types lists (cr_sno, cr_atproto_tid, ...,
# cr_uuid), and cr_newest(type): the time of its table's newest id.
crq -c "CREATE EXTENSION kid" -c "
CREATE FUNCTION cr_newest(t kid_id_types) RETURNS timestamptz LANGUAGE plpgsql AS \$\$
DECLARE newest timestamptz;
BEGIN
    EXECUTE format('SELECT max(%I(id)) FROM %I', t.to_timestamp, 'cr_' || t.type::text) INTO newest;
    RETURN newest;
END \$\$;"
crq -c "SELECT format('CREATE TABLE %I (id %s PRIMARY KEY, round int, made_at timestamptz);', 'cr_' || t.type::text, t.type)
        FROM kid_id_types t" | crq
cr_tables=$(crq -c "SELECT string_agg('cr_' || t.type::text, ' ' ORDER BY t.type::oid) FROM kid_id_types t")

CR_N=1000
cr_gen() { # round [koid]: koid first, as the first id after a start-up; every other generator even if it fails
    local round=$1 with_koid=${2:-} ok=0
    if [ -n "$with_koid" ]; then
        crq -c "INSERT INTO cr_koid SELECT koid_new(), $round, clock_timestamp() FROM generate_series(1, $CR_N)" || ok=1
    fi
    crq -c "SELECT format('INSERT INTO %I SELECT %I(), $round, clock_timestamp() FROM generate_series(1, $CR_N);', 'cr_' || t.type::text, g.fn)
            FROM kid_id_types t, unnest(t.generators) AS g(fn) WHERE t.type <> 'koid'::regtype" | crq || ok=1
    return $ok
}
# The lease file's format version and exact flag.
cr_lease_file() { awk '{print $3, $5}' "$KID_TMP/cr/data/kid.lease"; }
# Per scheme: scheme=<Unix microseconds of column>.
cr_marks() {
    crq -c "SELECT string_agg(scheme || '=' || coalesce((extract(epoch FROM $1) * 1000000)::bigint, 0), ' ' ORDER BY scheme) FROM kid_node_info()"
}
cr_log_count() { grep -c "$1" "$KID_TMP/cr/server.log"; }

check "clean restart: round 0 (every scheme)" cr_gen 0 koid
# The exact marks a clean shutdown must write: per scheme (kid_node_info()'s,
# which names sno's two lines "sno"), the time of the newest id of its
# types (the start of its time unit); uid and uid_global share a line.
cr_expect=$(crq -c "SELECT string_agg(x.scheme || '=' || x.us, ' ' ORDER BY x.scheme) FROM (
    SELECT regexp_replace(t.lease_lines[1], ' tick [01]$', '') AS scheme, (extract(epoch FROM max(cr_newest(t))) * 1000000)::bigint AS us
    FROM kid_id_types t GROUP BY 1) x")
cluster_stop cr fast
expect_eq "clean restart: a clean stop writes kid.lease with the exact flag (version 5, exact = 1)" \
    "$(cr_lease_file)" "5 1"
expect_eq "clean restart: the postmaster logs the exact marks" "$(cr_log_count 'kid: wrote the exact high-water marks')" 1
cluster_start cr
expect_eq "clean restart: the startup floors are exactly the times of the newest ids made before the stop" \
    "$(cr_marks startup_floor)" "$cr_expect"
expect_eq "clean restart: kid_node_info says the floors are exact and no lease was written since the start" \
    "$(crq -c "SELECT string_agg(DISTINCT startup_mark, ',') || ' ' || max(lease_writes) || ' ' || bool_and(covered_until IS NOT DISTINCT FROM startup_floor)::text FROM kid_node_info()")" \
    "exact 0 true"
check "clean restart: koid_new() succeeds at once with kid.koid_max_clock_wait_ms = 0, then every scheme" \
    cr_gen 1 koid
expect_eq "clean restart: koid never waited for the clock" \
    "$(crq -c "SELECT regressions || ' ' || clock_waits FROM kid_generator_stats() WHERE scheme = 'koid'")" "0 0"
expect_eq "clean restart: tid, uid and uid_global ids are at most 1 s ahead of clock_timestamp()" \
    "$(crq -c "SELECT (SELECT max(tid_to_timestamp(id) - made_at) FROM cr_atproto_tid WHERE round = 1) < interval '1 second'
                  AND (SELECT max(uid_to_timestamp(id) - made_at) FROM cr_uid WHERE round = 1) < interval '1 second'
                  AND (SELECT max(uid_global_to_timestamp(id, current_setting('kid.uid_interval')::int) - made_at) FROM cr_uid_global WHERE round = 1) < interval '1 second'")" t
expect_eq "clean restart: sno stays on tick 0 (no timeline switch)" \
    "$(crq -c "SELECT (SELECT count(*) FROM cr_sno WHERE round = 1 AND sno_tick(id) <> 0) || ' ' || regressions FROM kid_generator_stats() WHERE scheme = 'sno'")" "0 0"
expect_eq "clean restart: the first ids after the start wrote a lease ahead (file and WAL) before being handed out" \
    "$(crq -c "SELECT bool_and(lease_writes > 0 AND lease_records > 0 AND covered_until > last_made + interval '5 seconds') FROM kid_node_info()") $(cr_lease_file)" \
    "t 5 0"

# Each round sorts above every earlier one; rows per scheme = distinct ids.
cr_sorted() { # scheme table rounds
    # (The smallest by its btree order: uuid has no min() before PostgreSQL 18.)
    crq -c "SELECT count(*) FROM $1 a JOIN (SELECT round, (array_agg(id ORDER BY id))[1] AS lo FROM $1 GROUP BY round) b ON b.round > a.round WHERE a.id >= b.lo"
}
cr_all_sorted() {
    local t
    for t in $cr_tables; do
        [ "$(cr_sorted $t)" = 0 ] || { echo "  $t: a later round has an id below an earlier round's"; return 1; }
    done
}
cr_counts() { # per table of $cr_tables: its rows, then its distinct ids
    local t
    for t in $cr_tables; do
        crq -c "SELECT '$t ' || count(*) || ' ' || count(DISTINCT id) FROM $t"
    done
}
check "clean restart: round 1 sorts above round 0 in every scheme" cr_all_sorted

# The crashes: each starts above the lease mark covered before it.
cr_crash_checks() { # what covered_before
    local what=$1 covered=$2
    expect_eq "$what: the startup floors are the lease marks written ahead before it" \
        "$(cr_marks startup_floor)" "$covered"
    expect_eq "$what: kid_node_info says the floors were written ahead" \
        "$(crq -c "SELECT string_agg(DISTINCT startup_mark, ',') FROM kid_node_info()")" ahead
}
cr_covered() { cr_marks covered_until; }

# 1. Immediate shutdown: exit code 0, but no shutdown checkpoint.
cr_cov=$(cr_covered)
cr_exact_logs=$(cr_log_count 'kid: wrote the exact high-water marks')
cluster_stop cr immediate
expect_eq "immediate stop: kid.lease keeps the marks written ahead (exact = 0; logged)" \
    "$(cr_lease_file) $(cr_log_count 'keeps the marks written ahead: no shutdown checkpoint')" "5 0 1"
cluster_start cr
cr_crash_checks "immediate stop" "$cr_cov"
check "immediate stop: round 2" cr_gen 2
expect_eq "immediate stop: the first tid after it is above the lease mark" \
    "$(crq -c "SELECT min(tid_to_timestamp(id)) > (SELECT startup_floor FROM kid_node_info() WHERE scheme = 'atproto_tid') FROM cr_atproto_tid WHERE round = 2")" t

# 2. A clean stop, then a crash (postmaster SIGKILL) before any id: the
#    exact file stays, and is still right (nothing was made above it).
cluster_stop cr fast
cluster_start cr
cr_exact=$(cr_marks startup_floor)
need "postmaster killed (SIGKILL) before any id after a clean start: it and its children are gone" crash_postmaster cr
expect_eq "postmaster killed before any id after a clean start: the exact file stays" "$(cr_lease_file)" "5 1"
cluster_start cr 2>/dev/null # pg_ctl warns about the dead postmaster's pid file
expect_eq "postmaster killed before any id after a clean start: the startup floors are the same exact marks" \
    "$(cr_marks startup_floor) $(crq -c "SELECT string_agg(DISTINCT startup_mark, ',') FROM kid_node_info()")" \
    "$cr_exact exact"
check "postmaster killed before any id after a clean start: round 3" cr_gen 3

# 3. A backend killed by SIGKILL: the postmaster reinitialises shared memory
#    after shmem_exit(1), which writes nothing.
cr_exact_logs=$(cr_log_count 'kid: wrote the exact high-water marks')
# The marks are read after the backend's sno_new(), before its death: the
# lease it may have renewed is in them.
cr_note_covered() { cr_cov=$(cr_covered); }
need "crash restart: a backend killed by SIGKILL, the postmaster reinitialised, the server back up" \
    crash_backend $CR_P "$KID_TMP/cr/server.log" "SELECT sno_new()" cr_note_covered
expect_eq "crash restart: no exact marks written (shmem_exit(1))" \
    "$(cr_log_count 'kid: wrote the exact high-water marks') $(cr_lease_file)" "$cr_exact_logs 5 0"
cr_crash_checks "crash restart" "$cr_cov"
check "crash restart: round 4" cr_gen 4

# 4. The postmaster killed by SIGKILL after ids were made.
cr_cov=$(cr_covered)
need "postmaster killed (SIGKILL): it and its children are gone" crash_postmaster cr
cluster_start cr 2>/dev/null
cr_crash_checks "postmaster killed" "$cr_cov"
# 5. A clean stop right after that crash restart, before any id: the floor
#    the crash left is kept (the exact mark of a generator never undercuts
#    its floor).
cr_floor=$(cr_marks generator_floor)
cluster_stop cr fast
cluster_start cr
expect_eq "clean stop before any id after a crash: the floors the crash left stay" \
    "$(cr_marks startup_floor) $(crq -c "SELECT string_agg(DISTINCT startup_mark, ',') FROM kid_node_info()")" \
    "$cr_floor exact"
check "clean stop after a crash: round 5" cr_gen 5

check "restarts: every round sorts above the rounds before it in every scheme" cr_all_sorted
expect_eq "restarts: zero duplicates (per table: rows, distinct ids; koid made in rounds 0 and 1 only)" \
    "$(cr_counts)" "$(for t in $cr_tables; do n=$((6 * CR_N)); [ $t != cr_koid ] || n=$((2 * CR_N)); echo "$t $n $n"; done)"

# 6. A streaming standby restarted cleanly keeps what it replayed and the
#    pending promotion margin.  The primary's clock runs an hour ahead
#    while it makes round 6 (libfaketime), so the marks it replays are far
#    above the kid.lease its base backup copied.  Before the restart the
#    primary writes a checkpoint and the standby's shutdown restartpoint
#    follows it past round 6's lease messages: the restarted standby
#    replays none of them again, and knows their marks from its kid.lease
#    alone.  Promoted on the true clock (an hour behind the old primary's
#    ids), it starts above those marks plus the 10 s margin.
cluster_stop cr fast
faketime_cluster_start cr
CR_S=54381
standby_init crs $CR_P $CR_S
cluster_start crs
faketime_set "$FT_FILE" +3600
check "standby: round 6 on the primary, its clock 1 h ahead" cr_gen 6
cr_lsn=$(crq -c "SELECT pg_current_wal_lsn()")
check "standby: replayed the primary's round 6" wait_replayed $CR_S "$cr_lsn"
crsq() { kpsql $CR_S -d postgres "$@"; }
# What the standby holds of the primary's lease: the own marks of the
# kid.lease its base backup copied, raised by the records it replayed since.
cr_standby_marks() {
    crsq -c "SELECT string_agg(scheme || '=' || coalesce((extract(epoch FROM greatest(startup_floor, replayed_until)) * 1000000)::bigint, 0), ' ' ORDER BY scheme) FROM kid_node_info()"
}
cr_replayed=$(cr_standby_marks)
expect_eq "standby: its copied and replayed marks are the primary's lease marks, an hour ahead" \
    "$cr_replayed $(crsq -c "SELECT bool_and(replayed_until > clock_timestamp() + interval '50 minutes') FROM kid_node_info() WHERE scheme = 'atproto_tid'")" \
    "$(cr_covered) t"
crq -c "CHECKPOINT"
check "standby: replayed the primary's checkpoint after round 6" wait_replayed $CR_S "$(crq -c "SELECT pg_current_wal_lsn()")"
cluster_stop crs fast
expect_eq "standby: a clean stop writes exact own marks and keeps the margin pending (margin, exact)" \
    "$(awk '{print $4, $5}' "$KID_TMP/crs/data/kid.lease")" "1 1"
cr_redo=$(as_postgres "$PG_BIN/pg_controldata" -D "$KID_TMP/crs/data" | awk -F': *' '/^Latest checkpoint.s REDO location/ {print $2}')
need "standby: its shutdown restartpoint ($cr_redo) is past round 6 ($cr_lsn): the restart replays none of its lease messages" \
    test "$(crq -c "SELECT '${cr_redo:-0/0}'::pg_lsn >= '$cr_lsn'")" = t
cluster_start crs
expect_eq "standby: after the clean restart it still has the same marks (startup_mark exact), having replayed no lease message since" \
    "$(cr_standby_marks) $(crsq -c "SELECT string_agg(DISTINCT startup_mark, ',') || ' ' || max(replayed_records) FROM kid_node_info()")" \
    "$cr_replayed exact 0"
cluster_stop cr fast
cr_lsn=$(as_postgres "$PG_BIN/pg_controldata" -D "$KID_TMP/cr/data" | awk -F': *' '/^Latest checkpoint location/ {print $2}')
check "standby: received the primary's shutdown checkpoint" wait_replayed $CR_S "$cr_lsn"
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/crs/data" -w -t 60 promote >/dev/null
kpsql $CR_S -d postgres -c "INSERT INTO cr_atproto_tid SELECT tid_new(), 7, clock_timestamp() FROM generate_series(1, $CR_N);
    INSERT INTO cr_sno SELECT sno_new(), 7, clock_timestamp() FROM generate_series(1, $CR_N);
    INSERT INTO cr_uid SELECT uid_new(), 7, clock_timestamp() FROM generate_series(1, $CR_N)"
expect_eq "promoted after a clean restart: the floors are those marks plus the 10 s margin" \
    "$(crsq -c "SELECT bool_and(generator_floor = greatest(startup_floor, replayed_until) + interval '10 seconds') FROM kid_node_info()")" t
expect_eq "promoted after a clean restart, its clock 1 h behind the old primary's ids: tid and uid continue above the floor, above every earlier id" \
    "$(crsq -c "SELECT (SELECT min(tid_to_timestamp(id)) FROM cr_atproto_tid WHERE round = 7) > (SELECT generator_floor FROM kid_node_info() WHERE scheme = 'atproto_tid')
                   AND (SELECT min(id) FROM cr_atproto_tid WHERE round = 7) > (SELECT max(id) FROM cr_atproto_tid WHERE round < 7)
                   AND (SELECT min(id) FROM cr_uid WHERE round = 7) > (SELECT max(id) FROM cr_uid WHERE round < 7)")" t
expect_eq "promoted after a clean restart: zero duplicates (sno tid uid)" \
    "$(kpsql $CR_S -d postgres -c "SELECT (SELECT count(DISTINCT id) FROM cr_sno) || ' ' || (SELECT count(DISTINCT id) FROM cr_atproto_tid) || ' ' || (SELECT count(DISTINCT id) FROM cr_uid)")" \
    "$((8 * CR_N)) $((8 * CR_N)) $((8 * CR_N))"
cluster_stop crs

kid_finish
