-- Range scans of atproto_tid (1 us units) and koid (1 ms units, kid.koid_epoch_ms
-- = 0 here) by time: cross-type operators with timestamptz at unit boundaries,
-- agreement with *_from_timestamp, expression index, BRIN, partitions.
SET TIME ZONE 'UTC';
SET max_parallel_workers_per_gather = 0;

-- ---------------------------------------------------------------- atproto_tid
-- A timestamptz sorts just below the smallest tid of its microsecond (clock
-- id 0), so that tid and the next (clock id 1) are both above it, and no tid
-- equals it: BETWEEN t1 AND t2 takes no tid of t2's microsecond.
WITH b AS (SELECT tid_from_timestamp('2026-03-01') AS lo, (tid_from_timestamp('2026-03-01')::bigint + 1)::atproto_tid AS id)
SELECT tid_clock_id(id) AS clock_id,
       lo = '2026-03-01'::timestamptz AS lo_eq, lo <= '2026-03-01'::timestamptz AS lo_le,
       lo < '2026-03-01 00:00:00.000001'::timestamptz AS lo_lt_next_us, lo > '2026-02-28 23:59:59.999999'::timestamptz AS lo_gt_prev_us,
       id >= '2026-03-01'::timestamptz AS ge, id > '2026-03-01'::timestamptz AS gt, id = '2026-03-01'::timestamptz AS eq,
       id <= '2026-03-01'::timestamptz AS le, id <> '2026-03-01'::timestamptz AS ne,
       id < '2026-03-01 00:00:00.000001'::timestamptz AS lt_next_us,
       '2026-03-01'::timestamptz < id AS t_lt, '2026-03-01'::timestamptz >= id AS t_ge, '2026-03-01'::timestamptz = lo AS t_eq,
       '2026-03-01 00:00:00.000001'::timestamptz > id AS next_t_gt,
       id BETWEEN '2026-02-28'::timestamptz AND '2026-03-01'::timestamptz AS between_ending_in_its_us,
       lo BETWEEN '2026-02-28'::timestamptz AND '2026-03-01'::timestamptz AS first_between_ending_in_its_us,
       id BETWEEN '2026-03-01'::timestamptz AND '2026-03-01 00:00:00.000001'::timestamptz AS between_to_next_us,
       atproto_tid_cmp_timestamptz(id, '2026-03-01') AS cmp, timestamptz_cmp_atproto_tid('2026-03-01', lo) AS cmp_commuted
FROM b;
-- Times before 1970, past 2^53 us (2255-06-05 23:47:34.740992), at the end of
-- timestamptz and infinities: below / above every tid.
SELECT '2222222222222'::atproto_tid >= '1970-01-01'::timestamptz AS smallest_in_1970,
       '2222222222222'::atproto_tid > '1969-12-31 23:59:59.999999'::timestamptz AS above_1969,
       'bzzzzzzzzzz22'::atproto_tid >= '2255-06-05 23:47:34.740991'::timestamptz AS last_us_ge,
       'bzzzzzzzzzzzz'::atproto_tid < '2255-06-05 23:47:34.740992'::timestamptz AS largest_below_end_of_range,
       'bzzzzzzzzzzzz'::atproto_tid < '294270-01-01'::timestamptz AS below_294270,
       'bzzzzzzzzzzzz'::atproto_tid < 'infinity'::timestamptz AS below_infinity,
       '2222222222222'::atproto_tid > '-infinity'::timestamptz AS above_minus_infinity;
