-- kid 0.1.0 -> 0.2.0: run by ALTER EXTENSION kid UPDATE.
-- Written by hand (CONTRIBUTING.md, "Upgrades"): every object 0.2.0 adds or
-- changes, with its COMMENT and privileges, in the order of the install script.

\echo Use "ALTER EXTENSION kid UPDATE TO '0.2.0'" to load this file. \quit

-- Strings where ids are expected: text and varchar cast to every type
-- implicitly, so that drivers' string parameters (pgJDBC's setString sends
-- varchar, psycopg2's list of str a text[]) compare with and store into id
-- columns (src/sql/id_type.sql.in says why this resolves no ordinary string
-- expression differently).
CREATE CAST (text AS sno) WITH INOUT AS IMPLICIT;
CREATE CAST (varchar AS sno) WITH INOUT AS IMPLICIT;
COMMENT ON CAST (text AS sno) IS 'a sno from its text form (implicit: string parameters of drivers)';
COMMENT ON CAST (varchar AS sno) IS 'a sno from its text form (implicit: pgJDBC setString sends varchar)';
CREATE CAST (text AS atproto_tid) WITH INOUT AS IMPLICIT;
CREATE CAST (varchar AS atproto_tid) WITH INOUT AS IMPLICIT;
COMMENT ON CAST (text AS atproto_tid) IS 'a atproto_tid from its text form (implicit: string parameters of drivers)';
COMMENT ON CAST (varchar AS atproto_tid) IS 'a atproto_tid from its text form (implicit: pgJDBC setString sends varchar)';
CREATE CAST (text AS koid) WITH INOUT AS IMPLICIT;
CREATE CAST (varchar AS koid) WITH INOUT AS IMPLICIT;
COMMENT ON CAST (text AS koid) IS 'a koid from its text form (implicit: string parameters of drivers)';
COMMENT ON CAST (varchar AS koid) IS 'a koid from its text form (implicit: pgJDBC setString sends varchar)';
CREATE CAST (text AS uid) WITH INOUT AS IMPLICIT;
CREATE CAST (varchar AS uid) WITH INOUT AS IMPLICIT;
COMMENT ON CAST (text AS uid) IS 'a uid from its text form (implicit: string parameters of drivers)';
COMMENT ON CAST (varchar AS uid) IS 'a uid from its text form (implicit: pgJDBC setString sends varchar)';
CREATE CAST (text AS uid_global) WITH INOUT AS IMPLICIT;
CREATE CAST (varchar AS uid_global) WITH INOUT AS IMPLICIT;
COMMENT ON CAST (text AS uid_global) IS 'a uid_global from its text form (implicit: string parameters of drivers)';
COMMENT ON CAST (varchar AS uid_global) IS 'a uid_global from its text form (implicit: pgJDBC setString sends varchar)';
-- codokey's cast from text was explicit: a cast's context cannot be
-- altered, so it is made again (no column or index depends on a cast).
DROP CAST (text AS codokey);
CREATE CAST (text AS codokey) WITH INOUT AS IMPLICIT;
CREATE CAST (varchar AS codokey) WITH INOUT AS IMPLICIT;
COMMENT ON CAST (text AS codokey) IS 'a codokey from text, alphabet and length checked (implicit: string parameters of drivers)';
COMMENT ON CAST (varchar AS codokey) IS 'a codokey from varchar, alphabet and length checked (implicit: pgJDBC setString sends varchar)';

-- koid from integers by assignment (INSERT and UPDATE of an integer), not
-- implicitly: the bigint cast is made again with the new context.
DROP CAST (bigint AS koid);
CREATE FUNCTION koid_from_integer(value integer) RETURNS koid
LANGUAGE sql IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
RETURN @extschema@.koid_from_bigint(value);
CREATE CAST (bigint AS koid) WITH FUNCTION koid_from_bigint(bigint) AS ASSIGNMENT;
CREATE CAST (integer AS koid) WITH FUNCTION koid_from_integer(integer) AS ASSIGNMENT;
COMMENT ON FUNCTION koid_from_integer(integer) IS 'a koid from an integer, sign-extended to 64 bits as by bigint';
COMMENT ON CAST (bigint AS koid) IS 'a koid from the 64 bits of a bigint (assignment cast)';
COMMENT ON CAST (integer AS koid) IS 'a koid from an integer, sign-extended to 64 bits (assignment cast)';

-- id::timestamptz, explicit, through each type's decoder.  Never the other
-- way: a time is not an id (src/sql/id_type.sql.in).
CREATE CAST (sno AS timestamptz) WITH FUNCTION sno_to_timestamp(sno);
COMMENT ON CAST (sno AS timestamptz) IS 'the start of the 4 ms unit an sno was made in (sno_to_timestamp)';
CREATE CAST (atproto_tid AS timestamptz) WITH FUNCTION tid_to_timestamp(atproto_tid);
COMMENT ON CAST (atproto_tid AS timestamptz) IS 'the microsecond a tid was made in (tid_to_timestamp)';
CREATE CAST (koid AS timestamptz) WITH FUNCTION koid_to_timestamp(koid);
COMMENT ON CAST (koid AS timestamptz) IS 'the millisecond a koid was made in, epoch kid.koid_epoch_ms (koid_to_timestamp)';
CREATE CAST (uid AS timestamptz) WITH FUNCTION uid_to_timestamp(uid);
CREATE CAST (uid_global AS timestamptz) WITH FUNCTION uid_global_to_timestamp(uid_global);
COMMENT ON CAST (uid AS timestamptz) IS 'the start of the 1.024 ms step a uid was made in (uid_to_timestamp)';
COMMENT ON CAST (uid_global AS timestamptz) IS 'the start of the 1.024 ms step of a uid_global made with kid.uid_interval (uid_global_to_timestamp)';

-- Ids carrying a given time, for backfills (sno has sno_new_with_time):
-- what each promises is in its scheme's part of the install script.
CREATE FUNCTION tid_new_with_time(at timestamptz) RETURNS atproto_tid
AS 'MODULE_PATHNAME', 'tid_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tid_new_with_time(timestamptz) IS
'a tid carrying a given time (backfills): clock id from a server-wide sequence, never kid.node_id, so never equal to a tid_new() id of this server; distinct up to 1023 per microsecond, NOT guaranteed unique beyond (restarts, other servers)';
CREATE FUNCTION koid_new_with_time(at timestamptz) RETURNS koid
AS 'MODULE_PATHNAME', 'koid_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION koid_new_with_time(timestamptz) IS
'a koid carrying a given time (backfills): this server''s generator id, counter from a server-wide sequence; distinct up to 4096 per millisecond, NOT guaranteed unique beyond (restarts, koid_new() ids of the same millisecond)';
CREATE FUNCTION uid_new_with_time(at timestamptz) RETURNS uid
AS 'MODULE_PATHNAME', 'uid_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_global_new_with_time(at timestamptz) RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_new_with_time(timestamptz) IS
'a uid carrying a given time (backfills): sequence from a server-wide backfill sequence; distinct up to 16384 per 1.024 ms step, NOT guaranteed unique beyond (restarts, uid_new() ids of the same step)';
COMMENT ON FUNCTION uid_global_new_with_time(timestamptz) IS
'a uid_global carrying a given time (backfills): this server''s fingerprint and kid.uid_interval, sequence from a server-wide backfill sequence; distinct up to 16384 per step, NOT guaranteed unique beyond (restarts, uid_global_new() ids of the same step)';
