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
-- Their comments no longer list the schemes (0.2.0 has more rows).
COMMENT ON FUNCTION kid_generator_stats() IS
'What each id generator of this server did since start-up, one row per generated scheme (the uid row counts uid and uid_global, which share one generator): ids generated; regressions, the ids (koid: calls) made while the clock read below a reading seen before, i.e. a clock that went back; overflow_waits, waits because the ids of the current time unit ran out; clock_waits, waits for a clock behind the generator; ahead_waits, waits because the next id would be further ahead of the clock than its scheme allows (a count is 0 for a scheme that never waits that way: docs/lease.md). Empty when kid is not in shared_preload_libraries.';
COMMENT ON FUNCTION kid_lease() IS
'The persisted high-water marks of generated time, one row per lease line (each scheme''s, one per timeline of sno, and the commit horizon''s of sno and uuid, in kid.lease''s order; kid_raise_floors() takes lines by these names): ids up to covered_until are recorded in the data directory file kid.lease; generators started above startup_floor after the last start (the exact marks of a clean shutdown, else a lease written ahead).';
COMMENT ON FUNCTION kid_node_info() IS
'One row per generated scheme: kid.node_id and the node field the scheme puts in its ids (sno partition high byte and tid clock id = node id, koid generator id, uid_global node fingerprint), the system identifier, whether generation is allowed here or why not, ids generated since start-up with the first and last time made and the last id (counter schemes), the floor every generator started above (startup_mark: exact when a clean shutdown wrote it as the exact high-water mark, ahead when it is a lease written ahead, after a crash or an immediate shutdown; NULL without a lease file) and is above now, the lease mark written here (covered_until) and the one replayed from WAL with the node id that wrote it, and counts of lease file writes, lease WAL records written and replayed. Two servers reporting the same node_id with overlapping first_made..last_made may generate the same ids.';
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

-- ---------------------------------------------------------------------------
-- Where this database's ids came from: pg_upgrade and pg_dump move a
-- database to another cluster without kid.lease (src/pg/database_mark.cpp)
-- ---------------------------------------------------------------------------

-- One row per event that ties the database to a cluster, in the order they
-- were inserted here (position, set by the trigger below, whatever an
-- INSERT or COPY gives): 'created' by CREATE EXTENSION, 'updated' by
-- ALTER EXTENSION ... UPDATE from 0.1.0 when it did not adopt the ids (kid
-- not preloaded, or the adoption stopped: ids of unknown origin), 'adopted'
-- by kid_adopt_database() (floors: what it found, and what it was told to
-- leave or could not read).  Extension
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
'The clusters (system identifiers) this database''s ids came from, in the order the rows were inserted here: created (CREATE EXTENSION), updated (from 0.1.0 without adopting its ids: origin unknown), adopted (kid_adopt_database(), with the newest stored time per lease line in floors, and the floor given by hand, the columns excluded, not read, and whose ids ahead were not taken). Generation is refused while a row of another cluster, or an updated row, is not followed by an adopted row of this cluster. Dumped by pg_dump, carried by pg_upgrade.';

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


