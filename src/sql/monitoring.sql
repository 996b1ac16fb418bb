
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
'What each id generator of this server did since start-up, one row per scheme (sno, atproto_tid, koid, uid; uid counts uid and uid_global): ids generated; regressions, the ids (koid: calls) made while the clock read below a reading seen before, i.e. a clock that went back; overflow_waits, waits because the ids of the current time unit ran out (sno, koid, uid); clock_waits, waits for a clock behind the generator (sno, koid); ahead_waits, waits because the next atproto_tid would be more than 1 ms ahead of the clock. Empty when kid is not in shared_preload_libraries.';

CREATE FUNCTION kid_lease(
    OUT line text,
    OUT covered_until timestamptz,
    OUT startup_floor timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'kid_lease'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION kid_lease() IS
'The persisted high-water marks of generated time, one line per scheme (sno tick 0, sno tick 1, atproto_tid, koid, uid): ids up to covered_until are recorded in the data directory file kid.lease; generators started above startup_floor after the last start (the exact marks of a clean shutdown, else a lease written ahead).';

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
'One row per scheme (sno, atproto_tid, koid, uid): kid.node_id and the node field the scheme puts in its ids (sno partition high byte and tid clock id = node id, koid generator id, uid_global node fingerprint), the system identifier, whether generation is allowed here or why not, ids generated since start-up with the first and last time made and the last id (counter schemes), the floor every generator started above (startup_mark: exact when a clean shutdown wrote it as the exact high-water mark, ahead when it is a lease written ahead, after a crash or an immediate shutdown; NULL without a lease file) and is above now, the lease mark written here (covered_until) and the one replayed from WAL with the node id that wrote it, and counts of lease file writes, lease WAL records written and replayed. Two servers reporting the same node_id with overlapping first_made..last_made may generate the same ids.';
