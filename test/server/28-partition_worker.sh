#!/usr/bin/env bash
# kid's partition worker (src/pg/partition_worker.cpp; runs alone or from
# run-all.sh; its own cluster on port 54386).
#
# Asserts: with kid.partition_maintenance_interval = 0 the launcher runs
# but maintains nothing; turned on by a reload it maintains every table
# of every database, the first of pg_database's list (postgres) included
# (as the table's owner: the owner's trigger that fires when rows move sees
# the owner as current_user; at READ COMMITTED in a database whose sessions
# start at REPEATABLE READ), at the true time; its log line names the
# partitions it made, and those it retired with the rows they held (which
# kid_partition_history records as the worker's; a line too long says
# where it was cut); a table that fails (a
# broken configuration, a lock held past lock_timeout) is logged and recorded (kid_partition_status) and
# neither stops the tables after it nor the next rounds, and the server is
# never restarted; retention retires exactly the partitions wholly older
# than the retention counted back from the newest row (the one whose upper
# bound is the cutoff goes, the next stays); a configured table dropped
# while kid's event trigger was off is forgotten; the launcher comes back
# after a clean restart, a crash restart and pg_terminate_backend();
# kid.partition_maintenance_timeout bounds one table (a trigger that sleeps
# on its default partition is cancelled, recorded, and delays neither the
# tables after it nor another database; one that catches the cancel and
# sleeps on ends the worker at twice the limit, and the next round tries the
# tables not tried since first) and the launcher's wait for one database (a
# worker that outlives it is left to run, the others go on, its database is
# skipped until it ends); turned off again by a reload, it maintains nothing
# more.
# A second cluster, under libfaketime (CLOCK_MONOTONIC true): a clock
# stepped back an hour does not pause the rounds, and a server started with
# its clock 31 days ahead keeps every row of a table with a 30-day
# retention (the worker and kid_partition_maintain() warn instead), and
# still has them all once the clock is right again.
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
for db in postgres pw1 pw2 pw_empty; do q -d $db -c "CREATE EXTENSION kid"; done
# postgres, the first database of pg_database's list, has a table too: the
# launcher visits every database, the first one included.
need "postgres is the first database the launcher visits (pg_database's order, templates excepted)" \
    test "$(q -d postgres -c "SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate ORDER BY ctid LIMIT 1")" = postgres
