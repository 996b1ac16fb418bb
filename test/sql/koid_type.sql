-- koid: I/O, casts, comparison, generation (overflow, wait), decoding, range scans, bad input.
SET TIME ZONE 'UTC';
SET max_parallel_workers_per_gather = 0;

-- A row of the koid npm package's README: timestamp 0x8c20c0335 ms, datacenter 3, worker 1, counter 1.
SELECT '02308300cd461001'::koid AS id, koid_info('02308300cd461001');
SELECT koid_to_timestamp('02308300cd461001') = to_timestamp(x'8c20c0335'::bigint / 1000.0) AS time_matches;
-- Casts: bigint (the same 64 bits), bytea (8 big-endian bytes).
SELECT '02308300cd461001'::koid::bigint, 157770026425126913::koid, '02308300cd461001'::koid::bytea,
       '\x02308300cd461001'::bytea::koid;
-- With the 1970 epoch bit 63 is set from 2039-09-07T15:47:35.552Z: the bigint is negative,
-- the koid still sorts after earlier ones.
SELECT koid_from_timestamp('2039-09-07 15:47:35.552+00') AS id,
       koid_from_timestamp('2039-09-07 15:47:35.552+00')::bigint AS as_bigint,
       koid_from_timestamp('2039-09-07 15:47:35.552+00') > koid_from_timestamp('2039-09-07 15:47:35.551+00') AS sorts_later;
WITH ids AS (SELECT ('x' || md5(i::text))::bit(64)::bigint::koid AS id FROM generate_series(1, 400) i)
SELECT count(*) FILTER (WHERE (a.id < b.id) <> (a.id::text < b.id::text COLLATE "C")) AS text_order_mismatches
FROM ids a, ids b;

-- Generation: unique, strictly increasing, generator id = kid.node_id (0), counters <= 4095.
CREATE TEMP TABLE gen AS SELECT n, koid_new() AS id FROM generate_series(1, 100000) n;
SELECT count(DISTINCT id) AS distinct_ids, max((koid_info(id)).counter) <= 4095 AS counter_in_range,
       bool_and((koid_info(id)).generator_id = 0) AS generator_is_node_id,
       bool_and(koid_to_timestamp(id) > now() - interval '1 minute') AS recent
FROM gen;
SELECT count(*) AS out_of_order FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM gen) s WHERE prev >= id;
-- Ids per millisecond never exceed 4096 (the 4097th waited for the next millisecond).
SELECT max(c) <= 4096 AS at_most_4096_per_ms FROM (SELECT count(*) AS c FROM gen GROUP BY koid_to_timestamp(id)) s;
-- With kid.koid_overflow_error the 4097th id of a millisecond is an error
-- instead: test/server/36-koid_overflow.sh shows both on a stopped clock (how
-- many calls fit in one millisecond of a real clock depends on the machine).
SELECT generated >= 100000 AS counted FROM kid_generator_stats() WHERE scheme = 'koid';

-- Range scans: t sorts just below the smallest koid of its millisecond.
WITH b AS (SELECT koid_from_timestamp('2026-03-01 00:00:00.0009') AS lo)
SELECT lo, koid_to_timestamp(lo), lo >= '2026-03-01'::timestamptz AS ge, lo = '2026-03-01'::timestamptz AS eq,
       lo < '2026-03-01 00:00:00.001'::timestamptz AS lt_next_ms, (lo::bigint + 1)::koid > '2026-03-01'::timestamptz AS gt
FROM b;
CREATE TABLE koid_log (id koid PRIMARY KEY);
INSERT INTO koid_log SELECT koid_from_timestamp(timestamptz '2026-01-01' + i * interval '10 seconds') FROM generate_series(0, 99999) i;
VACUUM ANALYZE koid_log;
EXPLAIN (COSTS OFF) SELECT count(*) FROM koid_log WHERE id >= '2026-01-12'::timestamptz;
SELECT count(*) FROM koid_log WHERE id >= '2026-01-12'::timestamptz AND id < '2026-01-12 00:01'::timestamptz;
DROP TABLE koid_log;

-- Settings are for superusers: kid.koid_overflow_error is SUSET; the others need a restart.
SELECT name, context FROM pg_settings WHERE name LIKE 'kid.koid%' ORDER BY name;
-- The IMMUTABLE decoders read kid.koid_epoch_ms and kid.uid_interval: their
-- descriptions say to keep them for a database's life.
SELECT name, extra_desc FROM pg_settings WHERE name IN ('kid.koid_epoch_ms', 'kid.uid_interval')
ORDER BY name;

-- Bad input.
SELECT '02308300CD461001'::koid;
SELECT '2308300cd461001'::koid;
SELECT '0x308300cd461001'::koid;
SELECT '\x0102'::bytea::koid;
SELECT koid_from_timestamp('1969-12-31 23:59:59.999+00');
