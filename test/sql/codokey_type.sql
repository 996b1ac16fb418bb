-- codokey: the type (text and binary I/O, casts, operators, btree and hash
-- operator classes), encoding and decoding with explicit and named
-- contexts, the context table and its guard, privileges, and every error
-- with its SQLSTATE.
SET TIME ZONE 'UTC';
SET DateStyle = 'ISO, YMD';
SET max_parallel_workers_per_gather = 0;

-- ---------------------------------------------------------------- the spec's examples
-- All 16 rows of the spec, encoded and decoded.  The split_max 999999 rows
-- use a named context; the others the default one.
INSERT INTO codokey_context VALUES ('micro', 1970, 3265, 999999);
CREATE TABLE spec (key codokey, context text, p int, t timestamptz, earliest timestamptz);
INSERT INTO spec VALUES
    ('yj',            'default', 0, '2022-12-31 23:59:59.999999+00', '2022-01-01 00:00:00+00'),
    ('zz',            'default', 0, '1970-01-01 00:00:00+00',        '1970-01-01 00:00:00+00'),
    ('yj0',           'default', 1, '2022-12-31 23:59:59.999999+00', '2022-12-01 00:00:00+00'),
    ('zzb',           'default', 1, '1970-01-01 00:00:00+00',        '1970-01-01 00:00:00+00'),
    ('yj00',          'default', 2, '2022-12-31 23:59:59.999999+00', '2022-12-31 00:00:00+00'),
    ('zzbu',          'default', 2, '1970-01-01 00:00:00+00',        '1970-01-01 00:00:00+00'),
    ('yj000',         'default', 3, '2022-12-31 23:59:59.999999+00', '2022-12-31 23:00:00+00'),
    ('zzbun',         'default', 3, '1970-01-01 00:00:00+00',        '1970-01-01 00:00:00+00'),
    ('yj00000',       'default', 4, '2022-12-31 23:59:59.999999+00', '2022-12-31 23:59:00+00'),
    ('zzbun1n',       'default', 4, '1970-01-01 00:00:00+00',        '1970-01-01 00:00:00+00'),
    ('yj0000000',     'default', 5, '2022-12-31 23:59:59.999999+00', '2022-12-31 23:59:59+00'),
    ('zzbun1n1n',     'default', 5, '1970-01-01 00:00:00+00',        '1970-01-01 00:00:00+00'),
    ('yj00000000',    'default', 6, '2022-12-31 23:59:59.999999+00', '2022-12-31 23:59:59.9+00'),
    ('zzbun1n1n9',    'default', 6, '1970-01-01 00:00:00+00',        '1970-01-01 00:00:00+00'),
    ('yj00000000000', 'micro',   6, '2022-12-31 23:59:59.999999+00', '2022-12-31 23:59:59.999999+00'),
    ('zzbun1n1nlflr', 'micro',   6, '1970-01-01 00:00:00+00',        '1970-01-01 00:00:00+00');
SELECT key, context, p,
       codokey(t, p, context) AS encoded,
       codokey(earliest, p, context) = key AS earliest_encodes_alike,
       codokey_to_timestamp(key, context) AS decoded,
       codokey_to_timestamp(key, context) = earliest AS decoded_ok,
       codokey_precision(key, context) = p AS precision_ok
FROM spec ORDER BY context, p, key DESC;
SELECT count(*) AS spec_rows,
       count(*) FILTER (WHERE codokey(t, p, context) = key AND codokey_to_timestamp(key, context) = earliest
                        AND codokey_precision(key, context) = p) AS rows_ok
FROM spec;
-- The same through the explicit-context functions.
SELECT count(*) FILTER (WHERE codokey_encode(s.t, s.p, c.since, c.until, c.split_max) = s.key
                        AND codokey_decode_time(s.key, c.since, c.until, c.split_max) = s.earliest
                        AND codokey_decode_precision(s.key, c.since, c.until, c.split_max) = s.p) AS explicit_rows_ok
FROM spec s JOIN codokey_context c ON c.name = s.context;
-- The default precision is 2 (day) and the default context is 'default'.
SELECT codokey(timestamptz '2022-12-31 12:00+00') AS default_precision_and_context;
-- Every field.
SELECT * FROM codokey_info('yj00000000');
SELECT * FROM codokey_info('yj00000000000', 'micro');
SELECT * FROM codokey_info('yj');
SELECT * FROM codokey_decode_info('zzbun1n1nlflr', 1970, 3265, 999999);
SELECT (codokey_info('yha0')).day AS leap_day, codokey_to_timestamp('yha0') AS leap_day_2024;

