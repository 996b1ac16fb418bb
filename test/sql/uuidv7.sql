-- kid's time order on PostgreSQL's uuid type (src/sql/uuidv7.sql): the
-- decoders, the uuid-timestamptz operators at millisecond boundaries, for
-- version 7 and other uuids, in PostgreSQL's own uuid btree and BRIN
-- families: index range scans, = ANY(times), partition pruning, estimates;
-- untyped literals still read as uuids; amvalidate; (PostgreSQL 18) a
-- uuid column filled by core uuidv7(); and uuidv7_between() on a column
-- that also holds version 4 uuids.
SET TIME ZONE 'UTC';
SET max_parallel_workers_per_gather = 0;

-- A version 7 uuid from fixed parts: the Unix millisecond, then 74 bits
-- taken from md5(seed) around the version (7) and variant (10) bits.
CREATE FUNCTION v7_at(t timestamptz, seed text) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
    SELECT (lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || '7' || substr(md5(seed), 1, 3)
            || '8' || substr(md5(seed), 4, 15))::uuid
$$;

-- Decoding: the millisecond of a version 7 uuid; NULL for any other
-- version, the nil uuid, the max uuid, and a 7 of another variant.
SELECT uuidv7_to_timestamp('01890a5d-ac96-774b-bcce-b302099a8057') AS rfc9562_example,
       uuidv7_to_timestamp(v7_at('2026-03-01 12:34:56.789', 'a')) AS fixed,
       uuidv7_to_timestamp('00000000-0000-7000-8000-000000000000') AS epoch,
       uuidv7_to_timestamp('ffffffff-ffff-7fff-bfff-ffffffffffff') AS last_ms;
SELECT uuidv7_to_timestamp('f81d4fae-7dec-41d0-a765-00a0c91e6bf6') IS NULL AS v4_null,
       uuidv7_to_timestamp('00000000-0000-0000-0000-000000000000') IS NULL AS nil_null,
       uuidv7_to_timestamp('ffffffff-ffff-ffff-ffff-ffffffffffff') IS NULL AS max_null,
       uuidv7_to_timestamp('01890a5d-ac96-774b-ccce-b302099a8057') IS NULL AS other_variant_null,
       uuidv7_to_timestamp('1ec9414c-232a-6b00-b3c8-9e6bdeced846') IS NULL AS v6_null;

-- The bound: the smallest version 7 uuid of the millisecond (the
-- microseconds are dropped); before 1970, after 10889 and infinities are
-- out of range (22008).
SELECT uuidv7_from_timestamp('2026-03-01 12:34:56.789999') AS bound,
       uuidv7_from_timestamp('1970-01-01') AS first,
       uuidv7_from_timestamp('10889-08-02 05:31:50.655999') AS last,
       uuidv7_to_timestamp(uuidv7_from_timestamp('2026-03-01 12:34:56.789999')) AS round_trip;
\set VERBOSITY sqlstate
SELECT uuidv7_from_timestamp('1969-12-31 23:59:59.999999');
SELECT uuidv7_from_timestamp('10889-08-02 05:31:50.656');
SELECT uuidv7_from_timestamp('infinity');
SELECT uuidv7_from_timestamp('-infinity');
\set VERBOSITY default
SELECT uuidv7_from_timestamp('1900-01-01');

-- A time sorts just below the smallest uuid of its millisecond: no uuid
-- equals it, every uuid of its millisecond and later is above it.
WITH b AS (SELECT uuidv7_from_timestamp('2026-03-01 00:00:00.007') AS lo,
                  v7_at('2026-03-01 00:00:00.007', 'x') AS id)
