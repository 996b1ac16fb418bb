-- privileges: an ordinary role uses every kid type and function (the
-- monitoring ones only as a member of pg_read_all_stats); only a
-- superuser (or a role it grants SET ON PARAMETER to) changes kid's
-- settings; kid's SQL-language functions ignore the caller's search_path.
SET TIME ZONE 'UTC';
SET max_parallel_workers_per_gather = 0;
\set SHOW_CONTEXT never
DROP ROLE IF EXISTS regress_kid_user;
CREATE ROLE regress_kid_user NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = 'regress_kid_user';

-- ---------------------------------------------------------------------------
-- 1. Settings.  Who may change what is PostgreSQL's context of each setting:
--    postmaster   only in postgresql.conf (or ALTER SYSTEM, a superuser's),
--                 and only at server start
--    sighup       only in postgresql.conf / ALTER SYSTEM, then a reload
--    superuser    also SET by a superuser, or a role granted SET ON PARAMETER
-- ---------------------------------------------------------------------------
-- (Their defaults, boot_val: the test runs on servers configured otherwise too.)
SELECT name, context, boot_val FROM pg_settings WHERE name LIKE 'kid.%' ORDER BY name;

SET ROLE regress_kid_user;
SET kid.node_id = 7;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SET kid.koid_epoch_ms = 1288834974657;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SET kid.koid_generator_id = 5;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SET kid.uid_interval = 5;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SET kid.uid_node = '01020304';
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SET kid.wal_rmgr_id = 129;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SET kid.standby_generation = on;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SET kid.koid_overflow_error = on;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SET kid.koid_max_clock_wait_ms = 0;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SET kid.partition_maintenance_interval = 0;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT set_config('kid.koid_max_clock_wait_ms', '3600000', false);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ALTER SYSTEM SET kid.node_id = 7;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ALTER SYSTEM SET kid.koid_overflow_error = on;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ALTER ROLE regress_kid_user SET kid.koid_overflow_error = on;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ALTER ROLE regress_kid_user SET kid.node_id = 7;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ALTER DATABASE contrib_regression SET kid.koid_max_clock_wait_ms = 0;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- The kid prefix is reserved: no made-up kid.* placeholder either.
SET kid.no_such_setting = 1;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- Nothing changed.
SELECT current_setting('kid.node_id') AS node_id, current_setting('kid.koid_overflow_error') AS overflow_error,
       current_setting('kid.koid_max_clock_wait_ms') AS max_clock_wait;
RESET ROLE;

-- A superuser sets the superuser-level settings in a session; the
-- postmaster-level ones need postgresql.conf and a restart, for everyone.
SET kid.koid_overflow_error = on;
SET kid.koid_max_clock_wait_ms = 5;
SELECT current_setting('kid.koid_overflow_error') AS overflow_error, current_setting('kid.koid_max_clock_wait_ms') AS max_clock_wait;
RESET kid.koid_overflow_error;
RESET kid.koid_max_clock_wait_ms;
SET kid.node_id = 7;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- PostgreSQL 15 lets a superuser delegate one setting to a role.
GRANT SET ON PARAMETER kid.koid_overflow_error TO regress_kid_user;
SET ROLE regress_kid_user;
SET kid.koid_overflow_error = on;
SELECT current_setting('kid.koid_overflow_error') AS delegated_overflow_error;
RESET kid.koid_overflow_error;
RESET ROLE;
REVOKE SET ON PARAMETER kid.koid_overflow_error FROM regress_kid_user;

-- ---------------------------------------------------------------------------
-- 2. No kid function is superuser-only: none is SECURITY DEFINER, every one
--    is executable by PUBLIC but the monitoring ones, every type usable.
--    kid_generator_stats(), kid_lease(), kid_node_info() (and
--    kid_cluster_check(), which calls it on every node) show what every
--    user's sessions generated and the system identifier: PostgreSQL's rule
--    for such statistics is pg_read_all_stats (pg_monitor is a member).
-- ---------------------------------------------------------------------------
CREATE TEMP VIEW kid_function AS
SELECT p.oid, p.oid::regprocedure AS fn, p.prokind, l.lanname, p.prosecdef, p.proconfig, p.prosqlbody IS NOT NULL AS sql_body
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass AND e.extname = 'kid'
JOIN pg_language l ON l.oid = p.prolang;
GRANT SELECT ON kid_function TO regress_kid_user;
SELECT count(*) > 200 AS many_functions,
       count(*) FILTER (WHERE prosecdef) AS security_definer
FROM kid_function;
SELECT fn AS not_executable_by_ordinary_role, has_function_privilege('pg_read_all_stats', oid, 'EXECUTE') AS pg_read_all_stats,
       has_function_privilege('pg_monitor', oid, 'EXECUTE') AS pg_monitor
FROM kid_function WHERE NOT has_function_privilege('regress_kid_user', oid, 'EXECUTE') ORDER BY fn::text;
SET ROLE regress_kid_user;
SELECT count(*) FROM kid_generator_stats();
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT count(*) FROM kid_lease();
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT count(*) FROM kid_node_info();
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT count(*) FROM kid_cluster_check();
\echo SQLSTATE :LAST_ERROR_SQLSTATE
RESET ROLE;
-- Made a member of pg_read_all_stats (below, it calls them as that role:
-- the role is NOINHERIT).
GRANT pg_read_all_stats TO regress_kid_user;
SELECT t.oid::regtype AS type, has_type_privilege('regress_kid_user', t.oid, 'USAGE') AS usable
FROM pg_type t JOIN pg_depend d ON d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'kid'
WHERE t.typtype IN ('b', 'd') AND t.typcategory <> 'A' ORDER BY t.oid::regtype::text; -- (18 makes array types members too)

-- ---------------------------------------------------------------------------
-- 3. The ordinary role uses every function, in one transaction with
--    function tracking on, so that pg_stat_xact_user_functions proves which
--    ones ran (track_functions is a superuser setting: set before SET ROLE).
-- ---------------------------------------------------------------------------
CREATE SCHEMA regress_kid_parts AUTHORIZATION regress_kid_user;
SET track_functions = 'all';
SET ROLE regress_kid_user;
BEGIN;
-- The parts every fixed-size id type shares (src/sql/id_type.sql.in): I/O,
-- bytea casts, comparison, hashing, min/max support, comparison with
-- timestamptz, range-scan boundary; a < t < b.
DO $$
DECLARE
    typ text;
    bound text;
    ok boolean;
BEGIN
    FOR typ, bound IN VALUES ('sno', 'sno_from_timestamp'), ('atproto_tid', 'tid_from_timestamp'),
            ('koid', 'koid_from_timestamp'), ('uid', 'uid_from_timestamp'), ('uid_global', 'uid_global_from_timestamp') LOOP
        EXECUTE format($q$
            SELECT %1$s_lt(a, b) AND %1$s_le(a, b) AND NOT %1$s_eq(a, b) AND %1$s_ne(a, b)
               AND NOT %1$s_ge(a, b) AND NOT %1$s_gt(a, b)
               AND %1$s_cmp(a, b) = -1 AND %1$s_cmp(b, a) = 1 AND %1$s_cmp(a, a) = 0
               AND %1$s_eq(%1$s_in(%1$s_out(a)), a)
               AND %1$s_hash(a) = %1$s_hash(%1$s_from_bytea(%1$s_to_bytea(a)))
               AND %1$s_hash_extended(a, 42) <> %1$s_hash_extended(a, 43)
               AND %1$s_eq(%1$s_smaller(a, b), a) AND %1$s_eq(%1$s_larger(a, b), b)
               AND %1$s_send(b) = %1$s_to_bytea(b)
               AND %1$s_lt_timestamptz(a, t) AND %1$s_le_timestamptz(a, t) AND NOT %1$s_eq_timestamptz(a, t)
               AND %1$s_ne_timestamptz(a, t) AND NOT %1$s_ge_timestamptz(a, t) AND NOT %1$s_gt_timestamptz(a, t)
               AND %1$s_cmp_timestamptz(a, t) = -1
               AND timestamptz_lt_%1$s(t, b) AND timestamptz_le_%1$s(t, b) AND NOT timestamptz_eq_%1$s(t, b)
               AND timestamptz_ne_%1$s(t, b) AND NOT timestamptz_ge_%1$s(t, b) AND NOT timestamptz_gt_%1$s(t, b)
               AND timestamptz_cmp_%1$s(t, b) = -1
            FROM (SELECT %2$s(timestamptz '2020-01-01 00:00:00+00') AS a,
                         %2$s(timestamptz '2021-01-01 00:00:00+00') AS b,
                         timestamptz '2020-06-01 00:00:00+00' AS t) v$q$, typ, bound) INTO ok;
        RAISE NOTICE '%: shared functions %', typ, CASE WHEN ok THEN 'all correct' ELSE 'WRONG' END;
    END LOOP;
END $$;
-- Server-wide introspection, as a member of pg_read_all_stats.
SET ROLE pg_read_all_stats;
SELECT count(*) > 0 AS generator_stats FROM kid_generator_stats();
SELECT string_agg(line, ', ') AS lease_lines FROM kid_lease();
SELECT count(*) > 0 AS node_info_readable FROM kid_node_info();
SET ROLE regress_kid_user;
-- sno: generation and decoding.
WITH g AS (SELECT sno_new() AS id, sno_new(7) AS id7, sno_new_with_time('2024-01-02 03:04:05.678+00', 9) AS old)
SELECT sno_meta(id) AS meta, sno_meta(id7) AS meta7, sno_tick(id) AS tick,
       sno_partition(id7) = sno_partition(id) AND (sno_info(id)).partition = sno_partition(id) AS partition,
       sno_sequence(id7) = CASE WHEN sno_to_timestamp(id7) = sno_to_timestamp(id) THEN sno_sequence(id) + 1 ELSE 0 END AS sequence,
       sno_to_timestamp(id) > now() - interval '1 hour' AS recent, (sno_info(old)).time AS old_time,
       sno_meta(old) AS old_meta, sno_from_timestamp('2024-01-02 03:04:05.678+00') <= old AS bound
FROM g;
-- atproto_tid: generation, decoding, bigint casts, record keys.
WITH g AS (SELECT tid_new() AS id)
SELECT tid_clock_id(id) AS clock_id, tid_to_timestamp(id) > now() - interval '1 hour' AS recent,
       (tid_info(id)).high_bit AS high_bit, atproto_tid_from_bigint(atproto_tid_to_bigint(id)) = id AS bigint_round_trip,
       tid_from_timestamp(tid_to_timestamp(id)) <= id AS bound, atproto_rkey_is_valid(id::text) AS rkey_valid,
       id::text::atproto_rkey = id::text AS rkey_domain
FROM g;
-- koid: generation, decoding, bigint casts.
WITH g AS (SELECT koid_new() AS id)
SELECT (koid_info(id)).generator_id AS generator_id, koid_to_timestamp(id) > now() - interval '1 hour' AS recent,
       koid_from_bigint(koid_to_bigint(id)) = id AS bigint_round_trip, koid_from_timestamp(koid_to_timestamp(id)) <= id AS bound
FROM g;
-- Backfills: ids carrying a given time, and an integer as a koid.
SELECT tid_to_timestamp(tid_new_with_time('2024-01-02 03:04:05.678901+00')) = '2024-01-02 03:04:05.678901+00' AS tid_time,
       koid_to_timestamp(koid_new_with_time('2024-01-02 03:04:05.678+00')) = '2024-01-02 03:04:05.678+00' AS koid_time,
       uid_to_timestamp(uid_new_with_time('2024-01-02 03:04:05.678+00'))
           BETWEEN '2024-01-02 03:04:05.678+00'::timestamptz - interval '1.024 ms' AND '2024-01-02 03:04:05.678+00' AS uid_time,
       uid_global_to_timestamp(uid_global_new_with_time('2024-01-02 03:04:05.678+00'))
           BETWEEN '2024-01-02 03:04:05.678+00'::timestamptz - interval '1.024 ms' AND '2024-01-02 03:04:05.678+00' AS uid_global_time,
       koid_from_integer(-1) = koid_from_bigint(-1) AS from_integer;
-- uid and uid_global: generation, conversion, decoding, base64url.
WITH g AS (SELECT uid_new() AS id, uid_new() AS id2, uid_global_new() AS gid)
SELECT uid_to_timestamp(id) > now() - interval '1 hour' AS recent,
       (uid_info(id2)).sequence = CASE WHEN uid_to_timestamp(id2) = uid_to_timestamp(id) THEN (uid_info(id)).sequence + 1 ELSE 0 END AS sequence,
       uid_from_bigint(uid_to_bigint(id)) = id AS bigint_round_trip,
       uid_from_base64url(uid_to_base64url(id)) = id AS base64url, uid_global_from_base64url(uid_global_to_base64url(gid)) = gid AS global_base64url,
       (uid_global_info(gid)).node = uid_node_fingerprint() AS node, uid_global_to_timestamp(gid) > now() - interval '1 hour' AS global_recent,
       uid_to_global(id) = uid_to_global(id, uid_node_fingerprint(), 8) AND uid_to_global(id, uid_node_fingerprint()) = uid_to_global(id) AS defaults,
       (uid_global_info(gid, 8)).node = uid_node_fingerprint() AND uid_global_to_timestamp(gid, 8) = uid_global_to_timestamp(gid) AS explicit_interval,
       uid_from_timestamp(uid_to_timestamp(id)) <= id AS bound, uid_global_from_timestamp(uid_global_to_timestamp(gid)) <= gid AS global_bound,
       uid_global_from_timestamp(uid_global_to_timestamp(gid), 8) = uid_global_from_timestamp(uid_global_to_timestamp(gid)) AS explicit_bound
FROM g;
-- codokey: named and explicit contexts, comparison, I/O.
WITH k AS (SELECT codokey('2024-05-06 07:08:09+00', 4) AS key)
SELECT key, codokey_to_timestamp(key) AS time, codokey_precision(key) AS precision, (codokey_info(key)).minute AS minute,
       codokey_encode('2024-05-06 07:08:09+00', 4, 1970, 3265, 9) = key AS encode,
       codokey_decode_time(key, 1970, 3265, 9) = codokey_to_timestamp(key) AS decode_time,
       codokey_decode_precision(key, 1970, 3265, 9) AS decode_precision, (codokey_decode_info(key, 1970, 3265, 9)).year AS year,
       (codokey_context_get('default')).until AS until
FROM k;
WITH k AS (SELECT codokey('2024-05-06 07:08:09+00', 4) AS a, codokey('2023-01-01 00:00:00+00', 4) AS b)
SELECT codokey_lt(a, b) AND codokey_le(a, b) AND NOT codokey_eq(a, b) AND codokey_ne(a, b)
       AND NOT codokey_ge(a, b) AND NOT codokey_gt(a, b) AND codokey_cmp(a, b) = -1
       AND codokey_hash(a) = codokey_hash(codokey_in(codokey_out(a)))
       AND codokey_hash_extended(a, 42) <> codokey_hash_extended(a, 43)
       AND codokey_send(a) = convert_to(a::text, 'UTF8') AS codokey_shared_functions
FROM k;
SELECT codokey_context_check(1970, 3265, 9) AS context_check,
       codokey_smaller('yf17', 'yf18') AS smaller, codokey_larger('yf17', 'yf18') AS larger,
       codokey_like('yf17', 'yf%') AS "like", codokey_not_like('yf17', 'yf%') AS not_like;
-- uuid (PostgreSQL's type): generation, backfill, decoding, the range
-- bound, the uuid-timestamptz comparisons, and uuidv7_between() given a
-- volatile id, so that it runs as a function (for a column the planner
-- inlines its body, and no call of it would be counted).
WITH g AS (SELECT uuidv7_new() AS id, uuidv7_new_with_time('2024-01-02 03:04:05.678+00') AS b)
SELECT uuidv7_to_timestamp(id) > now() - interval '1 hour' AS recent,
       uuidv7_between(uuidv7_new(), now(), 'infinity') AS between_now,
       uuidv7_to_timestamp(b) = '2024-01-02 03:04:05.678+00' AS backfill_time,
       uuidv7_from_timestamp(uuidv7_to_timestamp(id)) <= id AS bound,
       uuid_lt_timestamptz(id, 'infinity') AND uuid_le_timestamptz(id, 'infinity') AND NOT uuid_eq_timestamptz(id, '2024-01-01')
       AND uuid_ne_timestamptz(id, '2024-01-01') AND uuid_ge_timestamptz(id, '2024-01-01') AND uuid_gt_timestamptz(id, '2024-01-01')
       AND uuid_cmp_timestamptz(id, '2024-01-01') = 1
       AND timestamptz_lt_uuid('2024-01-01', id) AND timestamptz_le_uuid('2024-01-01', id) AND NOT timestamptz_eq_uuid('2024-01-01', id)
       AND timestamptz_ne_uuid('2024-01-01', id) AND timestamptz_ge_uuid('infinity', id) AND timestamptz_gt_uuid('infinity', id)
       AND timestamptz_cmp_uuid('infinity', id) = 1 AS comparisons
FROM g;
-- kid's schema still has the name kid was installed under.
SELECT kid_schema_intact() AS schema_intact;
-- ULIDs kept in uuid columns: their text both ways and their time.
SELECT uuid_to_ulid(ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAV')) AS ulid,
       ulid_to_timestamp(ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAV')) = '2016-07-30 22:36:16.385+00' AS ulid_time;
-- The commit horizons: no id made after one was read is below it.
SELECT sno_safe_horizon() <= sno_new() AS sno_horizon, tid_safe_horizon() <= tid_new() AS tid_horizon,
       koid_safe_horizon() <= koid_new() AS koid_horizon, uid_safe_horizon() <= uid_new() AS uid_horizon,
       uid_global_safe_horizon() <= uid_global_new() AS uid_global_horizon,
       uuidv7_safe_horizon() <= uuidv7_new() AS uuidv7_horizon;
-- Time partitions of the role's own table: configured, maintained (one
-- table failing, recorded), forgotten when dropped; uuidv7_to_timestamp of
-- a uuid as text (pg_partman's time decoder).
CREATE TABLE regress_kid_parts.ev (id uuid PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE regress_kid_parts.bad (id koid PRIMARY KEY) PARTITION BY RANGE (id);
SELECT action, partition_name, period FROM kid_partition_by_time('regress_kid_parts.ev', '1 day', premake => 1, retain => '30 days', at => '2024-05-06 07:08:09+00');
SELECT count(*) AS bad_partitions FROM kid_partition_by_time('regress_kid_parts.bad', '1 month', premake => 0, at => '2024-05-06 07:08:09+00');
UPDATE kid_partition_config SET time_zone = 'Nowhere/Bogus' WHERE parent = 'regress_kid_parts.bad'::regclass;
INSERT INTO regress_kid_parts.ev VALUES (uuidv7_new_with_time('2024-05-09 10:00+00'));
SELECT parent_table, action, partition_name, rows FROM kid_partition_maintain(at => '2024-05-08 00:00+00') ORDER BY parent_table::text, 2, 3;
SELECT parent, last_error, failed_runs FROM kid_partition_status ORDER BY parent::text;
-- The rows of a partition, which kid counts before it retires one: for the
-- owner of its table.
SELECT kid_partition_rows('regress_kid_parts.ev_p20240509', 1024) AS counted;
-- What kid's worker records before it maintains a table is the worker's
-- alone: the role may neither call it nor write its table (42501).
SAVEPOINT attempt;
SELECT kid_partition_attempt('regress_kid_parts.ev');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO attempt;
INSERT INTO kid_partition_attempts VALUES ('regress_kid_parts.ev'::regclass::oid, now());
\echo SQLSTATE :LAST_ERROR_SQLSTATE
ROLLBACK TO attempt;
SELECT uuidv7_to_timestamp(min(id::text)) AS decoded_from_text,
       uuidv7_to_timestamp(uuidv7_from_timestamp('2024-05-09 10:00+00')::text) AS constant_text
FROM regress_kid_parts.ev;
DROP TABLE regress_kid_parts.bad;
SELECT parent FROM kid_partition_config;
-- Tables, indexes and sorts of every type, min() and max().
CREATE TEMP TABLE regress_kid_ids AS
SELECT sno_new() AS s, tid_new() AS t, koid_new() AS k, uid_new() AS u, uid_global_new() AS g,
       codokey(now() - n * interval '1 day') AS c, n
FROM generate_series(1, 100) n;
CREATE INDEX ON regress_kid_ids (s);
CREATE INDEX ON regress_kid_ids USING hash (t);
CREATE INDEX ON regress_kid_ids USING brin (k);
CREATE INDEX ON regress_kid_ids (u, g, c);
SELECT count(DISTINCT s) AS distinct_sno, count(DISTINCT t) AS distinct_tid, count(DISTINCT k) AS distinct_koid,
       count(DISTINCT u) AS distinct_uid, count(DISTINCT g) AS distinct_uid_global,
       min(s) < max(s) AS sno_min_max, min(t) < max(t) AS tid_min_max, min(k) < max(k) AS koid_min_max,
       min(u) < max(u) AS uid_min_max, min(g) < max(g) AS uid_global_min_max
FROM regress_kid_ids;
SELECT (SELECT array_agg(n ORDER BY s) FROM regress_kid_ids) = (SELECT array_agg(n ORDER BY n) FROM regress_kid_ids) AS sno_sorts_in_generation_order,
       (SELECT array_agg(n ORDER BY c) FROM regress_kid_ids) = (SELECT array_agg(n ORDER BY n) FROM regress_kid_ids) AS codokey_sorts_newest_first;
-- Binary COPY out (send) and back in (receive), through a client-side file.
CREATE TEMP TABLE regress_kid_copy (LIKE regress_kid_ids);
\copy regress_kid_ids TO 'results/privileges_ids.bin' (FORMAT binary)
\copy regress_kid_copy FROM 'results/privileges_ids.bin' (FORMAT binary)
SELECT count(*) AS rows_back, count(*) FILTER (WHERE a.s = b.s AND a.t = b.t AND a.k = b.k AND a.u = b.u AND a.g = b.g AND a.c = b.c) AS identical
FROM regress_kid_ids a JOIN regress_kid_copy b USING (n);

-- Every kid function, and how the ordinary role used it.  "called" comes
-- from pg_stat_xact_user_functions; the others cannot be called from SQL
-- and were used above: receive functions by binary COPY, sort support by
-- ORDER BY and CREATE INDEX, aggregates by min()/max(); the codokey context
-- trigger fires only on writes to codokey_context, which ordinary roles
-- cannot do (see below), and kid_database_origin's only on writes to that
-- table; a function that only raises (ERROR 42704 for an unknown codokey
-- context, below) never completes a call, nor does kid_cluster_check()
-- without Citus (ERROR 55000, test cluster_check), nor do
-- kid_adopt_database(), kid_adoption_columns() and kid_raise_floors() for a
-- role that is not a superuser (ERROR 42501, below; test database_origin),
-- nor does
-- uuidv7_restore_operators() and kid_adoption_start(), which only a
-- superuser may run, and kid_adoption_sno_both_ahead(), which PUBLIC may
-- not (42501 below);
-- kid_partition_attempt() is kid's partition worker's alone (42501 above).
SELECT f.fn AS function, CASE
        WHEN s.calls > 0 THEN 'called'
        WHEN f.prokind = 'a' THEN 'aggregate'
        WHEN f.fn::text LIKE '%\_recv(internal)' THEN 'binary COPY'
        WHEN f.fn::text LIKE '%\_sortsupport(internal)' THEN 'sort'
        WHEN f.fn::text = 'codokey_context_guard()' THEN 'trigger'
        WHEN f.fn::text = 'codokey_context_missing(text)' THEN 'raises'
        WHEN f.fn::text = 'kid_cluster_check()' THEN 'raises'
        WHEN f.fn::text IN ('kid_database_origin_order()', 'kid_database_origin_changed()') THEN 'trigger'
        WHEN f.fn::text = 'kid_partition_attempt(regclass)' THEN 'worker'
        WHEN f.fn::text IN ('kid_adopt_database(timestamp with time zone,interval,text[],boolean,boolean)',
                            'kid_adoption_columns(interval,text[],boolean)', 'kid_raise_floors(text[],timestamp with time zone[])',
                            'uuidv7_restore_operators()', 'kid_adoption_start(timestamp with time zone,boolean)',
                            'kid_adoption_sno_both_ahead(timestamp with time zone[],timestamp with time zone)') THEN 'raises'
        ELSE 'NOT USED' END AS used
FROM kid_function f LEFT JOIN pg_stat_xact_user_functions s ON s.funcid = f.oid
ORDER BY f.fn::text;
COMMIT;
UPDATE codokey_context SET until = 3000 WHERE name = 'default';
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- The floors are the whole server's: only a superuser raises them.
SELECT count(*) FROM kid_adopt_database();
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT count(*) FROM kid_adoption_columns();
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT count(*) FROM kid_raise_floors(ARRAY['atproto_tid'], ARRAY[now()]);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT uuidv7_restore_operators();
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT kid_adoption_start(NULL, true);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT kid_adoption_sno_both_ahead('{}', now());
\echo SQLSTATE :LAST_ERROR_SQLSTATE
INSERT INTO kid_database_origin (position, system_identifier, how) VALUES (0, 42, 'created');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT 'no/slash'::atproto_rkey;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
RESET ROLE;
-- kid_adoption_start() checks for a superuser itself, whoever may execute it.
GRANT EXECUTE ON FUNCTION kid_adoption_start(timestamptz, boolean) TO regress_kid_user;
SET ROLE regress_kid_user;
SELECT kid_adoption_start(NULL, false);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
RESET ROLE;
REVOKE EXECUTE ON FUNCTION kid_adoption_start(timestamptz, boolean) FROM regress_kid_user;
RESET track_functions;
-- The parts of a table's maintenance, which PUBLIC may execute (they run
-- as the table's owner, whoever that is), act for the owner only: a
-- superuser that calls one directly, where the owner's triggers and
-- policies would run with its rights, is refused (42501), as
-- kid_partition_maintain_table() refuses it (29-partition_security.sh).
SELECT count(*) FROM kid_partition_retire('regress_kid_parts.ev', false, now(), '\x00');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT count(*) FROM kid_partition_make('regress_kid_parts.ev', (SELECT c FROM kid_partition_config c WHERE c.parent = 'regress_kid_parts.ev'::regclass), now(), NULL);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT kid_partition_lock('regress_kid_parts.ev', 'ACCESS EXCLUSIVE', true);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- The mode kid_partition_lock() takes goes into LOCK TABLE: only the two
-- modes the plan names are taken, from the owner too (22023).
SET ROLE regress_kid_user;
SELECT kid_partition_lock('regress_kid_parts.ev', 'ACCESS SHARE MODE; CREATE TABLE regress_kid_parts.injected (); LOCK TABLE regress_kid_parts.ev IN ACCESS SHARE', true);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT to_regclass('regress_kid_parts.injected') AS injected;

-- ---------------------------------------------------------------------------
-- 4. search_path safety.  Every SQL-language or PL/pgSQL function of kid
--    either has a SQL-standard body (parsed, and its references bound, when
--    the extension is created) or pins its own search_path.
-- ---------------------------------------------------------------------------
SELECT fn AS function, lanname AS language,
       CASE WHEN sql_body THEN 'body bound at CREATE EXTENSION'
            WHEN proconfig::text LIKE '%search_path=pg_catalog, pg_temp%' THEN 'search_path pinned'
            ELSE 'UNPROTECTED' END AS protection
FROM kid_function WHERE lanname NOT IN ('c', 'internal') ORDER BY fn::text;

-- A schema that shadows what kid's functions call, first on the caller's
-- search_path (before pg_catalog), plus temporary objects: none of it
-- changes what kid's functions return.
CREATE SCHEMA regress_kid_evil AUTHORIZATION regress_kid_user;
SET ROLE regress_kid_user;
CREATE FUNCTION regress_kid_evil.evil_texteq(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE RETURN true;
CREATE OPERATOR regress_kid_evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = regress_kid_evil.evil_texteq);
CREATE FUNCTION regress_kid_evil.evil_int4eq(integer, integer) RETURNS boolean LANGUAGE sql IMMUTABLE RETURN true;
CREATE OPERATOR regress_kid_evil.= (LEFTARG = integer, RIGHTARG = integer, FUNCTION = regress_kid_evil.evil_int4eq);
CREATE FUNCTION regress_kid_evil.current_setting(text, boolean) RETURNS text LANGUAGE sql RETURN '5';
CREATE FUNCTION regress_kid_evil.uid_node_fingerprint() RETURNS bigint LANGUAGE sql RETURN 666;
CREATE FUNCTION regress_kid_evil.atproto_rkey_is_valid(text) RETURNS boolean LANGUAGE sql RETURN true;
CREATE FUNCTION regress_kid_evil.codokey_encode(timestamptz, integer, integer, integer, bigint) RETURNS codokey LANGUAGE sql RETURN 'evil'::codokey;
CREATE FUNCTION regress_kid_evil.codokey_decode_time(codokey, integer, integer, bigint) RETURNS timestamptz LANGUAGE sql RETURN timestamptz '1999-12-31';
CREATE FUNCTION regress_kid_evil.codokey_decode_precision(codokey, integer, integer, bigint) RETURNS integer LANGUAGE sql RETURN 99;
CREATE FUNCTION regress_kid_evil.codokey_context_missing(text) RETURNS integer LANGUAGE sql RETURN 1;
CREATE FUNCTION regress_kid_evil.evil_textlike(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE RETURN false;
CREATE OPERATOR regress_kid_evil.~~ (LEFTARG = text, RIGHTARG = text, FUNCTION = regress_kid_evil.evil_textlike);
CREATE FUNCTION regress_kid_evil.codokey_context_get(text) RETURNS codokey_context LANGUAGE sql RETURN ROW('default', 1, 2, 99999)::codokey_context;
CREATE TABLE regress_kid_evil.codokey_context (name text, since integer, until integer, split_max bigint);
INSERT INTO regress_kid_evil.codokey_context VALUES ('default', 1, 2, 99999);
CREATE TEMP TABLE codokey_context (name text, since integer, until integer, split_max bigint);
INSERT INTO pg_temp.codokey_context VALUES ('default', 1, 2, 99999);
CREATE FUNCTION pg_temp.codokey_context_get(text) RETURNS codokey_context LANGUAGE sql RETURN ROW('default', 1, 2, 99999)::codokey_context;

-- kid's results on a clean search_path ...
CREATE TEMP TABLE regress_kid_clean AS
SELECT codokey('2024-05-06 07:08:09+00', 6)::text AS key,
       codokey_to_timestamp('yh7pg1f') AS time, codokey_precision('yh7pg1f') AS precision,
       (codokey_info('yh7pg1f')).year AS year, (codokey_context_get('default')).until AS until,
       uid_to_global('......3....')::text AS global, atproto_rkey_is_valid('a/b') AS rkey,
       codokey_like('yf17', 'yf%') AS "like";
-- ... and with the shadowing schema first, where unqualified names do
-- resolve to the impostors:
SET search_path = regress_kid_evil, pg_catalog, public;
SELECT 'a'::text = 'b'::text AS evil_text_eq, 1 = 2 AS evil_int_eq, 'a'::text LIKE 'a' AS evil_like, current_setting('kid.uid_interval', true) AS evil_setting,
       uid_node_fingerprint() AS evil_fingerprint, codokey_encode(now(), 2, 1970, 3265, 9)::text AS evil_encode,
       (codokey_context_get('default')).until AS evil_context;
SELECT codokey('2024-05-06 07:08:09+00', 6)::text AS key,
       codokey_to_timestamp('yh7pg1f') AS time, codokey_precision('yh7pg1f') AS precision,
       (codokey_info('yh7pg1f')).year AS year, public.codokey_context_get('default') AS context,
       uid_to_global('......3....')::text AS global, public.atproto_rkey_is_valid('a/b') AS rkey;
SELECT c.key = public.codokey('2024-05-06 07:08:09+00', 6)::text AS same_key,
       c.time = public.codokey_to_timestamp('yh7pg1f') AS same_time,
       c.precision = public.codokey_precision('yh7pg1f') AS same_precision,
       c.year = (public.codokey_info('yh7pg1f')).year AS same_info,
       c.until = (public.codokey_context_get('default')).until AS same_context,
       c.global = public.uid_to_global('......3....')::text AS same_uid_to_global_defaults,
       c.rkey = public.atproto_rkey_is_valid('a/b') AS same_rkey,
       c."like" = public.codokey_like('yf17', 'yf%') AS same_like
FROM pg_temp.regress_kid_clean c;
SELECT 'a/b'::public.atproto_rkey;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT public.codokey('2024-05-06', 2, 'no such context');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
RESET ROLE;
-- The context guard still refuses, with the impostors first on the path.
UPDATE public.codokey_context SET until = 3000 WHERE name OPERATOR(pg_catalog.=) 'default';
\echo SQLSTATE :LAST_ERROR_SQLSTATE
RESET search_path;

DROP FUNCTION pg_temp.codokey_context_get(text);
DROP TABLE regress_kid_ids, regress_kid_copy, regress_kid_clean, pg_temp.codokey_context;
DROP SCHEMA regress_kid_evil CASCADE;
DROP SCHEMA regress_kid_parts CASCADE;
DROP VIEW kid_function;
REVOKE pg_read_all_stats FROM regress_kid_user;
DROP ROLE regress_kid_user;