-- ---------------------------------------------------------------- round trips
-- decode(encode(t)) is t truncated to the precision, against PostgreSQL's own
-- date_trunc, for every precision, over times spread across 1970..3265.
CREATE TABLE times AS
SELECT i, timestamptz '1970-01-01 00:00:00+00'
          + (('x' || substr(md5(i::text), 1, 14))::bit(56)::bigint % 40896604800000000) * interval '1 microsecond' AS t
FROM generate_series(1, 2000) i;
SELECT min(t) < '1990-01-01' AND max(t) > '3200-01-01' AS spread_over_the_context FROM times;
WITH trunc(p, unit) AS (VALUES (0, 'year'), (1, 'month'), (2, 'day'), (3, 'hour'), (4, 'minute'), (5, 'second'))
SELECT p, count(*) FILTER (WHERE codokey_to_timestamp(codokey(t, p)) <> date_trunc(unit, t)) AS mismatches
FROM times, trunc GROUP BY p ORDER BY p;
-- Precision 6: tenths in the default context, microseconds in 'micro'.
SELECT count(*) FILTER (WHERE codokey_to_timestamp(codokey(t, 6)) <>
                              date_trunc('second', t) + floor(extract(microseconds FROM t)::bigint % 1000000 / 100000) * interval '100 ms') AS tenths_mismatches,
       count(*) FILTER (WHERE codokey_to_timestamp(codokey(t, 6, 'micro'), 'micro') <> t) AS micro_mismatches,
       count(*) FILTER (WHERE codokey_precision(codokey(t, 6, 'micro'), 'micro') <> 6) AS precision_mismatches
FROM times;
-- A coarser key is a prefix of a finer one.
SELECT count(*) FILTER (WHERE NOT codokey(t, 6)::text LIKE codokey(t, p)::text || '%') AS prefix_failures
FROM times, generate_series(0, 5) p;

-- ---------------------------------------------------------------- ordering
-- Ascending key order is descending time order: for times sorted by time,
-- each key is smaller than the previous one unless both fall in the same
-- period (then they are equal).
SELECT p,
       count(*) FILTER (WHERE date_trunc(unit, t) <> date_trunc(unit, prev_t) AND NOT key < prev_key) AS not_smaller,
       count(*) FILTER (WHERE date_trunc(unit, t) = date_trunc(unit, prev_t) AND key <> prev_key) AS not_equal
FROM (
    SELECT p, unit, t, key, lag(t) OVER w AS prev_t, lag(key) OVER w AS prev_key
    FROM (SELECT p, unit, t, codokey(t, p) AS key
          FROM times, (VALUES (0, 'year'), (1, 'month'), (2, 'day'), (3, 'hour'), (4, 'minute'), (5, 'second')) u(p, unit)) s
    WINDOW w AS (PARTITION BY p ORDER BY t)
) s WHERE prev_t IS NOT NULL
GROUP BY p ORDER BY p;
-- ORDER BY key lists the newest first.
SELECT count(*) AS out_of_order FROM (
    SELECT t, lag(t) OVER (ORDER BY codokey(t, 6, 'micro')) AS prev_t FROM times) s
WHERE prev_t <= t;
SELECT key, codokey_to_timestamp(key) FROM (VALUES (codokey(timestamptz '2022-12-31 23:00+00', 3)),
    (codokey(timestamptz '1970-01-01 00:00+00', 3)), (codokey(timestamptz '2024-02-29 12:00+00', 3))) v(key)
ORDER BY key;

-- ---------------------------------------------------------------- text I/O and casts
SELECT 'yj00'::codokey AS key, '0'::codokey AS shortest, '0123456789abcdef'::codokey AS longest;
SELECT 'yj00'::codokey::text AS to_text, 'yj00'::text::codokey AS from_text,
       pg_typeof('yj00'::codokey::text) AS text_type;
-- An untyped literal compares as a codokey; a text value must be cast.
SELECT 'yj00'::codokey = 'yj00' AS literal_eq, 'yj00' = 'yj00'::codokey AS literal_eq_commuted;
SELECT 'yj00'::codokey = 'yj00'::text::codokey AS cast_eq;
-- Assignment to text works without a cast.
CREATE TABLE as_text (x text);
INSERT INTO as_text SELECT 'yj00'::codokey;
SELECT x, pg_typeof(x) FROM as_text;
-- LIKE and NOT LIKE match the key's characters.
SELECT 'yj00'::codokey LIKE 'yj%' AS like_prefix, 'yj00'::codokey LIKE 'zz%' AS like_other,
       'yj00'::codokey NOT LIKE 'zz%' AS not_like, 'yj00'::codokey NOT LIKE 'y_00' AS not_like_underscore;
