-- database_origin: the mark a database carries of the clusters its ids
-- came from (kid_database_origin), the refusal of a database that came
-- from another cluster, and kid_adopt_database().  Another cluster is
-- simulated with a row of another system identifier; the real moves
-- (pg_upgrade, pg_dump | pg_restore) are test/server/37-pg_upgrade.sh.
SET TIME ZONE 'UTC';
CREATE DATABASE regress_kid_moved;
\c regress_kid_moved
SET TIME ZONE 'UTC';
CREATE EXTENSION kid;
-- CREATE EXTENSION recorded this cluster.
SELECT position, how, system_identifier = (SELECT system_identifier FROM pg_control_system()) AS this_cluster, floors
FROM kid_database_origin;
-- The extension's configuration: pg_dump dumps every row.
SELECT extconfig::regclass[] AS config, extcondition AS condition FROM pg_extension WHERE extname = 'kid';
CREATE TABLE ids (s sno, t atproto_tid PRIMARY KEY, k koid, u uid, g uid_global);
INSERT INTO ids SELECT sno_new(), tid_new(), koid_new(), uid_new(), uid_global_new() FROM generate_series(1, 10);
-- Ids made after them, in a later time unit of every scheme: the stored ids
-- are below what this server's generators reached.
SELECT pg_sleep(0.01);
SELECT sno_new() > (SELECT max(s) FROM ids) AND tid_new() > (SELECT max(t) FROM ids) AND koid_new() > (SELECT max(k) FROM ids)
       AND uid_new() > (SELECT max(u) FROM ids) AND uid_global_new() > (SELECT max(g) FROM ids)
       AND uuidv7_new() > uuidv7_from_timestamp(now() - interval '1 minute') AS later;

-- A row of another cluster, as a restore of its dump adds: the trigger
-- numbers it after the rows already there, whatever position it brings.
INSERT INTO kid_database_origin (position, system_identifier, how) VALUES (1, 42, 'created');
SELECT position, how, system_identifier = 42 AS other_cluster FROM kid_database_origin ORDER BY position;
-- This session generated before; the change makes it read the mark again
-- (as a data-only restore into a database in use would): refused.
\set VERBOSITY terse
SELECT tid_new();
SELECT sno_new();
-- A new backend reads the mark at its first id: every generator refuses,
-- in a parallel worker too (the worker reads the table itself: this
-- backend, its leader, made no id).
\c regress_kid_moved
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false) AS parallel;
SET parallel_setup_cost = 0;
DO $$
DECLARE
    state text;
    context text;
BEGIN
    PERFORM count(tid_new()) FROM generate_series(1, 10);
    RAISE NOTICE 'generated';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, context = PG_EXCEPTION_CONTEXT;
    RAISE NOTICE 'SQLSTATE %, raised in a parallel worker: %', state, context LIKE 'parallel worker%';
END $$;
\c regress_kid_moved
\set VERBOSITY terse
SELECT sno_new();
SELECT tid_new();
SELECT koid_new();
SELECT uid_new();
SELECT uid_global_new();
SELECT tid_new_with_time('2024-01-01');
BEGIN READ ONLY;
SELECT tid_new();
ROLLBACK;
-- The other cluster's own adoption (a row (42, 'adopted'): the database was
-- adopted there before its dump) is not this cluster's: still refused,
-- naming cluster 42.
INSERT INTO kid_database_origin (position, system_identifier, how) VALUES (0, 42, 'adopted');
\c regress_kid_moved
\set VERBOSITY terse
SELECT tid_new();
DELETE FROM kid_database_origin WHERE system_identifier = 42 AND how = 'adopted';
\set VERBOSITY default
DO $$
DECLARE
    state text;
    hint text;
BEGIN
    PERFORM tid_new();
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, hint = PG_EXCEPTION_HINT;
    RAISE NOTICE 'SQLSTATE %, hint: %', state, hint;
END $$;
-- Decoding and reading are not refused.
SELECT count(*) AS rows, count(DISTINCT tid_to_timestamp(t)) AS decoded FROM ids;
-- kid_node_info() says why.
SELECT DISTINCT generation FROM kid_node_info();

