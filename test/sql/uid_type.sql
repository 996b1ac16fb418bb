-- uid and uid_global: I/O, casts, comparison, generation, conversion, decoding, range scans, bad input.
SET TIME ZONE 'UTC';
SET max_parallel_workers_per_gather = 0;

-- Vectors derived by hand (test/unit/uid_test.cpp): 1970-01-01T00:00:01Z, seq 0, is
-- B = 1 << 24 = 16777216 and d64 "......3....".
SELECT '......3....'::uid AS id, '......3....'::uid::bigint AS bits, uid_info('......3....');
SELECT uid_from_timestamp('1970-01-01 00:00:01+00') = '......3....'::uid AS bound_matches;
-- 2023-06-30T15:03:01.887007Z: A = 1688, B = 137381, C >> 10 = 866 (C = 886784 us).
SELECT uid_info(uid_from_timestamp('2023-06-30 15:03:01.887007+00'));
-- A global id from it with node 0x01020304 and I = 8, and back.
SELECT uid_to_global('......3....', 16909060, 8) AS g,
       uid_to_global('......3....', 16909060, 8)::bytea AS bytes,
       uid_global_info(uid_to_global('......3....', 16909060, 8), 8);
-- d64 text sorts like the bits; base64url does not, but converts both ways.
WITH ids AS (SELECT uid_from_timestamp(timestamptz '2000-01-01' + i * interval '1 day 1 hour 1.5 second') AS id FROM generate_series(1, 300) i)
SELECT count(*) FILTER (WHERE (a.id < b.id) <> (a.id::text < b.id::text COLLATE "C")) AS text_order_mismatches,
       count(*) FILTER (WHERE uid_from_base64url(uid_to_base64url(a.id)) <> a.id) AS base64url_round_trip_failures
FROM ids a, ids b;
SELECT uid_to_base64url('......3....'), uid_from_base64url('AAAAAAEAAAA');
SELECT uid_global_from_base64url(uid_global_to_base64url(uid_to_global('......3....', 7, 5))) = uid_to_global('......3....', 7, 5) AS global_base64url_round_trip;

-- Generation: unique and rising across the server; the local layout keeps the counter's order.
CREATE TEMP TABLE gen AS SELECT n, uid_new() AS id, uid_global_new() AS gid FROM generate_series(1, 50000) n;
SELECT count(DISTINCT id) AS distinct_local, count(DISTINCT gid) AS distinct_global,
       bool_and(uid_to_timestamp(id) > now() - interval '1 minute') AS recent,
       bool_and((uid_global_info(gid, 8)).node = uid_node_fingerprint()) AS global_has_node,
       max((uid_info(id)).sequence) < 16384 AS sequence_in_range
FROM gen;
SELECT count(*) AS out_of_order FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM gen) s WHERE prev >= id;
SELECT count(*) AS global_out_of_order FROM (SELECT gid, lag(gid) OVER (ORDER BY n) AS prev FROM gen) s WHERE prev >= gid;
-- kid.uid_node is empty here: the fingerprint is derived from kid.node_id = 0.
SELECT uid_node_fingerprint() AS fingerprint_of_node_0, to_hex(uid_node_fingerprint()) AS hex;
SELECT generated >= 100000 AS counted FROM kid_generator_stats() WHERE scheme = 'uid';

-- Range scans: t sorts just below the smallest id of its 1.024 ms step.
WITH b AS (SELECT uid_from_timestamp('2026-03-01 00:00:00.0005') AS lo)
SELECT lo, uid_to_timestamp(lo), lo >= '2026-03-01'::timestamptz AS ge, lo = '2026-03-01'::timestamptz AS eq,
       lo < '2026-03-01 00:00:00.001024'::timestamptz AS lt_next_step,
       lo >= '2026-03-01 00:00:00.001023'::timestamptz AS same_step
FROM b;
CREATE TABLE uid_log (id uid PRIMARY KEY, gid uid_global);
INSERT INTO uid_log SELECT uid_from_timestamp(t), uid_global_from_timestamp(t)
FROM (SELECT timestamptz '2026-01-01' + i * interval '10 seconds' AS t FROM generate_series(0, 99999) i) s;
CREATE INDEX uid_log_gid ON uid_log (gid);
VACUUM ANALYZE uid_log;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uid_log WHERE id >= '2026-01-12'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uid_log WHERE gid >= '2026-01-12'::timestamptz;
SELECT count(*) FROM uid_log WHERE id >= '2026-01-12'::timestamptz AND id < '2026-01-12 00:01'::timestamptz;
SELECT count(*) FROM uid_log WHERE gid >= '2026-01-12'::timestamptz AND gid < '2026-01-12 00:01'::timestamptz;
DROP TABLE uid_log;

-- Bad input.
SELECT '..........0'::uid;          -- non-zero tail bits
SELECT '...........-'::uid;         -- 12 characters
SELECT '......+....'::uid;          -- not a d64 character
SELECT 'zzzzzzzzzzw'::uid;          -- seconds field above 999999
SELECT '\x0102'::bytea::uid_global;
SELECT (-1)::bigint::uid;           -- seconds field above 999999
SELECT uid_to_global('......3....', -1, 8);
SELECT uid_to_global('......3....', 1, 11);
SELECT uid_from_timestamp('1969-12-31 23:59:59+00');
SELECT uid_from_base64url('AAAAAAEAAA.');