SELECT codokey_like('yj00', 'yj__'), codokey_not_like('yj00', 'yj__');
-- A codokey is stored with a 1-byte header: 1 + its length.
SELECT pg_column_size(x) AS stored_bytes FROM (SELECT 'yj00'::codokey AS x) s;
CREATE TABLE stored (x codokey);
INSERT INTO stored VALUES ('yj00'), ('yj00000000000');
SELECT x, pg_column_size(x) AS stored_bytes FROM stored ORDER BY x;
DROP TABLE stored, as_text;

-- ---------------------------------------------------------------- operators
SELECT a.x AS a, b.x AS b, a.x < b.x AS lt, a.x <= b.x AS le, a.x = b.x AS eq, a.x <> b.x AS ne,
       a.x >= b.x AS ge, a.x > b.x AS gt, codokey_cmp(a.x, b.x) AS cmp
FROM (VALUES ('yj'::codokey), ('yj0'), ('yj00'), ('yk'), ('zz')) a(x),
     (VALUES ('yj0'::codokey)) b(x)
ORDER BY a.x;
SELECT codokey_lt('yj', 'yk'), codokey_le('yj', 'yj'), codokey_eq('yj', 'yj'), codokey_ne('yj', 'yk'),
       codokey_ge('yk', 'yj'), codokey_gt('yk', 'yj');
-- Byte order, not collation order: same as text under COLLATE "C".
WITH keys AS (SELECT codokey(t, (i % 7)) AS k FROM times WHERE i <= 300)
SELECT count(*) FILTER (WHERE (a.k < b.k) <> (a.k::text < b.k::text COLLATE "C")) AS order_mismatches,
       count(*) FILTER (WHERE (a.k = b.k) <> (codokey_cmp(a.k, b.k) = 0)) AS cmp_mismatches
FROM keys a, keys b;
-- Hashes: equal keys hash equally; the extended hash depends on its seed.
SELECT codokey_hash('yj00') = codokey_hash('yj00'::text::codokey) AS hash_stable,
       codokey_hash('yj00') <> codokey_hash('yj01') AS hash_differs,
       codokey_hash_extended('yj00', 0) <> codokey_hash_extended('yj00', 1) AS seed_matters;

-- ---------------------------------------------------------------- indexes
CREATE TABLE events (key codokey, t timestamptz);
INSERT INTO events SELECT codokey(t, 6, 'micro'), t FROM times;
INSERT INTO events SELECT codokey(timestamptz '2022-12-01 00:00+00' + i * interval '1 hour', 6, 'micro'),
                          timestamptz '2022-12-01 00:00+00' + i * interval '1 hour'
FROM generate_series(0, 30 * 24 - 1) i;
CREATE INDEX events_key ON events (key);
CREATE INDEX events_key_hash ON events USING hash (key);
ANALYZE events;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- btree: equality, a range (December 2022 = keys starting 'yj0'), and ORDER BY.
EXPLAIN (COSTS OFF) SELECT * FROM events WHERE key >= 'yj0' AND key < 'yj1';
SELECT count(*) AS december_2022, min(t), max(t) FROM events WHERE key >= 'yj0' AND key < 'yj1';
SELECT count(*) AS december_2022_like FROM events WHERE key LIKE 'yj0%';
EXPLAIN (COSTS OFF) SELECT key FROM events ORDER BY key LIMIT 3;
SELECT key, t FROM events ORDER BY key LIMIT 3;
-- min is the newest key, max the oldest, through the index (the scan node).
\getenv abs_srcdir PG_ABS_SRCDIR
\set scan_nodes :abs_srcdir '/sql/include/scan_nodes.sql'
\i :scan_nodes
SELECT scan_nodes('SELECT min(key) FROM events');
DROP FUNCTION scan_nodes(text);
SELECT min(key) = (SELECT key FROM events ORDER BY key LIMIT 1) AS min_is_first,
       max(key) = (SELECT key FROM events ORDER BY key DESC LIMIT 1) AS max_is_last,
       codokey_to_timestamp(min(key), 'micro') = max(t) AS min_is_newest,
       codokey_to_timestamp(max(key), 'micro') = min(t) AS max_is_oldest
FROM events;
SELECT codokey_smaller('yj00', 'yj01') AS smaller, codokey_larger('yj00', 'yj01') AS larger,
       codokey_smaller('yj', 'yj0') AS prefix_is_smaller;