SELECT lo = '2026-03-01 00:00:00.007'::timestamptz AS lo_eq_t,
       lo >= '2026-03-01 00:00:00.007999'::timestamptz AS lo_ge_t_same_ms,
       lo < '2026-03-01 00:00:00.008'::timestamptz AS lo_lt_next_ms,
       lo > '2026-03-01 00:00:00.006999'::timestamptz AS lo_gt_previous_ms,
       lo <= '2026-03-01 00:00:00.007'::timestamptz AS lo_le_t,
       id >= '2026-03-01 00:00:00.007'::timestamptz AS id_ge, id > '2026-03-01 00:00:00.007'::timestamptz AS id_gt,
       id <> '2026-03-01 00:00:00.007'::timestamptz AS id_ne, id < '2026-03-01 00:00:00.008'::timestamptz AS id_lt_next,
       '2026-03-01 00:00:00.007'::timestamptz < id AS t_lt_id, '2026-03-01 00:00:00.008'::timestamptz > id AS next_gt_id,
       uuid_cmp_timestamptz(id, '2026-03-01 00:00:00.007') AS cmp_same_ms,
       timestamptz_cmp_uuid('2026-03-01 00:00:00.008', id) AS cmp_next_ms
FROM b;
-- Every uuid is placed by its raw first 48 bits, whatever its version, so
-- that the order agrees with uuid's byte order (a btree family must be one
-- total order): the nil uuid is above 1970 and below 1970's second
-- millisecond; a version 4 uuid starting with f81d4fae7dec sorts where
-- Unix millisecond 0xf81d4fae7dec is, in the year 10614; times before 1970 are below every
-- uuid, from 10889-08-02 05:31:50.656 and infinity above every uuid.
SELECT '00000000-0000-0000-0000-000000000000'::uuid >= '1970-01-01'::timestamptz AS nil_ge_1970,
       '00000000-0000-0000-0000-000000000000'::uuid < '1970-01-01 00:00:00.001'::timestamptz AS nil_lt_next_ms,
       'f81d4fae-7dec-41d0-a765-00a0c91e6bf6'::uuid >= '10614-01-01'::timestamptz AS v4_ge_10614,
       'f81d4fae-7dec-41d0-a765-00a0c91e6bf6'::uuid < '10615-01-01'::timestamptz AS v4_lt_10615,
       '00000000-0000-0000-0000-000000000000'::uuid > '1969-12-31 23:59:59.999999'::timestamptz AS nil_above_1969,
       '00000000-0000-0000-0000-000000000000'::uuid > '-infinity'::timestamptz AS nil_above_minus_infinity,
       'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid < '10889-08-02 05:31:50.656'::timestamptz AS max_below_2_48_ms,
       'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid >= '10889-08-02 05:31:50.655'::timestamptz AS max_in_last_ms,
       'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid < 'infinity'::timestamptz AS max_below_infinity,
       'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid < '294276-12-31 23:59:59'::timestamptz AS max_below_294276;
-- Transitivity with uuid's own order, over every pair of a mixed list
-- (version 7, version 4, nil, max, version 6) and a list of times: whenever
-- u1 <= u2 as uuids, u1 >= t implies u2 >= t.  A rule that set non-version-7
-- uuids apart would break this (the first count would not be 0).
WITH u(id) AS (VALUES ('00000000-0000-0000-0000-000000000000'::uuid), ('ffffffff-ffff-ffff-ffff-ffffffffffff'),
                      ('f81d4fae-7dec-41d0-a765-00a0c91e6bf6'), ('01890a5d-ac96-774b-bcce-b302099a8057'),
                      ('1ec9414c-232a-6b00-b3c8-9e6bdeced846'), ('019c9a8e-1e00-4000-8000-000000000000'),
                      (v7_at('2026-03-01', 'a')), (v7_at('2026-03-01 00:00:00.001', 'b')), (uuidv7_from_timestamp('2026-03-01'))),
     t(t) AS (VALUES ('-infinity'::timestamptz), ('1970-01-01'), ('2023-06-01'), ('2026-03-01'),
                     ('2026-03-01 00:00:00.000999'), ('2026-03-01 00:00:00.001'), ('10614-06-01'), ('infinity'))
SELECT count(*) FILTER (WHERE u1.id <= u2.id AND u1.id >= t.t AND NOT u2.id >= t.t) AS broken,
       count(*) FILTER (WHERE (u1.id >= t.t) <> (uuid_cmp_timestamptz(u1.id, t.t) > 0)) AS cmp_disagrees,
       count(*) FILTER (WHERE (u1.id < t.t) <> (timestamptz_cmp_uuid(t.t, u1.id) > 0)) AS commuted_disagrees,
       count(*) AS pairs