-- The operators follow the bound tid_from_timestamp(t) (>= and > take the ids
-- at or above it, < and <= those below, = none) on 90,000 pairs (ids of clock
-- ids 0..2; times at, 1 us before and 1 us after their microseconds).
WITH ids AS (
    SELECT (tid_from_timestamp(timestamptz '2026-03-01' + i * interval '7 microseconds')::bigint + i % 3)::atproto_tid AS id
    FROM generate_series(0, 299) i
), ts AS (
    SELECT timestamptz '2026-03-01' + (j / 3 * 7 + j % 3 - 1) * interval '1 microsecond' AS t FROM generate_series(0, 299) j
)
SELECT count(*) FILTER (WHERE (id < t) <> (id < tid_from_timestamp(t))) AS lt_mismatch,
       count(*) FILTER (WHERE (id <= t) <> (id < tid_from_timestamp(t))) AS le_mismatch,
       count(*) FILTER (WHERE id = t) AS eq_mismatch,
       count(*) FILTER (WHERE NOT (id <> t)) AS ne_mismatch,
       count(*) FILTER (WHERE (id >= t) <> (id >= tid_from_timestamp(t))) AS ge_mismatch,
       count(*) FILTER (WHERE (id > t) <> (id >= tid_from_timestamp(t))) AS gt_mismatch,
       count(*) FILTER (WHERE (t > id) <> (id < t) OR (t >= id) <> (id <= t) OR (t = id) <> (id = t)
                           OR (t <= id) <> (id >= t) OR (t < id) <> (id > t) OR (t <> id) <> (id <> t)) AS commutator_mismatch,
       count(*) FILTER (WHERE (id >= t) <> (tid_to_timestamp(id) >= t)) AS ge_is_time_order,
       count(*) FILTER (WHERE id = t) AS equal_pairs
FROM ids, ts;

-- ---------------------------------------------------------------- koid
-- A timestamptz sorts just below the smallest koid of its millisecond
-- (generator 0, counter 0), so that koid and the next (counter 1) are both
-- above it, and no koid equals it.
WITH b AS (SELECT koid_from_timestamp('2026-03-01') AS lo, (koid_from_timestamp('2026-03-01')::bigint + 1)::koid AS id)
SELECT (koid_info(id)).counter,
       lo = '2026-03-01 00:00:00.000999'::timestamptz AS lo_eq_same_ms, lo <= '2026-03-01'::timestamptz AS lo_le,
       lo < '2026-03-01 00:00:00.001'::timestamptz AS lo_lt_next_ms, lo > '2026-02-28 23:59:59.999999'::timestamptz AS lo_gt_prev_ms,
       id >= '2026-03-01 00:00:00.000999'::timestamptz AS ge, id > '2026-03-01'::timestamptz AS gt, id = '2026-03-01'::timestamptz AS eq,
       id <= '2026-03-01 00:00:00.000999'::timestamptz AS le_same_ms, id <> '2026-03-01'::timestamptz AS ne,
       id < '2026-03-01 00:00:00.001'::timestamptz AS lt_next_ms,
       '2026-03-01'::timestamptz < id AS t_lt, '2026-03-01 00:00:00.0005'::timestamptz >= id AS t_ge, '2026-03-01 00:00:00.0005'::timestamptz = lo AS t_eq,
       '2026-03-01 00:00:00.001'::timestamptz > id AS next_t_gt,
       id BETWEEN '2026-02-28'::timestamptz AND '2026-03-01 00:00:00.0009'::timestamptz AS between_ending_in_its_ms,
       lo BETWEEN '2026-02-28'::timestamptz AND '2026-03-01 00:00:00.0009'::timestamptz AS first_between_ending_in_its_ms,
       id BETWEEN '2026-03-01 00:00:00.0009'::timestamptz AND '2026-03-01 00:00:00.001'::timestamptz AS between_to_next_ms,
       koid_cmp_timestamptz(id, '2026-03-01') AS cmp, timestamptz_cmp_koid('2026-03-01 00:00:00.001', lo) AS cmp_commuted
FROM b;
-- Times before the epoch, past 2^42 ms (2109-05-15 07:35:11.104), at the end
-- of timestamptz and infinities: below / above every koid.
SELECT '0000000000000000'::koid >= '1970-01-01'::timestamptz AS smallest_in_epoch_ms,
       '0000000000000000'::koid > '1969-12-31 23:59:59.999999'::timestamptz AS above_1969,
       'ffffffffffc00000'::koid >= '2109-05-15 07:35:11.103999'::timestamptz AS last_ms_ge,
       'ffffffffffffffff'::koid < '2109-05-15 07:35:11.104'::timestamptz AS largest_below_end_of_range,
       'ffffffffffffffff'::koid < '294270-01-01'::timestamptz AS below_294270,
       'ffffffffffffffff'::koid < 'infinity'::timestamptz AS below_infinity,
       '0000000000000000'::koid > '-infinity'::timestamptz AS above_minus_infinity;
