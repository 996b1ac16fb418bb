#!/usr/bin/env bash
# Partition maintenance beside writers, and the configuration across
# pg_dump/pg_restore (runs alone or from run-all.sh; uses the "main"
# cluster).  docs/partitioning.md says what is checked here.
#
# 1. Eight pgbench clients (four with the simple protocol, four with
#    prepared statements) insert sno ids of random times over 60 days, and
#    live ones, and two read, while two maintenance runs side by side move a given time
#    forward by a day a step: partitions are made ahead, rows move out of
#    the default partition, partitions older than 10 days are detached
#    (detach_only, so that no row leaves the database).  Asserts: pgbench
#    and both runs end without an error (pgbench also counts no failed
#    transaction: a deadlock would be one), every row inserted is in the table
#    or a detached partition, once (0 lost), each in the partition of its
#    time (or in the default one when beyond the last horizon, or in a
#    detached table of its period); rows waited in the default partition
#    (a trigger of its own writes down every row in and out) and were moved
#    out of it: the rows the runs say they moved are those that left it,
#    none of them is there any more, and it holds no row below the horizon;
#    kid_partition_history has each detached partition (of its last 1000
#    retired) with the rows it holds (counted under the run's lock, beside
#    the writers).
#    The history keeps a table's last 1000 partitions made and, apart, its
#    last 1000 retired; DROP TABLE leaves the retirements and a forget.
# 2. pg_dump -Fc | pg_restore and a plain dump through psql: the
#    configuration of every table that exists comes back (period, premake,
#    retention, detach_only, time zone, koid epoch), the row of a table
#    dropped while kid's event trigger was off does not (and the restore
#    has no error), its state and history do not, maintenance of the restored
#    database at the same time has nothing to do, and the dump has no
#    event trigger of kid's (CREATE EXTENSION makes them).  Before that: a
#    table renamed is still maintained, under its new name, and one renamed
#    while kid_partition_follow_rename was disabled is refused (55000).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ensure_main_cluster || exit 1
DB=kid_parts
main_db $DB || exit 1
q() { kpsql $PORT -d $DB "$@"; }

# ---------------------------------------------------------------- 1. writers
q <<'SQL'
CREATE TABLE events (id sno NOT NULL DEFAULT sno_new(), client integer NOT NULL, made timestamptz, PRIMARY KEY (id))
    PARTITION BY RANGE (id);
CREATE INDEX ON events (client);
SELECT count(*) FROM kid_partition_by_time('events', '1 day', premake => 2, retain => '10 days', detach_only => true,
                                           at => '2030-01-01 00:00+00');
-- Every row into and out of the default partition, written down.
CREATE TABLE default_log (op "char" NOT NULL, id sno NOT NULL);
CREATE FUNCTION log_default() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.default_log VALUES (left(TG_OP, 1), CASE TG_OP WHEN 'DELETE' THEN OLD.id ELSE NEW.id END);
    RETURN NULL;