FROM u u1, u u2, t;

-- uuidv7_new(): 2000 ids of one statement are distinct and increase in
-- call order; each is version 7 of the RFC variant, with kid.node_id in its
-- node bits and this backend's partition (one for the session), made in or
-- after the statement's millisecond.
CREATE TEMP TABLE made AS
SELECT n, uuidv7_new() AS id, statement_timestamp() AS st FROM generate_series(1, 2000) n;
SELECT count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE prev >= id) AS not_increasing,
       bool_and(uuidv7_to_timestamp(id) IS NOT NULL) AS version_7,
       bool_and(((('x' || substr(replace(id::text, '-', ''), 17, 4))::bit(16)::int >> 4) & 1023) = current_setting('kid.node_id')::int) AS node_bits,
       count(DISTINCT substr(replace(id::text, '-', ''), 20, 2)) AS partitions,
       bool_and(id >= st) AS not_before_the_statement
FROM (SELECT id, st, lag(id) OVER (ORDER BY n) AS prev FROM made) s;
SELECT uuidv7_new() > max(id::text)::uuid AS next_is_larger FROM made;
DROP TABLE made;
-- uuidv7_new_with_time(): the given millisecond, 74 keyed-random bits.
SELECT count(DISTINCT id) AS distinct_ids, min(uuidv7_to_timestamp(id)) AS t_min, max(uuidv7_to_timestamp(id)) AS t_max
FROM (SELECT uuidv7_new_with_time('2026-03-01 12:34:56.789999') AS id FROM generate_series(1, 1000)) s;
SELECT uuidv7_new_with_time('1970-01-01') >= '1970-01-01'::timestamptz AS epoch_ok;
\set VERBOSITY sqlstate
SELECT uuidv7_new_with_time('1969-12-31 23:59:59.999');
SELECT uuidv7_new_with_time('infinity');
\set VERBOSITY default
SELECT uuidv7_new_with_time('10889-08-02 05:31:50.656');

-- Untyped literals still read as uuid, with uuid's own = (not uuid =
-- timestamptz); a literal that is a time is still an invalid uuid.
CREATE TABLE uuid_log (id uuid PRIMARY KEY, n int);
-- VERBOSE plans without the "Query Identifier" line that pg_stat_statements
-- (preloaded before kid on many servers make installcheck runs against)
-- would add, by turning compute_query_id on.
SET compute_query_id = off;
EXPLAIN (COSTS OFF, VERBOSE) SELECT n FROM uuid_log WHERE id = '019c9a8e-1e00-7000-8000-000000000000';
SELECT n FROM uuid_log WHERE id = '2026-03-01';
SELECT n FROM uuid_log WHERE id IN ('019c9a8e-1e00-7000-8000-000000000000', '019c9a8e-1e00-7000-8000-000000000001');

-- 60,000 rows, one every 10 s (2026-03-01 .. 2026-03-07 22:39:50), plus
-- 1,000 version 4 ones.
INSERT INTO uuid_log
SELECT v7_at(timestamptz '2026-03-01' + i * interval '10 seconds', i::text), i FROM generate_series(0, 59999) i;
INSERT INTO uuid_log SELECT (substr(md5('v4' || i), 1, 12) || '4' || substr(md5('v4' || i), 13, 3) || 'a' || substr(md5('v4' || i), 16, 15))::uuid, -i
FROM generate_series(1, 1000) i;
VACUUM ANALYZE uuid_log;
-- The last hour: 360 version 7 rows, plus the version 4 ones whose random
-- first 48 bits fall after 2026-03-07 21:40 (nearly all of them); the
-- version 7 filter keeps the 360.
SELECT count(*) FILTER (WHERE id >= '2026-03-07 21:40'::timestamptz AND n >= 0) AS v7_last_hour,
       count(*) FILTER (WHERE id >= '2026-03-07 21:40'::timestamptz AND uuidv7_to_timestamp(id) IS NOT NULL) AS with_filter,
       count(*) FILTER (WHERE id >= '2026-03-07 21:40'::timestamptz AND n < 0) AS v4_after,
       count(*) FILTER (WHERE uuidv7_to_timestamp(id) >= '2026-03-07 21:40') AS by_decoding,
       count(*) FILTER (WHERE id >= '2026-03-02'::timestamptz AND id < '2026-03-02 01:00'::timestamptz) AS one_hour,
       count(*) FILTER (WHERE id >= '2026-03-02 00:00:00.001'::timestamptz AND id < '2026-03-02 00:00:10.001'::timestamptz) AS ms_bounds
