#!/usr/bin/env bash
# kid's partition worker (src/pg/partition_worker.cpp; runs alone or from
# run-all.sh; its own cluster on port 54386).
#
# Asserts: with kid.partition_maintenance_interval = 0 the launcher runs
# but maintains nothing; turned on by a reload it maintains every table
# of every database (as the table's owner, at READ COMMITTED in a database
# whose sessions start at REPEATABLE READ), at the true time; a table that
# fails (a broken configuration, a lock held past lock_timeout) is logged
# and recorded (kid_partition_status) and neither stops the tables after it
# nor the next rounds, and the server is never restarted; the launcher comes
# back after a clean restart, a crash restart and pg_terminate_backend();
# turned off again by a reload, it maintains nothing more.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

PW_PORT=54386
LOG=$KID_TMP/pw/server.log
cluster_init pw $PW_PORT || exit 1
cluster_start pw || exit 1
q() { kpsql $PW_PORT "$@"; }
start_time=$(q -d postgres -c "SELECT pg_postmaster_start_time()")

# Databases: one with two good tables and two that fail, one with a table
# and another owner, one with kid and no table, one without kid.
q -d postgres -c "CREATE DATABASE pw1" -c "CREATE DATABASE pw2" -c "CREATE DATABASE pw_empty" -c "CREATE DATABASE pw_nokid" \
    -c "CREATE ROLE pw_owner NOLOGIN" >/dev/null
