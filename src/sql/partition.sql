
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