END $$;
CREATE TRIGGER log_default AFTER INSERT OR DELETE ON events_default FOR EACH ROW EXECUTE FUNCTION log_default();
SQL
# One row per transaction: a backfilled row of a random second of 60 days
# from 2030-01-01 (nine in ten), or a live one.
cat > "$KID_TMP/insert.sql" <<'SQL'
\set s random(0, 60 * 86400 - 1)
\set live random(1, 10)
INSERT INTO events (id, client, made)
SELECT CASE WHEN :live = 1 THEN sno_new() ELSE sno_new_with_time(t) END, (:client_id)::integer + (:first)::integer, CASE WHEN :live = 1 THEN NULL ELSE t END
FROM (SELECT timestamptz '2030-01-01 00:00+00' + :s * interval '1 second' AS t) s;
SQL
chmod 644 "$KID_TMP/insert.sql"
TRANSACTIONS=2500
main_pgbench $DB -c 4 -j 2 -t $TRANSACTIONS -M simple --verbose-errors -D first=0 -f "$KID_TMP/insert.sql" & simple=$!
main_pgbench $DB -c 4 -j 2 -t $TRANSACTIONS -M prepared --verbose-errors -D first=4 -f "$KID_TMP/insert.sql" & prepared=$!
# Two readers beside them: the rows since a random day, pruned at run time.
cat > "$KID_TMP/read.sql" <<'SQL'
\set d random(0, 59)
SELECT count(*) FROM events WHERE id >= timestamptz '2030-01-01 00:00+00' + :d * interval '1 day';
SQL
chmod 644 "$KID_TMP/read.sql"
# (A deadlock fails a reader's transaction, and the check below: 2 of 1,000
# reads were once chosen as victims, when a run took ACCESS EXCLUSIVE on the
# table after an ATTACH had locked the default partition; 29-partition_locks
# makes that case on purpose.)
main_pgbench $DB -c 2 -j 2 -t $((TRANSACTIONS / 5)) -M prepared --verbose-errors -f "$KID_TMP/read.sql" & readers=$!
# maintainer N: kid_partition_maintain() at 2030-01-01 + a day per step,
# each step a transaction of its own, until both pgbench runs ended (at
# most 60 days); its log in $KID_TMP/maintainer.N: per step, the rows it
# says it moved out of the default partition.
maintainer() {
    local k=0
    while [ $k -lt 60 ] && { kill -0 $simple 2>/dev/null || kill -0 $prepared 2>/dev/null; }; do
        q -c "SELECT coalesce(sum(rows) FILTER (WHERE action = 'create'), 0) FROM kid_partition_maintain('events', at => timestamptz '2030-01-01 00:00+00' + $k * interval '1 day')" ||
            return 1
        k=$((k + 1))
    done
    echo "steps $k"
}
maintainer >"$KID_TMP/maintainer.1" 2>&1 & m1=$!
maintainer >"$KID_TMP/maintainer.2" 2>&1 & m2=$!
wait $simple; rc_simple=$?
wait $prepared; rc_prepared=$?
wait $readers; rc_readers=$?
wait $m1; rc_m1=$?
wait $m2; rc_m2=$?
# What failed, if anything did (pgbench 15 and later log each failure with --failures-detailed, its count in any case).
grep -h -i -e error -e abort -e deadlock -e 'failed transactions: [1-9]' -e 'transactions retried' "$KID_TMP"/pgbench.*.log | sort | uniq -c | head
# (pgbench counts a transaction that ended in a deadlock or a serialization
# failure as failed, and goes on: its exit status says nothing of them.)
expect_eq "8 clients inserting and 2 reading beside the maintenance: pgbench ended without an error (simple, prepared, readers), every transaction done, none failed" \
    "$rc_simple $rc_prepared $rc_readers $(cat "$KID_TMP"/pgbench.*.log | sed -n 's/^number of \(transactions actually processed\|failed transactions\): \([0-9/]*\).*/\2/p' | sort | uniq -c | tr -s ' ' | tr '\n' ' ')" \
    "0 0 0  3 0  1 $((2 * TRANSACTIONS / 5))/$((2 * TRANSACTIONS / 5))  2 $((4 * TRANSACTIONS))/$((4 * TRANSACTIONS)) "
expect_eq "two maintenance runs side by side: every run ended without an error" "$rc_m1 $rc_m2" "0 0"
grep -h . "$KID_TMP/maintainer.1" "$KID_TMP/maintainer.2" | grep -v '^[0-9]*$' | head -5
steps=$(sed -n 's/^steps //p' "$KID_TMP/maintainer.1")
last_at=$(q -c "SELECT timestamptz '2030-01-01 00:00+00' + (${steps:-1} - 1) * interval '1 day'")
echo "(maintenance: $steps steps, to $last_at)"
check "the maintenance moved the time forward by more than 10 days while the clients inserted (retention at work)" \
    test "${steps:-0}" -gt 10