for db in pw1 pw2 pw_empty; do q -d $db -c "CREATE EXTENSION kid"; done
# Configured ten days ago: the worker, at the true time, has days to make.
q -d pw1 <<'SQL' >/dev/null
CREATE TABLE bad (id sno PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE busy (id koid PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE events (id sno PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE uuids (id uuid PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('bad', '1 day', premake => 2, at => now() - interval '10 days');
SELECT count(*) FROM kid_partition_by_time('busy', '1 day', premake => 2, retain => '5 days', at => now() - interval '10 days');
SELECT count(*) FROM kid_partition_by_time('events', '1 day', premake => 2, at => now() - interval '10 days');
SELECT count(*) FROM kid_partition_by_time('uuids', '1 hour', premake => 2, at => now() - interval '10 days');
-- bad fails at every maintenance: its time zone is not one.
UPDATE kid_partition_config SET time_zone = 'Nowhere/Bogus' WHERE parent = 'bad'::regclass;
SQL
q -d pw2 <<'SQL' >/dev/null
CREATE TABLE follows (id atproto_tid PRIMARY KEY) PARTITION BY RANGE (id);
ALTER TABLE follows OWNER TO pw_owner;
-- The worker makes partitions as the table's owner, who needs CREATE here.
GRANT CREATE ON SCHEMA public TO pw_owner;
SELECT count(*) FROM kid_partition_by_time('follows', '1 month', premake => 1, at => now() - interval '100 days');
SQL
# pw1's sessions start at REPEATABLE READ, which kid_partition_maintain()
# refuses: the worker runs it at READ COMMITTED all the same.
q -d postgres -c "ALTER DATABASE pw1 SET default_transaction_isolation = 'repeatable read'" >/dev/null
# has_today DB TABLE: whether TABLE has a partition whose period holds now.
has_today() {
    q -d "$1" -c "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                  WHERE i.inhparent = '$2'::regclass AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
                    AND c.relname = '$2_p' || (SELECT suffix FROM kid_partition_period(
                        (SELECT every FROM kid_partition_config WHERE parent = '$2'::regclass), 'UTC', now()))"
}
launcher() { q -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'kid partition launcher'"; }

# ---------------------------------------------------------------- off at 0
expect_eq "kid.partition_maintenance_interval = 0: the launcher runs" "$(launcher)" 1
check "... and says maintenance is off" grep -q 'kid partition maintenance is off' "$LOG"
sleep 3
expect_eq "... and maintains nothing (3 s on, no partition of today)" \
    "$(has_today pw1 events) $(has_today pw2 follows) $(grep -c 'kid maintained' "$LOG")" "0 0 0"

# ---------------------------------------------------------------- on
# busy is held by a reader that does not end: retiring its old partitions
# needs the whole table, so its maintenance gives up after lock_timeout.
q -d pw1 -c "BEGIN" -c "LOCK TABLE busy IN ACCESS SHARE MODE" -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
holder=$!
for _ in $(seq 100); do
    [ "$(q -d pw1 -c "SELECT count(*) FROM pg_locks WHERE relation = 'busy'::regclass AND granted")" -gt 0 ] && break
    sleep 0.1
done
offset=$(log_size "$LOG")
q -d postgres -c "ALTER SYSTEM SET kid.partition_maintenance_interval = 1" >/dev/null
check "turned on by a reload" reload_conf $PW_PORT
check "... the launcher says so" wait_for_log "$LOG" "$offset" 'kid maintains the partitions of every database every 1 s'
check "... and maintains events" \
    wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public.events in database "pw1": [0-9]+ create'
check "... and the tables of another database, as their owner" \
    wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public.follows in database "pw2": [0-9]+ create'
expect_eq "... at the true time: today's partition is there" "$(has_today pw1 events) $(has_today pw1 uuids) $(has_today pw2 follows)" "1 1 1"
expect_eq "... made by the table's owner" \
    "$(q -d pw2 -c "SELECT string_agg(DISTINCT c.relowner::regrole::text, ' ') FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'follows'::regclass")" \
    "pw_owner"
check "a failing table is logged (WARNING, with the error)" \
    wait_for_log "$LOG" "$offset" 'WARNING:  kid could not maintain the partitions of public.bad in database "pw1"'
check "... and a table whose lock is held past lock_timeout" \
    wait_for_log "$LOG" "$offset" 'WARNING:  kid could not maintain the partitions of public.busy in database "pw1"'
# failures_of TABLE: the table's failed_runs, once it has failed N times.
failed_runs() { q -d pw1 -c "SELECT failed_runs FROM kid_partition_status WHERE parent = '$1'::regclass"; }
wait_failed() {
    for _ in $(seq 600); do [ "$(failed_runs "$1")" -ge "$2" ] && return 0; sleep 0.1; done
    echo "  $1 did not fail $2 times in 60 s"; return 1
}
check "... and recorded, run after run (3 failed runs of bad)" wait_failed bad 3
expect_eq "kid_partition_status: the last error of each failing table" \
    "$(q -d pw1 -c "SELECT string_agg(format('%s: %s', parent, last_error), '; ' ORDER BY parent::text) FROM kid_partition_status WHERE failed_runs > 0")" \
    'bad: time zone "Nowhere/Bogus" not recognized; busy: canceling statement due to lock timeout'
expect_eq "... while the good tables have no failed run" \
    "$(q -d pw1 -c "SELECT string_agg(format('%s %s', parent, failed_runs), ' ' ORDER BY parent::text) FROM kid_partition_status WHERE failed_runs = 0")" \
    "events 0 uuids 0"
# The order of the first round in the log: bad and busy failed, then events
# and uuids (after them by name) were maintained in the same worker.
first_round=$(tail -c +$((offset + 1)) "$LOG" | grep -E -o '\[[0-9]+\] (WARNING|LOG):  kid (could not maintain|maintained) the partitions of public\.[a-z]+ in database "pw1"' |
    head -4 | sed -E 's/^\[([0-9]+)\] [A-Z]+:  kid (could not maintain|maintained) the partitions of public\.([a-z]+).*/\1 \2 \3/')
expect_eq "the failing tables stopped neither the tables after them nor their worker" \
    "$(awk 'NR == 1 { first = $1 } { $1 = ($1 == first) ? "same" : "other" } 1' <<<"$first_round" | tr '\n' ';')" \
    "same could not maintain bad;same could not maintain busy;same maintained events;same maintained uuids;"
kill $holder 2>/dev/null
q -d pw1 -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(600)%' AND pid <> pg_backend_pid()" >/dev/null
wait $holder 2>/dev/null
wait_retired() {
    for _ in $(seq 600); do [ "$(failed_runs busy)" = 0 ] && return 0; sleep 0.1; done
    echo "  busy still failing 60 s after its lock went"; return 1
}
check "the lock gone, the next round retires busy's old partitions" wait_retired
expect_eq "... of which none older than 5 days is left" \
    "$(q -d pw1 -c "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'busy'::regclass
                    AND c.relname LIKE 'busy\_p%' AND c.relname < 'busy_p' || to_char(now() - interval '6 days', 'YYYYMMDD')")" 0
check "no database without kid or without tables made an error" \
    test "$(grep -c -e 'pw_empty' -e 'pw_nokid' "$LOG")" = 0
expect_eq "the server was never restarted (postmaster start time)" "$(q -d postgres -c "SELECT pg_postmaster_start_time()")" "$start_time"
check "no process of the server ended by a signal or an error exit of kid's" \
    test "$(grep -c -e 'terminated by signal' -e 'exited with exit code [^0]' "$LOG")" = 0

# more_premake: raise events' premake by 2: the worker makes two partitions.
more_premake() {
    local offset
    offset=$(log_size "$LOG")
    q -d pw1 -c "UPDATE kid_partition_config SET premake = premake + 2 WHERE parent = 'events'::regclass" >/dev/null &&
        wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public.events in database "pw1": 2 create'
}
# ---------------------------------------------------------------- restarts
offset=$(log_size "$LOG")
cluster_stop pw && cluster_start pw
check "after a clean restart the launcher is back" wait_for_log "$LOG" "$offset" 'kid maintains the partitions of every database every 1 s'
check "... and maintains" more_premake
offset=$(log_size "$LOG")
check "a crash restart (a backend killed by SIGKILL)" crash_backend $PW_PORT "$LOG"
check "... after it the launcher is back" wait_for_log "$LOG" "$offset" 'kid maintains the partitions of every database every 1 s'
check "... and maintains" more_premake
offset=$(log_size "$LOG")
q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'kid partition launcher'" >/dev/null
check "a launcher ended by pg_terminate_backend() comes back (10 s later)" \
    wait_for_log "$LOG" "$offset" 'kid maintains the partitions of every database every 1 s'
check "... and maintains" more_premake

# ---------------------------------------------------------------- off again
offset=$(log_size "$LOG")
q -d postgres -c "ALTER SYSTEM SET kid.partition_maintenance_interval = 0" >/dev/null
check "turned off by a reload" reload_conf $PW_PORT
check "... the launcher says so" wait_for_log "$LOG" "$offset" 'kid partition maintenance is off'
offset=$(log_size "$LOG")
q -d pw1 -c "UPDATE kid_partition_config SET premake = premake + 2 WHERE parent = 'events'::regclass" >/dev/null
sleep 3
expect_eq "... and maintains nothing more (3 s on)" "$(grep -c 'kid maintained' <(tail -c +$((offset + 1)) "$LOG"))" 0
expect_eq "the launcher still runs, waiting for a reload" "$(launcher)" 1

kid_finish
