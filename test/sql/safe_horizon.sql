-- horizon: <scheme>_safe_horizon(), seen from one session (other sessions,
-- prepared transactions, terminated backends, restarts and a standby are in
-- test/server/25-horizon.sh).  docs/horizon.md is the consumer's protocol.
SET TIME ZONE 'UTC';

-- Each returns its own type.
SELECT pg_typeof(sno_safe_horizon()) AS sno, pg_typeof(tid_safe_horizon()) AS tid,
       pg_typeof(koid_safe_horizon()) AS koid, pg_typeof(uid_safe_horizon()) AS uid,
       pg_typeof(uid_global_safe_horizon()) AS uid_global, pg_typeof(uuidv7_safe_horizon()) AS uuidv7;

-- No id made after the horizon was read is below it.
SELECT sno_safe_horizon() AS s, tid_safe_horizon() AS t, koid_safe_horizon() AS k,
       uid_safe_horizon() AS u, uid_global_safe_horizon() AS g, uuidv7_safe_horizon() AS v \gset h_
SELECT sno_new() >= :'h_s' AS sno, tid_new() >= :'h_t' AS tid, koid_new() >= :'h_k' AS koid,
       uid_new() >= :'h_u' AS uid, uid_global_new() >= :'h_g' AS uid_global, uuidv7_new() >= :'h_v' AS uuidv7;

-- (A horizon never goes back: one session cannot show it, since a horizon
-- read after another here is above it whether or not kid keeps the highest
-- one returned.  test/server/25-horizon.sh does: across a clean restart, a
-- crash, and a crash with the clock an hour back, and with concurrent
-- writers, where each poll's horizon is compared with the one before.)

-- A transaction that made an id holds the horizon at or below it while it
-- is open; when it ends the horizon passes it (sno's once the clock has
-- left the id's 4 ms unit: its horizon is the clock's unit).
BEGIN;
SELECT sno_new() AS s, tid_new() AS t, koid_new() AS k, uid_new() AS u, uid_global_new() AS g, uuidv7_new() AS v \gset id_
SELECT sno_safe_horizon() <= :'id_s' AS sno, tid_safe_horizon() <= :'id_t' AS tid, koid_safe_horizon() <= :'id_k' AS koid,
       uid_safe_horizon() <= :'id_u' AS uid, uid_global_safe_horizon() <= :'id_g' AS uid_global,
       uuidv7_safe_horizon() <= :'id_v' AS uuidv7;
COMMIT;
-- sno's and uuidv7's horizons pass the id once the clock has left the
-- id's unit (which may be a little ahead of the clock): wait for that, at
-- most 5 s.
SELECT set_config('regress.sno_id', :'id_s', false) IS NOT NULL AND
       set_config('regress.uuid_id', :'id_v', false) IS NOT NULL AS noted;
DO $$
BEGIN
    FOR i IN 1..1000 LOOP
        EXIT WHEN sno_safe_horizon() > current_setting('regress.sno_id')::sno
              AND uuidv7_safe_horizon() > current_setting('regress.uuid_id')::uuid;
        PERFORM pg_sleep(0.005);
    END LOOP;
END $$;
SELECT sno_safe_horizon() > :'id_s' AS sno, tid_safe_horizon() > :'id_t' AS tid, koid_safe_horizon() > :'id_k' AS koid,
       uid_safe_horizon() > :'id_u' AS uid, uid_global_safe_horizon() > :'id_g' AS uid_global,
       uuidv7_safe_horizon() > :'id_v' AS uuidv7;

-- The same after a rollback.
BEGIN;
SELECT tid_new() AS t, koid_new() AS k \gset rb_
SELECT tid_safe_horizon() <= :'rb_t' AS tid_held, koid_safe_horizon() <= :'rb_k' AS koid_held;
ROLLBACK;
SELECT tid_safe_horizon() > :'rb_t' AS tid_released, koid_safe_horizon() > :'rb_k' AS koid_released;

-- An id made in a subtransaction that rolled back may still be written by
-- its transaction (a PL/pgSQL variable keeps it): it holds the horizon
-- until the transaction ends.
BEGIN;
SAVEPOINT s;
SELECT tid_new() AS t \gset sub_
ROLLBACK TO SAVEPOINT s;
SELECT tid_safe_horizon() <= :'sub_t' AS held_after_rollback_to_savepoint;
COMMIT;
SELECT tid_safe_horizon() > :'sub_t' AS released_at_commit;

-- Not covered: an id for a time the caller gives can be below the horizon
-- at any moment.
SELECT tid_new_with_time('2020-01-01') < tid_safe_horizon() AS backfill_below_horizon,
       sno_new_with_time('2020-01-01') < sno_safe_horizon() AS sno_backfill_below_horizon;

-- Ids that parallel workers make belong to the leader's transaction (tid,
-- koid and the uid generators are PARALLEL SAFE): they hold the horizon
-- until that transaction ends, though the workers end before it.
CREATE TABLE horizon_rows AS SELECT g FROM generate_series(1, 20000) g;
ANALYZE horizon_rows;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF)
CREATE TABLE horizon_worker_ids AS SELECT tid_new() AS t, koid_new() AS k FROM horizon_rows;
BEGIN;
CREATE TABLE horizon_worker_ids AS SELECT tid_new() AS t, koid_new() AS k FROM horizon_rows;
SELECT tid_safe_horizon() <= min(t) AS tid_held_by_workers_ids, koid_safe_horizon() <= min(k) AS koid_held_by_workers_ids
FROM horizon_worker_ids;
COMMIT;
SELECT tid_safe_horizon() > max(t) AS tid_released, koid_safe_horizon() > max(k) AS koid_released FROM horizon_worker_ids;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
DROP TABLE horizon_rows, horizon_worker_ids;
