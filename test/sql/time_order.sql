-- The btree order of ids and times: every operator class of kid validates,
-- every btree family is one consistent total order over its types, and
-- arrays of times (id = ANY(times), id >= ANY(times), ...) return through an
-- index exactly the rows a sequential scan returns, for every id type, on
-- plain and range-partitioned tables, with constant arrays and generic plans.
SET TIME ZONE 'UTC';
SET max_parallel_workers_per_gather = 0;

-- 1. amvalidate() of every operator class of kid (it prints why not).
SELECT c.opcname, a.amname, amvalidate(c.oid)
FROM pg_opclass c
JOIN pg_am a ON a.oid = c.opcmethod
JOIN pg_depend d ON d.classid = 'pg_opclass'::regclass AND d.objid = c.oid
    AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'kid'
ORDER BY c.opcname, a.amname;

-- The (timestamptz, timestamptz) members are kid's own operators, not
-- timestamptz's: ORDER BY a timestamptz column keeps its own btree family.
SELECT DISTINCT o.oprname, o.oprcode, o.oprcanmerge, o.oprcanhash, p.amproc
FROM pg_amop m JOIN pg_operator o ON o.oid = m.amopopr
JOIN pg_amproc p ON p.amprocfamily = m.amopfamily AND p.amproclefttype = m.amoplefttype
    AND p.amprocrighttype = m.amoprighttype AND p.amprocnum = 1
WHERE m.amoplefttype = 'timestamptz'::regtype AND m.amoprighttype = 'timestamptz'::regtype
  AND m.amopfamily IN (SELECT opcfamily FROM pg_opclass WHERE opcname LIKE ANY (ARRAY['sno%', 'atproto_tid%', 'koid%', 'uid%', 'uuid%']))
ORDER BY 1;
SELECT count(*) AS timestamptz_lt_families
FROM pg_amop WHERE amopopr = '<(timestamptz, timestamptz)'::regoperator AND amopmethod = (SELECT oid FROM pg_am WHERE amname = 'btree');
-- An untyped comparison with a kid operator name still means text.
SELECT 'b' ~<~ 'a' AS text_pattern_lt, 'a' ~<=~ 'b' AS text_pattern_le;

-- Sample values: times at and around unit boundaries of every type, out of
-- every range, infinities; for each id type the bound id of each time, the
-- next id, and the extremes.
CREATE TEMP TABLE samples_timestamptz (v timestamptz);
INSERT INTO samples_timestamptz VALUES ('-infinity'), ('infinity'), ('1900-01-01'), ('294270-01-01'),
    ('2026-03-01 00:00:00'), ('2026-03-01 00:00:00.000001'), ('2026-03-01 00:00:00.0005'),
    ('2026-03-01 00:00:00.000999'), ('2026-03-01 00:00:00.001'), ('2026-03-01 00:00:00.001023'),
    ('2026-03-01 00:00:00.001024'), ('2026-03-01 00:00:00.002'), ('2026-03-01 00:00:00.003999'),
    ('2026-03-01 00:00:00.004'), ('2026-03-01 00:00:04.1');
CREATE TEMP TABLE id_types (typ text COLLATE "C", make text);   -- make: an id of time %1$s with offset %2$s
INSERT INTO id_types VALUES
    ('sno', $$set_byte(sno_to_bytea(sno_from_timestamp(%1$s)), 9, %2$s)::sno$$),
    ('atproto_tid', $$(atproto_tid_to_bigint(tid_from_timestamp(%1$s)) + %2$s)::atproto_tid$$),
    ('koid', $$(koid_to_bigint(koid_from_timestamp(%1$s)) + %2$s)::koid$$),
    ('uid', $$(uid_to_bigint(uid_from_timestamp(%1$s)) + %2$s)::uid$$),
    ('uid_global', $$uid_to_global((uid_to_bigint(uid_from_timestamp(%1$s)) + %2$s)::uid, %2$s, 8)$$),
    ('uuid', $$(left(uuidv7_from_timestamp(%1$s)::text, 35) || %2$s)::uuid$$);
DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT * FROM id_types LOOP
        EXECUTE format('CREATE TEMP TABLE samples_%s (v %s)', r.typ, r.typ);
        EXECUTE format('INSERT INTO samples_%s SELECT %s FROM samples_timestamptz s, generate_series(0, 1) k
                        WHERE s.v BETWEEN ''2026-01-01'' AND ''2027-01-01''',
                       r.typ, format(r.make, 's.v', 'k'));
        -- The smallest and the largest (uuid has no min() or max()).
        EXECUTE format('INSERT INTO samples_%1$s (SELECT v FROM samples_%1$s ORDER BY v LIMIT 1)
                        UNION ALL (SELECT v FROM samples_%1$s ORDER BY v DESC LIMIT 1)', r.typ);
    END LOOP;
END $$;
INSERT INTO samples_sno VALUES ('\x00000000000000000000'::bytea::sno), ('\xffffffffffffffffffff'::bytea::sno);
INSERT INTO samples_atproto_tid VALUES (0::bigint::atproto_tid), ((-1)::bigint::atproto_tid);
INSERT INTO samples_koid VALUES (0::bigint::koid), ((-1)::bigint::koid);
INSERT INTO samples_uid VALUES (0::bigint::uid), ((-814970814465)::bigint::uid);
INSERT INTO samples_uid_global VALUES ('\x000000000000000000000000'::bytea::uid_global),
    (uid_to_global((-814970814465)::bigint::uid, 4294967295, 8));
INSERT INTO samples_uuid VALUES ('00000000-0000-0000-0000-000000000000'), ('ffffffff-ffff-ffff-ffff-ffffffffffff'),
    ('f81d4fae-7dec-41d0-a765-00a0c91e6bf6'), ('019ca98e-1e00-4000-8000-000000000000');
CREATE TEMP TABLE samples_codokey (v codokey);
INSERT INTO samples_codokey VALUES ('0'), ('00'), ('yj'), ('yj0'), ('yj00'), ('zz'), ('0123456789abcdef');

-- Three values x, y, z and their comparisons agree with some total order.
CREATE FUNCTION consistent3(xy integer, yz integer, xz integer) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN xy = 0 THEN sign(xz) = sign(yz)
                WHEN yz = 0 THEN sign(xz) = sign(xy)
                WHEN xy < 0 AND yz < 0 THEN xz < 0
                WHEN xy > 0 AND yz > 0 THEN xz > 0
                ELSE true END
$$;

-- 2. Every btree family of kid is one consistent order: for every type pair
-- its five operators agree with its FUNCTION 1 and the commuted pair's
-- FUNCTION 1 is the opposite; and every triple of an id and two times, or
-- two ids and a time, is ordered consistently.
CREATE FUNCTION check_family(fam oid) RETURNS TABLE (lefttype regtype, righttype regtype, checks bigint, failures bigint)
LANGUAGE plpgsql AS $$
DECLARE
    pr record;
    conds text;
    cmp_rl regproc;
    q text;
BEGIN
    FOR pr IN SELECT amproclefttype AS l, amprocrighttype AS r, amproc FROM pg_amproc
              WHERE amprocfamily = fam AND amprocnum = 1 ORDER BY 1::regtype::text, 2::regtype::text LOOP
        SELECT string_agg(format('(x OPERATOR(%I.%s) y) = (c %s 0)', n.nspname, o.oprname,
                                 (ARRAY['<', '<=', '=', '>=', '>'])[m.amopstrategy]), ' AND ')
        INTO conds
        FROM pg_amop m JOIN pg_operator o ON o.oid = m.amopopr JOIN pg_namespace n ON n.oid = o.oprnamespace
        WHERE m.amopfamily = fam AND m.amoplefttype = pr.l AND m.amoprighttype = pr.r;
        SELECT amproc INTO cmp_rl FROM pg_amproc
        WHERE amprocfamily = fam AND amprocnum = 1 AND amproclefttype = pr.r AND amprocrighttype = pr.l;
        q := format('SELECT count(*), count(*) FILTER (WHERE NOT (%s AND sign(c) = -sign(%s(y, x))))
                     FROM (SELECT a.v AS x, b.v AS y, %s(a.v, b.v) AS c FROM samples_%s a, samples_%s b) s',
                    conds, cmp_rl, pr.amproc, (SELECT typname FROM pg_type WHERE oid = pr.l),
                    (SELECT typname FROM pg_type WHERE oid = pr.r));
        lefttype := pr.l; righttype := pr.r;
        EXECUTE q INTO checks, failures;
        RETURN NEXT;
    END LOOP;
END $$;
CREATE FUNCTION check_triples(typ text) RETURNS TABLE (id_time_time bigint, id_id_time bigint, failures bigint)
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        SELECT count(*) FILTER (WHERE kind = 1), count(*) FILTER (WHERE kind = 2), count(*) FILTER (WHERE NOT ok) FROM (
            SELECT 1 AS kind, consistent3(%1$s_cmp_timestamptz(a.v, t1.v), timestamptz_cmp(t1.v, t2.v),
                                          %1$s_cmp_timestamptz(a.v, t2.v)) AS ok
            FROM samples_%1$s a, samples_timestamptz t1, samples_timestamptz t2
            UNION ALL
            SELECT 2, consistent3(%1$s_cmp(a.v, b.v), %1$s_cmp_timestamptz(b.v, t.v), %1$s_cmp_timestamptz(a.v, t.v))
            FROM samples_%1$s a, samples_%1$s b, samples_timestamptz t) s$q$, typ)
    INTO id_time_time, id_id_time, failures;
    RETURN NEXT;
END $$;
SELECT f.opfname, c.*
FROM pg_opfamily f, LATERAL check_family(f.oid) c
WHERE f.opfmethod = (SELECT oid FROM pg_am WHERE amname = 'btree')
  AND f.oid IN (SELECT opcfamily FROM pg_opclass c JOIN pg_depend d ON d.classid = 'pg_opclass'::regclass AND d.objid = c.oid
                    AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
                JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'kid')
ORDER BY 1, 2::text COLLATE "C", 3::text COLLATE "C";
SELECT typ, c.* FROM id_types, LATERAL check_triples(typ) c ORDER BY typ;

-- 3. Arrays of times through the index.  For every id type: ids at times
-- every 0.25 ms over 12 ms (two per time: the exact bound id and the next),
-- a plain table with a btree index, and a table range-partitioned at two
-- unit boundaries.  The array holds bound times of rows, several times of
-- one unit, a duplicate, times between rows and out-of-range times.
CREATE TEMP TABLE forms (n integer, form text, indexable boolean);
INSERT INTO forms VALUES
    (1, '= ANY', true), (2, '<> ALL', false), (3, '>= ANY', true), (4, '< ANY', true), (5, '<= ALL', false),
    (6, '> ALL', false), (7, '> ANY', true), (8, '<= ANY', true), (9, '>= ALL', false), (10, '< ALL', false),
    (11, '= ALL', false), (12, '<> ANY', false);
CREATE TEMP TABLE arrays (name text COLLATE "C", times timestamptz[]);
INSERT INTO arrays VALUES
    ('mixed', ARRAY['2026-03-01 00:00:00.004', '2026-03-01 00:00:00.0041', '2026-03-01 00:00:00.0045',
                    '2026-03-01 00:00:00.005', '2026-03-01 00:00:00.0055', '2026-03-01 00:00:00.005',
                    '2026-03-01 00:00:00.00825', '2026-03-01 00:00:00.008']::timestamptz[]),
    ('out_of_range', ARRAY['-infinity', '1900-01-01', '2026-03-01 00:00:00.006', 'infinity']::timestamptz[]),
    ('one', ARRAY['2026-03-01 00:00:00.00725']::timestamptz[]);

CREATE FUNCTION plan_nodes(query text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || query INTO plan;
    RETURN ARRAY(SELECT DISTINCT m[1] FROM regexp_matches(plan::text, '"Node Type": "([^"]*)"', 'g') m ORDER BY 1);
END $$;

CREATE TEMP TABLE results (typ text COLLATE "C", tbl text COLLATE "C", plan text COLLATE "C", arr text COLLATE "C", n integer, rows_index text, rows_seq text,
                           count_index integer, count_seq integer, index_used boolean);
CREATE FUNCTION run_array_forms(typ text, tbl text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    f record;
    a record;
    q text;
    ri text; rs text; ci integer; cs integer;
    used boolean;
BEGIN
    FOR f IN SELECT * FROM forms ORDER BY n LOOP
        FOR a IN SELECT * FROM arrays ORDER BY name LOOP
            q := format('SELECT string_agg(id::text, '','' ORDER BY id), count(*) FROM %I WHERE id %s (%L::timestamptz[])',
                        tbl, f.form, a.times);
            -- Constant array: index (or bitmap) scans, then no index at all.
            SET LOCAL enable_seqscan = off;
            EXECUTE q INTO ri, ci;
            used := EXISTS (SELECT FROM unnest(plan_nodes(q)) nt WHERE nt LIKE '%Index%');
            SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off;
            SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
            EXECUTE q INTO rs, cs;
            RESET enable_indexscan; RESET enable_bitmapscan; RESET enable_indexonlyscan;
            INSERT INTO results VALUES (typ, tbl, 'constant', a.name, f.n, ri, rs, ci, cs, used);
            -- Generic plan of a prepared statement with the array as parameter.
            SET LOCAL enable_seqscan = off; SET LOCAL plan_cache_mode = force_generic_plan;
            EXECUTE format('PREPARE arr_q(timestamptz[]) AS SELECT string_agg(id::text, '','' ORDER BY id), count(*) FROM %I WHERE id %s ($1)',
                           tbl, f.form);
            EXECUTE format('EXECUTE arr_q(%L)', a.times) INTO ri, ci;
            used := EXISTS (SELECT FROM unnest(plan_nodes(format('EXECUTE arr_q(%L)', a.times))) nt WHERE nt LIKE '%Index%');
            DEALLOCATE arr_q;
            RESET enable_seqscan; RESET plan_cache_mode;
            INSERT INTO results VALUES (typ, tbl, 'generic', a.name, f.n, ri, rs, ci, cs, used);
        END LOOP;
    END LOOP;
END $$;

DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT * FROM id_types LOOP
        EXECUTE format('CREATE TABLE arr_%s (id %s NOT NULL)', r.typ, r.typ);
        EXECUTE format('INSERT INTO arr_%s SELECT %s FROM generate_series(0, 47) i, generate_series(0, 1) k',
                       r.typ, format(r.make, 'timestamptz ''2026-03-01 00:00:00.002'' + i * interval ''250 microseconds''', 'k'));
        EXECUTE format('CREATE INDEX ON arr_%s (id)', r.typ);
        EXECUTE format('CREATE TABLE arr_%s_parted (id %s NOT NULL) PARTITION BY RANGE (id)', r.typ, r.typ);
        EXECUTE format('CREATE TABLE arr_%1$s_p1 PARTITION OF arr_%1$s_parted FOR VALUES FROM (MINVALUE) TO (%2$s)',
                       r.typ, format(r.make, 'timestamptz ''2026-03-01 00:00:00.005''', '0'));
        EXECUTE format('CREATE TABLE arr_%1$s_p2 PARTITION OF arr_%1$s_parted FOR VALUES FROM (%2$s) TO (%3$s)',
                       r.typ, format(r.make, 'timestamptz ''2026-03-01 00:00:00.005''', '0'),
                       format(r.make, 'timestamptz ''2026-03-01 00:00:00.010''', '0'));
        EXECUTE format('CREATE TABLE arr_%1$s_p3 PARTITION OF arr_%1$s_parted FOR VALUES FROM (%2$s) TO (MAXVALUE)',
                       r.typ, format(r.make, 'timestamptz ''2026-03-01 00:00:00.010''', '0'));
        EXECUTE format('INSERT INTO arr_%1$s_parted SELECT id FROM arr_%1$s', r.typ);
        EXECUTE format('CREATE INDEX ON arr_%s_parted (id)', r.typ);
        EXECUTE format('ANALYZE arr_%1$s, arr_%1$s_parted', r.typ);
        PERFORM run_array_forms(r.typ, 'arr_' || r.typ);
        PERFORM run_array_forms(r.typ, 'arr_' || r.typ || '_parted');
    END LOOP;
