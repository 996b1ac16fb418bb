-- kid: k-ordered unique identifiers for PostgreSQL.
--
-- This install script is assembled from one file per scheme (sql/*.sql in
-- the source tree).  Each part reads top to bottom: the type and its I/O,
-- casts, comparison functions and operators, operator classes, generation,
-- decoding.  Every object has a COMMENT.  References to kid's own objects are
-- schema-qualified with @extschema@ so that no search_path can redirect them.

\echo Use "CREATE EXTENSION kid" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Server-wide introspection
-- ---------------------------------------------------------------------------

CREATE FUNCTION kid_generator_stats(
    OUT scheme text,
    OUT generated bigint,
    OUT regressions bigint,
    OUT overflow_waits bigint,
    OUT clock_waits bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'kid_generator_stats'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION kid_generator_stats() IS
'What each id generator of this server did since start-up: ids generated, clock regressions absorbed, waits for an exhausted sequence, waits for the clock. Empty when kid is not in shared_preload_libraries.';

CREATE FUNCTION kid_lease(
    OUT line text,
    OUT covered_until timestamptz,
    OUT startup_floor timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'kid_lease'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION kid_lease() IS
'The persisted high-water marks of generated time: ids up to covered_until are recorded in the data directory file kid.lease; generators started above startup_floor after the last start.';