-- hash: equality through the hash index.
DROP INDEX events_key;
EXPLAIN (COSTS OFF) SELECT * FROM events WHERE key = 'yj0un1n1nlflr';
SELECT t FROM events WHERE key = 'yj0un1n1nlflr';
RESET enable_seqscan;
RESET enable_bitmapscan;
-- Hash join, merge join, DISTINCT, GROUP BY.
SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM events a JOIN events b USING (key);
SELECT count(*) AS hash_join_matches FROM events a JOIN events b USING (key);
RESET enable_mergejoin; RESET enable_nestloop;
SET enable_hashjoin = off; SET enable_nestloop = off;
SELECT count(*) AS merge_join_matches FROM events a JOIN events b USING (key);
RESET enable_hashjoin; RESET enable_nestloop;
SELECT count(DISTINCT key) AS distinct_keys, count(*) AS rows FROM events;
-- A sort without the index (sort support) agrees with time order.
SELECT count(*) AS sort_out_of_order FROM (
    SELECT t, lag(t) OVER (ORDER BY key) AS prev_t FROM events) s
WHERE prev_t <= t;
SELECT count(*) AS days_of_december_2022 FROM (SELECT left(key::text, 4) FROM events WHERE key LIKE 'yj0%' GROUP BY 1) s;
-- Deduplication is allowed (FUNCTION 4, btequalimage), and hash partitioning
-- has its extended hash (FUNCTION 2).
SELECT f.opfname, p.amprocnum, p.amproc::regproc FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
WHERE f.opfname IN ('codokey_ops', 'codokey_hash_ops') ORDER BY 1, 2;
CREATE TABLE events_hp (key codokey) PARTITION BY HASH (key);
CREATE TABLE events_hp0 PARTITION OF events_hp FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE events_hp1 PARTITION OF events_hp FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO events_hp SELECT key FROM events;
SELECT (SELECT count(*) FROM events_hp0) > 0 AND (SELECT count(*) FROM events_hp1) > 0 AS both_partitions_used;
-- A unique key column.
CREATE TABLE daily (key codokey PRIMARY KEY);
INSERT INTO daily VALUES (codokey(timestamptz '2022-12-31 01:00+00'));
INSERT INTO daily VALUES (codokey(timestamptz '2022-12-31 23:00+00'));
DROP TABLE events_hp, daily;

-- ---------------------------------------------------------------- binary I/O
-- COPY BINARY out and back in round-trips every key.
CREATE TABLE codokey_copy (key codokey);
INSERT INTO codokey_copy SELECT key FROM events;
COPY codokey_copy TO '/tmp/kid_regress_codokey_copy.bin' WITH (FORMAT binary);
CREATE TABLE codokey_copy2 (key codokey);
COPY codokey_copy2 FROM '/tmp/kid_regress_codokey_copy.bin' WITH (FORMAT binary);
SELECT count(*) AS copied,
       (SELECT count(*) FROM codokey_copy a FULL JOIN codokey_copy2 b USING (key) WHERE a.key IS NULL OR b.key IS NULL) AS differences
FROM codokey_copy2;
-- The binary form is the key's characters.
SELECT codokey_send('yj00') AS send_bytes;
-- Bytes outside the alphabet in a binary COPY are refused with 22P03.
CREATE TABLE codokey_bytes (b text);
INSERT INTO codokey_bytes VALUES ('YJ00');
COPY codokey_bytes TO '/tmp/kid_regress_codokey_bad.bin' WITH (FORMAT binary);
\set VERBOSITY sqlstate
COPY codokey_copy2 FROM '/tmp/kid_regress_codokey_bad.bin' WITH (FORMAT binary);
\set VERBOSITY default
COPY codokey_copy2 FROM '/tmp/kid_regress_codokey_bad.bin' WITH (FORMAT binary);
TRUNCATE codokey_bytes;
INSERT INTO codokey_bytes VALUES ('');
COPY codokey_bytes TO '/tmp/kid_regress_codokey_bad.bin' WITH (FORMAT binary);
COPY codokey_copy2 FROM '/tmp/kid_regress_codokey_bad.bin' WITH (FORMAT binary);
TRUNCATE codokey_bytes;
INSERT INTO codokey_bytes VALUES ('0123456789abcdefg');
COPY codokey_bytes TO '/tmp/kid_regress_codokey_bad.bin' WITH (FORMAT binary);
COPY codokey_copy2 FROM '/tmp/kid_regress_codokey_bad.bin' WITH (FORMAT binary);
DROP TABLE codokey_copy, codokey_copy2, codokey_bytes;

