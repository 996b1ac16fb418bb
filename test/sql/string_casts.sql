--
-- Strings where ids are expected, and the casts users reach for.
--
-- Drivers send strings typed: pgJDBC's setString as varchar, psycopg2's list
-- of str as an ARRAY[...] of text.  text and varchar cast to every kid type
-- implicitly (WITH INOUT), so id = $1, id = ANY($1), IN, INSERT and UPDATE
-- take them, and ordinary string expressions resolve to text exactly as
-- without kid.  koid takes integers by assignment (INSERT, UPDATE), not in
-- comparisons.  id::timestamptz decodes an id's time; a time never casts to
-- an id.
--

-- 1. text and varchar values and parameters, every type.
CREATE TABLE str_ids (type text, a text, b text);
INSERT INTO str_ids VALUES
    ('sno', '2222222222222222', '2222222222222223'),
    ('atproto_tid', '3jzfcijpj2z2a', '3jzfcijpj2z2b'),
    ('koid', '0123456789abcdef', '0123456789abcdf0'),
    ('uid', uid_from_timestamp('2026-11-01')::text, uid_from_timestamp('2026-11-02')::text),
    ('uid_global', uid_global_from_timestamp('2026-11-01')::text, uid_global_from_timestamp('2026-11-02')::text),
    ('codokey', 'yj00', 'yj01');
-- For each type: a table of two ids inserted as text and varchar, then the
-- rows each form finds (expected: 1 or 2 as written beside it).
CREATE FUNCTION string_forms(typ text, a text, b text)
RETURNS TABLE (form text, matched bigint, expected bigint) LANGUAGE plpgsql AS $$
DECLARE
    col text := CASE typ WHEN 'codokey' THEN 'key' ELSE 'id' END;
BEGIN
    EXECUTE format('CREATE TEMP TABLE forms (%I %I, note text)', col, typ);
    EXECUTE 'INSERT INTO forms VALUES ($1::text), ($2::varchar)' USING a, b;
    EXECUTE format('UPDATE forms SET note = ''updated'' WHERE %I = $1::varchar', col) USING b;
    EXECUTE format('UPDATE forms SET %I = $1::text WHERE %I = $1::text', col, col) USING a;
    FOR form, expected IN VALUES
        ('%I = $1::text', 1), ('%I = $1::varchar', 1), ('%I < $2::text', 1), ('%I >= $1::varchar', 2),
        ('%I IN ($1::text, $2::varchar)', 2), ('%I = ANY(ARRAY[$1, $2]::text[])', 2),
        ('%I = ANY(ARRAY[$1, $2]::varchar[])', 2), ('note = ''updated'' AND %I = $2', 1)
    LOOP
        EXECUTE format('SELECT count(*) FROM forms WHERE ' || form, col) INTO matched USING a, b;
        form := format(form, col);
        RETURN NEXT;
    END LOOP;
    DROP TABLE forms;
END $$;
SELECT s.type, f.form, f.matched, f.matched = f.expected AS as_expected
FROM str_ids s, LATERAL string_forms(s.type, s.a, s.b) f
ORDER BY s.type, f.form;
-- Parameters typed as the drivers type them.
CREATE TABLE str_sno (id sno PRIMARY KEY);
PREPARE ins_varchar(varchar) AS INSERT INTO str_sno VALUES ($1);
PREPARE ins_text(text) AS INSERT INTO str_sno VALUES ($1);
PREPARE by_varchar(varchar) AS SELECT id FROM str_sno WHERE id = $1;
PREPARE by_list(text[]) AS SELECT id FROM str_sno WHERE id = ANY($1) ORDER BY id;
EXECUTE ins_varchar('2222222222222222');
EXECUTE ins_text('2222222222222223');
EXECUTE by_varchar('2222222222222223');
EXECUTE by_list('{2222222222222222,2222222222222223,2222222222222224}');
-- The comparison is sno's, so the primary key serves it.
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) EXECUTE by_varchar('2222222222222223');
EXPLAIN (COSTS OFF) EXECUTE by_list('{2222222222222222}');
RESET enable_seqscan;
-- A bad string is the type's input error (and a time gets its hint).
EXECUTE by_varchar('2222');
EXECUTE by_list('{2026-11-01}');
DEALLOCATE ALL;
DROP TABLE str_sno;
DROP FUNCTION string_forms(text, text, text);
DROP TABLE str_ids;

