-- Range scans of sno by time: cross-type operators with timestamptz, their
-- semantics at 4 ms unit boundaries, index/BRIN/partition use, estimates.
SET TIME ZONE 'UTC';
SET max_parallel_workers_per_gather = 0;

-- A timestamptz sorts just below the smallest sno of its 4 ms unit: no sno
-- equals it, every sno of its unit and later is above it.
-- Unit boundaries: 2026-03-01 00:00:00.000 starts a unit (2026 - 2010 in ms is a multiple of 4).
SELECT sno_to_timestamp(sno_from_timestamp('2026-03-01 00:00:00.003')) AS unit_start;
WITH b AS (SELECT sno_from_timestamp('2026-03-01 00:00:00') AS lo)
SELECT
    lo = '2026-03-01 00:00:00'::timestamptz AS smallest_equals_t,
    lo = '2026-03-01 00:00:00.003'::timestamptz AS smallest_equals_t_in_same_unit,
    lo >= '2026-03-01 00:00:00.003'::timestamptz AS ge_in_same_unit,
    lo < '2026-03-01 00:00:00.004'::timestamptz AS lt_next_unit,
    lo > '2026-02-28 23:59:59.999'::timestamptz AS gt_previous_unit,
    lo <= '2026-03-01 00:00:00'::timestamptz AS le_t,
    '2026-03-01 00:00:00.001'::timestamptz <= lo AS t_le_smallest,
    sno_cmp_timestamptz(lo, '2026-03-01 00:00:00.002') AS cmp_same_unit,
    timestamptz_cmp_sno('2026-03-01 00:00:00.004', lo) AS cmp_next_unit
FROM b;
-- A later id of the same unit (sequence 1) is above the unit's bound: it is
-- >= t, > t, not = t, not <= t.
WITH b AS (SELECT sno_from_bytea(overlay(sno_to_bytea(sno_from_timestamp('2026-03-01')) PLACING '\x0001'::bytea FROM 9 FOR 2)) AS id)
SELECT sno_sequence(id), id >= '2026-03-01'::timestamptz AS ge, id > '2026-03-01'::timestamptz AS gt,
       id = '2026-03-01'::timestamptz AS eq, id <> '2026-03-01'::timestamptz AS ne,
       id <= '2026-03-01'::timestamptz AS le, id < '2026-03-01 00:00:00.004'::timestamptz AS lt_next,
       '2026-03-01'::timestamptz < id AS t_lt, '2026-03-01'::timestamptz >= id AS t_ge
FROM b;
-- Times outside 2010..2079 and infinities compare below / above every sno.
SELECT '2222222222222222'::sno > '2009-12-31'::timestamptz AS above_2009,
       'xxxxxxxxxxxxxxxx'::sno < '2080-01-01'::timestamptz AS below_2080,
       'xxxxxxxxxxxxxxxx'::sno < 'infinity'::timestamptz AS below_infinity,
       '2222222222222222'::sno > '-infinity'::timestamptz AS above_minus_infinity,
       '2222222222222222'::sno >= '2010-01-01'::timestamptz AS smallest_in_epoch_unit,
       'xxxxxxxxxxxxxxxx'::sno < '294270-01-01'::timestamptz AS below_294270;
-- The last years of timestamptz do not fit microseconds since 1970: a bound
-- there is out of range (22008), not a wrapped-around id.
\set VERBOSITY sqlstate
SELECT sno_from_timestamp('294270-01-01');
SELECT tid_from_timestamp('294270-01-01');
SELECT koid_from_timestamp('294270-01-01');
\set VERBOSITY default
-- BETWEEN t1 AND t2 is id >= t1 AND id <= t2, which takes the same ids as the
-- half-open id >= t1 AND id < t2: every id of t1's 4 ms unit, none of t2's.
WITH b AS (SELECT sno_from_timestamp('2026-03-01') AS lo,
                  sno_from_bytea(overlay(sno_to_bytea(sno_from_timestamp('2026-03-01')) PLACING '\x0001'::bytea FROM 9 FOR 2)) AS id)
SELECT lo BETWEEN '2026-02-28'::timestamptz AND '2026-03-01 00:00:00.003'::timestamptz AS first_between_ending_in_its_unit,
       id BETWEEN '2026-02-28'::timestamptz AND '2026-03-01 00:00:00.003'::timestamptz AS between_ending_in_its_unit,
       id BETWEEN '2026-03-01 00:00:00.003'::timestamptz AND '2026-03-01 00:00:00.004'::timestamptz AS between_from_its_unit,
       id BETWEEN SYMMETRIC '2026-03-01 00:00:00.004'::timestamptz AND '2026-03-01'::timestamptz AS between_symmetric
FROM b;