q -d postgres <<'SQL' >/dev/null
CREATE TABLE pgt (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('pgt', '1 day', premake => 2, at => now() - interval '10 days');
SQL
# Today (UTC), fixed once: busy's newest row is at its midnight.
TODAY=$(q -d postgres -c "SELECT (now() AT TIME ZONE 'UTC')::date")
day() { q -d postgres -c "SELECT to_char(date '$TODAY' + $1, 'YYYYMMDD')"; }
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
-- zmany (last by name): the worker makes 301 partitions of a minute at
-- once, more names than its log line holds.
CREATE TABLE zmany (id sno) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('zmany', '1 minute', premake => 0, at => now() - interval '10 days');
UPDATE kid_partition_config SET premake = 300 WHERE parent = 'zmany'::regclass;
SQL
# busy: the partitions of the days from 6 to 4 days ago too (at 6 days
# ago, with no row yet, nothing is old enough to retire), a row at the
# start of 5 days ago, three rows of 6 days ago and its newest row at
# midnight today: the retention
# counts 5 days back from that row, to the end of the partition of 6 days
# ago, which goes, while the one of 5 days ago stays.
q -d pw1 <<SQL >/dev/null
SELECT count(*) FROM kid_partition_maintain('busy', at => timestamptz '$TODAY 12:00+00' - interval '6 days');
-- (Today's partition, for the newest row: rows vouch for the clock from
-- the partitions, not the default one.  With no row yet, this run retires
-- the partitions of 10 to 8 days ago by its time.)
SELECT count(*) FROM kid_partition_maintain('busy', at => timestamptz '$TODAY 00:00+00' - interval '2 days');
INSERT INTO busy VALUES (koid_new_with_time(timestamptz '$TODAY 00:00+00' - interval '5 days')),
                        (koid_new_with_time(timestamptz '$TODAY 00:00+00'));
-- Three rows in the partition of 6 days ago, which the worker drops: its
-- log line and kid_partition_history say so.
INSERT INTO busy SELECT koid_new_with_time(timestamptz '$TODAY 01:00+00' - interval '6 days' + n * interval '1 minute') FROM generate_series(1, 3) n;
SQL
need "busy has the partitions of 6 and 5 days ago, and its newest row is at midnight" \
    test "$(q -d pw1 -c "SELECT string_agg(c.relname, ' ' ORDER BY c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                         WHERE i.inhparent = 'busy'::regclass AND c.relname IN ('busy_p$(day -6)', 'busy_p$(day -5)')") $(q -d pw1 -c "SELECT max(koid_to_timestamp(id)) = '$TODAY 00:00+00' FROM busy")" = "busy_p$(day -6) busy_p$(day -5) t"
q -d pw2 <<'SQL' >/dev/null
CREATE TABLE follows (id atproto_tid PRIMARY KEY) PARTITION BY RANGE (id);
ALTER TABLE follows OWNER TO pw_owner;
-- The worker makes partitions as the table's owner, who needs CREATE here.
GRANT CREATE ON SCHEMA public TO pw_owner;
SELECT count(*) FROM kid_partition_by_time('follows', '1 month', premake => 1, at => now() - interval '100 days');
-- Who moves the rows out of the default partition: the owner's trigger
-- (cloned onto the default partition) writes current_user down.
CREATE TABLE who_moved (who name NOT NULL);
ALTER TABLE who_moved OWNER TO pw_owner;
CREATE FUNCTION note_mover() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.who_moved VALUES (current_user); RETURN OLD; END $$;
ALTER FUNCTION note_mover() OWNER TO pw_owner;
CREATE TRIGGER note_mover BEFORE DELETE ON follows FOR EACH ROW EXECUTE FUNCTION note_mover();
-- A row of two years ago waits in the default partition: the worker moves
-- it into a partition it makes for its month.
INSERT INTO follows VALUES (tid_new_with_time(now() - interval '2 years'));
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
expect_eq "... owned by the table's owner" \
    "$(q -d pw2 -c "SELECT string_agg(DISTINCT c.relowner::regrole::text, ' ') FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'follows'::regclass")" \
    "pw_owner"
expect_eq "... and the rows moved as the owner: its trigger on the default partition saw pw_owner as current_user, and the row left the default partition" \
    "$(q -d pw2 -c "SELECT coalesce(string_agg(who, ' '), 'no row moved') FROM who_moved") $(q -d pw2 -c "SELECT count(*) FROM follows_default") $(q -d pw2 -c "SELECT count(*) FROM follows")" \
    "pw_owner 0 1"
check "the first database of pg_database's list (postgres) is maintained too" \
    wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public.pgt in database "postgres": [0-9]+ create'
expect_eq "... at the true time: today's partition is there" "$(has_today postgres pgt)" 1
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
    "events 0 uuids 0 zmany 0"
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
# The cutoff is 5 days before busy's newest row (midnight today): the end
# of the partition of 6 days ago, which goes with every older one; the
# partition of 5 days ago, and its row, stay.
expect_eq "... exactly those wholly older than 5 days before the newest row: the partition ending at the cutoff goes, the next one stays, with its row" \
    "$(q -d pw1 -c "SELECT coalesce(string_agg(c.relname, ' ' ORDER BY c.relname), 'none') FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'busy'::regclass
                    AND c.relname LIKE 'busy\_p%' AND c.relname < 'busy_p$(day -3)'") $(q -d pw1 -c "SELECT count(*) FROM busy")" \
    "busy_p$(day -5) busy_p$(day -4) 2"
# The log line names each partition retired with the rows it held (the
# partition of 6 days ago, with its three rows).
check "... and its log line names them with the rows they held" \
    grep -Eq "LOG:  kid maintained the partitions of public\.busy in database \"pw1\": (.*, )?1 drop \(public\.busy_p$(day -6): 3 rows\)" "$LOG"
expect_eq "... and kid_partition_history records them, by the worker (as the bootstrap superuser), the runs by hand not" \
    "$(q -d pw1 -c "SELECT string_agg(format('%s %s %s %s %s', action, partition_name, rows, run_by, by_worker), ', ' ORDER BY id)
                    FROM kid_partition_history WHERE parent = 'busy'::regclass AND action = 'drop' AND run_at > timestamptz '$TODAY 00:00+00' - interval '1 day'")
$(q -d pw1 -c "SELECT count(*) FILTER (WHERE by_worker), count(*) FILTER (WHERE NOT by_worker AND run_by = 'postgres') > 0 FROM kid_partition_history WHERE parent = 'busy'::regclass AND run_at < timestamptz '$TODAY 00:00+00' - interval '1 day'")" \
    "drop public.busy_p$(day -6) 3 postgres t
0|t"
check "a row moved out of the default partition by the worker: its log line names its partition with the rows moved (follows: 1 row moved)" \
    grep -Eq 'LOG:  kid maintained the partitions of public\.follows in database "pw2": [0-9]+ create \((.*, )?public\.follows_p[0-9]{6}: 1 row moved\)' "$LOG"
check "a log line too long for every name says where it was cut (zmany: 301 partitions)" \
    grep -Eq 'LOG:  kid maintained the partitions of public\.zmany in database "pw1": 30[01] create \(public\.zmany_p[0-9_, .a-z]+ \.\.\. \(cut here; see kid_partition_history\)$' "$LOG"
check "no database without kid or without tables made an error" \
    test "$(grep -c -e 'pw_empty' -e 'pw_nokid' "$LOG")" = 0
expect_eq "the server was never restarted (postmaster start time)" "$(q -d postgres -c "SELECT pg_postmaster_start_time()")" "$start_time"
check "no process of the server ended by a signal or an error exit of kid's" \
    test "$(grep -c -e 'terminated by signal' -e 'exited with exit code [^0]' "$LOG")" = 0

# A configured table dropped while kid's event trigger was off: its row
# stays, and the worker forgets it.
offset=$(log_size "$LOG")
gone_oid=$(q -d pw1 <<'SQL'
SET default_transaction_isolation = 'read committed';
CREATE TABLE gone (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('gone', '1 day', premake => 1) \g /dev/null
SELECT 'gone'::regclass::oid;
ALTER EVENT TRIGGER kid_partition_forget DISABLE;
DROP TABLE gone;
ALTER EVENT TRIGGER kid_partition_forget ENABLE;
SQL
)
check "a configured table dropped while kid_partition_forget was disabled is forgotten by the worker (logged)" \
    wait_for_log "$LOG" "$offset" "LOG:  kid forgot the partitioning of the table with OID ${gone_oid:-none} in database \"pw1\": the table is gone"
expect_eq "... and its configuration row is gone" "$(q -d pw1 -c "SELECT count(*) FROM kid_partition_config WHERE parent::oid = '${gone_oid:-0}'")" 0
# The same, dropped after a worker began it (its attempt recorded, its
# maintenance not yet begun): the next worker's record of the attempt it
# left must not stop the maintenance (it failed every worker of the
# database before its first table, round after round, once in five CI runs).
offset=$(log_size "$LOG")
begun_oid=$(q -d pw1 <<'SQL'
SET default_transaction_isolation = 'read committed';
CREATE TABLE begun (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('begun', '1 day', premake => 1) \g /dev/null
SELECT 'begun'::regclass::oid;
BEGIN;
ALTER EVENT TRIGGER kid_partition_forget DISABLE;
INSERT INTO kid_partition_attempts (parent, began) VALUES ('begun'::regclass, clock_timestamp() + interval '1 minute')
ON CONFLICT (parent) DO UPDATE SET began = EXCLUDED.began;
DROP TABLE begun;
ALTER EVENT TRIGGER kid_partition_forget ENABLE;
COMMIT;
SQL
)
check "a configured table dropped after the worker began it is forgotten by the next worker (logged)" \
    wait_for_log "$LOG" "$offset" "LOG:  kid forgot the partitioning of the table with OID ${begun_oid:-none} in database \"pw1\": the table is gone"
check "... and no worker failed on it meanwhile" \
    test "$(tail -c +$((offset + 1)) "$LOG" | grep -c -e 'ERROR:' -e 'could not record')" = 0


# more_premake: raise events' premake by 2: the worker makes two partitions,
# and names them in its log line.
more_premake() {
    local offset
    offset=$(log_size "$LOG")
    q -d pw1 -c "UPDATE kid_partition_config SET premake = premake + 2 WHERE parent = 'events'::regclass" >/dev/null &&
        wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public\.events in database "pw1": 2 create \(public\.events_p[0-9]{8}, public\.events_p[0-9]{8}\)$'
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

# ---------------------------------------------------------------- time limits
# kid.partition_maintenance_timeout: 2 s for a table, and for the
# launcher's wait for a database.
q -d postgres -c "ALTER SYSTEM SET kid.partition_maintenance_timeout = 2" >/dev/null
check "kid.partition_maintenance_timeout set to 2 s by a reload" reload_conf $PW_PORT
# aslow comes first in pw1 (by name): its default partition has a BEFORE
# DELETE trigger that sleeps 30 s, and a row waits there to be moved.
q -d pw1 <<'SQL' >/dev/null
SET default_transaction_isolation = 'read committed';
CREATE TABLE aslow (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('aslow', '1 day', premake => 1);
CREATE FUNCTION sleepy_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_catalog.pg_sleep(30); RETURN OLD; END $$;
CREATE TRIGGER sleepy_delete BEFORE DELETE ON aslow_default FOR EACH ROW EXECUTE FUNCTION sleepy_delete();
SQL
offset=$(log_size "$LOG")
started=$(date +%s%N)
q -d pw1 -c "INSERT INTO aslow VALUES (sno_new_with_time(now() - interval '3 days'))" \
    -c "UPDATE kid_partition_config SET premake = premake + 2 WHERE parent = 'events'::regclass" >/dev/null
q -d pw2 -c "UPDATE kid_partition_config SET premake = premake + 1 WHERE parent = 'follows'::regclass" >/dev/null
check "a table whose trigger sleeps 30 s is cancelled after kid.partition_maintenance_timeout (WARNING)" \
    wait_for_log "$LOG" "$offset" 'WARNING:  kid could not maintain the partitions of public\.aslow in database "pw1"'
check "... the WARNING says why: the statement timeout" \
    test "$(tail -c +$((offset + 1)) "$LOG" | grep -A1 'WARNING:  kid could not maintain the partitions of public\.aslow' | grep -c 'DETAIL:  canceling statement due to statement timeout$')" -ge 1
check "... the tables after it in its database are maintained (events: 2 create)" \
    wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public\.events in database "pw1": 2 create'
check "... and the tables of another database (follows: 1 create)" \
    wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public\.follows in database "pw2": 1 create'
elapsed=$((($(date +%s%N) - started) / 1000000))
note "(events and follows maintained ${elapsed} ms after the change, aslow's trigger sleeping 30 s)"
check "... within 10 s: the sleeping trigger delays only its own table" test "$elapsed" -lt 10000
expect_eq "... and its failure is recorded (kid_partition_status)" \
    "$(q -d pw1 -c "SELECT last_error FROM kid_partition_status WHERE parent = 'aslow'::regclass")" \
    "canceling statement due to statement timeout"
offset=$(log_size "$LOG")
q -d pw1 -c "DROP TRIGGER sleepy_delete ON aslow_default" >/dev/null
check "the trigger gone, the next round moves aslow's row" \
    wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public\.aslow in database "pw1": 1 create'

# Two tables a worker began and did not finish (their attempts recorded
# after their last run): the next worker records each one's failure, one
# at a time.  ovB's state row is held (FOR UPDATE) by another session
# across that start: its record fails after the worker's lock_timeout
# (WARNING; its maintenance, blocked too, ends at the 2 s limit each
# round), and ovA's is still made, though its owner set its count of
# failed runs to the integer's last value (the count is capped).
q -d pw1 >/dev/null <<'SQL'
SET default_transaction_isolation = 'read committed';
CREATE TABLE ova (id sno PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE ovb (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('ova', '1 day', premake => 1);
SELECT count(*) FROM kid_partition_by_time('ovb', '1 day', premake => 1);
SQL
ovb_oid=$(q -d pw1 -c "SELECT 'ovb'::regclass::oid")
q -d pw1 -c "BEGIN" -c "SELECT 1 FROM kid_partition_state WHERE parent = 'ovb'::regclass FOR UPDATE" \
    -c "SELECT pg_sleep(120) /* ov holder */" >/dev/null 2>&1 &
ov_holder=$!
ov_holding() { [ "$(q -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%/* ov holder */' AND state = 'active'")" = 1 ]; }
for _ in $(seq 300); do ov_holding && break; sleep 0.1; done
need "a session holds ovb's state row (FOR UPDATE)" ov_holding
offset=$(log_size "$LOG")
q -d pw1 >/dev/null <<'SQL'
INSERT INTO kid_partition_attempts (parent, began)
SELECT t::regclass::oid, clock_timestamp() + interval '1 minute' FROM unnest(ARRAY['ova', 'ovb']) t
ON CONFLICT (parent) DO UPDATE SET began = EXCLUDED.began;
UPDATE kid_partition_state SET failed_runs = 2147483647, last_error = NULL WHERE parent = 'ova'::regclass;
SQL
check "while ovb's state row is held, its records fail (WARNING naming its OID)" \
    wait_for_log "$LOG" "$offset" "WARNING:  kid could not record the failed partition maintenance of the table with OID ${ovb_oid:-none}"
# ova's record, made at a worker's start apart from ovb's (which waits for
# the held row and fails), while the row is still held (the holder sleeps
# past this wait): one statement for both, or no cap on its count, and it
# is never made.
ov_msg="kid's worker ended during the maintenance of this table: it ran past twice kid.partition_maintenance_timeout, or was stopped"
ov_recorded() { [ "$(q -d pw1 -c "SELECT last_error FROM kid_partition_state WHERE parent = 'ova'::regclass")" = "$ov_msg" ]; }
for _ in $(seq 400); do ov_recorded && break; sleep 0.1; done
expect_eq "... and ova's unfinished attempt is recorded at a worker's start, its failed runs at the integer's last value, while ovb's row is held" \
    "$(q -d pw1 -c "SELECT last_error FROM kid_partition_state WHERE parent = 'ova'::regclass") $(ov_holding && echo held)" "$ov_msg held"
q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%/* ov holder */'" >/dev/null
wait "$ov_holder" 2>/dev/null
q -d pw1 -c "DROP TABLE ova, ovb" >/dev/null

# pw_slow: six tables whose triggers sleep 1.5 s as a row moves out of
# the default partition (under the 2 s limit of each): its worker takes
# about 9 s, well past the launcher's wait for a database.
q -d postgres -c "CREATE DATABASE pw_slow" >/dev/null
q -d pw_slow <<'SQL' >/dev/null
CREATE EXTENSION kid;
CREATE FUNCTION nap() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_catalog.pg_sleep(1.5); RETURN OLD; END $$;
DO $$
BEGIN
    FOR i IN 1 .. 6 LOOP
        EXECUTE format('CREATE TABLE slow%s (id sno PRIMARY KEY) PARTITION BY RANGE (id)', i);
        PERFORM count(*) FROM kid_partition_by_time(format('slow%s', i)::regclass, '1 day', premake => 1);
        EXECUTE format('CREATE TRIGGER nap BEFORE DELETE ON slow%s_default FOR EACH ROW EXECUTE FUNCTION nap()', i);
    END LOOP;
END $$;
SQL
offset=$(log_size "$LOG")
slow_offset=$offset
q -d pw_slow -c "DO \$\$ BEGIN FOR i IN 1 .. 6 LOOP EXECUTE format('INSERT INTO slow%s VALUES (sno_new_with_time(now() - interval ''3 days''))', i); END LOOP; END \$\$" >/dev/null
check "a database whose worker runs past kid.partition_maintenance_timeout: the launcher goes on without it" \
    wait_for_log "$LOG" "$offset" 'LOG:  kid goes on without waiting for the partition maintenance of database "pw_slow"'
offset=$(log_size "$LOG")
q -d pw2 -c "UPDATE kid_partition_config SET premake = premake + 1 WHERE parent = 'follows'::regclass" >/dev/null
check "... other databases are maintained meanwhile (follows: 1 create)" \
    wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public\.follows in database "pw2": 1 create'
check "... and the next rounds skip the database while its worker runs" \
    wait_for_log "$LOG" "$offset" 'LOG:  kid skips the partition maintenance of database "pw_slow" this round'
# (From before the rows went in: on a slow machine the worker may have
# finished before the checks above returned.)
check "... which finishes every table (slow6: 1 create)" \
    wait_for_log "$LOG" "$slow_offset" 'kid maintained the partitions of public\.slow6 in database "pw_slow": 1 create'
expect_eq "... each within its own limit" \
    "$(q -d pw_slow -c "SELECT count(*) FILTER (WHERE failed_runs = 0), count(*) FROM kid_partition_status WHERE parent::text LIKE 'slow%'")" "6|6"

# A table whose trigger catches the cancel (kid's limit) and sleeps on
# until told to stop (hold.sleeping): at twice the limit the worker ends
# itself, which nothing catches; the next round tries the tables not tried
# since first (bnext, after astubborn by name), and maintains them.
q -d pw_slow <<'SQL' >/dev/null
CREATE TABLE hold (sleeping boolean NOT NULL);
INSERT INTO hold VALUES (true);
CREATE TABLE astubborn (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('astubborn', '1 day', premake => 1);
CREATE TABLE bnext (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('bnext', '1 day', premake => 1);
CREATE FUNCTION stubborn_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WHILE (SELECT h.sleeping FROM public.hold h) LOOP
        BEGIN
            PERFORM pg_catalog.pg_sleep(0.1);
        EXCEPTION WHEN query_canceled THEN
            NULL;  -- kid's time limit, ignored
        END;
    END LOOP;
    RETURN OLD;
END $$;
CREATE TRIGGER stubborn_delete BEFORE DELETE ON astubborn_default FOR EACH ROW EXECUTE FUNCTION stubborn_delete();
SQL
offset=$(log_size "$LOG")
q -d pw_slow -c "INSERT INTO astubborn VALUES (sno_new_with_time(now() - interval '3 days'))" \
    -c "UPDATE kid_partition_config SET premake = premake + 1 WHERE parent = 'bnext'::regclass" >/dev/null
check "a trigger that catches the cancel: at twice kid.partition_maintenance_timeout the worker ends itself, and says so" \
    wait_for_log "$LOG" "$offset" 'LOG:  kid ended its partition maintenance of public\.astubborn in database "pw_slow"'
check "... the next round tries the table not tried since first, and maintains it (bnext: 1 create)" \
    wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public\.bnext in database "pw_slow": 1 create'
offset=$(log_size "$LOG")
q -d pw_slow -c "UPDATE hold SET sleeping = false" >/dev/null
check "... and, once the trigger returns, the stubborn table too (astubborn: 1 create)" \
    wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public\.astubborn in database "pw_slow": 1 create'

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

# ---------------------------------------------------------------- a clock that moves
# A second cluster under libfaketime (CLOCK_MONOTONIC true, as on a real
# machine whose clock is stepped), maintained every second.
cluster_stop pw
FT_PORT=54388
FT_LOG=$KID_TMP/ft/server.log
f() { kpsql $FT_PORT -d ft "$@"; }
need "a second cluster, under libfaketime" cluster_init ft $FT_PORT "kid.partition_maintenance_interval = 1" || { kid_finish; exit 1; }
faketime_set "$FT_FILE" +0
need "... started at the true time" faketime_cluster_start ft || { kid_finish; exit 1; }
kpsql $FT_PORT -d postgres -c "CREATE DATABASE ft" >/dev/null
# keep: daily, a 30-day retention, 20 rows a day from 0 to 20 days old.
# mono: daily, no retention.
f <<'SQL' >/dev/null
CREATE EXTENSION kid;
CREATE TABLE keep (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('keep', '1 day', premake => 2, retain => '30 days');
INSERT INTO keep SELECT sno_new_with_time(now() - n * interval '1 day' - m * interval '1 minute')
FROM generate_series(0, 20) n, generate_series(1, 20) m;
SELECT count(*) FROM kid_partition_maintain('keep');
CREATE TABLE mono (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('mono', '1 day', premake => 1, at => now() - interval '1 day');
SQL
keep_rows() { f -c "SELECT format('%s rows, %s in the default partition', count(*), count(*) FILTER (WHERE tableoid = 'keep_default'::regclass)) FROM keep"; }
need "keep has 420 rows from 0 to 20 days old, in their partitions" test "$(keep_rows)" = "420 rows, 0 in the default partition"
need "... and the launcher runs rounds" wait_for_log "$FT_LOG" 0 'kid maintains the partitions of every database every 1 s'
# mono was configured as of yesterday: yesterday's and today's partitions,
# then tomorrow's from the first round.  A clock an hour back (into
# yesterday, in the first hour of a day) then finds every period it is in
# made, and the only partitions a round makes are the new premake's.
need "... which makes mono's partition for tomorrow" \
    wait_for_log "$FT_LOG" 0 'kid maintained the partitions of public\.mono in database "ft": [0-9]+ create'

# The clock stepped back an hour: the rounds go on (a schedule on the wall
# clock would wait an hour for the next one).  How many partitions the new
# premake makes depends on the day the clock is stepped back into (one when
# the true time is in the first hour of its day, two otherwise): the check
# is that mono then reaches three days past the stepped clock's day.
faketime_set "$FT_FILE" -3600
sleep 1.5
offset=$(log_size "$FT_LOG")
started=$(date +%s%N)
f -c "UPDATE kid_partition_config SET premake = premake + 2 WHERE parent = 'mono'::regclass" >/dev/null
check "the clock stepped back an hour: a round maintains mono's new premake (creates)" \
    wait_for_log "$FT_LOG" "$offset" 'kid maintained the partitions of public\.mono in database "ft": [0-9]+ create'
elapsed=$((($(date +%s%N) - started) / 1000000))
note "(maintained ${elapsed} ms after the change, the clock an hour back)"
check "... within 5 s, not an hour later" test "$elapsed" -lt 5000
expect_eq "... through the third day after the stepped clock's day" \
    "$(f -c "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'mono'::regclass AND c.relname = 'mono_p' || to_char((now() AT TIME ZONE 'UTC')::date + 3, 'YYYYMMDD')")" 1

# Started with the clock 31 days ahead: the worker and
# kid_partition_maintain() at now() would retire every partition of keep by
# the clock; the newest row (now, by the true time) says otherwise.
cluster_stop ft
faketime_set "$FT_FILE" +2678400
offset=$(log_size "$FT_LOG")
need "the cluster started again with its clock 31 days ahead" faketime_cluster_start ft || { kid_finish; exit 1; }
need "... which it is (now() is 31 days after the true time, to a minute)" \
    test "$(f -c "SELECT abs(extract(epoch FROM now())::bigint - $(date +%s) - 2678400) < 60")" = t
# What the clock alone would retire: the partitions whose day ended 30 days
# before the (wrong) clock.
by_clock=$(f -c "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                 WHERE i.inhparent = 'keep'::regclass AND c.relname ~ '^keep_p[0-9]{8}$'
                   AND to_date(substr(c.relname, 7), 'YYYYMMDD') + 1 <= (now() - interval '30 days') AT TIME ZONE 'UTC'")
note "(partitions of keep the clock alone would retire: $by_clock)"
check "31 days ahead, the worker makes the new clock's partitions of keep" \
    wait_for_log "$FT_LOG" "$offset" 'kid maintained the partitions of public\.keep in database "ft": 3 create'
# kid_lines: what kid logged since the start, as notes (when a check fails).
kid_lines() { tail -c +$((offset + 1)) "$FT_LOG" | grep -a -E 'kid|WARNING|ERROR' | cut -c1-300 | tail -n 20; }
if grep -q "WARNING:  kid keeps $by_clock partitions of public\.keep that the retention would retire by the clock" <(tail -c +$((offset + 1)) "$FT_LOG"); then
    kid_pass "... and in that round warns that it keeps the partitions the clock would retire"
else
    kid_fail "... and in that round warns that it keeps the partitions the clock would retire"
    note "$(kid_lines)"
fi
expect_eq "... and keeps every row" "$(keep_rows)" "420 rows, 0 in the default partition"
check "... the worker dropped and detached nothing" test "$(tail -c +$((offset + 1)) "$FT_LOG" | grep -c -E 'kid maintained the partitions of public\.keep .*[0-9]+ (drop|detach)')" = 0
f -c "SELECT coalesce(string_agg(action, ' ' ORDER BY action), 'nothing') FROM (SELECT DISTINCT action FROM kid_partition_maintain() WHERE parent_table = 'keep'::regclass) a" >"$KID_TMP/ft-maintain.out" 2>"$KID_TMP/ft-maintain.err"
check "kid_partition_maintain() at now(), 31 days ahead, after the worker's rounds: drops and detaches nothing" \
    test "$(grep -c -w -e drop -e detach "$KID_TMP/ft-maintain.out")" = 0
expect_eq "... and says what it keeps, at every run: rows keep and the WARNING" \
    "$(cat "$KID_TMP/ft-maintain.out"), $(grep -c "WARNING:  kid keeps $by_clock partitions of public.keep that the retention would retire by the clock" "$KID_TMP/ft-maintain.err") WARNING" \
    "keep, 1 WARNING"
expect_eq "... every row still there" "$(keep_rows)" "420 rows, 0 in the default partition"

# The clock right again: every row is still there, and stays.
cluster_stop ft
faketime_set "$FT_FILE" +0
need "the cluster started again at the true time" faketime_cluster_start ft || { kid_finish; exit 1; }
f -c "SELECT count(*) FROM kid_partition_maintain()" >/dev/null
expect_eq "the clock right again, after kid_partition_maintain(): every row of keep is still there" "$(keep_rows)" "420 rows, 0 in the default partition"
cluster_stop ft

kid_finish