FROM uuid_log;
-- Those counts through the primary key: an index range scan with the time
-- in the Index Cond.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT n FROM uuid_log WHERE id >= '2026-03-07 21:40'::timestamptz;
SELECT count(*) FROM uuid_log WHERE id >= '2026-03-02'::timestamptz AND id < '2026-03-02 01:00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT n FROM uuid_log WHERE '2026-03-02'::timestamptz <= id AND id < '2026-03-02 01:00'::timestamptz;
-- = ANY(times) never matches (no uuid equals a time); >= ANY(times) takes
-- the smallest time; both are index conditions.
SELECT count(*) AS eq_any FROM uuid_log WHERE id = ANY(ARRAY['2026-03-02', '2026-03-01']::timestamptz[]);
SELECT count(*) AS ge_any FROM uuid_log WHERE id >= ANY(ARRAY['2026-03-07 21:40', '2026-03-07 22:00']::timestamptz[]) AND n >= 0;
EXPLAIN (COSTS OFF) SELECT n FROM uuid_log WHERE id >= ANY(ARRAY['2026-03-07 21:40', '2026-03-07 22:00']::timestamptz[]);
-- ORDER BY id with a time bound reads the index in order, no Sort.
EXPLAIN (COSTS OFF) SELECT n FROM uuid_log WHERE id >= '2026-03-07 21:40'::timestamptz ORDER BY id LIMIT 10;
RESET enable_bitmapscan;
RESET enable_seqscan;

-- Estimates: the uuid histogram is searched with the cross-type operator:
-- a narrow range is estimated near its 360 rows (+ v4), a wide one near all.
\getenv abs_srcdir PG_ABS_SRCDIR
\set estimated_rows :abs_srcdir '/sql/include/estimated_rows.sql'
\i :estimated_rows
SELECT estimated_rows($$SELECT * FROM uuid_log WHERE id >= '2026-03-07 21:40'::timestamptz$$) BETWEEN 600 AND 3000 AS narrow_near,
       estimated_rows($$SELECT * FROM uuid_log WHERE id >= '2026-03-01 12:00'::timestamptz$$) BETWEEN 50000 AND 61000 AS wide_near,
       estimated_rows($$SELECT * FROM uuid_log WHERE id < '2026-03-02'::timestamptz$$) BETWEEN 4320 AND 17280 AS lt_near;
EXPLAIN (COSTS OFF) SELECT n FROM uuid_log WHERE id >= '2026-03-07 21:40'::timestamptz AND n >= 0;
DROP FUNCTION estimated_rows(text);

-- BRIN (uuid_minmax_ops): id >= t is a bitmap index condition.
CREATE TABLE uuid_brin AS SELECT id, n FROM uuid_log WHERE n >= 0 ORDER BY id;
CREATE INDEX uuid_brin_id ON uuid_brin USING brin (id) WITH (pages_per_range = 4);
VACUUM ANALYZE uuid_brin;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT n FROM uuid_brin WHERE id >= '2026-03-07 21:40'::timestamptz;
SELECT count(*) FROM uuid_brin WHERE id >= '2026-03-07 21:40'::timestamptz;
RESET enable_seqscan;
DROP TABLE uuid_brin;

