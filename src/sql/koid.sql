
-- ---------------------------------------------------------------------------
-- koid: 64-bit snowflake; 42-bit milliseconds since the epoch
-- (kid.koid_epoch_ms, default 1970), 5-bit datacenter, 5-bit worker,
-- 12-bit counter.  Generation, decoding, casts to bigint.
-- ---------------------------------------------------------------------------
@id_type koid@

-- Generation: one (millisecond, counter) word per server in shared memory,
-- advanced by compare-and-swap; generator id = kid.koid_generator_id, or
-- kid.node_id when that is -1.  PARALLEL SAFE: a parallel worker advances
-- the same word.
CREATE FUNCTION koid_new() RETURNS koid
AS 'MODULE_PATHNAME', 'koid_new' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION koid_new() IS
'a new unique koid; the 4097th in one millisecond waits for the next (or fails with kid.koid_overflow_error); a clock gone back is waited for up to kid.koid_max_clock_wait_ms; needs kid in shared_preload_libraries';

-- Backfills: a koid carrying a given time (its millisecond), this server's
-- generator id, and a counter from ONE server-wide backfill sequence
-- (shared memory, fetch-and-add from any backend, started at a random value
-- at server start), whatever the time.  Promised: ids for one time are
-- distinct among any 4096 consecutive calls of this function on this
-- server (since its start), and never equal a koid of a server with
-- another generator id.  NOT promised: beyond 4096 calls two ids for one
-- time may be equal, whatever times the calls between them had (the
-- counter is the sequence's low 12 bits, not a count per millisecond);
-- after a restart the sequence starts at a random place; and a backfill id
-- can equal a koid_new() id of this server made in the same millisecond
-- (koid_new() counts from 0 in each).  Backfill times no live id has, and
-- keep a unique index and retry (INSERT ... ON CONFLICT DO NOTHING, then
-- make the missing ones again).
CREATE FUNCTION koid_new_with_time(at timestamptz) RETURNS koid
AS 'MODULE_PATHNAME', 'koid_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION koid_new_with_time(timestamptz) IS
'a koid carrying a given time (backfills): this server''s generator id, counter from one server-wide sequence; ids for one time are distinct among any 4096 consecutive calls on this server, beyond that two may be equal (also to koid_new() ids of the same millisecond): keep a unique index and retry';

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
-- id::timestamptz (explicit): what koid_to_timestamp gives.
CREATE CAST (koid AS timestamptz) WITH FUNCTION koid_to_timestamp(koid);
COMMENT ON CAST (koid AS timestamptz) IS 'the millisecond a koid was made in, epoch kid.koid_epoch_ms (koid_to_timestamp)';

-- Range-scan boundary.
CREATE FUNCTION koid_from_timestamp(timestamptz) RETURNS koid
AS 'MODULE_PATHNAME', 'koid_from_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION koid_from_timestamp(timestamptz) IS
'the smallest koid of a millisecond (generator 0, counter 0): WHERE id >= koid_from_timestamp(t) is an index range scan';

-- The commit horizon of its generator (src/sql/id_types.sql, docs/horizon.md).
CREATE FUNCTION koid_safe_horizon() RETURNS @extschema@.koid
AS 'MODULE_PATHNAME', 'koid_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION koid_safe_horizon() IS
'The commit horizon of koid_new() on this server: no koid made here in a transaction not yet committed, or made later, is below it; read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';

-- Its row of kid's list of id types.
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('@extschema@.koid', 'koid', 'koid', '{koid}', 'koid_to_timestamp', 'koid_from_timestamp', '{koid_new}', 'koid_safe_horizon');
