
-- ---------------------------------------------------------------------------
-- koid: 64-bit snowflake; 42-bit milliseconds since the epoch
-- (kid.koid_epoch_ms, default 1970), 5-bit datacenter, 5-bit worker,
-- 12-bit counter.  Generation, decoding, casts to bigint.
-- ---------------------------------------------------------------------------

-- The same 64 bits as a bigint.  With the 1970 epoch, koids made from
-- 2039-09-07T15:47:35.552Z on have bit 63 set and become negative bigints;
-- koid itself compares unsigned, so its order stays time order.
CREATE FUNCTION koid_to_bigint(koid) RETURNS bigint
AS 'MODULE_PATHNAME', 'koid_to_bigint' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION koid_from_bigint(bigint) RETURNS koid
AS 'MODULE_PATHNAME', 'koid_from_bigint' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE CAST (koid AS bigint) WITH FUNCTION koid_to_bigint(koid);
CREATE CAST (bigint AS koid) WITH FUNCTION koid_from_bigint(bigint);
COMMENT ON FUNCTION koid_to_bigint(koid) IS 'the 64 bits of a koid as a bigint (negative from 2039 with the 1970 epoch)';
COMMENT ON FUNCTION koid_from_bigint(bigint) IS 'a koid from the 64 bits of a bigint';
COMMENT ON CAST (koid AS bigint) IS 'the 64 bits of a koid as a bigint';
COMMENT ON CAST (bigint AS koid) IS 'a koid from the 64 bits of a bigint';

-- Generation: one (millisecond, counter) word per server in shared memory,
-- advanced by compare-and-swap; generator id = kid.koid_generator_id, or
-- kid.node_id when that is -1.  PARALLEL SAFE: a parallel worker advances
-- the same word.
CREATE FUNCTION koid_new() RETURNS koid
AS 'MODULE_PATHNAME', 'koid_new' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION koid_new() IS
'a new unique koid; the 4097th in one millisecond waits for the next (or fails with kid.koid_overflow_error); a clock gone back is waited for up to kid.koid_max_clock_wait_ms; needs kid in shared_preload_libraries';

-- Decoding (times use kid.koid_epoch_ms, fixed while the server runs).
CREATE FUNCTION koid_to_timestamp(koid) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'koid_to_timestamp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION koid_info(id koid,
    OUT "time" timestamptz, OUT ms_since_epoch bigint, OUT datacenter integer, OUT worker integer,
    OUT generator_id integer, OUT counter integer)
RETURNS record
AS 'MODULE_PATHNAME', 'koid_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION koid_to_timestamp(koid) IS 'the millisecond a koid was made in (epoch kid.koid_epoch_ms)';
COMMENT ON FUNCTION koid_info(koid) IS 'every field of a koid';

-- Range-scan boundary.
CREATE FUNCTION koid_from_timestamp(timestamptz) RETURNS koid
AS 'MODULE_PATHNAME', 'koid_from_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION koid_from_timestamp(timestamptz) IS
'the smallest koid of a millisecond (generator 0, counter 0): WHERE id >= koid_from_timestamp(t) is an index range scan';
