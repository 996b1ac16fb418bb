
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

INSERT INTO kid_database_origin (position, system_identifier, how)
SELECT 0, system_identifier, 'created' FROM pg_catalog.pg_control_system();

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