-- ---------------------------------------------------------------- named contexts
-- A 21st-century context with milliseconds: 2099 - 2000 = 99 = "2r", 999 = "rr".
INSERT INTO codokey_context VALUES ('c21ms', 2000, 2099, 999);
SELECT * FROM codokey_context ORDER BY name;
SELECT * FROM codokey_context_get('c21ms');
SELECT codokey_context_get('default') AS default_context;
SELECT p, codokey(timestamptz '2024-02-29 13:14:15.678901+00', p, 'c21ms') AS key
FROM generate_series(0, 6) p;
SELECT * FROM codokey_info(codokey(timestamptz '2024-02-29 13:14:15.678901+00', 6, 'c21ms'), 'c21ms');
-- Keys of one collection share a context: the same key means different
-- times in different contexts, or nothing at all.
SELECT codokey_to_timestamp('2r', 'c21ms') AS in_c21ms, codokey_to_timestamp('2r') AS in_default;
-- Keys of the named context sort newest first too.
SELECT count(*) AS out_of_order FROM (
    SELECT t, lag(t) OVER (ORDER BY codokey(t, 6, 'c21ms')) AS prev_t
    FROM (SELECT timestamptz '2000-01-01 00:00+00' + i * interval '17 days 3 hours 7.123 seconds' AS t
          FROM generate_series(0, 2000) i) s) s
WHERE prev_t <= t;
-- A context check in SQL.
SELECT codokey_context_check(1970, 3265, 9) AS default_ok, codokey_context_check(2024, 2024, 999999) AS one_year_ok;
-- The table is dumped by pg_dump, without the default row.
SELECT c.relname, e.extcondition FROM pg_extension e, unnest(e.extconfig, e.extcondition) AS x(cfg, extcondition)
JOIN pg_class c ON c.oid = x.cfg WHERE e.extname = 'kid';
-- Triggers and constraint of the table.
SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = 'codokey_context'::regclass AND NOT tgisinternal ORDER BY 1;
-- (Not the NOT NULL constraints, which PostgreSQL 18 lists here too.)
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'codokey_context'::regclass AND contype <> 'n' ORDER BY 1;

-- ---------------------------------------------------------------- the guard
-- A name, once defined, means one context forever: keys are stored without
-- their context.  Keys of four contexts are decoded once here; after every
-- refused attempt below to change, rename, swap, delete or redefine a
-- context, each key must still decode to the same time.  'swap_a' and
-- 'swap_b' have keys of the same lengths, so swapping them would change
-- every key's time without an error.
INSERT INTO codokey_context VALUES ('swap_a', 2000, 2099, 999), ('swap_b', 1900, 2199, 99);
CREATE TABLE context_keys AS
SELECT c.ctx, k.key, codokey_to_timestamp(k.key, c.ctx) AS decoded
FROM (VALUES ('swap_a'), ('swap_b'), ('c21ms'), ('micro'), ('default')) AS c(ctx),
     LATERAL (SELECT codokey(timestamptz '2024-02-29 13:14:15.678901+00' + i * interval '37 days 1 hour 1.5 seconds', p, c.ctx) AS key
              FROM generate_series(0, 9) i, generate_series(0, 6) p) AS k;
CREATE VIEW context_keys_check AS
SELECT count(*) AS keys,
       count(*) FILTER (WHERE codokey_to_timestamp(key, ctx) IS DISTINCT FROM decoded) AS decoded_differently,
       (SELECT string_agg(name || ':' || since || ':' || until || ':' || split_max, ' ' ORDER BY name)
        FROM codokey_context) AS contexts
FROM context_keys;
SELECT * FROM context_keys_check;
SELECT p, length(codokey(timestamptz '2024-02-29 13:14:15.678901+00', p, 'swap_a')::text) AS swap_a_length,
       length(codokey(timestamptz '2024-02-29 13:14:15.678901+00', p, 'swap_b')::text) AS swap_b_length
