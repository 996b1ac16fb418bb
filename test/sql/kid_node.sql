-- kid_node_info(): this server's node identity and what it generated since
-- start-up (kid is preloaded here, on a primary with kid.node_id = 0).
SET TIME ZONE 'UTC';

-- One row per scheme: the node id setting, this cluster's system identifier,
-- and generation allowed (a primary).
SELECT scheme,
       node_id = current_setting('kid.node_id')::int AS is_node_id_setting,
       system_identifier = (SELECT system_identifier FROM pg_control_system()) AS is_system_identifier,
       generation
FROM kid_node_info();

-- The node field each scheme puts in its ids: the node id in sno partitions
-- and tid clock ids, the koid generator id, the uid_global fingerprint.
SELECT scheme,
       node_field = CASE scheme
           WHEN 'koid' THEN CASE WHEN current_setting('kid.koid_generator_id')::int >= 0
                                 THEN current_setting('kid.koid_generator_id')::int
                                 ELSE current_setting('kid.node_id')::int END
           WHEN 'uid' THEN uid_node_fingerprint()
           ELSE current_setting('kid.node_id')::int END AS is_node_field
FROM kid_node_info();

-- After generating, the last id of each counter scheme is the one just made,
-- and last_made is the end of its time unit (the time the lease must cover).
-- (uuidv7 generates too, so that every scheme has generated below, whatever
-- tests ran on the server before.)
SELECT sno_new() AS s, tid_new() AS t, koid_new() AS k, uid_new() AS u, uuidv7_new() AS v \gset
SELECT scheme,
       CASE scheme
           WHEN 'sno' THEN last_made = sno_to_timestamp(:'s') + interval '3.999 ms' AND last_id IS NULL
           WHEN 'atproto_tid' THEN last_id = :'t' AND last_made = tid_to_timestamp(:'t')
           WHEN 'koid' THEN last_id = :'k' AND last_made = koid_to_timestamp(:'k') + interval '0.999 ms'
           WHEN 'uid' THEN last_id = :'u' AND last_made = uid_to_timestamp(:'u') + interval '1.023 ms'
       END AS last_is_newest
FROM kid_node_info();

-- What holds for every scheme once it generated: something was generated,
-- first <= last (one session, a clock that did not go back), the generators
-- started at or above their floor, and the lease covers more than
-- LEASE_RENEW (5 s) past the last id, written to the file and, on a
-- primary, to the WAL.
SELECT scheme,
       generated > 0 AS generated,
       first_made <= last_made AS first_before_last,
       generator_floor IS NULL OR generator_floor <= first_made AS above_floor,
       covered_until > last_made + interval '5 seconds' AS renewed_ahead,
       lease_writes > 0 AND lease_records > 0 AS lease_logged
FROM kid_node_info();

-- startup_mark says what the startup floor is: the exact marks of a clean
-- shutdown, a lease written ahead, or (NULL) no kid.lease at start-up, so
-- no floor either.  One value for the whole server.
SELECT count(DISTINCT coalesce(startup_mark, 'none')) = 1 AS one_kind,
       bool_and(startup_mark IS NULL OR startup_mark IN ('exact', 'ahead')) AS known_kind,
       bool_and(startup_mark IS NOT NULL OR startup_floor IS NULL) AS no_file_no_floor
FROM kid_node_info();

-- Ids made since are newer than the earlier last ones.
SELECT tid_new() > :'t'::atproto_tid AS tid_rises,
       (SELECT last_id FROM kid_node_info() WHERE scheme = 'atproto_tid') > :'t' AS last_id_rises;

-- One scheme name everywhere: the SQL type names, in
-- kid_node_info, kid_generator_stats and the lease lines.
SELECT (SELECT array_agg(scheme ORDER BY scheme) FROM kid_node_info()) AS node_info,
       (SELECT array_agg(scheme ORDER BY scheme) FROM kid_generator_stats()) AS generator_stats,
       (SELECT array_agg(line ORDER BY line) FROM kid_lease()) AS lease_lines;

-- The WAL resource manager id is fixed at server start.
SHOW kid.wal_rmgr_id;
SET kid.wal_rmgr_id = 129;

SELECT obj_description('kid_node_info()'::regprocedure, 'pg_proc') IS NOT NULL AS has_comment;