-- The operators follow the bound koid_from_timestamp(t) (>= and > take the
-- ids at or above it, < and <= those below, = none) on 90,000 pairs (ids with
-- counters 0..2 and generators 0/1023; times at a millisecond's start, 1 us
-- before and after it, and at its last microsecond).
WITH ids AS (
    SELECT (koid_from_timestamp(timestamptz '2026-03-01' + i * interval '3 milliseconds')::bigint
            + i % 3 + (i % 2) * (1023 << 12))::koid AS id
    FROM generate_series(0, 299) i
), ts AS (
    SELECT timestamptz '2026-03-01' + j / 4 * interval '2 milliseconds'
           + (ARRAY[-1, 0, 1, 999])[j % 4 + 1] * interval '1 microsecond' AS t
    FROM generate_series(0, 299) j
)
SELECT count(*) FILTER (WHERE (id < t) <> (id < koid_from_timestamp(t))) AS lt_mismatch,
       count(*) FILTER (WHERE (id <= t) <> (id < koid_from_timestamp(t))) AS le_mismatch,
       count(*) FILTER (WHERE id = t) AS eq_mismatch,
       count(*) FILTER (WHERE NOT (id <> t)) AS ne_mismatch,
       count(*) FILTER (WHERE (id >= t) <> (id >= koid_from_timestamp(t))) AS ge_mismatch,
       count(*) FILTER (WHERE (id > t) <> (id >= koid_from_timestamp(t))) AS gt_mismatch,
       count(*) FILTER (WHERE (t > id) <> (id < t) OR (t >= id) <> (id <= t) OR (t = id) <> (id = t)
                           OR (t <= id) <> (id >= t) OR (t < id) <> (id > t) OR (t <> id) <> (id <> t)) AS commutator_mismatch,
       count(*) FILTER (WHERE (id >= t) <> (koid_to_timestamp(id) >= koid_to_timestamp(koid_from_timestamp(t)))) AS ge_is_time_order,
       count(*) FILTER (WHERE id = t) AS equal_pairs
FROM ids, ts;

