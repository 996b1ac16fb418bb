
-- ---------------------------------------------------------------------------
-- uid and uid_global: the k-ordered ids of the Erlang uid library.
--   uid        64 bits: A:20 | B:20 | C>>10:10 | Seq:14
--   uid_global 96 bits: A:20 | B>>I:(20-I) | Node:32 | B&(2^I-1):I | C>>10:10 | Seq:14
-- where {A, B, C} is Erlang's {MegaSecs, Secs, MicroSecs} and I the
-- neighbourhood interval (kid.uid_interval, 5..10, default 8).  Generation,
-- conversion, decoding, the library's older base64url text.
-- ---------------------------------------------------------------------------
@id_type uid@
@id_type uid_global@

-- Generation: one (1.024 ms step, sequence) word per server in shared memory,
-- advanced by compare-and-swap; after 16384 ids in a step the next step is
-- taken, so ids never repeat and never wait.  PARALLEL SAFE: a parallel
-- worker advances the same word.
CREATE FUNCTION uid_new() RETURNS uid
AS 'MODULE_PATHNAME', 'uid_new' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_global_new() RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_new' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_node_fingerprint() RETURNS bigint
AS 'MODULE_PATHNAME', 'uid_node_fingerprint' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_new() IS 'a new uid (local id) from the server-wide counter, unique within this server only (a local uid has no node field: use uid_global across servers); needs kid in shared_preload_libraries';
COMMENT ON FUNCTION uid_global_new() IS 'a new unique uid_global: the server-wide counter with this server''s node fingerprint and kid.uid_interval';
COMMENT ON FUNCTION uid_node_fingerprint() IS 'this server''s 32-bit uid node fingerprint: kid.uid_node, or derived from kid.node_id';

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
CREATE FUNCTION uid_global_new_with_time(at timestamptz) RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_new_with_time(timestamptz) IS
'a uid carrying a given time (backfills): sequence from one server-wide sequence shared with uid_global_new_with_time; ids for one time are distinct among any 16384 consecutive calls of the two on this server, beyond that two may be equal (also to uid_new() ids of the same step): keep a unique index and retry';
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
CREATE FUNCTION uid_to_timestamp(uid) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'uid_to_timestamp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uid_info(id uid,
    OUT "time" timestamptz, OUT megaseconds integer, OUT seconds integer, OUT microseconds integer,
    OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'uid_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
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
COMMENT ON FUNCTION uid_to_timestamp(uid) IS 'the start of the 1.024 ms step a uid was made in';
COMMENT ON FUNCTION uid_info(uid) IS 'the Erlang time triple {MegaSecs, Secs, MicroSecs (to 1.024 ms)} and sequence of a uid';
COMMENT ON FUNCTION uid_global_to_timestamp(uid_global, integer) IS 'the start of the 1.024 ms step of a uid_global made with the given neighbourhood interval';
COMMENT ON FUNCTION uid_global_to_timestamp(uid_global) IS 'the start of the 1.024 ms step of a uid_global made with kid.uid_interval (fixed while the server runs)';
COMMENT ON FUNCTION uid_global_info(uid_global, integer) IS 'the Erlang time triple, node fingerprint and sequence of a uid_global made with the given neighbourhood interval';
COMMENT ON FUNCTION uid_global_info(uid_global) IS 'the Erlang time triple, node fingerprint and sequence of a uid_global made with kid.uid_interval (fixed while the server runs)';
-- id::timestamptz (explicit): what uid_to_timestamp and
-- uid_global_to_timestamp (with kid.uid_interval) give.
CREATE CAST (uid AS timestamptz) WITH FUNCTION uid_to_timestamp(uid);
CREATE CAST (uid_global AS timestamptz) WITH FUNCTION uid_global_to_timestamp(uid_global);
COMMENT ON CAST (uid AS timestamptz) IS 'the start of the 1.024 ms step a uid was made in (uid_to_timestamp)';
COMMENT ON CAST (uid_global AS timestamptz) IS 'the start of the 1.024 ms step of a uid_global made with kid.uid_interval (uid_global_to_timestamp)';

-- Range-scan boundaries.
CREATE FUNCTION uid_from_timestamp(timestamptz) RETURNS uid
AS 'MODULE_PATHNAME', 'uid_from_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_global_from_timestamp(timestamptz, neighborhood integer)
RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_from_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_global_from_timestamp(timestamptz)
RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_from_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_from_timestamp(timestamptz) IS 'the smallest uid of a 1.024 ms step: WHERE id >= uid_from_timestamp(t) is an index range scan';
COMMENT ON FUNCTION uid_global_from_timestamp(timestamptz, integer) IS 'the smallest uid_global of a 1.024 ms step (node 0) for a neighbourhood interval';
COMMENT ON FUNCTION uid_global_from_timestamp(timestamptz) IS 'the smallest uid_global of a 1.024 ms step (node 0) with kid.uid_interval, as the uid_global-timestamptz operators use (fixed while the server runs)';

-- The library's older RFC 4648 base64url text (same bits; does not sort).
CREATE FUNCTION uid_to_base64url(uid) RETURNS text
AS 'MODULE_PATHNAME', 'uid_to_base64url' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uid_from_base64url(text) RETURNS uid
AS 'MODULE_PATHNAME', 'uid_from_base64url' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_global_to_base64url(uid_global) RETURNS text
AS 'MODULE_PATHNAME', 'uid_global_to_base64url' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uid_global_from_base64url(text) RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_from_base64url' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_to_base64url(uid) IS 'a uid in the older, unsorted RFC 4648 base64url text';
COMMENT ON FUNCTION uid_from_base64url(text) IS 'a uid from 11 base64url characters';
COMMENT ON FUNCTION uid_global_to_base64url(uid_global) IS 'a uid_global in the older, unsorted RFC 4648 base64url text';
COMMENT ON FUNCTION uid_global_from_base64url(text) IS 'a uid_global from 16 base64url characters';
