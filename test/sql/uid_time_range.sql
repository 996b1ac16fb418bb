-- Range scans of uid and uid_global by time: cross-type operators with
-- timestamptz at 1.024 ms step boundaries, agreement with *_from_timestamp,
-- the neighbourhood window of uid_global, expression index, BRIN, partitions.
SET TIME ZONE 'UTC';
SET max_parallel_workers_per_gather = 0;

-- A step is 1024 us of a second: step k holds microseconds k*1024 .. k*1024+1023,
-- and the last one (976) only 999424 .. 999999.  2026-03-01 00:00:00 starts step 0.
SELECT t, uid_to_timestamp(uid_from_timestamp(t)) AS step_start, (uid_info(uid_from_timestamp(t))).microseconds
FROM unnest(ARRAY['2026-03-01 00:00:00', '2026-03-01 00:00:00.001023', '2026-03-01 00:00:00.001024',
                  '2026-03-01 00:00:00.999423', '2026-03-01 00:00:00.999424', '2026-03-01 00:00:00.999999',
                  '2026-03-01 00:00:01']::timestamptz[]) t;

-- A timestamptz sorts just below the smallest uid of its step (sequence 0):
-- no uid equals it, every uid of its step and later is above it.
WITH b AS (SELECT uid_from_timestamp('2026-03-01') AS lo)
SELECT
    lo = '2026-03-01 00:00:00'::timestamptz AS eq_t,
    lo = '2026-03-01 00:00:00.001023'::timestamptz AS eq_last_us_of_step,
    lo = '2026-03-01 00:00:00.001024'::timestamptz AS eq_next_step,
    lo < '2026-03-01 00:00:00.001024'::timestamptz AS lt_next_step,
    lo < '2026-03-01 00:00:00.001023'::timestamptz AS lt_same_step,
    lo >= '2026-03-01 00:00:00.001023'::timestamptz AS ge_same_step,
    lo > '2026-02-28 23:59:59.999999'::timestamptz AS gt_previous_step,
    lo <= '2026-03-01 00:00:00'::timestamptz AS le_t,
    lo <> '2026-03-01 00:00:00.0005'::timestamptz AS ne_same_step,
    uid_cmp_timestamptz(lo, '2026-03-01 00:00:00.001') AS cmp_same_step,
    uid_cmp_timestamptz(lo, '2026-03-01 00:00:00.001024') AS cmp_next_step,
    timestamptz_cmp_uid('2026-03-01 00:00:00.001024', lo) AS cmp_commuted
FROM b;
-- Both argument orders.
WITH b AS (SELECT uid_from_timestamp('2026-03-01') AS lo)
SELECT '2026-03-01 00:00:00.0007'::timestamptz = lo AS t_eq, '2026-03-01 00:00:00.0007'::timestamptz <= lo AS t_le,
       '2026-03-01 00:00:00.0007'::timestamptz >= lo AS t_ge, '2026-03-01 00:00:00.001024'::timestamptz > lo AS next_t_gt,
       '2026-03-01 00:00:00.001024'::timestamptz < lo AS next_t_lt, '2026-02-28 23:59:59.999999'::timestamptz < lo AS prev_t_lt
FROM b;
-- A later id of the same step (sequence 1) is above t like the step's first:
-- >= t and > t, not = t and not <= t; BETWEEN t1 AND t2 takes no id of t2's
-- step, like the half-open id >= t1 AND id < t2.
WITH b AS (SELECT uid_from_timestamp('2026-03-01') AS lo, (uid_from_timestamp('2026-03-01')::bigint + 1)::uid AS id)
SELECT (uid_info(id)).sequence, id >= '2026-03-01'::timestamptz AS ge, id > '2026-03-01'::timestamptz AS gt,
       id = '2026-03-01'::timestamptz AS eq, id <= '2026-03-01 00:00:00.001023'::timestamptz AS le_same_step,
       id < '2026-03-01 00:00:00.001024'::timestamptz AS lt_next_step,
       '2026-03-01'::timestamptz < id AS t_lt, '2026-03-01 00:00:00.0009'::timestamptz >= id AS t_ge,
       id BETWEEN '2026-02-28'::timestamptz AND '2026-03-01'::timestamptz AS between_ending_in_its_step,
       lo BETWEEN '2026-02-28'::timestamptz AND '2026-03-01 00:00:00.0009'::timestamptz AS first_between_ending_in_its_step,
       id BETWEEN '2026-03-01 00:00:00.0009'::timestamptz AND '2026-03-01 00:00:00.001024'::timestamptz AS between_from_its_step,
       id BETWEEN SYMMETRIC '2026-03-01 00:00:00.001024'::timestamptz AND '2026-03-01'::timestamptz AS between_symmetric