# Rows inserted after the last step for a period without a partition wait
# in the default partition: one more run at the last time moves them.
q -c "SELECT coalesce(sum(rows) FILTER (WHERE action = 'create'), 0) FROM kid_partition_maintain('events', at => '$last_at')" >"$KID_TMP/maintainer.last"
# The rows the runs say they moved.
moved=$(cat "$KID_TMP/maintainer.1" "$KID_TMP/maintainer.2" "$KID_TMP/maintainer.last" | awk '/^[0-9]+$/ { n += $1 } END { print n + 0 }')

# Every row: in the table or a detached partition, once.
q <<'SQL' >/dev/null
CREATE FUNCTION pg_temp.rows_of(t regclass) RETURNS SETOF events LANGUAGE plpgsql AS $$
BEGIN RETURN QUERY EXECUTE format('SELECT id, client, made FROM %s', t); END $$;
CREATE TABLE detached AS
SELECT c.oid::regclass AS part, r.*
FROM pg_class c, pg_temp.rows_of(c.oid::regclass) r
WHERE c.relname LIKE 'events\_p%' AND c.relkind = 'r' AND NOT c.relispartition;
SQL
expect_eq "every row inserted is in the table or a detached partition, once (0 lost)" \
    "$(q -c "SELECT format('%s rows, %s distinct', count(*), count(DISTINCT id)) FROM (SELECT id FROM events UNION ALL SELECT id FROM detached) a")" \
    "$((8 * TRANSACTIONS)) rows, $((8 * TRANSACTIONS)) distinct"
expect_eq "every client's rows are all there" \
    "$(q -c "SELECT string_agg(n::text, ' ' ORDER BY client) FROM (SELECT client, count(*) AS n FROM (SELECT client FROM events UNION ALL SELECT client FROM detached) a GROUP BY client) c")" \
    "$(printf "$TRANSACTIONS %.0s" 1 2 3 4 5 6 7 8 | sed 's/ $//')"
# Where each row is: the partition whose period holds its time (the daily
# partition events_pYYYYMMDD), the default partition only beyond the last
# horizon, a detached table only of its own period.
misplaced="WITH placed AS (
               SELECT id, sno_to_timestamp(id) AS t, tableoid::regclass::text AS part FROM events
               UNION ALL SELECT id, sno_to_timestamp(id), part::text FROM detached)
           SELECT t, part FROM placed
           WHERE CASE part WHEN 'events_default' THEN t < (kid_partition_period('1 day', 'UTC', '$last_at', 3)).lower
                 ELSE regexp_replace(part, '_[0-9]+$', '') <> 'events_p' || to_char(t, 'YYYYMMDD') END"
expect_eq "every row in the partition of its day, or in the default one beyond the horizon, or detached with its day" \
    "$(q -c "SELECT count(*) FROM ($misplaced) m")" 0 || q -c "$misplaced LIMIT 5"
echo "($(q -c "SELECT format('%s rows in %s partitions, %s in the default one; %s rows in %s detached partitions',
    (SELECT count(*) FROM events WHERE tableoid <> 'events_default'::regclass),
    (SELECT count(*) - 1 FROM pg_inherits WHERE inhparent = 'events'::regclass),
    (SELECT count(*) FROM events_default), (SELECT count(*) FROM detached), (SELECT count(DISTINCT part) FROM detached))"))"
# The default partition held rows (pgbench's rows of days without a
# partition yet), and they were moved out: as many as the runs say they
# moved left it, none of them is there any more, it holds none of a
# period below the horizon, and what it holds is what came in and stayed.
expect_eq "rows waited in the default partition and were moved out of it: the rows moved are the rows that left it, none left below the horizon" \
    "$(q -c "SELECT format('rows in: %s; rows out: %s (any: %s); moved out but still there: %s; below the horizon: %s; there: %s',
                       count(*) FILTER (WHERE op = 'I') > 0, count(*) FILTER (WHERE op = 'D'), count(*) FILTER (WHERE op = 'D') > 0,
                       (SELECT count(*) FROM events_default d WHERE d.id IN (SELECT l.id FROM default_log l WHERE l.op = 'D')),
                       (SELECT count(*) FROM events_default d WHERE sno_to_timestamp(d.id) < (kid_partition_period('1 day', 'UTC', '$last_at', 3)).lower),
                       (SELECT count(*) FROM events_default) = count(*) FILTER (WHERE op = 'I') - count(*) FILTER (WHERE op = 'D'))
             FROM default_log")" \
    "rows in: t; rows out: ${moved:-none} (any: t); moved out but still there: 0; below the horizon: 0; there: t"