END $$;

-- Cases per table.
SELECT typ, tbl, count(DISTINCT (n, arr)) AS cases FROM results GROUP BY 1, 2 ORDER BY 1, 2;
-- Every case: the same rows through the index as without it ...
SELECT typ, tbl, plan, arr, n, count_index, count_seq FROM results
WHERE rows_index IS DISTINCT FROM rows_seq OR count_index <> count_seq ORDER BY 1, 2, 3, 4, 5;
-- ... and the index used wherever the form is indexable.
SELECT r.typ, r.tbl, r.plan, r.arr, f.form FROM results r JOIN forms f USING (n)
WHERE f.indexable AND NOT r.index_used ORDER BY 1, 2, 3, 4, 5;
-- The row counts of the twelve forms (in the order of forms.n above), for
-- 96 rows: = ANY finds none, <> ALL all; the others split at units.
SELECT typ, arr, array_agg(count_seq ORDER BY n) AS counts FROM results
WHERE tbl NOT LIKE '%parted' AND plan = 'constant' GROUP BY 1, 2 ORDER BY 1, 2;
-- The partitioned table returns the same rows as the plain one.
SELECT typ, arr, n FROM results GROUP BY 1, 2, 3 HAVING count(DISTINCT rows_seq) > 1 ORDER BY 1, 2, 3;

