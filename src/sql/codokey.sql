
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
    -- Packable: a stored key has a 1-byte header, so a 10-character key
    -- takes 11 bytes rather than 14 plus padding.  Keys are never longer
    -- than 16 bytes, so they are never compressed or moved out of line.
    STORAGE = main
);

COMMENT ON TYPE codokey IS 'reverse-chronological radix-36 date key: 1 to 16 characters of 0-9a-z, ordered as bytes (newest first)';
COMMENT ON FUNCTION codokey_in(cstring) IS 'codokey text input: 1 to 16 characters of 0-9 and a-z';
COMMENT ON FUNCTION codokey_out(codokey) IS 'codokey text output';
COMMENT ON FUNCTION codokey_recv(internal) IS 'codokey binary input: the key''s characters';
COMMENT ON FUNCTION codokey_send(codokey) IS 'codokey binary output: the key''s characters';

-- Casts.  codokey -> text is binary (the key's characters) but only an
-- assignment cast: an implicit one would turn `key = $1` with a text-typed
-- parameter into a text comparison that no codokey index serves (a silent
-- sequential scan), and makes `key || 'x'` ambiguous.  The other way text
-- and varchar are implicit, as for the id types (src/sql/id_type.sql.in):
-- `key = $1` with a text or varchar parameter (pgJDBC's setString) and
-- `key = ANY($1)` with a text[] compare codokeys; text = text and the other
-- ordinary string expressions still resolve to text.
CREATE CAST (codokey AS text) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (text AS codokey) WITH INOUT AS IMPLICIT;
CREATE CAST (varchar AS codokey) WITH INOUT AS IMPLICIT;
COMMENT ON CAST (codokey AS text) IS 'the key''s characters (assignment cast)';
COMMENT ON CAST (text AS codokey) IS 'a codokey from text, alphabet and length checked (implicit: string parameters of drivers)';
COMMENT ON CAST (varchar AS codokey) IS 'a codokey from varchar, alphabet and length checked (implicit: pgJDBC setString sends varchar)';

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
CREATE FUNCTION codokey_sortsupport(internal) RETURNS void
AS 'MODULE_PATHNAME', 'codokey_sortsupport' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
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
COMMENT ON FUNCTION codokey_sortsupport(internal) IS 'sort support for codokey: byte comparison without a function call';
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

-- min is the newest key of a context, max the oldest.
CREATE FUNCTION codokey_smaller(codokey, codokey) RETURNS codokey
AS 'MODULE_PATHNAME', 'codokey_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION codokey_larger(codokey, codokey) RETURNS codokey
AS 'MODULE_PATHNAME', 'codokey_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(codokey) (SFUNC = codokey_smaller, STYPE = codokey, SORTOP = <, COMBINEFUNC = codokey_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(codokey) (SFUNC = codokey_larger, STYPE = codokey, SORTOP = >, COMBINEFUNC = codokey_larger, PARALLEL = SAFE);
COMMENT ON FUNCTION codokey_smaller(codokey, codokey) IS 'the smaller of two codokeys (the newer, in one context)';
COMMENT ON FUNCTION codokey_larger(codokey, codokey) IS 'the larger of two codokeys (the older, in one context)';
COMMENT ON AGGREGATE min(codokey) IS 'the smallest codokey: the newest, in one context';
COMMENT ON AGGREGATE max(codokey) IS 'the largest codokey: the oldest, in one context';

-- Pattern matching on the key's characters (no implicit cast to text does
-- it for us).  text LIKE in C (src/pg/codokey.cpp says why not inlined SQL);
-- a prefix is better written as a range that the btree serves:
-- key >= 'yj0' AND key < 'yj1'.
CREATE FUNCTION codokey_like(codokey, text) RETURNS boolean
AS 'MODULE_PATHNAME', 'codokey_like' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION codokey_not_like(codokey, text) RETURNS boolean
AS 'MODULE_PATHNAME', 'codokey_not_like' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION codokey_like(codokey, text) IS 'implementation of LIKE for codokey';
COMMENT ON FUNCTION codokey_not_like(codokey, text) IS 'implementation of NOT LIKE for codokey';
CREATE OPERATOR ~~ (LEFTARG = codokey, RIGHTARG = text, FUNCTION = codokey_like,
    NEGATOR = !~~, RESTRICT = likesel, JOIN = likejoinsel);
CREATE OPERATOR !~~ (LEFTARG = codokey, RIGHTARG = text, FUNCTION = codokey_not_like,
    NEGATOR = ~~, RESTRICT = nlikesel, JOIN = nlikejoinsel);
COMMENT ON OPERATOR ~~ (codokey, text) IS 'codokey matches a LIKE pattern';
COMMENT ON OPERATOR !~~ (codokey, text) IS 'codokey does not match a LIKE pattern';

CREATE OPERATOR CLASS codokey_ops DEFAULT FOR TYPE codokey USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 codokey_cmp(codokey, codokey),
    FUNCTION 2 codokey_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);