FROM b;
-- The short last step of a second and the next second.
WITH b AS (SELECT uid_from_timestamp('2026-03-01 00:00:00.9995') AS last_step)
SELECT last_step >= '2026-03-01 00:00:00.999424'::timestamptz AS ge_step_976,
       last_step > '2026-03-01 00:00:00.999423'::timestamptz AS gt_step_975,
       last_step < '2026-03-01 00:00:01'::timestamptz AS lt_next_second,
       (last_step::bigint + 16383)::uid < '2026-03-01 00:00:01'::timestamptz AS last_id_of_step_lt_next_second
FROM b;
-- Times before 1970, past A's 20 bits (35198-01-19 07:06:40), at the end of
-- timestamptz and infinities: below / above every uid.
SELECT '...........'::uid > '1969-12-31 23:59:59.999999'::timestamptz AS above_1969,
       '...........'::uid >= '1970-01-01'::timestamptz AS smallest_in_1970,
       uid_from_timestamp('35198-01-19 07:06:39.999999') >= '35198-01-19 07:06:39.999999'::timestamptz AS last_step_ge,
       uid_from_timestamp('35198-01-19 07:06:39.999999') < '35198-01-19 07:06:40'::timestamptz AS below_end_of_range,
       hi < '35198-01-19 07:06:40'::timestamptz AS largest_below_end_of_range,
       hi < '40000-01-01'::timestamptz AS below_40000,
       hi < '294270-01-01'::timestamptz AS below_294270,
       hi < 'infinity'::timestamptz AS below_infinity,
       '...........'::uid > '-infinity'::timestamptz AS above_minus_infinity,
       'infinity'::timestamptz > hi AS infinity_commuted
FROM (SELECT (uid_from_timestamp('35198-01-19 07:06:39.999999')::bigint + 16383)::uid AS hi) largest;
SELECT uid_from_timestamp('35198-01-19 07:06:40');

-- The operators follow the bound uid_from_timestamp(t) (>= and > take the ids
-- at or above it, < and <= those below, = none) on 90,000 pairs around a
-- second boundary (ids of sequence 0..2; times at a step's start, 1 us
-- before and after it, and at its last microsecond).
WITH ids AS (
    SELECT (uid_from_timestamp(timestamptz '2026-03-01 00:00:00.9' + i * interval '997 microseconds')::bigint + i % 3)::uid AS id
    FROM generate_series(0, 299) i
), ts AS (
    SELECT uid_to_timestamp(uid_from_timestamp(timestamptz '2026-03-01 00:00:00.9' + j * interval '1009 microseconds'))
           + (ARRAY[-1, 0, 1, 1023])[j % 4 + 1] * interval '1 microsecond' AS t
    FROM generate_series(0, 299) j
)
SELECT count(*) FILTER (WHERE (id < t) <> (id < uid_from_timestamp(t))) AS lt_mismatch,
       count(*) FILTER (WHERE (id <= t) <> (id < uid_from_timestamp(t))) AS le_mismatch,
       count(*) FILTER (WHERE id = t) AS eq_mismatch,
       count(*) FILTER (WHERE NOT (id <> t)) AS ne_mismatch,
       count(*) FILTER (WHERE (id >= t) <> (id >= uid_from_timestamp(t))) AS ge_mismatch,
       count(*) FILTER (WHERE (id > t) <> (id >= uid_from_timestamp(t))) AS gt_mismatch,
       count(*) FILTER (WHERE (t > id) <> (id < t) OR (t >= id) <> (id <= t) OR (t = id) <> (id = t)
                           OR (t <= id) <> (id >= t) OR (t < id) <> (id > t) OR (t <> id) <> (id <> t)) AS commutator_mismatch,
       count(*) FILTER (WHERE uid_cmp_timestamptz(id, t) <> CASE WHEN id >= uid_from_timestamp(t) THEN 1 ELSE -1 END) AS cmp_mismatch,
       count(*) FILTER (WHERE (id >= t) <> (uid_to_timestamp(id) >= uid_to_timestamp(uid_from_timestamp(t)))) AS ge_is_time_order,
       count(*) FILTER (WHERE id = t) AS equal_pairs