-- Range partitions on a uuid key (bounds made with uuidv7_from_timestamp)
-- are pruned by a time, at plan time and with a parameter.
CREATE TABLE uuid_part (id uuid NOT NULL, n int) PARTITION BY RANGE (id);
CREATE TABLE uuid_part_1 PARTITION OF uuid_part FOR VALUES FROM (uuidv7_from_timestamp('2026-03-01')) TO (uuidv7_from_timestamp('2026-03-04'));
CREATE TABLE uuid_part_2 PARTITION OF uuid_part FOR VALUES FROM (uuidv7_from_timestamp('2026-03-04')) TO (uuidv7_from_timestamp('2026-03-08'));
INSERT INTO uuid_part SELECT id, n FROM uuid_log WHERE n >= 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uuid_part WHERE id >= '2026-03-05'::timestamptz;
SELECT count(*) FROM uuid_part WHERE id >= '2026-03-05'::timestamptz;
PREPARE since(timestamptz) AS SELECT count(*) FROM uuid_part WHERE id >= $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE since('2026-03-05');
EXECUTE since('2026-03-05');
RESET plan_cache_mode;
DEALLOCATE since;
DROP TABLE uuid_part;

-- The families stay valid for their access methods, with kid's members in.
SELECT c.opcname, amvalidate(c.oid)
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE (a.amname, c.opcname) IN (('btree', 'uuid_ops'), ('btree', 'uuid_timestamptz_ops'), ('brin', 'uuid_minmax_ops'))
ORDER BY 1;
SELECT f.opfname, a.amname, count(*) AS kid_members
FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily JOIN pg_am a ON a.oid = f.opfmethod
WHERE f.opfname IN ('uuid_ops', 'uuid_minmax_ops') AND 'timestamptz'::regtype IN (o.amoplefttype, o.amoprighttype)
GROUP BY 1, 2 ORDER BY 1, 2;
-- uuidv7_restore_operators() finds them all there: nothing to add.
SELECT uuidv7_restore_operators() AS added;

-- A column filled by PostgreSQL 18's own uuidv7() (here with times spread
-- over the last 10 hours through its shift argument): the same counts as
-- uuid_extract_timestamp gives, through the primary key.  Before 18, the
-- same rows come from an SQL version 7 generator, so the output is one.
SELECT current_setting('server_version_num')::integer >= 180000 AS has_uuidv7 \gset
\if :has_uuidv7
CREATE TABLE core_v7 AS SELECT uuidv7(-(i * interval '1 second')) AS id, i FROM generate_series(0, 35999) i;
CREATE FUNCTION core_v7_time(id uuid) RETURNS timestamptz LANGUAGE sql IMMUTABLE RETURN uuid_extract_timestamp(id);
\else
CREATE TABLE core_v7 AS SELECT v7_at(date_trunc('milliseconds', now() - i * interval '1 second'), i::text) AS id, i FROM generate_series(0, 35999) i;
CREATE FUNCTION core_v7_time(id uuid) RETURNS timestamptz LANGUAGE sql IMMUTABLE RETURN uuidv7_to_timestamp(id);
\endif
ALTER TABLE core_v7 ADD PRIMARY KEY (id);
VACUUM ANALYZE core_v7;
SELECT t.since, count(*) FILTER (WHERE c.id >= now() - t.since) = count(*) FILTER (WHERE core_v7_time(c.id) >= now() - t.since) AS same_count,
       count(*) FILTER (WHERE c.id >= now() - t.since) BETWEEN 1 AND 35999 AS some_not_all
FROM core_v7 c, (VALUES (interval '1 hour'), (interval '5 hours')) t(since)
GROUP BY t.since ORDER BY t.since;
SELECT bool_and(uuidv7_to_timestamp(id) = core_v7_time(id)) AS decodes_alike FROM core_v7;
EXPLAIN (COSTS OFF) SELECT i FROM core_v7 WHERE id >= now() - interval '1 hour';
DROP TABLE core_v7;
DROP FUNCTION core_v7_time(uuid);

