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

-- PostgreSQL's catalog rules for the btree families (opr_sanity; see
-- src/sql/id_type.sql.in and test/server/12-catalog_sanity.sh).  Every equality
-- member of a btree family is mergejoinable: id = timestamptz, timestamptz =
-- id and ~=~ become MERGES.  ALTER OPERATOR sets MERGES only from
-- PostgreSQL 17 on, so the flag is set in pg_operator, as CREATE OPERATOR
-- would have set it.
UPDATE pg_catalog.pg_operator SET oprcanmerge = true
WHERE oid IN ('@extschema@.~=~(timestamptz, timestamptz)'::pg_catalog.regoperator,
    '@extschema@.=(@extschema@.sno, timestamptz)'::pg_catalog.regoperator,
    '@extschema@.=(timestamptz, @extschema@.sno)'::pg_catalog.regoperator,
    '@extschema@.=(@extschema@.atproto_tid, timestamptz)'::pg_catalog.regoperator,
    '@extschema@.=(timestamptz, @extschema@.atproto_tid)'::pg_catalog.regoperator,
    '@extschema@.=(@extschema@.koid, timestamptz)'::pg_catalog.regoperator,
    '@extschema@.=(timestamptz, @extschema@.koid)'::pg_catalog.regoperator,
    '@extschema@.=(@extschema@.uid, timestamptz)'::pg_catalog.regoperator,
    '@extschema@.=(timestamptz, @extschema@.uid)'::pg_catalog.regoperator,
    '@extschema@.=(@extschema@.uid_global, timestamptz)'::pg_catalog.regoperator,
    '@extschema@.=(timestamptz, @extschema@.uid_global)'::pg_catalog.regoperator);
