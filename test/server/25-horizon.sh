#!/usr/bin/env bash
# The commit horizon, <scheme>_safe_horizon() (runs alone or from run-all.sh;
# its own cluster, with prepared transactions allowed, and a standby of it):
#  1. test/server/25-horizon_consumer.py (psycopg 3): for every scheme, a safe
#     consumer beside a naive one, in cases made to happen (an open
#     transaction under a later commit, prepared transactions whose backend
#     has gone, a terminated backend, an idle session, an abort, a rolled-back
#     subtransaction) and in a random run with writers that commit after
#     random delays, abort, prepare and get terminated; the safe one misses
#     nothing and reads nothing twice, the naive one is shown to miss.
#  2. Restarts: after a clean and an immediate (crash) restart every horizon
#     is at or above the one before; a transaction prepared before a restart
#     makes the functions refuse (55000) until it ends.
#  3. A standby refuses (55000) and says to call the primary.
#  4. test/server/25-horizon_edges.py: with every connection slot in use (and a
#     walsender's), each session's horizon is at or below the id it holds;
#     a commit that waits for a synchronous standby holds the horizon until
#     it is visible.
#  5. The horizon's clock reading is covered by the lease (sno's and
#     uuidv7's horizon lines): after a crash and after a clean stop, a start
#     with the clock an hour back: both horizons are at or above the ones
#     read before, the first ids above them, made without a wait.
#  6. After a crash whose horizon line is below sno's timeline floor, sno
#     and uuidv7 carry the horizon forward and catch up with the clock
#     without a wait.
#  7. A later step's carry is its own.
#  8. test/server/25-horizon_takeover.py: a partition taken over in the
#     second half of a carry (the clock above the horizon's reading, below
#     the carry): the new owner carries too, its first sno and uuidv7 above
#     the last owner's, sno on the same timeline, in time order with a
#     third backend's ids, no regression and no wait.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

HZ_P=54410
HZ_S=54411
PYTHON=/usr/bin/python3
HORIZONS="sno_safe_horizon() AS sno, tid_safe_horizon() AS atproto_tid, koid_safe_horizon() AS koid,
          uid_safe_horizon() AS uid, uid_global_safe_horizon() AS uid_global, uuidv7_safe_horizon() AS uuid"

cluster_init hz $HZ_P "max_prepared_transactions = 20" || exit 1
cluster_start hz || exit 1
kpsql $HZ_P -d postgres -c "CREATE EXTENSION kid" || exit 1

# 0. A new server (no kid.lease, so no floors, no horizon asked yet): a
#    transaction's first sno publishes a pending floor of 0, which stands
#    for the smallest sno.
expect_eq "a new server: sno_safe_horizon() inside the first transaction that made an sno is the smallest sno" \
    "$(kpsql $HZ_P -d postgres -c "BEGIN" -c "SELECT sno_new() IS NOT NULL" -c "SELECT sno_safe_horizon()" -c "COMMIT" | tr '\n' ' ')" \
    "t 2222222222222222 "

# 1. The consumers.
PGHOST=$KID_TMP PGPORT=$HZ_P PGUSER=postgres PGDATABASE=postgres \
    $PYTHON -B test/server/25-horizon_consumer.py 4 1 >"$KID_TMP/horizon_consumer.out" 2>&1
count_program_checks "consumers" "$KID_TMP/horizon_consumer.out" $?

# 2. Restarts.  hz_save: every horizon now, as text; hz_not_below FILE: each
# horizon now is at or above the one saved.
hz_save() { kpsql $HZ_P -d postgres -F ' ' -c "SELECT * FROM (SELECT $HORIZONS) h" >"$1"; }
hz_not_below() {
    local sno tid koid uid gid uuid
    read -r sno tid koid uid gid uuid <"$1" || return 1
    [ "$(kpsql $HZ_P -d postgres -c "SELECT sno_safe_horizon() >= '$sno'::sno AND tid_safe_horizon() >= '$tid'::atproto_tid
        AND koid_safe_horizon() >= '$koid'::koid AND uid_safe_horizon() >= '$uid'::uid
        AND uid_global_safe_horizon() >= '$gid'::uid_global AND uuidv7_safe_horizon() >= '$uuid'::uuid")" = t ]
}
kpsql $HZ_P -d postgres -c "CREATE TABLE across (id atproto_tid PRIMARY KEY DEFAULT tid_new())" \
    -c "INSERT INTO across DEFAULT VALUES"