-- ---------------------------------------------------------------- tables
-- 100,000 rows, one every 10 s (about 11.6 days).
CREATE TABLE tk_log (tid atproto_tid NOT NULL, kid koid NOT NULL, payload int);
INSERT INTO tk_log SELECT tid_from_timestamp(t), koid_from_timestamp(t), i
FROM (SELECT i, timestamptz '2026-01-01' + i * interval '10 seconds' AS t FROM generate_series(0, 99999) i) s;
CREATE INDEX tk_log_tid ON tk_log (tid);
CREATE INDEX tk_log_kid ON tk_log (kid);
VACUUM ANALYZE tk_log;
EXPLAIN (COSTS OFF) SELECT * FROM tk_log WHERE tid >= '2026-01-10'::timestamptz AND tid < '2026-01-10 00:10'::timestamptz;
EXPLAIN (COSTS OFF) SELECT * FROM tk_log WHERE '2026-01-10'::timestamptz <= kid AND '2026-01-10 00:10'::timestamptz > kid;
SELECT count(*) FROM tk_log WHERE tid >= '2026-01-10'::timestamptz AND tid < '2026-01-10 00:10'::timestamptz;
-- BETWEEN takes the same rows: no tid equals a time, so the row of exactly
-- 00:10:00 is not <= 00:10 (it is in 00:10's microsecond).
SELECT count(*) FROM tk_log WHERE tid BETWEEN '2026-01-10'::timestamptz AND '2026-01-10 00:10'::timestamptz;
SELECT count(*) FROM tk_log WHERE kid >= koid_from_timestamp('2026-01-10') AND kid < koid_from_timestamp('2026-01-10 00:10');
EXPLAIN (COSTS OFF) SELECT count(*) FROM tk_log WHERE tid >= now() - interval '1 hour';

-- The decoders are IMMUTABLE: expression indexes on them work.
CREATE INDEX tk_log_tid_time ON tk_log (tid_to_timestamp(tid));
CREATE INDEX tk_log_kid_time ON tk_log (koid_to_timestamp(kid));
EXPLAIN (COSTS OFF) SELECT count(*) FROM tk_log WHERE tid_to_timestamp(tid) >= '2026-01-12';
EXPLAIN (COSTS OFF) SELECT count(*) FROM tk_log WHERE koid_to_timestamp(kid) >= '2026-01-12';
SELECT count(*) FROM tk_log WHERE tid_to_timestamp(tid) >= '2026-01-12';
SELECT count(*) FROM tk_log WHERE koid_to_timestamp(kid) >= '2026-01-12';
DROP INDEX tk_log_tid_time, tk_log_kid_time;

-- BRIN minmax with timestamptz bounds: a Bitmap Index Scan on the brin index.
CREATE INDEX tk_log_tid_brin ON tk_log USING brin (tid);
CREATE INDEX tk_log_kid_brin ON tk_log USING brin (kid);
SET enable_indexscan = off; SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tk_log WHERE tid >= '2026-01-12'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tk_log WHERE kid < '2026-01-01 01:00'::timestamptz;
SELECT count(*) FROM tk_log WHERE tid >= '2026-01-12'::timestamptz;
SELECT count(*) FROM tk_log WHERE kid < '2026-01-01 01:00'::timestamptz;
RESET enable_indexscan; RESET enable_seqscan;
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM tk_log WHERE tid >= '2026-01-12'::timestamptz;
SELECT count(*) FROM tk_log WHERE kid < '2026-01-01 01:00'::timestamptz;
RESET enable_indexscan; RESET enable_bitmapscan;
DROP INDEX tk_log_tid_brin, tk_log_kid_brin;

-- Range partitioning by id, bounds made from timestamps; pruning by timestamptz.
CREATE TABLE tid_parted (id atproto_tid NOT NULL, payload int) PARTITION BY RANGE (id);
CREATE TABLE tid_parted_lo PARTITION OF tid_parted
    FOR VALUES FROM (tid_from_timestamp('2026-01-01')) TO (tid_from_timestamp('2026-01-06'));
CREATE TABLE tid_parted_hi PARTITION OF tid_parted
    FOR VALUES FROM (tid_from_timestamp('2026-01-06')) TO (tid_from_timestamp('2026-02-01'));
INSERT INTO tid_parted SELECT tid, payload FROM tk_log;
SELECT tableoid::regclass, count(*), min(tid_to_timestamp(id)), max(tid_to_timestamp(id))
FROM tid_parted GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tid_parted WHERE id >= '2026-01-07'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tid_parted WHERE '2026-01-03'::timestamptz > id;
SELECT count(*) FROM tid_parted WHERE id >= '2026-01-06'::timestamptz;
CREATE TABLE koid_parted (id koid NOT NULL, payload int) PARTITION BY RANGE (id);
CREATE TABLE koid_parted_lo PARTITION OF koid_parted
    FOR VALUES FROM (koid_from_timestamp('2026-01-01')) TO (koid_from_timestamp('2026-01-06'));
CREATE TABLE koid_parted_hi PARTITION OF koid_parted
    FOR VALUES FROM (koid_from_timestamp('2026-01-06')) TO (koid_from_timestamp('2026-02-01'));
INSERT INTO koid_parted SELECT kid, payload FROM tk_log;
SELECT tableoid::regclass, count(*), min(koid_to_timestamp(id)), max(koid_to_timestamp(id))
FROM koid_parted GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM koid_parted WHERE id >= '2026-01-07'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM koid_parted WHERE id < '2026-01-03'::timestamptz;
SELECT count(*) FROM koid_parted WHERE id < '2026-01-06'::timestamptz;
-- Run-time pruning with a stable bound.
EXPLAIN (COSTS OFF) SELECT count(*) FROM koid_parted WHERE id >= now() - interval '1 hour';
DROP TABLE tid_parted, koid_parted, tk_log;