FROM generate_series(0, 6) p;
-- Delete a context, then define its name again with other numbers: the
-- DELETE is refused (55006), so the name stays taken (23505).
DELETE FROM codokey_context WHERE name = 'swap_a';
\set VERBOSITY sqlstate
INSERT INTO codokey_context VALUES ('swap_a', 1900, 2199, 99);
SELECT * FROM context_keys_check;
-- The same in one transaction, and with MERGE.
BEGIN;
DELETE FROM codokey_context WHERE name = 'swap_a';
INSERT INTO codokey_context VALUES ('swap_a', 1900, 2199, 99);
COMMIT;
MERGE INTO codokey_context c USING (VALUES ('swap_a')) AS v(n) ON c.name = v.n WHEN MATCHED THEN DELETE;
DELETE FROM codokey_context;
DELETE FROM codokey_context WHERE name = 'default';
SELECT * FROM context_keys_check;
-- Swap two names through a third, or in one statement.
UPDATE codokey_context SET name = 'swap_tmp' WHERE name = 'swap_a';
UPDATE codokey_context SET name = 'swap_a' WHERE name = 'swap_b';
UPDATE codokey_context SET name = 'swap_b' WHERE name = 'swap_tmp';
UPDATE codokey_context SET name = CASE name WHEN 'swap_a' THEN 'swap_b' ELSE 'swap_a' END
WHERE name IN ('swap_a', 'swap_b');
SELECT * FROM context_keys_check;
-- Swap two contexts' numbers.
UPDATE codokey_context AS c SET (since, until, split_max) =
    (SELECT o.since, o.until, o.split_max FROM codokey_context AS o
     WHERE o.name = CASE c.name WHEN 'swap_a' THEN 'swap_b' ELSE 'swap_a' END)
WHERE name IN ('swap_a', 'swap_b');
SELECT * FROM context_keys_check;
-- Rename a context, or the default one; change numbers; an upsert that
-- renames or renumbers.
UPDATE codokey_context SET name = 'c21' WHERE name = 'c21ms';
UPDATE codokey_context SET name = 'old default' WHERE name = 'default';
UPDATE codokey_context SET until = 3000 WHERE name = 'micro';
UPDATE codokey_context SET split_max = 99 WHERE name = 'micro';
UPDATE codokey_context SET until = 3000 WHERE name = 'default';
INSERT INTO codokey_context VALUES ('swap_a', 1900, 2199, 99)
ON CONFLICT (name) DO UPDATE SET (since, until, split_max) = (EXCLUDED.since, EXCLUDED.until, EXCLUDED.split_max);
INSERT INTO codokey_context VALUES ('swap_a', 2000, 2099, 999)
ON CONFLICT (name) DO UPDATE SET name = 'swap_c';
TRUNCATE codokey_context;
SELECT * FROM context_keys_check;
-- The messages name the context and say what to do instead.
\set VERBOSITY default
DELETE FROM codokey_context WHERE name = 'swap_a';
UPDATE codokey_context SET name = 'c21' WHERE name = 'c21ms';
UPDATE codokey_context SET until = 3000 WHERE name = 'micro';
TRUNCATE codokey_context;
-- An update that changes nothing is no change; ON CONFLICT DO NOTHING neither.
UPDATE codokey_context SET since = 1970 WHERE name = 'micro';
INSERT INTO codokey_context VALUES ('swap_a', 1900, 2199, 99) ON CONFLICT DO NOTHING;
SELECT * FROM context_keys_check;
DROP VIEW context_keys_check;
DROP TABLE context_keys;
-- A second context under an existing name: 23505.
\set VERBOSITY sqlstate
INSERT INTO codokey_context VALUES ('micro', 2000, 2099, 9);
\set VERBOSITY default
INSERT INTO codokey_context VALUES ('micro', 2000, 2099, 9);

-- ---------------------------------------------------------------- privileges and search_path
-- An ordinary user can use the default and the named contexts, but not define one.
CREATE ROLE regress_codokey_user;
SET ROLE regress_codokey_user;
SELECT codokey(timestamptz '2022-12-31 23:59:59.999999+00', 6) AS default_ctx,
       codokey(timestamptz '2022-12-31 23:59:59.999999+00', 6, 'micro') AS named_ctx,
       codokey_to_timestamp('yj00000000000', 'micro') AS decoded,
       (codokey_info('yj00')).day AS day,
       codokey_precision('yj00') AS "precision";
SELECT * FROM codokey_context_get('micro');
\set VERBOSITY sqlstate
INSERT INTO codokey_context VALUES ('mine', 2000, 2099, 9);
\set VERBOSITY default
INSERT INTO codokey_context VALUES ('mine', 2000, 2099, 9);
RESET ROLE;
DROP ROLE regress_codokey_user;
-- With kid's schema off the search_path and a decoy function ahead of it,
-- the named-context functions still call kid's own functions.
CREATE SCHEMA decoy;
CREATE FUNCTION decoy.codokey_encode(t timestamptz, p integer, since integer, until integer, split_max bigint)
RETURNS public.codokey LANGUAGE sql RETURN 'zz'::public.codokey;
SET search_path = decoy, pg_catalog;
SELECT public.codokey(timestamptz '2022-12-31 23:59:59.999999+00', 6) AS key,
       public.codokey_to_timestamp('yj00') AS decoded,
       public.codokey_precision('yj00') AS "precision";
