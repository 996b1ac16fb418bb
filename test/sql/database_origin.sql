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
       AND uid_new() > (SELECT max(u) FROM ids) AND uid_global_new() > (SELECT max(g) FROM ids) AS later;

-- A row of another cluster, as a restore of its dump adds: the trigger
-- numbers it after the rows already there, whatever position it brings.
INSERT INTO kid_database_origin (position, system_identifier, how) VALUES (1, 42, 'created');
SELECT position, how, system_identifier = 42 AS other_cluster FROM kid_database_origin ORDER BY position;
-- This session generated before; the change makes it read the mark again
-- (as a data-only restore into a database in use would): refused.
\set VERBOSITY terse
SELECT tid_new();
SELECT sno_new();
-- A new backend reads the mark at its first id: every generator refuses.
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
SELECT * FROM kid_raise_floors(ARRAY[NULL, NULL, now(), NULL, NULL]);
RESET ROLE;
-- One time per lease line, or nothing is raised.
SELECT * FROM kid_raise_floors(ARRAY[now()]);

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
SELECT count(DISTINCT tid_new()) AS ids_from_a_worker FROM generate_series(1, 100);
RESET parallel_setup_cost;

-- A floor given by hand (ids kept outside this database) raises every
-- line to it unless the generators are past it (a time in the past here:
-- only a line without ids, sno's tick 1, may rise, to exactly that time).
SELECT bool_and(floor_after IS NOT DISTINCT FROM floor_before OR floor_after = '2020-01-01 00:00:00+00') AS kept_or_at_floor
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
