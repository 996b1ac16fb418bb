-- The AT Protocol tid as type atproto_tid: I/O, casts, comparison, indexes,
-- generation, decoding, range scans by time, record keys, bad input.
SET TIME ZONE 'UTC';
SET max_parallel_workers_per_gather = 0;

-- Vectors derived from the layout (src/core/tid.h, test/unit/tid_test.cpp).
SELECT '2222222222222'::atproto_tid::bigint AS zero,
       '2222222222322'::atproto_tid::bigint AS one_microsecond,
       '22222222222zz'::atproto_tid::bigint AS clock_1023,
       'bzzzzzzzzzzzz'::atproto_tid::bigint = 9223372036854775807 AS largest_positive;
-- First characters c..j set bit 63: accepted, sort after all others, negative as bigint.
SELECT 'jzzzzzzzzzzzz'::atproto_tid::bigint AS all_bits, 'c222222222222'::atproto_tid > 'bzzzzzzzzzzzz'::atproto_tid AS sorts_last,
       (tid_info('c222222222222')).high_bit, tid_to_timestamp('c222222222222') = tid_to_timestamp('2222222222222') AS time_ignores_bit_63;
SELECT (-1)::bigint::atproto_tid AS from_minus_one, 1024::bigint::atproto_tid AS from_1024;
SELECT '3jzfcijpj2z2a'::atproto_tid::bytea, '\x0000000000000400'::bytea::atproto_tid;
SELECT tid_info('3jzfcijpj2z2a');
-- Text order = unsigned order, on random values.
WITH ids AS (SELECT ('x' || md5(i::text))::bit(64)::bigint::atproto_tid AS id FROM generate_series(1, 400) i)
SELECT count(*) FILTER (WHERE (a.id < b.id) <> (a.id::text < b.id::text COLLATE "C")) AS text_order_mismatches,
       count(*) FILTER (WHERE (a.id < b.id) <> (a.id::bytea < b.id::bytea)) AS byte_order_mismatches
FROM ids a, ids b;
SELECT a.x < b.x AS lt, a.x <= b.x AS le, a.x = b.x AS eq, a.x <> b.x AS ne, a.x >= b.x AS ge, a.x > b.x AS gt,
       atproto_tid_cmp(a.x, b.x) AS cmp
FROM (VALUES ('2222222222223'::atproto_tid), ('2222222222224'::atproto_tid)) a(x), (VALUES ('2222222222223'::atproto_tid)) b(x);

-- Indexes, sorting, hashing, min/max.
CREATE TABLE tid_t (id atproto_tid PRIMARY KEY, n int);
INSERT INTO tid_t SELECT ('x' || md5(i::text))::bit(64)::bigint::atproto_tid, i FROM generate_series(1, 20000) i;
CREATE INDEX tid_t_hash ON tid_t USING hash (id);
SELECT count(*) AS out_of_order FROM (SELECT id, lag(id) OVER (ORDER BY id) AS prev FROM tid_t) s WHERE prev >= id;
SELECT min(id) = (SELECT id FROM tid_t ORDER BY id LIMIT 1) AS min_ok, max(id) = (SELECT id FROM tid_t ORDER BY id DESC LIMIT 1) AS max_ok FROM tid_t;
SET enable_mergejoin = off; SET enable_nestloop = off;
SELECT count(*) AS hash_join_matches FROM tid_t a JOIN tid_t b USING (id);
RESET enable_mergejoin; RESET enable_nestloop;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM tid_t WHERE id = '3jzfcijpj2z2a';
RESET enable_seqscan;
SELECT atproto_tid_hash_extended('3jzfcijpj2z2a', 0) <> atproto_tid_hash_extended('3jzfcijpj2z2a', 1) AS seed_matters;
DROP TABLE tid_t;

