
-- ---------------------------------------------------------------------------
-- uuid: kid's time order on PostgreSQL's own uuid type, for time-ordered
-- (version 7, RFC 9562) uuids.  No new type: comparison operators between
-- uuid and timestamptz join PostgreSQL's uuid btree and BRIN families, so
-- that on a uuid column kept as it is, WHERE id >= now() - interval '1 hour'
-- is an index range scan, whoever made the version 7 values (kid, core
-- PostgreSQL 18's uuidv7(), a driver).  Decoding and the range bound.
-- ---------------------------------------------------------------------------

-- Decoding.  A version 7 uuid starts with its 48-bit Unix time in
-- milliseconds.  Any other uuid (a version 4 one, the nil uuid, a uuid whose
-- variant is not RFC 9562's) carries no such time: NULL, as PostgreSQL 17's
-- uuid_extract_timestamp() answers for a version it cannot decode.  It never
-- raises, hence LEAKPROOF.
CREATE FUNCTION uuidv7_to_timestamp(uuid) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'uuidv7_to_timestamp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_to_timestamp(uuid) IS
'the millisecond a version 7 uuid was made in (its first 48 bits); NULL for a uuid that is not version 7 of the RFC 9562 variant';

-- The same for a uuid written as text, which is how pg_partman 5.2 to 5.4
-- call the time decoder they are given (run_maintenance() passes the
-- smallest id of a partition as id::text): with p_time_decoder =>
-- 'uuidv7_to_timestamp' it then finds this one.  An untyped literal,
-- uuidv7_to_timestamp('0190...'), now resolves to it too (the string
-- category is preferred), with the same answer.  Not LEAKPROOF: a text that
-- is not a uuid is an error (22P02).
CREATE FUNCTION uuidv7_to_timestamp(text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN @extschema@.uuidv7_to_timestamp($1::pg_catalog.uuid);
COMMENT ON FUNCTION uuidv7_to_timestamp(text) IS
'uuidv7_to_timestamp(uuid) of a uuid written as text (for tools that pass ids as text, such as pg_partman''s time decoder); 22P02 when the text is not a uuid';

-- Generation (layout, guarantees and what an attacker learns: docs/types.md,
-- "uuid").  uuidv7_new() draws from this backend's generator on the
-- backend's id partition (one of 256 per server): unique by construction
-- across the backends of a server and across servers with distinct
-- kid.node_id, strictly increasing within a backend, in millisecond order
-- across backends, never below the lease.  PARALLEL RESTRICTED like
-- sno_new(): a parallel worker would claim a partition of its own.
CREATE FUNCTION uuidv7_new() RETURNS uuid
AS 'MODULE_PATHNAME', 'uuidv7_new' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION uuidv7_new() IS
'a new RFC 9562 version 7 uuid: Unix millisecond, per-backend counter, kid.node_id, the backend''s partition, 44 keyed-random bits; unique by construction, increasing within a backend; needs kid in shared_preload_libraries';

-- Backfills: a version 7 uuid carrying a given time (its millisecond) and
-- 74 bits of this backend's keyed random stream.  Unique by chance only, as
-- PostgreSQL 18's uuidv7(shift) is: keep a unique index.  Needs no preload
-- and no id partition, hence PARALLEL SAFE.
CREATE FUNCTION uuidv7_new_with_time(at timestamptz) RETURNS uuid
AS 'MODULE_PATHNAME', 'uuidv7_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_new_with_time(timestamptz) IS
'a version 7 uuid carrying a given time (backfills): its millisecond and 74 keyed-random bits; unique by chance, not by construction: keep a unique index';

-- Range-scan boundary.
CREATE FUNCTION uuidv7_from_timestamp(timestamptz) RETURNS uuid
AS 'MODULE_PATHNAME', 'uuidv7_from_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_from_timestamp(timestamptz) IS
'the smallest version 7 uuid of a millisecond (version and variant bits set, every other bit 0): WHERE id >= uuidv7_from_timestamp(t) is an index range scan';

-- Range scans by time.  uuid's btree order is the order of its 16 bytes
-- (memcmp), and a btree family must be one total order over all its types.
-- So a time is placed by the raw first 48 bits of every uuid, whatever its
-- version: a timestamptz t sorts just below the uuids whose first 48 bits
-- are t's Unix millisecond (just below uuidv7_from_timestamp(t)), above
-- every uuid whose first 48 bits are smaller.  Only that definition keeps
-- the order transitive: if u1 < u2 as bytes, u1's first 48 bits are at most
-- u2's, so no time can fall above u2 and below u1.  A rule that placed
-- non-version-7 uuids elsewhere (all below every time, say) would put a
-- version 4 uuid both above a version 7 one (by its bytes) and below a time
-- the version 7 one is above: btree would then find some rows and miss
-- others.  For a version 7 uuid the first 48 bits are its time, so
--   id >= t, id > t     id was made in or after t's millisecond
--   id < t, id <= t     id was made before t's millisecond
--   id = t              never true, id <> t always
-- A version 4 uuid's first 48 bits are random: it sorts at a random "time"
-- between 1970 and 10889, after now for 99.4% of them, so in a column that
-- mixes versions a time range also returns most version 4 rows; add
-- AND uuidv7_to_timestamp(id) IS NOT NULL to keep only version 7 ones.
-- Times before 1970 sort below every uuid, times from 10889-08-02 05:31:50.656
-- (2^48 ms) on (and infinity) above every uuid.
CREATE FUNCTION uuid_lt_timestamptz(uuid, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'uuid_lt_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uuid_le_timestamptz(uuid, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'uuid_le_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uuid_eq_timestamptz(uuid, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'uuid_eq_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uuid_ne_timestamptz(uuid, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'uuid_ne_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uuid_ge_timestamptz(uuid, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'uuid_ge_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uuid_gt_timestamptz(uuid, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'uuid_gt_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION uuid_cmp_timestamptz(uuid, timestamptz) RETURNS integer
AS 'MODULE_PATHNAME', 'uuid_cmp_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_lt_uuid(timestamptz, uuid) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_lt_uuid' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_le_uuid(timestamptz, uuid) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_le_uuid' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_eq_uuid(timestamptz, uuid) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_eq_uuid' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_ne_uuid(timestamptz, uuid) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_ne_uuid' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_ge_uuid(timestamptz, uuid) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_ge_uuid' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_gt_uuid(timestamptz, uuid) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_gt_uuid' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_cmp_uuid(timestamptz, uuid) RETURNS integer
AS 'MODULE_PATHNAME', 'timestamptz_cmp_uuid' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;

COMMENT ON FUNCTION uuid_lt_timestamptz(uuid, timestamptz) IS 'implementation of uuid < timestamptz';
COMMENT ON FUNCTION uuid_le_timestamptz(uuid, timestamptz) IS 'implementation of uuid <= timestamptz';
COMMENT ON FUNCTION uuid_eq_timestamptz(uuid, timestamptz) IS 'implementation of uuid = timestamptz';
COMMENT ON FUNCTION uuid_ne_timestamptz(uuid, timestamptz) IS 'implementation of uuid <> timestamptz';
COMMENT ON FUNCTION uuid_ge_timestamptz(uuid, timestamptz) IS 'implementation of uuid >= timestamptz';
COMMENT ON FUNCTION uuid_gt_timestamptz(uuid, timestamptz) IS 'implementation of uuid > timestamptz';
COMMENT ON FUNCTION uuid_cmp_timestamptz(uuid, timestamptz) IS 'btree comparison of a uuid with a time, which sorts just below the uuids whose first 48 bits are its Unix millisecond: -1 or 1, never 0';
COMMENT ON FUNCTION timestamptz_lt_uuid(timestamptz, uuid) IS 'implementation of timestamptz < uuid';
COMMENT ON FUNCTION timestamptz_le_uuid(timestamptz, uuid) IS 'implementation of timestamptz <= uuid';
COMMENT ON FUNCTION timestamptz_eq_uuid(timestamptz, uuid) IS 'implementation of timestamptz = uuid';
COMMENT ON FUNCTION timestamptz_ne_uuid(timestamptz, uuid) IS 'implementation of timestamptz <> uuid';
COMMENT ON FUNCTION timestamptz_ge_uuid(timestamptz, uuid) IS 'implementation of timestamptz >= uuid';
COMMENT ON FUNCTION timestamptz_gt_uuid(timestamptz, uuid) IS 'implementation of timestamptz > uuid';
COMMENT ON FUNCTION timestamptz_cmp_uuid(timestamptz, uuid) IS 'btree comparison of a time, which sorts just below the uuids whose first 48 bits are its Unix millisecond, with a uuid: -1 or 1, never 0';

-- As for kid's own types (src/sql/id_type.sql.in): the two = are MERGES,
-- because every equality member of a btree family must be.  An untyped
-- literal still reads as a uuid: for id = '...' PostgreSQL first tries the
-- literal as the other side's type, and uuid = uuid exists.
CREATE OPERATOR < (LEFTARG = uuid, RIGHTARG = timestamptz, FUNCTION = uuid_lt_timestamptz,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = uuid, RIGHTARG = timestamptz, FUNCTION = uuid_le_timestamptz,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = uuid, RIGHTARG = timestamptz, FUNCTION = uuid_eq_timestamptz,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, MERGES);
CREATE OPERATOR <> (LEFTARG = uuid, RIGHTARG = timestamptz, FUNCTION = uuid_ne_timestamptz,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = uuid, RIGHTARG = timestamptz, FUNCTION = uuid_ge_timestamptz,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = uuid, RIGHTARG = timestamptz, FUNCTION = uuid_gt_timestamptz,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR < (LEFTARG = timestamptz, RIGHTARG = uuid, FUNCTION = timestamptz_lt_uuid,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = timestamptz, RIGHTARG = uuid, FUNCTION = timestamptz_le_uuid,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = timestamptz, RIGHTARG = uuid, FUNCTION = timestamptz_eq_uuid,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, MERGES);
CREATE OPERATOR <> (LEFTARG = timestamptz, RIGHTARG = uuid, FUNCTION = timestamptz_ne_uuid,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = timestamptz, RIGHTARG = uuid, FUNCTION = timestamptz_ge_uuid,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = timestamptz, RIGHTARG = uuid, FUNCTION = timestamptz_gt_uuid,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);

COMMENT ON OPERATOR < (uuid, timestamptz) IS 'uuid (version 7) was made before the time''s millisecond';
COMMENT ON OPERATOR <= (uuid, timestamptz) IS 'uuid (version 7) was made before the time''s millisecond (no uuid equals a time)';
COMMENT ON OPERATOR = (uuid, timestamptz) IS 'never true: a time sorts just below the smallest uuid of its millisecond (use >= t AND < t2)';
COMMENT ON OPERATOR <> (uuid, timestamptz) IS 'always true: a time sorts just below the smallest uuid of its millisecond';
COMMENT ON OPERATOR >= (uuid, timestamptz) IS 'uuid (version 7) was made in or after the time''s millisecond';
COMMENT ON OPERATOR > (uuid, timestamptz) IS 'uuid (version 7) was made in or after the time''s millisecond (no uuid equals a time)';
COMMENT ON OPERATOR < (timestamptz, uuid) IS 'uuid (version 7) was made in or after the time''s millisecond (no uuid equals a time)';
COMMENT ON OPERATOR <= (timestamptz, uuid) IS 'uuid (version 7) was made in or after the time''s millisecond';
COMMENT ON OPERATOR = (timestamptz, uuid) IS 'never true: a time sorts just below the smallest uuid of its millisecond (use >= t AND < t2)';
COMMENT ON OPERATOR <> (timestamptz, uuid) IS 'always true: a time sorts just below the smallest uuid of its millisecond';
COMMENT ON OPERATOR >= (timestamptz, uuid) IS 'uuid (version 7) was made before the time''s millisecond (no uuid equals a time)';
COMMENT ON OPERATOR > (timestamptz, uuid) IS 'uuid (version 7) was made before the time''s millisecond';

-- PostgreSQL's own families, pg_catalog.uuid_ops (btree) and
-- pg_catalog.uuid_minmax_ops (BRIN), get the operators as loose members:
-- every existing uuid index (a primary key made long before kid) serves
-- id >= t at once, and range partitions on a uuid key are pruned by time.
-- What that means for the life of the catalog:
--  * DROP EXTENSION: the members are not extension members themselves
--    (PostgreSQL records none for pg_amop rows), but each depends
--    automatically on its operator, which is; dropping kid drops them.
--  * pg_dump/pg_restore: the dump says CREATE EXTENSION kid, which adds
--    them again.
--  * pg_upgrade: its schema dump has no statement for loose members of a
--    pg_catalog family, so the new cluster lacks them: id >= t stays
--    correct (the operators remain) but is no longer an index condition.
--    kid_adopt_database(), which a database pg_upgrade brought must run
--    before generating anyway, adds them again (uuidv7_restore_operators).
CREATE FUNCTION uuidv7_restore_operators() RETURNS integer
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE added integer := 0;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_amop a JOIN pg_opfamily f ON f.oid = a.amopfamily
                   JOIN pg_am m ON m.oid = f.opfmethod
                   WHERE m.amname = 'btree' AND f.opfname = 'uuid_ops' AND f.opfnamespace = 'pg_catalog'::regnamespace
                     AND a.amoplefttype = 'uuid'::regtype AND a.amoprighttype = 'timestamptz'::regtype) THEN
        ALTER OPERATOR FAMILY pg_catalog.uuid_ops USING btree ADD
            OPERATOR 1 @extschema@.< (uuid, timestamptz),
            OPERATOR 2 @extschema@.<= (uuid, timestamptz),
            OPERATOR 3 @extschema@.= (uuid, timestamptz),
            OPERATOR 4 @extschema@.>= (uuid, timestamptz),
            OPERATOR 5 @extschema@.> (uuid, timestamptz),
            FUNCTION 1 (uuid, timestamptz) @extschema@.uuid_cmp_timestamptz(uuid, timestamptz),
            OPERATOR 1 @extschema@.< (timestamptz, uuid),
            OPERATOR 2 @extschema@.<= (timestamptz, uuid),
            OPERATOR 3 @extschema@.= (timestamptz, uuid),
            OPERATOR 4 @extschema@.>= (timestamptz, uuid),
            OPERATOR 5 @extschema@.> (timestamptz, uuid),
            FUNCTION 1 (timestamptz, uuid) @extschema@.timestamptz_cmp_uuid(timestamptz, uuid);
        added := added + 1;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_amop a JOIN pg_opfamily f ON f.oid = a.amopfamily
                   JOIN pg_am m ON m.oid = f.opfmethod
                   WHERE m.amname = 'brin' AND f.opfname = 'uuid_minmax_ops' AND f.opfnamespace = 'pg_catalog'::regnamespace
                     AND a.amoplefttype = 'uuid'::regtype AND a.amoprighttype = 'timestamptz'::regtype) THEN
        ALTER OPERATOR FAMILY pg_catalog.uuid_minmax_ops USING brin ADD
            OPERATOR 1 @extschema@.< (uuid, timestamptz),
            OPERATOR 2 @extschema@.<= (uuid, timestamptz),
            OPERATOR 3 @extschema@.= (uuid, timestamptz),
            OPERATOR 4 @extschema@.>= (uuid, timestamptz),
            OPERATOR 5 @extschema@.> (uuid, timestamptz);
        added := added + 1;
    END IF;
    RETURN added;
END $$;
REVOKE ALL ON FUNCTION uuidv7_restore_operators() FROM PUBLIC;
COMMENT ON FUNCTION uuidv7_restore_operators() IS
'Superuser only: add kid''s uuid-timestamptz operators to PostgreSQL''s uuid_ops (btree) and uuid_minmax_ops (BRIN) families where they are missing (after pg_upgrade, whose dump omits them); returns how many families got them (0, 1 or 2)';
SELECT @extschema@.uuidv7_restore_operators();

-- Times among themselves, as in every id family of kid: an operator class
-- for timestamptz in uuid_ops, with kid's ~<~ ... operators
-- (src/sql/id_time_order.sql), for id = ANY(times) and id >= ANY(times).
-- This class is kid's own object (in kid's schema), so pg_upgrade keeps it.
-- Unlike the classes of kid's own families it has no FUNCTION 4
-- (btequalimage): btree makes an optional support function a loose member
-- of the family, tied to neither the class nor any kid object, and in
-- PostgreSQL's uuid_ops it would outlive DROP EXTENSION (and make the next
-- CREATE EXTENSION fail on the duplicate).  Its only cost: no
-- deduplication in an index built with this class, which nobody needs.
CREATE OPERATOR CLASS uuid_timestamptz_ops FOR TYPE timestamptz USING btree FAMILY pg_catalog.uuid_ops AS
    OPERATOR 1 @extschema@.~<~,
    OPERATOR 2 @extschema@.~<=~,
    OPERATOR 3 @extschema@.~=~,
    OPERATOR 4 @extschema@.~>=~,
    OPERATOR 5 @extschema@.~>~,
    FUNCTION 1 pg_catalog.timestamptz_cmp(timestamptz, timestamptz);
COMMENT ON OPERATOR CLASS uuid_timestamptz_ops USING btree IS 'timestamptz in PostgreSQL''s btree order of uuid, as kid extends it (the time comparisons of the family, as timestamptz orders them)';

-- Range scans by time on a column that also holds uuids of other versions
-- (version 4 ones from gen_random_uuid(), before the column's default became
-- a version 7 generator).  Those sort by their random first 48 bits, so
-- id >= t alone returns nearly all of them; only a range bounded on both
-- sides, and a version test inside it, is exact and cheap.  This is that
-- expression, written once:
--   uuidv7_between(id, since, before)
--     = id >= since AND id < before AND id is version 7
-- true for a version 7 uuid made in or after since's millisecond and
-- before before's (the bounds to the millisecond, as the operators above
-- take them), false for any other uuid.
-- It is an SQL function whose body PostgreSQL inlines into the query
-- (optimizer/util/clauses.c, inline_function): the planner then sees the
-- two comparisons, which are members of uuid_ops (an index range scan) and
-- uuid_minmax_ops (BRIN), and the version test as a filter on the range.
-- Inlining needs a single expression no more volatile than the function,
-- and, since the body has AND and IS NOT NULL, a function that is not
-- STRICT: a NULL argument makes a comparison NULL, so the result is NULL or
-- false, never true.  IMMUTABLE: every part is; with now() as an argument
-- the call is as stable as now(), which an index condition may be.  The
-- body is bound when the extension is created (the operators named by
-- schema), so no search_path changes it.  Never raises (the operators and
-- the decoder do not); not LEAKPROOF all the same: inlined, its parts are
-- judged one by one, and they are.
CREATE FUNCTION uuidv7_between(id uuid, since timestamptz, before timestamptz) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN $1 OPERATOR(@extschema@.>=) $2 AND $1 OPERATOR(@extschema@.<) $3
    AND @extschema@.uuidv7_to_timestamp($1) IS NOT NULL;
COMMENT ON FUNCTION uuidv7_between(uuid, timestamptz, timestamptz) IS
'id is a version 7 uuid made in or after since''s millisecond and before before''s: id >= since AND id < before AND uuidv7_to_timestamp(id) IS NOT NULL, which the planner inlines (an index range scan on a uuid key that also holds version 4 uuids)';

-- The commit horizon of its generator (src/sql/id_types.sql, docs/horizon.md).
CREATE FUNCTION uuidv7_safe_horizon() RETURNS uuid
AS 'MODULE_PATHNAME', 'uuidv7_safe_horizon'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION uuidv7_safe_horizon() IS
'The commit horizon of uuidv7_new() on this server: no uuid made here by uuidv7_new() in a transaction not yet committed, or made later, is below it. The smallest version 7 uuid of a millisecond at or before the clock; read rows cursor <= id < horizon in a later statement (docs/horizon.md). ERROR 55000 on a standby, or while a transaction prepared before the server started is open.';

-- Its row of kid's list of id types.
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('pg_catalog.uuid', 'uuidv7', 'version 7 uuid', '{uuid}', 'uuidv7_to_timestamp', 'uuidv7_from_timestamp', '{uuidv7_new}', 'uuidv7_safe_horizon');
