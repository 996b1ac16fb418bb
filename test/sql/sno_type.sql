-- sno as a type: text and binary I/O, casts, comparison, operator classes,
-- decoding, and every kind of bad input.
SET TIME ZONE 'UTC';

-- Known values derived from the layout (src/core/sno.h):
-- all zero bits is "2" x 16; all one bits is "x" x 16.
SELECT '2222222222222222'::sno, 'xxxxxxxxxxxxxxxx'::sno;
SELECT sno_info('2222222222222222');
SELECT sno_info('xxxxxxxxxxxxxxxx');
-- units = 1 (4 ms after 2010), tick 1, meta 0xab, partition 0x0102, sequence 0x0304:
-- bytes 00 00 00 00 03 ab 01 02 03 04
SELECT sno_from_bytea('\x0000000003ab01020304') AS id \gset
SELECT :'id'::sno, sno_info(:'id');
SELECT sno_to_bytea(:'id');
SELECT :'id'::sno::bytea::sno = :'id'::sno AS bytea_round_trip;

-- The time of an sno is the start of its 4 ms unit.
SELECT sno_to_timestamp(sno_from_timestamp('2026-03-01 12:34:56.789+00'));
SELECT sno_from_timestamp('2010-01-01 00:00:00+00'), sno_from_timestamp('2079-09-07 15:47:35.551+00');
SELECT sno_to_timestamp(sno_from_timestamp('2079-09-07 15:47:35.551+00'));

-- Text order, byte order and time order agree.
SELECT sno_from_timestamp('2020-01-01') < sno_from_timestamp('2020-01-01 00:00:00.004') AS later_unit_sorts_after;
SELECT sno_from_timestamp('2020-01-01') = sno_from_timestamp('2020-01-01 00:00:00.003') AS same_unit_same_bound;
WITH ids AS (
    SELECT sno_from_bytea(substring(decode(md5(i::text) || md5((i * 7)::text), 'hex') FROM 1 FOR 10)) AS id
    FROM generate_series(1, 500) i
)
SELECT count(*) FILTER (WHERE (a.id < b.id) <> (a.id::text < b.id::text COLLATE "C")) AS text_order_mismatches,
       count(*) FILTER (WHERE (a.id < b.id) <> (a.id::bytea < b.id::bytea)) AS byte_order_mismatches,
       count(*) FILTER (WHERE (a.id = b.id) <> (sno_cmp(a.id, b.id) = 0)) AS cmp_mismatches
FROM ids a, ids b;

-- Every comparison operator.
SELECT a.x < b.x AS lt, a.x <= b.x AS le, a.x = b.x AS eq, a.x <> b.x AS ne, a.x >= b.x AS ge, a.x > b.x AS gt,
       sno_cmp(a.x, b.x) AS cmp
FROM (VALUES ('2222222222222223'::sno), ('2222222222222224'::sno)) a(x),
     (VALUES ('2222222222222223'::sno)) b(x);

-- Hashes: equal ids hash equally; the extended hash depends on its seed.
SELECT sno_hash('2222222222222223') = sno_hash('2222222222222223'::text::sno) AS hash_stable,
       sno_hash_extended('2222222222222223', 0) <> sno_hash_extended('2222222222222223', 1) AS seed_matters;

-- btree and hash indexes, sort with abbreviated keys, hash joins, DISTINCT.
CREATE TABLE sno_t (id sno PRIMARY KEY, n int);
INSERT INTO sno_t
SELECT sno_from_bytea(substring(decode(md5(i::text) || md5((i * 3)::text), 'hex') FROM 1 FOR 10)), i
FROM generate_series(1, 20000) i;
CREATE INDEX sno_t_hash ON sno_t USING hash (id);
SELECT count(*) AS sorted_pairs_out_of_order FROM (
    SELECT id, lag(id) OVER (ORDER BY id) AS prev FROM sno_t) s WHERE prev >= id;
