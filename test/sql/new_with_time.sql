--
-- tid_new_with_time, koid_new_with_time, uid_new_with_time and
-- uid_global_new_with_time: ids carrying a given time, for backfills
-- (sno_new_with_time is in sno_generate).  The field below the time comes
-- from a server-wide backfill sequence per scheme (uid and uid_global share
-- one), taken by fetch-and-add and started at a random value at server
-- start: so the values are not shown, only what holds whatever the start.
-- pg_regress runs one test at a time, so within one statement here the
-- sequence values are consecutive.
--
SET TimeZone = 'UTC';

-- The id carries the time: its unit is the time's unit.
SELECT tid_to_timestamp(tid_new_with_time('2026-11-01 12:00:00.123456')) AS tid_time,
       koid_to_timestamp(koid_new_with_time('2026-11-01 12:00:00.123456')) AS koid_time,
       uid_to_timestamp(uid_new_with_time('2026-11-01 12:00:00.123456'))
           = uid_to_timestamp(uid_from_timestamp('2026-11-01 12:00:00.123456')) AS uid_same_step,
       uid_global_to_timestamp(uid_global_new_with_time('2026-11-01 12:00:00.123456'))
           = uid_global_to_timestamp(uid_global_from_timestamp('2026-11-01 12:00:00.123456')) AS uid_global_same_step;
