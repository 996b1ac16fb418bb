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
-- src/sql/id_type.sql.in and test/stress/catalog_sanity.sh).  Every equality
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
    uid_nodes text[] := '{}';
    epochs text[] := '{}';
    intervals integer[] := '{}';
    clash record;
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
    -- and each scheme's node field.
    remote := format($r$SELECT pg_catalog.json_build_object(
        'node_id', pg_catalog.current_setting('kid.node_id', true),
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
                      HINT = 'Every node needs kid in shared_preload_libraries and the kid extension.';
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
        uid_nodes := uid_nodes || uid_node;
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

    -- Every generating node needs its own node field in every scheme.
    FOR clash IN
        SELECT s.setting, s.value, s.schemes, string_agg(s.label, ', ' ORDER BY s.ord) AS nodes
        FROM (SELECT 'kid.node_id' AS setting, v.value::text AS value, 'sno and atproto_tid' AS schemes, v.label, v.ord, 1 AS pos
              FROM unnest(node_ids, labels) WITH ORDINALITY AS v(value, label, ord)
              UNION ALL
              SELECT 'koid generator id (kid.koid_generator_id, else kid.node_id)', v.value::text, 'koid', v.label, v.ord, 2
              FROM unnest(koid_ids, labels) WITH ORDINALITY AS v(value, label, ord)
              UNION ALL
              SELECT 'uid_global node fingerprint (kid.uid_node, else from kid.node_id)', v.value, 'uid_global', v.label, v.ord, 3
              FROM unnest(uid_nodes, labels) WITH ORDINALITY AS v(value, label, ord)) s
        GROUP BY s.setting, s.value, s.schemes, s.pos
        HAVING count(*) > 1
        ORDER BY s.pos, min(s.ord)
    LOOP
        RAISE EXCEPTION '% % is shared by nodes %', clash.setting, clash.value, clash.nodes
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Their %s ids can collide, and Citus checks uniqueness per shard only.', clash.schemes),
                  HINT = 'Give every node its own kid.node_id (for instance its Citus group id) and restart it.';
    END LOOP;
    -- Decoding and range scans read these settings on whichever node runs them.
    IF (SELECT count(DISTINCT e) FROM unnest(epochs) e) > 1 THEN
        RAISE EXCEPTION 'kid.koid_epoch_ms differs between nodes: %',
                (SELECT string_agg(format('%s on %s', e, l), ', ' ORDER BY o) FROM unnest(epochs, labels) WITH ORDINALITY AS v(e, l, o))
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A koid decodes to another time, and a time range selects other koids, on each of them.',
                  HINT = 'Set the same kid.koid_epoch_ms on every node.';
    END IF;
    IF (SELECT count(DISTINCT i) FROM unnest(intervals) i) > 1 THEN
        RAISE EXCEPTION 'kid.uid_interval differs between nodes: %',
                (SELECT string_agg(format('%s on %s', i, l), ', ' ORDER BY o) FROM unnest(intervals, labels) WITH ORDINALITY AS v(i, l, o))
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A uid_global decodes to another time, and a time range selects other ids, on each of them.',
                  HINT = 'Set the same kid.uid_interval on every node.';
    END IF;
END $$;

COMMENT ON FUNCTION kid_cluster_check() IS
'On a Citus coordinator: every node''s kid.node_id, koid generator id, uid_global node fingerprint, kid.koid_epoch_ms and kid.uid_interval, one row per node (the coordinator included: it generates for INSERT ... VALUES and COPY); ERROR 22023 naming the nodes when two of them share a node field or these settings differ, ERROR 55000 when a node cannot generate or Citus is not installed.';
