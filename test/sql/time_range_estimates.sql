-- Row estimates of the id-timestamptz operators for the 8-byte id types
-- (atproto_tid, koid, uid) and uid_global: the histogram of the id column
-- is searched with the cross-type operator, so narrow time ranges get the
-- index and wide ones a sequential scan.
SET TIME ZONE 'UTC';
SET max_parallel_workers_per_gather = 0;

-- 300,000 rows, one every 10 s over about 35 days (2026-01-01 .. 2026-02-04 17:19:50).
CREATE TABLE est_log (tid atproto_tid NOT NULL, kid koid NOT NULL, uid uid NOT NULL, gid uid_global NOT NULL, payload int);
INSERT INTO est_log
SELECT tid_from_timestamp(t), koid_from_timestamp(t), uid_from_timestamp(t), uid_to_global(uid_from_timestamp(t), 5, 8), i
FROM (SELECT i, timestamptz '2026-01-01' + i * interval '10 seconds' AS t FROM generate_series(0, 299999) i) s;
CREATE INDEX est_log_tid ON est_log (tid);
CREATE INDEX est_log_kid ON est_log (kid);
CREATE INDEX est_log_uid ON est_log (uid);
CREATE INDEX est_log_gid ON est_log (gid);
VACUUM ANALYZE est_log;

\getenv abs_srcdir PG_ABS_SRCDIR
\set estimated_rows :abs_srcdir '/sql/include/estimated_rows.sql'
\i :estimated_rows
-- The real counts: 1920 rows (0.6%) since 2026-02-04 12:00, 291,360 (97%)
-- since 2026-01-02, 8640 before it, 25,920 (8.6%) from 2026-01-10 to 2026-01-13.
SELECT count(*) FILTER (WHERE tid >= '2026-02-04 12:00'::timestamptz) AS narrow,
       count(*) FILTER (WHERE tid >= '2026-01-02'::timestamptz) AS wide,
       count(*) FILTER (WHERE '2026-01-02'::timestamptz > tid) AS commuted,
       count(*) FILTER (WHERE tid >= '2026-01-10'::timestamptz AND tid < '2026-01-13'::timestamptz) AS two_sided
FROM est_log;
-- Each estimate within 2x of the real count, for every type.  PostgreSQL
-- cannot interpolate within a histogram bucket for a type it does not know,
-- so a bound counts as the middle of its bucket (1% of the rows at the
-- default statistics target): a one-sided estimate is good to half a bucket,
-- a two-sided one to a bucket, hence the 3-day range here.
SELECT col,
       estimated_rows(format($$SELECT * FROM est_log WHERE %I >= '2026-02-04 12:00'::timestamptz$$, col)) BETWEEN 960 AND 3840 AS narrow_within_2x,
       estimated_rows(format($$SELECT * FROM est_log WHERE %I >= '2026-01-02'::timestamptz$$, col)) BETWEEN 145680 AND 300000 AS wide_within_2x,
       estimated_rows(format($$SELECT * FROM est_log WHERE '2026-01-02'::timestamptz > %I$$, col)) BETWEEN 4320 AND 17280 AS commuted_within_2x,
       estimated_rows(format($$SELECT * FROM est_log WHERE %I >= '2026-01-10'::timestamptz AND %I < '2026-01-13'::timestamptz$$, col, col))
           BETWEEN 12960 AND 51840 AS two_sided_within_2x,
       estimated_rows(format($$SELECT * FROM est_log WHERE %I <= '2026-02-04 12:00'::timestamptz$$, col)) BETWEEN 149040 AND 300000 AS le_within_2x
FROM unnest(ARRAY['tid', 'kid', 'uid', 'gid']) col;

-- Narrow ranges use the index, wide ones a sequential scan.
EXPLAIN (COSTS OFF) SELECT * FROM est_log WHERE tid >= '2026-02-04 12:00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT * FROM est_log WHERE tid >= '2026-01-02'::timestamptz;
EXPLAIN (COSTS OFF) SELECT * FROM est_log WHERE kid >= '2026-02-04 12:00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT * FROM est_log WHERE kid >= '2026-01-02'::timestamptz;
EXPLAIN (COSTS OFF) SELECT * FROM est_log WHERE '2026-02-04 12:00'::timestamptz <= uid;
EXPLAIN (COSTS OFF) SELECT * FROM est_log WHERE '2026-01-02'::timestamptz <= uid;
EXPLAIN (COSTS OFF) SELECT * FROM est_log WHERE gid >= '2026-01-10'::timestamptz AND gid < '2026-01-10 01:00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT * FROM est_log WHERE gid >= '2026-01-02'::timestamptz AND gid < '2026-02-04'::timestamptz;
DROP TABLE est_log;
DROP FUNCTION estimated_rows(text);