-- Only a superuser adopts, or raises floors.
CREATE ROLE regress_kid_adopter;
SET ROLE regress_kid_adopter;
SELECT * FROM kid_adopt_database();
SELECT * FROM kid_raise_floors(ARRAY['atproto_tid'], ARRAY[now()]);
RESET ROLE;
-- Floors by lease line name, as kid_lease() names them; a line not named
-- (or given NULL) is left.  Named nothing, every line's floor now; sno's
-- tick 1, without ids, raised to a time in the past (below what every
-- other line's generators reached): it alone moves, to exactly that time
-- (named third, and the second line of kid_lease()).
SELECT (SELECT array_agg(line ORDER BY ord) FROM kid_raise_floors('{}', '{}') WITH ORDINALITY AS f(line, floor_before, floor_after, ord))
       = (SELECT array_agg(line ORDER BY ord) FROM kid_lease() WITH ORDINALITY AS l(line, covered_until, startup_floor, ord)) AS every_line_in_kid_lease_order,
       (SELECT bool_and(floor_after IS NOT DISTINCT FROM floor_before) FROM kid_raise_floors('{}', '{}')) AS nothing_raised;
SELECT line, CASE WHEN floor_after = '2019-01-01 00:00:00+00' THEN 'raised'
                  WHEN floor_after IS NOT DISTINCT FROM floor_before THEN 'kept' ELSE 'moved elsewhere' END AS raised_or_kept
FROM kid_raise_floors(ARRAY['uid', 'uuid horizon', 'sno tick 1'], ARRAY[NULL, NULL, '2019-01-01 00:00+00']::timestamptz[]);
-- ... and named nothing, it shows that floor (every line's, named or not).
SELECT floor_after = '2019-01-01 00:00+00' AS at_that_time FROM kid_raise_floors('{}', '{}') WHERE line = 'sno tick 1';
-- Every name a lease line's, once, exactly as kid_lease() spells it, or
-- nothing is raised (22023): not another case, a prefix, kid.lease's "_"
-- for a blank, a line twice, a NULL name, arrays of different lengths or
-- of more than one dimension.
SELECT * FROM kid_raise_floors(ARRAY['KOID'], ARRAY[now()]);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_raise_floors(ARRAY['koi'], ARRAY[now()]);
SELECT * FROM kid_raise_floors(ARRAY['sno_tick_0'], ARRAY[now()]);
SELECT * FROM kid_raise_floors(ARRAY['koid', 'uid', 'koid'], ARRAY[NULL, NULL, now()]::timestamptz[]);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_raise_floors(ARRAY['koid', 'uid', 'koid'], ARRAY[NULL, NULL, NULL]::timestamptz[]);
SELECT * FROM kid_raise_floors(ARRAY['koid', NULL], ARRAY[NULL, now()]);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_raise_floors(ARRAY['koid', 'uid'], ARRAY[now()]);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_raise_floors(ARRAY[['koid'], ['uid']], ARRAY[now(), now()]);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_raise_floors(ARRAY['koid', 'uid'], ARRAY[[now()], [now()]]);
-- Arrays paired by subscript: two that start at different subscripts.
SELECT * FROM kid_raise_floors('{koid,uid}', '[0:1]={2026-01-10 00:00+00,NULL}');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- A floor past the last time its scheme's ids can hold (or kid.lease can
-- hold) is refused, not stored: the next start would find it damaged.
SELECT * FROM kid_raise_floors(ARRAY['koid'], ARRAY['200000-01-01 00:00+00']::timestamptz[]);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM kid_raise_floors(ARRAY['uid', 'sno tick 0'], ARRAY[NULL, '2080-01-01 00:00+00']::timestamptz[]);
-- A commit horizon's line holds no id: it takes NULL only.
SELECT * FROM kid_raise_floors(ARRAY['sno horizon'], ARRAY[now()]);
\echo SQLSTATE :LAST_ERROR_SQLSTATE

-- The adoption: per lease line the columns read, the newest stored time
-- (the largest id's); the floors stay, since this server's generators are
-- past these ids (test/server/37-pg_upgrade.sh raises them on a new cluster).
CREATE TEMP TABLE adopted AS SELECT * FROM kid_adopt_database();
SELECT a.line, a.columns,
       a.newest = CASE a.line WHEN 'sno tick 0' THEN (SELECT max(sno_to_timestamp(s)) FROM ids WHERE sno_tick(s) = 0)
                              WHEN 'sno tick 1' THEN (SELECT max(sno_to_timestamp(s)) FROM ids WHERE sno_tick(s) = 1)
                              WHEN 'atproto_tid' THEN (SELECT max(tid_to_timestamp(t)) FROM ids)
                              WHEN 'koid' THEN (SELECT max(koid_to_timestamp(k)) FROM ids)
                              ELSE greatest((SELECT max(uid_to_timestamp(u)) FROM ids), (SELECT max(uid_global_to_timestamp(g)) FROM ids)) END
           AS newest_is_the_largest_id,
       a.floor_after IS NOT DISTINCT FROM a.floor_before AS floor_kept
FROM adopted a ORDER BY a.line;
SELECT position, how, system_identifier = (SELECT system_identifier FROM pg_control_system()) AS this_cluster,
       floors ? 'atproto_tid' AS floors_recorded
FROM kid_database_origin ORDER BY position;
-- Generation works again, in this backend and in a new one, for a role
-- that cannot read the table, in a read-only transaction and in parallel
-- workers (each reads the table itself).
SELECT tid_new() > (SELECT max(t) FROM ids) AS above;
SELECT DISTINCT generation FROM kid_node_info();
\c regress_kid_moved
SELECT has_table_privilege('regress_kid_adopter', 'kid_database_origin', 'SELECT') AS role_reads_table;
SET ROLE regress_kid_adopter;
BEGIN READ ONLY;
SELECT sno_new() IS NOT NULL AND koid_new() IS NOT NULL AND uid_new() IS NOT NULL AND uid_global_new() IS NOT NULL AS generated;
COMMIT;
RESET ROLE;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false) AS parallel;
SET parallel_setup_cost = 0;
SELECT count(DISTINCT tid_new()) AS distinct_ids FROM generate_series(1, 100);
-- ... made in a worker: a Gather that launched one, under which the 100
-- rows with their tid_new() were made (the leader runs no copy of it).
CREATE FUNCTION pg_temp.plan_of(query text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || query INTO plan;
    RETURN plan->0->'Plan';
END $$;
SELECT p->>'Node Type' AS node, p->>'Single Copy' AS single_copy, p->>'Workers Launched' AS workers_launched,
       p->'Plans'->0->'Output'->>0 AS made_below,
       p->>'Workers Launched' = '1' AND (p->'Plans'->0->>'Actual Rows')::numeric = 100 AND p->'Plans'->0->'Output'->>0 = 'tid_new()' AS ids_from_a_worker
FROM pg_temp.plan_of('SELECT tid_new() FROM generate_series(1, 100)') p;
RESET parallel_setup_cost;

-- A floor given by hand (ids kept outside this database) raises every
-- line of ids to it unless the generators are past it (a time in the past
-- here): every line whose generators made ids above (all of them were
-- called above) keeps its floor; sno's tick 1, without ids, rises to exactly
-- that time; the commit horizons' lines hold no ids and keep theirs.
SELECT line, CASE WHEN floor_after = '2020-01-01 00:00:00+00' THEN 'at floor'
                  WHEN floor_after IS NOT DISTINCT FROM floor_before THEN 'kept' ELSE 'moved elsewhere' END AS kept_or_at_floor
FROM kid_adopt_database('2020-01-01 00:00:00+00');
SELECT (floors->>'by hand')::timestamptz = '2020-01-01 00:00:00+00' AS by_hand_recorded
FROM kid_database_origin ORDER BY position DESC LIMIT 1;

-- An 'updated' row (0.1.0 updated without kid preloaded: origin unknown)
-- refuses too, with its own message.
INSERT INTO kid_database_origin (position, system_identifier, how)
SELECT 0, system_identifier, 'updated' FROM pg_control_system();
\c regress_kid_moved
\set VERBOSITY terse
SELECT tid_new();
\set VERBOSITY default
SELECT count(*) AS lines FROM kid_adopt_database();
SELECT tid_new() IS NOT NULL AS generated;
-- A row kid cannot read fails closed: a value of how it does not know.
ALTER TABLE kid_database_origin DROP CONSTRAINT kid_database_origin_how_check;
INSERT INTO kid_database_origin (position, system_identifier, how)
SELECT 0, system_identifier, 'copied' FROM pg_control_system();
\c regress_kid_moved
\set VERBOSITY terse
SELECT tid_new();
\set VERBOSITY default

-- DROP EXTENSION takes the table (and every kid column's type) with it: a
-- new CREATE EXTENSION starts with this cluster's row alone.
DROP TABLE ids;
DROP EXTENSION kid;
CREATE EXTENSION kid;
SELECT position, how FROM kid_database_origin;
SELECT tid_new() IS NOT NULL AS generated;

\c contrib_regression
DROP DATABASE regress_kid_moved;
DROP ROLE regress_kid_adopter;

-- What adoption reads: every way an id can be stored.  Each place holds ids
-- of a time of its own (2020, far in the past: the floors this raises are
-- below what the generators reached), so the listing shows which are read.
CREATE DATABASE regress_kid_adopt;
\c regress_kid_adopt
SET TIME ZONE 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
\set SHOW_CONTEXT never
CREATE EXTENSION kid;
CREATE DOMAIN koid_1 AS koid;
CREATE DOMAIN koid_2 AS koid_1;                      -- a domain over a domain
CREATE DOMAIN koids AS koid[];                       -- a domain over an array
CREATE DOMAIN tid_d AS atproto_tid;
CREATE DOMAIN uuid_d AS uuid;
CREATE TYPE pair AS (n integer, k koid_2, ks koid_1[]);
CREATE TYPE outer_pair AS (p pair, u uid, g uid_global);
CREATE DOMAIN pair_d AS pair;                        -- a domain over a composite type
CREATE TYPE koid_span AS RANGE (subtype = koid);
CREATE TABLE nested (
    k2 koid_2,            -- 2020-01-01
    k1s koid_1[],         -- 2020-01-02: an array of a domain
    ks koids,             -- 2020-01-03
    p pair,               -- 2020-01-04 (k), 2020-01-05 (ks)
    ps pair[],            -- 2020-01-06: an array of a composite type
    o outer_pair,         -- 2020-01-07 (p.k), uid 2020-04-01, uid_global 2020-04-02
    pd pair_d,            -- 2020-01-18 (k)
    span koid_span,       -- 2020-01-08 to 2020-01-09
    spans koid_span_multirange, -- 2020-01-10 to 2020-01-11
    tids tid_d[],         -- atproto_tid 2020-03-01
    snos sno[],           -- sno 2020-02-01
    u uuid_d);            -- a version 7 uuid of 2020-05-01, a version 4 one
INSERT INTO nested VALUES (
    koid_new_with_time('2020-01-01'), ARRAY[koid_new_with_time('2020-01-02')::koid_1], ARRAY[koid_new_with_time('2020-01-03')],
    ROW(1, koid_new_with_time('2020-01-04'), ARRAY[koid_new_with_time('2020-01-05')::koid_1]),
    ARRAY[ROW(2, koid_new_with_time('2020-01-06'), NULL)::pair],
    ROW(ROW(3, koid_new_with_time('2020-01-07'), NULL)::pair, uid_new_with_time('2020-04-01'), uid_global_new_with_time('2020-04-02')),
    ROW(4, koid_new_with_time('2020-01-18'), NULL)::pair,
    koid_span(koid_new_with_time('2020-01-08'), koid_new_with_time('2020-01-09')),
    koid_span_multirange(koid_span(koid_new_with_time('2020-01-10'), koid_new_with_time('2020-01-11'))),
    ARRAY[tid_new_with_time('2020-03-01')::tid_d], ARRAY[sno_new_with_time('2020-02-01')],
    uuidv7_from_timestamp('2020-05-01'));
INSERT INTO nested (u) VALUES ('c0ffee00-0000-4000-8000-000000000000');
-- A version 4 uuid whose first bits, read as a version 7 time, are of
-- 2024-06-10: above the column's version 7 uuid, below the clock.  Only
-- version 7 uuids count: newest stays 2020-05-01.
INSERT INTO nested (u) VALUES ('01900000-0000-4000-8000-000000000000');
CREATE TABLE events (id koid PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE events_all PARTITION OF events FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
INSERT INTO events VALUES (koid_new_with_time('2020-01-12'));
CREATE TABLE parent (id koid);
CREATE TABLE child () INHERITS (parent);
INSERT INTO child VALUES (koid_new_with_time('2020-01-13'));
CREATE MATERIALIZED VIEW made AS SELECT koid_new_with_time('2020-01-14') AS id;
CREATE MATERIALIZED VIEW recent AS SELECT id FROM events WITH NO DATA;
CREATE VIEW all_events AS SELECT id FROM events;
-- TOASTed: 3,000 ids stored out of line, uncompressed.
CREATE TABLE toasted (ids koid[]);
ALTER TABLE toasted ALTER COLUMN ids SET STORAGE EXTERNAL;
INSERT INTO toasted SELECT array_agg(koid_new_with_time(timestamptz '2020-01-15' - i * interval '1 minute') ORDER BY i)
FROM generate_series(0, 2999) i;
SELECT pg_relation_size(reltoastrelid) > 0 AS out_of_line FROM pg_class WHERE oid = 'toasted'::regclass;
CREATE UNLOGGED TABLE scratch (id koid);
INSERT INTO scratch VALUES (koid_new_with_time('2020-01-16'));
CREATE TEMP TABLE mine (id koid);
INSERT INTO mine VALUES (koid_new_with_time('2020-01-17'));
-- A foreign table, on a wrapper without a handler (reading it would fail).
CREATE FOREIGN DATA WRAPPER regress_kid_nothing;
CREATE SERVER regress_kid_elsewhere FOREIGN DATA WRAPPER regress_kid_nothing;
CREATE FOREIGN TABLE remote (id koid) SERVER regress_kid_elsewhere;
-- Every place, read or not and why, and what it holds (bound_by: what
-- bounds the ids taken without a decision, per scheme).
SELECT relation, column_name, path, type, status, why, newest, bound_by, ahead, ahead_count, floors
FROM kid_adoption_columns();
-- scan => false: the same places, without reading them.
SELECT count(*) AS places, count(*) FILTER (WHERE status = 'read') AS read, count(newest) AS with_newest
FROM kid_adoption_columns(scan => false);
-- The dry run: per lease line the columns read and the newest time, the
-- floor it would ask for; a partition, an inheritance child, a populated
-- materialized view, TOASTed, unlogged and this session's temporary table
-- are read, the rest named (a WARNING for the foreign table, a NOTICE for
-- the view not populated).
SELECT line, columns, newest, floor_after IS NOT DISTINCT FROM greatest(floor_before, newest) AS asks_newest
FROM kid_adopt_database(dry_run => true);
-- A dry run records nothing.
SELECT count(*) AS rows FROM kid_database_origin;
-- The adoption itself stops (55000) on the foreign table: ids it cannot
-- see might be above every id it reads.  Nothing is recorded.
SELECT line, columns, newest FROM kid_adopt_database();
SELECT count(*) AS adopted FROM kid_database_origin WHERE how = 'adopted';
-- The DBA's word on it: exclude its column (none of this database's ids
-- are there), or give the newest time of its ids as floor (a time of the
-- past here).  The same lines; an unpopulated view does not stop it.
SELECT line, columns, newest FROM kid_adopt_database(exclude => ARRAY['public.remote.id']);
SELECT how, floors->'excluded' AS excluded, floors->'not read' AS not_read FROM kid_database_origin ORDER BY position DESC LIMIT 1;
SELECT line, columns, newest FROM kid_adopt_database(floor => '2020-06-01 00:00:00+00');
SELECT how, floors->'not read' AS not_read, floors->>'by hand' AS by_hand FROM kid_database_origin ORDER BY position DESC LIMIT 1;

-- Ids far ahead of the clock, which no adoption takes silently: a koid of 2036 a database
-- owner made with koid_new_with_time, an AT Protocol record key of 2041,
-- and a version 7 uuid of 2040 from some other generator.  Generation is
-- refused here (a row of another cluster) until an adoption succeeds.
INSERT INTO nested (k2, tids, u) VALUES (koid_new_with_time('2036-01-01'), ARRAY['3zzzzzzzzzzzz'::tid_d], uuidv7_from_timestamp('2040-01-01'));
INSERT INTO kid_database_origin (position, system_identifier, how) VALUES (0, 42, 'created');
SELECT column_name, path, newest, ahead, ahead_count FROM kid_adoption_columns() WHERE ahead IS NOT NULL;
-- Each is named with what to do, and nothing is raised or recorded.
SELECT * FROM kid_adopt_database();
SET client_min_messages = error;
SELECT bool_and(coalesce(floor_before, '-infinity') < '2030-01-01') AS nothing_raised FROM kid_adopt_database(dry_run => true);
RESET client_min_messages;
SELECT how FROM kid_database_origin ORDER BY position DESC LIMIT 1;
\set VERBOSITY terse
SELECT tid_new();
\set VERBOSITY default
-- A floor at or above them takes them: the dry run shows every line of ids
-- at it, with a WARNING for each (a floor 16 years ahead: what it does to
-- each line's generator), leaves the commit horizons' lines (no ids), and
-- raises nothing.
CREATE TEMP TABLE asked AS SELECT * FROM kid_adopt_database(floor => '2042-01-01 00:00:00+00', dry_run => true);
SELECT line, floor_after FROM asked WHERE line NOT LIKE '% horizon';
SELECT count(*) AS horizon_lines, bool_and(floor_after IS NOT DISTINCT FROM floor_before) AS left FROM asked WHERE line LIKE '% horizon';
SET client_min_messages = error;
SELECT bool_and(coalesce(floor_before, '-infinity') < '2030-01-01') AS nothing_raised FROM kid_adopt_database(dry_run => true);
RESET client_min_messages;
-- A floor below one of them is no decision on it (WARNINGs for the other two).
SET client_min_messages = warning;
SELECT count(*) FROM kid_adopt_database(floor => '2037-01-01 00:00:00+00', exclude => ARRAY['public.remote.id'], dry_run => true);
RESET client_min_messages;
-- The record keys are not kid's ids: exclude their column.  The koid and
-- the uuid are skipped with ignore_ahead.  Excluding another column is no
-- decision on the foreign table: still stopped on it.
SELECT line, columns, newest FROM kid_adopt_database(exclude => ARRAY['public.nested.tids'], ignore_ahead => true);
SELECT how FROM kid_database_origin ORDER BY position DESC LIMIT 1;
-- With it excluded too: adopted, with what was left.
SELECT line, columns, newest FROM kid_adopt_database(exclude => ARRAY['public.nested.tids', 'public.remote.id'], ignore_ahead => true);
SELECT how, floors FROM kid_database_origin ORDER BY position DESC LIMIT 1;
SELECT tid_new() IS NOT NULL AS generated;
-- A partitioned table's column stands for its partitions'; this session's
-- temporary table is pg_temp.
SELECT column_name, status, why FROM kid_adoption_columns(exclude => ARRAY['public.events.id', 'pg_temp.mine.id'], scan => false)
WHERE status = 'excluded';
-- max_ahead: how far ahead an id is taken without being named (a koid
-- made 2 days ahead: named by default, taken within 3 days, in dry runs).
-- The warnings of these dry runs name times of now(): not shown.
UPDATE nested SET k2 = koid_new_with_time(now() + interval '2 days') WHERE koid_to_timestamp(k2) = '2036-01-01';
SELECT ahead > now() + interval '1 day' AS named, newest < '2021-01-01' AS not_taken
FROM kid_adoption_columns(exclude => ARRAY['public.nested.tids']) WHERE column_name = 'public.nested.k2';
SELECT ahead IS NULL AS not_named, newest > now() + interval '1 day' AS taken
FROM kid_adoption_columns(max_ahead => '3 days', exclude => ARRAY['public.nested.tids']) WHERE column_name = 'public.nested.k2';
SET client_min_messages = error;
SELECT newest > now() + interval '1 day' AS taken
FROM kid_adopt_database(max_ahead => '3 days', exclude => ARRAY['public.nested.tids', 'public.remote.id'], ignore_ahead => true, dry_run => true)
WHERE line = 'koid';
RESET client_min_messages;

-- A koid within the day but further ahead than koid_new() waits for its
-- clock (kid.koid_max_clock_wait_ms): a database owner, no superuser,
-- stores one an hour ahead.  Taken, it would make koid_new() fail for an
-- hour in every database of the server: by default it is named and stops
-- the adoption, as an id beyond max_ahead does.
CREATE ROLE regress_kid_owner;
CREATE TABLE owned (k koid);
ALTER TABLE owned OWNER TO regress_kid_owner;
SET ROLE regress_kid_owner;
INSERT INTO owned VALUES (koid_new_with_time(now() + interval '1 hour'));
RESET ROLE;
SELECT newest IS NULL AS not_taken, ahead - now() BETWEEN interval '59 minutes' AND interval '1 hour' AS an_hour_ahead, ahead_count
FROM kid_adoption_columns() WHERE column_name = 'public.owned.k';
-- A dry run (a real one would stop with 55000) names it in a WARNING (not
-- shown: it names a time of now()) and does not take it: the koid line's
-- newest is the other columns' of 2020.  Only dry runs here: a real
-- adoption that took it by mistake would raise this cluster's koid floor
-- an hour ahead for every test after it (test/server/38-adoption.sh has
-- the real ones, on a cluster of its own).
SET client_min_messages = error;
SELECT newest < '2021-01-01' AS not_taken, coalesce(floor_before, '-infinity') < now() + interval '1 minute' AS not_raised
FROM kid_adopt_database(exclude => ARRAY['public.nested.tids', 'public.remote.id', 'public.nested.k2', 'public.nested.u'], dry_run => true)
WHERE line = 'koid';
RESET client_min_messages;
-- Taken by a decision: a max_ahead that reaches it (a dry run asks for its
-- time as the koid floor), or koid_new() waiting longer for its clock in
-- the sessions of the server.
SET client_min_messages = error;
SELECT newest > now() + interval '59 minutes' AS taken, floor_after = newest AS asked
FROM kid_adopt_database(max_ahead => '2 hours', exclude => ARRAY['public.nested.tids', 'public.remote.id', 'public.nested.k2', 'public.nested.u'], dry_run => true)
WHERE line = 'koid';
RESET client_min_messages;
-- A SET in the adopting session makes no other session wait: it changes
-- nothing.  The wait sessions get (here this database's) does.
SET kid.koid_max_clock_wait_ms = '1h';
SELECT newest IS NULL AS not_taken, ahead IS NOT NULL AS named
FROM kid_adoption_columns() WHERE column_name = 'public.owned.k';
RESET kid.koid_max_clock_wait_ms;
ALTER DATABASE regress_kid_adopt SET kid.koid_max_clock_wait_ms = '1h';
\c regress_kid_adopt
SELECT newest > now() + interval '59 minutes' AS taken, ahead IS NULL AS not_named
FROM kid_adoption_columns() WHERE column_name = 'public.owned.k';
ALTER DATABASE regress_kid_adopt RESET kid.koid_max_clock_wait_ms;
\c regress_kid_adopt
SET TIME ZONE 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
-- An atproto_tid an hour ahead is taken by default (tids carry its time):
-- listed as newest, not as ahead.
ALTER TABLE owned ADD COLUMN t atproto_tid;
INSERT INTO owned (t) VALUES (tid_new_with_time(now() + interval '1 hour'));
SELECT newest > now() + interval '59 minutes' AS taken, ahead IS NULL AS not_named
FROM kid_adoption_columns() WHERE column_name = 'public.owned.t';
DROP TABLE owned;

-- Two snos a database owner stores 23 hours ahead, one on each of sno's
-- timelines (the tick bit is bit 32 of its bytes).  One timeline's floor
-- ahead is no wait (sno_new() goes on on the other), but both would make
-- sno_new() wait 23 hours in every database of the server: so by default
-- no sno ahead of the clock is taken, and each column holding one is named
-- (bound_by: both sno timelines), as a koid beyond its wait is.
CREATE TABLE snos_0 (s sno);
CREATE TABLE snos_1 (s sno);
ALTER TABLE snos_0 OWNER TO regress_kid_owner;
ALTER TABLE snos_1 OWNER TO regress_kid_owner;
SET ROLE regress_kid_owner;
INSERT INTO snos_0 VALUES (sno_new_with_time(now() + interval '23 hours'));
INSERT INTO snos_1 SELECT sno_from_bytea(set_bit(sno_to_bytea(s), 32, 1)) FROM snos_0;
RESET ROLE;
SELECT column_name, status, bound_by, newest IS NULL AS not_taken,
       ahead - now() BETWEEN interval '22 hours' AND interval '23 hours' AS ahead_23_hours, ahead_count
FROM kid_adoption_columns() WHERE column_name LIKE 'public.snos\__.s' ORDER BY column_name;
-- A dry run (a real one stops with 55000: test/server/38-adoption.sh) asks
-- for neither floor ahead: the sno lines' newest are the 2020 ones.
SET client_min_messages = error;
SELECT line, coalesce(newest, '-infinity') < '2021-01-01' AS not_taken, coalesce(floor_after, '-infinity') < now() AS not_raised
FROM kid_adopt_database(exclude => ARRAY['public.nested.tids', 'public.remote.id'], dry_run => true)
WHERE line LIKE 'sno tick _';
RESET client_min_messages;
-- One timeline alone ahead is taken within the day: with one column
-- excluded, the other's sno is the newest of its line.
SELECT column_name, status, bound_by, newest - now() BETWEEN interval '22 hours' AND interval '23 hours' AS taken, ahead IS NULL AS not_named
FROM kid_adoption_columns(exclude => ARRAY['public.snos_1.s']) WHERE column_name LIKE 'public.snos\__.s' ORDER BY column_name;
SET client_min_messages = error;
SELECT line, newest - now() BETWEEN interval '22 hours' AND interval '23 hours' AS taken
FROM kid_adopt_database(exclude => ARRAY['public.nested.tids', 'public.remote.id', 'public.snos_1.s'], ignore_ahead => true, dry_run => true)
WHERE line = 'sno tick 0';
RESET client_min_messages;
-- The decisions: ignore_ahead leaves them (and takes the 2020 snos), a
-- max_ahead that reaches them takes both (bound_by: max_ahead).
SET client_min_messages = error;
SELECT line, coalesce(newest, '-infinity') < '2021-01-01' AS not_taken
FROM kid_adopt_database(exclude => ARRAY['public.nested.tids', 'public.remote.id'], ignore_ahead => true, dry_run => true)
WHERE line LIKE 'sno tick _';
SELECT line, newest - now() BETWEEN interval '22 hours' AND interval '23 hours' AS taken
FROM kid_adopt_database(max_ahead => '1 day', exclude => ARRAY['public.nested.tids', 'public.remote.id'], ignore_ahead => true, dry_run => true)
WHERE line LIKE 'sno tick _';
RESET client_min_messages;
SELECT column_name, bound_by, ahead IS NULL AS not_named
FROM kid_adoption_columns(max_ahead => '1 day') WHERE column_name LIKE 'public.snos\__.s' ORDER BY column_name;
-- A role that may create objects in kid's schema (a database owner, kid in
-- public) puts there a function of kid's name whose argument types an
-- untyped literal prefers: kid's own calls, made while the snos ahead are
-- weighed, never reach it (it would run as the superuser who adopts).
GRANT CREATE ON SCHEMA public TO regress_kid_owner;
SET ROLE regress_kid_owner;
CREATE FUNCTION public.kid_raise_floors(lines text, floors text, OUT line text, OUT floor_before timestamptz, OUT floor_after timestamptz)
RETURNS SETOF record LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'kid_raise_floors(text, text) of regress_kid_owner ran as %', current_user; END $$;
RESET ROLE;
SELECT count(*) AS sno_columns_ahead FROM kid_adoption_columns() WHERE column_name LIKE 'public.snos\__.s' AND bound_by IS NOT NULL;
SET client_min_messages = error;
SELECT count(*) AS sno_lines FROM kid_adopt_database(exclude => ARRAY['public.nested.tids', 'public.remote.id'], dry_run => true)
WHERE line LIKE 'sno tick _';
RESET client_min_messages;
DROP FUNCTION public.kid_raise_floors(text, text);
REVOKE CREATE ON SCHEMA public FROM regress_kid_owner;
DROP TABLE snos_0, snos_1;

-- Arguments it refuses.
SELECT * FROM kid_adopt_database(exclude => ARRAY['nested.tids']);
SELECT * FROM kid_adopt_database(exclude => ARRAY['public.nested.nothing']);
SELECT * FROM kid_adopt_database(max_ahead => '-1 hour');
-- A max_ahead past the last time any of kid's ids can hold bounds nothing:
-- refused by name (22023), not by the read of the first uuid column.
SELECT * FROM kid_adoption_columns(max_ahead => '10000 years');
SELECT * FROM kid_adopt_database(max_ahead => '300000 years', dry_run => true);
-- A floor past the last time a line's ids can hold: the dry run refuses it
-- as the adoption does (22008), before reading anything.
SELECT * FROM kid_adopt_database(floor => '2100-01-01 00:00+00', dry_run => true);
SELECT * FROM kid_adopt_database(floor => '2100-01-01 00:00+00');
SELECT * FROM kid_adopt_database(floor => 'infinity', dry_run => true);
SELECT * FROM kid_adopt_database(floor => 'infinity');
SELECT * FROM kid_adopt_database(dry_run => NULL);
SELECT * FROM kid_adoption_columns(exclude => NULL);
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM kid_adopt_database(exclude => ARRAY['public.nested.tids'], ignore_ahead => true);
ROLLBACK;
\set VERBOSITY sqlstate
SELECT * FROM kid_adopt_database(exclude => ARRAY['nested.tids']);
SELECT * FROM kid_adopt_database(max_ahead => '-1 hour');
SELECT * FROM kid_adopt_database(ignore_ahead => NULL);
SET client_min_messages = error;
SELECT * FROM kid_adopt_database();
RESET client_min_messages;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM kid_adopt_database(exclude => ARRAY['public.nested.tids'], ignore_ahead => true);
ROLLBACK;
CREATE ROLE regress_kid_lister;
SET ROLE regress_kid_lister;
SELECT * FROM kid_adoption_columns();
\set VERBOSITY default
SELECT * FROM kid_adoption_columns();
RESET ROLE;
DROP ROLE regress_kid_lister;

\c contrib_regression
DROP DATABASE regress_kid_adopt;
DROP ROLE regress_kid_owner;