-- And so it sorts with the time-range operators: in or after t's unit,
-- before the next unit (uid_global: its node sits above the low bits of
-- the seconds, so only >= t is its unit's bound).
SELECT tid >= t AND tid < t + interval '1 microsecond' AS tid,
       koid >= t AND koid < t + interval '1 millisecond' AS koid,
       uid >= t AND uid < t + interval '1024 microseconds' AS uid,
       gid >= t AND uid_global_to_timestamp(gid) = t AS uid_global
FROM (SELECT t, tid_new_with_time(t) AS tid, koid_new_with_time(t) AS koid,
             uid_new_with_time(t) AS uid, uid_global_new_with_time(t) AS gid
      FROM (SELECT uid_to_timestamp(uid_from_timestamp('2026-11-01 12:00:00.123456')) AS t) s) ids;

-- The server's own fields, as the generators set them.
SELECT tid_clock_id(tid_new_with_time(t)) <> current_setting('kid.node_id')::int AS tid_clock_not_node,
       (koid_info(koid_new_with_time(t))).generator_id = (koid_info(koid_new())).generator_id AS koid_generator,
       (uid_global_info(uid_global_new_with_time(t))).node = uid_node_fingerprint() AS uid_global_node
FROM (VALUES (timestamptz '2026-11-01')) v(t);

-- Distinct up to the size of the field, then repeating: 1023 clock ids per
-- microsecond (kid.node_id's is never taken), 4096 counters per millisecond,
-- 16384 sequences per uid step.
SELECT count(*) AS calls, count(DISTINCT tid_new_with_time('2026-11-01 12:00:00.000001')) AS distinct_tids
FROM generate_series(1, 1023);
SELECT count(*) AS calls, count(DISTINCT tid_new_with_time('2026-11-01 12:00:00.000001')) AS distinct_tids
FROM generate_series(1, 1024);
SELECT count(*) FILTER (WHERE tid_clock_id(id) = current_setting('kid.node_id')::int) AS with_node_clock_id
FROM (SELECT tid_new_with_time('2026-11-01') AS id FROM generate_series(1, 3000)) s;
SELECT count(*) AS calls, count(DISTINCT koid_new_with_time('2026-11-01 12:00:00.001')) AS distinct_koids
FROM generate_series(1, 4096);
SELECT count(*) AS calls, count(DISTINCT koid_new_with_time('2026-11-01 12:00:00.001')) AS distinct_koids
FROM generate_series(1, 4097);
SELECT count(*) AS calls, count(DISTINCT uid_new_with_time('2026-11-01 12:00:00.001')) AS distinct_uids
FROM generate_series(1, 16384);
SELECT count(*) AS calls, count(DISTINCT uid_new_with_time('2026-11-01 12:00:00.001')) AS distinct_uids
FROM generate_series(1, 16385);
SELECT count(*) AS calls, count(DISTINCT uid_global_new_with_time('2026-11-01 12:00:00.001')) AS distinct_uid_globals
FROM generate_series(1, 16385);
-- What the functions promise, word for word, and the checks of it below:
-- the sequence is one for all times, so ids for one time are distinct
-- among any N consecutive calls whatever times the calls between had, and
-- two such ids N calls apart are equal.
SELECT p.oid::regprocedure AS function, obj_description(p.oid, 'pg_proc') AS promise
FROM pg_proc p WHERE p.proname IN ('tid_new_with_time', 'koid_new_with_time',
                                   'uid_new_with_time', 'uid_global_new_with_time')
ORDER BY p.oid::regprocedure::text;
-- Within N calls, two times interleaved: every id of each time distinct.
SELECT tid_to_timestamp(id) AS t, count(*) AS calls, count(DISTINCT id) AS distinct_tids
FROM (SELECT tid_new_with_time(CASE WHEN g % 3 = 0 THEN '2026-11-01' ELSE '2026-11-02' END::timestamptz) id
      FROM generate_series(1, 1023) g) s GROUP BY 1 ORDER BY 1;
SELECT koid_to_timestamp(id) AS t, count(*) AS calls, count(DISTINCT id) AS distinct_koids
FROM (SELECT koid_new_with_time(CASE WHEN g % 3 = 0 THEN '2026-11-01' ELSE '2026-11-02' END::timestamptz) id
      FROM generate_series(1, 4096) g) s GROUP BY 1 ORDER BY 1;
SELECT count(*) AS calls, count(DISTINCT u) AS distinct_uids, count(DISTINCT gu) AS distinct_uid_globals
FROM (SELECT CASE WHEN g % 2 = 0 THEN uid_new_with_time('2026-11-01') END AS u,
             CASE WHEN g % 2 = 1 THEN uid_global_new_with_time('2026-11-01') END AS gu
      FROM generate_series(1, 16384) g) s;
-- Beyond N calls: ids for one time N calls apart are equal, though every
-- call between was for another time (or of the other uid function).
SELECT count(*) AS calls, count(DISTINCT id) AS distinct_tids
FROM (SELECT tid_new_with_time(CASE WHEN g % 1023 = 1 THEN '2026-11-01' ELSE '2026-11-02' END::timestamptz) id
      FROM generate_series(1, 2047) g) s WHERE tid_to_timestamp(id) = '2026-11-01';
SELECT count(*) AS calls, count(DISTINCT id) AS distinct_koids
FROM (SELECT koid_new_with_time(CASE WHEN g % 4096 = 1 THEN '2026-11-01' ELSE '2026-11-02' END::timestamptz) id
      FROM generate_series(1, 4097) g) s WHERE koid_to_timestamp(id) = '2026-11-01';
SELECT count(u) AS calls, count(DISTINCT u) AS distinct_uids
FROM (SELECT CASE WHEN g % 16384 = 1 THEN uid_new_with_time('2026-11-01') END AS u,
             CASE WHEN g % 16384 <> 1 THEN uid_global_new_with_time('2026-11-02') END AS gu
      FROM generate_series(1, 16385) g) s;
-- Ids of different times differ.
SELECT count(DISTINCT tid_new_with_time(t)) AS tids, count(DISTINCT koid_new_with_time(t)) AS koids,
       count(DISTINCT uid_new_with_time(t)) AS uids
FROM generate_series(timestamptz '2026-11-01', '2026-11-01 00:00:01', interval '10 ms') t;

-- Times the type cannot hold: 22008, naming the time and the type.
SELECT tid_new_with_time('1969-12-31 23:59:59.999999');
SELECT tid_new_with_time('2300-01-01');
SELECT koid_new_with_time('1969-12-31 23:59:59.999');
SELECT koid_new_with_time('2200-01-01');
SELECT uid_new_with_time('1969-12-31 23:59:59.999999');
SELECT uid_global_new_with_time('40000-01-01');
SELECT tid_new_with_time('infinity');
SELECT koid_new_with_time('-infinity');
SELECT uid_new_with_time('infinity');
SELECT uid_global_new_with_time('-infinity');
\set VERBOSITY sqlstate
SELECT koid_new_with_time('2200-01-01');
\set VERBOSITY default
-- The last times they can hold.
SELECT tid_to_timestamp(tid_new_with_time('2255-06-05 23:47:34.740991')) AS tid_last,
       koid_to_timestamp(koid_new_with_time('2109-05-15 07:35:11.103')) AS koid_last;
SELECT tid_new_with_time('2255-06-05 23:47:34.740992');
SELECT koid_new_with_time('2109-05-15 07:35:11.104');
-- NULL in, NULL out (STRICT).
SELECT tid_new_with_time(NULL) IS NULL AS tid, koid_new_with_time(NULL) IS NULL AS koid,
       uid_new_with_time(NULL) IS NULL AS uid, uid_global_new_with_time(NULL) IS NULL AS uid_global;

-- VOLATILE: a DEFAULT gives every row its own id.
CREATE TABLE backfill (id atproto_tid PRIMARY KEY DEFAULT tid_new_with_time('2024-05-01'), n int);
INSERT INTO backfill (n) SELECT g FROM generate_series(1, 500) g;
SELECT count(*), count(DISTINCT id), min(tid_to_timestamp(id)) = max(tid_to_timestamp(id)) AS one_time FROM backfill;
DROP TABLE backfill;
RESET TimeZone;
