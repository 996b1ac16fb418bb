
-- ---------------------------------------------------------------------------
-- codokey: short reverse-chronological radix-36 date keys.  Each calendar
-- field is written as (max - value) in base 36, so newer dates give smaller
-- keys: ascending key order is newest first, and a shorter key of a time is
-- a prefix of a longer one.  A context (since = year zero, until = max year,
-- split max = 10^k - 1 for the fraction of a second) is shared by all keys of
-- a collection; precision 0..6 = year, month, day, hour, minute, second,
-- fraction.
-- ---------------------------------------------------------------------------

CREATE TYPE codokey;

CREATE FUNCTION codokey_in(cstring) RETURNS codokey
AS 'MODULE_PATHNAME', 'codokey_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION codokey_out(codokey) RETURNS cstring
AS 'MODULE_PATHNAME', 'codokey_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION codokey_recv(internal) RETURNS codokey
AS 'MODULE_PATHNAME', 'codokey_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION codokey_send(codokey) RETURNS bytea
AS 'MODULE_PATHNAME', 'codokey_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE codokey (
    INPUT = codokey_in,
    OUTPUT = codokey_out,
    RECEIVE = codokey_recv,
    SEND = codokey_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = plain
);

COMMENT ON TYPE codokey IS 'reverse-chronological radix-36 date key: 1 to 16 characters of 0-9a-z, ordered as bytes (newest first)';
COMMENT ON FUNCTION codokey_in(cstring) IS 'codokey text input: 1 to 16 characters of 0-9 and a-z';
COMMENT ON FUNCTION codokey_out(codokey) IS 'codokey text output';
COMMENT ON FUNCTION codokey_recv(internal) IS 'codokey binary input: the key''s characters';
COMMENT ON FUNCTION codokey_send(codokey) IS 'codokey binary output: the key''s characters';

-- A codokey is text: casting to text is free, casting from text checks the alphabet.
CREATE CAST (codokey AS text) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (text AS codokey) WITH INOUT;
COMMENT ON CAST (codokey AS text) IS 'the key''s characters';
COMMENT ON CAST (text AS codokey) IS 'a codokey from text (alphabet and length checked)';

-- Comparison: byte order.
CREATE FUNCTION codokey_lt(codokey, codokey) RETURNS boolean
AS 'MODULE_PATHNAME', 'codokey_lt' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION codokey_le(codokey, codokey) RETURNS boolean
AS 'MODULE_PATHNAME', 'codokey_le' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION codokey_eq(codokey, codokey) RETURNS boolean
AS 'MODULE_PATHNAME', 'codokey_eq' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION codokey_ne(codokey, codokey) RETURNS boolean
AS 'MODULE_PATHNAME', 'codokey_ne' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION codokey_ge(codokey, codokey) RETURNS boolean
AS 'MODULE_PATHNAME', 'codokey_ge' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION codokey_gt(codokey, codokey) RETURNS boolean
AS 'MODULE_PATHNAME', 'codokey_gt' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION codokey_cmp(codokey, codokey) RETURNS integer
AS 'MODULE_PATHNAME', 'codokey_cmp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION codokey_hash(codokey) RETURNS integer
AS 'MODULE_PATHNAME', 'codokey_hash' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION codokey_hash_extended(codokey, bigint) RETURNS bigint
AS 'MODULE_PATHNAME', 'codokey_hash_extended' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION codokey_lt(codokey, codokey) IS 'implementation of < for codokey';
COMMENT ON FUNCTION codokey_le(codokey, codokey) IS 'implementation of <= for codokey';
COMMENT ON FUNCTION codokey_eq(codokey, codokey) IS 'implementation of = for codokey';
COMMENT ON FUNCTION codokey_ne(codokey, codokey) IS 'implementation of <> for codokey';
COMMENT ON FUNCTION codokey_ge(codokey, codokey) IS 'implementation of >= for codokey';
COMMENT ON FUNCTION codokey_gt(codokey, codokey) IS 'implementation of > for codokey';
COMMENT ON FUNCTION codokey_cmp(codokey, codokey) IS 'btree comparison of codokey: byte order';
COMMENT ON FUNCTION codokey_hash(codokey) IS 'hash of a codokey';
COMMENT ON FUNCTION codokey_hash_extended(codokey, bigint) IS 'seeded 64-bit hash of a codokey (hash partitioning)';

