
-- ---------------------------------------------------------------------------
-- tid: the AT Protocol timestamp identifier, as type atproto_tid (the name
-- tid is PostgreSQL's own tuple identifier, pg_catalog.tid, which always
-- comes first on the search path).  64 bits: 0, 53-bit microseconds since
-- 1970, 10-bit clock id; compared unsigned.  Generation, decoding, casts to
-- bigint, and the protocol's record-key syntax.
-- ---------------------------------------------------------------------------
@id_type atproto_tid@

-- Generation: one microsecond counter per server in shared memory, advanced
-- by compare-and-swap; the clock id is kid.node_id.  PARALLEL SAFE: a
-- parallel worker advances the same counter.
CREATE FUNCTION tid_new() RETURNS atproto_tid
AS 'MODULE_PATHNAME', 'tid_new' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tid_new() IS
'a new unique AT Protocol tid: microseconds strictly increasing across the server, clock id = kid.node_id; needs kid in shared_preload_libraries';

-- Backfills: a tid carrying a given time (its microsecond).  The clock id
-- comes from ONE server-wide backfill sequence (shared memory, fetch-and-add
-- from any backend, started at a random value at server start), whatever
-- the time, and skips kid.node_id.  Promised: ids for one time are distinct
-- among any 1023 consecutive calls of this function on this server (since
-- its start); and while kid.node_id is unchanged (it may change at a
-- restart), a backfill id never equals a tid_new() id of this server (those
-- carry kid.node_id).  NOT promised: beyond 1023 calls two ids for one time
-- may be equal, whatever times the calls between them had (the clock id is
-- the sequence mod 1023, not a count per microsecond); after a restart the
-- sequence starts at a random place; a backfill id can equal a tid of
-- another server.  Keep a unique index and retry (INSERT ... ON CONFLICT DO
-- NOTHING, then make the missing ones again).  VOLATILE and PARALLEL SAFE
-- like tid_new().
CREATE FUNCTION tid_new_with_time(at timestamptz) RETURNS atproto_tid
AS 'MODULE_PATHNAME', 'tid_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tid_new_with_time(timestamptz) IS
'a tid carrying a given time (backfills): clock id from one server-wide sequence, never kid.node_id (so, while kid.node_id is unchanged, never equal to a tid_new() id of this server); ids for one time are distinct among any 1023 consecutive calls on this server, beyond that two may be equal: keep a unique index and retry';

-- Decoding.
CREATE FUNCTION tid_to_timestamp(atproto_tid) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'tid_to_timestamp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION tid_clock_id(atproto_tid) RETURNS integer
AS 'MODULE_PATHNAME', 'tid_clock_id' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION tid_info(id atproto_tid,
    OUT "time" timestamptz, OUT unix_us bigint, OUT clock_id integer, OUT high_bit boolean)
RETURNS record
AS 'MODULE_PATHNAME', 'tid_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tid_to_timestamp(atproto_tid) IS 'the microsecond a tid was made in (bits 62..10)';
COMMENT ON FUNCTION tid_clock_id(atproto_tid) IS 'the clock id of a tid (0..1023)';
COMMENT ON FUNCTION tid_info(atproto_tid) IS 'every field of a tid, and whether bit 63 is set';
-- id::timestamptz (explicit): what tid_to_timestamp gives.
CREATE CAST (atproto_tid AS timestamptz) WITH FUNCTION tid_to_timestamp(atproto_tid);
COMMENT ON CAST (atproto_tid AS timestamptz) IS 'the microsecond a tid was made in (tid_to_timestamp)';

-- Range-scan boundary.
CREATE FUNCTION tid_from_timestamp(timestamptz) RETURNS atproto_tid
AS 'MODULE_PATHNAME', 'tid_from_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tid_from_timestamp(timestamptz) IS
'the smallest tid of a microsecond (clock id 0): WHERE id >= tid_from_timestamp(t) is an index range scan';

-- Record keys.
CREATE FUNCTION atproto_rkey_is_valid(text) RETURNS boolean
AS 'MODULE_PATHNAME', 'atproto_rkey_is_valid' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION atproto_rkey_is_valid(text) IS
'whether a text is a valid AT Protocol record key: 1 to 512 characters of A-Za-z0-9 . - _ : ~, not "." or ".."';
CREATE DOMAIN atproto_rkey AS text
    CONSTRAINT atproto_rkey_syntax CHECK (@extschema@.atproto_rkey_is_valid(VALUE));
COMMENT ON DOMAIN atproto_rkey IS 'an AT Protocol record key (text checked by atproto_rkey_is_valid)';

-- The commit horizon of its generator (src/sql/id_types.sql, docs/horizon.md).
CREATE FUNCTION tid_safe_horizon() RETURNS @extschema@.atproto_tid
AS 'MODULE_PATHNAME', 'tid_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION tid_safe_horizon() IS
'The commit horizon of tid_new() on this server: no atproto_tid made here in a transaction not yet committed, or made later, is below it (clock id 0 of a microsecond); read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';

-- Its row of kid's list of id types.
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('@extschema@.atproto_tid', 'tid', 'atproto_tid', '{atproto_tid}', 'tid_to_timestamp', 'tid_from_timestamp', '{tid_new}', 'tid_safe_horizon');