-- The operators follow the bound sno_from_timestamp(t) (>= and > take the ids
-- at or above it, < and <= those below, = none) on many random pairs.
WITH ids AS (
    SELECT sno_from_bytea(substring(decode(md5(i::text) || md5((i * 5)::text), 'hex') FROM 1 FOR 10)) AS id
    FROM generate_series(1, 300) i
), ts AS (
    SELECT sno_to_timestamp(sno_from_bytea(substring(decode(md5((i * 11)::text) || md5(i::text), 'hex') FROM 1 FOR 10)))
           + (i % 4) * interval '1 millisecond' AS t
    FROM generate_series(1, 300) i
)
SELECT count(*) FILTER (WHERE (id < t) <> (id < sno_from_timestamp(t))) AS lt_mismatch,
       count(*) FILTER (WHERE (id <= t) <> (id < sno_from_timestamp(t))) AS le_mismatch,
       count(*) FILTER (WHERE id = t) AS eq_mismatch,
       count(*) FILTER (WHERE (id >= t) <> (id >= sno_from_timestamp(t))) AS ge_mismatch,
       count(*) FILTER (WHERE (id > t) <> (id >= sno_from_timestamp(t))) AS gt_mismatch,
       count(*) FILTER (WHERE (t > id) <> (id < t) OR (t <= id) <> (id >= t)) AS commutator_mismatch
FROM ids, ts;

-- A table of 300,000 ids, one every 10 s over about 35 days.
CREATE TABLE sno_log (id sno PRIMARY KEY, payload int);
INSERT INTO sno_log
SELECT sno_new_with_time(timestamptz '2026-01-01' + i * interval '10 seconds'), i FROM generate_series(0, 299999) i;
VACUUM ANALYZE sno_log;

-- Narrow range: the primary-key index, both argument orders.
EXPLAIN (COSTS OFF) SELECT count(*) FROM sno_log WHERE id >= '2026-02-04 12:00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sno_log WHERE '2026-01-01 01:00'::timestamptz > id;
EXPLAIN (COSTS OFF) SELECT * FROM sno_log WHERE id >= '2026-01-10'::timestamptz AND id < '2026-01-10 00:10'::timestamptz;
SELECT count(*) FROM sno_log WHERE id >= '2026-01-10'::timestamptz AND id < '2026-01-10 00:10'::timestamptz;
-- An untyped literal next to an sno column is read as an sno, as for any type: type the bound.
SELECT count(*) FROM sno_log WHERE id >= '2026-01-10';
SELECT count(*) FROM sno_log WHERE id >= sno_from_timestamp('2026-01-10') AND id < sno_from_timestamp('2026-01-10 00:10');
-- Wide range: a sequential scan.
EXPLAIN (COSTS OFF) SELECT count(*) FROM sno_log WHERE id >= '2026-01-02'::timestamptz;
-- Estimates follow the histogram: 1920 rows (0.6%) and 291,360 rows (97%) really match.
\getenv abs_srcdir PG_ABS_SRCDIR
\set estimated_rows :abs_srcdir '/sql/include/estimated_rows.sql'
\i :estimated_rows
SELECT estimated_rows($$SELECT * FROM sno_log WHERE id >= '2026-02-04 12:00'::timestamptz$$) BETWEEN 960 AND 3840 AS narrow_estimate_within_2x,
       estimated_rows($$SELECT * FROM sno_log WHERE id >= '2026-01-02'::timestamptz$$) BETWEEN 145680 AND 300000 AS wide_estimate_within_2x,
       estimated_rows($$SELECT * FROM sno_log WHERE '2026-01-02'::timestamptz > id$$) BETWEEN 4320 AND 17280 AS commuted_estimate_within_2x;
-- Relative times work: a stable bound is evaluated once, at execution.
EXPLAIN (COSTS OFF) SELECT count(*) FROM sno_log WHERE id >= now() - interval '1 hour';

-- The decoder is IMMUTABLE: an expression index on it works.
CREATE INDEX sno_log_time ON sno_log (sno_to_timestamp(id));
EXPLAIN (COSTS OFF) SELECT count(*) FROM sno_log WHERE sno_to_timestamp(id) >= '2026-02-04 12:00';
DROP INDEX sno_log_time;

-- BRIN with a timestamptz bound.
CREATE INDEX sno_log_brin ON sno_log USING brin (id);
SET enable_indexscan = off; SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sno_log WHERE id >= '2026-02-04 12:00'::timestamptz;
SELECT count(*) FROM sno_log WHERE id >= '2026-02-04 12:00'::timestamptz;
RESET enable_indexscan; RESET enable_seqscan;
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM sno_log WHERE id >= '2026-02-04 12:00'::timestamptz;
RESET enable_indexscan; RESET enable_bitmapscan;
DROP INDEX sno_log_brin;

-- Range partitioning by id with bounds made from timestamps; pruning by timestamptz.
CREATE TABLE sno_parted (id sno NOT NULL, payload int) PARTITION BY RANGE (id);
CREATE TABLE sno_parted_2026_01 PARTITION OF sno_parted
    FOR VALUES FROM (sno_from_timestamp('2026-01-01')) TO (sno_from_timestamp('2026-02-01'));
CREATE TABLE sno_parted_2026_02 PARTITION OF sno_parted
    FOR VALUES FROM (sno_from_timestamp('2026-02-01')) TO (sno_from_timestamp('2026-03-01'));
INSERT INTO sno_parted SELECT * FROM sno_log;
SELECT tableoid::regclass, count(*), min(sno_to_timestamp(id)), max(sno_to_timestamp(id))
FROM sno_parted GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sno_parted WHERE id >= '2026-02-03'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sno_parted WHERE id < '2026-01-15'::timestamptz;
DROP TABLE sno_parted, sno_log;
DROP FUNCTION estimated_rows(text);