hz_save "$KID_TMP/hz.before"
cluster_stop hz && cluster_start hz
check "a clean restart: every horizon is at or above the one before" hz_not_below "$KID_TMP/hz.before"
kpsql $HZ_P -d postgres -c "INSERT INTO across DEFAULT VALUES"
hz_save "$KID_TMP/hz.before"
cluster_stop hz immediate && cluster_start hz
check "an immediate stop (a crash): every horizon is at or above the one before" hz_not_below "$KID_TMP/hz.before"

kpsql $HZ_P -d postgres -c "BEGIN" -c "INSERT INTO across DEFAULT VALUES" -c "PREPARE TRANSACTION 'across_restart'"
cluster_stop hz && cluster_start hz
refusal=$(kpsql $HZ_P -d postgres -c '\set VERBOSITY verbose' -c "SELECT tid_safe_horizon()" 2>&1)
expect_eq "a transaction prepared before the restart: tid_safe_horizon() refuses with 55000, naming it" \
    "$(grep -c '^ERROR:  55000: tid_safe_horizon() cannot be computed while transaction [0-9]*, prepared before the server started, is open$' <<<"$refusal")" 1
expect_eq "... and sno_safe_horizon() too, whose generator it may not have used" \
    "$(kpsql $HZ_P -d postgres -c '\set VERBOSITY sqlstate' -c "SELECT sno_safe_horizon()" 2>&1)" "ERROR:  55000"
kpsql $HZ_P -d postgres -c "COMMIT PREPARED 'across_restart'"
expect_eq "after COMMIT PREPARED the horizon is above the prepared transaction's id" \
    "$(kpsql $HZ_P -d postgres -c "SELECT tid_safe_horizon() > max(id) FROM across")" t
# Again, with every entry of kid's prepared table used by transactions
# prepared (and ended) since the start before the first horizon is asked:
# the one prepared before is entered all the same (an ended one's entry).
kpsql $HZ_P -d postgres -c "BEGIN" -c "INSERT INTO across DEFAULT VALUES" -c "PREPARE TRANSACTION 'across_restart_2'"
cluster_stop hz && cluster_start hz
# max_prepared_transactions + MaxBackends entries (horizon_prepared_capacity()), and some more.
entries=$(kpsql $HZ_P -d postgres -c "SELECT sum(current_setting(name, true)::int) + 8 FROM unnest(ARRAY['max_prepared_transactions',
    'max_connections', 'autovacuum_max_workers', 'autovacuum_worker_slots', 'max_worker_processes', 'max_wal_senders']) AS name")
for i in $(seq 1 "$entries"); do
    echo "BEGIN; INSERT INTO across DEFAULT VALUES; PREPARE TRANSACTION 'cycle_$i'; COMMIT PREPARED 'cycle_$i';"
done | kpsql $HZ_P -d postgres -q >/dev/null
expect_eq "... with every entry of kid's prepared table used since the start ($entries prepared and committed): tid_safe_horizon() refuses with 55000 all the same" \
    "$(kpsql $HZ_P -d postgres -c '\set VERBOSITY sqlstate' -c "SELECT tid_safe_horizon()" 2>&1)" "ERROR:  55000"
kpsql $HZ_P -d postgres -c "COMMIT PREPARED 'across_restart_2'"
expect_eq "... and after its COMMIT PREPARED the horizon is above its id" \
    "$(kpsql $HZ_P -d postgres -c "SELECT tid_safe_horizon() > max(id) FROM across")" t

# 3. A standby.
standby_init hz_standby $HZ_P $HZ_S && cluster_start hz_standby
standby_refusal=$(kpsql $HZ_S -d postgres -c '\set VERBOSITY verbose' -c "SELECT koid_safe_horizon()" 2>&1)
expect_eq "a standby: the horizon functions refuse with 55000 and name the primary" \
    "$(grep -c -e '^ERROR:  55000: koid_safe_horizon() cannot be computed on a standby$' \
        -e '^HINT:  Call it on the primary; read a standby only once it has replayed' <<<"$standby_refusal")" 2
cluster_stop hz_standby

# 4. Every backend slot; a commit not yet visible.
PGHOST=$KID_TMP PGPORT=$HZ_P PGUSER=postgres PGDATABASE=postgres \
    $PYTHON -B test/server/25-horizon_edges.py >"$KID_TMP/horizon_edges.out" 2>&1