FROM ids, ts;

-- uid_global: the same 1.024 ms steps; the bound is the node-0 id.
WITH b AS (SELECT uid_global_from_timestamp('2026-03-01') AS lo)
SELECT lo = uid_to_global(uid_from_timestamp('2026-03-01'), 0, 8) AS bound_is_node_0,
       uid_global_from_timestamp('2026-03-01') = uid_global_from_timestamp('2026-03-01', current_setting('kid.uid_interval')::integer) AS default_is_kid_uid_interval,
       lo >= '2026-03-01 00:00:00.001023'::timestamptz AS ge_same_step, lo < '2026-03-01 00:00:00.001024'::timestamptz AS lt_next_step,
       lo > '2026-02-28 23:59:59.999999'::timestamptz AS gt_previous_step, '2026-03-01 00:00:00.0005'::timestamptz <= lo AS t_le,
       uid_to_global((uid_from_timestamp('2026-03-01')::bigint + 1)::uid, 0, 8) > '2026-03-01'::timestamptz AS seq_1_gt,
       uid_to_global((uid_from_timestamp('2026-03-01')::bigint + 1)::uid, 0, 8) BETWEEN '2026-02-28'::timestamptz AND '2026-03-01'::timestamptz AS seq_1_between,
       uid_global_cmp_timestamptz(lo, '2026-03-01 00:00:00.001024') AS cmp_next_step,
       timestamptz_cmp_uid_global('2026-02-28 23:59:59.999999', lo) AS cmp_commuted,
       uid_global_from_timestamp('2026-01-01') < '294270-01-01'::timestamptz AS below_294270,
       uid_global_from_timestamp('1970-01-01') > '1969-12-31 23:59:59.999999'::timestamptz AS above_1969
FROM b;
-- Within a 2^I-second neighbourhood window (I = 8: 256 s; 2026-03-01 00:00:00
-- is 128 s into one) uid_global ids sort by node first, so for a node other
-- than 0, id >= t holds for every id of t's window, even 100 s before t.
-- Recheck with uid_global_to_timestamp(id) >= t where that matters.
SELECT node, secs_before_t, gid >= '2026-03-01'::timestamptz AS ge_t,
       gid < '2026-03-01'::timestamptz AS lt_t, uid_global_to_timestamp(gid) >= '2026-03-01' AS time_ge_t
FROM (VALUES (0, 1), (0, 100), (5, 100), (5, 129), (4294967295, 100), (4294967295, 128)) v(node, secs_before_t),
     LATERAL (SELECT uid_to_global(uid_from_timestamp(timestamptz '2026-03-01' - secs_before_t * interval '1 second'), node, 8) AS gid) g