-- Floors by lease line name (kid_lease()'s line), not by position: a
-- caller's arrays mean the same when a new lease line comes.
CREATE FUNCTION kid_raise_floors(
    lines text[],
    floors timestamptz[],
    OUT line text,
    OUT floor_before timestamptz,
    OUT floor_after timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'kid_raise_floors'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION kid_raise_floors(text[], timestamptz[]) IS
'Superuser only: raise this server''s generator floors of the lease lines named in lines (as kid_lease() names them) to the times at the same positions in floors (NULL leaves a line, as does a line not named; a commit horizon''s line takes NULL only), durably (kid.lease and the WAL); never lowers one, nor raises a line whose generators already made an id in a later time unit; a name that is no lease line, a line named twice, a NULL name, or arrays of different lengths or more than one dimension are refused (22023), a time past the last one the line''s ids can hold too (22008). Returns every line''s floor before and after (no line named: the floors now). kid_adopt_database() calls it.';

-- The rule that keeps an adoption from making sno_new() wait.  sno has
-- two timelines, and sno_new() waits, without limit and in every database
-- of the server, while the floors of both are ahead of its clock.  Given
-- per timeline (snos[1] tick 0, snos[2] tick 1) the newest sno an
-- adoption would take ahead of the clock (NULL: none), and ahead_from,
-- the first instant ahead of it (the start of the 4 ms unit after the
-- clock's): whether taking them would put both timelines' floors ahead (a
-- timeline's sno, or this server's floor there if it is ahead already),
-- with the nearer of the two further ahead than this server's floors have
-- it already (none: not at all).  This server's floors are read through
-- kid_raise_floors() naming no line, which raises nothing (its
-- floor_after is the floor now, after the floors of a recovery if they
-- were still to be set); none where kid is not preloaded, nor on a
-- standby, which adopts nothing.
-- kid_adoption_columns() asks it before its second pass (which snos it
-- takes), kid_adopt_database() again once every place was read.
CREATE FUNCTION kid_adoption_sno_both_ahead(snos timestamptz[], ahead_from timestamptz) RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    -- Per timeline, this server's floor where it is ahead of the clock,
    -- and the floor once the snos are taken (NULL: not ahead).
    floor_0 timestamptz;
    floor_1 timestamptz;
    after_0 timestamptz;
    after_1 timestamptz;
BEGIN
    IF EXISTS (SELECT FROM @extschema@.kid_lease()) AND NOT pg_is_in_recovery() THEN
        SELECT max(f.floor_after) FILTER (WHERE f.line = 'sno tick 0' AND f.floor_after >= ahead_from),
               max(f.floor_after) FILTER (WHERE f.line = 'sno tick 1' AND f.floor_after >= ahead_from)
        INTO floor_0, floor_1
        FROM @extschema@.kid_raise_floors('{}'::pg_catalog.text[], '{}'::pg_catalog.timestamptz[]) f;
    END IF;
    -- (greatest() and least() skip NULLs.)
    after_0 := greatest(snos[1], floor_0);
    after_1 := greatest(snos[2], floor_1);
    RETURN after_0 IS NOT NULL AND after_1 IS NOT NULL
           AND least(after_0, after_1) > coalesce(CASE WHEN floor_0 IS NOT NULL AND floor_1 IS NOT NULL THEN least(floor_0, floor_1) END,
                                                  '-infinity');
END $$;

COMMENT ON FUNCTION kid_adoption_sno_both_ahead(timestamptz[], timestamptz) IS
'internal: the rule of kid_adoption_columns() and kid_adopt_database(): whether taking the given snos ahead of the clock (the newest per timeline, tick 0 then tick 1; NULL: none) would put the floors of both of sno''s timelines ahead of it (ahead_from on), with this server''s floors, further than these have it already: sno_new() would then wait in every database of the server. Reads the floors through kid_raise_floors(), which only a superuser may run.';

REVOKE ALL ON FUNCTION kid_adoption_sno_both_ahead(timestamptz[], timestamptz) FROM PUBLIC;

-- Every place of this database where a kid id can be stored, and what
-- kid_adopt_database() makes of each.  An id is found through any nesting
-- of types: domains (over domains), arrays, composite types (a table's row
-- type too), ranges and multiranges, in every column of every table,
-- partition, inheritance child, materialized view, foreign table and view.
-- The walk goes up from the id types (and uuid, uuidv7_new()'s line) to
-- every type that holds one, each with its steps down to the id: 'cast:OID'
-- (a domain: one cast to the type under every domain of the chain),
-- 'unnest' (an array, or a multirange's ranges), 'field:NAME' (a composite
-- type's field), 'bounds' (a range's two bounds).  PostgreSQL refuses a
-- type that holds itself, so the walk ends.
--
-- How far ahead of the clock an id is taken without a decision (max_ahead;
-- NULL, the default, is the rule per scheme, bound_by names it): a koid no
-- further than koid_new() waits for its clock, since a koid floor beyond
-- that makes koid_new() fail in every database of the server
-- (kid.koid_max_clock_wait_ms as sessions get it: its reset value; a SET in
-- the adopting session, which waits for no other session, changes
-- nothing); an id of the other schemes up to a day (tid, uid and uuidv7
-- ids then carry that time, and sno changes timeline, which
-- kid_adopt_database() names in a WARNING).  sno has two timelines and
-- sno_new() waits, without limit and in every database of the server,
-- while both are ahead of its clock: so when the snos up to a day ahead
-- would put both ahead (the snos of each timeline, or of one and this
-- server's floor on the other), and further ahead than they are already,
-- no sno ahead of the clock is taken without a decision.
CREATE FUNCTION kid_adoption_columns(
    max_ahead interval DEFAULT NULL,
    exclude text[] DEFAULT '{}',
    scan boolean DEFAULT true,
    OUT relation regclass,
    OUT column_name text,
    OUT path text,
    OUT type regtype,
    OUT status text,
    OUT why text,
    OUT newest timestamptz,
    OUT bound_by text,
    OUT ahead timestamptz,
    OUT ahead_count bigint,
    OUT floors jsonb)
RETURNS SETOF record
-- jit off: the catalog walk's estimate is far above jit_above_cost, and
-- compiling it took 0.4 s of a 0.5 s listing (2,000 places, PostgreSQL 15
-- with LLVM); the reads are index scans or one pass each.
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp SET jit = off AS $$
DECLARE
    places CONSTANT text := $places$
        WITH RECURSIVE edge(holder, held, step) AS MATERIALIZED (
            SELECT d.oid, d.typbasetype, 'cast:' || d.typbasetype FROM pg_type d WHERE d.typtype = 'd'
          UNION ALL
            SELECT a.oid, a.typelem, 'unnest' FROM pg_type a WHERE a.typsubscript = 'array_subscript_handler'::regproc
          UNION ALL
            SELECT r.reltype, f.atttypid, 'field:' || f.attname
            FROM pg_attribute f JOIN pg_class r ON r.oid = f.attrelid
            WHERE f.attnum > 0 AND NOT f.attisdropped AND r.reltype <> 0
          UNION ALL
            SELECT g.rngtypid, g.rngsubtype, 'bounds' FROM pg_range g
          UNION ALL
            SELECT g.rngmultitypid, g.rngtypid, 'unnest' FROM pg_range g
        ), holder(type, kid, steps) AS (
            SELECT k.type::oid, k.type::oid, '{}'::text[] COLLATE "C"
            FROM @extschema@.kid_id_types k
          UNION ALL
            SELECT e.holder, h.kid,
                   CASE WHEN e.step LIKE 'cast:%' AND h.steps[1] LIKE 'cast:%' THEN h.steps ELSE array_prepend(e.step, h.steps) END
            FROM holder h JOIN edge e ON e.held = h.type
        )
        SELECT c.oid::regclass AS rel, c.relkind, c.relpersistence, c.relispopulated,
               c.relnamespace = pg_my_temp_schema() AS own_temp,
               (SELECT i.inhparent::regclass FROM pg_inherits i WHERE c.relispartition AND i.inhrelid = c.oid) AS parent,
               a.attname, h.kid::regtype AS kid, h.steps,
               CASE WHEN c.relnamespace = pg_my_temp_schema() THEN format('pg_temp.%I.%I', c.relname, a.attname)
                    ELSE format('%I.%I.%I', n.nspname, c.relname, a.attname) END AS column_name,
               CASE WHEN c.relispartition THEN
                   ARRAY(SELECT format('%I.%I.%I', pn.nspname, pc.relname, a.attname)
                         FROM pg_partition_ancestors(c.oid) p JOIN pg_class pc ON pc.oid = p.relid
                         JOIN pg_namespace pn ON pn.oid = pc.relnamespace) ELSE '{}' END AS ancestors
        FROM holder h
        JOIN pg_attribute a ON a.atttypid = h.type AND a.attnum > 0 AND NOT a.attisdropped
        JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'm', 'f', 'v')
        ORDER BY n.nspname, c.relname, a.attnum, h.steps::text COLLATE "C"
    $places$;
    clock timestamptz;
    bound timestamptz;
    koid_bound timestamptz;
    koid_wait_ms bigint;
    -- sno: the first instant of the 4 ms unit after the clock's (an sno at
    -- or after it is ahead of the clock), the bound of its places, and per
    -- timeline (tick 0, tick 1) the newest stored sno from there up to
    -- bound.
    sno_clock_bound timestamptz;
    sno_bound timestamptz;
    sno_bound_by text;
    sno_ahead timestamptz[] := ARRAY[NULL, NULL];
    pass integer;
    excluded text[] := '{}';
    entry text;
    parts text[];
    c record;
    step text;
    steps integer;
    source text;
    val text;
    decoder text;
    line text;
    top text;
    tick integer;
    other text;
    t timestamptz;
BEGIN
    -- kid's schema is still the one this script named (see kid_schema_intact()).
    IF EXISTS (SELECT FROM pg_catalog.pg_event_trigger t JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) t.evtfoid
               WHERE t.evtname OPERATOR(pg_catalog.=) 'kid_partition_forget'
                 AND p.pronamespace IS DISTINCT FROM pg_catalog.to_regnamespace('@extschema@')) THEN
        RAISE EXCEPTION 'kid''s schema is no longer @extschema@' USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'kid''s functions name their schema as it was when kid was installed: another schema of that name would take their calls.',
            HINT = 'Give kid''s schema its name back (ALTER SCHEMA ... RENAME TO ...).';
    END IF;
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to list the columns of database "%" that kid_adopt_database() reads', current_database()
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'kid_adoption_columns() reads every table of the database: only a superuser may.';
    END IF;
    IF exclude IS NULL OR scan IS NULL THEN
        RAISE EXCEPTION 'exclude and scan must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF max_ahead < interval '0' THEN
        RAISE EXCEPTION 'max_ahead must not be negative: %', max_ahead
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'It is how far ahead of this server''s clock a stored id is taken without being named.';
    END IF;
    -- kid.koid_max_clock_wait_ms as sessions get it (kid_lease() loads
    -- kid's library, which defines it, where kid is not preloaded).
    PERFORM FROM @extschema@.kid_lease();
    koid_wait_ms := (SELECT s.reset_val::bigint FROM pg_settings s WHERE s.name = 'kid.koid_max_clock_wait_ms');
    -- One reading of the clock for every column.  A koid of the clock's own
    -- millisecond plus the wait is not ahead (koid >= t compares t's
    -- millisecond): koid_new() waits for it and succeeds.
    clock := clock_timestamp();
    -- A max_ahead past the last time a version 7 uuid can hold (year
    -- 10889, the furthest any of kid's ids reach; 'infinity' on 17 and
    -- later) bounds nothing: refused by name, not by the first uuid
    -- column's read.
    BEGIN
        bound := clock + coalesce(max_ahead, interval '1 day');
        PERFORM @extschema@.uuidv7_from_timestamp(bound);
    EXCEPTION WHEN datetime_field_overflow THEN
        RAISE EXCEPTION 'max_ahead reaches past the last time kid''s ids can hold: %', max_ahead
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The furthest is %s (version 7 uuids).',
                                  @extschema@.uuidv7_to_timestamp('ffffffff-ffff-7fff-bfff-ffffffffffff'::uuid)),
                  HINT = 'A max_ahead short of it reaches every id.';
    END;
    koid_bound := CASE WHEN max_ahead IS NULL THEN clock + (koid_wait_ms + 1) * interval '1 ms' ELSE bound END;
    sno_bound := bound;
    sno_bound_by := CASE WHEN max_ahead IS NULL THEN '1 day' ELSE 'max_ahead' END;
    -- Each exclusion names a column as column_name shows it,
    -- schema.table.column (pg_temp for this session's temporary tables);
    -- a partitioned table's column stands for its partitions'.  One that
    -- names no column here is a mistake, not a wish to read everything.
    FOREACH entry IN ARRAY exclude LOOP
        parts := parse_ident(entry);
        IF cardinality(parts) <> 3 THEN
            RAISE EXCEPTION 'exclude: "%" does not name a column as schema.table.column', entry
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        excluded := excluded || format('%I.%I.%I', parts[1], parts[2], parts[3]);
    END LOOP;
    FOR entry IN EXECUTE CASE WHEN cardinality(excluded) > 0 THEN format('SELECT e FROM unnest($1) e WHERE NOT EXISTS (SELECT FROM (%s) p WHERE e = ANY (array_prepend(p.column_name, p.ancestors)))', places)
                                  ELSE 'SELECT NULL::text WHERE false' END USING excluded LOOP
        RAISE EXCEPTION 'exclude: "%" names no column of a kid id type in database "%"', entry, current_database()
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name columns as kid_adoption_columns() lists them in column_name: schema.table.column.';
    END LOOP;

    -- Two passes: the first (scan, max_ahead not given) reads sno's places
    -- only, for its snos ahead of the clock per timeline; the second lists
    -- every place, reading each up to its bound.
    FOR pass IN 1..2 LOOP
        IF pass = 1 AND (NOT scan OR max_ahead IS NOT NULL) THEN
            CONTINUE;
        END IF;
        -- sno's bound is the clock when the snos the first pass found
        -- ahead of it would put both timelines' floors ahead (with this
        -- server's floors), further than they are already.
        IF pass = 2 AND (sno_ahead[1] IS NOT NULL OR sno_ahead[2] IS NOT NULL) THEN
            IF @extschema@.kid_adoption_sno_both_ahead(sno_ahead, sno_clock_bound) THEN
                sno_bound := sno_clock_bound;
                sno_bound_by := 'both sno timelines';
            END IF;
        END IF;
        FOR c IN EXECUTE CASE pass WHEN 1 THEN format('SELECT * FROM (%s) p WHERE p.kid = %L::regtype', places, '@extschema@.sno')
                                   ELSE places END LOOP
            relation := c.rel;
            column_name := c.column_name;
            type := c.kid;
            newest := NULL;
            bound_by := NULL;
            ahead := NULL;
            ahead_count := NULL;
            floors := NULL;
            -- The query that reaches the ids: one row per id, val, in source.
            path := quote_ident(c.attname);
            source := format('ONLY %s r', c.rel);
            val := format('r.%I', c.attname);
            steps := 0;
            FOREACH step IN ARRAY c.steps LOOP
                steps := steps + 1;
                IF step LIKE 'cast:%' THEN
                    val := format('(%s)::%s', val, substr(step, 6)::oid::regtype);
                ELSIF step = 'unnest' THEN
                    source := source || format(' CROSS JOIN LATERAL (SELECT pg_catalog.unnest(%s) AS v) s%s', val, steps);
                    val := format('s%s.v', steps);
                    path := path || '[]';
                ELSIF step = 'bounds' THEN
                    source := source || format(' CROSS JOIN LATERAL (VALUES (pg_catalog.lower(%1$s)), (pg_catalog.upper(%1$s))) s%2$s(v)', val, steps);
                    val := format('s%s.v', steps);
                    path := format('lower/upper(%s)', path);
                ELSE
                    val := format('(%s).%I', val, substr(step, 7));
                    path := format('(%s).%I', path, substr(step, 7));
                END IF;
            END LOOP;
            IF array_prepend(c.column_name, c.ancestors) && excluded THEN
                status := 'excluded';
                why := 'named in exclude';
            ELSIF c.relkind = 'v' THEN
                status := 'no rows';
                why := 'view';
            ELSIF c.relkind = 'p' THEN
                status := 'no rows';
                why := 'partitioned table: its partitions are read';
            ELSIF c.relkind = 'm' AND NOT c.relispopulated THEN
                status := 'no rows';
                why := 'materialized view, not populated';
            ELSIF c.relkind = 'f' THEN
                status := 'not read';
                why := 'foreign table: its rows are not in this database';
            ELSIF c.relpersistence = 't' AND NOT c.own_temp THEN
                status := 'not read';
                why := 'temporary table of another session';
            ELSE
                status := 'read';
                why := CASE WHEN c.relkind = 'm' THEN 'materialized view'
                            WHEN c.own_temp THEN 'temporary table of this session'
                            ELSE CASE c.relpersistence WHEN 'u' THEN 'unlogged ' ELSE '' END
                                 || CASE WHEN c.parent IS NOT NULL THEN 'partition of ' || c.parent::text ELSE 'table' END END;
            END IF;
            IF pass = 1 THEN
                -- The newest sno of each timeline from the unit after the
                -- clock's up to the day (one pass over those ids).
                IF status = 'read' THEN
                    sno_clock_bound := coalesce(sno_clock_bound,
                        @extschema@.sno_to_timestamp(@extschema@.sno_from_timestamp(greatest(clock, timestamptz '2010-01-01 00:00+00'))) + interval '4 ms');
                    EXECUTE format('SELECT @extschema@.max(%1$s) FILTER (WHERE @extschema@.sno_tick(%1$s) = 0)::text,
                                           @extschema@.max(%1$s) FILTER (WHERE @extschema@.sno_tick(%1$s) = 1)::text
                                    FROM %2$s WHERE %1$s OPERATOR(@extschema@.>=) $1 AND %1$s OPERATOR(@extschema@.<) $2', val, source)
                        INTO top, other USING sno_clock_bound, bound;
                    sno_ahead := ARRAY[greatest(sno_ahead[1], @extschema@.sno_to_timestamp(top::@extschema@.sno)),
                                       greatest(sno_ahead[2], @extschema@.sno_to_timestamp(other::@extschema@.sno))];
                END IF;
                CONTINUE;
            END IF;
            IF status = 'read' AND scan THEN
                bound_by := CASE WHEN max_ahead IS NOT NULL THEN 'max_ahead'
                                 WHEN c.kid = '@extschema@.koid'::regtype THEN 'kid.koid_max_clock_wait_ms'
                                 WHEN c.kid = '@extschema@.sno'::regtype THEN sno_bound_by
                                 ELSE '1 day' END;
                SELECT t.to_timestamp, t.lease_lines[1] INTO decoder, line
                FROM @extschema@.kid_id_types t WHERE t.type = c.kid;
                IF c.kid = 'uuid'::regtype THEN
                    -- uuidv7_new()'s line: the version 7 uuids, any generator's (a
                    -- uuid column may hold version 4 ones too, whose random first
                    -- bits would put them anywhere up to the year 10889).  The
                    -- newest up to the bound: an index scan down from it.
                    EXECUTE format('SELECT @extschema@.uuidv7_to_timestamp(%1$s) FROM %2$s
                                    WHERE %1$s < @extschema@.uuidv7_from_timestamp($1) AND @extschema@.uuidv7_to_timestamp(%1$s) IS NOT NULL
                                    ORDER BY %1$s DESC LIMIT 1', val, source) INTO newest USING bound;
                    floors := jsonb_build_object('uuid', newest);
                    EXECUTE format('SELECT max(@extschema@.uuidv7_to_timestamp(%1$s)), count(*) FROM %2$s
                                    WHERE %1$s >= @extschema@.uuidv7_from_timestamp($1) AND @extschema@.uuidv7_to_timestamp(%1$s) IS NOT NULL',
                                   val, source) INTO ahead, ahead_count USING bound;
                ELSE
                    -- The largest id up to the bound (a btree index answers it
                    -- from the bound down), as its type's text.
                    EXECUTE format('SELECT @extschema@.max(%1$s)::text FROM %2$s WHERE %1$s OPERATOR(@extschema@.<) $1', val, source)
                        INTO top USING CASE c.kid WHEN '@extschema@.koid'::regtype THEN koid_bound
                                                  WHEN '@extschema@.sno'::regtype THEN sno_bound ELSE bound END;
                    IF c.kid = '@extschema@.sno'::regtype THEN
                        -- sno has two timelines: the newest id's, and the newest
                        -- id on the other one (a backward scan to the first).
                        floors := jsonb_build_object('sno tick 0', NULL, 'sno tick 1', NULL);
                        IF top IS NOT NULL THEN
                            tick := @extschema@.sno_tick(top::@extschema@.sno);
                            newest := @extschema@.sno_to_timestamp(top::@extschema@.sno);
                            floors := floors || jsonb_build_object('sno tick ' || tick, newest);
                            EXECUTE format('SELECT %1$s::text FROM %2$s
                                            WHERE %1$s OPERATOR(@extschema@.<) $1 AND @extschema@.sno_tick(%1$s) <> $2
                                            ORDER BY %1$s DESC LIMIT 1', val, source) INTO other USING sno_bound, tick;
                            IF other IS NOT NULL THEN
                                floors := floors || jsonb_build_object('sno tick ' || (1 - tick), @extschema@.sno_to_timestamp(other::@extschema@.sno));
                            END IF;
                        END IF;
                    ELSE
                        -- The type's lease line (kid_id_types: uid_global shares uid's).
                        IF top IS NOT NULL THEN
                            EXECUTE format('SELECT @extschema@.%I($1::%s)', decoder, c.kid) INTO newest USING top;
                        END IF;
                        floors := jsonb_build_object(line, newest);
                    END IF;
                    EXECUTE format('SELECT max(@extschema@.%3$I(%1$s)), count(*) FROM %2$s WHERE %1$s OPERATOR(@extschema@.>=) $1',
                                   val, source, decoder) INTO ahead, ahead_count
                        USING CASE c.kid WHEN '@extschema@.koid'::regtype THEN koid_bound
                                         WHEN '@extschema@.sno'::regtype THEN sno_bound ELSE bound END;
                END IF;
            END IF;
            RETURN NEXT;
        END LOOP;
    END LOOP;
END $$;

COMMENT ON FUNCTION kid_adoption_columns(interval, text[], boolean) IS
'Superuser only: every place of this database where kid_adopt_database() looks for ids (columns of the types kid_id_types lists: sno, atproto_tid, koid, uid, uid_global and uuid today, through domains, arrays, composite, range and multirange types: one row per path to an id), whether it reads it (status: read, not read, excluded, no rows) and why, and with scan, what it finds: the newest id time up to max_ahead ahead of the clock (newest, and per lease line in floors), and the ids beyond (the newest, ahead, and how many), and what bounds them (bound_by). max_ahead NULL (the default): 1 day, for koid kid.koid_max_clock_wait_ms, and for sno the clock when the snos ahead of it would put both of its timelines ahead (with this server''s floors), since sno_new() then waits in every database. The dry run of an adoption, column by column; exclude as kid_adopt_database() takes it.';

-- What kid_adopt_database() does before it reads anything: checks floor
-- as kid_raise_floors() would (so a dry run refuses it too), and with
-- serialize waits for any other adoption on the server to end (a
-- transaction-level lock of the whole server): an adoption decides on the
-- floors it reads, and raises them at its end.
CREATE FUNCTION kid_adoption_start(floor timestamptz, serialize boolean) RETURNS void
AS 'MODULE_PATHNAME', 'kid_adoption_start'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION kid_adoption_start(timestamptz, boolean) IS
'internal: the first step of kid_adopt_database(), superuser only: refuses a floor past the last time a lease line''s ids can hold (22008), and with serialize takes a lock of the whole server until the transaction ends, so that adoptions in two databases do not both decide on the floors before either raised them.';

REVOKE ALL ON FUNCTION kid_adoption_start(timestamptz, boolean) FROM PUBLIC;

CREATE FUNCTION kid_adopt_database(
    floor timestamptz DEFAULT NULL,
    max_ahead interval DEFAULT NULL,
    exclude text[] DEFAULT '{}',
    ignore_ahead boolean DEFAULT false,
    dry_run boolean DEFAULT false,
    OUT line text,
    OUT columns integer,
    OUT newest timestamptz,
    OUT floor_before timestamptz,
    OUT floor_after timestamptz)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    lines text[];
    -- The lines ids are made on, as kid_adoption_columns() names them in
    -- floors; the others (the commit horizons' lines) hold no ids and are
    -- left (NULL), floor given or not.
    id_lines CONSTANT text[] := ARRAY(SELECT DISTINCT l.line FROM @extschema@.kid_id_types t, unnest(t.lease_lines) AS l(line));
    taken timestamptz[];
    wanted timestamptz[];
    counts integer[];
    blocker record;
    c record;
    place text;
    ids text;
    beyond text;
    why_ahead text;
    k text;
    t text;
    i integer;
    stopped text[] := '{}';
    unread text[] := '{}';
    excluded jsonb := '[]';
    not_read jsonb := '{}';
    ignored jsonb := '{}';
    raised_lines text[];
    raised_before timestamptz[];
    raised_after timestamptz[];
    sno_wait timestamptz;
    j integer;
    took timestamptz;
    ahead_by interval;
    koid_wait_ms bigint;
    -- Each sno place read, and its newest sno taken; per timeline (tick 0,
    -- tick 1) the sno taken ahead of the clock.
    sno_places text[] := '{}';
    sno_newest timestamptz[] := '{}';
    sno_clock_bound timestamptz;
    sno_took timestamptz[];
    sno_late boolean := false;
BEGIN
    -- kid's schema is still the one this script named (see kid_schema_intact()).
    IF EXISTS (SELECT FROM pg_catalog.pg_event_trigger t JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) t.evtfoid
               WHERE t.evtname OPERATOR(pg_catalog.=) 'kid_partition_forget'
                 AND p.pronamespace IS DISTINCT FROM pg_catalog.to_regnamespace('@extschema@')) THEN
        RAISE EXCEPTION 'kid''s schema is no longer @extschema@' USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'kid''s functions name their schema as it was when kid was installed: another schema of that name would take their calls.',
            HINT = 'Give kid''s schema its name back (ALTER SCHEMA ... RENAME TO ...).';
    END IF;
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to adopt database "%"', current_database()
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'kid_adopt_database() raises the floors of the whole server: only a superuser may.';
    END IF;
    IF exclude IS NULL OR ignore_ahead IS NULL OR dry_run IS NULL THEN
        RAISE EXCEPTION 'exclude, ignore_ahead and dry_run must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- Each table is locked against writes, then read with a new snapshot:
    -- a snapshot taken earlier, for the whole transaction, could miss rows
    -- committed while the lock waited.
    IF NOT dry_run AND current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'kid_adopt_database() must run at transaction isolation level READ COMMITTED, not %',
                        upper(current_setting('transaction_isolation'))
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = 'It reads each table with a new snapshot once it holds the table''s lock.';
    END IF;
    -- Before anything is read: floor refused as kid_raise_floors() would
    -- refuse it at the end (a dry run too), and one adoption at a time on
    -- the whole server, until this transaction ends, so that this one
    -- reads the floors another raised (a dry run raises nothing, and waits
    -- for none).
    PERFORM @extschema@.kid_adoption_start(floor, NOT dry_run);
    -- pg_upgrade leaves out the members kid adds to PostgreSQL's uuid
    -- families (src/sql/uuidv7.sql): add them again.
    IF NOT dry_run THEN
        PERFORM @extschema@.uuidv7_restore_operators();
    END IF;
    -- The lease lines, as kid_raise_floors() names them (none when kid is not preloaded).
    lines := ARRAY(SELECT l.line FROM @extschema@.kid_lease() WITH ORDINALITY AS l ORDER BY l.ordinality);
    taken := array_fill(NULL::timestamptz, ARRAY[cardinality(lines)]);
    counts := array_fill(0, ARRAY[cardinality(lines)]);
    IF cardinality(lines) = 0 THEN
        -- Not preloaded: kid_raise_floors() says so (and what to do).
        PERFORM @extschema@.kid_raise_floors('{}'::pg_catalog.text[], '{}'::pg_catalog.timestamptz[]);
    END IF;
    -- As kid_adoption_columns() reads it: the wait of sessions that do not SET it.
    koid_wait_ms := (SELECT s.reset_val::bigint FROM pg_settings s WHERE s.name = 'kid.koid_max_clock_wait_ms');
    IF NOT dry_run THEN
        -- One adoption at a time; the row it inserts comes after every row read.
        LOCK TABLE @extschema@.kid_database_origin IN SHARE ROW EXCLUSIVE MODE;
        -- A relation another transaction is creating (this one cannot see
        -- it until that one commits), or holds in ACCESS EXCLUSIVE mode (an
        -- ALTER TABLE may be adding a column of an id type): its ids would
        -- be missed.  Autovacuum's short truncation lock is not one of them.
        SELECT l.pid, l.relation, r.oid IS NOT NULL AS visible INTO blocker
        FROM pg_locks l LEFT JOIN pg_class r ON r.oid = l.relation
        WHERE l.locktype = 'relation' AND l.granted AND l.pid IS DISTINCT FROM pg_backend_pid()
          AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
          AND (r.oid IS NULL OR l.mode = 'AccessExclusiveLock')
          AND NOT EXISTS (SELECT FROM pg_stat_activity s WHERE s.pid = l.pid AND s.backend_type = 'autovacuum worker')
        ORDER BY l.pid, l.relation LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'cannot adopt database "%" while another transaction creates or changes a relation in it', current_database()
                USING ERRCODE = 'object_in_use',
                      DETAIL = CASE WHEN blocker.visible
                                    THEN format('%s holds an ACCESS EXCLUSIVE lock on %s.',
                                                coalesce('Process ' || blocker.pid, 'A prepared transaction'), blocker.relation::regclass)
                                    ELSE format('%s is creating relation %s, which this transaction cannot see before it commits.',
                                                coalesce('Process ' || blocker.pid, 'A prepared transaction'), blocker.relation) END,
                      HINT = 'Run kid_adopt_database() again once that transaction has ended (pg_stat_activity shows it).';
        END IF;
        -- Every table to be read, locked against writes until this
        -- transaction ends: a write in progress commits before the table is
        -- read, and none comes after it.  (LOCK TABLE does not take a
        -- materialized view, so a REFRESH can change its rows while the
        -- adoption reads: the snos taken are decided again before the
        -- floors are raised.)
        FOR c IN SELECT DISTINCT a.relation FROM @extschema@.kid_adoption_columns(max_ahead, exclude, scan => false) a
                 JOIN pg_class r ON r.oid = a.relation WHERE a.status = 'read' AND r.relkind = 'r' ORDER BY a.relation LOOP
            EXECUTE format('LOCK TABLE ONLY %s IN SHARE MODE', c.relation);
        END LOOP;
    END IF;
    FOR c IN SELECT a.*, r.relkind, y.typname
             FROM @extschema@.kid_adoption_columns(max_ahead, exclude) a
             JOIN pg_class r ON r.oid = a.relation JOIN pg_type y ON y.oid = a.type LOOP
        place := CASE WHEN c.path = quote_ident((parse_ident(c.column_name))[3]) THEN c.column_name
                      ELSE format('%s (%s)', c.column_name, c.path) END;
        IF c.status = 'excluded' THEN
            excluded := excluded || to_jsonb(place);
            RAISE NOTICE 'kid_adopt_database() does not read % (excluded)', place;
        ELSIF c.status = 'not read' THEN
            -- Fail closed: ids it cannot see may be above everything it
            -- reads.  Only the DBA knows: exclude the column (no ids of this
            -- database's past), or give their newest time as floor.
            not_read := not_read || jsonb_build_object(place, c.why);
            IF floor IS NOT NULL THEN
                RAISE NOTICE 'kid_adopt_database() cannot read %: %; floor % stands for its ids', place, c.why, floor;
            ELSE
                unread := unread || format('%s: not read (%s)', place, c.why);
                RAISE WARNING 'kid_adopt_database() cannot read %: %', place, c.why
                    USING HINT = CASE WHEN c.relkind = 'f'
                        THEN format('If its rows hold ids this server''s generators must stay above (ids this database made before it moved), give the newest one''s time as floor => ''...''; if not, say so with exclude => ARRAY[%L].', c.column_name)
                        ELSE format('Its rows end with that session: adopt once it has ended (after copying into a table here any ids of another cluster it holds), or say it holds none with exclude => ARRAY[%L].', c.column_name) END;
            END IF;
        ELSIF c.status = 'no rows' THEN
            IF c.relkind = 'm' THEN
                RAISE NOTICE 'kid_adopt_database() does not read %: %, it holds no rows', place, c.why;
            END IF;
        ELSE
            -- Read: its newest time per lease line up to the bound.
            FOR k, t IN SELECT f.key, f.value FROM jsonb_each_text(c.floors) f LOOP
                i := array_position(lines, k);
                IF i IS NULL THEN
                    RAISE EXCEPTION 'kid_adopt_database(): no lease line "%" on this server', k;
                END IF;
                counts[i] := counts[i] + 1;
                taken[i] := greatest(taken[i], t::timestamptz);
            END LOOP;
            IF c.type = '@extschema@.sno'::regtype AND c.newest IS NOT NULL THEN
                sno_places := sno_places || place;
                sno_newest := sno_newest || c.newest;
            END IF;
            -- Ids beyond it are taken only by an explicit decision.
            IF c.ahead IS NOT NULL THEN
                ids := format('%s %s', c.ahead_count, (SELECT CASE WHEN t.type = 'uuid'::regtype THEN t.id_noun ELSE t.id_noun || ' id' END
                                                       FROM @extschema@.kid_id_types t WHERE t.type = c.type))
                       || CASE c.ahead_count WHEN 1 THEN '' ELSE 's' END;
                -- How far ahead: beyond what bounds the column (bound_by).
                beyond := CASE c.bound_by
                              WHEN 'kid.koid_max_clock_wait_ms' THEN format('more than kid.koid_max_clock_wait_ms (%s ms) ahead', koid_wait_ms)
                              WHEN 'both sno timelines' THEN 'ahead'
                              ELSE format('more than %s ahead', coalesce(max_ahead, interval '1 day')) END;
                why_ahead := CASE c.bound_by WHEN 'both sno timelines' THEN ', with both sno timelines ahead' ELSE '' END;
                IF floor >= c.ahead THEN
                    RAISE NOTICE '% holds % % of this server''s clock%, the newest at %: taken, floor is at or above it',
                                 place, ids, beyond, why_ahead, c.ahead;
                ELSIF ignore_ahead THEN
                    ignored := ignored || jsonb_build_object(place, c.ahead);
                    RAISE NOTICE '% holds % % of this server''s clock%, the newest at %: not taken (ignore_ahead)',
                                 place, ids, beyond, why_ahead, c.ahead;
                ELSE
                    stopped := stopped || format('%s: %s %s%s, the newest at %s', place, ids, beyond, why_ahead, c.ahead);
                    RAISE WARNING '% holds % % of this server''s clock%, the newest at %', place, ids, beyond, why_ahead, c.ahead
                        USING HINT = CASE
                            WHEN c.bound_by = 'kid.koid_max_clock_wait_ms'
                                THEN 'Taken, they would make koid_new() fail with ERROR 55000 in every database of this server until the clock is within kid.koid_max_clock_wait_ms of them. '
                            WHEN c.bound_by = 'both sno timelines'
                                THEN 'Taken, they would put the floors of both of sno''s timelines ahead of the clock (with the snos of the other timeline named here, or this server''s floor there): sno_new() would wait, in every database of this server, until the clock passed the nearer one. '
                            ELSE 'Taken, they would raise this server''s floor to their time. ' END
                          || format('If kid''s generators did not make them (record keys, ids of another system), exclude => ARRAY[%L]; to take the column''s other ids only, ignore_ahead => true; to take them, floor => %L, or a max_ahead that reaches them (which takes every id within it, snos too when both of sno''s timelines are then ahead: sno_new() waits until the clock passes the nearer).',
                                    c.column_name, c.ahead);
                END IF;
            END IF;
        END IF;
    END LOOP;
    -- Which snos to take was decided on kid_adoption_columns()'s first
    -- pass, and they were taken from its second, which read every place
    -- again: a place written in between (a materialized view refreshed or
    -- populated, which no lock here holds back; a table created) can hold
    -- snos the first pass did not see.  The rule again
    -- (kid_adoption_sno_both_ahead()), on the snos taken and this server's
    -- floors now: no sno ahead of the clock that would put both timelines'
    -- floors ahead, further than they are (max_ahead not given; floor at or
    -- above a column's snos decides for them).  No other adoption raises
    -- the floors before this one ends (kid_adoption_start()).
    IF max_ahead IS NULL AND cardinality(lines) > 0 AND NOT pg_is_in_recovery() THEN
        sno_clock_bound := @extschema@.sno_to_timestamp(@extschema@.sno_from_timestamp(greatest(clock_timestamp(), timestamptz '2010-01-01 00:00+00')))
                           + interval '4 ms';
        sno_took := ARRAY(SELECT CASE WHEN u.newest >= sno_clock_bound AND NOT coalesce(floor >= u.newest, false) THEN u.newest END
                          FROM unnest(ARRAY[taken[array_position(lines, 'sno tick 0')], taken[array_position(lines, 'sno tick 1')]])
                               WITH ORDINALITY AS u(newest, ord) ORDER BY u.ord);
        IF sno_took[1] IS NOT NULL OR sno_took[2] IS NOT NULL THEN
            IF @extschema@.kid_adoption_sno_both_ahead(sno_took, sno_clock_bound) THEN
                FOR j IN 1 .. cardinality(sno_places) LOOP
                    -- (A place already stopped for ids beyond its bound is named once.)
                    IF sno_newest[j] >= sno_clock_bound AND NOT coalesce(floor >= sno_newest[j], false)
                       AND NOT EXISTS (SELECT FROM unnest(stopped) x WHERE starts_with(x, sno_places[j] || ': ')) THEN
                        sno_late := true;
                        stopped := stopped || format('%s: sno ids ahead of this server''s clock, with both sno timelines ahead once every place was read, the newest at %s',
                                                     sno_places[j], sno_newest[j]);
                        RAISE WARNING '% holds sno ids ahead of this server''s clock, with both sno timelines ahead once every place was read, the newest at %',
                                      sno_places[j], sno_newest[j]
                            USING HINT = 'Taken, they would put the floors of both of sno''s timelines ahead of the clock: sno_new() would wait, in every database of this server, until the clock passed the nearer one. '
                                      || 'The adoption decided which snos to take before they were there: run it again to have them named as any other ids ahead.';
                    END IF;
                END LOOP;
            END IF;
        END IF;
    END IF;
    -- Fail closed: an id ahead is neither taken nor left silently, and a
    -- place it cannot read is not taken as holding nothing.
    IF cardinality(stopped) + cardinality(unread) > 0 AND NOT dry_run THEN
        RAISE EXCEPTION 'cannot adopt database "%": %', current_database(),
                        array_to_string(ARRAY[CASE cardinality(stopped) WHEN 0 THEN NULL WHEN 1 THEN '1 column holds'
                                                   ELSE cardinality(stopped) || ' columns hold' END || ' ids too far ahead of this server''s clock',
                                              CASE cardinality(unread) WHEN 0 THEN NULL WHEN 1 THEN 'it cannot read 1 column'
                                                   ELSE 'it cannot read ' || cardinality(unread) || ' columns' END], ', and ')
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = array_to_string(stopped || unread, E'\n'),
                  HINT = CASE WHEN cardinality(stopped) > 0
                              THEN 'Taking ids ahead would raise this server''s floors to their times (every tid_new() a tid of that time, koid_new() failing and, with both of sno''s timelines ahead, sno_new() waiting until then): per column, exclude it, skip its ids ahead (ignore_ahead => true) or take them (a wider max_ahead, or floor => a time at or above them). ' ELSE '' END
                      || CASE WHEN cardinality(unread) > 0
                              THEN 'For a column it cannot read, give the newest time of its ids as floor, or exclude it if it holds none of this database''s ids. ' ELSE '' END
                      || CASE WHEN sno_late
                              THEN 'Snos written while it read the database were not seen when it decided: run it again. ' ELSE '' END
                      || 'kid_adopt_database(dry_run => true) shows the floors, kid_adoption_columns() every column.';
    END IF;
    -- Per line, the time it is raised to: the newest id taken, or floor if later.
    wanted := ARRAY(SELECT CASE WHEN u.line = ANY (id_lines) THEN greatest(u.newest, floor) END
                    FROM ROWS FROM (unnest(lines), unnest(taken)) WITH ORDINALITY AS u(line, newest, ord) ORDER BY u.ord);
    SELECT array_agg(f.line ORDER BY f.ord), array_agg(f.floor_before ORDER BY f.ord), array_agg(f.floor_after ORDER BY f.ord)
    INTO raised_lines, raised_before, raised_after
    FROM @extschema@.kid_raise_floors(lines, CASE WHEN dry_run THEN array_fill(NULL::timestamptz, ARRAY[cardinality(lines)]) ELSE wanted END)
         WITH ORDINALITY AS f(line, floor_before, floor_after, ord);
    -- A dry run raises nothing: the floor it would ask for.
    IF dry_run THEN
        raised_after := ARRAY(SELECT greatest(u.floor_after, wanted[array_position(lines, u.line)])
                              FROM ROWS FROM (unnest(raised_lines), unnest(raised_after)) WITH ORDINALITY AS u(line, floor_after, ord)
                              ORDER BY u.ord);
    END IF;
    -- With both of sno's timelines' floors ahead of the clock, sno_new()
    -- waits until the clock passes the nearer one: when.
    sno_wait := (SELECT CASE WHEN count(*) = 2 AND bool_and(coalesce(u.floor_after > clock_timestamp(), false)) THEN min(u.floor_after) END
                 FROM ROWS FROM (unnest(raised_lines), unnest(raised_after)) AS u(line, floor_after)
                 WHERE u.line IN ('sno tick 0', 'sno tick 1'));
    FOR j IN 1 .. coalesce(cardinality(raised_lines), 0) LOOP
        i := array_position(lines, raised_lines[j]);
        line := raised_lines[j];
        columns := counts[i];
        newest := taken[i];
        floor_before := raised_before[j];
        floor_after := raised_after[j];
        -- A floor this adoption raises ahead of the clock: what it does to
        -- the line's generators.  Ahead means, for koid, any lead (a
        -- koid cannot be ahead of its clock: koid_new() waits, or fails
        -- beyond kid.koid_max_clock_wait_ms); for the others, more than the
        -- 10 s by which kid.lease leads the clock, which a crash restart
        -- gives anyway (sno changes timeline, tid, uid and uuidv7 ids
        -- carry the lease's time).
        took := CASE WHEN dry_run THEN wanted[i] ELSE floor_after END;
        ahead_by := took - clock_timestamp();
        IF took > coalesce(floor_before, '-infinity') AND ahead_by > (CASE line WHEN 'koid' THEN interval '0' ELSE interval '10 s' END) THEN
            RAISE WARNING 'kid_adopt_database() % the % floor to %, ahead of this server''s clock',
                          CASE WHEN dry_run THEN 'would raise' ELSE 'raised' END, line, took
                USING DETAIL = CASE
                    WHEN line = 'koid' AND ahead_by > koid_wait_ms * interval '1 ms'
                        THEN format('koid_new() fails with ERROR 55000, in every database of this server, until the clock is within kid.koid_max_clock_wait_ms (%s ms) of it.',
                                    koid_wait_ms)
                    WHEN line = 'koid'
                        THEN format('koid_new() waits for the clock to pass it (kid.koid_max_clock_wait_ms is %s ms).', koid_wait_ms)
                    WHEN line LIKE 'sno tick _' AND sno_wait IS NOT NULL
                        THEN format('Both of sno''s timelines are then ahead of the clock: sno_new() waits, in every database of this server, until the clock passes %s.',
                                    sno_wait)
                    WHEN line LIKE 'sno tick _'
                        THEN format('sno_new() makes its ids on its other timeline (tick %s) until the clock passes it, and waits while both timelines'' floors are ahead of the clock.',
                                    1 - right(line, 1)::integer)
                    -- Any other line: the generators that make ids on it
                    -- (kid_id_types), which carry the floor's time.
                    ELSE (SELECT format('%s make%s ids of that time, ahead of the clock, until the clock passes it.',
                                        string_agg(g.fn || '()', ' and ' ORDER BY t.type::oid, g.n), CASE WHEN count(*) = 1 THEN 's' ELSE '' END)
                          FROM @extschema@.kid_id_types t, unnest(t.generators) WITH ORDINALITY AS g(fn, n)
                          WHERE line = ANY (t.lease_lines)) END;
        END IF;
        RETURN NEXT;
    END LOOP;
    IF NOT dry_run THEN
        INSERT INTO @extschema@.kid_database_origin (position, system_identifier, how, floors)
        SELECT 0, s.system_identifier, 'adopted',
               jsonb_strip_nulls((SELECT jsonb_object_agg(u.line, u.newest) FROM ROWS FROM (unnest(lines), unnest(taken)) AS u(line, newest))
                                 || jsonb_build_object('by hand', floor))
               || CASE WHEN excluded <> '[]' THEN jsonb_build_object('excluded', excluded) ELSE '{}' END
               || CASE WHEN not_read <> '{}' THEN jsonb_build_object('not read', not_read) ELSE '{}' END
               || CASE WHEN ignored <> '{}' THEN jsonb_build_object('ahead, not taken', ignored) ELSE '{}' END
        FROM pg_control_system() s;
    END IF;
END $$;

COMMENT ON FUNCTION kid_adopt_database(timestamptz, interval, text[], boolean, boolean) IS
'Superuser only: adopt a database that pg_upgrade, pg_dump/pg_restore or another copy brought from another cluster. Reads every place kid_adoption_columns() lists as read (locking each table against writes), raises this server''s floors to the newest id time found per lease line (and to floor, if given) durably, and records an adopted row in kid_database_origin, after which generation is allowed in this database. Stops (ERROR 55000, nothing raised or recorded) on ids too far ahead of the clock (max_ahead; by default a day, for koid kid.koid_max_clock_wait_ms, and for sno the clock where the snos ahead of it would put both of its timelines ahead, since sno_new() then waits in every database) unless floor is at or above them, a wider max_ahead reaches them, their column is excluded, or ignore_ahead skips them; and on a column it cannot read (a foreign table, another session''s temporary table) unless it is excluded or floor stands for its ids. A WARNING names each floor it raises ahead of the clock and what that does to its generators. dry_run raises and records nothing. One row per lease line: columns read, the newest stored time, the floor before and after.';


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

-- ---------------------------------------------------------------------------
-- ULIDs in uuid columns: their time and their text.  A ULID
-- (github.com/ulid/spec) is 128 bits, a 48-bit Unix time in milliseconds
-- and then 80 random bits, and many applications keep it in a uuid column
-- (the same 16 bytes, half the size of its text).  Its first 48 bits are
-- where a version 7 uuid keeps its time, and kid's uuid-timestamptz
-- comparisons (src/sql/uuidv7.sql) read them from every uuid, version 7 or
-- not: on a uuid column of ULIDs, WHERE id >= now() - interval '1 hour' is
-- the same index range scan, and exact (a ULID of a millisecond sorts with
-- it, whatever its random bits).  What a ULID lacks is a version:
-- uuidv7_to_timestamp() answers NULL for it, hence a decoder of its own.
-- ---------------------------------------------------------------------------

-- Every uuid is a ULID (its first 48 bits are up to the year 10889): these
-- never raise, hence LEAKPROOF.
CREATE FUNCTION ulid_to_timestamp(uuid) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'ulid_to_timestamp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION ulid_to_timestamp(uuid) IS
'the millisecond a ULID kept in a uuid was made in (its first 48 bits, Unix milliseconds), whatever its version bits';

CREATE FUNCTION uuid_to_ulid(uuid) RETURNS text
AS 'MODULE_PATHNAME', 'uuid_to_ulid' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION uuid_to_ulid(uuid) IS
'the ULID text of a uuid: 26 characters of Crockford''s base32, in capitals, sorting as the uuid sorts';

-- Not LEAKPROOF: a text that is not a ULID is an error (22P02).
CREATE FUNCTION ulid_to_uuid(text) RETURNS uuid
AS 'MODULE_PATHNAME', 'ulid_to_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_to_uuid(text) IS
'the uuid of a ULID''s text (26 characters of Crockford''s base32, either case, the first one 0 to 7): INSERT ... VALUES (ulid_to_uuid(''01ARZ3NDEKTSV4RRFFQ69G5FAV'')); 22P02 for any other text';

-- ---------------------------------------------------------------------------
-- kid_id_types: the list of kid's id types, one row per type
-- ---------------------------------------------------------------------------
-- What kid's own SQL needs to know of an id type without naming it: which
-- functions decode it, bound it and make it, which lease lines its ids are
-- made on.  Each scheme's file adds its rows right after its functions
-- (src/sql/sno.sql ...), so that a new scheme joins every list by adding
-- its row there: kid_adoption_columns() and kid_adopt_database()
-- (database_origin.sql) read this table instead of naming the types.
--
-- Functions are named (name, in kid's schema), not regprocedure:
-- pg_upgrade refuses tables with columns of regprocedure.  Written by the
-- install and upgrade scripts only; not dumped (CREATE EXTENSION makes the
-- rows again).
--
-- Commit horizons.  Ids are ordered when they are made, not when their
-- transaction commits: a consumer that reads "id > the largest id I saw"
-- misses a row made earlier and committed later.  Each generating scheme
-- declares <scheme>_safe_horizon() (safe_horizon below) in its own file: it
-- returns an id H below which no id of that generator on this server can
-- still appear, none made in a transaction that is still open (or
-- prepared), none made later.  The protocol (docs/horizon.md): read H in
-- one statement, then read cursor <= id < H in a later statement (READ
-- COMMITTED), then cursor := H.  Not covered: ids made with *_new_with_time
-- or given by a client, ids made in one transaction and written in another,
-- other servers' ids (keep a cursor per node).  On a standby: ERROR 55000
-- (call it on the primary).
CREATE TABLE kid_id_types (
    type regtype PRIMARY KEY,
    prefix name NOT NULL UNIQUE,
    id_noun text NOT NULL,
    lease_lines text[] NOT NULL,
    to_timestamp name NOT NULL,
    from_timestamp name NOT NULL,
    generators name[] NOT NULL,
    safe_horizon name NOT NULL
);
REVOKE ALL ON kid_id_types FROM PUBLIC;
GRANT SELECT ON kid_id_types TO PUBLIC;

COMMENT ON TABLE kid_id_types IS
'kid''s id types, one row each: the prefix of its functions'' names (prefix), how messages name one id (id_noun), the lease lines its ids are made on (lease_lines, as kid_lease() names them), and the functions of kid''s schema that decode one to its time (to_timestamp), give the smallest id of a time (from_timestamp), make one (generators) and give the commit horizon of its generators (safe_horizon). Written by kid''s install and upgrade scripts only.';

-- The rows of the types above (each scheme's file adds its own on install).
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('@extschema@.sno', 'sno', 'sno', '{sno tick 0,sno tick 1}', 'sno_to_timestamp', 'sno_from_timestamp', '{sno_new}', 'sno_safe_horizon');
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('@extschema@.atproto_tid', 'tid', 'atproto_tid', '{atproto_tid}', 'tid_to_timestamp', 'tid_from_timestamp', '{tid_new}', 'tid_safe_horizon');
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('@extschema@.koid', 'koid', 'koid', '{koid}', 'koid_to_timestamp', 'koid_from_timestamp', '{koid_new}', 'koid_safe_horizon');
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('@extschema@.uid', 'uid', 'uid', '{uid}', 'uid_to_timestamp', 'uid_from_timestamp', '{uid_new}', 'uid_safe_horizon');
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('@extschema@.uid_global', 'uid_global', 'uid_global', '{uid}', 'uid_global_to_timestamp', 'uid_global_from_timestamp', '{uid_global_new}', 'uid_global_safe_horizon');
INSERT INTO @extschema@.kid_id_types (type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon)
VALUES ('pg_catalog.uuid', 'uuidv7', 'version 7 uuid', '{uuid}', 'uuidv7_to_timestamp', 'uuidv7_from_timestamp', '{uuidv7_new}', 'uuidv7_safe_horizon');

-- A database updated from 0.1.0 has no mark: its ids may have come from
-- another cluster (pg_upgrade keeps 0.1.0's SQL until update_extensions.sql
-- runs this).  Adopt them now where kid is preloaded, and say what the
-- adoption did (its rows) in a WARNING: an extension script shows no
-- NOTICE, and the floors it raises are the whole server's.  Elsewhere, or
-- when the adoption stops (ids too far ahead of the clock or a column it
-- cannot read want a decision, another transaction is creating a table),
-- record an 'updated' row, which refuses generation until
-- kid_adopt_database(), and say why in a WARNING: the update itself (and
-- pg_upgrade's update_extensions.sql) goes on.
DO $$
DECLARE
    message text;
    detail text;
    hint text;
    adopted text[] := '{}';
    r record;
BEGIN
    IF EXISTS (SELECT FROM @extschema@.kid_generator_stats()) AND NOT pg_catalog.pg_is_in_recovery() THEN
        BEGIN
            FOR r IN SELECT * FROM @extschema@.kid_adopt_database() LOOP
                adopted := adopted || pg_catalog.format('%s: %s, newest %s, floor %s -> %s', r.line,
                    CASE r.columns WHEN 1 THEN '1 column' ELSE r.columns || ' columns' END,
                    coalesce(r.newest::text, 'none'), coalesce(r.floor_before::text, 'none'), coalesce(r.floor_after::text, 'none'));
            END LOOP;
            RAISE WARNING 'updating kid from 0.1.0 adopted database "%"', pg_catalog.current_database()
                USING DETAIL = 'Per lease line, the columns read, the newest id time stored and this server''s floor before and after:'
                               || E'\n' || pg_catalog.array_to_string(adopted, E'\n');
            RETURN;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
            RAISE WARNING 'updating kid from 0.1.0 did not adopt database "%": %', pg_catalog.current_database(), message
                USING DETAIL = coalesce(nullif(detail, '') || E'\n', '') || 'Generation stays refused in this database until a superuser runs kid_adopt_database() in it.',
                      HINT = coalesce(nullif(hint, ''), 'Run SELECT * FROM kid_adopt_database(); in it.');
        END;
    END IF;
    INSERT INTO @extschema@.kid_database_origin (position, system_identifier, how)
    SELECT 0, system_identifier, 'updated' FROM pg_catalog.pg_control_system();
END $$;












-- ---------------------------------------------------------------------------
-- Partitions on the id (src/sql/partition.sql, docs/partitioning.md), and
-- the uuid decoder for text that pg_partman's time decoder is called with.
-- ---------------------------------------------------------------------------

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

-- ---------------------------------------------------------------------------
-- Partitions on the id: kid makes, fills and retires the time partitions
-- of a table partitioned by range of a kid id (or of a version 7 uuid)
-- ---------------------------------------------------------------------------
-- A table PARTITION BY RANGE (id), its key sno, atproto_tid, koid, uid,
-- uid_global or uuid, has partitions whose bounds are *_from_timestamp(t):
-- each holds the ids of one period [t, t + every), and WHERE id >= now() -
-- interval '1 day' prunes the others (docs/time-semantics.md).
-- kid_partition_by_time() records a table in kid_partition_config and makes
-- its first partitions; kid_partition_maintain() makes the partitions ahead,
-- moves the rows that wait in the default partition into partitions made
-- for them, and retires the partitions wholly older than the retention.
-- kid's background worker (src/pg/partition_worker.cpp) calls it for every
-- configured table of every database at kid.partition_maintenance_interval.
-- The decisions at the edges (backfills, rows far ahead, uid_global's
-- window, koid's epoch, partitions attached by hand, locks, pg_dump and
-- pg_upgrade) are docs/partitioning.md's.
--
-- Who may do what: the owner of a table (a member of its owning role) or a
-- superuser configures and maintains it.  The functions a user calls run
-- with the caller's rights (none is SECURITY DEFINER), so the tables below
-- are writable by PUBLIC and kid_partition_guard() refuses a row about a
-- table the caller does not own.  The maintenance itself runs as the
-- table's owner, security-restricted (no SET ROLE, no temporary objects),
-- with search_path pinned to pg_catalog, pg_temp, whoever calls: the
-- worker, kid_partition_maintain() or kid_partition_by_time() (the C entry
-- kid_partition_maintain_as_owner(), src/pg/partition_maintenance.cpp), as
-- PostgreSQL runs a table's own code for VACUUM and REFRESH MATERIALIZED
-- VIEW.  A superuser who maintains another role's table never runs that
-- role's triggers, index expressions or constraints with its own rights.

-- The configuration, one row per table; extension configuration, so that
-- pg_dump dumps its rows (they name the tables, restored by name) and
-- pg_upgrade carries it (a regclass keeps its table's OID there).  A row
-- names one table for its whole life: parent is its OID and relname the
-- name it had when it was configured (kept up to date by
-- kid_partition_follow_rename()), so that an OID that comes round again
-- for another table is not taken for it; the dump writes only the rows of
-- tables that exist (a number for a table that is gone would fail the
-- restore of the whole table).
CREATE TABLE kid_partition_config (
    parent regclass PRIMARY KEY,
    every interval NOT NULL,
    premake integer NOT NULL CHECK (premake BETWEEN 0 AND 1000),
    retain interval CHECK (retain > interval '0'),
    detach_only boolean NOT NULL DEFAULT false,
    time_zone text NOT NULL DEFAULT 'UTC',
    -- The settings the bounds of koid and uid_global ids depend on, as the
    -- first maintenance found them: a bound made under another value would
    -- not line up with the partitions made before, so maintenance stops.
    koid_epoch_ms bigint,
    uid_interval integer,
    configured_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    -- (Set by kid_partition_guard() from pg_class.)
    relname name NOT NULL,
    -- The role that owns the table, as the last write of the row found it
    -- (kid_partition_guard() sets it; ALTER TABLE ... OWNER TO writes the
    -- row again, through kid_partition_follow_rename()): when the table is
    -- gone, the end of its configuration joins this role's pool of
    -- kid_partition_history, whoever ends it.  An OID, not a regrole: a
    -- dump writes these rows, and a role's name would fail their restore
    -- into a cluster without that role (the guard sets the column anyway).
    parent_owner oid NOT NULL
);
SELECT pg_catalog.pg_extension_config_dump('kid_partition_config',
    'WHERE EXISTS (SELECT FROM pg_catalog.pg_class r WHERE r.oid OPERATOR(pg_catalog.=) parent::pg_catalog.oid)');
GRANT SELECT, INSERT, UPDATE, DELETE ON kid_partition_config TO PUBLIC;

COMMENT ON TABLE kid_partition_config IS
'The tables whose time partitions kid makes and retires (kid_partition_by_time() writes a row): the period (every), how many periods ahead are made (premake), the retention (retain, NULL keeps every partition), whether retired partitions are only detached (detach_only), the time zone whose calendar the periods follow, the koid epoch or uid_global interval the bounds were made under, the table''s name (relname), which a table that takes the OID of a dropped one does not have, and its owner (parent_owner, the role whose pool of kid_partition_history the end of the configuration joins). Dumped by pg_dump (rows of tables that exist); a row can be written only by the table''s owner.';

-- What the last runs did, per table (not dumped: it describes this
-- cluster's runs).  A row goes with its configuration.
CREATE TABLE kid_partition_state (
    parent regclass PRIMARY KEY REFERENCES kid_partition_config ON DELETE CASCADE,
    last_run timestamptz,
    last_actions integer,
    last_error text,
    last_error_at timestamptz,
    failed_runs integer NOT NULL DEFAULT 0
);
GRANT SELECT, INSERT, UPDATE, DELETE ON kid_partition_state TO PUBLIC;

-- When kid's worker last began to maintain each table, committed before
-- it begins: the worker tries the tables least recently tried first, so
-- that one whose maintenance ends the worker (it ran past twice
-- kid.partition_maintenance_timeout) does not hold back the tables after
-- it round after round, and the next worker records that failure.  The
-- worker's alone (no privilege for PUBLIC), by OID: a table's owner sets
-- neither its order nor its record by writing or remaking its rows of the
-- tables above.  Not dumped.
CREATE TABLE kid_partition_attempts (
    parent oid PRIMARY KEY,
    began timestamptz NOT NULL
);
REVOKE ALL ON kid_partition_attempts FROM PUBLIC;

COMMENT ON TABLE kid_partition_attempts IS
'When kid''s worker last began to maintain each table (by OID), which orders its rounds (the least recently tried first); written by the worker only. Read it through kid_partition_status.last_attempt.';

-- What the runs did, action by action: the partitions made (with the rows
-- moved into them) and retired (with the rows they held), for an audit of
-- retention.  Written by kid alone (src/pg/partition_maintenance.cpp), as
-- the owner of this table, security-restricted, with search_path pinned:
-- no role has a privilege to write it, so no one, the owner of the
-- maintained table included, forges, edits or deletes what a run did.  The
-- runs' own transaction writes it: a run rolled back leaves no row.
--
-- A row names its table by OID (parent, shown as the table's name while it
-- exists), by the name it had then (parent_name) and by the role that
-- owned it then (parent_owner): no foreign key ties it to
-- kid_partition_config, so that neither the table's owner (who may delete
-- its configuration) nor DROP TABLE takes its history; the end of a
-- configuration is itself a row (forget: the table is gone; unconfigure:
-- its configuration was deleted), written by kid_partition_config_removed()
-- below.
--
-- Kept, and pruned by kid only, so that no role's actions push out another
-- role's records: per configured table, the last 1000 partitions made and,
-- apart, the last 1000 retired (a run's own rows are never pruned by it);
-- when a configuration ends, its partitions made go, and its retirements
-- and the row that ended it join the pool of the role that owns the table
-- then: per role, the last 100000 such rows or so (whole tables' rows go,
-- the oldest first, once 100000 newer rows have joined that role's pool;
-- pool_count, on the row that ended a configuration, numbers the pool).
-- Every prune reads an index of one table's rows or of one role's pool,
-- and skips the rows another transaction is deleting (a later prune takes
-- them if it rolls back).
--
-- Readable by a role for the tables it may read, while the table that
-- had the row's OID is that table still (rows below); by members of
-- pg_read_all_stats and by superusers for every table.  Not dumped: it
-- describes this cluster's runs; pg_upgrade carries it (regclass and
-- regrole keep their OIDs there).
CREATE TABLE kid_partition_history (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    parent regclass NOT NULL,
    parent_name text NOT NULL,
    parent_owner regrole NOT NULL,
    run_at timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL,
    action text NOT NULL,
    partition_name text,
    period tstzrange,
    rows bigint,
    detail text,
    run_by name NOT NULL,
    by_worker boolean NOT NULL,
    pool_count bigint
);
CREATE INDEX kid_partition_history_parent ON kid_partition_history (parent, id);
CREATE INDEX kid_partition_history_pool ON kid_partition_history (parent_owner, pool_count)
WHERE pool_count IS NOT NULL;
REVOKE ALL ON kid_partition_history FROM PUBLIC;
GRANT SELECT ON kid_partition_history TO PUBLIC;
-- The rows a role may read: those of a table it is a member of the owner
-- of, or may SELECT from in a schema it may use, recorded while that role
-- owned it or by a role this one is a member of (a table that took the
-- OID of a dropped table of another role's does not show that table's
-- rows); members of pg_read_all_stats (and superusers, who bypass it) read
-- every row, those of dropped tables too.
ALTER TABLE kid_partition_history ENABLE ROW LEVEL SECURITY;
CREATE POLICY kid_partition_history_readable ON kid_partition_history FOR SELECT TO PUBLIC
USING (pg_catalog.pg_has_role('pg_read_all_stats', 'USAGE')
       OR EXISTS (SELECT FROM pg_catalog.pg_class r
                  WHERE r.oid OPERATOR(pg_catalog.=) parent::pg_catalog.oid
                    AND (r.relowner OPERATOR(pg_catalog.=) parent_owner::pg_catalog.oid
                         OR pg_catalog.pg_has_role(parent_owner::pg_catalog.oid, 'USAGE'))
                    AND (pg_catalog.pg_has_role(r.relowner, 'USAGE')
                         OR (pg_catalog.has_table_privilege(r.oid, 'SELECT')
                             AND pg_catalog.has_schema_privilege(r.relnamespace, 'USAGE')))));

COMMENT ON TABLE kid_partition_history IS
'What the runs of kid_partition_maintain() did, one row per partition made (create default, create: rows moved into it) or retired (drop, detach: rows it held, NULL when not counted) and per configuration ended (forget, unconfigure): the table by OID (parent), by the name it had (parent_name) and by the role that owned it (parent_owner), the time the run was given (run_at, the caller''s word) and the time kid recorded the action (recorded_at, the clock''s), the role that ran it (run_by, current_user) and whether it was kid''s worker''s own run of the table. Per configured table the last 1000 partitions made and, apart, the last 1000 retired; when its configuration ends, its partitions made go and its retirements and the end join its owner''s pool, which keeps that role''s last 100000 or so (pool_count numbers it). Written and pruned by kid only; readable for the tables a role may read while they are the tables recorded (every row for pg_read_all_stats); not dumped.';

COMMENT ON POLICY kid_partition_history_readable ON kid_partition_history IS
'the rows of kid_partition_history a role may read: of tables whose owning role it is a member of or may SELECT from (with USAGE on their schema), recorded while that role owned the table or by a role it is a member of; every row for members of pg_read_all_stats';

COMMENT ON TABLE kid_partition_state IS
'The runs of kid_partition_maintain() per configured table: when the last one succeeded and how many actions it took, the last error and when it happened, and how many runs in a row have failed since the last success. Read it through kid_partition_status.';

-- The name of kid's schema when this script ran.  kid's SQL names its own
-- objects with it (@extschema@ is written in as text), so a schema renamed
-- and another made under the old name (the owner of public may do both)
-- would take every such call, run by whoever runs kid's code: the worker
-- (a superuser) and the event triggers (whoever's DDL) included.  So
-- those check first that the name still leads to kid's schema, and do
-- nothing otherwise; kid_partition_maintain(), kid_partition_by_time(),
-- kid_partition_failed(), kid_adopt_database() and kid_adoption_columns()
-- refuse (55000).  kid's schema is found where the function of kid's
-- event trigger kid_partition_forget is (only a superuser makes or renames
-- an event trigger); before that trigger exists (the middle of an update
-- script) nothing is refused.  The worker calls this one through the
-- schema's current name.
CREATE FUNCTION kid_schema_intact() RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- kid's schema is where the function of kid's event trigger is: only a
    -- superuser makes or renames an event trigger.
    SELECT NOT EXISTS (SELECT FROM pg_catalog.pg_event_trigger t JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) t.evtfoid
                       WHERE t.evtname OPERATOR(pg_catalog.=) 'kid_partition_forget'
                         AND p.pronamespace IS DISTINCT FROM pg_catalog.to_regnamespace('@extschema@'));
END;

COMMENT ON FUNCTION kid_schema_intact() IS
'whether kid''s schema still has the name kid was installed under (its functions name it so); kid''s worker and event triggers do nothing, and its maintenance and adoption refuse, when it has not';

CREATE FUNCTION kid_partition_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    p regclass;
    owner oid;
    persistence "char";
BEGIN
    -- An UPDATE is checked against both rows: the table it was about and
    -- the one it is about now.
    FOREACH p IN ARRAY CASE TG_OP WHEN 'INSERT' THEN ARRAY[NEW.parent]
                                  WHEN 'DELETE' THEN ARRAY[OLD.parent]
                                  ELSE ARRAY[OLD.parent, NEW.parent] END LOOP
        SELECT c.relowner, c.relpersistence INTO owner, persistence FROM pg_catalog.pg_class c WHERE c.oid = p;
        IF owner IS NULL THEN
            -- A row about a table that is gone may be deleted by anyone (the
            -- event trigger below does it for whoever dropped the table).
            CONTINUE WHEN TG_OP = 'DELETE';
            RAISE EXCEPTION 'relation with OID % does not exist', p::oid USING ERRCODE = 'undefined_table';
        END IF;
        IF NOT pg_catalog.pg_has_role(current_user, owner, 'USAGE') THEN
            RAISE EXCEPTION 'must be owner of table %', p USING ERRCODE = 'insufficient_privilege',
                DETAIL = format('Only the owner of a table, or a member of its role, writes its rows of %s.', TG_TABLE_NAME);
        END IF;
        -- A temporary table ends with its session, which fires no event
        -- trigger: its row would outlive it and name a free OID.
        IF persistence = 't' AND TG_OP <> 'DELETE' THEN
            RAISE EXCEPTION 'kid does not partition temporary table %', p USING ERRCODE = 'feature_not_supported',
                DETAIL = 'A temporary table''s configuration would outlive it.';
        END IF;
    END LOOP;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    IF TG_TABLE_NAME = 'kid_partition_config' THEN
        SELECT c.relname, c.relowner INTO NEW.relname, NEW.parent_owner FROM pg_catalog.pg_class c WHERE c.oid = NEW.parent;
    END IF;
    RETURN NEW;
END $$;

COMMENT ON FUNCTION kid_partition_guard() IS
'trigger of kid_partition_config and kid_partition_state: a row may be written only by the owner of its table (a member of the owning role) or a superuser, never about a temporary table; a row of a dropped table by anyone; a configuration row takes its table''s current name (relname) and owner (parent_owner)';

CREATE TRIGGER kid_partition_guard BEFORE INSERT OR UPDATE OR DELETE ON kid_partition_config
FOR EACH ROW EXECUTE FUNCTION kid_partition_guard();
CREATE TRIGGER kid_partition_guard BEFORE INSERT OR UPDATE OR DELETE ON kid_partition_state
FOR EACH ROW EXECUTE FUNCTION kid_partition_guard();

-- The end of a table's configuration (deleted by its owner, by DROP
-- TABLE's event trigger below, by kid_partition_maintain() when the table
-- is gone, or moved to another table by an UPDATE) is recorded in
-- kid_partition_history, as kid's (src/pg/partition_maintenance.cpp):
-- the owner who ends it does not end its history.  Not callable but as
-- this trigger (no EXECUTE for PUBLIC: no other table takes it).
CREATE FUNCTION kid_partition_config_removed() RETURNS trigger
AS 'MODULE_PATHNAME', 'kid_partition_config_removed' LANGUAGE C;
REVOKE ALL ON FUNCTION kid_partition_config_removed() FROM PUBLIC;

COMMENT ON FUNCTION kid_partition_config_removed() IS
'trigger of kid_partition_config: records in kid_partition_history that a table''s configuration ended (forget: the table is gone; unconfigure: it still exists), as kid; the history of the table stays';

CREATE TRIGGER kid_partition_config_removed AFTER DELETE OR UPDATE OF parent ON kid_partition_config
FOR EACH ROW EXECUTE FUNCTION kid_partition_config_removed();

-- DROP TABLE of a configured table takes its configuration with it: a row
-- left behind would name a table by an OID nobody has, which pg_dump would
-- write as a number and a restore read as whatever table has that OID.
-- Never in the way of a DROP: a failure here is a WARNING (maintenance
-- forgets a row whose table is gone, too).  kid_partition_config is locked
-- only when a configured table is dropped (a SELECT first, which only LOCK
-- TABLE ... ACCESS EXCLUSIVE blocks), and waited for a second at most: any
-- role may lock it (PUBLIC writes it, through kid_partition_guard()), and
-- a session holding it would otherwise hold DROPs for as long as it likes.
CREATE FUNCTION kid_partition_forget() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET lock_timeout = '1s' AS $$
DECLARE
    dropped oid[] := ARRAY(SELECT d.objid FROM pg_catalog.pg_event_trigger_dropped_objects() d
                           WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = 0);
BEGIN
    -- kid's schema is still the one this script named (see kid_schema_intact()).
    IF EXISTS (SELECT FROM pg_catalog.pg_event_trigger t JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) t.evtfoid
               WHERE t.evtname OPERATOR(pg_catalog.=) 'kid_partition_forget'
                 AND p.pronamespace IS DISTINCT FROM pg_catalog.to_regnamespace('@extschema@')) THEN
        RAISE WARNING 'kid''s schema is no longer @extschema@: kid''s event triggers do nothing'
            USING HINT = 'Give kid''s schema its name back (ALTER SCHEMA ... RENAME TO ...).';
        RETURN;
    END IF;
    IF dropped = '{}' OR NOT EXISTS (SELECT FROM @extschema@.kid_partition_config c WHERE c.parent::oid = ANY (dropped)) THEN
        RETURN;
    END IF;
    DELETE FROM @extschema@.kid_partition_config c WHERE c.parent::oid = ANY (dropped);
EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'kid could not forget the partitioning of a dropped table: %', SQLERRM
        USING HINT = 'kid_partition_maintain() and kid''s worker forget it later.';
END $$;

COMMENT ON FUNCTION kid_partition_forget() IS
'event trigger function: removes the kid_partition_config row of a table when the table is dropped';

CREATE EVENT TRIGGER kid_partition_forget ON sql_drop EXECUTE FUNCTION kid_partition_forget();
COMMENT ON EVENT TRIGGER kid_partition_forget IS
'removes the kid_partition_config row of a dropped table (kid_partition_forget())';

-- ALTER TABLE ... RENAME of a configured table (or ALTER INDEX, SEQUENCE,
-- VIEW ... RENAME, which rename any relation): its row takes the new name
-- (kid_partition_guard() sets it), so that maintenance still knows it as the
-- table it configured; ALTER TABLE ... OWNER TO: its row takes the new owner
-- (the role whose pool of kid_partition_history the end of its
-- configuration joins).  Never in the way of the ALTER: a failure is a
-- WARNING (maintenance then refuses the table until it is configured
-- again).  As for a DROP, kid_partition_config is written only when a row
-- must change (read first), and waited for a second at most.
CREATE FUNCTION kid_partition_follow_rename() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET lock_timeout = '1s' AS $$
DECLARE
    altered oid[] := ARRAY(SELECT d.objid FROM pg_catalog.pg_event_trigger_ddl_commands() d
                           WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass);
BEGIN
    -- kid's schema is still the one this script named (see kid_schema_intact()).
    IF EXISTS (SELECT FROM pg_catalog.pg_event_trigger t JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) t.evtfoid
               WHERE t.evtname OPERATOR(pg_catalog.=) 'kid_partition_forget'
                 AND p.pronamespace IS DISTINCT FROM pg_catalog.to_regnamespace('@extschema@')) THEN
        RAISE WARNING 'kid''s schema is no longer @extschema@: kid''s event triggers do nothing'
            USING HINT = 'Give kid''s schema its name back (ALTER SCHEMA ... RENAME TO ...).';
        RETURN;
    END IF;
    IF altered = '{}' OR NOT EXISTS (SELECT FROM @extschema@.kid_partition_config c JOIN pg_catalog.pg_class r ON r.oid = c.parent
                                     WHERE c.parent::oid = ANY (altered) AND (r.relname <> c.relname OR r.relowner <> c.parent_owner)) THEN
        RETURN;
    END IF;
    UPDATE @extschema@.kid_partition_config c SET relname = r.relname, parent_owner = r.relowner
    FROM pg_catalog.pg_class r
    WHERE r.oid = c.parent AND (r.relname <> c.relname OR r.relowner <> c.parent_owner)
      AND c.parent::oid = ANY (altered);
EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'kid could not record the new name of a partitioned table: %', SQLERRM;
END $$;

COMMENT ON FUNCTION kid_partition_follow_rename() IS
'event trigger function: gives the kid_partition_config row of a renamed table its new name, of a table given to another role its new owner';

CREATE EVENT TRIGGER kid_partition_follow_rename ON ddl_command_end
WHEN TAG IN ('ALTER TABLE', 'ALTER INDEX', 'ALTER SEQUENCE', 'ALTER VIEW', 'ALTER MATERIALIZED VIEW', 'ALTER FOREIGN TABLE')
EXECUTE FUNCTION kid_partition_follow_rename();
COMMENT ON EVENT TRIGGER kid_partition_follow_rename IS
'keeps the name kid_partition_config records for a table up to date when it is renamed (kid_partition_follow_rename())';

CREATE VIEW kid_partition_status AS
SELECT c.parent, c.every, c.premake, c.retain, c.detach_only, c.time_zone,
       (SELECT pg_catalog.count(*) FROM pg_catalog.pg_inherits i WHERE i.inhparent = c.parent)::integer AS partitions,
       s.last_run, s.last_actions, s.last_error, s.last_error_at, COALESCE(s.failed_runs, 0) AS failed_runs,
       (SELECT a.began FROM @extschema@.kid_partition_attempts a WHERE a.parent = c.parent::oid) AS last_attempt
FROM @extschema@.kid_partition_config c
LEFT JOIN @extschema@.kid_partition_state s ON s.parent = c.parent;
GRANT SELECT ON kid_partition_status TO PUBLIC;

COMMENT ON VIEW kid_partition_status IS
'One row per table kid partitions: its configuration, its partitions (the default one included), when maintenance last succeeded and how many actions it took, its last error and when, how many runs in a row have failed (0 when the last one succeeded), and when kid''s worker last began to maintain it';


-- The periods.  A period is a whole number of months (counted from January
-- 2000: 3 months are quarters, 12 months years), of days (counted from
-- Monday 3 January 2000: 7 days are ISO weeks) or of minutes that divides a
-- day (counted from midnight), on the calendar of time_zone: a day in
-- 'Europe/Paris' runs from midnight to midnight there, 23 or 25 hours long
-- at a change of summer time.  A period whose local start does not exist
-- (an hour that summer time skips) is empty: lower = upper.
CREATE FUNCTION kid_partition_period(
    every interval,
    time_zone text,
    t timestamptz,
    step integer DEFAULT 0,
    OUT lower timestamptz,
    OUT upper timestamptz,
    OUT suffix text)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    months integer := extract(year FROM every)::integer * 12 + extract(month FROM every)::integer;
    days integer := extract(day FROM every)::integer;
    seconds numeric := extract(epoch FROM every - make_interval(months => months, days => days));
    local_t timestamp;
    local_start timestamp;
    n bigint;
BEGIN
    IF NOT isfinite(t) THEN
        RAISE EXCEPTION 'kid partitions are made for finite times, not %', t USING ERRCODE = 'datetime_field_overflow';
    END IF;
    local_t := t AT TIME ZONE time_zone;
    IF months > 0 AND days = 0 AND seconds = 0 THEN
        n := floor(((extract(year FROM local_t) - 2000) * 12 + extract(month FROM local_t) - 1) / months) + step;
        local_start := timestamp '2000-01-01' + make_interval(months => (n * months)::integer);
        suffix := to_char(local_start, CASE WHEN months % 12 = 0 THEN 'YYYY' ELSE 'YYYYMM' END);
    ELSIF months = 0 AND days > 0 AND seconds = 0 THEN
        n := floor((local_t::date - date '2000-01-03') / days::numeric) + step;
        local_start := date '2000-01-03' + (n * days)::integer;
        suffix := to_char(local_start, 'YYYYMMDD');
    ELSIF months = 0 AND days = 0 AND seconds >= 60 AND seconds % 60 = 0 AND 86400 % seconds = 0 THEN
        n := floor(extract(epoch FROM local_t - date_trunc('day', local_t)) / seconds) + step;
        local_start := date_trunc('day', local_t) + n * seconds * interval '1 second';
        suffix := to_char(local_start, 'YYYYMMDD_HH24MI');
    ELSE
        RAISE EXCEPTION 'a kid partition cannot be % long', every USING ERRCODE = 'invalid_parameter_value',
            DETAIL = 'A period is a whole number of months (''1 month'', ''3 months'', ''1 year''), of days (''1 day'', ''1 week''), or of minutes that divides a day (''1 hour'', ''15 minutes'').';
    END IF;
    lower := local_start AT TIME ZONE time_zone;
    upper := (local_start + every) AT TIME ZONE time_zone;
END $$;

COMMENT ON FUNCTION kid_partition_period(interval, text, timestamptz, integer) IS
'internal: the period of length every, on time_zone''s calendar, that holds time t (or the one step periods after it): its lower and upper time and the suffix of its partition''s name (YYYY, YYYYMM, YYYYMMDD or YYYYMMDD_HH24MI of its local start)';

-- Whether CREATE TABLE could not take name in schema nsp: a relation has it,
-- or a type (a table makes a composite type of its own name, so a domain
-- or a type of that name is in the way too).
CREATE FUNCTION kid_partition_name_taken(nsp oid, name text) RETURNS boolean
LANGUAGE sql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
RETURN EXISTS (SELECT FROM pg_catalog.pg_class r WHERE r.relnamespace = nsp AND r.relname = name)
    OR EXISTS (SELECT FROM pg_catalog.pg_type ty WHERE ty.typnamespace = nsp AND ty.typname = name);

COMMENT ON FUNCTION kid_partition_name_taken(oid, text) IS
'internal: whether a table named name could not be made in schema nsp (a relation or a type has the name)';

-- The privileges the owner of a table needs for kid to make its partitions
-- (kid makes them as the owner): USAGE and CREATE on the table's schema,
-- and CREATE on its tablespace unless it is the database's default.  42501
-- naming the role and the privilege, at configuration and before a run
-- makes a table, rather than PostgreSQL's "permission denied for schema",
-- which names neither the role nor why kid needs it.
CREATE FUNCTION kid_partition_owner_may_create(parent regclass) RETURNS void
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    rel record;
    privilege text;
BEGIN
    SELECT c.relowner, c.relnamespace, n.nspname, c.reltablespace, ts.spcname INTO rel
    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_catalog.pg_tablespace ts ON ts.oid = c.reltablespace
    WHERE c.oid = parent;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    FOREACH privilege IN ARRAY ARRAY['USAGE', 'CREATE'] LOOP
        IF NOT pg_catalog.has_schema_privilege(rel.relowner, rel.relnamespace, privilege) THEN
            RAISE EXCEPTION 'role "%", the owner of table %, has no % privilege on schema %',
                            pg_catalog.pg_get_userbyid(rel.relowner), parent, privilege, pg_catalog.quote_ident(rel.nspname)
                USING ERRCODE = 'insufficient_privilege',
                      DETAIL = 'kid makes the partitions of a table as its owner, in the table''s schema.',
                      HINT = format('GRANT %s ON SCHEMA %I TO %I;', privilege, rel.nspname, pg_catalog.pg_get_userbyid(rel.relowner));
        END IF;
    END LOOP;
    IF rel.reltablespace <> 0
       AND rel.reltablespace <> (SELECT d.dattablespace FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
       AND NOT pg_catalog.has_tablespace_privilege(rel.relowner, rel.reltablespace, 'CREATE') THEN
        RAISE EXCEPTION 'role "%", the owner of table %, has no CREATE privilege on tablespace %',
                        pg_catalog.pg_get_userbyid(rel.relowner), parent, pg_catalog.quote_ident(rel.spcname)
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'kid makes the partitions of a table as its owner, in the table''s tablespace.',
                  HINT = format('GRANT CREATE ON TABLESPACE %I TO %I;', rel.spcname, pg_catalog.pg_get_userbyid(rel.relowner));
    END IF;
END $$;

COMMENT ON FUNCTION kid_partition_owner_may_create(regclass) IS
'internal: 42501 naming the role and the privilege unless the owner of the table may make its partitions (USAGE and CREATE on its schema, CREATE on its tablespace)';

-- kid's worker records that it begins the maintenance of a table, in a
-- transaction of its own before the maintenance's (kid_partition_attempts).
-- Only the worker (a superuser) calls it.
CREATE FUNCTION kid_partition_attempt(parent regclass) RETURNS void
LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    INSERT INTO @extschema@.kid_partition_attempts AS a (parent, began)
    VALUES (parent::oid, pg_catalog.clock_timestamp())
    ON CONFLICT ON CONSTRAINT kid_partition_attempts_pkey DO UPDATE SET began = EXCLUDED.began;
END;
REVOKE ALL ON FUNCTION kid_partition_attempt(regclass) FROM PUBLIC;

COMMENT ON FUNCTION kid_partition_attempt(regclass) IS
'internal: records that kid''s worker begins to maintain a table now (kid_partition_attempts); for the worker only';

-- The one place a failed maintenance is recorded: kid_partition_maintain()
-- calls it for each table that fails while it maintains every table, and
-- the worker, in a transaction of its own, for a table whose maintenance
-- failed.  A table dropped meanwhile is not recorded (kid_partition_guard()
-- refuses a row about a table that is gone): its configuration is
-- forgotten by the next run instead, which this must not stop.
CREATE FUNCTION kid_partition_failed(parent regclass, message text) RETURNS void
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    -- kid's schema is still the one this script named (see kid_schema_intact()).
    IF EXISTS (SELECT FROM pg_catalog.pg_event_trigger t JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) t.evtfoid
               WHERE t.evtname OPERATOR(pg_catalog.=) 'kid_partition_forget'
                 AND p.pronamespace IS DISTINCT FROM pg_catalog.to_regnamespace('@extschema@')) THEN
        RAISE EXCEPTION 'kid''s schema is no longer @extschema@' USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'kid''s functions name their schema as it was when kid was installed: another schema of that name would take their calls.',
            HINT = 'Give kid''s schema its name back (ALTER SCHEMA ... RENAME TO ...).';
    END IF;
    INSERT INTO @extschema@.kid_partition_state AS s (parent, last_error, last_error_at, failed_runs)
    SELECT c.parent, message, pg_catalog.clock_timestamp(), 1
    FROM @extschema@.kid_partition_config c
    WHERE c.parent = kid_partition_failed.parent
      AND EXISTS (SELECT FROM pg_catalog.pg_class r WHERE r.oid = c.parent::oid)
    ON CONFLICT ON CONSTRAINT kid_partition_state_pkey DO UPDATE
        -- (Capped: the owner may write its row, a count at the integer's
        -- end included, which would make every later record fail.)
        SET last_error = EXCLUDED.last_error, last_error_at = EXCLUDED.last_error_at,
            failed_runs = LEAST(s.failed_runs, 2147483646) + 1;
END $$;

COMMENT ON FUNCTION kid_partition_failed(regclass, text) IS
'internal: records that the maintenance of a table failed, with the message (kid_partition_status shows it)';

-- The maintenance runs at READ COMMITTED only: it plans again with a new
-- snapshot once it holds the table's lock (one taken earlier, for the
-- whole transaction, would miss rows committed while the lock waited,
-- which ATTACH, with a new snapshot, then finds in the default partition).
CREATE FUNCTION kid_partition_read_committed() RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'kid_partition_maintain() must run at transaction isolation level READ COMMITTED, not %',
                        upper(current_setting('transaction_isolation'))
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = 'It plans again with a new snapshot once it holds the table''s lock.',
                  HINT = 'Call kid_partition_maintain() and kid_partition_by_time() in a transaction at READ COMMITTED, the default.';
    END IF;
END $$;

COMMENT ON FUNCTION kid_partition_read_committed() IS
'internal: 25000 unless the transaction runs at READ COMMITTED, which kid_partition_maintain() needs';

-- t less span, as timestamptz - interval counts in time_zone: the months
-- and days of span on its calendar (a day is 23 or 25 hours across a change
-- of summer time), the rest of it (hours, minutes, seconds) in absolute
-- time, so that a retention of '36 hours' is 36 hours whatever the clocks
-- of time_zone did meanwhile.
CREATE FUNCTION kid_partition_minus(t timestamptz, span interval, time_zone text) RETURNS timestamptz
LANGUAGE sql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
RETURN ((t AT TIME ZONE time_zone) - justify_hours(make_interval(months => (extract(year FROM span) * 12 + extract(month FROM span))::integer,
                                                                 days => extract(day FROM span)::integer)))
       AT TIME ZONE time_zone
       - (span - make_interval(months => (extract(year FROM span) * 12 + extract(month FROM span))::integer,
                               days => extract(day FROM span)::integer));

COMMENT ON FUNCTION kid_partition_minus(timestamptz, interval, text) IS
'internal: t - span, the months and days of span on the calendar of time_zone, its hours, minutes and seconds in absolute time';

-- The rows of a partition kid retires, counted while the maintenance holds
-- ACCESS EXCLUSIVE on the table: by a scan of the table access method in C
-- (src/pg/partition_maintenance.cpp), which no row-level security, trigger
-- or privilege of the partition's owner changes or refuses, and only up to
-- max_pages pages, so that the count stays short (the maintenance passes
-- what is left of the 1024 pages, 8 MB, it counts in a run); NULL for a
-- larger partition and for one that is not a plain table (a foreign table
-- is never scanned).  The caller must own the relation or the partitioned
-- table it is attached to (42501), whose owner reads its every row through
-- that table.
CREATE FUNCTION kid_partition_rows(rel regclass, max_pages integer) RETURNS bigint
AS 'MODULE_PATHNAME', 'kid_partition_rows' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION kid_partition_rows(regclass, integer) IS
'internal: the rows of plain table rel counted by a scan of its storage (no row-level security, no trigger), NULL when it has more than max_pages pages or is not a plain table; for the owner of rel or of the partitioned table it is attached to (42501 for any other)';

-- The maintenance of one table is kid_partition_maintain_table() below,
-- which kid_partition_maintain() calls through
-- kid_partition_maintain_as_owner(), as the table's owner, and the parts it
-- calls in turn, each for one job: kid_partition_check() (the table, its
-- configuration and its key), kid_partition_key() (the key and the SQL
-- that bounds it), kid_partition_inventory() (the partitions there are),
-- kid_partition_plan() (what is missing, what retires, the lock that
-- needs), kid_partition_lock() (taking that lock), kid_partition_make()
-- (the partitions made, each by kid_partition_make_table(),
-- kid_partition_move() and kid_partition_attach()) and
-- kid_partition_retire().  Every part runs as the owner of the table only
-- (kid_partition_owner_only(); kid_partition_key() and
-- kid_partition_inventory() only read the catalog): PUBLIC may execute
-- them, as the owner of any table must, but a superuser that called one
-- directly would run the owner's triggers, policies and constraints with
-- its own rights.

-- 42501 unless the current user is the owner of the table (the parts of
-- the maintenance run as the owner only, as kid_partition_maintain_as_owner()
-- runs them).
CREATE FUNCTION kid_partition_owner_only(parent regclass) RETURNS void
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = parent)
       IS DISTINCT FROM (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = current_user) THEN
        RAISE EXCEPTION 'the maintenance of the partitions of table % runs as its owner only', parent
            USING ERRCODE = 'insufficient_privilege', HINT = 'Call kid_partition_maintain().';
    END IF;
END $$;

COMMENT ON FUNCTION kid_partition_owner_only(regclass) IS
'internal: 42501 unless the current user is the owner of the table (the parts of kid_partition_maintain_table() run as the owner only)';

-- The key of a table kid partitions and the SQL that bounds it: the key
-- column, its type (a domain's base type), the prefix of the key type's
-- functions (NULL: not a kid id type nor uuid; kid_partition_check()
-- refuses it), and format() strings and clauses the parts build their
-- statements from, every bound as bytea in the key's btree order.
CREATE FUNCTION kid_partition_key(
    parent regclass,
    OUT key_name name,
    OUT keytype regtype,
    OUT key_domain boolean,   -- the key column is of a domain over the type
    OUT key_expr text,        -- the key as its base type, (key)::type: see below
    OUT prefix text,          -- of the key type's functions: sno, tid, koid, uid, uid_global, uuidv7
    OUT to_bytes text,        -- format(): the key %s as bytea, in the key's btree order
    OUT from_bytes text,      -- format(): the key from the bytea %s
    OUT v7_only text,         -- a uuid table moves version 7 uuids only
    OUT in_range text,        -- the key is from $1 to below $2 (bytea)
    OUT below text,           -- the key is below $1 (bytea)
    OUT from_next text,       -- and at or above $2 (bytea)
    OUT bounds_sql text)      -- the bounds of the times $1 and $2, as bytea
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    SELECT a.attname, a.atttypid INTO key_name, keytype
    FROM pg_catalog.pg_partitioned_table pt
    JOIN pg_catalog.pg_attribute a ON a.attrelid = pt.partrelid AND a.attnum = pt.partattrs[0]
    WHERE pt.partrelid = parent;
    key_domain := false;
    WHILE (SELECT ty.typtype FROM pg_catalog.pg_type ty WHERE ty.oid = keytype) = 'd' LOOP
        keytype := (SELECT ty.typbasetype FROM pg_catalog.pg_type ty WHERE ty.oid = keytype);
        key_domain := true;
    END LOOP;
    -- Every operator and function the maintenance applies to the key takes
    -- it as its base type: for a key of a domain, an operator or function
    -- of that domain's exact type in kid's schema (which another role may
    -- be able to create objects in) would win over kid's own.  Casting to
    -- a domain's base type calls nothing.
    key_expr := format('(%I)::%s', key_name, keytype);
    -- Its functions' prefix (kid_id_types): <prefix>_from_timestamp() and
    -- <prefix>_to_timestamp() bound and decode it.
    prefix := (SELECT t.prefix FROM @extschema@.kid_id_types t WHERE t.type = keytype);
    IF prefix IS NULL THEN
        RETURN;
    END IF;
    IF prefix = 'uuidv7' THEN
        to_bytes := 'pg_catalog.uuid_send(%s)';
        from_bytes := 'pg_catalog.encode(%s, ''hex'')::pg_catalog.uuid';
        v7_only := format(' AND @extschema@.uuidv7_to_timestamp(%s) IS NOT NULL', key_expr);
    ELSE
        to_bytes := '(%s)::pg_catalog.bytea';
        from_bytes := '(%s)::' || keytype::text;
        v7_only := '';
    END IF;
    -- (The search_path is pg_catalog's alone: name the key's operators.)
    in_range := format('%1$s OPERATOR(%2$s.>=) %3$s AND %1$s OPERATOR(%2$s.<) %4$s', key_expr,
                       CASE prefix WHEN 'uuidv7' THEN 'pg_catalog' ELSE '@extschema@' END, format(from_bytes, '$1'), format(from_bytes, '$2'));
    below := format('%1$s OPERATOR(%2$s.<) %3$s', key_expr,
                    CASE prefix WHEN 'uuidv7' THEN 'pg_catalog' ELSE '@extschema@' END, format(from_bytes, '$1'));
    from_next := format(' AND %1$s OPERATOR(%2$s.>=) %3$s', key_expr,
                        CASE prefix WHEN 'uuidv7' THEN 'pg_catalog' ELSE '@extschema@' END, format(from_bytes, '$2'));
    bounds_sql := format('SELECT ' || to_bytes || ', ' || to_bytes,
                         format('@extschema@.%s_from_timestamp($1)', prefix), format('@extschema@.%s_from_timestamp($2)', prefix));
END $$;

COMMENT ON FUNCTION kid_partition_key(regclass) IS
'internal: the partition key of a table kid partitions (its column, its base type, the prefix of its type''s functions) and the SQL kid''s maintenance bounds it with, every bound as bytea in the key''s btree order';

-- The checks of a run, under its first lock: the table is the one kid
-- partitions, of a kind it partitions, by a key it can bound.  Records the
-- setting the bounds of koid and uid_global depend on, and adds a uuid
-- table's CHECK.  Returns the table's configuration.
CREATE FUNCTION kid_partition_check(parent regclass) RETURNS @extschema@.kid_partition_config
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    cfg @extschema@.kid_partition_config;
    rel record;
    key record;
    new_name text;
    i integer;
BEGIN
    SELECT * INTO cfg FROM @extschema@.kid_partition_config c WHERE c.parent = kid_partition_check.parent;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'kid does not partition table %', parent USING ERRCODE = 'object_not_in_prerequisite_state',
            HINT = 'Configure it with kid_partition_by_time().';
    END IF;
    SELECT c.relname, c.relowner, c.relkind, c.relpersistence,
           pt.partstrat, pt.partnatts, pt.partattrs[0] AS keyattnum, pt.partclass[0] AS keyclass
    INTO rel
    FROM pg_catalog.pg_class c
    LEFT JOIN pg_catalog.pg_partitioned_table pt ON pt.partrelid = c.oid
    WHERE c.oid = parent;
    -- Only as the table's owner (kid_partition_maintain_as_owner() made it
    -- the current user, security-restricted): never with another role's
    -- rights, which the owner's triggers, index expressions and
    -- constraints would run with.
    IF rel.relowner IS DISTINCT FROM (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = current_user) THEN
        RAISE EXCEPTION 'kid_partition_maintain_table() runs as the owner of table % only', parent
            USING ERRCODE = 'insufficient_privilege', HINT = 'Call kid_partition_maintain().';
    END IF;
    -- The row is about this table, not about a dropped one whose OID it took.
    IF cfg.relname <> rel.relname THEN
        RAISE EXCEPTION 'kid_partition_config configured a table named "%" with the OID of table %', cfg.relname, parent
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The table was renamed while kid could not follow, or it is another table that took the OID of a dropped one.',
                  HINT = 'Configure it again with kid_partition_by_time() if it is the table you configured; otherwise delete its row of kid_partition_config.';
    END IF;
    IF rel.relpersistence = 't' THEN
        RAISE EXCEPTION 'kid does not partition temporary table %', parent USING ERRCODE = 'feature_not_supported';
    END IF;
    IF rel.relkind <> 'p' OR rel.partstrat <> 'r' THEN
        RAISE EXCEPTION 'table % is not partitioned by range', parent USING ERRCODE = 'wrong_object_type',
            HINT = 'kid partitions a table made with PARTITION BY RANGE (id); docs/partitioning.md turns an existing table into one.';
    END IF;
    IF rel.partnatts <> 1 OR rel.keyattnum = 0 THEN
        RAISE EXCEPTION 'the partition key of table % is not one column', parent USING ERRCODE = 'feature_not_supported',
            DETAIL = 'kid partitions a table by its id column alone: PARTITION BY RANGE (id).';
    END IF;
    SELECT * INTO key FROM @extschema@.kid_partition_key(parent);
    IF key.prefix IS NULL THEN
        RAISE EXCEPTION 'the partition key %.% is of type %, not a kid id type or uuid', parent, key.key_name, key.keytype
            USING ERRCODE = 'datatype_mismatch';
    END IF;
    IF rel.keyclass IS DISTINCT FROM (SELECT oc.oid FROM pg_catalog.pg_opclass oc JOIN pg_catalog.pg_am am ON am.oid = oc.opcmethod
                                      WHERE am.amname = 'btree' AND oc.opcintype = key.keytype AND oc.opcdefault) THEN
        RAISE EXCEPTION 'the partition key %.% does not use the default operator class of %', parent, key.key_name, key.keytype
            USING ERRCODE = 'feature_not_supported';
    END IF;
    -- koid and uid_global bounds depend on a setting fixed at server start:
    -- recorded at the first maintenance, required at every later one.
    IF key.prefix IN ('koid', 'uid_global') THEN
        IF cfg.koid_epoch_ms IS NULL AND cfg.uid_interval IS NULL THEN
            UPDATE @extschema@.kid_partition_config c
            SET koid_epoch_ms = CASE key.prefix WHEN 'koid' THEN current_setting('kid.koid_epoch_ms')::bigint END,
                uid_interval = CASE key.prefix WHEN 'uid_global' THEN current_setting('kid.uid_interval')::integer END
            WHERE c.parent = kid_partition_check.parent
            RETURNING * INTO cfg;
        END IF;
        IF cfg.koid_epoch_ms IS DISTINCT FROM (CASE key.prefix WHEN 'koid' THEN current_setting('kid.koid_epoch_ms')::bigint END)
           OR cfg.uid_interval IS DISTINCT FROM (CASE key.prefix WHEN 'uid_global' THEN current_setting('kid.uid_interval')::integer END) THEN
            RAISE EXCEPTION 'the partitions of % were made under another %', parent,
                    CASE key.prefix WHEN 'koid' THEN 'kid.koid_epoch_ms' ELSE 'kid.uid_interval' END
                USING ERRCODE = 'object_not_in_prerequisite_state',
                DETAIL = format('Their bounds were made with %s = %s; this server has %s: new bounds would not line up with them.',
                                CASE key.prefix WHEN 'koid' THEN 'kid.koid_epoch_ms' ELSE 'kid.uid_interval' END,
                                coalesce(cfg.koid_epoch_ms, cfg.uid_interval),
                                current_setting(CASE key.prefix WHEN 'koid' THEN 'kid.koid_epoch_ms' ELSE 'kid.uid_interval' END)),
                HINT = 'Start the server with the setting the table was partitioned under.';
        END IF;
    END IF;
    -- A uuid table holds version 7 uuids only.  PostgreSQL places a row by
    -- the bytes of its key, so a uuid of another version (a version 4, its
    -- first 48 bits random) would land in whichever time partition its
    -- bits fall in, and be retired with it: a CHECK on the table refuses
    -- it (23514), every partition included, once and for all.  Added at
    -- the first maintenance (it reads every partition), and again if it
    -- is dropped.
    IF key.prefix = 'uuidv7' AND NOT EXISTS (
            SELECT FROM pg_catalog.pg_constraint k
            WHERE k.conrelid = parent AND k.contype = 'c' AND k.convalidated
              AND pg_catalog.pg_get_constraintdef(k.oid) = format('CHECK (((%I IS NULL) OR (@extschema@.uuidv7_to_timestamp(%s) IS NOT NULL)))',
                                                                  key.key_name, CASE WHEN key.key_domain THEN key.key_expr ELSE format('%I', key.key_name) END)) THEN
        new_name := left(rel.relname, 63 - octet_length('_uuidv7')) || '_uuidv7';
        i := 0;
        WHILE EXISTS (SELECT FROM pg_catalog.pg_constraint k WHERE k.conrelid = parent AND k.conname = new_name) LOOP
            i := i + 1;
            new_name := left(rel.relname, 63 - octet_length('_uuidv7_' || i)) || '_uuidv7_' || i;
        END LOOP;
        EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I CHECK (%I IS NULL OR @extschema@.uuidv7_to_timestamp(%s) IS NOT NULL)',
                       parent, new_name, key.key_name, key.key_expr);
    END IF;
    RETURN cfg;
END $$;

COMMENT ON FUNCTION kid_partition_check(regclass) IS
'internal: the checks of kid''s maintenance of a table (configured, the same table, as its owner, partitioned by range on one column of a kid id type or uuid); records the koid or uid_global setting its bounds depend on, adds a uuid table''s version 7 CHECK; returns its configuration';

-- The partitions a table has: the default one, and the others with their
-- bounds as bytea (NULL for MINVALUE and MAXVALUE), in three lists of the
-- same order.
CREATE FUNCTION kid_partition_inventory(
    parent regclass,
    OUT default_part regclass,
    OUT part_oids oid[],
    OUT part_lo bytea[],
    OUT part_hi bytea[])
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    key record;
    p regclass;
    bounds text[];
    k integer;
    lo bytea;
BEGIN
    SELECT * INTO key FROM @extschema@.kid_partition_key(parent);
    part_oids := '{}';
    part_lo := '{}';
    part_hi := '{}';
    FOR p, bounds IN
        SELECT i.inhrelid::regclass,
               regexp_match(pg_catalog.pg_get_expr(r.relpartbound, r.oid), '^FOR VALUES FROM \((.*)\) TO \((.*)\)$')
        FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class r ON r.oid = i.inhrelid
        WHERE i.inhparent = parent
    LOOP
        IF bounds IS NULL THEN
            default_part := p;
            CONTINUE;
        END IF;
        part_oids := part_oids || p::oid;
        FOR k IN 1 .. 2 LOOP
            lo := NULL;
            IF bounds[k] NOT IN ('MINVALUE', 'MAXVALUE') THEN
                EXECUTE format('SELECT ' || key.to_bytes, '$1::' || key.keytype::text)
                    INTO lo USING replace(substr(bounds[k], 2, length(bounds[k]) - 2), '''''', '''');
            END IF;
            IF k = 1 THEN part_lo := part_lo || lo; ELSE part_hi := part_hi || lo; END IF;
        END LOOP;
    END LOOP;
END $$;

COMMENT ON FUNCTION kid_partition_inventory(regclass) IS
'internal: the partitions of a table kid partitions: its default partition, and the others with their bounds as bytea (NULL for MINVALUE and MAXVALUE)';

-- The plan of a run as at time maint_at: the partitions there are, how
-- many periods from at's through premake ahead no partition covers, the
-- horizon (no partition is made for ids from there on), a row waiting in
-- the default partition, the cutoff of the retention and the lock the work
-- needs.  Made again under each lock a run takes.
CREATE FUNCTION kid_partition_plan(
    parent regclass,
    cfg @extschema@.kid_partition_config,
    maint_at timestamptz,
    OUT default_part regclass,   -- the partitions there are (kid_partition_inventory())
    OUT part_oids oid[],
    OUT part_lo bytea[],
    OUT part_hi bytea[],
    OUT missing integer,
    OUT horizon bytea,           -- no partition is made for ids from here on
    OUT found_key bytea,         -- a row waiting in the default partition, below the horizon
    OUT newest timestamptz,      -- the time of the table's newest row (below the horizon)
    OUT cutoff timestamptz,
    OUT cutoff_key bytea,
    OUT clock_cutoff_key bytea,  -- the cutoff of at alone, when it is well ahead of the newest row
    OUT needed text)             -- the lock on the table the work needs ('none': nothing to do)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    key record;
    per record;
    k integer;
    i integer;
    lo bytea;
    hi bytea;
    newest_key bytea;
BEGIN
    PERFORM @extschema@.kid_partition_owner_only(parent);
    SELECT * INTO key FROM @extschema@.kid_partition_key(parent);
    SELECT * INTO default_part, part_oids, part_lo, part_hi FROM @extschema@.kid_partition_inventory(parent);
    -- Periods from at's through premake ahead that no partition covers.
    missing := 0;
    FOR k IN 0 .. cfg.premake LOOP
        per := @extschema@.kid_partition_period(cfg.every, cfg.time_zone, maint_at, k);
        CONTINUE WHEN per.lower >= per.upper;
        EXECUTE key.bounds_sql INTO lo, hi USING per.lower, per.upper;
        IF NOT EXISTS (SELECT FROM generate_subscripts(part_oids, 1) j
                       WHERE (part_lo[j] IS NULL OR part_lo[j] < hi) AND (part_hi[j] IS NULL OR part_hi[j] > lo)) THEN
            missing := missing + 1;
        END IF;
    END LOOP;
    per := @extschema@.kid_partition_period(cfg.every, cfg.time_zone, maint_at, cfg.premake + 1);
    EXECUTE key.bounds_sql INTO horizon, hi USING per.lower, per.upper;
    -- A row waiting in the default partition for a period kid makes.
    found_key := NULL;
    IF default_part IS NOT NULL THEN
        EXECUTE format('SELECT ' || key.to_bytes || ' FROM %s WHERE %s%s ORDER BY %I LIMIT 1',
                       key.key_expr, default_part, key.below, key.v7_only, key.key_name)
            INTO found_key USING horizon;
    END IF;
    -- Partitions wholly older than the cutoff: the retention counted
    -- back from the older of at and the time of the table's newest row.
    -- Dropping is the one thing kid does that cannot be undone, and at
    -- is the clock (the worker's now()), which may be wrong: a server
    -- started with its clock a month ahead would otherwise drop a
    -- month of rows.  The rows are the clock kid can vouch for: a
    -- partition goes only when the table holds a row made retain after
    -- it.  (A table with no row has none to lose.)  The newest row of
    -- the partitions there were before this run, not of the default
    -- partition: a row dated far ahead waits there, and would vouch
    -- for any clock that reached it.  The partitions by upper bound,
    -- from the highest: the first that has a row below the horizon
    -- has the newest.
    cutoff_key := NULL;
    clock_cutoff_key := NULL;
    IF cfg.retain IS NOT NULL THEN
        newest_key := NULL;
        FOR i IN SELECT j FROM generate_subscripts(part_oids, 1) j
                 WHERE part_lo[j] IS NULL OR part_lo[j] < horizon ORDER BY part_hi[j] DESC NULLS FIRST LOOP
            EXECUTE format('SELECT ' || key.to_bytes || ' FROM %s WHERE %s%s ORDER BY %I DESC LIMIT 1',
                           key.key_expr, part_oids[i]::regclass, key.below, key.v7_only, key.key_name)
                INTO newest_key USING horizon;
            EXIT WHEN newest_key IS NOT NULL;
        END LOOP;
        newest := NULL;
        IF newest_key IS NOT NULL THEN
            EXECUTE format('SELECT @extschema@.%s_to_timestamp(' || key.from_bytes || ')', key.prefix, '$1') INTO newest USING newest_key;
        END IF;
        cutoff := @extschema@.kid_partition_minus(least(maint_at, newest), cfg.retain, cfg.time_zone);
        EXECUTE key.bounds_sql INTO cutoff_key, hi USING cutoff, cutoff;
        -- When at is well ahead of the newest row (more than a period,
        -- and more than an hour), what at alone would have retired is
        -- said (a WARNING and rows keep).
        IF maint_at - newest > greatest(cfg.every, interval '1 hour') THEN
            EXECUTE key.bounds_sql INTO clock_cutoff_key, hi
                USING @extschema@.kid_partition_minus(maint_at, cfg.retain, cfg.time_zone), cutoff;
        END IF;
    END IF;

    -- Retiring, even a partition made in this run for rows older than
    -- the cutoff, takes ACCESS EXCLUSIVE, before anything is done: an
    -- upgrade after an ATTACH, which holds ACCESS EXCLUSIVE on the
    -- default partition, would wait for the readers of the table while
    -- they wait for the default partition (a deadlock).
    needed := CASE WHEN EXISTS (SELECT FROM unnest(part_hi) h WHERE h <= cutoff_key) OR found_key < cutoff_key
                   THEN 'ACCESS EXCLUSIVE'
                   WHEN missing > 0 OR found_key IS NOT NULL OR default_part IS NULL THEN 'SHARE ROW EXCLUSIVE'
                   ELSE 'none' END;
END $$;

COMMENT ON FUNCTION kid_partition_plan(regclass, @extschema@.kid_partition_config, timestamptz) IS
'internal: the plan of kid''s maintenance of a table as at time maint_at: its partitions, the periods missing, the horizon, a row waiting in the default partition, the newest row, the cutoff of the retention, the lock the work needs; as the table''s owner only';

-- The lock on the table the plan needs (the run holds SHARE UPDATE
-- EXCLUSIVE, and, when first is false, the weaker lock of an earlier plan).
CREATE FUNCTION kid_partition_lock(parent regclass, needed text, first boolean) RETURNS void
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    p regclass;
    ties regclass[] := '{}'; -- the tables a foreign key ties the table to, which the run locks
    caller_setting text;  -- the caller's lock_timeout
    caller_ms bigint;     -- the same in ms (0: none)
    short_ms bigint;      -- how long an attempt awaits its locks after its first, together (ms)
    locking_since timestamptz;
    first_granted timestamptz;
    last_granted regclass; -- the last lock an attempt was granted
    blocked regclass;     -- the lock an attempt was not granted
BEGIN
    PERFORM @extschema@.kid_partition_owner_only(parent);
    -- (needed goes into LOCK TABLE as it is: one of the two modes the plan names.)
    IF needed IS NULL OR needed NOT IN ('SHARE ROW EXCLUSIVE', 'ACCESS EXCLUSIVE') THEN
        RAISE EXCEPTION 'kid_partition_lock() takes SHARE ROW EXCLUSIVE or ACCESS EXCLUSIVE, not %', coalesce(needed, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- The first lock on the table, with the tables a foreign key ties
    -- it to, which ATTACH and DETACH lock too (SHARE ROW EXCLUSIVE).
    -- Whatever the order, a transaction that writes to them and to the
    -- table in the other order would deadlock with a run that holds
    -- one lock while it waits for the next (a customer, then its
    -- event; an event, then its customer).  So every lock after the
    -- first of an attempt is awaited at most half of deadlock_timeout:
    -- if it is not granted, the attempt's subtransaction ends, which
    -- lets all its locks go; the run then waits for the lock that was
    -- not granted alone, holding none of the others, lets it go, and
    -- tries again (all within the caller's lock_timeout, if any).  Only
    -- the tables the caller may lock (LOCK TABLE's privileges);
    -- PostgreSQL locks the others in ATTACH.  Tables this transaction
    -- already holds (an earlier table of a call for every table) are
    -- not its to let go: then the locks are simply awaited.
    IF first THEN
        ties := ARRAY(SELECT t.oid::regclass FROM (
                          SELECT DISTINCT r.oid FROM pg_catalog.pg_constraint f
                          JOIN pg_catalog.pg_class r ON r.oid IN (f.conrelid, f.confrelid)
                          WHERE f.contype = 'f' AND parent IN (f.conrelid, f.confrelid)
                            AND r.oid NOT IN (SELECT tree.relid FROM pg_catalog.pg_partition_tree(parent) tree)
                            AND pg_catalog.has_schema_privilege(r.relnamespace, 'USAGE')
                            AND pg_catalog.has_table_privilege(r.oid, 'UPDATE, DELETE, TRUNCATE')) t
                      ORDER BY t.oid);
        IF EXISTS (SELECT FROM pg_catalog.pg_locks l
                   WHERE l.pid = pg_catalog.pg_backend_pid() AND l.locktype = 'relation' AND l.granted
                     AND l.relation = ANY (ties::oid[])
                     AND l.mode IN ('ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')) THEN
            FOREACH p IN ARRAY ties LOOP
                EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', p);
            END LOOP;
            ties := '{}';
        END IF;
    END IF;
    IF cardinality(ties) = 0 THEN
        EXECUTE format('LOCK TABLE %s IN %s MODE', parent, needed);
        RETURN;
    END IF;
    caller_setting := current_setting('lock_timeout');
    caller_ms := (extract(epoch FROM caller_setting::interval) * 1000)::bigint;  -- 0: none
    -- Half of deadlock_timeout for all the waits of an attempt after
    -- its first lock together, so that a transaction waiting for a
    -- lock the attempt holds finds no deadlock before the attempt
    -- lets go; and never more than the caller's lock_timeout.
    short_ms := greatest(1, (extract(epoch FROM current_setting('deadlock_timeout')::interval) * 500)::bigint);
    IF caller_ms > 0 THEN
        short_ms := least(short_ms, caller_ms);
    END IF;
    locking_since := pg_catalog.clock_timestamp();
    LOOP
        BEGIN
            last_granted := NULL;
            IF caller_ms > 0 THEN
                PERFORM pg_catalog.set_config('lock_timeout', greatest(1, caller_ms - (extract(epoch FROM
                    pg_catalog.clock_timestamp() - locking_since) * 1000)::bigint)::text, true);
            END IF;
            FOREACH p IN ARRAY ties || parent LOOP
                IF last_granted IS NOT NULL THEN
                    PERFORM pg_catalog.set_config('lock_timeout', greatest(1, short_ms - (extract(epoch FROM
                        pg_catalog.clock_timestamp() - first_granted) * 1000)::bigint)::text, true);
                END IF;
                EXECUTE format('LOCK TABLE %s IN %s MODE', p, CASE WHEN p = parent THEN needed ELSE 'SHARE ROW EXCLUSIVE' END);
                IF last_granted IS NULL THEN
                    first_granted := pg_catalog.clock_timestamp();
                END IF;
                last_granted := p;
            END LOOP;
            PERFORM pg_catalog.set_config('lock_timeout', caller_setting, true);
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            -- (lock_timeout is back as the caller had it.)  The
            -- caller's own timeout on the attempt's first lock.
            IF last_granted IS NULL THEN
                RAISE;
            END IF;
        END;
        -- The lock after the last one granted, awaited alone within
        -- what is left of the caller's lock_timeout.
        blocked := coalesce(ties[array_position(ties, last_granted) + 1], parent);
        IF caller_ms > 0 AND pg_catalog.clock_timestamp() - locking_since >= caller_setting::interval THEN
            RAISE EXCEPTION 'kid could not lock table % and the tables a foreign key ties it to within lock_timeout (%)',
                            parent, caller_setting
                USING ERRCODE = 'lock_not_available';
        END IF;
        BEGIN
            IF caller_ms > 0 THEN
                PERFORM pg_catalog.set_config('lock_timeout', greatest(1, caller_ms - (extract(epoch FROM
                    pg_catalog.clock_timestamp() - locking_since) * 1000)::bigint)::text, true);
            END IF;
            EXECUTE format('LOCK TABLE %s IN %s MODE', blocked, CASE WHEN blocked = parent THEN needed ELSE 'SHARE ROW EXCLUSIVE' END);
            RAISE SQLSTATE 'KP001';  -- granted: let it go (and lock_timeout back)
        EXCEPTION WHEN SQLSTATE 'KP001' THEN
            NULL;
        END;
    END LOOP;
END $$;

COMMENT ON FUNCTION kid_partition_lock(regclass, text, boolean) IS
'internal: takes the lock on a table that kid''s maintenance needs (needed), the first time (first) with the tables a foreign key ties it to, each lock after an attempt''s first awaited at most half of deadlock_timeout, within the caller''s lock_timeout; as the table''s owner only';

-- A new partition of the table, not yet attached: a table like it, in its
-- schema, access method and tablespace; ATTACH PARTITION adds its indexes,
-- foreign keys and row triggers.  Named after the table (cut to leave
-- room), then suffix (_default, or _p and its period's suffix), and _1,
-- _2 ... if that name is taken.
CREATE FUNCTION kid_partition_make_table(parent regclass, suffix text) RETURNS regclass
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    rel record;
    name_base text;
    new_name text;
    i integer;
BEGIN
    PERFORM @extschema@.kid_partition_owner_only(parent);
    PERFORM @extschema@.kid_partition_owner_may_create(parent);
    SELECT c.relname, c.relnamespace, n.nspname, c.reltablespace, c.relam INTO rel
    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE c.oid = parent;
    name_base := rel.relname;
    WHILE octet_length(name_base) > 63 - octet_length('_p00000000_0000_99') LOOP
        name_base := left(name_base, -1);
    END LOOP;
    new_name := name_base || suffix;
    i := 0;
    WHILE @extschema@.kid_partition_name_taken(rel.relnamespace, new_name) LOOP
        i := i + 1;
        new_name := name_base || suffix || '_' || i;
    END LOOP;
    EXECUTE format('CREATE TABLE %I.%I (LIKE %s INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED '
                   'INCLUDING STORAGE INCLUDING COMPRESSION)%s%s', rel.nspname, new_name, parent,
                   (SELECT format(' USING %I', am.amname) FROM pg_catalog.pg_am am WHERE am.oid = rel.relam),
                   (SELECT format(' TABLESPACE %I', ts.spcname) FROM pg_catalog.pg_tablespace ts WHERE ts.oid = rel.reltablespace));
    RETURN format('%I.%I', rel.nspname, new_name)::regclass;
END $$;

COMMENT ON FUNCTION kid_partition_make_table(regclass, text) IS
'internal: makes a table like a table kid partitions, in its schema, access method and tablespace, named after it and suffix (_1, _2 ... if taken), to be attached as its partition; as the table''s owner only';

-- The rows of the default partition from bound lo to below hi (bytea)
-- moved into new_part, before it is attached: DELETE from the default
-- partition (its DELETE triggers fire), INSERT into the new table, every
-- column but generated ones.  Returns how many.
CREATE FUNCTION kid_partition_move(parent regclass, default_part regclass, new_part regclass, lo bytea, hi bytea) RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    columns text;
    moved bigint;
BEGIN
    PERFORM @extschema@.kid_partition_owner_only(parent);
    SELECT string_agg(format('%I', a.attname), ', ' ORDER BY a.attnum) INTO columns
    FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = parent AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '';
    EXECUTE format('WITH moved AS (DELETE FROM %s WHERE %s RETURNING %s) INSERT INTO %s (%s) SELECT %s FROM moved',
                   default_part, (SELECT key.in_range FROM @extschema@.kid_partition_key(parent) key),
                   columns, new_part, columns, columns)
        USING lo, hi;
    GET DIAGNOSTICS moved = ROW_COUNT;
    RETURN moved;
END $$;

COMMENT ON FUNCTION kid_partition_move(regclass, regclass, regclass, bytea, bytea) IS
'internal: moves the rows of the default partition of a table kid partitions whose key is from lo to below hi (bytea) into new_part, not yet attached; returns how many; as the table''s owner only';

-- new_part attached for the keys from lo to below hi (bytea), moved: the
-- rows moved into it.
CREATE FUNCTION kid_partition_attach(parent regclass, new_part regclass, lo bytea, hi bytea, moved bigint) RETURNS void
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    from_bytes text;
    citus boolean;        -- the table is distributed by Citus
    messages text;
BEGIN
    PERFORM @extschema@.kid_partition_owner_only(parent);
    from_bytes := (SELECT key.from_bytes FROM @extschema@.kid_partition_key(parent) key);
    citus := pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL;
    IF citus THEN
        EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1)' INTO citus USING parent;
    END IF;
    -- On a Citus coordinator ATTACH distributes the new table and copies
    -- its rows into its shards (saying so in NOTICEs): the local copy goes.
    IF moved > 0 AND citus THEN
        messages := current_setting('client_min_messages');
        PERFORM pg_catalog.set_config('client_min_messages', 'warning', true);
    END IF;
    EXECUTE format('ALTER TABLE %s ATTACH PARTITION %s FOR VALUES FROM (%s) TO (%s)', parent, new_part,
                   format(from_bytes, quote_literal(lo) || '::pg_catalog.bytea'),
                   format(from_bytes, quote_literal(hi) || '::pg_catalog.bytea'));
    IF moved > 0 AND citus THEN
        EXECUTE 'SELECT pg_catalog.truncate_local_data_after_distributing_table($1)' USING new_part;
        PERFORM pg_catalog.set_config('client_min_messages', messages, true);
    END IF;
END $$;

COMMENT ON FUNCTION kid_partition_attach(regclass, regclass, bytea, bytea, bigint) IS
'internal: attaches new_part to a table kid partitions for the keys from lo to below hi (bytea); on a Citus coordinator, with moved rows, drops the local copy of what ATTACH distributed; as the table''s owner only';

-- The partitions a run makes (it holds SHARE ROW EXCLUSIVE on the table at
-- least): the default partition if there is none, the partitions of the
-- periods from at's through premake ahead; then those of the periods
-- whose rows wait in the default partition, in the order of their ids, up
-- to the horizon.  A period that a partition attached by hand overlaps is
-- left to it.  One row per partition made.
CREATE FUNCTION kid_partition_make(
    parent regclass,
    cfg @extschema@.kid_partition_config,
    maint_at timestamptz,
    horizon bytea,
    OUT action text,
    OUT partition_name text,
    OUT period tstzrange,
    OUT rows bigint,
    OUT detail text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    key record;
    default_part regclass;
    part_oids oid[];      -- the partitions there are, and those made
    part_lo bytea[];
    part_hi bytea[];
    premaking boolean;
    per record;
    k integer := 0;
    i integer;
    lo bytea;
    hi bytea;
    found_key bytea;
    next_key bytea;
    t timestamptz;
    has_rows boolean;
    new_part regclass;
BEGIN
    PERFORM @extschema@.kid_partition_owner_only(parent);
    SELECT * INTO key FROM @extschema@.kid_partition_key(parent);
    SELECT * INTO default_part, part_oids, part_lo, part_hi FROM @extschema@.kid_partition_inventory(parent);
    -- The default partition: it takes the rows no partition covers.
    IF default_part IS NULL THEN
        default_part := @extschema@.kid_partition_make_table(parent, '_default');
        EXECUTE format('ALTER TABLE %s ATTACH PARTITION %s DEFAULT', parent, default_part);
        action := 'create default'; partition_name := default_part::text; period := NULL; rows := 0;
        detail := 'takes the rows no partition covers';
        RETURN NEXT;
    END IF;
    premaking := true;
    next_key := NULL;
    LOOP
        IF premaking AND k > cfg.premake THEN
            premaking := false;
            EXIT WHEN horizon IS NULL;
        END IF;
        IF premaking THEN
            per := @extschema@.kid_partition_period(cfg.every, cfg.time_zone, maint_at, k);
            k := k + 1;
            CONTINUE WHEN per.lower >= per.upper;
            EXECUTE key.bounds_sql INTO lo, hi USING per.lower, per.upper;
            detail := 'premade';
        ELSE
            EXECUTE format('SELECT ' || key.to_bytes || ' FROM %s WHERE %s%s%s ORDER BY %I LIMIT 1',
                           key.key_expr, default_part, key.below, CASE WHEN next_key IS NULL THEN '' ELSE key.from_next END,
                           key.v7_only, key.key_name)
                INTO found_key USING horizon, next_key;
            EXIT WHEN found_key IS NULL;
            EXECUTE format('SELECT @extschema@.%s_to_timestamp(' || key.from_bytes || ')', key.prefix, '$1') INTO t USING found_key;
            per := @extschema@.kid_partition_period(cfg.every, cfg.time_zone, t);
            EXECUTE key.bounds_sql INTO lo, hi USING per.lower, per.upper;
            -- The period whose ids the row is among: for a uid_global of a
            -- node other than 0 made near the end of a period, the next one
            -- (ids sort by node before the seconds within a neighbourhood
            -- window, so every id of the window is >= the bound in it).
            -- (A few periods at most; bounded, so that a period that does not
            -- advance is an error, never a loop without end.)
            i := 0;
            WHILE (found_key >= hi OR found_key < lo) AND i < 1000 LOOP
                per := @extschema@.kid_partition_period(cfg.every, cfg.time_zone, t, CASE WHEN found_key >= hi THEN 1 ELSE -1 END * (i + 1));
                EXECUTE key.bounds_sql INTO lo, hi USING per.lower, per.upper;
                i := i + 1;
            END LOOP;
            IF found_key >= hi OR found_key < lo OR hi <= next_key THEN
                RAISE EXCEPTION 'kid found no period for a row of % in its default partition', parent
                    USING ERRCODE = 'internal_error', DETAIL = format('The row''s time is %s.', t);
            END IF;
            next_key := hi;
            detail := 'for rows of the default partition';
        END IF;
        CONTINUE WHEN EXISTS (SELECT FROM generate_subscripts(part_oids, 1) j
                              WHERE (part_lo[j] IS NULL OR part_lo[j] < hi) AND (part_hi[j] IS NULL OR part_hi[j] > lo));
        -- The period's rows in the default partition move into the new
        -- table before it is attached (kid_partition_move()).  Not when
        -- foreign keys reference the table: the DELETE would run their ON
        -- DELETE action.
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s WHERE %s)', default_part, key.in_range) INTO has_rows USING lo, hi;
        CONTINUE WHEN has_rows AND EXISTS (SELECT FROM pg_catalog.pg_constraint f
                                           WHERE f.contype = 'f' AND f.confrelid IN (SELECT tree.relid FROM pg_catalog.pg_partition_tree(parent) tree));
        new_part := @extschema@.kid_partition_make_table(parent, '_p' || per.suffix);
        rows := 0;
        IF has_rows THEN
            rows := @extschema@.kid_partition_move(parent, default_part, new_part, lo, hi);
        END IF;
        PERFORM @extschema@.kid_partition_attach(parent, new_part, lo, hi, rows);
        part_oids := part_oids || new_part::oid;
        part_lo := part_lo || lo;
        part_hi := part_hi || hi;
        action := 'create'; partition_name := new_part::text; period := tstzrange(per.lower, per.upper);
        RETURN NEXT;
    END LOOP;
END $$;

COMMENT ON FUNCTION kid_partition_make(regclass, @extschema@.kid_partition_config, timestamptz, bytea) IS
'internal: makes the partitions kid''s maintenance of a table plans (the default one if there is none, those of the periods from at''s through premake ahead, those of the rows waiting in the default partition below the horizon), moving the rows into them; one row per partition made; as the table''s owner only';

-- The partitions a run retires (it holds ACCESS EXCLUSIVE on the table):
-- those wholly older than the cutoff, whose every id is below the
-- cutoff's bound (cutoff_key), dropped, or with detach_only only
-- detached; one row each.
CREATE FUNCTION kid_partition_retire(
    parent regclass,
    detach_only boolean,
    cutoff timestamptz,
    cutoff_key bytea,
    OUT action text,
    OUT partition_name text,
    OUT period tstzrange,
    OUT rows bigint,
    OUT detail text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    key record;
    part_oids oid[];      -- the partitions there are, made in this run too
    part_lo bytea[];
    part_hi bytea[];
    p regclass;
    i integer;
    count_left integer := 1024; -- of the pages the run counts (below)
    part_kind "char";
    part_pages bigint;
    estimate text;        -- a partition's rows by its statistics, scaled as the planner does
BEGIN
    PERFORM @extschema@.kid_partition_owner_only(parent);
    SELECT * INTO key FROM @extschema@.kid_partition_key(parent);
    SELECT inv.part_oids, inv.part_lo, inv.part_hi INTO part_oids, part_lo, part_hi FROM @extschema@.kid_partition_inventory(parent) inv;
    FOR i IN SELECT j FROM generate_subscripts(part_oids, 1) j WHERE part_hi[j] <= cutoff_key ORDER BY part_hi[j] LOOP
        p := part_oids[i]::regclass;
        partition_name := p::text;
        period := NULL;
        IF part_lo[i] IS NOT NULL THEN
            EXECUTE format('SELECT tstzrange(@extschema@.%1$s_to_timestamp(%2$s), @extschema@.%1$s_to_timestamp(%3$s))',
                           key.prefix, format(key.from_bytes, '$1'), format(key.from_bytes, '$2'))
                INTO period USING part_lo[i], part_hi[i];
        END IF;
        -- The rows it holds, counted under the ACCESS EXCLUSIVE lock
        -- on the table (and so on the partition) this run holds: no
        -- row comes or goes before it is retired, so the count is
        -- exact (kid_partition_history keeps it).  The run counts 1024
        -- pages (8 MB) in all, the oldest partitions first, so that
        -- the lock is not held for long scans however many partitions
        -- retire; a partition that does not fit in what is left, or
        -- that is not a plain table, or a count that fails for any
        -- reason, has no count (NULL) and is retired all the same.
        detail := format('wholly older than %s', cutoff);
        part_pages := NULL;
        BEGIN
            -- (The statistics' estimate, the owner's to set, scaled to
            -- the pages the partition has now, as the planner does.)
            SELECT r.relkind, pg_catalog.pg_relation_size(r.oid) / current_setting('block_size')::bigint,
                   CASE WHEN r.reltuples < 0 OR r.relpages <= 0 THEN 'its statistics give no estimate'
                        ELSE format('about %s rows by its statistics',
                                    round(r.reltuples::numeric / r.relpages
                                          * (pg_catalog.pg_relation_size(r.oid) / current_setting('block_size')::bigint))) END
            INTO part_kind, part_pages, estimate
            FROM pg_catalog.pg_class r WHERE r.oid = p;
            rows := @extschema@.kid_partition_rows(p, count_left);
            IF rows IS NOT NULL THEN
                count_left := count_left - part_pages;
            ELSIF part_kind <> 'r' THEN
                detail := detail || '; rows not counted: not a plain table';
            ELSIF part_pages > 1024 THEN
                detail := detail || format('; rows not counted: more than 1024 pages (%s)', estimate);
            ELSE
                detail := detail || format('; rows not counted: %s pages, more than the %s left of the 1024 the run counts (%s)',
                                           part_pages, count_left, estimate);
            END IF;
        EXCEPTION WHEN OTHERS THEN
            rows := NULL;
            count_left := greatest(count_left - coalesce(part_pages, 0), 0);
            detail := detail || format('; rows not counted: %s', SQLERRM);
        END;
        IF detach_only THEN
            EXECUTE format('ALTER TABLE %s DETACH PARTITION %s', parent, p);
            action := 'detach';
        ELSE
            EXECUTE format('DROP TABLE %s', p);
            action := 'drop';
        END IF;
        RETURN NEXT;
    END LOOP;
END $$;

COMMENT ON FUNCTION kid_partition_retire(regclass, boolean, timestamptz, bytea) IS
'internal: retires (drops, or with detach_only detaches) the partitions of a table kid partitions whose every key is below cutoff_key, the cutoff of the retention, counting their rows; one row each; as the table''s owner only';

-- The partitions at alone would have retired (below clock_cutoff_key, the
-- cutoff of the retention counted back from at) but the newest row of the
-- table keeps: a row keep each, and a WARNING.  (Those below the cutoff of
-- the newest row are retired by then; a run that took no lock has none.)
CREATE FUNCTION kid_partition_keep(
    parent regclass,
    maint_at timestamptz,
    newest timestamptz,
    retain interval,
    clock_cutoff_key bytea,
    OUT action text,
    OUT partition_name text,
    OUT period tstzrange,
    OUT rows bigint,
    OUT detail text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    part_oids oid[];
    part_hi bytea[];
    p regclass;
    i integer;
BEGIN
    PERFORM @extschema@.kid_partition_owner_only(parent);
    IF clock_cutoff_key IS NULL THEN
        RETURN;
    END IF;
    SELECT inv.part_oids, inv.part_hi INTO part_oids, part_hi FROM @extschema@.kid_partition_inventory(parent) inv;
    i := 0;
    FOR p IN SELECT part_oids[j]::regclass FROM generate_subscripts(part_oids, 1) j
             WHERE part_hi[j] <= clock_cutoff_key
             ORDER BY part_hi[j] LOOP
        action := 'keep'; partition_name := p::text; period := NULL; rows := NULL;
        detail := format('older than the retention by the time %s, not by the newest row, made at %s', maint_at, newest);
        RETURN NEXT;
        i := i + 1;
    END LOOP;
    IF i > 0 THEN
        RAISE WARNING 'kid keeps % partitions of % that the retention would retire by the clock', i, parent
            USING DETAIL = format('The clock reads %s, but the newest row of the table was made at %s, %s before: kid counts the retention (%s) back from the older of the two.',
                                  maint_at, newest, maint_at - newest, retain),
                  HINT = 'If the clock is right and the table has had no row since, retire them by hand (DROP TABLE, or ALTER TABLE ... DETACH PARTITION).';
    END IF;
END $$;

COMMENT ON FUNCTION kid_partition_keep(regclass, timestamptz, timestamptz, interval, bytea) IS
'internal: one row keep for each partition of a table kid partitions that the retention counted back from maint_at would retire (below clock_cutoff_key) but the one counted back from its newest row keeps, and a WARNING; as the table''s owner only';

-- The maintenance of one table (kid_partition_maintain() below calls it
-- through kid_partition_maintain_as_owner(), as the table's owner; no one
-- else may call it).
--
-- Locks (docs/partitioning.md, "Locks"): SHARE UPDATE EXCLUSIVE on the
-- table alone (ONLY: not its partitions) serializes runs (the worker's and
-- one by hand), a lock only roles that may write the table can take (an
-- advisory lock anyone could hold); a run with nothing to do takes no
-- other.  To make partitions and move rows it takes SHARE ROW
-- EXCLUSIVE on the table (writers wait, readers do not: an INSERT planned
-- with the partitions of before would route a row by them), and ATTACH
-- PARTITION takes ACCESS EXCLUSIVE on the default partition.  Retiring a
-- partition (DROP TABLE, DETACH PARTITION) takes ACCESS EXCLUSIVE on the
-- table, before anything is done (the plan is made again under each lock
-- taken, and a stronger one taken when it needs one).  The tables a
-- foreign key ties the table to are locked with it (below).  DETACH
-- PARTITION ... CONCURRENTLY is not used: PostgreSQL refuses it while the
-- table has a default partition, and inside a function.  Every lock is
-- held to the end of the transaction.
CREATE FUNCTION kid_partition_maintain_table(
    parent regclass,
    at timestamptz,
    OUT parent_table regclass,
    OUT action text,
    OUT partition_name text,
    OUT period tstzrange,
    OUT rows bigint,
    OUT detail text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    maint_at timestamptz := $2;
    cfg @extschema@.kid_partition_config;
    plan record;          -- what there is, what to do, and the lock it needs (kid_partition_plan())
    taken integer := 0;
    lock_mode text;       -- the lock on the table this run holds ('none': it takes none)
    default_part regclass;
BEGIN
    IF maint_at IS NULL OR NOT isfinite(maint_at) THEN
        RAISE EXCEPTION 'kid_partition_maintain needs a finite time, not %', coalesce(maint_at::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM @extschema@.kid_partition_read_committed();

    parent_table := parent;
    -- One run per table at a time: a second one waits here, then finds the
    -- first one's work done.  (It conflicts with itself, not with readers
    -- and writers, nor with VACUUM of the partitions.)
    EXECUTE format('LOCK TABLE ONLY %s IN SHARE UPDATE EXCLUSIVE MODE', parent);

    -- Check: the configuration, the table and its key.
    cfg := @extschema@.kid_partition_check(parent);

    -- Plan: what there is and what is missing; once more under the table
    -- lock when something is to be done.
    LOOP
        SELECT * INTO plan FROM @extschema@.kid_partition_plan(parent, cfg, maint_at);
        IF lock_mode IS NULL AND plan.needed = 'none' THEN
            lock_mode := 'none';
            EXIT;
        END IF;
        -- Planned under a lock strong enough: done.  Otherwise the plan
        -- changed while the lock was awaited (a writer it waited for put a
        -- row older than the cutoff into the default partition): the
        -- stronger lock, and the plan once more.
        EXIT WHEN lock_mode = 'ACCESS EXCLUSIVE' OR (lock_mode = 'SHARE ROW EXCLUSIVE' AND plan.needed <> 'ACCESS EXCLUSIVE');
        PERFORM @extschema@.kid_partition_lock(parent, plan.needed, lock_mode IS NULL);
        lock_mode := plan.needed;
    END LOOP;

    -- Nothing to do: rows that came into the default partition since the
    -- plan was made wait for the next run (moving them needs the lock).
    -- Otherwise make what is missing, then retire what is old (the
    -- partitions made in this run too).
    IF lock_mode <> 'none' THEN
        FOR action, partition_name, period, rows, detail IN
            SELECT * FROM @extschema@.kid_partition_make(parent, cfg, maint_at, plan.horizon)
        LOOP
            taken := taken + 1;
            RETURN NEXT;
        END LOOP;
        FOR action, partition_name, period, rows, detail IN
            SELECT * FROM @extschema@.kid_partition_retire(parent, cfg.detach_only, plan.cutoff, plan.cutoff_key)
        LOOP
            taken := taken + 1;
            RETURN NEXT;
        END LOOP;
    END IF;
    RETURN QUERY SELECT parent, k.* FROM @extschema@.kid_partition_keep(parent, maint_at, plan.newest, cfg.retain, plan.clock_cutoff_key) k;

    -- What stays in the default partition: rows beyond the
    -- horizon, rows of a period a partition attached by hand overlaps, rows
    -- of a table that foreign keys reference, uuids that are not version 7.
    default_part := (SELECT pt.partdefid::regclass FROM pg_catalog.pg_partitioned_table pt WHERE pt.partrelid = parent);
    EXECUTE format('SELECT count(*) FROM %s', default_part) INTO rows;
    IF rows > 0 THEN
        action := 'wait'; partition_name := default_part::text; period := NULL;
        detail := 'rows left in the default partition';
        RETURN NEXT;
    END IF;

    INSERT INTO @extschema@.kid_partition_state AS s (parent, last_run, last_actions)
    VALUES (parent, pg_catalog.clock_timestamp(), taken)
    ON CONFLICT ON CONSTRAINT kid_partition_state_pkey DO UPDATE
        SET last_run = EXCLUDED.last_run, last_actions = EXCLUDED.last_actions, failed_runs = 0;
END $$;

COMMENT ON FUNCTION kid_partition_maintain_table(regclass, timestamptz) IS
'internal: the maintenance of one table as at time at, run as the table''s owner by kid_partition_maintain_as_owner() (no one may call it directly)';
REVOKE ALL ON FUNCTION kid_partition_maintain_table(regclass, timestamptz) FROM PUBLIC;

-- The door to kid_partition_maintain_table(): checks that the caller owns
-- the table (is a member of its owning role, or a superuser), then runs it
-- as the owner, security-restricted, with search_path pinned
-- (src/pg/partition_maintenance.cpp).
CREATE FUNCTION kid_partition_maintain_as_owner(
    parent regclass,
    at timestamptz,
    OUT parent_table regclass,
    OUT action text,
    OUT partition_name text,
    OUT period tstzrange,
    OUT rows bigint,
    OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'kid_partition_maintain_as_owner' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION kid_partition_maintain_as_owner(regclass, timestamptz) IS
'internal: runs kid_partition_maintain_table(parent, at) as the owner of the table, security-restricted, with search_path pinned to pg_catalog, pg_temp, for a caller who owns the table (a member of its role, or a superuser); 42501 for any other';

-- The maintenance of one table, or of every table the caller owns.
CREATE FUNCTION kid_partition_maintain(
    parent regclass DEFAULT NULL,
    at timestamptz DEFAULT pg_catalog.now(),
    OUT parent_table regclass,
    OUT action text,
    OUT partition_name text,
    OUT period tstzrange,
    OUT rows bigint,
    OUT detail text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    p regclass;
BEGIN
    -- kid's schema is still the one this script named (see kid_schema_intact()).
    IF EXISTS (SELECT FROM pg_catalog.pg_event_trigger t JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) t.evtfoid
               WHERE t.evtname OPERATOR(pg_catalog.=) 'kid_partition_forget'
                 AND p.pronamespace IS DISTINCT FROM pg_catalog.to_regnamespace('@extschema@')) THEN
        RAISE EXCEPTION 'kid''s schema is no longer @extschema@' USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'kid''s functions name their schema as it was when kid was installed: another schema of that name would take their calls.',
            HINT = 'Give kid''s schema its name back (ALTER SCHEMA ... RENAME TO ...).';
    END IF;
    IF $2 IS NULL OR NOT isfinite($2) THEN
        RAISE EXCEPTION 'kid_partition_maintain needs a finite time, not %', coalesce($2::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM @extschema@.kid_partition_read_committed();
    IF parent IS NOT NULL THEN
        RETURN QUERY SELECT * FROM @extschema@.kid_partition_maintain_as_owner(parent, $2);
        RETURN;
    END IF;
    -- Every configured table the caller owns, each in a subtransaction of
    -- its own: one that fails is recorded, a WARNING and a row 'fail', and
    -- keeps neither the others nor the next run from being done.
    FOR p IN SELECT c.parent FROM @extschema@.kid_partition_config c ORDER BY c.parent::text LOOP
        IF NOT EXISTS (SELECT FROM pg_catalog.pg_class r WHERE r.oid = p) THEN
            DELETE FROM @extschema@.kid_partition_config c WHERE c.parent = p;
            parent_table := p; action := 'forget'; partition_name := NULL; period := NULL; rows := NULL;
            detail := 'the table is gone: its configuration is removed';
            RETURN NEXT;
            CONTINUE;
        END IF;
        CONTINUE WHEN NOT pg_catalog.pg_has_role(current_user, (SELECT r.relowner FROM pg_catalog.pg_class r WHERE r.oid = p), 'USAGE');
        BEGIN
            RETURN QUERY SELECT * FROM @extschema@.kid_partition_maintain_as_owner(p, $2);
        EXCEPTION WHEN OTHERS THEN
            -- Its record may fail too (its state row locked, or written
            -- by its owner): a WARNING, and the other tables go on.
            BEGIN
                PERFORM @extschema@.kid_partition_failed(p, SQLERRM);
            EXCEPTION WHEN OTHERS THEN
                RAISE WARNING 'kid could not record the failed maintenance of %: %', p, SQLERRM;
            END;
            RAISE WARNING 'kid could not maintain the partitions of %: %', p, SQLERRM;
            parent_table := p; action := 'fail'; partition_name := NULL; period := NULL; rows := NULL;
            detail := SQLERRM;
            RETURN NEXT;
        END;
    END LOOP;
END $$;

COMMENT ON FUNCTION kid_partition_maintain(regclass, timestamptz) IS
'Maintains the time partitions of a table kid_partition_by_time() configured (every table the caller owns when parent is NULL, each apart: a failure is recorded, warned of and returned as a row fail), as the table''s owner, security-restricted, with search_path pinned, whoever calls. As at time at: makes the partitions of at''s period through premake periods ahead; moves the rows waiting in the default partition into partitions made for their periods, up to that horizon; drops (or detaches) the partitions wholly older than the retention, counted back from the older of at and the table''s newest row. Idempotent; what it makes and retires is recorded in kid_partition_history (nothing when the caller rolls back: a dry run). One row per action: create default, create (rows: moved into it), drop, detach (rows: the partition held, counted under the lock; NULL, with the reason in detail, for one beyond the 1024 pages a run counts in all, or not a plain table), wait (rows left in the default partition), keep (a partition older than the retention by at alone, kept for the newest row), forget (a configured table that is gone), fail.';

CREATE FUNCTION kid_partition_by_time(
    parent regclass,
    every interval,
    premake integer DEFAULT 4,
    retain interval DEFAULT NULL,
    detach_only boolean DEFAULT false,
    time_zone text DEFAULT 'UTC',
    at timestamptz DEFAULT pg_catalog.now(),
    OUT parent_table regclass,
    OUT action text,
    OUT partition_name text,
    OUT period tstzrange,
    OUT rows bigint,
    OUT detail text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    -- kid's schema is still the one this script named (see kid_schema_intact()).
    IF EXISTS (SELECT FROM pg_catalog.pg_event_trigger t JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) t.evtfoid
               WHERE t.evtname OPERATOR(pg_catalog.=) 'kid_partition_forget'
                 AND p.pronamespace IS DISTINCT FROM pg_catalog.to_regnamespace('@extschema@')) THEN
        RAISE EXCEPTION 'kid''s schema is no longer @extschema@' USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'kid''s functions name their schema as it was when kid was installed: another schema of that name would take their calls.',
            HINT = 'Give kid''s schema its name back (ALTER SCHEMA ... RENAME TO ...).';
    END IF;
    IF parent IS NULL OR every IS NULL OR premake IS NULL OR detach_only IS NULL OR time_zone IS NULL OR $7 IS NULL THEN
        RAISE EXCEPTION 'kid_partition_by_time needs a table, a period, premake, detach_only, a time zone and a time'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF NOT isfinite($7) THEN
        RAISE EXCEPTION 'kid_partition_by_time needs a finite time, not %', $7 USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF premake NOT BETWEEN 0 AND 1000 THEN
        RAISE EXCEPTION 'premake must be from 0 to 1000 periods, not %', premake USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF retain <= interval '0' THEN
        RAISE EXCEPTION 'retain must be a positive interval, not %', retain USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- The period and the time zone are valid (or this raises).
    PERFORM @extschema@.kid_partition_period(every, time_zone, $7);
    -- Refused now, not from the first run that must make a partition on
    -- (the worker's, unseen, while rows pile up in the default partition).
    PERFORM @extschema@.kid_partition_owner_may_create(parent);
    -- A row under the table's OID but another name is about a table that
    -- is gone (its OID came round again) or was renamed unseen: it ends
    -- first, recorded as the end of that configuration in the pool of the
    -- owner it recorded, rather than be taken over with its history.
    DELETE FROM @extschema@.kid_partition_config c
    WHERE c.parent = $1 AND c.relname <> (SELECT r.relname FROM pg_catalog.pg_class r WHERE r.oid = $1);
    INSERT INTO @extschema@.kid_partition_config AS c (parent, every, premake, retain, detach_only, time_zone)
    VALUES (parent, every, premake, retain, detach_only, time_zone)
    ON CONFLICT ON CONSTRAINT kid_partition_config_pkey DO UPDATE
        SET every = EXCLUDED.every, premake = EXCLUDED.premake, retain = EXCLUDED.retain,
            detach_only = EXCLUDED.detach_only, time_zone = EXCLUDED.time_zone, configured_at = pg_catalog.now();
    RETURN QUERY SELECT * FROM @extschema@.kid_partition_maintain(parent, $7);
END $$;

COMMENT ON FUNCTION kid_partition_by_time(regclass, interval, integer, interval, boolean, text, timestamptz) IS
'Partitions a table PARTITION BY RANGE on a kid id (sno, atproto_tid, koid, uid, uid_global) or uuid (version 7 only: a CHECK refuses other versions) by time: records it in kid_partition_config (again: changes its configuration) and makes, with bounds from the key type''s *_from_timestamp, the partitions [t, t + every) of at''s period through premake periods ahead, and a default partition, as the table''s owner. every is a number of months, days or minutes dividing a day, on time_zone''s calendar; retain (NULL: keep all) retires at each maintenance the partitions wholly older than the retention counted back from the older of now and the table''s newest row, dropped or, with detach_only, detached. Refuses a temporary table. Returns what kid_partition_maintain() did.';
