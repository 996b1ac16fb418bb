
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

INSERT INTO kid_database_origin (position, system_identifier, how)
SELECT 0, system_identifier, 'created' FROM pg_catalog.pg_control_system();

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
