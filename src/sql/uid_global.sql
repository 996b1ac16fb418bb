
-- ---------------------------------------------------------------------------
-- uid_global: the global id of the Erlang uid library, a uid (uid.sql) with a
-- node fingerprint.
--   uid_global 96 bits: A:20 | B>>I:(20-I) | Node:32 | B&(2^I-1):I | C>>10:10 | Seq:14
-- where {A, B, C} is Erlang's {MegaSecs, Secs, MicroSecs} and I the
-- neighbourhood interval (kid.uid_interval, 5..10, default 8).  Generation,
-- conversion from uid, decoding, the library's older base64url text.
-- ---------------------------------------------------------------------------
@id_type uid_global@

-- Generation: the server-wide word uid_new() advances (uid.sql), with this
-- server's node fingerprint and kid.uid_interval.
CREATE FUNCTION uid_global_new() RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_new' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_node_fingerprint() RETURNS bigint
AS 'MODULE_PATHNAME', 'uid_node_fingerprint' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_global_new() IS 'a new unique uid_global: the server-wide counter with this server''s node fingerprint and kid.uid_interval';
COMMENT ON FUNCTION uid_node_fingerprint() IS 'this server''s 32-bit uid node fingerprint: kid.uid_node, or derived from kid.node_id';

-- Backfills: uid_new_with_time's sequence (uid.sql, shared with it), with this
-- server's node fingerprint and kid.uid_interval, as uid_global_new().
CREATE FUNCTION uid_global_new_with_time(at timestamptz) RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_global_new_with_time(timestamptz) IS
'a uid_global carrying a given time (backfills): this server''s fingerprint and kid.uid_interval, sequence from one server-wide sequence shared with uid_new_with_time; ids for one time are distinct among any 16384 consecutive calls of the two on this server, beyond that two may be equal (also to uid_global_new() ids of the same step): keep a unique index and retry';

-- One default neighbourhood everywhere: a function called without the
-- neighbourhood argument uses the server's kid.uid_interval, read in C (the
-- same C function serves both forms).  kid.uid_interval and the node
-- fingerprint are fixed while the server runs (while a session runs when kid
-- is not preloaded), like kid.koid_epoch_ms, so these stay IMMUTABLE;
-- changing the setting (a restart) changes what they return, so rebuild
-- indexes on them then.

-- Conversion: a global id from a local one keeps its time and sequence.
CREATE FUNCTION uid_to_global(id uid, node bigint, neighborhood integer)
RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_to_global' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_to_global(id uid, node bigint)
RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_to_global' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_to_global(id uid)
RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_to_global' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_to_global(uid, bigint, integer) IS
'the uid_global with a local id''s time and sequence, for a node fingerprint (0..4294967295) and neighbourhood interval (5..10)';
COMMENT ON FUNCTION uid_to_global(uid, bigint) IS
'the uid_global with a local id''s time and sequence, for a node fingerprint, with kid.uid_interval (fixed while the server runs)';
COMMENT ON FUNCTION uid_to_global(uid) IS
'the uid_global with a local id''s time and sequence, with this server''s node fingerprint and kid.uid_interval (fixed while the server runs)';

-- Decoding.  A global id does not record its neighbourhood interval: pass
-- the one it was made with, or leave it out for kid.uid_interval.  Seconds
-- above 999999 under that interval raise 22008.
CREATE FUNCTION uid_global_to_timestamp(id uid_global, neighborhood integer) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'uid_global_to_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_global_to_timestamp(id uid_global) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'uid_global_to_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_global_info(id uid_global, neighborhood integer,
    OUT "time" timestamptz, OUT megaseconds integer, OUT seconds integer, OUT microseconds integer,
    OUT node bigint, OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'uid_global_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_global_info(id uid_global,
    OUT "time" timestamptz, OUT megaseconds integer, OUT seconds integer, OUT microseconds integer,
    OUT node bigint, OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'uid_global_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_global_to_timestamp(uid_global, integer) IS 'the start of the 1.024 ms step of a uid_global made with the given neighbourhood interval';
COMMENT ON FUNCTION uid_global_to_timestamp(uid_global) IS 'the start of the 1.024 ms step of a uid_global made with kid.uid_interval (fixed while the server runs)';
COMMENT ON FUNCTION uid_global_info(uid_global, integer) IS 'the Erlang time triple, node fingerprint and sequence of a uid_global made with the given neighbourhood interval';
COMMENT ON FUNCTION uid_global_info(uid_global) IS 'the Erlang time triple, node fingerprint and sequence of a uid_global made with kid.uid_interval (fixed while the server runs)';
-- id::timestamptz (explicit): what uid_global_to_timestamp (with
-- kid.uid_interval) gives.
CREATE CAST (uid_global AS timestamptz) WITH FUNCTION uid_global_to_timestamp(uid_global);
COMMENT ON CAST (uid_global AS timestamptz) IS 'the start of the 1.024 ms step of a uid_global made with kid.uid_interval (uid_global_to_timestamp)';

-- Range-scan boundaries.
CREATE FUNCTION uid_global_from_timestamp(timestamptz, neighborhood integer)
RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_from_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_global_from_timestamp(timestamptz)
RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_from_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_global_from_timestamp(timestamptz, integer) IS 'the smallest uid_global of a 1.024 ms step (node 0) for a neighbourhood interval';
COMMENT ON FUNCTION uid_global_from_timestamp(timestamptz) IS 'the smallest uid_global of a 1.024 ms step (node 0) with kid.uid_interval, as the uid_global-timestamptz operators use (fixed while the server runs)';

-- The library's older RFC 4648 base64url text (same bits; does not sort).
CREATE FUNCTION uid_global_to_base64url(uid_global) RETURNS text
AS 'MODULE_PATHNAME', 'uid_global_to_base64url' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uid_global_from_base64url(text) RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_from_base64url' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_global_to_base64url(uid_global) IS 'a uid_global in the older, unsorted RFC 4648 base64url text';
COMMENT ON FUNCTION uid_global_from_base64url(text) IS 'a uid_global from 16 base64url characters';

-- The commit horizon of its generator (src/sql/id_types.sql, docs/horizon.md).
CREATE FUNCTION uid_global_safe_horizon() RETURNS @extschema@.uid_global
AS 'MODULE_PATHNAME', 'uid_global_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION uid_global_safe_horizon() IS
'The commit horizon of uid_global_new() on this server (with this server''s node field, under kid.uid_interval): no uid_global made here in a transaction not yet committed, or made later, is below it; read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';

-- Its row of kid's list of id types.
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('@extschema@.uid_global', 'uid_global', 'uid_global', '{uid}', 'uid_global_to_timestamp', 'uid_global_from_timestamp', '{uid_global_new}', 'uid_global_safe_horizon');
