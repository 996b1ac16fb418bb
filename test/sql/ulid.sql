-- ULIDs kept in uuid columns: ulid_to_timestamp(), uuid_to_ulid(),
-- ulid_to_uuid(), and ranges by time through kid's uuid-timestamptz
-- operators.  The reference implementation's example (npm ulid's README:
-- ulid(1469918176385)): 01ARYZ6S41TSV4RRFFQ69G5FAV is
-- 1469918176385 ms (2016-07-30 22:36:16.385 UTC) and 80 random bits.
SET TIME ZONE 'UTC';

-- Text to uuid and back, and the time.
SELECT ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAV') AS uuid,
       uuid_to_ulid(ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAV')) AS ulid,
       ulid_to_timestamp(ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAV')) AS made,
       extract(epoch FROM ulid_to_timestamp(ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAV'))) * 1000 AS unix_ms;
-- Small letters read as capitals; the text written is in capitals.
SELECT uuid_to_ulid(ulid_to_uuid('01aryz6s41tsv4rrffq69g5fav')) AS ulid;
-- The ends: all zeros, and the largest ULID (the first digit 7).
SELECT uuid_to_ulid('00000000-0000-0000-0000-000000000000') AS smallest,
       uuid_to_ulid('ffffffff-ffff-ffff-ffff-ffffffffffff') AS largest,
       ulid_to_uuid('7ZZZZZZZZZZZZZZZZZZZZZZZZZ') AS largest_uuid,
       ulid_to_timestamp('ffffffff-ffff-ffff-ffff-ffffffffffff') AS last_time;
-- A version 7 uuid is a ULID too: the same time as uuidv7_to_timestamp().
SELECT ulid_to_timestamp(u) = uuidv7_to_timestamp(u) AS same_time
FROM (VALUES ('01890a5d-ac96-774b-bcce-b302099a8057'::uuid)) v(u);
-- A ULID has no version: uuidv7_to_timestamp() does not read it.
SELECT uuidv7_to_timestamp(ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAV')) AS v7_time;

-- Text sorts as the uuid sorts (both are the bits, most significant first).
SELECT count(*) AS pairs, count(*) FILTER (WHERE (a < b) <> (uuid_to_ulid(a) COLLATE "C" < uuid_to_ulid(b) COLLATE "C")) AS disagree
FROM (SELECT md5(i::text)::uuid AS a, md5((i + 1)::text)::uuid AS b FROM generate_series(1, 2000) i) p;
-- Every uuid goes to text and back unchanged.
SELECT count(*) FILTER (WHERE ulid_to_uuid(uuid_to_ulid(u)) <> u) AS changed
FROM (SELECT md5(i::text)::uuid AS u FROM generate_series(1, 2000) i) p;

-- Anything else is refused (22P02), naming the value.
SELECT ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FA');     -- 25 characters
SELECT ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAVV');   -- 27
SELECT ulid_to_uuid('81ARZ3NDEKTSV4RRFFQ69G5FAV');    -- first digit above 7: 130 bits
SELECT ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAU');    -- U is not a digit
SELECT ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAI');    -- nor I
SELECT ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAL');    -- nor L
SELECT ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAO');    -- nor O
SELECT ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FA-');
SELECT ulid_to_uuid('');
SELECT ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAé');   -- 26 characters, 27 bytes
SELECT ulid_to_uuid(NULL) IS NULL AS strict;

-- Ranges by time on a uuid column of ULIDs: every ULID of a millisecond,
-- whatever its random bits (all zeros, all ones), is inside the ranges
-- that hold that millisecond and outside the others, through the index.
CREATE TABLE ulids (id uuid PRIMARY KEY);
INSERT INTO ulids
SELECT (lpad(to_hex(ms), 12, '0') || substr(md5(ms::text || r::text), 1, 20))::uuid
FROM generate_series(1469918176000, 1469918176999, 7) AS ms, generate_series(1, 3) AS r
UNION ALL
SELECT (lpad(to_hex(ms), 12, '0') || rest)::uuid
FROM generate_series(1469918176000, 1469918176999, 333) AS ms, (VALUES ('00000000000000000000'), ('ffffffffffffffffffff')) AS e(rest);
ANALYZE ulids;
SET enable_seqscan = off;
SELECT count(*) AS ranges,
       count(*) FILTER (WHERE by_index <> by_time) AS wrong
FROM (SELECT lo, hi,
             (SELECT count(*) FROM ulids WHERE id >= lo AND id < hi) AS by_index,
             (SELECT count(*) FROM ulids WHERE ulid_to_timestamp(id) >= lo AND ulid_to_timestamp(id) < hi) AS by_time
      FROM (SELECT timestamptz '2016-07-30 22:36:16.000+00' + a * interval '1 ms' AS lo,
                   timestamptz '2016-07-30 22:36:16.000+00' + (a + w) * interval '1 ms' AS hi
            FROM generate_series(-1, 1000, 37) AS a, (VALUES (1), (10), (333)) AS v(w)) b) c;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ulids WHERE id >= timestamptz '2016-07-30 22:36:16.5+00';
RESET enable_seqscan;
DROP TABLE ulids;