-- Generation: unique, strictly increasing, clock id = kid.node_id (0 here), current time.
CREATE TEMP TABLE gen AS SELECT n, tid_new() AS id FROM generate_series(1, 50000) n;
SELECT count(DISTINCT id) AS distinct_ids FROM gen;
SELECT count(*) AS out_of_order FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM gen) s WHERE prev >= id;
SELECT bool_and(tid_clock_id(id) = 0) AS clock_id_is_node_id,
       bool_and(tid_to_timestamp(id) > now() - interval '1 minute') AS recent,
       bool_and(id::text ~ '^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$') AS protocol_syntax
FROM gen;
SELECT generated >= 50000 AS counted FROM kid_generator_stats() WHERE scheme = 'atproto_tid';

-- Volume on a healthy clock: 100,000 calls, far
-- more than one per microsecond, neither push tids ahead of the clock by
-- more than kid's 1 ms bound (TID_MAX_AHEAD_US) nor count as clock
-- regressions; the calls that found the bound used up are ahead_waits.
SELECT count(tid_new()) AS made FROM generate_series(1, 100000);
SELECT tid_to_timestamp(tid_new()) <= clock_timestamp() + interval '1 ms' AS not_ahead_of_clock;
SELECT regressions FROM kid_generator_stats() WHERE scheme = 'atproto_tid';

-- Range scans: t sorts just below the smallest tid of its microsecond.
SELECT tid_from_timestamp('2026-03-01 00:00:00.000001') AS bound,
       tid_to_timestamp(tid_from_timestamp('2026-03-01 00:00:00.000001'));
WITH b AS (SELECT tid_from_timestamp('2026-03-01') AS lo)
SELECT lo >= '2026-03-01'::timestamptz AS ge, lo = '2026-03-01'::timestamptz AS eq, (lo::bigint + 1)::atproto_tid > '2026-03-01'::timestamptz AS next_clock_gt,
       (lo::bigint + 1)::atproto_tid < '2026-03-01 00:00:00.000001'::timestamptz AS below_next_microsecond,
       lo > '1969-12-31'::timestamptz AS above_before_1970, 'jzzzzzzzzzzzz'::atproto_tid < 'infinity'::timestamptz AS below_infinity
FROM b;
CREATE TABLE tid_log (id atproto_tid PRIMARY KEY);
INSERT INTO tid_log SELECT tid_from_timestamp(timestamptz '2026-01-01' + i * interval '10 seconds') FROM generate_series(0, 99999) i;
VACUUM ANALYZE tid_log;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tid_log WHERE id >= '2026-01-12'::timestamptz;
SELECT count(*) FROM tid_log WHERE id >= '2026-01-12'::timestamptz AND id < '2026-01-12 00:01'::timestamptz;
CREATE INDEX tid_log_brin ON tid_log USING brin (id);
SET enable_indexscan = off; SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tid_log WHERE id >= '2026-01-12'::timestamptz;
RESET enable_indexscan; RESET enable_seqscan;
DROP TABLE tid_log;

-- Record keys.
SELECT left(k, 16) AS k, length(k), atproto_rkey_is_valid(k) FROM (VALUES ('self'), ('3jzfcijpj2z2a'), ('a:b~c_d-e.f'), ('.'), ('..'), ('...'), (''), ('a b'), ('a/b'), (repeat('a', 512)), (repeat('a', 513))) v(k);
SELECT 'self'::atproto_rkey;
SELECT '..'::atproto_rkey;

-- Bad input.
\set VERBOSITY sqlstate
SELECT 'k222222222222'::atproto_tid;
\set VERBOSITY default
SELECT 'k222222222222'::atproto_tid;   -- needs a 65th bit
SELECT '222222222222'::atproto_tid;    -- 12 characters
SELECT '22222222222222'::atproto_tid;  -- 14 characters
SELECT '3JZFCIJPJ2Z2A'::atproto_tid;   -- upper case
SELECT '2222222222221'::atproto_tid;   -- 1 is not a digit
SELECT '\x00'::bytea::atproto_tid;
SELECT tid_from_timestamp('1969-12-31 23:59:59.999999+00');
SELECT tid_from_timestamp('infinity');