SELECT * FROM public.codokey_info('yj00000000000', 'micro');
RESET search_path;
DROP SCHEMA decoy CASCADE;

-- ---------------------------------------------------------------- errors
-- Malformed literal: 22P02.
\set VERBOSITY sqlstate
SELECT ''::codokey;
\set VERBOSITY default
SELECT ''::codokey;
SELECT 'YJ00'::codokey;                -- upper case
SELECT 'yj-0'::codokey;                -- outside the alphabet
SELECT ' yj00'::codokey;               -- no white space
SELECT 'yj00 '::codokey;
SELECT '2022-12-31'::codokey;          -- an ISO date is not a key
SELECT '0123456789abcdefg'::codokey;   -- 17 characters
SELECT 'yj_0'::text::codokey;
-- codokey('...') with an untyped literal is the type's input (PostgreSQL
-- reads typename('literal') as a cast): give the time a type.
SELECT codokey('2022-12-31 12:00+00');
SELECT codokey(timestamptz '2022-12-31 12:00+00');
-- A text value compares as a codokey (implicit cast from text; none to text).
\set VERBOSITY sqlstate
SELECT 'yj00'::codokey = 'yj00'::text;
\set VERBOSITY default
SELECT 'yj00'::codokey = 'yj00'::text;
-- Precision outside 0..6: 22003.
\set VERBOSITY sqlstate
SELECT codokey(now(), 7);
\set VERBOSITY default
SELECT codokey(now(), 7);
SELECT codokey(now(), -1);
SELECT codokey_encode(now(), 7, 1970, 3265, 9);
-- A time outside the context: 22008.
\set VERBOSITY sqlstate
SELECT codokey(timestamptz '1969-12-31 23:59:59.999999+00');
\set VERBOSITY default
SELECT codokey(timestamptz '1969-12-31 23:59:59.999999+00');
SELECT codokey(timestamptz '3266-01-01 00:00:00+00', 0);
SELECT codokey_encode(timestamptz '1999-12-31 23:59:59+00', 0, 2000, 2099, 9);
SELECT codokey(timestamptz 'infinity');
SELECT codokey(timestamptz '-infinity');
-- A UTC year decides, whatever the session's time zone.
SET TIME ZONE 'Asia/Tokyo';
SELECT codokey(timestamptz '1970-01-01 08:59:59+09');
SELECT codokey(timestamptz '1970-01-01 09:00:00+09');
SET TIME ZONE 'UTC';
-- A malformed context: 22023.
\set VERBOSITY sqlstate
SELECT codokey_encode(now(), 2, 2000, 1999, 9);
\set VERBOSITY default
SELECT codokey_encode(now(), 2, 2000, 1999, 9);
SELECT codokey_encode(now(), 2, 2000, 2099, 10);
SELECT codokey_encode(now(), 2, 2000, 2099, 9999999);
SELECT codokey_encode(now(), 2, -290308, 2099, 9);
SELECT codokey_decode_time('yj00', 1970, 3265, 0);
SELECT codokey_decode_precision('yj00', 3265, 1970, 9);
SELECT codokey_decode_info('yj00', 1970, 3265, 98);
SELECT codokey_context_check(1970, 294247, 9);
-- ... also when defining a named context.
\set VERBOSITY sqlstate
INSERT INTO codokey_context VALUES ('backwards', 2099, 2000, 9);
\set VERBOSITY default
INSERT INTO codokey_context VALUES ('backwards', 2099, 2000, 9);
INSERT INTO codokey_context VALUES ('percent', 2000, 2099, 100);
-- An unknown context name: 42704.
\set VERBOSITY sqlstate
SELECT codokey(now(), 2, 'nope');
\set VERBOSITY default
SELECT codokey(now(), 2, 'nope');
SELECT codokey_to_timestamp('yj00', 'nope');
SELECT codokey_precision('yj00', 'nope');
SELECT codokey_info('yj00', 'nope');
SELECT codokey_context_get('nope');
SELECT codokey_context_missing('nope');
-- A key whose length fits no precision of the context: 22007.
\set VERBOSITY sqlstate
SELECT codokey_to_timestamp('yj0000');
\set VERBOSITY default
SELECT codokey_to_timestamp('yj0000');
SELECT codokey_to_timestamp('y');
SELECT codokey_to_timestamp('yj00000000000');      -- a 'micro' key in the default context
SELECT codokey_precision('yj00000000', 'micro');    -- a default key in 'micro'
SELECT codokey_decode_time('yj00000000', 2000, 2035, 9);   -- year width 1 there
-- A field out of range: 22008.
\set VERBOSITY sqlstate
SELECT codokey_to_timestamp('yjc');
\set VERBOSITY default
SELECT codokey_to_timestamp('yjc');                -- month digit 12: month 0 ("month 13" the other way)
SELECT codokey_to_timestamp('yjz0');               -- month digit 35
SELECT codokey_to_timestamp('yjas');               -- February 2022 has 28 days: day 0
SELECT codokey_to_timestamp('yjar');               -- 1 February 2022 is fine
SELECT codokey_to_timestamp('yj8u');               -- April has 30 days
SELECT codokey_info('yj00o');                      -- hour digit 24
SELECT codokey_info('yj0001o');                    -- minute digit 60
SELECT codokey_info('yj000001o');                  -- second digit 60
SELECT codokey_info('yj0000000a');                 -- split digit 10 with split max 9
SELECT codokey_precision('yj0000000lfls', 'micro'); -- split digit 1000000
-- Year digits beyond the context's span, i.e. before its since: 22008.
SELECT codokey_decode_time('2s', 2000, 2099, 9);
SELECT codokey_decode_time('zz', 2000, 2099, 9);
-- A decoded year before 4714 BC does not fit a timestamptz: 22008.
SELECT codokey_decode_time('6eoe', -290307, 294246, 9) AS earliest_representable_year;
SELECT codokey_decode_time('cj1l', -290307, 294246, 9);