check "... and partitions were detached while the clients inserted" \
    test "$(q -c "SELECT count(DISTINCT part) > 0 FROM detached")" = t
# Each detach counted its partition's rows under the run's lock, while the
# clients kept writing rows of those days: kid_partition_history has a row
# per detached partition (those of its last 1000 retired: the runs make and
# detach hundreds of partitions for backfilled rows), each with exactly the
# rows its partition holds.
expect_eq "kid_partition_history: each detached partition with the rows it holds (counted under the lock, beside the writers); all of them, or the last 1000 retired" \
    "$(q -c "SELECT format('recorded: %s; rows differ: %s; all detached, or 1000 retired: %s', count(*) > 0,
                       count(*) FILTER (WHERE h.rows IS DISTINCT FROM (SELECT count(*) FROM detached d WHERE d.part = h.partition_name::regclass)),
                       count(*) = (SELECT count(*) FROM pg_class c WHERE c.relname LIKE 'events\\_p%' AND c.relkind = 'r' AND NOT c.relispartition)
                       OR count(*) = 1000)
             FROM kid_partition_history h WHERE h.parent = 'events'::regclass AND h.action = 'detach'")" \
    "recorded: t; rows differ: 0; all detached, or 1000 retired: t"

# The history keeps, per table, the last 1000 partitions made and apart the
# last 1000 retired: a table of minutes, a retention of a minute, 1002 runs
# a minute apart (each makes a partition and, from the second, drops one:
# 1004 made with the 2 of its configuration, 1001 dropped).
q <<'SQL' >/dev/null
CREATE TABLE minutes (id sno) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('minutes', '1 minute', premake => 0, retain => '1 minute', at => '2030-01-01 00:00+00');
DO $$ BEGIN
    FOR k IN 1 .. 1002 LOOP
        PERFORM kid_partition_maintain('minutes', at => '2030-01-01 00:00+00'::timestamptz + k * interval '1 minute');
    END LOOP;
END $$;
SQL
expect_eq "kid_partition_history keeps a table's last 1000 made (of 1004) and last 1000 dropped (of 1001), the oldest of each gone; another table's history untouched" \
    "$(q -c "SELECT format('%s %s %s %s %s', count(*) FILTER (WHERE action LIKE 'create%'), count(*) FILTER (WHERE action = 'drop'),
                           min(partition_name) FILTER (WHERE action = 'create'), min(partition_name) FILTER (WHERE action = 'drop'),
                           max(partition_name) FILTER (WHERE action = 'drop'))
             FROM kid_partition_history WHERE parent = 'minutes'::regclass") $(q -c "SELECT count(*) > 0 FROM kid_partition_history WHERE parent = 'events'::regclass")" \
    "1000 1000 public.minutes_p20300101_0003 public.minutes_p20300101_0001 public.minutes_p20300101_1640 t"
expect_eq "... the first action recorded (create default) is the one gone" \
    "$(q -c "SELECT count(*) FROM kid_partition_history WHERE parent = 'minutes'::regclass AND action = 'create default'")" 0
q -c "DROP TABLE minutes" >/dev/null
expect_eq "... and DROP TABLE leaves its 1000 drops and the forget that ended it, not the partitions it made" \
    "$(q -c "SELECT string_agg(format('%s %s', action, n), ', ' ORDER BY action)
             FROM (SELECT action, count(*) AS n FROM kid_partition_history WHERE parent_name = 'public.minutes' GROUP BY action) a")" \
    "drop 1000, forget 1"

