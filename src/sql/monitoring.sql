
-- ---------------------------------------------------------------------------
-- Server-wide introspection
-- ---------------------------------------------------------------------------

CREATE FUNCTION kid_generator_stats(
    OUT scheme text,
    OUT generated bigint,
    OUT regressions bigint,
    OUT overflow_waits bigint,
    OUT clock_waits bigint,
    OUT ahead_waits bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'kid_generator_stats'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION kid_generator_stats() IS
'What each id generator of this server did since start-up, one row per generated scheme (the uid row counts uid and uid_global, which share one generator): ids generated; regressions, the ids (koid: calls) made while the clock read below a reading seen before, i.e. a clock that went back; overflow_waits, waits because the ids of the current time unit ran out; clock_waits, waits for a clock behind the generator; ahead_waits, waits because the next id would be further ahead of the clock than its scheme allows (a count is 0 for a scheme that never waits that way: docs/lease.md). Empty when kid is not in shared_preload_libraries.';

CREATE FUNCTION kid_lease(
    OUT line text,
    OUT covered_until timestamptz,
    OUT startup_floor timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'kid_lease'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION kid_lease() IS
'The persisted high-water marks of generated time, one row per lease line (each scheme''s, one per timeline of sno, and the commit horizon''s of sno and uuid, in kid.lease''s order; kid_raise_floors() takes lines by these names): ids up to covered_until are recorded in the data directory file kid.lease; generators started above startup_floor after the last start (the exact marks of a clean shutdown, else a lease written ahead).';

-- ---------------------------------------------------------------------------
-- Node identity, for spotting two servers that generate with one node id
-- ---------------------------------------------------------------------------

CREATE FUNCTION kid_node_info(
    OUT scheme text,
    OUT node_id integer,
    OUT node_field bigint,
    OUT system_identifier bigint,
    OUT generation text,
    OUT generated bigint,
    OUT first_made timestamptz,
    OUT last_made timestamptz,
    OUT last_id text,
    OUT startup_floor timestamptz,
    OUT startup_mark text,
    OUT generator_floor timestamptz,
    OUT covered_until timestamptz,
    OUT replayed_until timestamptz,
    OUT replayed_node_id integer,
    OUT lease_writes bigint,
    OUT lease_records bigint,
    OUT replayed_records bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'kid_node_info'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION kid_node_info() IS
'One row per generated scheme: kid.node_id and the node field the scheme puts in its ids (sno partition high byte and tid clock id = node id, koid generator id, uid_global node fingerprint), the system identifier, whether generation is allowed here or why not, ids generated since start-up with the first and last time made and the last id (counter schemes), the floor every generator started above (startup_mark: exact when a clean shutdown wrote it as the exact high-water mark, ahead when it is a lease written ahead, after a crash or an immediate shutdown; NULL without a lease file) and is above now, the lease mark written here (covered_until) and the one replayed from WAL with the node id that wrote it, and counts of lease file writes, lease WAL records written and replayed. Two servers reporting the same node_id with overlapping first_made..last_made may generate the same ids.';

-- What the server's generators did, their last ids and the system identifier
-- are statistics about every user's activity: like pg_stat_statements' query
-- texts and pg_stat_activity's other sessions, they are for superusers and
-- members of pg_read_all_stats (pg_monitor is one).
REVOKE EXECUTE ON FUNCTION kid_generator_stats(), kid_lease(), kid_node_info() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION kid_generator_stats(), kid_lease(), kid_node_info() TO pg_read_all_stats;

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