CREATE OPERATOR CLASS codokey_hash_ops DEFAULT FOR TYPE codokey USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 codokey_hash(codokey),
    FUNCTION 2 codokey_hash_extended(codokey, bigint);
COMMENT ON OPERATOR CLASS codokey_ops USING btree IS 'btree byte order of codokey: newest first within a context';
COMMENT ON OPERATOR CLASS codokey_hash_ops USING hash IS 'hash support for codokey';

-- Encoding and decoding with an explicit context (since, until, split max).
-- IMMUTABLE: a key depends only on the time's UTC fields and the numbers,
-- so these can serve index expressions and generated columns.
CREATE FUNCTION codokey_context_check(since integer, until integer, split_max bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'codokey_context_check' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
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
COMMENT ON FUNCTION codokey_context_check(integer, integer, bigint) IS 'true for a valid codokey context (since <= until, both within years -290307..294246, split max 9, 99, ..., 999999); otherwise ERROR 22023 naming the problem';
COMMENT ON FUNCTION codokey_encode(timestamptz, integer, integer, integer, bigint) IS 'the codokey of a time at a precision (0..6) in an explicit context (since, until, split max)';
COMMENT ON FUNCTION codokey_decode_time(codokey, integer, integer, bigint) IS 'the earliest instant a codokey covers, in an explicit context';
COMMENT ON FUNCTION codokey_decode_precision(codokey, integer, integer, bigint) IS 'the precision of a codokey (from its length), in an explicit context';
COMMENT ON FUNCTION codokey_decode_info(codokey, integer, integer, bigint) IS 'every field of a codokey, in an explicit context';

-- Named contexts: defined once with INSERT, used by name, dumped by
-- pg_dump.  The table is extension configuration (pg_extension_config_dump):
-- pg_dump writes the rows users added; the row 'default' (1970, 3265,
-- tenths) comes with CREATE EXTENSION and is not dumped, so a restore does
-- not duplicate it.  Everyone may read the contexts; adding one is for the
-- table's owner (the role that created the extension) and the roles it
-- grants INSERT to, because a context is a database-wide name that other
-- applications' keys may depend on.
CREATE TABLE codokey_context (
    name text PRIMARY KEY,
    since integer NOT NULL,
    until integer NOT NULL,
    split_max bigint NOT NULL,
    CONSTRAINT codokey_context_valid CHECK (@extschema@.codokey_context_check(since, until, split_max))
);
INSERT INTO codokey_context VALUES ('default', 1970, 3265, 9);
SELECT pg_catalog.pg_extension_config_dump('codokey_context', 'WHERE name <> ''default''');
GRANT SELECT ON codokey_context TO PUBLIC;
COMMENT ON TABLE codokey_context IS 'named codokey contexts: keys of one collection are encoded and decoded with one context';
COMMENT ON COLUMN codokey_context.name IS 'the name passed to codokey(), codokey_to_timestamp(), codokey_precision() and codokey_info()';
COMMENT ON COLUMN codokey_context.since IS 'year zero: the oldest year, written as the largest year digits';
COMMENT ON COLUMN codokey_context.until IS 'the newest year, written as year digits 0';
COMMENT ON COLUMN codokey_context.split_max IS '10^k - 1 (9, 99, ..., 999999): the split field holds k decimal digits of the second';
COMMENT ON CONSTRAINT codokey_context_valid ON codokey_context IS 'since <= until within the supported years, and split max is 10^k - 1 (ERROR 22023 otherwise)';

-- A name, once defined, means one context for as long as the extension
-- exists: keys are stored without their context, and a collection finds
-- its numbers by name.  Changing a context's numbers, deleting it and
-- inserting the name again with other numbers, or renaming or swapping
-- names would each silently change what existing keys mean, so every
-- UPDATE that changes a row and every DELETE is refused; TRUNCATE too (it
-- would also remove the default).  A context defined by mistake stays;
-- define the right one under a new name.  pg_dump and pg_restore only
-- insert.  The guard is a rule of the extension, not a security boundary:
-- the table's owner (the role that created the extension, a superuser) can
-- disable the triggers, and a superuser can skip them with
-- session_replication_role = replica.  Names quoted in messages are cut
-- to 200 characters.
CREATE FUNCTION codokey_context_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    shown text;
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION 'codokey contexts cannot be truncated: a context, once defined, stays'
            USING ERRCODE = 'object_in_use',
                  DETAIL = 'Keys made with a context would no longer decode, or would decode differently if its name were defined again.';
    END IF;
    shown := CASE WHEN length(OLD.name) > 200 THEN left(OLD.name, 200) || '...' ELSE OLD.name END;
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'codokey context "%" cannot be deleted: a context, once defined, stays', shown
            USING ERRCODE = 'object_in_use',
                  DETAIL = 'Keys made with it would no longer decode, or would decode differently if the name were defined again.',
                  HINT = 'A context defined by mistake can stay unused; define the intended one under a new name.';
    END IF;
    IF (NEW.name, NEW.since, NEW.until, NEW.split_max) IS DISTINCT FROM (OLD.name, OLD.since, OLD.until, OLD.split_max) THEN
        RAISE EXCEPTION 'codokey context "%" cannot be changed: its keys would decode differently', shown
            USING ERRCODE = 'object_in_use',
                  DETAIL = 'A context''s name and numbers never change once it is defined.',
                  HINT = 'Define a context under a new name instead.';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER codokey_context_guard BEFORE UPDATE OR DELETE ON codokey_context
    FOR EACH ROW EXECUTE FUNCTION codokey_context_guard();
CREATE TRIGGER codokey_context_no_truncate BEFORE TRUNCATE ON codokey_context
    FOR EACH STATEMENT EXECUTE FUNCTION codokey_context_guard();
COMMENT ON FUNCTION codokey_context_guard() IS 'refuses any change of a codokey context''s name or numbers, any DELETE and TRUNCATE (ERROR 55006): a name means one context forever';
COMMENT ON TRIGGER codokey_context_guard ON codokey_context IS 'a context, once defined, is never changed, renamed or deleted';
COMMENT ON TRIGGER codokey_context_no_truncate ON codokey_context IS 'TRUNCATE would remove every context, the default included';

-- The named-context functions look a context up with a LEFT JOIN from the
-- name, so that an unknown name reaches codokey_context_missing, which
-- raises ERROR 42704.  (A PL/pgSQL lookup per call was four times slower.)
CREATE FUNCTION codokey_context_missing(name text) RETURNS integer
LANGUAGE plpgsql VOLATILE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'codokey context "%" does not exist',
            CASE WHEN length(name) > 200 THEN left(name, 200) || '...' ELSE name END
        USING ERRCODE = 'undefined_object',
              HINT = 'Define it with INSERT INTO codokey_context (name, since, until, split_max) VALUES (...).';
END $$;
COMMENT ON FUNCTION codokey_context_missing(text) IS 'raises ERROR 42704 for an unknown codokey context name (used by the named-context functions)';

CREATE FUNCTION codokey_context_get(name text) RETURNS codokey_context
LANGUAGE sql STABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT v.n, COALESCE(c.since, @extschema@.codokey_context_missing(v.n)), c.until, c.split_max
    FROM (VALUES (name)) AS v(n) LEFT JOIN @extschema@.codokey_context AS c ON c.name = v.n;
END;
COMMENT ON FUNCTION codokey_context_get(text) IS 'a named codokey context (ERROR 42704 if there is none)';

-- Encoding and decoding with a named context (STABLE: they read the table).
-- The bodies are parsed when the extension is created, so no search_path
-- can redirect what they call.
CREATE FUNCTION codokey(t timestamptz, "precision" integer DEFAULT 2, context text DEFAULT 'default')
RETURNS codokey LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN (SELECT @extschema@.codokey_encode(t, "precision",
            COALESCE(c.since, @extschema@.codokey_context_missing(v.n)), c.until, c.split_max)
        FROM (VALUES (context)) AS v(n) LEFT JOIN @extschema@.codokey_context AS c ON c.name = v.n);
CREATE FUNCTION codokey_to_timestamp(key codokey, context text DEFAULT 'default')
RETURNS timestamptz LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN (SELECT @extschema@.codokey_decode_time(key,
            COALESCE(c.since, @extschema@.codokey_context_missing(v.n)), c.until, c.split_max)
        FROM (VALUES (context)) AS v(n) LEFT JOIN @extschema@.codokey_context AS c ON c.name = v.n);
CREATE FUNCTION codokey_precision(key codokey, context text DEFAULT 'default')
RETURNS integer LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN (SELECT @extschema@.codokey_decode_precision(key,
            COALESCE(c.since, @extschema@.codokey_context_missing(v.n)), c.until, c.split_max)
        FROM (VALUES (context)) AS v(n) LEFT JOIN @extschema@.codokey_context AS c ON c.name = v.n);
CREATE FUNCTION codokey_info(key codokey, context text DEFAULT 'default',
    OUT "time" timestamptz, OUT "precision" integer, OUT year integer, OUT month integer,
    OUT day integer, OUT hour integer, OUT minute integer, OUT second integer, OUT split bigint)
RETURNS record LANGUAGE sql STABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT i.*
    FROM (VALUES (context)) AS v(n) LEFT JOIN @extschema@.codokey_context AS c ON c.name = v.n,
        LATERAL @extschema@.codokey_decode_info(key,
            COALESCE(c.since, @extschema@.codokey_context_missing(v.n)), c.until, c.split_max) AS i;
END;
COMMENT ON FUNCTION codokey(timestamptz, integer, text) IS 'the codokey of a time at a precision (0..6, default 2 = day) in a named context (default ''default'')';
COMMENT ON FUNCTION codokey_to_timestamp(codokey, text) IS 'the earliest instant a codokey covers, in a named context';
COMMENT ON FUNCTION codokey_precision(codokey, text) IS 'the precision of a codokey (0..6, from its length), in a named context';
COMMENT ON FUNCTION codokey_info(codokey, text) IS 'every field of a codokey and the earliest instant it covers, in a named context';