-- Partition pruning by a timestamptz still prunes.
EXPLAIN (COSTS OFF) SELECT * FROM arr_koid_parted WHERE id >= '2026-03-01 00:00:00.011'::timestamptz;
EXPLAIN (COSTS OFF) SELECT * FROM arr_sno_parted WHERE id < '2026-03-01 00:00:00.005'::timestamptz;

DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT * FROM id_types LOOP
        EXECUTE format('DROP TABLE arr_%1$s, arr_%1$s_parted', r.typ);
    END LOOP;
END $$;
DROP FUNCTION run_array_forms(text, text), plan_nodes(text), check_family(oid), check_triples(text),
    consistent3(integer, integer, integer);

-- 4. The equality members of the families are mergejoinable, as PostgreSQL
-- requires of every btree equality (test/server/12-catalog_sanity.sh runs its
-- opr_sanity): id = t and t = id of every id type, and ~=~.  With hash and
-- nested-loop joins off, the planner merge-joins on them; a merge join on
-- id = t, both sides in the family's order, pairs nothing (no id equals a
-- time), and one on ~=~ pairs the times timestamptz's = pairs.
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM samples_sno s JOIN samples_timestamptz t ON s.v = t.v;
EXPLAIN (COSTS OFF) SELECT count(*) FROM samples_timestamptz t JOIN samples_koid s ON t.v = s.v;
-- The count of a join, or NULL when its plan is not a merge join.
CREATE FUNCTION merge_join_count(sql text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    line text;
    merged boolean := false;
    n bigint;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || sql LOOP
        merged := merged OR line LIKE '%Merge Join%';
    END LOOP;
    IF NOT merged THEN
        RETURN NULL;
    END IF;
    EXECUTE sql INTO n;
    RETURN n;
END $$;
SELECT typ,
    (SELECT count(*) FROM samples_timestamptz) AS times,
    merge_join_count(format('SELECT count(*) FROM samples_%s s JOIN samples_timestamptz t ON s.v = t.v', typ)) AS id_eq_t,
    merge_join_count(format('SELECT count(*) FROM samples_timestamptz t JOIN samples_%s s ON t.v = s.v', typ)) AS t_eq_id
FROM id_types ORDER BY typ;
SELECT count(*) AS tilde_eq, (SELECT count(*) FROM samples_timestamptz a JOIN samples_timestamptz b ON a.v = b.v) AS eq
FROM samples_timestamptz a JOIN samples_timestamptz b ON a.v ~=~ b.v;
EXPLAIN (COSTS OFF) SELECT count(*) FROM samples_timestamptz a JOIN samples_timestamptz b ON a.v ~=~ b.v;
RESET enable_hashjoin;
RESET enable_nestloop;
DROP FUNCTION merge_join_count(text);
