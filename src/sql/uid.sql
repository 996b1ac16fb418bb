
-- ---------------------------------------------------------------------------
-- uid: the local id of the Erlang uid library (uid_global, its global id, is
-- the next part, uid_global.sql).
--   uid        64 bits: A:20 | B:20 | C>>10:10 | Seq:14
-- where {A, B, C} is Erlang's {MegaSecs, Secs, MicroSecs}.  Generation,
-- decoding, the library's older base64url text.
-- ---------------------------------------------------------------------------
@id_type uid@

-- Generation: one (1.024 ms step, sequence) word per server in shared memory,
-- advanced by compare-and-swap; after 16384 ids in a step the next step is
-- taken, so ids never repeat and never wait.  PARALLEL SAFE: a parallel
-- worker advances the same word.
CREATE FUNCTION uid_new() RETURNS uid
AS 'MODULE_PATHNAME', 'uid_new' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_new() IS 'a new uid (local id) from the server-wide counter, unique within this server only (a local uid has no node field: use uid_global across servers); needs kid in shared_preload_libraries';

-- Backfills: a uid or uid_global carrying a given time (its 1.024 ms step)
-- and a sequence from ONE server-wide backfill sequence that the two share
-- (shared memory, fetch-and-add from any backend, started at a random value
-- at server start), whatever the time; uid_global_new_with_time adds this
-- server's node fingerprint and kid.uid_interval, as uid_global_new().
-- Promised: ids for one time are distinct among any 16384 consecutive calls
-- of uid_new_with_time and uid_global_new_with_time together on this server
-- (since its start), and uid_global ones never equal those of a server with
-- another fingerprint.  NOT promised: beyond 16384 calls two ids for one
-- time may be equal, whatever times the calls between them had (the
-- sequence field is the low 14 bits, not a count per step); after a restart
-- the sequence starts at a random place; and a backfill id can equal a
-- uid_new()/uid_global_new() id of this server made in the same step (they
-- count from 0 in each).  Backfill times no live id has, and keep a unique
-- index and retry (INSERT ... ON CONFLICT DO NOTHING, then make the missing
-- ones again).
CREATE FUNCTION uid_new_with_time(at timestamptz) RETURNS uid
AS 'MODULE_PATHNAME', 'uid_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_new_with_time(timestamptz) IS
'a uid carrying a given time (backfills): sequence from one server-wide sequence shared with uid_global_new_with_time; ids for one time are distinct among any 16384 consecutive calls of the two on this server, beyond that two may be equal (also to uid_new() ids of the same step): keep a unique index and retry';

-- Decoding.
CREATE FUNCTION uid_to_timestamp(uid) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'uid_to_timestamp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uid_info(id uid,
    OUT "time" timestamptz, OUT megaseconds integer, OUT seconds integer, OUT microseconds integer,
    OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'uid_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_to_timestamp(uid) IS 'the start of the 1.024 ms step a uid was made in';
COMMENT ON FUNCTION uid_info(uid) IS 'the Erlang time triple {MegaSecs, Secs, MicroSecs (to 1.024 ms)} and sequence of a uid';
-- id::timestamptz (explicit): what uid_to_timestamp gives.
CREATE CAST (uid AS timestamptz) WITH FUNCTION uid_to_timestamp(uid);
COMMENT ON CAST (uid AS timestamptz) IS 'the start of the 1.024 ms step a uid was made in (uid_to_timestamp)';

-- Range-scan boundaries.
CREATE FUNCTION uid_from_timestamp(timestamptz) RETURNS uid
AS 'MODULE_PATHNAME', 'uid_from_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_from_timestamp(timestamptz) IS 'the smallest uid of a 1.024 ms step: WHERE id >= uid_from_timestamp(t) is an index range scan';

-- The library's older RFC 4648 base64url text (same bits; does not sort).
CREATE FUNCTION uid_to_base64url(uid) RETURNS text
AS 'MODULE_PATHNAME', 'uid_to_base64url' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uid_from_base64url(text) RETURNS uid
AS 'MODULE_PATHNAME', 'uid_from_base64url' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_to_base64url(uid) IS 'a uid in the older, unsorted RFC 4648 base64url text';
COMMENT ON FUNCTION uid_from_base64url(text) IS 'a uid from 11 base64url characters';

-- The commit horizon of its generator (src/sql/id_types.sql, docs/horizon.md).
CREATE FUNCTION uid_safe_horizon() RETURNS @extschema@.uid
AS 'MODULE_PATHNAME', 'uid_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION uid_safe_horizon() IS
'The commit horizon of uid_new() on this server: no uid made here in a transaction not yet committed, or made later, is below it; read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';

-- Its row of kid's list of id types.
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('@extschema@.uid', 'uid', 'uid', '{uid}', 'uid_to_timestamp', 'uid_from_timestamp', '{uid_new}', 'uid_safe_horizon');
