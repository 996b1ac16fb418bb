-- sno generation and decoding of generated ids (kid is preloaded here).
SET TIME ZONE 'UTC';

-- Ids made in one statement are unique and strictly increasing in the
-- order they were made.
CREATE TEMP TABLE gen AS
SELECT n, sno_new() AS id FROM generate_series(1, 50000) n;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids FROM gen;
SELECT count(*) AS out_of_order FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM gen) s WHERE prev >= id;
-- One backend, one partition: node 0, and the same partition for every id.
SELECT count(DISTINCT sno_partition(id)) AS partitions, min(sno_partition(id)) / 256 AS node FROM gen;
-- Generated ids carry the current time (within the 4 ms unit), tick 0, meta 0.
SELECT bool_and(sno_to_timestamp(id) <= clock_timestamp()) AS not_in_future,
       bool_and(sno_to_timestamp(id) >= now() - interval '1 minute') AS recent,
       bool_and(sno_tick(id) = 0) AS tick_zero,
       bool_and(sno_meta(id) = 0) AS meta_zero
FROM gen;
-- Sequences restart each unit: the first id of each unit has sequence 0.
SELECT min(sno_sequence(id)) AS min_sequence FROM gen;
SELECT bool_and(s = 0) AS each_unit_starts_at_zero FROM (
    SELECT min(sno_sequence(id)) AS s FROM gen GROUP BY sno_to_timestamp(id)) u;
-- Consecutive ids in one unit have consecutive sequences.
SELECT count(*) AS sequence_gaps FROM (
    SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM gen) s
WHERE sno_to_timestamp(id) = sno_to_timestamp(prev) AND sno_sequence(id) <> sno_sequence(prev) + 1;

-- The metabyte.
SELECT sno_meta(sno_new(0)), sno_meta(sno_new(7)), sno_meta(sno_new(255));
SELECT (sno_info(sno_new(42))).meta;
SELECT sno_new(-1);
SELECT sno_new(256);
SELECT sno_new(NULL) IS NULL AS strict;

-- As a column default; the primary key's index serves time ranges.
CREATE TABLE events (id sno PRIMARY KEY DEFAULT sno_new(), body text);
INSERT INTO events (body) SELECT 'event ' || i FROM generate_series(1, 1000) i;
SELECT count(*) FROM events WHERE id >= sno_from_timestamp(now() - interval '1 hour');
SELECT count(*) FROM events WHERE id < sno_from_timestamp(now() - interval '1 hour');
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM events WHERE id >= sno_from_timestamp(now() - interval '1 hour');
RESET enable_seqscan;

-- Backfill: a given time, tick 0, this backend's partition.
SELECT sno_to_timestamp(sno_new_with_time('2015-06-01 12:00:00.005+00')) AS backfill_time,
       sno_tick(sno_new_with_time('2015-06-01 12:00:00+00')) AS backfill_tick,
       sno_meta(sno_new_with_time('2015-06-01 12:00:00+00', 9)) AS backfill_meta;
SELECT sno_new_with_time('2015-06-01', 1) <> sno_new_with_time('2015-06-01', 1) AS sequence_differs;
SELECT sno_partition(sno_new_with_time('2015-06-01')) = sno_partition(sno_new()) AS same_partition;
SELECT sno_new_with_time('2000-01-01');
SELECT sno_new_with_time('2015-06-01', 300);

-- Statistics.
SELECT scheme, generated >= 51000 AS counted FROM kid_generator_stats() WHERE scheme = 'sno';
SELECT line, covered_until > now() AS lease_ahead FROM kid_lease() WHERE line = 'sno tick 0';