-- uuidv7_between(id, since, before): id >= since AND id < before AND id is
-- version 7, an SQL function the planner inlines, so that on a column that
-- also holds version 4 uuids a time range is exact and an index range scan.
-- Its flags: IMMUTABLE, PARALLEL SAFE, not STRICT (inlining needs that of a
-- body with AND and IS NOT NULL), not LEAKPROOF, a body bound at creation.
SELECT p.provolatile, p.proparallel, p.proisstrict, p.proleakproof, p.prosqlbody IS NOT NULL AS sql_body
FROM pg_proc p WHERE p.oid = 'uuidv7_between(uuid, timestamptz, timestamptz)'::regprocedure;
-- Five version 4 uuids whose first 48 bits are minutes of uuid_log's last
-- hour (a version 7 uuid with its version digit made 4): the range alone
-- counts them, uuidv7_between and decoding do not.
INSERT INTO uuid_log
SELECT overlay(v7_at(timestamptz '2026-03-07 22:00' + i * interval '1 minute', 'in' || i)::text placing '4' from 15)::uuid, -2000 - i
FROM generate_series(1, 5) i;
VACUUM ANALYZE uuid_log;
SELECT count(*) FILTER (WHERE uuidv7_between(id, '2026-03-07 21:40', '2026-03-07 22:40')) AS v7_between,
       count(*) FILTER (WHERE id >= '2026-03-07 21:40'::timestamptz AND id < '2026-03-07 22:40'::timestamptz) AS range_alone,
       count(*) FILTER (WHERE uuidv7_to_timestamp(id) >= '2026-03-07 21:40' AND uuidv7_to_timestamp(id) < '2026-03-07 22:40') AS by_decoding
FROM uuid_log;
-- The planner chooses the primary key by itself: the range is the Index
-- Cond, the version test a filter on it.
EXPLAIN (COSTS OFF) SELECT count(*) FROM uuid_log WHERE uuidv7_between(id, '2026-03-07 21:40', '2026-03-07 22:40');
-- With parameters (a generic plan) and with now(), too.
PREPARE between_q(timestamptz, timestamptz) AS SELECT count(*) FROM uuid_log WHERE uuidv7_between(id, $1, $2);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE between_q('2026-03-07 21:40', '2026-03-07 22:40');
EXECUTE between_q('2026-03-07 21:40', '2026-03-07 22:40');
RESET plan_cache_mode;
DEALLOCATE between_q;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uuid_log WHERE uuidv7_between(id, now() - interval '1 hour', now());
-- Exact: for every row of uuid_log (version 7, version 4, the five above)
-- and every pair of bounds (both to the millisecond, infinities, times
-- before 1970 and from 10889 on, a reversed pair, NULLs), uuidv7_between is
-- true exactly when the uuid decodes to a time from since's millisecond to
-- before before's; never true when a bound is NULL.
WITH b(since, before) AS (VALUES
        ('2026-03-07 21:40'::timestamptz, '2026-03-07 22:40'::timestamptz),
        ('2026-03-07 21:40:00.000999', '2026-03-07 22:39:50.000999'),  -- same milliseconds as the rows at the edges
        ('2026-03-07 21:40:00.001', '2026-03-07 22:39:50'),            -- one millisecond past each
        ('2026-03-07 22:39:59.999999', '2026-03-07 21:40'),            -- reversed
        ('-infinity', 'infinity'), ('-infinity', '-infinity'), ('infinity', 'infinity'), ('infinity', '-infinity'),
        ('1969-12-31 23:59:59.999999', '2026-03-01 00:01'), ('2026-03-07 22:00', '10889-08-02 05:31:50.656'),
        ('2026-03-07 22:00', '294276-12-31 23:59:59.999999'),
        (NULL, '2026-03-07 22:40'), ('2026-03-07 21:40', NULL), (NULL, NULL)),
     r AS (SELECT b.since, b.before, uuidv7_between(u.id, b.since, b.before) AS got,
                  uuidv7_to_timestamp(u.id) >= date_trunc('milliseconds', b.since)
                  AND uuidv7_to_timestamp(u.id) < date_trunc('milliseconds', b.before) AS want
           FROM uuid_log u, b)
SELECT since, before, count(*) FILTER (WHERE got) AS true_rows, count(*) FILTER (WHERE got IS NULL) AS null_rows,
       count(*) FILTER (WHERE (got IS TRUE) <> (want IS TRUE)) AS wrong
FROM r GROUP BY since, before ORDER BY since NULLS FIRST, before NULLS FIRST;
SELECT uuidv7_between(NULL, '-infinity', 'infinity') AS null_id,
       uuidv7_between(v7_at('2026-03-01', 'a'), NULL, 'infinity') AS v7_null_since,
       uuidv7_between('f81d4fae-7dec-41d0-a765-00a0c91e6bf6', NULL, 'infinity') AS v4_null_since;