-- And every member is usable by a class of its family: the (timestamptz,
-- timestamptz) members of each id family move into a class for timestamptz
-- of that family.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['sno', 'atproto_tid', 'koid', 'uid', 'uid_global'] LOOP
        EXECUTE format('ALTER OPERATOR FAMILY @extschema@.%I USING btree DROP
            OPERATOR 1 (timestamptz, timestamptz), OPERATOR 2 (timestamptz, timestamptz),
            OPERATOR 3 (timestamptz, timestamptz), OPERATOR 4 (timestamptz, timestamptz),
            OPERATOR 5 (timestamptz, timestamptz), FUNCTION 1 (timestamptz, timestamptz)', t || '_ops');
        EXECUTE format('CREATE OPERATOR CLASS @extschema@.%I FOR TYPE timestamptz USING btree FAMILY @extschema@.%I AS
            OPERATOR 1 @extschema@.~<~, OPERATOR 2 @extschema@.~<=~, OPERATOR 3 @extschema@.~=~,
            OPERATOR 4 @extschema@.~>=~, OPERATOR 5 @extschema@.~>~,
            FUNCTION 1 pg_catalog.timestamptz_cmp(timestamptz, timestamptz), FUNCTION 4 pg_catalog.btequalimage(oid)',
            t || '_timestamptz_ops', t || '_ops');
        EXECUTE format('COMMENT ON OPERATOR CLASS @extschema@.%I USING btree IS %L', t || '_timestamptz_ops',
            'timestamptz in the btree order of ' || t || ' (the time comparisons of the family, as timestamptz orders them)');
    END LOOP;
END
$$;

-- Ids carrying a given time, for backfills (sno has sno_new_with_time):
-- what each promises is in its scheme's part of the install script.
CREATE FUNCTION tid_new_with_time(at timestamptz) RETURNS atproto_tid
AS 'MODULE_PATHNAME', 'tid_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tid_new_with_time(timestamptz) IS
'a tid carrying a given time (backfills): clock id from one server-wide sequence, never kid.node_id (so, while kid.node_id is unchanged, never equal to a tid_new() id of this server); ids for one time are distinct among any 1023 consecutive calls on this server, beyond that two may be equal: keep a unique index and retry';
CREATE FUNCTION koid_new_with_time(at timestamptz) RETURNS koid
AS 'MODULE_PATHNAME', 'koid_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION koid_new_with_time(timestamptz) IS
'a koid carrying a given time (backfills): this server''s generator id, counter from one server-wide sequence; ids for one time are distinct among any 4096 consecutive calls on this server, beyond that two may be equal (also to koid_new() ids of the same millisecond): keep a unique index and retry';
CREATE FUNCTION uid_new_with_time(at timestamptz) RETURNS uid
AS 'MODULE_PATHNAME', 'uid_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION uid_global_new_with_time(at timestamptz) RETURNS uid_global
AS 'MODULE_PATHNAME', 'uid_global_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uid_new_with_time(timestamptz) IS
'a uid carrying a given time (backfills): sequence from one server-wide sequence shared with uid_global_new_with_time; ids for one time are distinct among any 16384 consecutive calls of the two on this server, beyond that two may be equal (also to uid_new() ids of the same step): keep a unique index and retry';
COMMENT ON FUNCTION uid_global_new_with_time(timestamptz) IS
'a uid_global carrying a given time (backfills): this server''s fingerprint and kid.uid_interval, sequence from one server-wide sequence shared with uid_new_with_time; ids for one time are distinct among any 16384 consecutive calls of the two on this server, beyond that two may be equal (also to uid_global_new() ids of the same step): keep a unique index and retry';
-- (monitoring) kid_generator_stats(), kid_lease() and kid_node_info() show
-- every user's activity (counts, last ids) and the system identifier: for
-- superusers and members of pg_read_all_stats, as in monitoring.sql.
REVOKE EXECUTE ON FUNCTION kid_generator_stats(), kid_lease(), kid_node_info() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION kid_generator_stats(), kid_lease(), kid_node_info() TO pg_read_all_stats;
-- (citus) kid_cluster_check(): a Citus cluster's node identities, from monitoring.sql.
-- ---------------------------------------------------------------------------
-- A Citus cluster's node identities, checked from its coordinator
-- ---------------------------------------------------------------------------

-- Citus generates ids on the coordinator (INSERT ... VALUES, COPY) and on the
-- workers (INSERT ... SELECT, column defaults), and a unique index holds per
-- shard only: two nodes with one node field make colliding ids that nothing
-- reports (docs/citus.md).  kid does not depend on Citus: its functions are
-- reached through dynamic SQL, and without Citus this says so.  Each node
-- answers with its settings and the node field kid_node_info() says each
-- scheme puts in its ids; every name the remote query uses is qualified, so
-- no search_path of the remote session changes it.
CREATE FUNCTION kid_cluster_check(
    OUT nodeid integer,
    OUT nodename text,
    OUT nodeport integer,
    OUT groupid integer,
    OUT node_id integer,
    OUT koid_generator_id integer,
    OUT uid_node text,
    OUT koid_epoch_ms text,
    OUT uid_interval integer)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    remote text;
    r record;
    answer json;
    label text;
    labels text[] := '{}';
    node_ids integer[] := '{}';
    koid_ids integer[] := '{}';
    koid_set boolean[] := '{}';
    uid_nodes text[] := '{}';
    uid_set boolean[] := '{}';
    epochs text[] := '{}';
    intervals integer[] := '{}';
    problems text[] := '{}';
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'kid_cluster_check() needs Citus, and the citus extension is not installed in this database'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Call it on a Citus coordinator; on a single server kid_node_info() shows its node identity.';
    END IF;
    -- Citus's run_command_on_all_nodes reaches the active nodes only, and
    -- the secondaries instead of the primaries when citus.use_secondary_nodes
    -- is 'always': a check of the wrong servers would certify nothing.
    IF pg_catalog.current_setting('citus.use_secondary_nodes', true) = 'always' THEN
        RAISE EXCEPTION 'kid_cluster_check() must read the primaries, and citus.use_secondary_nodes is ''always'' in this session'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Call it from a session started with citus.use_secondary_nodes = ''never'' (for instance options=-ccitus.use_secondary_nodes=never).';
    END IF;
    -- One call of kid_node_info() per node gives both its generation state
    -- and each scheme's node field; the settings say where a field comes
    -- from (kid.koid_generator_id and kid.uid_node, else kid.node_id), so
    -- that a clash names the setting to change.
    remote := format($r$SELECT pg_catalog.json_build_object(
        'node_id', pg_catalog.current_setting('kid.node_id', true),
        'koid_generator_id', pg_catalog.current_setting('kid.koid_generator_id', true),
        'uid_node', pg_catalog.current_setting('kid.uid_node', true),
        'epoch', pg_catalog.current_setting('kid.koid_epoch_ms', true),
        'interval', pg_catalog.current_setting('kid.uid_interval', true),
        'generation', pg_catalog.string_agg(DISTINCT generation, '; '),
        'fields', pg_catalog.json_object_agg(scheme, node_field)) FROM %1$s.kid_node_info()$r$,
        (SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
         WHERE e.extname = 'kid'));
    -- run_command_on_all_nodes answers for the coordinator too, with nodeid
    -- 0 when it is not in pg_dist_node.
    FOR r IN EXECUTE $q$
        SELECT c.nodeid, c.success, c.result,
               coalesce(n.nodename, pg_catalog.current_setting('citus.local_hostname')) AS nodename,
               coalesce(n.nodeport, pg_catalog.current_setting('port')::integer) AS nodeport,
               coalesce(n.groupid, 0) AS groupid
        FROM pg_catalog.run_command_on_all_nodes($1) c
        LEFT JOIN pg_catalog.pg_dist_node n ON n.nodeid = c.nodeid
        ORDER BY 6, 1$q$ USING remote
    LOOP
        label := format('%s:%s', r.nodename, r.nodeport);
        IF NOT r.success THEN
            RAISE EXCEPTION 'kid_cluster_check() could not read kid''s settings on node %: %', label, r.result
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Every node needs kid in shared_preload_libraries and the kid extension, and the caller needs to be a member of pg_read_all_stats there (kid_node_info()).';
        END IF;
        answer := r.result::json;
        IF answer->>'generation' IS DISTINCT FROM 'allowed' THEN
            RAISE EXCEPTION 'kid cannot generate ids on node %: %', label, coalesce(answer->>'generation', 'no answer')
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Citus makes ids on every node: each needs kid in shared_preload_libraries.';
        END IF;
        nodeid := r.nodeid;
        nodename := r.nodename;
        nodeport := r.nodeport;
        groupid := r.groupid;
        node_id := (answer->>'node_id')::integer;
        koid_generator_id := (answer->'fields'->>'koid')::integer;
        uid_node := lpad(to_hex((answer->'fields'->>'uid')::bigint), 8, '0');
        koid_epoch_ms := answer->>'epoch';
        uid_interval := (answer->>'interval')::integer;
        labels := labels || label;
        node_ids := node_ids || node_id;
        koid_ids := koid_ids || koid_generator_id;
        koid_set := koid_set || ((answer->>'koid_generator_id')::integer >= 0);
        uid_nodes := uid_nodes || uid_node;
        uid_set := uid_set || (coalesce(answer->>'uid_node', '') <> '');
        epochs := epochs || koid_epoch_ms;
        intervals := intervals || uid_interval;
        RETURN NEXT;
    END LOOP;

    -- A primary Citus has disabled keeps its shards and generates again once
    -- it is activated: it is not checked, and the caller must know.
    FOR r IN EXECUTE $q$
        SELECT n.nodename, n.nodeport FROM pg_catalog.pg_dist_node n
        WHERE n.noderole = 'primary' AND NOT n.isactive ORDER BY n.groupid$q$
    LOOP
        RAISE WARNING 'kid_cluster_check() did not check node %:% (inactive in pg_dist_node)', r.nodename, r.nodeport
            USING HINT = 'Run it again once the node is active: it may share a node id with another node.';
    END LOOP;

    -- Every problem is collected, each with the change that fixes it, and
    -- reported in one ERROR: a node field shared by two generating nodes
    -- (the fix is the setting the field comes from on those nodes: its own
    -- setting where one is set, else kid.node_id), and a setting that
    -- decides what an id means differing between nodes.
    SELECT problems || coalesce(array_agg(format('%s %s is shared by nodes %s: their %s ids can collide, and Citus checks uniqueness per shard only; %s',
                                                 c.field, c.value, c.nodes, c.schemes, c.fix) ORDER BY c.pos, c.first), '{}')
    INTO problems
    FROM (SELECT s.field, s.value, s.schemes, s.pos, min(s.ord) AS first,
                 string_agg(s.label, ', ' ORDER BY s.ord) AS nodes,
                 CASE WHEN s.setting = 'kid.node_id' OR NOT bool_or(s.own)
                      THEN 'give each of them its own kid.node_id (for instance its Citus group id) and restart it'
                      WHEN s.setting = 'kid.koid_generator_id'
                      THEN 'give each of them its own kid.koid_generator_id (0 to 1023; -1 takes kid.node_id) and restart it'
                      ELSE 'give each of them its own kid.uid_node (8 hex digits; empty derives it from kid.node_id) and restart it' END AS fix
          FROM (SELECT 'kid.node_id' AS field, 'kid.node_id' AS setting, v.value::text AS value, 'sno and atproto_tid' AS schemes,
                       v.label, v.ord, false AS own, 1 AS pos
                FROM unnest(node_ids, labels) WITH ORDINALITY AS v(value, label, ord)
                UNION ALL
                SELECT 'koid generator id', 'kid.koid_generator_id', v.value::text, 'koid', v.label, v.ord, v.own, 2
                FROM unnest(koid_ids, koid_set, labels) WITH ORDINALITY AS v(value, own, label, ord)
                UNION ALL
                SELECT 'uid_global node fingerprint', 'kid.uid_node', v.value, 'uid_global', v.label, v.ord, v.own, 3
                FROM unnest(uid_nodes, uid_set, labels) WITH ORDINALITY AS v(value, own, label, ord)) s
          GROUP BY s.field, s.setting, s.value, s.schemes, s.pos
          HAVING count(*) > 1) c;
    -- Decoding and range scans read these settings on whichever node runs them.
    IF (SELECT count(DISTINCT e) FROM unnest(epochs) e) > 1 THEN
        problems := problems || format('kid.koid_epoch_ms differs between nodes (%s): a koid decodes to another time, and a time range selects other koids, on each of them; set the same kid.koid_epoch_ms on every node and restart it',
            (SELECT string_agg(format('%s on %s', e, l), ', ' ORDER BY o) FROM unnest(epochs, labels) WITH ORDINALITY AS v(e, l, o)));
    END IF;
    IF (SELECT count(DISTINCT i) FROM unnest(intervals) i) > 1 THEN
        problems := problems || format('kid.uid_interval differs between nodes (%s): a uid_global decodes to another time, and a time range selects other ids, on each of them; set the same kid.uid_interval on every node and restart it',
            (SELECT string_agg(format('%s on %s', i, l), ', ' ORDER BY o) FROM unnest(intervals, labels) WITH ORDINALITY AS v(i, l, o)));
    END IF;
    IF cardinality(problems) > 0 THEN
        RAISE EXCEPTION 'kid''s settings of the Citus nodes have % problem%', cardinality(problems),
                CASE WHEN cardinality(problems) > 1 THEN 's' ELSE '' END
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = (SELECT string_agg(format('%s. %s.', o, p), E'\n' ORDER BY o) FROM unnest(problems) WITH ORDINALITY AS v(p, o)),
                  HINT = 'Make every change the detail names, then run kid_cluster_check() again.';
    END IF;
END $$;

COMMENT ON FUNCTION kid_cluster_check() IS
'On a Citus coordinator: every node''s kid.node_id, koid generator id, uid_global node fingerprint, kid.koid_epoch_ms and kid.uid_interval, one row per node (the coordinator included: it generates for INSERT ... VALUES and COPY); one ERROR 22023 listing every problem, each naming the nodes and the setting to change, when two of them share a node field or these settings differ; ERROR 55000 when a node cannot generate or Citus is not installed.  For superusers and members of pg_read_all_stats (it calls kid_node_info() on every node).';

-- It reads kid_node_info() on every node, so it is for the same roles.
REVOKE EXECUTE ON FUNCTION kid_cluster_check() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION kid_cluster_check() TO pg_read_all_stats;

-- The extension's comment (what \dx shows) is kid.control's, written by
-- CREATE EXTENSION only: a database updated from 0.1.0 keeps 0.1.0's, which
-- left out uid_global.  Set it to 0.2.0's control comment here.  By the name
-- the extension is installed under (the upgrade test installs these scripts
-- as another extension): the one koid_new() belongs to.
DO $$
BEGIN
    EXECUTE format('COMMENT ON EXTENSION %I IS %L',
        (SELECT e.extname FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
         WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = '@extschema@.koid_new()'::pg_catalog.regprocedure
           AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.deptype = 'e'),
        'k-ordered unique identifiers: sno, AT Protocol tid, koid, uid and uid_global id types, and codokey date keys');
END $$;

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

-- Generation (layout, guarantees and what an attacker learns: docs/types.md,
-- "uuid").  uuidv7_new() draws from this backend's generator on the
-- backend's sno slot (one of 256 per server): unique by construction
-- across the backends of a server and across servers with distinct
-- kid.node_id, strictly increasing within a backend, in millisecond order
-- across backends, never below the lease.  PARALLEL RESTRICTED like
-- sno_new(): a parallel worker would claim a slot of its own.
CREATE FUNCTION uuidv7_new() RETURNS uuid
AS 'MODULE_PATHNAME', 'uuidv7_new' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION uuidv7_new() IS
'a new RFC 9562 version 7 uuid: Unix millisecond, per-backend counter, kid.node_id, the backend''s partition, 44 keyed-random bits; unique by construction, increasing within a backend; needs kid in shared_preload_libraries';

-- Backfills: a version 7 uuid carrying a given time (its millisecond) and
-- 74 bits of this backend's keyed random stream.  Unique by chance only, as
-- PostgreSQL 18's uuidv7(shift) is: keep a unique index.  Needs no preload
-- and no slot, hence PARALLEL SAFE.
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

-- ---------------------------------------------------------------------------
-- Where this database's ids came from: pg_upgrade and pg_dump move a
-- database to another cluster without kid.lease (src/pg/database_mark.cpp)
-- ---------------------------------------------------------------------------

-- One row per event that ties the database to a cluster, in the order they
-- were inserted here (position, set by the trigger below, whatever an
-- INSERT or COPY gives): 'created' by CREATE EXTENSION, 'updated' by
-- ALTER EXTENSION ... UPDATE from 0.1.0 on a server without kid preloaded
-- (ids of unknown origin), 'adopted' by kid_adopt_database().  Extension
-- configuration, so pg_dump dumps every row (the restore's CREATE EXTENSION
-- first adds a 'created' row of the new cluster); pg_upgrade carries the
-- table's file.  Generation is refused while a row of another cluster or an
-- 'updated' row is not followed by an 'adopted' row of this cluster.
CREATE TABLE kid_database_origin (
    position integer NOT NULL,
    system_identifier bigint NOT NULL,
    how text NOT NULL CHECK (how IN ('created', 'updated', 'adopted')),
    recorded_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    floors jsonb
);
SELECT pg_catalog.pg_extension_config_dump('kid_database_origin', '');

COMMENT ON TABLE kid_database_origin IS
'The clusters (system identifiers) this database''s ids came from, in the order the rows were inserted here: created (CREATE EXTENSION), updated (from 0.1.0 without kid preloaded: origin unknown), adopted (kid_adopt_database(), with the newest stored time per lease line in floors). Generation is refused while a row of another cluster, or an updated row, is not followed by an adopted row of this cluster. Dumped by pg_dump, carried by pg_upgrade.';

CREATE FUNCTION kid_database_origin_order() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    -- The order of insertion here, not the position a dump carries from
    -- another database: rows a restore adds come after every row before.
    LOCK TABLE @extschema@.kid_database_origin IN SHARE ROW EXCLUSIVE MODE;
    NEW.position := coalesce((SELECT max(o.position) FROM @extschema@.kid_database_origin o), 0) + 1;
    RETURN NEW;
END $$;

COMMENT ON FUNCTION kid_database_origin_order() IS
'trigger of kid_database_origin: numbers each inserted row after every row already there';

CREATE TRIGGER kid_database_origin_order BEFORE INSERT ON kid_database_origin
FOR EACH ROW EXECUTE FUNCTION kid_database_origin_order();

CREATE FUNCTION kid_database_origin_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'kid_database_origin_changed'
LANGUAGE C;

COMMENT ON FUNCTION kid_database_origin_changed() IS
'trigger of kid_database_origin: every session reads the table again before its next id, so rows added to a database in use (a data-only restore) take effect at once';

CREATE TRIGGER kid_database_origin_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON kid_database_origin
FOR EACH STATEMENT EXECUTE FUNCTION kid_database_origin_changed();


CREATE FUNCTION kid_raise_floors(
    floors timestamptz[],
    OUT line text,
    OUT floor_before timestamptz,
    OUT floor_after timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'kid_raise_floors'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION kid_raise_floors(timestamptz[]) IS
'Superuser only: raise this server''s generator floors to the given times, one per lease line in the order kid_lease() lists them (NULL leaves a line), durably (kid.lease and the WAL); never lowers one, nor raises a line whose generators already made an id in a later time unit. Returns each line''s floor before and after. kid_adopt_database() calls it.';

CREATE FUNCTION kid_adopt_database(
    floor timestamptz DEFAULT NULL,
    OUT line text,
    OUT columns integer,
    OUT newest timestamptz,
    OUT floor_before timestamptz,
    OUT floor_after timestamptz)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    lines text[];
    found timestamptz[];
    counts integer[];
    c record;
    source text;
    val text;
    top text;
    other text;
    t timestamptz;
    tick integer;
    i integer;
    raised record;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to adopt database "%"', current_database()
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'kid_adopt_database() raises the floors of the whole server: only a superuser may.';
    END IF;
    -- pg_upgrade leaves out the members kid adds to PostgreSQL's uuid
    -- families (src/sql/uuidv7.sql): add them again.
    PERFORM @extschema@.uuidv7_restore_operators();
    -- The lease lines, in the order kid_raise_floors() takes them (none when kid is not preloaded).
    lines := ARRAY(SELECT l.line FROM @extschema@.kid_lease() WITH ORDINALITY AS l ORDER BY l.ordinality);
    found := pg_catalog.array_fill(NULL::timestamptz, ARRAY[pg_catalog.cardinality(lines)]);
    counts := pg_catalog.array_fill(0, ARRAY[pg_catalog.cardinality(lines)]);
    IF pg_catalog.cardinality(lines) = 0 THEN
        -- Not preloaded: kid_raise_floors() says so (and what to do).
        PERFORM @extschema@.kid_raise_floors('{}');
    END IF;
    -- One adoption at a time; the row it inserts comes after every row read.
    LOCK TABLE @extschema@.kid_database_origin IN SHARE ROW EXCLUSIVE MODE;
    -- Every column of a kid id type (directly, through a domain, or as an
    -- array of it) in every table and materialized view but temporary ones
    -- (another session's cannot be read); a partitioned table once, through
    -- its root.
    FOR c IN
        SELECT a.attrelid::regclass AS rel, a.attname, k.typname AS kid_type, e.is_array
        FROM pg_catalog.pg_attribute a
        JOIN pg_catalog.pg_class r ON r.oid = a.attrelid
        JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
        CROSS JOIN LATERAL (SELECT CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END AS base) b
        JOIN pg_catalog.pg_type bt ON bt.oid = b.base
        CROSS JOIN LATERAL (SELECT bt.typcategory = 'A' AS is_array,
                                   CASE WHEN bt.typcategory = 'A' THEN bt.typelem ELSE bt.oid END AS elem) e
        JOIN pg_catalog.pg_type k ON k.oid = e.elem
        WHERE k.oid IN ('@extschema@.sno'::regtype, '@extschema@.atproto_tid'::regtype, '@extschema@.koid'::regtype,
                        '@extschema@.uid'::regtype, '@extschema@.uid_global'::regtype, 'pg_catalog.uuid'::regtype)
          AND r.relkind IN ('r', 'p', 'm') AND NOT r.relispartition AND r.relpersistence <> 't'
          AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY 1::text, a.attnum
    LOOP
        IF c.is_array THEN
            source := format('%s, pg_catalog.unnest(%I) AS x(v)', c.rel, c.attname);
            val := 'x.v';
        ELSE
            source := c.rel::text;
            val := format('%I', c.attname);
        END IF;
        IF c.kid_type = 'uuid' THEN
            -- uuidv7_new()'s line: the newest version 7 uuid, any generator's
            -- (a uuid column may hold version 4 ones too, whose random first
            -- bits put them anywhere up to the year 10889).  Up to a day
            -- ahead of this server's clock: a version 7 uuid further ahead
            -- was not made by a clock kid trusts, and would hold the floor
            -- there (the index scans down from that bound).
            EXECUTE format('SELECT @extschema@.uuidv7_to_timestamp(%1$s) FROM %2$s
                            WHERE %1$s < @extschema@.uuidv7_from_timestamp(pg_catalog.now() + interval ''1 day'')
                              AND @extschema@.uuidv7_to_timestamp(%1$s) IS NOT NULL ORDER BY %1$s DESC LIMIT 1',
                           val, source) INTO t;
            CONTINUE WHEN t IS NULL;
            i := pg_catalog.array_position(lines, 'uuid');
            found[i] := greatest(found[i], t);
            counts[i] := counts[i] + 1;
            CONTINUE;
        END IF;
        -- The largest id (an index answers max()), as its type's text.
        EXECUTE format('SELECT @extschema@.max(%s::@extschema@.%I)::text FROM %s', val, c.kid_type, source) INTO top;
        CONTINUE WHEN top IS NULL;
        IF c.kid_type = 'sno' THEN
            -- sno has two timelines: the newest id's, and the newest id on the other one.
            EXECUTE format('SELECT @extschema@.sno_tick($1::@extschema@.sno), @extschema@.sno_to_timestamp($1::@extschema@.sno)') INTO tick, t USING top;
            i := pg_catalog.array_position(lines, 'sno tick ' || tick);
            found[i] := greatest(found[i], t);
            counts[i] := counts[i] + 1;
            i := pg_catalog.array_position(lines, 'sno tick ' || (1 - tick));
            counts[i] := counts[i] + 1;
            EXECUTE format('SELECT %1$s::text FROM %2$s WHERE @extschema@.sno_tick(%1$s::@extschema@.sno) <> $1 ORDER BY %1$s::@extschema@.sno DESC LIMIT 1',
                           val, source) INTO other USING tick;
            IF other IS NOT NULL THEN
                found[i] := greatest(found[i], @extschema@.sno_to_timestamp(other::@extschema@.sno));
            END IF;
        ELSE
            -- The type's lease line: its own name, but uid_global shares uid's.
            i := pg_catalog.array_position(lines, CASE c.kid_type WHEN 'uid_global' THEN 'uid' ELSE c.kid_type::text END);
            EXECUTE format('SELECT @extschema@.%s($1::@extschema@.%I)',
                           CASE c.kid_type WHEN 'atproto_tid' THEN 'tid_to_timestamp' ELSE c.kid_type || '_to_timestamp' END,
                           c.kid_type) INTO t USING top;
            found[i] := greatest(found[i], t);
            counts[i] := counts[i] + 1;
        END IF;
    END LOOP;
    FOR raised IN
        SELECT f.line, f.floor_before, f.floor_after
        FROM @extschema@.kid_raise_floors(ARRAY(SELECT greatest(u.newest, floor) FROM pg_catalog.unnest(found) WITH ORDINALITY AS u(newest, ord) ORDER BY u.ord)) f
    LOOP
        i := pg_catalog.array_position(lines, raised.line);
        line := raised.line;
        columns := counts[i];
        newest := found[i];
        floor_before := raised.floor_before;
        floor_after := raised.floor_after;
        RETURN NEXT;
    END LOOP;
    INSERT INTO @extschema@.kid_database_origin (position, system_identifier, how, floors)
    SELECT 0, s.system_identifier, 'adopted',
           pg_catalog.jsonb_strip_nulls((SELECT pg_catalog.jsonb_object_agg(u.line, u.newest) FROM ROWS FROM (pg_catalog.unnest(lines), pg_catalog.unnest(found)) AS u(line, newest))
               || pg_catalog.jsonb_build_object('by hand', floor))
    FROM pg_catalog.pg_control_system() s;
END $$;

COMMENT ON FUNCTION kid_adopt_database(timestamptz) IS
'Superuser only: adopt a database that pg_upgrade, pg_dump/pg_restore or another copy brought from another cluster. Finds the newest id stored in every column of a kid id type (domains and arrays too; the newest on each of sno''s two timelines), raises this server''s floors above them (and to floor, if given, on every line) durably, and records an adopted row in kid_database_origin, after which generation is allowed in this database. One row per lease line: columns scanned, the newest stored time, the floor before and after.';


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

-- A database updated from 0.1.0 has no mark: its ids may have come from
-- another cluster (pg_upgrade keeps 0.1.0's SQL until update_extensions.sql
-- runs this).  Adopt them now where kid is preloaded; elsewhere record an
-- 'updated' row, which refuses generation until kid_adopt_database().
DO $$
BEGIN
    IF EXISTS (SELECT FROM @extschema@.kid_generator_stats()) AND NOT pg_catalog.pg_is_in_recovery() THEN
        PERFORM @extschema@.kid_adopt_database();
    ELSE
        INSERT INTO @extschema@.kid_database_origin (position, system_identifier, how)
        SELECT 0, system_identifier, 'updated' FROM pg_catalog.pg_control_system();
    END IF;
END $$;
