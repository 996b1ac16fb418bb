
-- ---------------------------------------------------------------------------
-- sno: 10 bytes; 39-bit 4 ms time since 2010 + tick-tock bit, metabyte,
-- 16-bit partition, 16-bit sequence.  Text: 16 characters of
-- 23456789abcdefghijklmnopqrstuvwx.  Byte order = text order = time order.
-- Generation, decoding and the range-scan boundary.
-- ---------------------------------------------------------------------------
@id_type sno@

-- Generation.  VOLATILE so that DEFAULT sno_new() gives every row its own id;
-- PARALLEL RESTRICTED so it runs in the leader, which holds the partition.
CREATE FUNCTION sno_new(meta integer DEFAULT 0) RETURNS sno
AS 'MODULE_PATHNAME', 'sno_new' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION sno_new(integer) IS
'a new unique sno with the given metabyte (0..255), from this backend''s partition; needs kid in shared_preload_libraries';

CREATE FUNCTION sno_new_with_time(at timestamptz, meta integer DEFAULT 0) RETURNS sno
AS 'MODULE_PATHNAME', 'sno_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION sno_new_with_time(timestamptz, integer) IS
'an sno carrying a given time (backfills): tick 0, this backend''s partition, a per-backend sequence; NOT guaranteed unique';

-- Decoding.
CREATE FUNCTION sno_to_timestamp(sno) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'sno_to_timestamp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_meta(sno) RETURNS integer
AS 'MODULE_PATHNAME', 'sno_meta' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_partition(sno) RETURNS integer
AS 'MODULE_PATHNAME', 'sno_partition' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_sequence(sno) RETURNS integer
AS 'MODULE_PATHNAME', 'sno_sequence' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_tick(sno) RETURNS integer
AS 'MODULE_PATHNAME', 'sno_tick' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_info(id sno,
    OUT "time" timestamptz, OUT tick integer, OUT meta integer,
    OUT partition integer, OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'sno_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION sno_to_timestamp(sno) IS 'the start of the 4 ms unit an sno was made in';
COMMENT ON FUNCTION sno_meta(sno) IS 'the metabyte of an sno (0..255)';
COMMENT ON FUNCTION sno_partition(sno) IS 'the partition of an sno: node id * 256 + backend slot for generated ids';
COMMENT ON FUNCTION sno_sequence(sno) IS 'the sequence of an sno within its 4 ms unit and partition';
COMMENT ON FUNCTION sno_tick(sno) IS 'the tick-tock bit of an sno: 1 on the timeline taken after a clock regression';
COMMENT ON FUNCTION sno_info(sno) IS 'every field of an sno';
-- id::timestamptz (explicit): what sno_to_timestamp gives.
CREATE CAST (sno AS timestamptz) WITH FUNCTION sno_to_timestamp(sno);
COMMENT ON CAST (sno AS timestamptz) IS 'the start of the 4 ms unit an sno was made in (sno_to_timestamp)';

-- Range-scan boundary.
CREATE FUNCTION sno_from_timestamp(timestamptz) RETURNS sno
AS 'MODULE_PATHNAME', 'sno_from_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_from_timestamp(timestamptz) IS
'the smallest sno of the 4 ms unit holding a time: WHERE id >= sno_from_timestamp(t) is an index range scan';

-- The commit horizon of its generator (src/sql/id_types.sql, docs/horizon.md).
CREATE FUNCTION sno_safe_horizon() RETURNS @extschema@.sno
AS 'MODULE_PATHNAME', 'sno_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION sno_safe_horizon() IS
'The commit horizon of sno_new() on this server: no sno made here in a transaction not yet committed, or made later, is below it. The smallest sno of a 4 ms unit at or before the clock; read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';

-- Its row of kid's list of id types.
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('@extschema@.sno', 'sno', 'sno', '{sno tick 0,sno tick 1}', 'sno_to_timestamp', 'sno_from_timestamp', '{sno_new}', 'sno_safe_horizon');
