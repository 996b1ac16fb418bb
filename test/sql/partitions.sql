-- Partitions on the id (src/sql/partition.sql, docs/partitioning.md):
-- kid_partition_by_time() and kid_partition_maintain() at given times, for
-- every kid id type and uuid (test/sql/include/partition_scenario.sql); the
-- periods and their time zones; the edges (uid_global's window, sno's
-- timelines, backfills older than every partition, rows far ahead,
-- partitions attached by hand, foreign keys, detach_only, names); every
-- error; what the runs retire, with their rows, and kid_partition_history.
-- Each table lives in a transaction rolled back, or is configured
-- in a failing statement, so that kid's worker, if it runs on the server,
-- never maintains one at the true time.
SET TIME ZONE 'UTC';
SET max_parallel_workers_per_gather = 0;
\set SHOW_CONTEXT never

-- The partitions a query scans and how many it removes, read from EXPLAIN
-- (ANALYZE, FORMAT JSON) so that the answer is the same on every major.
CREATE FUNCTION pg_temp.pruning(query text, OUT scanned text, OUT removed integer)
LANGUAGE plpgsql AS $$
DECLARE plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || query INTO plan;
    SELECT string_agg(DISTINCT r #>> '{}', ' ' ORDER BY r #>> '{}') INTO scanned
    FROM jsonb_path_query(plan, 'strict $.**."Relation Name"') r;
    SELECT coalesce(sum((r #>> '{}')::integer), 0) INTO removed
    FROM jsonb_path_query(plan, 'strict $.**."Subplans Removed"') r;
END $$;

-- ---------------------------------------------------------------------------
-- 1. Periods: months from January 2000, days from Monday 3 January 2000,
--    minutes from midnight, on the calendar of a time zone.
-- ---------------------------------------------------------------------------
SELECT every, p.*
FROM unnest(ARRAY['1 month', '3 months', '1 year', '1 day', '1 week', '3 days', '1 hour', '15 minutes', '24 hours']::interval[]) every,
     kid_partition_period(every, 'UTC', '2026-05-14 13:47:12.5+00') p;
-- The periods before and after, and times before 2000 and 1970.
SELECT step, p.* FROM generate_series(-2, 2) step, kid_partition_period('1 week', 'UTC', '2026-05-14 13:47+00', step) p;
SELECT p.* FROM kid_partition_period('3 months', 'UTC', '1969-12-31 23:59:59.999999+00') p;
SELECT p.* FROM kid_partition_period('1 day', 'UTC', '1999-12-31 23:59:59+00') p;
-- A period's bounds are its first instant: the last microsecond before
-- belongs to the period before.
SELECT (kid_partition_period('1 month', 'UTC', '2026-03-01 00:00+00')).lower AS march_of_first_instant,
       (kid_partition_period('1 month', 'UTC', '2026-02-28 23:59:59.999999+00')).lower AS february_of_last_microsecond;
-- Another time zone's calendar: a day in Paris starts at midnight there,
-- and the day summer time starts is 23 hours, the day it ends 25.
SELECT p.suffix, p.lower, p.upper, p.upper - p.lower AS length
FROM generate_series(-1, 1) step, kid_partition_period('1 day', 'Europe/Paris', '2026-03-29 12:00+02', step) p;
SELECT p.suffix, p.lower, p.upper - p.lower AS length
FROM generate_series(0, 1) step, kid_partition_period('1 day', 'Europe/Paris', '2026-10-25 12:00+01', step) p;
-- Hours in New York: 02:00 does not exist on 8 March 2026, so its period
-- is empty (lower = upper) and no partition is made for it; 01:00 happens
-- twice on 1 November, in one period of two hours.
SELECT p.suffix, p.lower, p.upper - p.lower AS length
FROM generate_series(0, 3) step, kid_partition_period('1 hour', 'America/New_York', '2026-03-08 01:00-05', step) p;
SELECT p.suffix, p.lower, p.upper - p.lower AS length
FROM generate_series(0, 2) step, kid_partition_period('1 hour', 'America/New_York', '2026-11-01 00:00-04', step) p;
-- Not a period: ERROR 22023.
SELECT * FROM kid_partition_period('1 month 1 day', 'UTC', now());
SELECT * FROM kid_partition_period('7 minutes', 'UTC', now());
SELECT * FROM kid_partition_period('30 seconds', 'UTC', now());
SELECT * FROM kid_partition_period('-1 day', 'UTC', now());
SELECT * FROM kid_partition_period('0', 'UTC', now());
SELECT * FROM kid_partition_period('1 day', 'Nowhere/Bogus', now());
SELECT * FROM kid_partition_period('1 day', 'UTC', 'infinity');

-- ---------------------------------------------------------------------------
-- 2. Every key type: 36 months of rows from its *_new_with_time and live
--    rows, maintained at given times; names and bounds, rows in their
--    partitions, retention, pruning by $1 and by now() - interval '1 day'.
--    uid_global ids of node 0 (uid_to_global(..., 0)), whose comparisons
--    with times are exact; other nodes' ids are in section 3.
-- ---------------------------------------------------------------------------
CREATE FUNCTION pg_temp.uid_global0(t timestamptz) RETURNS uid_global LANGUAGE sql RETURN uid_to_global(uid_new_with_time(t), 0);
\getenv abs_srcdir PG_ABS_SRCDIR
\set partition_scenario :abs_srcdir '/sql/include/partition_scenario.sql'
\set ty sno
\set make sno_new_with_time
\set live sno_new()
\set bound sno_from_timestamp
\set decode sno_to_timestamp
\i :partition_scenario
\set ty atproto_tid
\set make tid_new_with_time
\set live tid_new()
\set bound tid_from_timestamp
\set decode tid_to_timestamp
\i :partition_scenario
\set ty koid
\set make koid_new_with_time
\set live koid_new()
\set bound koid_from_timestamp
\set decode koid_to_timestamp
\i :partition_scenario
\set ty uid
\set make uid_new_with_time
\set live uid_new()
\set bound uid_from_timestamp
\set decode uid_to_timestamp
\i :partition_scenario
\set ty uid_global
\set make pg_temp.uid_global0
\set live 'uid_to_global(uid_new(), 0)'
\set bound uid_global_from_timestamp
\set decode uid_global_to_timestamp
\i :partition_scenario
\set ty uuid
\set make uuidv7_new_with_time
\set live uuidv7_new()
\set bound uuidv7_from_timestamp
\set decode uuidv7_to_timestamp
\i :partition_scenario

-- ---------------------------------------------------------------------------
-- 3. The edges.
-- ---------------------------------------------------------------------------
-- uid_global ids of a node other than 0 sort by node before the seconds
-- within a neighbourhood window (256 s): every one of a window is at or
-- above the bound of a time in it.  So an id made in the last seconds
-- before a bound that falls inside a window is in the partition after.
-- 2026-02-01 00:00 is 64 s into its window, 2026-03-01 128 s: ids made
-- 10 s and 100 s before the first of March, 10 s (not 100 s) before the
-- first of February land in the later month; the rule a partition keeps
-- is that its ids were made from lower - 256 s to before upper.
-- Maintenance moves them out of the default partition by their ids.
BEGIN;
CREATE TABLE gids (id uid_global PRIMARY KEY, made timestamptz NOT NULL) PARTITION BY RANGE (id);
SELECT action, partition_name FROM kid_partition_by_time('gids', '1 month', premake => 1, at => '2025-06-10 00:00+00');
INSERT INTO gids SELECT uid_global_new_with_time(b + d), b + d
FROM unnest(ARRAY['2026-02-01 00:00+00', '2026-03-01 00:00+00']::timestamptz[]) b,
     unnest(ARRAY['-300 s', '-100 s', '-10 s', '0', '10 s']::interval[]) d;
SELECT action, partition_name, rows FROM kid_partition_maintain('gids', at => '2026-02-10 00:00+00');
SELECT g.made, g.tableoid::regclass AS partition, (uid_global_info(g.id)).node <> 0 AS node_is_not_0,
       g.made >= p.lower - interval '256 s' AND g.made < p.upper AS within_the_rule
FROM gids g, kid_partition_period('1 month', 'UTC', to_timestamp(right(g.tableoid::regclass::text, 6), 'YYYYMM')) p
ORDER BY made;
ROLLBACK;

-- sno's two timelines: after a clock step back sno_new() goes on with the
-- tick bit set (the unit's second timeline), which sorts after the unit's
-- first and before the next unit.  A bound is a unit's first id (tick 0),
-- so both timelines of a unit land in the unit's partition.
BEGIN;
CREATE TABLE snos (id sno PRIMARY KEY, label text) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM kid_partition_by_time('snos', '1 day', premake => 1, at => '2026-04-30 12:00+00');
INSERT INTO snos
SELECT set_bit(sno_new_with_time(t)::bytea, 32, tick)::sno, format('%s tick %s', t, tick)
FROM unnest(ARRAY['2026-04-30 23:59:59.999999+00', '2026-05-01 00:00+00']::timestamptz[]) t, generate_series(0, 1) tick;
SELECT label, sno_tick(id) AS tick, sno_to_timestamp(id) AS unit, tableoid::regclass AS partition FROM snos ORDER BY id;
ROLLBACK;

-- A backfill older than every partition gets a partition made for it; with
-- retention, one wholly older than the cutoff is retired in the same run:
-- dropped (its rows with it), or detached and kept (detach_only), named
-- _1, _2 ... when an earlier detached table has its name.
BEGIN;
CREATE TABLE old_drop (id koid PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE old_keep (id koid PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM kid_partition_by_time('old_drop', '1 month', premake => 0, retain => '6 months', at => '2026-01-10 00:00+00');
SELECT count(*) AS made FROM kid_partition_by_time('old_keep', '1 month', premake => 0, retain => '6 months', detach_only => true, at => '2026-01-10 00:00+00');
INSERT INTO old_drop VALUES (koid_new_with_time('2019-05-05 00:00+00')), (koid_new_with_time('2025-12-31 00:00+00'));
INSERT INTO old_keep VALUES (koid_new_with_time('2019-05-05 00:00+00')), (koid_new_with_time('2025-12-31 00:00+00'));
SELECT action, partition_name, period, rows FROM kid_partition_maintain('old_drop', at => '2026-01-10 00:00+00');
SELECT action, partition_name, period, rows FROM kid_partition_maintain('old_keep', at => '2026-01-10 00:00+00');
INSERT INTO old_keep VALUES (koid_new_with_time('2019-05-06 00:00+00'));
SELECT action, partition_name, rows FROM kid_partition_maintain('old_keep', at => '2026-01-10 00:00+00');
SELECT count(*) AS old_drop_rows FROM old_drop;
SELECT relname, relispartition, (SELECT count(*) FROM old_keep_p201905) AS rows_kept, (SELECT count(*) FROM old_keep_p201905_1) AS rows_kept_1
FROM pg_class WHERE relname LIKE 'old_keep_p2019%' AND relkind = 'r' ORDER BY relname;
-- koid partitions record the epoch they were made under: another one stops
-- the maintenance of the table (55000).
SELECT parent, koid_epoch_ms, uid_interval FROM kid_partition_config WHERE parent = 'old_drop'::regclass;
UPDATE kid_partition_config SET koid_epoch_ms = 1288834974657 WHERE parent = 'old_drop'::regclass;
SAVEPOINT before_epoch;
SELECT * FROM kid_partition_maintain('old_drop', at => '2026-01-10 00:00+00');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO before_epoch;
ROLLBACK;

-- A row far ahead (a clock that was wrong) waits in the default partition
-- until premake reaches its period: kid makes partitions up to premake
-- periods ahead, never further.
BEGIN;
CREATE TABLE ahead (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM kid_partition_by_time('ahead', '1 month', premake => 1, at => '2026-01-10 00:00+00');
INSERT INTO ahead VALUES (sno_new_with_time('2070-07-07 00:00+00'));
SELECT action, partition_name, rows, detail FROM kid_partition_maintain('ahead', at => '2026-01-10 00:00+00');
SELECT action, partition_name, rows FROM kid_partition_maintain('ahead', at => '2070-06-10 00:00+00');
ROLLBACK;

-- A uuid table holds version 7 uuids only.  PostgreSQL places a row by the
-- bytes of its key, so a version 4 uuid would land in the partition its
-- random first 48 bits fall in, and be retired with it: kid's CHECK on the
-- table refuses any other version (23514) wherever its bits fall, in a
-- partition kept, in one retired next, in the default partition, below an
-- archive's bound.  v4(t) is a uuid of version 4 whose first 48 bits are
-- those of a version 7 uuid of time t.
BEGIN;
CREATE FUNCTION pg_temp.v4(t timestamptz) RETURNS uuid LANGUAGE sql
RETURN overlay(uuidv7_new_with_time(t)::text PLACING '4' FROM 15 FOR 1)::uuid;
CREATE TABLE mixed (id uuid PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE mixed_archive PARTITION OF mixed FOR VALUES FROM (MINVALUE) TO (uuidv7_from_timestamp('2025-12-01 00:00+00'));
SELECT count(*) AS made FROM kid_partition_by_time('mixed', '1 month', premake => 2, at => '2025-12-10 00:00+00');
SELECT c.relname, k.conname, pg_get_constraintdef(k.oid) FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
WHERE k.contype = 'c' AND c.relname LIKE 'mixed%' ORDER BY 1, 2;
-- (Terse: the DETAIL would print the uuid's random bits.)
\set VERBOSITY terse
SAVEPOINT v4;
INSERT INTO mixed VALUES (pg_temp.v4('2026-01-20 00:00+00'));  -- January: kept
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO v4;
INSERT INTO mixed VALUES (pg_temp.v4('2025-12-20 00:00+00'));  -- December: retired by the run below
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO v4;
INSERT INTO mixed VALUES (pg_temp.v4('2030-07-07 00:00+00'));  -- no partition: the default one
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO v4;
INSERT INTO mixed VALUES (pg_temp.v4('2025-07-07 00:00+00'));  -- the archive
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO v4;
INSERT INTO mixed VALUES ('00000000-0000-4000-8000-000000000000');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO v4;
\set VERBOSITY default
-- Version 7 uuids go where their time says; a retention of a month at
-- 2026-02-10 retires the archive and December; configured again, the table
-- gets no second CHECK.
INSERT INTO mixed VALUES (uuidv7_new_with_time('2025-07-07 00:00+00')), (uuidv7_new_with_time('2025-12-20 00:00+00')),
                         (uuidv7_new_with_time('2026-01-20 00:00+00')), (uuidv7_new_with_time('2026-02-09 00:00+00'));
SELECT action, partition_name, rows FROM kid_partition_by_time('mixed', '1 month', premake => 0, retain => '1 month', at => '2026-02-10 00:00+00');
SELECT uuidv7_to_timestamp(id) AS made, tableoid::regclass AS partition FROM mixed ORDER BY id;
SELECT count(*) AS kid_checks FROM pg_constraint WHERE conrelid = 'mixed'::regclass AND contype = 'c';
ROLLBACK;
-- A uuid table that holds a uuid of another version is refused, and left
-- unconfigured.
BEGIN;
CREATE TABLE has_v4 (id uuid PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE has_v4_all PARTITION OF has_v4 FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
INSERT INTO has_v4 VALUES (gen_random_uuid());
SAVEPOINT refused;
SELECT count(*) FROM kid_partition_by_time('has_v4', '1 month', at => '2026-01-10 00:00+00');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO refused;
SELECT count(*) AS configured FROM kid_partition_config WHERE parent = 'has_v4'::regclass;
ROLLBACK;

-- Partitions attached by hand are respected: kid makes no partition that
-- overlaps one, and rows of a period one overlaps wait in the default
-- partition; retention retires one once it is wholly older than the
-- cutoff, an archive FROM (MINVALUE) too.
BEGIN;
CREATE TABLE hand (id sno PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE hand_archive PARTITION OF hand FOR VALUES FROM (MINVALUE) TO (sno_from_timestamp('2026-01-01 00:00+00'));
CREATE TABLE hand_early_feb PARTITION OF hand FOR VALUES FROM (sno_from_timestamp('2026-02-01 00:00+00')) TO (sno_from_timestamp('2026-02-15 00:00+00'));
SELECT action, partition_name FROM kid_partition_by_time('hand', '1 month', premake => 1, at => '2026-01-10 00:00+00');
INSERT INTO hand VALUES (sno_new_with_time('2025-03-03 00:00+00')), (sno_new_with_time('2026-02-10 00:00+00')), (sno_new_with_time('2026-02-20 00:00+00'));
SELECT action, partition_name, rows FROM kid_partition_maintain('hand', at => '2026-02-03 00:00+00');
SELECT sno_to_timestamp(id) AS made, tableoid::regclass AS partition FROM hand ORDER BY id;
-- At 2026-03-10, a row of that day in the table, with a month's retention
-- the cutoff is 2026-02-10: the archive and January go, the first half of
-- February (to the 15th) stays.
INSERT INTO hand VALUES (sno_new_with_time('2026-03-10 00:00+00'));
SELECT action, partition_name, rows FROM kid_partition_by_time('hand', '1 month', premake => 0, retain => '1 month', at => '2026-03-10 00:00+00');
SELECT sno_to_timestamp(id) AS made, tableoid::regclass AS partition FROM hand ORDER BY id;
-- A row of 2026-04-10 waits in the default partition until the run of
-- that day makes April: rows vouch for the clock from the partitions only
-- (a row dated ahead waits in the default one), so that run still counts
-- from March's row and keeps the first half of February.  The next one
-- counts from April's (cutoff 2026-03-10): the first half of February goes
-- (the row of 20 February waits: the run after would make February for it,
-- and retire it).
INSERT INTO hand VALUES (sno_new_with_time('2026-04-10 00:00+00'));
SELECT action, partition_name, rows FROM kid_partition_maintain('hand', at => '2026-04-10 00:00+00');
SELECT action, partition_name, rows FROM kid_partition_maintain('hand', at => '2026-04-10 00:00+00');
SELECT sno_to_timestamp(id) AS rows_left FROM hand ORDER BY id;
ROLLBACK;

-- Retention counts back from the older of at (the clock, for the worker)
-- and the table's newest row: a clock a month ahead (a server started
-- before NTP set its clock) retires nothing the rows do not vouch for.  A
-- daily table with a retention of 30 days and rows 0 to 20 days old at
-- 2026-03-01, maintained at 2026-04-01: every row stays, the partitions
-- the clock alone would have retired are rows keep, with a WARNING naming
-- both times.  Once a row of 2026-04-01 is in, the clock is vouched for.
BEGIN;
CREATE TABLE daily (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM kid_partition_by_time('daily', '1 day', premake => 0, retain => '30 days', at => '2026-02-09 12:00+00');
INSERT INTO daily SELECT sno_new_with_time('2026-03-01 00:00+00'::timestamptz - d * interval '1 day') FROM generate_series(0, 20) d;
SELECT count(*) AS made FROM kid_partition_maintain('daily', at => '2026-03-01 12:00+00') WHERE action = 'create';
SELECT action, count(*), min(partition_name), max(partition_name) FROM kid_partition_maintain('daily', at => '2026-04-01 12:00+00') GROUP BY action ORDER BY action;
SELECT count(*) AS rows_kept FROM daily;
INSERT INTO daily VALUES (sno_new_with_time('2026-04-01 11:00+00'));
SELECT action, count(*), min(partition_name), max(partition_name) FROM kid_partition_maintain('daily', at => '2026-04-01 12:00+00') GROUP BY action ORDER BY action;
SELECT count(*) AS rows_kept, min(id::timestamptz) AS oldest FROM daily;
-- The cutoff is exact: at 2026-04-20 00:00, with a row of that time in
-- its partition (made by the first run below), a retention of 30 days puts
-- it at 2026-03-21 00:00: the day that ends there goes, the day after
-- stays.
INSERT INTO daily VALUES (sno_new_with_time('2026-03-20 12:00+00')), (sno_new_with_time('2026-03-21 12:00+00')), (sno_new_with_time('2026-04-20 00:00+00'));
SELECT action, partition_name, rows FROM kid_partition_maintain('daily', at => '2026-04-20 00:00+00') ORDER BY action, partition_name;
SELECT action, partition_name, rows FROM kid_partition_maintain('daily', at => '2026-04-20 00:00+00') ORDER BY action, partition_name;
SELECT id::timestamptz AS made, tableoid::regclass AS partition FROM daily ORDER BY id;
ROLLBACK;

-- A retention of hours is absolute time, across a change of summer time
-- too: hourly partitions in Paris, whose clocks went forward on 29 March
-- 2026 at 01:00 UTC, retain 36 hours, maintained at 12:00 UTC that day:
-- the cutoff is 2026-03-28 00:00 UTC, 36 hours before (35 in Paris's wall
-- time), and the row of 00:30 UTC, 35.5 hours old, stays.  A retention of
-- '1 day 12 hours' counts its day on Paris's calendar (23 hours there).
BEGIN;
CREATE TABLE paris (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM kid_partition_by_time('paris', '1 hour', premake => 50, retain => '36 hours', time_zone => 'Europe/Paris', at => '2026-03-27 12:00+00');
INSERT INTO paris SELECT sno_new_with_time('2026-03-27 12:30+00'::timestamptz + h * interval '1 hour') FROM generate_series(0, 47) h
                  UNION ALL SELECT sno_new_with_time('2026-03-29 12:00+00');
SELECT kid_partition_minus('2026-03-29 12:00+00', '36 hours', 'Europe/Paris') AS cutoff_36_hours,
       kid_partition_minus('2026-03-29 12:00+00', '1 day 12 hours', 'Europe/Paris') AS cutoff_1_day_12_hours;
SELECT count(*) FILTER (WHERE action = 'drop') AS dropped FROM kid_partition_maintain('paris', at => '2026-03-29 12:00+00');
SELECT min(id::timestamptz) AS oldest_row_left FROM paris;
ROLLBACK;

-- A table that foreign keys reference: its rows never move out of the
-- default partition (the DELETE would run the keys' ON DELETE action);
-- periods without rows there are made as always.
BEGIN;
CREATE TABLE referenced (id atproto_tid PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE referencing (ref atproto_tid REFERENCES referenced ON DELETE CASCADE);
SELECT count(*) AS made FROM kid_partition_by_time('referenced', '1 month', premake => 0, at => '2026-01-10 00:00+00');
INSERT INTO referenced VALUES (tid_new_with_time('2025-12-12 00:00+00'));
INSERT INTO referencing SELECT id FROM referenced;
SELECT action, partition_name, rows FROM kid_partition_maintain('referenced', at => '2026-01-10 00:00+00');
SELECT action, partition_name, rows FROM kid_partition_maintain('referenced', at => '2026-02-10 00:00+00');
SELECT count(*) AS referencing_rows FROM referencing;
ROLLBACK;

-- What a new partition has: the table's columns, defaults, CHECK and NOT
-- NULL constraints, generated and identity columns, indexes, row triggers;
-- rows moved keep their values.  The maintenance runs as the table's
-- owner whoever calls it (here a superuser, for an owner whose name needs
-- quoting), so the partitions are the owner's, and the owner needs CREATE
-- on the schema.
BEGIN;
CREATE ROLE "regress_kid Parts Owner";
GRANT CREATE ON SCHEMA public TO "regress_kid Parts Owner";
CREATE TABLE rich (id uid NOT NULL DEFAULT uid_new(), n integer GENERATED ALWAYS AS IDENTITY, v integer CHECK (v >= 0),
                   twice integer GENERATED ALWAYS AS (v * 2) STORED, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE INDEX rich_v ON rich (v);
CREATE FUNCTION pg_temp.rich_seen() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.v := NEW.v + 100; RETURN NEW; END $$;
CREATE TRIGGER rich_seen BEFORE INSERT ON rich FOR EACH ROW EXECUTE FUNCTION pg_temp.rich_seen();
ALTER TABLE rich OWNER TO "regress_kid Parts Owner";
SELECT count(*) AS made FROM kid_partition_by_time('rich', '1 month', premake => 0, at => '2026-01-10 00:00+00');
INSERT INTO rich (id, v) VALUES (uid_new_with_time('2026-03-05 00:00+00'), 3);
SELECT action, partition_name, rows FROM kid_partition_maintain('rich', at => '2026-03-10 00:00+00');
INSERT INTO rich (id, v) VALUES (uid_new_with_time('2026-03-06 00:00+00'), 4);
SELECT tableoid::regclass AS partition, n, v, twice FROM rich ORDER BY id;
SELECT c.relname, c.relowner::regrole AS owner, (SELECT string_agg(i.indexrelid::regclass::text, ' ' ORDER BY 1) FROM pg_index i WHERE i.indrelid = c.oid) AS indexes,
       (SELECT string_agg(t.tgname, ' ') FROM pg_trigger t WHERE t.tgrelid = c.oid) AS triggers,
       (SELECT string_agg(k.conname, ' ' ORDER BY k.conname) FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'c') AS checks
FROM pg_class c WHERE c.relname LIKE 'rich\_%' AND c.relkind = 'r' ORDER BY 1;
ROLLBACK;

-- An owner that may not make the partitions: refused at configuration,
-- naming the role and the privilege (42501), even when the partitions of
-- the day are there already (made by hand) and nothing is to be made yet:
-- not from the first run that must make one, unseen in the worker's log
-- while rows pile up in the default partition.  Once configured, a run
-- that must make a partition says the same (the worker's WARNING shows
-- it); one that need not, runs.
BEGIN;
CREATE ROLE regress_kid_parts_nocreate;
CREATE SCHEMA parts_locked;
GRANT USAGE ON SCHEMA parts_locked TO regress_kid_parts_nocreate;
CREATE TABLE parts_locked.ev (id sno PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE parts_locked.ev_default PARTITION OF parts_locked.ev DEFAULT;
CREATE TABLE parts_locked.ev_day PARTITION OF parts_locked.ev
    FOR VALUES FROM (sno_from_timestamp('2026-06-01 00:00+00')) TO (sno_from_timestamp('2026-06-02 00:00+00'));
ALTER TABLE parts_locked.ev OWNER TO regress_kid_parts_nocreate;
ALTER TABLE parts_locked.ev_default OWNER TO regress_kid_parts_nocreate;
ALTER TABLE parts_locked.ev_day OWNER TO regress_kid_parts_nocreate;
SAVEPOINT refused;
SELECT count(*) FROM kid_partition_by_time('parts_locked.ev', '1 day', premake => 0, at => '2026-06-01 12:00+00');
ROLLBACK TO refused;
SELECT count(*) AS configured FROM kid_partition_config;
REVOKE USAGE ON SCHEMA parts_locked FROM regress_kid_parts_nocreate;
SAVEPOINT refused;
SELECT count(*) FROM kid_partition_by_time('parts_locked.ev', '1 day', premake => 0, at => '2026-06-01 12:00+00');
ROLLBACK TO refused;
GRANT USAGE, CREATE ON SCHEMA parts_locked TO regress_kid_parts_nocreate;
SELECT count(*) AS actions FROM kid_partition_by_time('parts_locked.ev', '1 day', premake => 0, at => '2026-06-01 12:00+00');
REVOKE CREATE ON SCHEMA parts_locked FROM regress_kid_parts_nocreate;
-- The same day: nothing to make, the run goes through.
SELECT count(*) AS actions FROM kid_partition_maintain('parts_locked.ev', at => '2026-06-01 18:00+00');
-- The next day needs a partition.
SAVEPOINT refused;
SELECT count(*) FROM kid_partition_maintain('parts_locked.ev', at => '2026-06-02 12:00+00');
ROLLBACK TO refused;
-- Every table at once: a row fail, whose detail names them too.
SELECT parent_table, action, detail FROM kid_partition_maintain(at => '2026-06-02 12:00+00');
ROLLBACK;
-- And a tablespace of the table's own, where its partitions go.
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE regress_kid_parts_space LOCATION '';
BEGIN;
CREATE ROLE regress_kid_parts_nospace;
CREATE SCHEMA parts_spaced AUTHORIZATION regress_kid_parts_nospace;
CREATE TABLE parts_spaced.ev (id sno PRIMARY KEY) PARTITION BY RANGE (id) TABLESPACE regress_kid_parts_space;
CREATE TABLE parts_spaced.ev_default PARTITION OF parts_spaced.ev DEFAULT;
CREATE TABLE parts_spaced.ev_day PARTITION OF parts_spaced.ev
    FOR VALUES FROM (sno_from_timestamp('2026-06-01 00:00+00')) TO (sno_from_timestamp('2026-06-02 00:00+00'));
ALTER TABLE parts_spaced.ev OWNER TO regress_kid_parts_nospace;
ALTER TABLE parts_spaced.ev_default OWNER TO regress_kid_parts_nospace;
ALTER TABLE parts_spaced.ev_day OWNER TO regress_kid_parts_nospace;
SAVEPOINT refused;
SELECT count(*) FROM kid_partition_by_time('parts_spaced.ev', '1 day', premake => 0, at => '2026-06-01 12:00+00');
ROLLBACK TO refused;
GRANT CREATE ON TABLESPACE regress_kid_parts_space TO regress_kid_parts_nospace;
SELECT count(*) AS actions FROM kid_partition_by_time('parts_spaced.ev', '1 day', premake => 0, at => '2026-06-01 12:00+00');
SELECT action, partition_name FROM kid_partition_maintain('parts_spaced.ev', at => '2026-06-02 12:00+00');
SELECT c.relname, t.spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace
WHERE c.relnamespace = 'parts_spaced'::regnamespace AND c.relkind = 'r' ORDER BY 1;
ROLLBACK;
DROP TABLESPACE regress_kid_parts_space;
RESET allow_in_place_tablespaces;

-- Names: the table's name, _p and the period; a long name is cut to fit
-- 63 bytes; a name taken by another table gets _1; quoted names stay
-- quoted.  Daily periods in Paris start at its midnight.
BEGIN;
CREATE SCHEMA "Odd Schema";
CREATE TABLE "Odd Schema"."Events Of A Very Long Name That Goes On And On And On" (id koid PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE "Odd Schema"."Events Of A Very Long Name That Goes On And O_p20260311" (x int);
-- (A domain takes a name CREATE TABLE needs too: a table makes a type of its name.)
CREATE DOMAIN "Odd Schema"."Events Of A Very Long Name That Goes On And O_p20260312" AS integer;
SELECT action, partition_name, period FROM kid_partition_by_time('"Odd Schema"."Events Of A Very Long Name That Goes On And On And On"', '1 day',
                                                                 premake => 1, time_zone => 'Europe/Paris', at => '2026-03-11 12:00+00');
SELECT parent, every, premake, time_zone, partitions FROM kid_partition_status;
-- DROP TABLE forgets the table's configuration.
DROP TABLE "Odd Schema"."Events Of A Very Long Name That Goes On And On And On";
SELECT count(*) AS configured FROM kid_partition_config;
ROLLBACK;

-- Summer time: hourly partitions in New York around 8 March 2026, whose
-- 02:00 does not exist: no partition for it.
BEGIN;
CREATE TABLE hourly (id atproto_tid PRIMARY KEY) PARTITION BY RANGE (id);
SELECT action, partition_name, period FROM kid_partition_by_time('hourly', '1 hour', premake => 3, time_zone => 'America/New_York', at => '2026-03-08 06:30+00');
ROLLBACK;

-- ---------------------------------------------------------------------------
-- 4. Errors, each with its SQLSTATE; none leaves a configuration behind.
-- ---------------------------------------------------------------------------
CREATE TABLE plain_table (id sno PRIMARY KEY);
CREATE TABLE by_list (id sno PRIMARY KEY) PARTITION BY LIST (id);
CREATE TABLE by_hash (id sno PRIMARY KEY) PARTITION BY HASH (id);
CREATE TABLE two_columns (id sno, n int, PRIMARY KEY (id, n)) PARTITION BY RANGE (id, n);
CREATE TABLE by_expression (id koid NOT NULL) PARTITION BY RANGE ((koid_to_timestamp(id)));
CREATE TABLE by_text (id text PRIMARY KEY) PARTITION BY RANGE (id);
CREATE OPERATOR CLASS regress_uuid_ops FOR TYPE uuid USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >, FUNCTION 1 uuid_cmp(uuid, uuid);
CREATE TABLE other_class (id uuid NOT NULL) PARTITION BY RANGE (id regress_uuid_ops);
CREATE DOMAIN event_id AS sno;
CREATE TABLE by_domain (id event_id PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE ok (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT * FROM kid_partition_by_time('plain_table', '1 day');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('by_list', '1 day');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('by_hash', '1 day');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('two_columns', '1 day');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('by_expression', '1 day');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('by_text', '1 day');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('other_class', '1 day');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('ok', '1 month 2 days');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('ok', '1 day', premake => -1);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('ok', '1 day', premake => 1001);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('ok', '1 day', retain => '-1 day');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('ok', '1 day', time_zone => 'Nowhere/Bogus');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('ok', NULL);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_by_time('ok', '1 day', at => 'infinity');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- sno holds 2010 to 2079: partitions outside are refused by its bound (22008).
SELECT * FROM kid_partition_by_time('ok', '1 month', at => '2009-06-01 00:00+00');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_maintain('ok');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_maintain('ok', at => NULL);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_maintain(at => '-infinity');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- It plans again under its lock with a new snapshot: READ COMMITTED only (25000).
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM kid_partition_maintain('ok');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT uuidv7_to_timestamp('not a uuid'::text);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- A domain over a kid type partitions like the type, a domain over that
-- domain too.
BEGIN;
SELECT action, partition_name FROM kid_partition_by_time('by_domain', '1 year', premake => 0, at => '2026-06-01 00:00+00');
CREATE DOMAIN event_id_again AS event_id;
CREATE TABLE by_domain_again (id event_id_again PRIMARY KEY) PARTITION BY RANGE (id);
SELECT action, partition_name FROM kid_partition_by_time('by_domain_again', '1 year', premake => 0, at => '2026-06-01 00:00+00');
ROLLBACK;
-- A temporary table ends with its session, which fires no event trigger:
-- its configuration would outlive it and name a free OID.  Refused (0A000).
CREATE TEMP TABLE temporary_parts (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT * FROM kid_partition_by_time('temporary_parts', '1 day');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
INSERT INTO kid_partition_config (parent, every, premake) VALUES ('temporary_parts', '1 day', 1);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
DROP TABLE temporary_parts;
-- A configuration row names its table by OID and by name: a rename is
-- followed (an event trigger of kid's); a table whose name is not the
-- row's (renamed while kid could not follow, or another table that took
-- the OID of a dropped one) is refused (55000) until configured again.
BEGIN;
SELECT count(*) AS made FROM kid_partition_by_time('ok', '1 day', premake => 0, at => '2026-06-01 00:00+00');
ALTER TABLE ok RENAME TO ok_renamed;
SELECT parent, relname FROM kid_partition_config;
SELECT count(*) AS made FROM kid_partition_maintain('ok_renamed', at => '2026-06-02 00:00+00');
ALTER EVENT TRIGGER kid_partition_follow_rename DISABLE;
ALTER TABLE ok_renamed RENAME TO ok_unfollowed;
ALTER EVENT TRIGGER kid_partition_follow_rename ENABLE;
SAVEPOINT unfollowed;
SELECT * FROM kid_partition_maintain('ok_unfollowed', at => '2026-06-03 00:00+00');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO unfollowed;
SELECT count(*) AS made FROM kid_partition_by_time('ok_unfollowed', '1 day', premake => 0, at => '2026-06-03 00:00+00');
SELECT parent, relname FROM kid_partition_config;
ROLLBACK;
-- Only the table's owner (or a member of its role) configures it, or
-- writes its rows of kid's tables: 42501.
CREATE ROLE regress_kid_parts_user;
GRANT CREATE ON SCHEMA public TO regress_kid_parts_user;
SET ROLE regress_kid_parts_user;
SELECT * FROM kid_partition_by_time('ok', '1 day');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
INSERT INTO kid_partition_config (parent, every, premake) VALUES ('ok', '1 day', 1);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
INSERT INTO kid_partition_config (parent, every, premake) VALUES (4000000000::oid::regclass, '1 day', 1);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_partition_maintain('ok');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- Its own table it may; another's is left out of kid_partition_maintain().
CREATE TABLE mine (id sno PRIMARY KEY) PARTITION BY RANGE (id);
BEGIN;
SELECT count(*) AS made FROM kid_partition_by_time('mine', '1 day', premake => 0, at => '2026-06-01 00:00+00');
RESET ROLE;
SELECT count(*) AS made FROM kid_partition_by_time('ok', '1 day', premake => 0, at => '2026-06-01 00:00+00');
SET ROLE regress_kid_parts_user;
SELECT parent_table, action FROM kid_partition_maintain(at => '2026-06-02 00:00+00');
UPDATE kid_partition_config SET premake = 3 WHERE parent = 'ok'::regclass;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK;
-- Nor may it move another's row to a table of its own: the row it was is
-- checked as well as the row it becomes (42501).
BEGIN;
RESET ROLE;
SELECT count(*) AS made FROM kid_partition_by_time('ok', '1 day', premake => 0, at => '2026-06-01 00:00+00');
DELETE FROM kid_partition_state;
SET ROLE regress_kid_parts_user;
UPDATE kid_partition_config SET parent = 'mine'::regclass WHERE parent = 'ok'::regclass;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK;
RESET ROLE;
SELECT count(*) AS configured FROM kid_partition_config;
-- ---------------------------------------------------------------------------
-- 5. Audit: a drop or a detach says how many rows the partition held;
--    kid_partition_history keeps what the runs made and retired.
-- ---------------------------------------------------------------------------
-- Two tables of months, premade to March, one dropping, one detaching:
-- seven rows of January, a row of March that vouches for the clock, five
-- backfilled rows of 2019 waiting in the default partition, and a row far
-- ahead (which waits).
BEGIN;
CREATE TABLE audited (id sno PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE audited_kept (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT action, partition_name, rows FROM kid_partition_by_time('audited', '1 month', premake => 2, retain => '1 month', at => '2026-01-10 00:00+00');
SELECT count(*) AS made FROM kid_partition_by_time('audited_kept', '1 month', premake => 2, retain => '1 month', detach_only => true, at => '2026-01-10 00:00+00');
INSERT INTO audited SELECT sno_new_with_time('2026-01-05 00:00+00'::timestamptz + g * interval '1 minute') FROM generate_series(1, 7) g;
INSERT INTO audited SELECT sno_new_with_time('2019-05-06 00:00+00'::timestamptz + g * interval '1 minute') FROM generate_series(1, 5) g;
INSERT INTO audited VALUES (sno_new_with_time('2026-03-05 00:00+00')), (sno_new_with_time('2027-01-01 00:00+00'));
INSERT INTO audited_kept SELECT id FROM audited;
SELECT count(*) AS recorded_before FROM kid_partition_history WHERE parent = 'audited'::regclass;
-- A dry run: the run in a transaction rolled back (here a savepoint) shows
-- what it would do, and leaves every partition, row and record as it was.
SAVEPOINT dry_run;
SELECT action, partition_name, rows FROM kid_partition_maintain('audited', at => '2026-03-10 00:00+00');
ROLLBACK TO dry_run;
SELECT count(*) AS rows_after_dry_run, (SELECT count(*) FROM kid_partition_history WHERE parent = 'audited'::regclass) AS recorded_after_dry_run
FROM audited;
-- The runs: the backfill's partition is made, its rows moved, and retired
-- with them in the same run; each drop and detach has the rows its
-- partition held.
SELECT action, partition_name, rows FROM kid_partition_maintain('audited', at => '2026-03-10 00:00+00');
SELECT action, partition_name, rows FROM kid_partition_maintain('audited_kept', at => '2026-03-10 00:00+00');
-- A detached partition holds what its row said.
SELECT (SELECT count(*) FROM audited_kept_p201905) AS detached_201905, (SELECT count(*) FROM audited_kept_p202601) AS detached_202601,
       (SELECT count(*) FROM audited_kept) AS left_in_table;
-- The history: what made or retired a partition (wait and keep are not
-- recorded), with the time the run was given, who ran it, and whether it
-- was kid's worker.
SELECT parent, parent_name, action, partition_name, rows, run_at, run_by = current_user AS run_by_me, by_worker,
       recorded_at >= now() AS recorded_now
FROM kid_partition_history WHERE parent_name LIKE 'public.audited%' ORDER BY id;
-- A role reads the rows of the tables it may read: none of audited (not
-- its owner, no SELECT), its nine once granted SELECT; its own table's.
-- The owner's own runs are recorded under its name, though it may not
-- write the history, nor may any role (42501): only kid records.
SET ROLE regress_kid_parts_user;
SELECT count(*) AS readable FROM kid_partition_history WHERE parent = 'audited'::regclass;
RESET ROLE;
GRANT SELECT ON audited TO regress_kid_parts_user;
SET ROLE regress_kid_parts_user;
SELECT count(*) AS readable_granted FROM kid_partition_history WHERE parent = 'audited'::regclass;
SELECT count(*) AS made FROM kid_partition_by_time('mine', '1 day', premake => 0, at => '2026-06-01 00:00+00');
SELECT parent, action, partition_name, run_by FROM kid_partition_history WHERE parent = 'mine'::regclass ORDER BY id;
SAVEPOINT forge;
INSERT INTO kid_partition_history (parent, parent_name, run_at, recorded_at, action, partition_name, rows, run_by, by_worker)
VALUES ('mine', 'public.mine', now(), now(), 'drop', 'public.mine_p202601', 0, 'postgres', true);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO forge;
UPDATE kid_partition_history SET rows = 0;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO forge;
DELETE FROM kid_partition_history;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO forge;
TRUNCATE kid_partition_history;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO forge;
-- Nor may it call the trigger that records the end of a configuration
-- (42501), nor fire it on a table of its own.
CREATE TABLE forged (parent regclass, relname name);
CREATE TRIGGER forged AFTER DELETE ON forged FOR EACH ROW EXECUTE FUNCTION kid_partition_config_removed();
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO forge;
RESET ROLE;
-- Nor a superuser's trigger elsewhere (39P01).
CREATE TABLE forged (parent regclass, relname name);
CREATE TRIGGER forged AFTER DELETE ON forged FOR EACH ROW EXECUTE FUNCTION kid_partition_config_removed();
INSERT INTO forged VALUES ('audited', 'audited');
DELETE FROM forged;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO forge;
RESET ROLE;
-- A table that took the OID of a dropped table of another role's does not
-- show it that table's rows: a row recorded for mine's OID as a table of
-- the superuser's (what a dropped table of the superuser's whose OID mine
-- took would have left) is not for mine's owner to read.  A table given to
-- another role shows it the rows recorded since (and those recorded as a
-- role's it is a member of): none of audited's.
INSERT INTO kid_partition_history (parent, parent_name, parent_owner, run_at, recorded_at, action, partition_name, rows, run_by, by_worker)
VALUES ('mine', 'public.payroll', current_user::regrole, now(), now(), 'drop', 'public.payroll_p202601', 9472, current_user, false);
SET ROLE regress_kid_parts_user;
SELECT parent_name, action, partition_name FROM kid_partition_history WHERE parent = 'mine'::regclass ORDER BY id;
RESET ROLE;
ALTER TABLE audited OWNER TO regress_kid_parts_user;
SET ROLE regress_kid_parts_user;
SELECT count(*) AS new_owner_reads FROM kid_partition_history WHERE parent = 'audited'::regclass;
RESET ROLE;
ALTER TABLE audited OWNER TO CURRENT_USER;
-- The history outlives the configuration: DROP TABLE, and the owner's
-- DELETE of its row of kid_partition_config, take neither the drops and
-- detaches nor the rows they held; each is recorded (forget: the table is
-- gone; unconfigure: it is not), and the partitions made by the tables no
-- longer configured go.
DROP TABLE audited;
DELETE FROM kid_partition_config WHERE parent = 'audited_kept'::regclass;
SELECT parent_name, action, partition_name, rows, detail, run_by = current_user AS run_by_me
FROM kid_partition_history WHERE parent_name LIKE 'public.audited%' ORDER BY id;
ROLLBACK;

-- ---------------------------------------------------------------------------
-- 6. Audit against the table's owner: its row-level security, its
--    privileges, foreign and large partitions neither change nor stop the
--    count (a count kid cannot make is NULL, and the partition is retired
--    all the same); the owner can neither erase nor flush the record of a
--    superuser's retirement.
-- ---------------------------------------------------------------------------
BEGIN;
CREATE FOREIGN DATA WRAPPER regress_kid_nowhere;
CREATE SERVER regress_kid_nowhere FOREIGN DATA WRAPPER regress_kid_nowhere;
SET ROLE regress_kid_parts_user;
CREATE TABLE owned (id sno PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE owned_kept (id sno) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM kid_partition_by_time('owned', '1 month', premake => 1, retain => '1 month', at => '2026-01-10 00:00+00');
SELECT count(*) AS made FROM kid_partition_by_time('owned_kept', '1 month', premake => 1, retain => '1 month', detach_only => true, at => '2026-01-10 00:00+00');
INSERT INTO owned SELECT sno_new_with_time('2026-01-05 00:00+00'::timestamptz + g * interval '1 minute') FROM generate_series(1, 7) g;
INSERT INTO owned_kept SELECT id FROM owned;
INSERT INTO owned VALUES (sno_new_with_time('2026-04-05 00:00+00'));
INSERT INTO owned_kept VALUES (sno_new_with_time('2026-04-05 00:00+00'));
-- Its runs to April: partitions to May, the row of April moved out of the
-- default partition (it vouches for the clock at the next run).
SELECT count(*) AS made FROM kid_partition_maintain('owned', at => '2026-04-10 00:00+00');
SELECT count(*) AS made FROM kid_partition_maintain('owned_kept', at => '2026-04-10 00:00+00');
-- Its January partition hidden from itself (FORCE ROW LEVEL SECURITY, a
-- policy that sees no row), February's behind a policy that raises.
ALTER TABLE owned_p202601 ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY nothing ON owned_p202601 USING (false);
ALTER TABLE owned_p202602 ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY raises ON owned_p202602 USING (1 / 0 = 1);
SELECT count(*) AS owner_sees FROM owned_p202601;
RESET ROLE;
-- owned_kept: January's partition another role's, which revokes every
-- privilege of the table's owner on it; a foreign partition of 2025 (a
-- wrapper with no handler: scanning it is an error); February's of 1100
-- pages, more than the count reads.
ALTER TABLE owned_kept_p202601 OWNER TO CURRENT_USER;
REVOKE ALL ON owned_kept_p202601 FROM regress_kid_parts_user;
CREATE FOREIGN TABLE owned_kept_p2025 PARTITION OF owned_kept
FOR VALUES FROM (sno_from_timestamp('2025-01-01 00:00+00')) TO (sno_from_timestamp('2025-02-01 00:00+00')) SERVER regress_kid_nowhere;
ALTER TABLE owned_kept_p2025 OWNER TO regress_kid_parts_user;
ALTER TABLE owned_kept ADD COLUMN pad text;
ALTER TABLE owned_kept ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO owned_kept SELECT sno_new_with_time('2026-02-05 00:00+00'::timestamptz + g * interval '1 minute'), repeat('x', 7000) FROM generate_series(1, 1100) g;
ANALYZE owned_kept_p202602;
-- Then as many rows again, which its statistics (1100 rows in 1100 pages)
-- have not seen: the estimate kid gives is scaled to its pages now, as the
-- planner's is (2200), not the statistics' number.
INSERT INTO owned_kept SELECT sno_new_with_time('2026-02-15 00:00+00'::timestamptz + g * interval '1 minute'), repeat('x', 7000) FROM generate_series(1, 1100) g;
SELECT pg_relation_size('owned_kept_p202602') / current_setting('block_size')::integer > 1024 AS over_1024_pages;
-- A superuser's runs: every row counted, but those of February's large
-- partition and of the foreign one, retired without a count.
SELECT action, partition_name, rows, detail FROM kid_partition_maintain('owned', at => '2026-04-10 00:00+00') WHERE action IN ('drop', 'detach');
SELECT action, partition_name, rows, detail FROM kid_partition_maintain('owned_kept', at => '2026-04-10 00:00+00') WHERE action IN ('drop', 'detach');
SELECT (SELECT count(*) FROM owned_kept_p202601) AS detached_202601, (SELECT count(*) FROM owned_kept_p202602) AS detached_202602;
-- The count itself: NULL for a partition of more pages than it may read,
-- or not a plain table; for the owner of the table a partition is
-- attached to, though the partition is another's; refused (42501) to a
-- role that owns neither.
SELECT kid_partition_rows('owned_kept_p202602', 3000) AS counted, kid_partition_rows('owned_kept_p202602', 1024) AS over,
       kid_partition_rows('owned_kept', 1024) AS partitioned;
ALTER TABLE owned_kept ATTACH PARTITION owned_kept_p202601
FOR VALUES FROM (sno_from_timestamp('2026-01-01 00:00+00')) TO (sno_from_timestamp('2026-02-01 00:00+00'));
SET ROLE regress_kid_parts_user;
SELECT kid_partition_rows('owned_kept_p202601', 1024) AS through_its_table;
SAVEPOINT refused;
SELECT kid_partition_rows('pg_catalog.pg_class', 1024);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO refused;
-- The owner ends its table's configuration: recorded, and the superuser's
-- drops stay.
DELETE FROM kid_partition_config WHERE parent = 'owned'::regclass;
SELECT parent_name, action, partition_name, rows, run_by = 'regress_kid_parts_user' AS run_by_owner
FROM kid_partition_history WHERE parent = 'owned'::regclass ORDER BY id;
-- DROP TABLE by the owner: its partitions made go from the history, its
-- retirements stay; the rows of a table that is gone are for
-- pg_read_all_stats (and superusers) to read.
DROP TABLE owned_kept;
SELECT count(*) AS owner_reads FROM kid_partition_history WHERE parent_name = 'public.owned_kept';
RESET ROLE;
SELECT parent_name, action, partition_name, rows, run_by = 'regress_kid_parts_user' AS run_by_owner
FROM kid_partition_history WHERE parent_name = 'public.owned_kept' ORDER BY id;
GRANT pg_read_all_stats TO regress_kid_parts_user;
SET ROLE regress_kid_parts_user;
SELECT count(*) AS stats_reader_reads FROM kid_partition_history WHERE parent_name = 'public.owned_kept';
RESET ROLE;
REVOKE pg_read_all_stats FROM regress_kid_parts_user;
-- A run counts 1024 pages in all, the oldest partitions first: of three
-- partitions to retire, January's of 600 pages is counted, February's of
-- 600 is not (424 pages are left; its statistics have never been
-- gathered), March's of one page is.
CREATE TABLE budgeted (id sno PRIMARY KEY, pad text) PARTITION BY RANGE (id);
ALTER TABLE budgeted ALTER COLUMN pad SET STORAGE PLAIN;
SELECT count(*) AS made FROM kid_partition_by_time('budgeted', '1 month', premake => 4, retain => '1 month', at => '2026-01-10 00:00+00');
INSERT INTO budgeted SELECT sno_new_with_time(m + g * interval '1 minute'), repeat('x', 7000)
FROM (VALUES (timestamptz '2026-01-05 00:00+00'), (timestamptz '2026-02-05 00:00+00')) v(m), generate_series(1, 600) g;
INSERT INTO budgeted VALUES (sno_new_with_time('2026-03-05 00:00+00'), 'one'), (sno_new_with_time('2026-05-05 00:00+00'), 'newest');
SELECT c.relname, pg_relation_size(c.oid) / current_setting('block_size')::integer AS pages
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'budgeted'::regclass AND c.relname < 'budgeted_p202604' ORDER BY 1;
SELECT action, partition_name, rows, regexp_replace(detail, '^wholly older than [^;]*', '...') AS detail
FROM kid_partition_maintain('budgeted', at => '2026-05-10 00:00+00') WHERE action = 'drop';
-- The window of a table: a superuser's run drops seven rows; then the
-- owner makes 1000 periods ahead, twice.  Partitions made push no
-- retirement out, and the run of 1000 creates keeps every row of its own
-- (above the window of 1000, which the next run brings it back to).
SET ROLE regress_kid_parts_user;
CREATE TABLE flushed (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM kid_partition_by_time('flushed', '1 day', premake => 0, retain => '1 day', at => '2026-01-10 00:00+00');
INSERT INTO flushed SELECT sno_new_with_time('2026-01-10 00:00+00'::timestamptz + g * interval '1 minute') FROM generate_series(1, 7) g;
INSERT INTO flushed VALUES (sno_new_with_time('2026-01-12 12:00+00'));
RESET ROLE;
SELECT count(*) AS made FROM kid_partition_maintain('flushed', at => '2026-01-12 13:00+00');
SELECT action, partition_name, rows FROM kid_partition_maintain('flushed', at => '2026-01-12 13:00+00');
SET ROLE regress_kid_parts_user;
SELECT count(*) AS made FROM kid_partition_by_time('flushed', '1 day', premake => 1000, retain => '1 day', at => '2026-01-12 13:00+00');
SELECT action, count(*) FROM kid_partition_history WHERE parent = 'flushed'::regclass GROUP BY action ORDER BY action;
SELECT count(*) AS made FROM kid_partition_maintain('flushed', at => '2026-01-13 13:00+00');
SELECT action, count(*) FROM kid_partition_history WHERE parent = 'flushed'::regclass GROUP BY action ORDER BY action;
SELECT action, partition_name, rows, run_by FROM kid_partition_history WHERE parent = 'flushed'::regclass AND action = 'drop' ORDER BY id;
RESET ROLE;
ROLLBACK;
-- A run of more than 1000 actions (the default partition and 1001 periods)
-- keeps every row of its own.
BEGIN;
CREATE TABLE far_ahead (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM kid_partition_by_time('far_ahead', '1 day', premake => 1000, at => '2026-01-10 00:00+00');
SELECT action, count(*) FROM kid_partition_history WHERE parent = 'far_ahead'::regclass GROUP BY action ORDER BY action;
ROLLBACK;
DROP TABLE plain_table, by_list, by_hash, two_columns, by_expression, by_text, other_class, by_domain, ok, mine;
DROP OPERATOR CLASS regress_uuid_ops USING btree;
DROP OPERATOR FAMILY regress_uuid_ops USING btree;
DROP DOMAIN event_id;
REVOKE CREATE ON SCHEMA public FROM regress_kid_parts_user;
DROP ROLE regress_kid_parts_user;