-- 2. Ordinary string expressions resolve as without kid.  In a database
-- without kid, each query becomes a view: its definition (with every cast
-- made explicit) and the operators and functions of its query tree are
-- kept; then the same after CREATE EXTENSION kid.  They must be equal.
\set regress_db :DBNAME
SET client_min_messages = warning;
DROP DATABASE IF EXISTS regress_kid_strings;   -- left by an interrupted run
RESET client_min_messages;
CREATE DATABASE regress_kid_strings TEMPLATE template0;
\c regress_kid_strings
CREATE TABLE strs (t text, v varchar(20), c char(5), n name, tz timestamptz, i integer, b bigint);
CREATE TABLE queries (name text PRIMARY KEY, query text);
INSERT INTO queries VALUES
    ('text = text', 'SELECT t = t FROM strs'),
    ('text = literal', 'SELECT t = ''x'' FROM strs'),
    ('varchar = literal', 'SELECT v = ''x'' FROM strs'),
    ('literal = varchar', 'SELECT ''x'' = v FROM strs'),
    ('varchar = varchar', 'SELECT v = v FROM strs'),
    ('varchar = text', 'SELECT v = t FROM strs'),
    ('varchar < literal', 'SELECT v < ''m'' FROM strs'),
    ('varchar >= text', 'SELECT v >= t FROM strs'),
    ('char = varchar', 'SELECT c = v FROM strs'),
    ('name = text', 'SELECT n = t FROM strs'),
    ('literal = literal', 'SELECT ''a'' = ''b'''),
    ('literal < literal', 'SELECT ''a'' < ''b'''),
    ('concatenation', 'SELECT t || v AS a, v || ''x'' AS b, t || i AS c, ''x'' || v AS d FROM strs'),
    ('like', 'SELECT v LIKE ''a%'' AS a, t ILIKE ''a%'' AS b, v ~ ''a'' AS c, t NOT LIKE v AS d FROM strs'),
    ('text = any(array)', 'SELECT t = ANY(ARRAY[''a'', ''b'']) FROM strs'),
    ('varchar = any(array)', 'SELECT v = ANY(ARRAY[''a'', ''b'']) FROM strs'),
    ('varchar = any(text[])', 'SELECT v = ANY(ARRAY[t, t]) FROM strs'),
    ('varchar in (literals)', 'SELECT v IN (''a'', ''b'') FROM strs'),
    ('text in (varchar, literal)', 'SELECT t IN (v, ''b'') FROM strs'),
    ('functions on text', 'SELECT length(v), upper(v), substr(v, 2), position(''a'' IN v), replace(v, ''a'', ''b''), md5(v), concat(v, t), format(''%s'', v), left(t, 2), lower(c) FROM strs'),
    ('aggregates on text', 'SELECT max(v), min(t), string_agg(v, '','') FROM strs'),
    ('coalesce, greatest, case', 'SELECT coalesce(v, ''x''), greatest(v, t), CASE WHEN true THEN v ELSE ''x'' END FROM strs'),
    ('union', 'SELECT v FROM strs UNION SELECT ''x'''),
    ('text and timestamptz', 'SELECT t::timestamptz < tz AS a, tz > ''2026-11-01'' AS b, tz::text = t AS c FROM strs'),
    ('integers', 'SELECT i = 5 AS a, b = i AS b, b < 5 AS c, i + 1 AS d, max(i) AS e FROM strs GROUP BY i, b');
CREATE FUNCTION resolved(OUT name text, OUT definition text, OUT depends_on text)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
    q record;
BEGIN
    FOR q IN SELECT * FROM queries ORDER BY 1 LOOP
        EXECUTE format('CREATE VIEW resolved_view AS %s', q.query);
        name := q.name;
        definition := pg_get_viewdef('resolved_view'::regclass);
        SELECT string_agg(DISTINCT x, ', ' ORDER BY x) INTO depends_on FROM (
            SELECT CASE m[1] WHEN 'opno' THEN m[2]::oid::regoperator::text
                             ELSE m[2]::oid::regprocedure::text END AS x
            FROM pg_rewrite r, regexp_matches(r.ev_action::text, ':(opno|funcid|aggfnoid) (\d+)', 'g') m
            WHERE r.ev_class = 'resolved_view'::regclass) s;
        DROP VIEW resolved_view;
        RETURN NEXT;
    END LOOP;
END $$;
-- What a string next to a timestamptz reports (there is no such operator).
CREATE FUNCTION error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || SQLERRM;
END $$;
CREATE TABLE without_kid AS SELECT * FROM resolved();
CREATE TABLE errors_without_kid AS
SELECT q, error_of(q) AS error FROM unnest(ARRAY[
    'SELECT t < tz FROM strs', 'SELECT v = tz FROM strs', 'SELECT tz = ''x''::text FROM strs',
    'SELECT i < tz FROM strs', 'SELECT b = tz FROM strs']) q;