-- ---------------------------------------------------------------- comments
-- Every codokey object of the extension has a comment.
WITH objs AS (
    SELECT 'function ' || p.oid::regprocedure AS obj, obj_description(p.oid, 'pg_proc') AS d FROM pg_proc p
    WHERE p.proname LIKE 'codokey%' OR (p.proname IN ('min', 'max') AND p.proargtypes[0] = 'codokey'::regtype)
    UNION ALL
    SELECT 'operator ' || o.oid::regoperator, obj_description(o.oid, 'pg_operator') FROM pg_operator o
    WHERE 'codokey'::regtype IN (o.oprleft, o.oprright)
    UNION ALL
    SELECT 'operator class ' || c.opcname, obj_description(c.oid, 'pg_opclass') FROM pg_opclass c
    WHERE c.opcintype = 'codokey'::regtype
    UNION ALL
    SELECT 'cast ' || c.castsource::regtype || ' -> ' || c.casttarget::regtype, obj_description(c.oid, 'pg_cast')
    FROM pg_cast c WHERE 'codokey'::regtype IN (c.castsource, c.casttarget)
    UNION ALL
    SELECT 'type codokey', obj_description('codokey'::regtype, 'pg_type')
    UNION ALL
    SELECT 'table codokey_context', obj_description('codokey_context'::regclass, 'pg_class')
    UNION ALL
    SELECT 'column ' || a.attname, col_description(a.attrelid, a.attnum) FROM pg_attribute a
    WHERE a.attrelid = 'codokey_context'::regclass AND a.attnum > 0
    UNION ALL
    SELECT 'trigger ' || t.tgname, obj_description(t.oid, 'pg_trigger') FROM pg_trigger t
    WHERE t.tgrelid = 'codokey_context'::regclass AND NOT t.tgisinternal
    UNION ALL
    SELECT 'constraint ' || c.conname, obj_description(c.oid, 'pg_constraint') FROM pg_constraint c
    WHERE c.conrelid = 'codokey_context'::regclass AND c.contype = 'c'
)
SELECT count(*) AS codokey_objects, count(*) FILTER (WHERE d IS NULL) AS without_comment,
       string_agg(obj, ', ') FILTER (WHERE d IS NULL) AS missing
FROM objs;

DROP TABLE spec, times, events;
-- The guard is a rule of the extension, not a security boundary: the
-- table's owner (here the superuser that created the extension) can
-- disable it, which is how this test removes its contexts.
ALTER TABLE codokey_context DISABLE TRIGGER codokey_context_guard;
DELETE FROM codokey_context WHERE name <> 'default';
ALTER TABLE codokey_context ENABLE TRIGGER codokey_context_guard;
SELECT * FROM codokey_context;
