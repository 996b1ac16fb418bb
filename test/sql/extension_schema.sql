--
-- kid created in a schema of its own: CREATE EXTENSION kid SCHEMA kid_x.
--
-- PostgreSQL finds operators and aggregates (=, >=, min) through the
-- search_path, as functions, so with kid_x off the search_path `id >= t`
-- and `min(id)` fail (42883, PostgreSQL's own error) for every extension's
-- types, kid's included; OPERATOR(kid_x.>=) and qualified names work, and
-- casts and indexes, which are not looked up by name, work either way.  With
-- kid_x on the search_path everything works as in public: every comparison
-- of every type, with ids and with times in both orders, the range scan of
-- the primary key, and kid's own functions (which name their schema).
--
\set regress_db :DBNAME
SET client_min_messages = warning;
DROP DATABASE IF EXISTS regress_kid_schema;   -- left by an interrupted run
RESET client_min_messages;
CREATE DATABASE regress_kid_schema TEMPLATE template0;
\c regress_kid_schema
SET TimeZone = 'UTC';
CREATE SCHEMA kid_x;
CREATE EXTENSION kid SCHEMA kid_x;
SHOW search_path;

-- 1. kid_x off the search_path.
CREATE TABLE events (id kid_x.sno PRIMARY KEY, body text);
INSERT INTO events
SELECT kid_x.sno_new_with_time('2026-01-10 00:00+00'::timestamptz + i * interval '1 minute'), 'm' || i
FROM generate_series(0, 59) i;
ANALYZE events;
-- Operators and aggregates are looked up by name: not found.
SELECT count(*) FROM events WHERE id >= '2026-01-10 00:30+00'::timestamptz;
SELECT count(*) FROM events WHERE id = '2222222222222222';
SELECT min(id) FROM events;
-- Qualified, they work, and the primary key serves the range.
SELECT count(*) FROM events
WHERE id OPERATOR(kid_x.>=) '2026-01-10 00:30+00'::timestamptz AND id OPERATOR(kid_x.<) '2026-01-10 00:40+00'::timestamptz;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM events
WHERE id OPERATOR(kid_x.>=) '2026-01-10 00:30+00'::timestamptz AND id OPERATOR(kid_x.<) '2026-01-10 00:40+00'::timestamptz;
RESET enable_seqscan;
SELECT kid_x.min(id)::timestamptz AS qualified_min FROM events;
-- Casts and input are found without the search_path.
SELECT id::timestamptz FROM events WHERE body = 'm7';
INSERT INTO events VALUES ('2222222222222222'::text, 'from text');
SELECT count(*) FROM events WHERE id::text = '2222222222222222';
-- kid's functions name their schema: they work called qualified.
SELECT kid_x.codokey('2026-01-10 00:00+00'::timestamptz, 3, 'default');
SELECT kid_x.codokey_to_timestamp(kid_x.codokey('2026-01-10 00:00+00'::timestamptz, 3, 'default'), 'default');

-- 2. kid_x on the search_path: every comparison of every type.  Ids made
-- at minutes 0, 5, 10 and 15, compared with minute 5 as a time (both
-- orders) and as the id made at minute 5.
SET search_path = public, kid_x;
CREATE FUNCTION comparisons(id_type text, make text) RETURNS TABLE (type text, id_op_time text, time_op_id text, id_op_id text)
LANGUAGE plpgsql AS $$
DECLARE
    t timestamptz := '2026-01-10 00:05+00';
    ops text[] := ARRAY['<', '<=', '=', '<>', '>=', '>'];
    op text;
    n bigint;
    a text := '';
    b text := '';
    c text := '';
BEGIN
    EXECUTE format('CREATE TEMP TABLE cmp (m int, id %s PRIMARY KEY)', id_type);
    EXECUTE format('INSERT INTO cmp SELECT m, %s(%L::timestamptz + m * interval ''1 minute'') FROM unnest(ARRAY[0, 5, 10, 15]) m',
                   make, '2026-01-10 00:00+00');
    FOREACH op IN ARRAY ops LOOP
        EXECUTE format('SELECT count(*) FROM cmp WHERE id %s $1', op) INTO n USING t;
        a := a || op || n || ' ';
        EXECUTE format('SELECT count(*) FROM cmp WHERE $1 %s id', op) INTO n USING t;
        b := b || op || n || ' ';
        EXECUTE format('SELECT count(*) FROM cmp WHERE id %s (SELECT id FROM cmp WHERE m = 5)', op) INTO n;
        c := c || op || n || ' ';
    END LOOP;
    DROP TABLE cmp;
    RETURN QUERY SELECT id_type, rtrim(a), rtrim(b), rtrim(c);
END $$;
SELECT c.* FROM (VALUES ('sno', 'sno_new_with_time'), ('atproto_tid', 'tid_new_with_time'), ('koid', 'koid_new_with_time'),
                        ('uid', 'uid_new_with_time'), ('uid_global', 'uid_global_new_with_time')) v(type, make),
    LATERAL comparisons(v.type, v.make) c;
-- The time range, its plan, aggregates and the string forms.
SELECT count(*) FROM events
WHERE id >= '2026-01-10 00:30+00'::timestamptz AND id < '2026-01-10 00:40+00'::timestamptz;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM events
WHERE id >= '2026-01-10 00:30+00'::timestamptz AND id < '2026-01-10 00:40+00'::timestamptz;
RESET enable_seqscan;
SELECT min(id) = '2222222222222222' AS min_is_the_text_one, max(id)::timestamptz FROM events;
SELECT body FROM events WHERE id = '2222222222222222';
SELECT count(*) FROM events WHERE id = ANY(ARRAY['2222222222222222']);
SELECT count(*) FROM events WHERE id >= sno_from_timestamp('2026-01-10 00:30+00');
-- A time where an id is expected still gets kid's hint.
SELECT count(*) FROM events WHERE id >= '2026-01-10 00:30';
SELECT codokey_to_timestamp(codokey('2026-01-10 00:00+00'::timestamptz, 3, 'default'), 'default');

\c :regress_db
DROP DATABASE regress_kid_schema;