ORDER BY node, secs_before_t;
-- Agreement with uid_global_from_timestamp for ids of three nodes.
WITH ids AS (
    SELECT uid_to_global((uid_from_timestamp(timestamptz '2026-03-01 00:00:00.9' + i * interval '997 microseconds')::bigint + i % 3)::uid,
                         (ARRAY[0, 7, 4294967295])[i % 3 + 1], 8) AS id
    FROM generate_series(0, 299) i
), ts AS (
    SELECT uid_to_timestamp(uid_from_timestamp(timestamptz '2026-03-01 00:00:00.9' + j * interval '1009 microseconds'))
           + (ARRAY[-1, 0, 1, 1023])[j % 4 + 1] * interval '1 microsecond' AS t
    FROM generate_series(0, 299) j
)
SELECT count(*) FILTER (WHERE (id < t) <> (id < uid_global_from_timestamp(t))) AS lt_mismatch,
       count(*) FILTER (WHERE (id <= t) <> (id < uid_global_from_timestamp(t))) AS le_mismatch,
       count(*) FILTER (WHERE id = t) AS eq_mismatch,
       count(*) FILTER (WHERE (id >= t) <> (id >= uid_global_from_timestamp(t))) AS ge_mismatch,
       count(*) FILTER (WHERE (id > t) <> (id >= uid_global_from_timestamp(t))) AS gt_mismatch,
       count(*) FILTER (WHERE (t > id) <> (id < t) OR (t <= id) <> (id >= t) OR (t = id) <> (id = t)) AS commutator_mismatch,
       count(*) FILTER (WHERE id = t) AS equal_pairs
FROM ids, ts;

-- A table of 100,000 rows, one every 10 s (about 11.6 days), uid_global of node 5.
CREATE TABLE uid_log (id uid PRIMARY KEY, gid uid_global NOT NULL, payload int);
INSERT INTO uid_log SELECT uid_from_timestamp(t), uid_to_global(uid_from_timestamp(t), 5, 8), i
FROM (SELECT i, timestamptz '2026-01-01' + i * interval '10 seconds' AS t FROM generate_series(0, 99999) i) s;
CREATE INDEX uid_log_gid ON uid_log (gid);
VACUUM ANALYZE uid_log;
EXPLAIN (COSTS OFF) SELECT * FROM uid_log WHERE id >= '2026-01-10'::timestamptz AND id < '2026-01-10 00:10'::timestamptz;
EXPLAIN (COSTS OFF) SELECT * FROM uid_log WHERE '2026-01-10'::timestamptz <= gid AND '2026-01-10 00:10'::timestamptz > gid;
SELECT count(*) FROM uid_log WHERE id >= '2026-01-10'::timestamptz AND id < '2026-01-10 00:10'::timestamptz;
SELECT count(*) FROM uid_log WHERE id >= uid_from_timestamp('2026-01-10') AND id < uid_from_timestamp('2026-01-10 00:10');
-- Node 5's ids compare with a time by 256-second window: 2026-01-10 00:00:00
-- is 128 s into one, so the 12 rows of 23:58:00..23:59:50 are >= it; 00:10:00
-- is 216 s into one, so the 21 rows of 00:06:30..00:09:50 are not < it.
SELECT count(*) FROM uid_log WHERE gid >= '2026-01-10'::timestamptz AND gid < '2026-01-10 00:10'::timestamptz;
-- Exact by time: widen both bounds by the window (the index range) and recheck the time.
EXPLAIN (COSTS OFF) SELECT count(*) FROM uid_log
WHERE gid >= '2026-01-10'::timestamptz - interval '256 s' AND gid < '2026-01-10 00:10'::timestamptz + interval '256 s'
  AND uid_global_to_timestamp(gid) >= '2026-01-10' AND uid_global_to_timestamp(gid) < '2026-01-10 00:10';
SELECT count(*) FROM uid_log
WHERE gid >= '2026-01-10'::timestamptz - interval '256 s' AND gid < '2026-01-10 00:10'::timestamptz + interval '256 s'
  AND uid_global_to_timestamp(gid) >= '2026-01-10' AND uid_global_to_timestamp(gid) < '2026-01-10 00:10';
EXPLAIN (COSTS OFF) SELECT count(*) FROM uid_log WHERE id >= now() - interval '1 hour';

