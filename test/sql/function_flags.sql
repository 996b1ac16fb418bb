--
-- Volatility and parallel safety of kid's functions that are not IMMUTABLE
-- (README, Design notes).  Generators are VOLATILE, so that DEFAULT
-- x_new() gives every row its own id.  sno_new and sno_new_with_time are
-- PARALLEL RESTRICTED: they draw from this backend's partition (one of 256
-- per server), and a parallel worker would claim a partition of its own.
-- tid_new, koid_new, uid_new and uid_global_new are PARALLEL SAFE: their
-- state is one word in shared memory, advanced by compare-and-swap, the
-- same from any process; so are their *_new_with_time (one shared
-- sequence word per scheme, fetch-and-add).
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'kid' AND p.provolatile <> 'i'
ORDER BY p.provolatile DESC, p.proname::text, p.oid::regprocedure::text;

-- So a parallel plan evaluates sno_new in the leader (above the Gather)
-- and the other generators in the workers (below it).
CREATE TABLE regress_parallel AS SELECT g FROM generate_series(1, 20000) g;
ALTER TABLE regress_parallel SET (parallel_workers = 2);
ANALYZE regress_parallel;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- VERBOSE plans without the "Query Identifier" line that pg_stat_statements
-- (preloaded before kid on many servers make installcheck runs against)
-- would add, by turning compute_query_id on.
SET compute_query_id = off;
EXPLAIN (COSTS OFF, VERBOSE)
SELECT sno_new(), sno_new_with_time('2024-01-01 00:00+00') FROM regress_parallel;
EXPLAIN (COSTS OFF, VERBOSE)
SELECT tid_new(), koid_new(), uid_new(), uid_global_new() FROM regress_parallel;
-- Ids made by the leader and the workers together are unique.
SELECT count(*) AS ids, count(DISTINCT t) AS tid, count(DISTINCT k) AS koid,
       count(DISTINCT u) AS uid, count(DISTINCT ug) AS uid_global
FROM (SELECT tid_new() t, koid_new() k, uid_new() u, uid_global_new() ug FROM regress_parallel) s;
SELECT count(*) AS ids, count(DISTINCT s) AS sno FROM (SELECT sno_new() s FROM regress_parallel) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE regress_parallel;
