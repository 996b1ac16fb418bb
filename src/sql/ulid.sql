
-- ---------------------------------------------------------------------------
-- ULIDs in uuid columns: their time and their text.  A ULID
-- (github.com/ulid/spec) is 128 bits, a 48-bit Unix time in milliseconds
-- and then 80 random bits, and many applications keep it in a uuid column
-- (the same 16 bytes, half the size of its text).  Its first 48 bits are
-- where a version 7 uuid keeps its time, and kid's uuid-timestamptz
-- comparisons (src/sql/uuidv7.sql) read them from every uuid, version 7 or
-- not: on a uuid column of ULIDs, WHERE id >= now() - interval '1 hour' is
-- the same index range scan, and exact (a ULID of a millisecond sorts with
-- it, whatever its random bits).  What a ULID lacks is a version:
-- uuidv7_to_timestamp() answers NULL for it, hence a decoder of its own.
-- ---------------------------------------------------------------------------

-- Every uuid is a ULID (its first 48 bits are up to the year 10889): these
-- never raise, hence LEAKPROOF.
CREATE FUNCTION ulid_to_timestamp(uuid) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'ulid_to_timestamp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION ulid_to_timestamp(uuid) IS
'the millisecond a ULID kept in a uuid was made in (its first 48 bits, Unix milliseconds), whatever its version bits';

CREATE FUNCTION uuid_to_ulid(uuid) RETURNS text
AS 'MODULE_PATHNAME', 'uuid_to_ulid' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION uuid_to_ulid(uuid) IS
'the ULID text of a uuid: 26 characters of Crockford''s base32, in capitals, sorting as the uuid sorts';

-- Not LEAKPROOF: a text that is not a ULID is an error (22P02).
CREATE FUNCTION ulid_to_uuid(text) RETURNS uuid
AS 'MODULE_PATHNAME', 'ulid_to_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_to_uuid(text) IS
'the uuid of a ULID''s text (26 characters of Crockford''s base32, either case, the first one 0 to 7): INSERT ... VALUES (ulid_to_uuid(''01ARZ3NDEKTSV4RRFFQ69G5FAV'')); 22P02 for any other text';