SELECT count(*) FILTER (WHERE (SELECT t2.id FROM sno_t t2 WHERE t2.id = t1.id) IS NULL) AS lookups_missed
FROM (SELECT id FROM sno_t ORDER BY n LIMIT 100) t1;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM sno_t WHERE id = '2222222222222223';
SET enable_indexscan = off; SET enable_bitmapscan = on;
SELECT count(*) AS hash_index_hits FROM sno_t WHERE id IN (SELECT id FROM sno_t WHERE n <= 10);
RESET enable_indexscan; RESET enable_bitmapscan; RESET enable_seqscan;
SET enable_mergejoin = off; SET enable_nestloop = off;
SELECT count(*) AS hash_join_matches FROM sno_t a JOIN sno_t b USING (id);
RESET enable_mergejoin; RESET enable_nestloop;
SELECT count(DISTINCT id) AS distinct_ids FROM sno_t;
-- min and max agree with ORDER BY, and use the index.
SELECT min(id) = (SELECT id FROM sno_t ORDER BY id LIMIT 1) AS min_ok,
       max(id) = (SELECT id FROM sno_t ORDER BY id DESC LIMIT 1) AS max_ok,
       sno_smaller('2222222222222223', '2222222222222222') AS smaller,
       sno_larger('2222222222222223', '2222222222222222') AS larger
FROM sno_t;
-- max through the index (the scan node).
\getenv abs_srcdir PG_ABS_SRCDIR
\set scan_nodes :abs_srcdir '/sql/include/scan_nodes.sql'
\i :scan_nodes
SELECT scan_nodes('SELECT max(id) FROM sno_t');
DROP FUNCTION scan_nodes(text);
-- Deduplication is allowed because FUNCTION 4 (btequalimage) is present.
SELECT amproc::regproc FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
WHERE f.opfname = 'sno_ops' ORDER BY amprocnum, amproc::regproc::text;
-- Hash partitioning uses the extended hash.
CREATE TABLE sno_hp (id sno) PARTITION BY HASH (id);
CREATE TABLE sno_hp0 PARTITION OF sno_hp FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE sno_hp1 PARTITION OF sno_hp FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO sno_hp SELECT id FROM sno_t;
SELECT (SELECT count(*) FROM sno_hp0) > 0 AND (SELECT count(*) FROM sno_hp1) > 0 AS both_partitions_used;
DROP TABLE sno_hp, sno_t;

-- Binary I/O through COPY BINARY round-trips.
CREATE TABLE sno_copy (id sno);
INSERT INTO sno_copy VALUES ('2222222222222222'), ('xxxxxxxxxxxxxxxx'), ('abcdefghijkmnpqr');
COPY sno_copy TO '/tmp/kid_regress_sno_copy.bin' WITH (FORMAT binary);
CREATE TABLE sno_copy2 (id sno);
COPY sno_copy2 FROM '/tmp/kid_regress_sno_copy.bin' WITH (FORMAT binary);
SELECT id FROM sno_copy2 ORDER BY id;
-- A 9-byte value in a binary COPY of another table is refused.
CREATE TABLE sno_bytes (b bytea);
INSERT INTO sno_bytes VALUES ('\x000000000000000000');
COPY sno_bytes TO '/tmp/kid_regress_sno_bad.bin' WITH (FORMAT binary);
COPY sno_copy2 FROM '/tmp/kid_regress_sno_bad.bin' WITH (FORMAT binary);
DROP TABLE sno_copy, sno_copy2, sno_bytes;

-- Bad input: each an ERROR with SQLSTATE 22P02 naming the type and value.
\set VERBOSITY sqlstate
SELECT ''::sno;
\set VERBOSITY default
SELECT ''::sno;
SELECT '222222222222222'::sno;       -- 15 characters
SELECT '22222222222222222'::sno;     -- 17 characters
SELECT '222222222222222y'::sno;      -- y is not in the alphabet
SELECT '222222222222222A'::sno;      -- upper case
SELECT '222222222222221z'::sno;      -- 0, 1 and z are not digits
SELECT ' 2222222222222222'::sno;     -- no white space
SELECT '2222222222222222 '::sno;
-- Wrong-length bytea: 22P03.
\set VERBOSITY sqlstate
SELECT '\x0000'::bytea::sno;
\set VERBOSITY default
SELECT '\x0000'::bytea::sno;
SELECT '\x0000000000000000000000'::bytea::sno;
-- Out-of-range times: 22008.
SELECT sno_from_timestamp('2009-12-31 23:59:59.999+00');
SELECT sno_from_timestamp('2079-09-07 15:47:35.552+00');
SELECT sno_from_timestamp('infinity');
SELECT sno_from_timestamp('-infinity');