-- A NULL bound in WHERE: no row, nothing read.
SELECT count(*) FROM uuid_log WHERE uuidv7_between(id, NULL, now());
-- A uuid key in a domain: the argument is cast to uuid, which the index
-- still matches.
CREATE DOMAIN regress_order_id AS uuid;
CREATE TABLE uuid_domain (id regress_order_id PRIMARY KEY, n int);
INSERT INTO uuid_domain SELECT id, n FROM uuid_log;
VACUUM ANALYZE uuid_domain;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uuid_domain WHERE uuidv7_between(id, '2026-03-07 21:40', '2026-03-07 22:40');
SELECT count(*) FROM uuid_domain WHERE uuidv7_between(id, '2026-03-07 21:40', '2026-03-07 22:40');
DROP TABLE uuid_domain;
DROP DOMAIN regress_order_id;
-- A hash index cannot serve a range, and no index at all: the table is
-- read, with the same count.
CREATE TABLE uuid_plain AS SELECT id, n FROM uuid_log;
CREATE INDEX uuid_plain_hash ON uuid_plain USING hash (id);
VACUUM ANALYZE uuid_plain;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uuid_plain WHERE uuidv7_between(id, '2026-03-07 21:40', '2026-03-07 22:40');
SELECT count(*) FROM uuid_plain WHERE uuidv7_between(id, '2026-03-07 21:40', '2026-03-07 22:40');
DROP INDEX uuid_plain_hash;
SELECT count(*) FROM uuid_plain WHERE uuidv7_between(id, '2026-03-07 21:40', '2026-03-07 22:40');
-- BRIN (uuid_minmax_ops): the range is a bitmap index condition.
CREATE INDEX uuid_plain_brin ON uuid_plain USING brin (id);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uuid_plain WHERE uuidv7_between(id, '2026-03-07 21:40', '2026-03-07 22:40');
SELECT count(*) FROM uuid_plain WHERE uuidv7_between(id, '2026-03-07 21:40', '2026-03-07 22:40');
RESET enable_seqscan;
DROP TABLE uuid_plain;
-- Range partitions on the key (version 4 uuids in the default one) are
-- pruned by the bounds.
CREATE TABLE uuid_part (id uuid NOT NULL, n int) PARTITION BY RANGE (id);
CREATE TABLE uuid_part_1 PARTITION OF uuid_part FOR VALUES FROM (uuidv7_from_timestamp('2026-03-01')) TO (uuidv7_from_timestamp('2026-03-04'));
CREATE TABLE uuid_part_2 PARTITION OF uuid_part FOR VALUES FROM (uuidv7_from_timestamp('2026-03-04')) TO (uuidv7_from_timestamp('2026-03-08'));
CREATE TABLE uuid_part_other PARTITION OF uuid_part DEFAULT;
INSERT INTO uuid_part SELECT id, n FROM uuid_log;
EXPLAIN (COSTS OFF) SELECT count(*) FROM uuid_part WHERE uuidv7_between(id, '2026-03-05', '2026-03-06');
SELECT count(*) FROM uuid_part WHERE uuidv7_between(id, '2026-03-05', '2026-03-06');
DROP TABLE uuid_part;
-- Not inlined (an argument used three times that is costly to compute):
-- the function itself runs, row by row, with the same count.
CREATE FUNCTION costly_id(uuid) RETURNS uuid LANGUAGE plpgsql IMMUTABLE COST 1000 AS 'BEGIN RETURN $1; END';
EXPLAIN (COSTS OFF, VERBOSE) SELECT count(*) FROM uuid_log WHERE uuidv7_between(costly_id(id), '2026-03-07 21:40', '2026-03-07 22:40');
SELECT count(*) FROM uuid_log WHERE uuidv7_between(costly_id(id), '2026-03-07 21:40', '2026-03-07 22:40');
DROP FUNCTION costly_id(uuid);

DROP TABLE uuid_log;
DROP FUNCTION v7_at(timestamptz, text);
