-- One key type's life under kid_partition_by_time / kid_partition_maintain,
-- included by test/sql/partitions.sql once per type.  Variables: ty (the
-- key type), make (a function making an id of a given time), live (an
-- expression making a live id), bound (*_from_timestamp), decode
-- (*_to_timestamp).  In a transaction rolled back at the end, so that kid's
-- worker never sees the table (it would maintain it at the true time).
\echo === :ty
\set ECHO none
BEGIN;
CREATE TABLE parts (id :ty NOT NULL, n integer NOT NULL, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE INDEX ON parts (n);
-- (Not echoed: the views below, the same for every type.)  Where each row is, and where its time says it should be: the monthly
-- partition named after its month, or the default partition when no
-- partition covers its month.
CREATE TEMP VIEW placed AS
SELECT p.id, p.n, :decode(p.id) AS t, p.tableoid::regclass::text AS found,
       coalesce((SELECT c.oid::regclass::text FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid
                 WHERE i.inhparent = 'parts'::regclass
                   AND c.relname = 'parts_p' || (kid_partition_period('1 month', 'UTC', :decode(p.id))).suffix),
                'parts_default') AS expected
FROM parts p;
-- Every partition but the default one, its bounds decoded, and whether its
-- name and bounds are the documented ones: parts_pYYYYMM, FROM the bound of
-- the month's first instant TO the next month's.
CREATE TEMP VIEW part_list AS
SELECT c.relname, b.lo, b.hi,
       c.relname = 'parts_p' || to_char(b.lo, 'YYYYMM')
       AND pg_get_expr(c.relpartbound, c.oid) = format('FOR VALUES FROM (%L) TO (%L)', :bound(b.lo)::text, :bound(b.lo + interval '1 month')::text)
       AND b.hi = b.lo + interval '1 month' AS documented
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
CROSS JOIN LATERAL (SELECT :decode(m[1]:::ty) AS lo, :decode(m[2]:::ty) AS hi
                    FROM regexp_match(pg_get_expr(c.relpartbound, c.oid), '^FOR VALUES FROM \(''(.*)''\) TO \(''(.*)''\)$') m) b
WHERE i.inhparent = 'parts'::regclass AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT';
CREATE TEMP VIEW summary AS
SELECT count(*) AS rows_total,
       count(*) FILTER (WHERE found = 'parts_default') AS in_default,
       count(*) FILTER (WHERE found <> expected) AS misplaced,
       (SELECT count(*) FROM part_list) AS partitions,
       (SELECT count(*) FROM part_list WHERE NOT documented) AS undocumented,
       (SELECT min(relname) FROM part_list) AS oldest, (SELECT max(relname) FROM part_list) AS newest
FROM placed;
\set ECHO all

-- Made at 2021-01-10: the default partition, January through March 2021.
SELECT action, partition_name, lower(period) AS lower, upper(period) AS upper, rows
FROM kid_partition_by_time('parts', '1 month', premake => 2, at => '2021-01-10 12:00+00');
-- 36 months of rows, one every 20 hours from 2021-01-01, the first and the
-- last microsecond of every month, five live rows.  The first of each
-- month is the month's smallest id, its partition's lower bound itself (a
-- row kid must move and place at >=, not >); made by :make, it could be
-- that id or not, by the state of a generator's sequence.  (A 20-hour row
-- that falls on a month's first instant is made an hour later: it could be
-- that id too.)
INSERT INTO parts (id, n)
SELECT id, row_number() OVER (ORDER BY t, id)
FROM (SELECT :make(t) AS id, t
      FROM (SELECT CASE WHEN h = date_trunc('month', h, 'UTC') THEN h + interval '1 hour' ELSE h END
            FROM (SELECT timestamptz '2021-01-01 00:00+00' + i * interval '20 hours' FROM generate_series(0, 1314) i) hs(h)
            UNION ALL SELECT timestamptz '2021-02-01 00:00+00' + m * interval '1 month' - interval '1 microsecond' FROM generate_series(0, 35) m) s(t)
      UNION ALL
      SELECT :bound(t), t FROM (SELECT timestamptz '2021-01-01 00:00+00' + m * interval '1 month' FROM generate_series(0, 35) m) b(t)) x;
INSERT INTO parts (id, n) SELECT :live, -n FROM generate_series(1, 5) n;
SELECT * FROM summary;

-- Maintained at the same time again: nothing to do but rows waiting.
SELECT action, rows FROM kid_partition_maintain('parts', at => '2021-01-10 12:00+00');
-- At 2022-06-15: June to August 2022 premade; every month of rows before
-- them gets its partition; what lies beyond August waits in the default one.
SELECT action, count(*) AS partitions, min(partition_name), max(partition_name), sum(rows) AS rows
FROM kid_partition_maintain('parts', at => '2022-06-15 00:00+00') GROUP BY action ORDER BY action;
SELECT * FROM summary;
SELECT count(*) FILTER (WHERE found = 'parts_default') = count(*) FILTER (WHERE t >= '2022-09-01+00') AS default_holds_what_is_beyond_august
FROM placed;
-- At 2023-12-20: the rest of the 36 months; the live rows wait.
SELECT action, count(*) AS partitions, min(partition_name), max(partition_name), sum(rows) AS rows
FROM kid_partition_maintain('parts', at => '2023-12-20 00:00+00') GROUP BY action ORDER BY action;
SELECT * FROM summary;
SELECT count(*) AS in_default_not_live FROM placed WHERE found = 'parts_default' AND n > 0;

-- Retention of 12 months at 2023-12-20: the cutoff 2022-12-20 falls in
-- December 2022, so November 2022 is the newest partition wholly older.
SELECT action, count(*) AS partitions, min(partition_name), max(partition_name)
FROM kid_partition_by_time('parts', '1 month', premake => 2, retain => '12 months', at => '2023-12-20 00:00+00')
GROUP BY action ORDER BY action;
SELECT * FROM summary;
SELECT min(t) AS oldest_row_left FROM placed;

-- A $1 parameter in a generic plan: the partitions before its month are
-- removed when the plan starts.
PREPARE since(timestamptz) AS SELECT count(*) FROM parts WHERE id >= $1;
SET plan_cache_mode = force_generic_plan;
SELECT * FROM pg_temp.pruning('EXECUTE since(''2023-06-15 00:00+00'')');
EXECUTE since('2023-06-15 00:00+00');
SELECT count(*) FROM placed WHERE t >= '2023-06-15 00:00+00';
RESET plan_cache_mode;
DEALLOCATE since;

-- Maintained now, without retention: the partitions of this month and the
-- next two, the live rows moved into them; WHERE id >= now() - interval
-- '1 day' removes every partition that ends before then.
SELECT action, count(*) AS partitions, sum(rows) AS rows
FROM kid_partition_by_time('parts', '1 month', premake => 2) GROUP BY action ORDER BY action;
SELECT rows_total, in_default, misplaced, undocumented FROM summary;
SELECT removed = (SELECT count(*) FROM part_list WHERE hi <= now() - interval '1 day') AS older_partitions_removed,
       scanned = (SELECT string_agg(relname, ' ' ORDER BY relname) FROM (SELECT relname FROM part_list WHERE hi > now() - interval '1 day'
                                                                        UNION ALL SELECT 'parts_default') s) AS newer_ones_scanned,
       removed >= 15 AS removed_at_least_the_fixed_months
FROM pg_temp.pruning('SELECT count(*) FROM parts WHERE id >= now() - interval ''1 day''');
SELECT count(*) AS live_rows_found FROM parts WHERE id >= now() - interval '1 day';
ROLLBACK;