CREATE EXTENSION kid;
CREATE TABLE with_kid AS SELECT * FROM resolved();
-- Equal: no row differs (and every query was resolved both times).
SELECT 'without kid only' AS side, * FROM (TABLE without_kid EXCEPT TABLE with_kid) a
UNION ALL
SELECT 'with kid only', * FROM (TABLE with_kid EXCEPT TABLE without_kid) b;
SELECT (SELECT count(*) FROM without_kid) AS queries_without_kid, (SELECT count(*) FROM with_kid) AS queries_with_kid;
-- What they resolve to.
SELECT name, depends_on FROM with_kid ORDER BY name;
-- A string next to a timestamptz: before kid, no operator; with kid, five
-- id types could take the string, none is preferred: "not unique".  Still
-- an error, never a silent id comparison.  Integers stay "does not exist":
-- they cast to koid by assignment only.
SELECT e.q, e.error AS without_kid, error_of(e.q) AS with_kid
FROM errors_without_kid e ORDER BY 1;
\c :regress_db
DROP DATABASE regress_kid_strings;

-- 3. koid and integers: INSERT and UPDATE take an integer or a bigint (its
-- 64 bits, as 123::koid); a comparison needs the cast.
CREATE TABLE int_koid (id koid);
INSERT INTO int_koid VALUES (123), (9223372036854775807), (-1);
PREPARE ins_int(integer) AS INSERT INTO int_koid VALUES ($1);
PREPARE ins_bigint(bigint) AS INSERT INTO int_koid VALUES ($1);
EXECUTE ins_int(7);
EXECUTE ins_bigint(8);
UPDATE int_koid SET id = 124 WHERE id = 123::koid;
SELECT id, id::bigint AS bits FROM int_koid ORDER BY id;
SELECT count(*) FROM int_koid WHERE id = 124;
SELECT count(*) FROM int_koid WHERE id = 124::koid;
PREPARE by_int(bigint) AS SELECT count(*) FROM int_koid WHERE id = $1::koid;
EXECUTE by_int(124);
DEALLOCATE ALL;
-- The other bigint casts stay explicit: a tid or uid is not written as a number.
SELECT castsource::regtype, casttarget::regtype, castcontext
FROM pg_cast WHERE casttarget IN ('koid'::regtype, 'atproto_tid'::regtype, 'uid'::regtype)
  AND castsource IN ('integer'::regtype, 'bigint'::regtype)
ORDER BY casttarget::regtype::text, castsource::regtype::text;
CREATE TABLE int_tid (id atproto_tid);
INSERT INTO int_tid VALUES (123);
DROP TABLE int_koid, int_tid;

-- 4. id::timestamptz is the type's decoder; a time never casts to an id.
SELECT '2222222222222222'::sno::timestamptz = sno_to_timestamp('2222222222222222') AS sno,
       '3jzfcijpj2z2a'::atproto_tid::timestamptz = tid_to_timestamp('3jzfcijpj2z2a') AS atproto_tid,
       '0123456789abcdef'::koid::timestamptz = koid_to_timestamp('0123456789abcdef') AS koid,
       uid_from_timestamp('2026-11-01')::timestamptz = uid_to_timestamp(uid_from_timestamp('2026-11-01')) AS uid,
       uid_global_from_timestamp('2026-11-01')::timestamptz
           = uid_global_to_timestamp(uid_global_from_timestamp('2026-11-01')) AS uid_global;
SELECT tid_from_timestamp('2026-11-01 12:00:00.000001+00')::timestamptz AT TIME ZONE 'UTC' AS tid_time;
SELECT c.castsource::regtype, c.casttarget::regtype, c.castcontext, c.castfunc::regprocedure
FROM pg_cast c
WHERE (c.castsource = 'timestamptz'::regtype OR c.casttarget = 'timestamptz'::regtype)
  AND (c.castsource::regtype::text IN ('sno', 'atproto_tid', 'koid', 'uid', 'uid_global', 'codokey')
       OR c.casttarget::regtype::text IN ('sno', 'atproto_tid', 'koid', 'uid', 'uid_global', 'codokey'))
ORDER BY c.castsource::regtype::text, c.casttarget::regtype::text;
SELECT now()::sno;
SELECT '2026-11-01'::timestamptz::koid;