count_program_checks "horizon edges" "$KID_TMP/horizon_edges.out" $?
cluster_stop hz

# 5. A restart, then the clock an hour back: sno's and uuidv7's horizons are
#    clock readings, which their horizon lease lines carry across.  After
#    it, both horizons are at or above the ones read before, the first sno
#    and uuidv7 are above them, and neither waits for the clock (sno would
#    otherwise find its timelines' floors above it).  Twice: a clean stop
#    on a server whose last ids came before the horizons it read (the exact
#    marks of a clean stop are its newest ids), and a crash.
HZ_L=54412
cluster_init hzlease $HZ_L || exit 1
faketime_cluster_start hzlease || exit 1
kpsql $HZ_L -d postgres -c "CREATE EXTENSION kid"
hzl() { kpsql $HZ_L -d postgres "$@"; }
# hz_after_restart WHAT: with the clock an hour behind the horizons read before.
hz_after_restart() {
    expect_eq "$1, then a start with the clock 1 h back: the clock is behind the horizons read before" \
        "$(hzl -c "SELECT clock_timestamp() < sno_to_timestamp('$hz_sno') - interval '50 minutes'")" t
    expect_eq "$1: sno's and uuidv7's horizons are at or above the ones read before" \
        "$(hzl -c "SELECT sno_safe_horizon() >= '$hz_sno' AND uuidv7_safe_horizon() >= '$hz_uuid'")" t
    expect_eq "$1: the first sno and uuidv7 ids are above those horizons, made at once (statement_timeout 2 s)" \
        "$(hzl -c "SET statement_timeout = '2s'" -c "SELECT sno_new() >= '$hz_sno' AND uuidv7_new() >= '$hz_uuid'" 2>&1)" t
}
# The clean stop first, on a server without floors, whose last ids are
# 0.1 s older than its horizons.
hzl -c "SELECT count(sno_new()) + count(uuidv7_new()) FROM generate_series(1, 100)" >/dev/null
read -r hz_sno hz_uuid < <(hzl -F ' ' -c "SELECT sno_safe_horizon(), uuidv7_safe_horizon() FROM pg_sleep(0.1)")
cluster_stop hzlease
faketime_set "$FT_FILE" -3600
faketime_cluster_start hzlease || exit 1
hz_after_restart "a clean stop"
faketime_set "$FT_FILE" +0
hzl -c "SELECT count(sno_new()) + count(uuidv7_new()) FROM generate_series(1, 100)" >/dev/null
read -r hz_sno hz_uuid < <(hzl -F ' ' -c "SELECT sno_safe_horizon(), uuidv7_safe_horizon()")
check "a crash (the postmaster killed by SIGKILL)" crash_postmaster hzlease
faketime_set "$FT_FILE" -3600
faketime_cluster_start hzlease || exit 1
hz_after_restart "a crash"

# Both of sno's timelines above the horizon line at a stop: ids made 3 s
# after the last horizon reading (one timeline), then, the clock stepped
# back 300 s, 2 s of ids carried up from that reading at half pace, below
# them (the other timeline).  Started again with the clock still back, sno
# goes on at once above both (the horizon starts at the lower timeline's
# floor), not once the carry from the horizon's floor reached it (5 s).
cluster_stop hzlease
faketime_set "$FT_FILE" +0
HZ_T=54414
cluster_init hztwo $HZ_T || exit 1
faketime_cluster_start hztwo || exit 1
hzt() { kpsql $HZ_T -d postgres "$@"; }
hzt -c "CREATE EXTENSION kid" >/dev/null
hz_two=$(hzt <<SQL 2>&1
SELECT 'read ' || sno_safe_horizon();
SELECT pg_sleep(3);
SELECT 'first timeline ' || sno_tick(sno_new());
\! echo -300 > $FT_FILE.new && chmod 644 $FT_FILE.new && mv -f $FT_FILE.new $FT_FILE
DO \$\$ DECLARE started timestamptz := clock_timestamp(); BEGIN
    LOOP PERFORM sno_new(); PERFORM pg_sleep(0.001); EXIT WHEN clock_timestamp() > started + interval '2 s'; END LOOP; END \$\$;
SELECT 'last ' || s || ' on timeline ' || sno_tick(s) FROM sno_new() s;
SQL
)
read -r hz_sno < <(sed -n 's/^read //p' <<<"$hz_two")
read -r hz_last < <(sed -n 's/^last \([^ ]*\) .*/\1/p' <<<"$hz_two")
expect_eq "both of sno's timelines used after the last horizon reading, on both sides of a 300 s step back" \
    "$(grep -c -e '^first timeline [01]$' -e '^last [^ ]* on timeline [01]$' <<<"$hz_two") $(grep -o 'timeline [01]$' <<<"$hz_two" | sort -u | wc -l)" "2 2"