# ---------------------------------------------------------------- 2. dump
q <<'SQL' >/dev/null
CREATE SCHEMA app;
CREATE TABLE app.orders (id uuid PRIMARY KEY DEFAULT uuidv7_new(), total numeric) PARTITION BY RANGE (id);
CREATE TABLE app.follows (id koid PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('app.orders', '1 week', premake => 3, retain => '90 days', time_zone => 'Europe/Paris',
                                           at => '2030-03-04 12:00+00');
SELECT count(*) FROM kid_partition_by_time('app.follows', '3 months', premake => 1, at => '2030-03-04 12:00+00');
INSERT INTO app.orders (id, total) SELECT uuidv7_new_with_time(timestamptz '2030-03-04 00:00+00' + n * interval '1 day'), n FROM generate_series(0, 20) n;
INSERT INTO app.follows SELECT koid_new_with_time(timestamptz '2030-03-04 00:00+00' + n * interval '1 day') FROM generate_series(0, 20) n;
-- A table dropped while kid's event trigger was off: its configuration row
-- stays, naming an OID no table has.
CREATE TABLE app.gone (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('app.gone', '1 day', premake => 1, at => '2030-03-04 12:00+00');
ALTER EVENT TRIGGER kid_partition_forget DISABLE;
DROP TABLE app.gone;
ALTER EVENT TRIGGER kid_partition_forget ENABLE;
-- Two tables renamed: one with kid's event trigger on, one with it off.
CREATE TABLE app.logs (id sno PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE app.notes (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('app.logs', '1 day', premake => 1, at => '2030-03-04 12:00+00');
SELECT count(*) FROM kid_partition_by_time('app.notes', '1 day', premake => 1, at => '2030-03-04 12:00+00');
ALTER TABLE app.logs RENAME TO journal;
ALTER EVENT TRIGGER kid_partition_follow_rename DISABLE;
ALTER TABLE app.notes RENAME TO memos;
ALTER EVENT TRIGGER kid_partition_follow_rename ENABLE;
SQL
need "a configuration row of a table that is gone" \
    test "$(q -c "SELECT count(*) FROM kid_partition_config c WHERE NOT EXISTS (SELECT FROM pg_class r WHERE r.oid = c.parent)")" = 1
expect_eq "a renamed table: its configuration row follows the name" \
    "$(q -c "SELECT relname FROM kid_partition_config WHERE parent = 'app.journal'::regclass")" journal
expect_eq "... and it is still maintained, its new partitions named after it" \
    "$(q -c "SELECT string_agg(partition_name, ' ' ORDER BY partition_name) FROM kid_partition_maintain('app.journal', at => '2030-03-06 12:00+00') WHERE action = 'create'")" \
    "app.journal_p20300306 app.journal_p20300307"
expect_eq "a table renamed while kid_partition_follow_rename was disabled is refused (55000)" \
    "$(q -v VERBOSITY=sqlstate -c "SELECT count(*) FROM kid_partition_maintain('app.memos', at => '2030-03-06 12:00+00')" 2>&1)" \
    "ERROR:  55000"
config="SELECT string_agg(format('%s %s %s %s %s %s %s %s', c.parent, c.every, c.premake, c.retain, c.detach_only, c.time_zone, c.koid_epoch_ms, c.uid_interval), E'\n' ORDER BY c.parent::text) FROM kid_partition_config c"
# (What a restore must bring back: the rows of the tables that exist.)
config_existing="$config WHERE EXISTS (SELECT FROM pg_class r WHERE r.oid = c.parent)"
layout="SELECT string_agg(format('%s %s', i.inhrelid::regclass, pg_get_expr(r.relpartbound, r.oid)), E'\n' ORDER BY i.inhrelid::regclass::text) FROM pg_inherits i JOIN pg_class r ON r.oid = i.inhrelid WHERE i.inhparent IN ('app.orders'::regclass, 'app.follows'::regclass, 'events'::regclass)"
rows="SELECT format('%s %s %s', (SELECT count(*) FROM events), (SELECT sum(total) FROM app.orders), (SELECT count(*) FROM app.follows))"
config_before=$(q -c "$config_existing")
layout_before=$(q -c "$layout")
rows_before=$(q -c "$rows")
echo "$config_before"
"$PG_BIN/pg_dump" -h "$KID_MAIN_SOCK" -p "$PORT" -U postgres -Fc -f "$KID_TMP/parts.dump" $DB
"$PG_BIN/pg_dump" -h "$KID_MAIN_SOCK" -p "$PORT" -U postgres -f "$KID_TMP/parts.sql" $DB
check "the dump writes the configuration's rows, and no event trigger of kid's" \
    test "$(grep -c -e 'kid_partition_forget' -e 'kid_partition_follow_rename' "$KID_TMP/parts.sql") $(grep -c '^COPY public.kid_partition_config ' "$KID_TMP/parts.sql")" = "0 1"
check "... and no history (kid_partition_history describes this cluster's runs)" \
    test "$(q -c "SELECT count(*) > 0 FROM kid_partition_history") $(grep -c 'COPY public.kid_partition_history ' "$KID_TMP/parts.sql")" = "t 0"
for how in custom plain; do
    kpsql $PORT -d postgres -c "DROP DATABASE IF EXISTS kid_parts_restored" -c "CREATE DATABASE kid_parts_restored" >/dev/null
    if [ $how = custom ]; then
        "$PG_BIN/pg_restore" -h "$KID_MAIN_SOCK" -p "$PORT" -U postgres -d kid_parts_restored "$KID_TMP/parts.dump" 2>"$KID_TMP/restore.err"
    else
        kpsql $PORT -d kid_parts_restored -f "$KID_TMP/parts.sql" >/dev/null 2>"$KID_TMP/restore.err"
    fi
    expect_eq "$how restore: no error" "$(grep -c ERROR "$KID_TMP/restore.err")" 0
    r() { kpsql $PORT -d kid_parts_restored "$@"; }
    expect_eq "$how restore: every existing table's configuration, the same, and no row of the table that is gone" "$(r -c "$config")" "$config_before"
    expect_eq "$how restore: the partitions and their bounds, the same" "$(r -c "$layout")" "$layout_before"
    expect_eq "$how restore: the rows, the same" "$(r -c "$rows")" "$rows_before"
    expect_eq "$how restore: no state and no history (they describe the runs of the old database)" \
        "$(r -c "SELECT count(*) FROM kid_partition_state") $(r -c "SELECT count(*) FROM kid_partition_history")" "0 0"
    expect_eq "$how restore: maintenance at the time the tables were configured has nothing to do" \
        "$(r -c "SELECT coalesce(string_agg(format('%s %s', parent_table, action), ', '), 'nothing')
                 FROM (SELECT * FROM kid_partition_maintain('app.orders', at => '2030-03-04 12:00+00')
                       UNION ALL SELECT * FROM kid_partition_maintain('app.follows', at => '2030-03-04 12:00+00')) m")" \
        "nothing"
    expect_eq "$how restore: the event triggers are kid's own, once each" \
        "$(r -c "SELECT string_agg(evtname, ' ' ORDER BY evtname) FROM pg_event_trigger")" "kid_partition_follow_rename kid_partition_forget"
    # The restored configuration works: a week later, a week more is made.
    expect_eq "$how restore: maintenance a week later makes the next week (of Monday 1 April 2030)" \
        "$(r -c "SELECT string_agg(partition_name, ' ') FROM kid_partition_maintain('app.orders', at => '2030-03-11 12:00+00') WHERE action = 'create'")" \
        "app.orders_p20300401"
done
kpsql $PORT -d postgres -c "DROP DATABASE kid_parts_restored" -c "DROP DATABASE $DB" >/dev/null

kid_finish
