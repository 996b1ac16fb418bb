-- kid_cluster_check() on a server without Citus: it needs Citus (it reads
-- every node's settings through Citus's run_command_on_all_nodes) and says
-- so; kid itself does not depend on Citus.  test/server/43-citus.sh runs it on
-- a real cluster, correct and misconfigured.
\set SHOW_CONTEXT never
SELECT count(*) AS citus_installed FROM pg_extension WHERE extname = 'citus';
SELECT * FROM kid_cluster_check();
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- What it returns, one row per node.
SELECT p.oid::regprocedure AS function, pg_get_function_result(p.oid) AS result, p.provolatile, p.proparallel,
       p.proconfig
FROM pg_proc p WHERE p.proname = 'kid_cluster_check';