cluster_stop hztwo && faketime_cluster_start hztwo || exit 1
expect_eq "... after a clean stop and a start with the clock still back: the first sno is above the last one and the horizon read before, made at once (statement_timeout 1 s)" \
    "$(hzt -c "SET statement_timeout = '1s'" -c "SELECT s > '$hz_last' AND s > '$hz_sno' FROM sno_new() s" 2>&1)" t
expect_eq "... and sno_safe_horizon() is at or above the one read before" \
    "$(hzt -c "SELECT sno_safe_horizon() >= '$hz_sno'")" t
faketime_set "$FT_FILE" +0
cluster_stop hztwo

# hz_step_back LABEL: with the clock stepped back 1 s under a horizon just
# read, sno and uuidv7 carry that reading forward at half pace (their ids
# move on, not held at it), at most the step ahead of the clock, and are
# back at it after twice the step, without a wait.  Each carry is its own
# step's: not half a restart's gap ahead, for good (the carry of a later
# reading paired with the floor generation began with), nor held at the
# reading (a carry no reading starts).
hz_step_back() {
    hzc -c "SELECT sno_safe_horizon(), uuidv7_safe_horizon()" >/dev/null
    faketime_set "$FT_FILE" -1
    hz_step=$(hzc <<SQL 2>&1
CREATE TEMP TABLE waits AS SELECT scheme, overflow_waits + clock_waits + ahead_waits AS w FROM kid_generator_stats();
DO \$\$
DECLARE
    s sno;
    u uuid;
    started timestamptz := clock_timestamp();
    most interval := interval '0';
    first_ahead timestamptz;
    last_ahead timestamptz;
BEGIN
    LOOP
        s := sno_new();
        u := uuidv7_new();
        most := greatest(most, sno_to_timestamp(s) - clock_timestamp(), uuidv7_to_timestamp(u) - clock_timestamp());
        IF sno_to_timestamp(s) > clock_timestamp() THEN
            first_ahead := coalesce(first_ahead, sno_to_timestamp(s));
            last_ahead := sno_to_timestamp(s);
        END IF;
        EXIT WHEN (sno_to_timestamp(s) <= clock_timestamp() AND uuidv7_to_timestamp(u) <= clock_timestamp()
                   AND clock_timestamp() > started + interval '0.1 s')
               OR clock_timestamp() > started + interval '10 s';
        PERFORM pg_sleep(0.001);
    END LOOP;
    RAISE NOTICE 'moving on, not held at the reading: %, at most 1.5 s ahead of the clock: %, back at the clock: %, within 4 s: %',
        last_ahead - first_ahead >= interval '0.25 s', most <= interval '1.5 s',
        sno_to_timestamp(s) <= clock_timestamp() AND uuidv7_to_timestamp(u) <= clock_timestamp(),
        clock_timestamp() <= started + interval '4 s';
END \$\$;
SELECT 'waits: ' || string_agg(k.scheme || ' ' || (k.overflow_waits + k.clock_waits + k.ahead_waits - w.w), ', ' ORDER BY k.scheme)
FROM kid_generator_stats() k JOIN waits w USING (scheme) WHERE k.scheme IN ('sno', 'uuid');
SQL
    )
    faketime_set "$FT_FILE" +0
    expect_eq "$1: a clock step back of 1 s under a horizon just read: sno and uuidv7 carried it forward (sno's ids ahead of the clock spanning 0.25 s or more), at most 1.5 s ahead of the clock, and were back at the clock within 4 s" \
    "$(grep -o 'moving on, not held.*' <<<"$hz_step")" "moving on, not held at the reading: t, at most 1.5 s ahead of the clock: t, back at the clock: t, within 4 s: t"
    expect_eq "$1: ... and neither waited" "$(grep '^waits: ' <<<"$hz_step")" "waits: sno 0, uuid 0"
}

