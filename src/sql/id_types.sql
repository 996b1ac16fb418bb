
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