CREATE OPERATOR < (LEFTARG = codokey, RIGHTARG = codokey, FUNCTION = codokey_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = codokey, RIGHTARG = codokey, FUNCTION = codokey_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = codokey, RIGHTARG = codokey, FUNCTION = codokey_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = codokey, RIGHTARG = codokey, FUNCTION = codokey_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = codokey, RIGHTARG = codokey, FUNCTION = codokey_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = codokey, RIGHTARG = codokey, FUNCTION = codokey_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
COMMENT ON OPERATOR < (codokey, codokey) IS 'codokey sorts first (is newer, in one context)';
COMMENT ON OPERATOR <= (codokey, codokey) IS 'codokey sorts first or equal';
COMMENT ON OPERATOR = (codokey, codokey) IS 'codokey equality';
COMMENT ON OPERATOR <> (codokey, codokey) IS 'codokey inequality';
COMMENT ON OPERATOR >= (codokey, codokey) IS 'codokey sorts last or equal';
COMMENT ON OPERATOR > (codokey, codokey) IS 'codokey sorts last (is older, in one context)';

CREATE OPERATOR CLASS codokey_ops DEFAULT FOR TYPE codokey USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 codokey_cmp(codokey, codokey),
    FUNCTION 4 btequalimage(oid);
CREATE OPERATOR CLASS codokey_hash_ops DEFAULT FOR TYPE codokey USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 codokey_hash(codokey),
    FUNCTION 2 codokey_hash_extended(codokey, bigint);
COMMENT ON OPERATOR CLASS codokey_ops USING btree IS 'btree byte order of codokey: newest first within a context';
COMMENT ON OPERATOR CLASS codokey_hash_ops USING hash IS 'hash support for codokey';

-- Encoding and decoding with an explicit context: IMMUTABLE, for indexes.
CREATE FUNCTION codokey_context_is_valid(since integer, until integer, split_max bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'codokey_context_is_valid' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION codokey_encode(t timestamptz, "precision" integer, since integer, until integer, split_max bigint)
RETURNS codokey
AS 'MODULE_PATHNAME', 'codokey_encode' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION codokey_decode_time(key codokey, since integer, until integer, split_max bigint)
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'codokey_decode_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION codokey_decode_precision(key codokey, since integer, until integer, split_max bigint)
RETURNS integer
AS 'MODULE_PATHNAME', 'codokey_decode_precision' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION codokey_decode_info(key codokey, since integer, until integer, split_max bigint,
    OUT "time" timestamptz, OUT "precision" integer, OUT year integer, OUT month integer,
    OUT day integer, OUT hour integer, OUT minute integer, OUT second integer, OUT split bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'codokey_decode_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION codokey_context_is_valid(integer, integer, bigint) IS 'whether since <= until (within the supported years) and split max is 9, 99, ..., 999999';
COMMENT ON FUNCTION codokey_encode(timestamptz, integer, integer, integer, bigint) IS 'the codokey of a time at a precision (0..6) in an explicit context';
COMMENT ON FUNCTION codokey_decode_time(codokey, integer, integer, bigint) IS 'the earliest instant a codokey covers, in an explicit context';
COMMENT ON FUNCTION codokey_decode_precision(codokey, integer, integer, bigint) IS 'the precision of a codokey (from its length), in an explicit context';
COMMENT ON FUNCTION codokey_decode_info(codokey, integer, integer, bigint) IS 'every field of a codokey, in an explicit context';

-- Named contexts: defined once, used by name, dumped by pg_dump.  Rows a
-- user adds are extension configuration data (pg_extension_config_dump);
-- the row 'default' (1970, 3265, tenths) comes with the extension.
CREATE TABLE codokey_context (
    name text PRIMARY KEY,
    since integer NOT NULL,
    until integer NOT NULL,
    split_max bigint NOT NULL,
    CONSTRAINT codokey_context_valid CHECK (@extschema@.codokey_context_is_valid(since, until, split_max))
);
INSERT INTO codokey_context VALUES ('default', 1970, 3265, 9);
SELECT pg_catalog.pg_extension_config_dump('codokey_context', 'WHERE name <> ''default''');
COMMENT ON TABLE codokey_context IS 'named codokey contexts: since (year zero), until (max year), split max (10^k - 1); keys of one collection use one context';

-- Changing a context would silently change what its keys mean: refuse it.
CREATE FUNCTION codokey_context_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF OLD.name = 'default' THEN
        RAISE EXCEPTION 'the default codokey context cannot be changed or removed'
            USING ERRCODE = 'object_in_use';
    END IF;
    IF TG_OP = 'UPDATE' AND (NEW.since, NEW.until, NEW.split_max) IS DISTINCT FROM (OLD.since, OLD.until, OLD.split_max) THEN
        RAISE EXCEPTION 'codokey context "%" cannot be changed: its keys would decode differently', OLD.name
            USING ERRCODE = 'object_in_use',
                  HINT = 'Create a context under a new name instead.';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END $$;
CREATE TRIGGER codokey_context_guard BEFORE UPDATE OR DELETE ON codokey_context
    FOR EACH ROW EXECUTE FUNCTION codokey_context_guard();
COMMENT ON FUNCTION codokey_context_guard() IS 'refuses changes to a codokey context''s numbers and to the default context';

-- A context by name; ERROR 42704 for an unknown name.
CREATE FUNCTION codokey_context_get(name text) RETURNS codokey_context
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    c @extschema@.codokey_context;
BEGIN
    SELECT * INTO c FROM @extschema@.codokey_context AS x WHERE x.name = codokey_context_get.name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'codokey context "%" does not exist', codokey_context_get.name
            USING ERRCODE = 'undefined_object',
                  HINT = 'Define it with INSERT INTO codokey_context (name, since, until, split_max) VALUES (...).';
    END IF;
    RETURN c;
END $$;
COMMENT ON FUNCTION codokey_context_get(text) IS 'a named codokey context (ERROR 42704 if there is none)';

-- Encoding and decoding with a named context (STABLE: they read the table).
CREATE FUNCTION codokey(t timestamptz, "precision" integer DEFAULT 2, context text DEFAULT 'default')
RETURNS codokey LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN (SELECT @extschema@.codokey_encode(t, "precision", (c).since, (c).until, (c).split_max)
        FROM (SELECT @extschema@.codokey_context_get(context) AS c) s);
CREATE FUNCTION codokey_to_timestamp(key codokey, context text DEFAULT 'default')
RETURNS timestamptz LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN (SELECT @extschema@.codokey_decode_time(key, (c).since, (c).until, (c).split_max)
        FROM (SELECT @extschema@.codokey_context_get(context) AS c) s);
CREATE FUNCTION codokey_precision(key codokey, context text DEFAULT 'default')
RETURNS integer LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN (SELECT @extschema@.codokey_decode_precision(key, (c).since, (c).until, (c).split_max)
        FROM (SELECT @extschema@.codokey_context_get(context) AS c) s);
CREATE FUNCTION codokey_info(key codokey, context text DEFAULT 'default',
    OUT "time" timestamptz, OUT "precision" integer, OUT year integer, OUT month integer,
    OUT day integer, OUT hour integer, OUT minute integer, OUT second integer, OUT split bigint)
RETURNS record LANGUAGE sql STABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT i.* FROM (SELECT @extschema@.codokey_context_get(context) AS c) s,
        LATERAL @extschema@.codokey_decode_info(key, (s.c).since, (s.c).until, (s.c).split_max) AS i;
END;
COMMENT ON FUNCTION codokey(timestamptz, integer, text) IS 'the codokey of a time at a precision (0..6, default 2 = day) in a named context (default ''default'')';
COMMENT ON FUNCTION codokey_to_timestamp(codokey, text) IS 'the earliest instant a codokey covers, in a named context';
COMMENT ON FUNCTION codokey_precision(codokey, text) IS 'the precision of a codokey, in a named context';
COMMENT ON FUNCTION codokey_info(codokey, text) IS 'every field of a codokey, in a named context';