# 6. After a restart the horizon starts at its line's floor, which may be
#    below the floor of sno's timeline (the horizon read a second before the
#    first sno: its line is covered 10 s ahead of the reading, tick 0's 10 s
#    ahead of the sno).  Below the horizon's floor sno and uuidv7 carry it
#    forward; when the clock catches up they go on with it without a drop,
#    and so without a wait, through the whole catch-up (ids every ms until
#    they are back at the clock).
HZ_C=54413
cluster_init hzcarry $HZ_C || exit 1
faketime_set "$FT_FILE" +0
faketime_cluster_start hzcarry || exit 1
hzc() { kpsql $HZ_C -d postgres "$@"; }
hzc -c "CREATE EXTENSION kid" >/dev/null
hz_step_back "a new server"
hzc -c "SELECT sno_safe_horizon(), uuidv7_safe_horizon()" -c "SELECT pg_sleep(1)" \
    -c "SELECT sno_new(), uuidv7_new()" >/dev/null
read -r hz_sno hz_uuid < <(hzc -F ' ' -c "SELECT sno_safe_horizon(), uuidv7_safe_horizon()")
check "a crash (the postmaster killed by SIGKILL)" crash_postmaster hzcarry
faketime_set "$FT_FILE" +0
faketime_cluster_start hzcarry >/dev/null 2>&1 || exit 1
hz_carry=$(hzc <<SQL 2>&1
CREATE TEMP TABLE waits AS SELECT scheme, overflow_waits + clock_waits + ahead_waits AS w FROM kid_generator_stats();
DO \$\$
DECLARE
    s sno;
    u uuid;
    started timestamptz := clock_timestamp();
    calls int := 0;
    below int := 0;
    ahead boolean := false;
    first_ahead timestamptz;
    last_ahead timestamptz;
BEGIN
    LOOP
        s := sno_new();
        u := uuidv7_new();
        calls := calls + 1;
        IF sno_to_timestamp(s) > clock_timestamp() THEN
            first_ahead := coalesce(first_ahead, sno_to_timestamp(s));
            last_ahead := sno_to_timestamp(s);
        END IF;
        below := below + CASE WHEN s < '$hz_sno' OR u < '$hz_uuid' THEN 1 ELSE 0 END;
        ahead := ahead OR sno_to_timestamp(s) > clock_timestamp() + interval '1 s';
        EXIT WHEN (ahead AND sno_to_timestamp(s) <= clock_timestamp() AND uuidv7_to_timestamp(u) <= clock_timestamp())
               OR clock_timestamp() > started + interval '60 s';
        PERFORM pg_sleep(0.001);
    END LOOP;
    RAISE NOTICE 'carried ahead of the clock: %, moving on (ids ahead spanning 1 s or more): %, back at the clock: %, ids below the horizons read before: %',
        ahead, last_ahead - first_ahead >= interval '1 s', sno_to_timestamp(s) <= clock_timestamp(), below;
END \$\$;
SELECT 'waits: ' || string_agg(k.scheme || ' ' || (k.overflow_waits + k.clock_waits + k.ahead_waits - w.w), ', ' ORDER BY k.scheme)
FROM kid_generator_stats() k JOIN waits w USING (scheme) WHERE k.scheme IN ('sno', 'uuid');
SQL
)
expect_eq "after the crash, sno and uuidv7 carried the horizon's floor forward ahead of the clock (moving on, not held at it), then were back at the clock, none below the horizons read before" \
    "$(grep -o 'carried ahead of the clock: .*' <<<"$hz_carry")" "carried ahead of the clock: t, moving on (ids ahead spanning 1 s or more): t, back at the clock: t, ids below the horizons read before: 0"
expect_eq "... and neither waited, through the catch-up" "$(grep '^waits: ' <<<"$hz_carry")" "waits: sno 0, uuid 0"

# 7. Back at the clock after the catch-up, a later step's carry is its own.
hz_step_back "after the catch-up"

# 8. A partition taken over while others carry, with the clock between the
#    horizon's reading and the carry (stopped there, so that the new owner
#    comes in that window whatever the machine's speed).
PGHOST=$KID_TMP PGPORT=$HZ_C PGUSER=postgres PGDATABASE=postgres \
    $PYTHON -B test/server/25-horizon_takeover.py "$FT_FILE" >"$KID_TMP/horizon_takeover.out" 2>&1
count_program_checks "takeover in a carry" "$KID_TMP/horizon_takeover.out" $?
faketime_set "$FT_FILE" +0
cluster_stop hzcarry

kid_finish