-- The decoders are IMMUTABLE: expression indexes on them work.
CREATE INDEX uid_log_time ON uid_log (uid_to_timestamp(id));
CREATE INDEX uid_log_gtime ON uid_log (uid_global_to_timestamp(gid));
EXPLAIN (COSTS OFF) SELECT count(*) FROM uid_log WHERE uid_to_timestamp(id) >= '2026-01-12';
EXPLAIN (COSTS OFF) SELECT count(*) FROM uid_log WHERE uid_global_to_timestamp(gid) >= '2026-01-12';
SELECT count(*) FROM uid_log WHERE uid_to_timestamp(id) >= '2026-01-12';
DROP INDEX uid_log_time, uid_log_gtime;

-- BRIN minmax with timestamptz bounds: a Bitmap Index Scan on the brin index.
CREATE INDEX uid_log_brin ON uid_log USING brin (id);
CREATE INDEX uid_log_gid_brin ON uid_log USING brin (gid);
SET enable_indexscan = off; SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uid_log WHERE id >= '2026-01-12'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uid_log WHERE gid < '2026-01-01 01:00'::timestamptz;
SELECT count(*) FROM uid_log WHERE id >= '2026-01-12'::timestamptz;
SELECT count(*) FROM uid_log WHERE gid < '2026-01-01 01:00'::timestamptz;
RESET enable_indexscan; RESET enable_seqscan;
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM uid_log WHERE id >= '2026-01-12'::timestamptz;
SELECT count(*) FROM uid_log WHERE gid < '2026-01-01 01:00'::timestamptz;
RESET enable_indexscan; RESET enable_bitmapscan;
DROP INDEX uid_log_brin, uid_log_gid_brin;

-- Range partitioning by id, bounds made from timestamps; pruning by timestamptz.
CREATE TABLE uid_parted (id uid NOT NULL, payload int) PARTITION BY RANGE (id);
CREATE TABLE uid_parted_lo PARTITION OF uid_parted
    FOR VALUES FROM (uid_from_timestamp('2026-01-01')) TO (uid_from_timestamp('2026-01-06'));
CREATE TABLE uid_parted_hi PARTITION OF uid_parted
    FOR VALUES FROM (uid_from_timestamp('2026-01-06')) TO (uid_from_timestamp('2026-02-01'));
INSERT INTO uid_parted SELECT id, payload FROM uid_log;
SELECT tableoid::regclass, count(*), min(uid_to_timestamp(id)), max(uid_to_timestamp(id))
FROM uid_parted GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uid_parted WHERE id >= '2026-01-07'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uid_parted WHERE '2026-01-03'::timestamptz > id;
SELECT count(*) FROM uid_parted WHERE id >= '2026-01-06'::timestamptz;
-- TO is exclusive: the first id of 2026-02-01 is in no partition here.
INSERT INTO uid_parted VALUES (uid_from_timestamp('2026-02-01'), 0);
-- uid_global: node 5's ids of the 256 s window holding the boundary
-- (2026-01-06 00:00:00 is 192 s into one: 23:56:50..23:59:50, 19 rows)
-- sort into the later partition, consistently with gid >= '2026-01-06'.
CREATE TABLE uid_global_parted (gid uid_global NOT NULL, payload int) PARTITION BY RANGE (gid);
CREATE TABLE uid_global_parted_lo PARTITION OF uid_global_parted
    FOR VALUES FROM (uid_global_from_timestamp('2026-01-01')) TO (uid_global_from_timestamp('2026-01-06'));
CREATE TABLE uid_global_parted_hi PARTITION OF uid_global_parted
    FOR VALUES FROM (uid_global_from_timestamp('2026-01-06')) TO (uid_global_from_timestamp('2026-02-01'));
INSERT INTO uid_global_parted SELECT gid, payload FROM uid_log;
SELECT tableoid::regclass, count(*), min(uid_global_to_timestamp(gid)), max(uid_global_to_timestamp(gid))
FROM uid_global_parted GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uid_global_parted WHERE gid >= '2026-01-07'::timestamptz;
SELECT count(*) FROM uid_global_parted WHERE gid >= '2026-01-06'::timestamptz;
DROP TABLE uid_parted, uid_global_parted, uid_log;
