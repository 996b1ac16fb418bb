
-- ---------------------------------------------------------------------------
-- Commit horizon: reading a table by id without missing a row
-- ---------------------------------------------------------------------------
-- Ids are ordered when they are made, not when their transaction commits: a
-- consumer that reads "id > the largest id I saw" misses a row made earlier
-- and committed later.  <scheme>_safe_horizon() returns an id H below which
-- no id of that generator on this server can still appear: none made in a
-- transaction that is still open (or prepared), none made later.  The
-- protocol (docs/horizon.md): read H in one statement, then read
-- cursor <= id < H in a later statement (READ COMMITTED), then cursor := H.
-- Not covered: ids made with *_new_with_time or given by a client, ids made
-- in one transaction and written in another, other servers' ids (keep a
-- cursor per node).  On a standby: ERROR 55000 (call it on the primary).

CREATE FUNCTION sno_safe_horizon() RETURNS @extschema@.sno
AS 'MODULE_PATHNAME', 'sno_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION sno_safe_horizon() IS
'The commit horizon of sno_new() on this server: no sno made here in a transaction not yet committed, or made later, is below it. The smallest sno of a 4 ms unit at or before the clock; read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';

CREATE FUNCTION tid_safe_horizon() RETURNS @extschema@.atproto_tid
AS 'MODULE_PATHNAME', 'tid_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION tid_safe_horizon() IS
'The commit horizon of tid_new() on this server: no atproto_tid made here in a transaction not yet committed, or made later, is below it (clock id 0 of a microsecond); read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';

CREATE FUNCTION koid_safe_horizon() RETURNS @extschema@.koid
AS 'MODULE_PATHNAME', 'koid_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION koid_safe_horizon() IS
'The commit horizon of koid_new() on this server: no koid made here in a transaction not yet committed, or made later, is below it; read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';

CREATE FUNCTION uid_safe_horizon() RETURNS @extschema@.uid
AS 'MODULE_PATHNAME', 'uid_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION uid_safe_horizon() IS
'The commit horizon of uid_new() on this server: no uid made here in a transaction not yet committed, or made later, is below it; read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';

CREATE FUNCTION uid_global_safe_horizon() RETURNS @extschema@.uid_global
AS 'MODULE_PATHNAME', 'uid_global_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION uid_global_safe_horizon() IS
'The commit horizon of uid_global_new() on this server (with this server''s node field, under kid.uid_interval): no uid_global made here in a transaction not yet committed, or made later, is below it; read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';

CREATE FUNCTION uuidv7_safe_horizon() RETURNS uuid
AS 'MODULE_PATHNAME', 'uuidv7_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION uuidv7_safe_horizon() IS
'The commit horizon of uuidv7_new() on this server: no uuid made here by uuidv7_new() in a transaction not yet committed, or made later, is below it. The smallest version 7 uuid of a millisecond at or before the clock; read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';
