--
-- A time written where an id is expected.  An untyped literal or parameter
-- next to an id column is resolved as the id type (WHERE id >= '2026-11-01',
-- or $1 from node-postgres, which sends a JavaScript Date untyped, and from
-- pgJDBC's setTimestamp).  Its input fails as any malformed id does (22P02,
-- the same message), and when PostgreSQL's datetime parser reads the text as
-- a time, a HINT says to write it as a timestamptz.  The input never guesses
-- an id for the time: a time sorts just below the smallest id of its unit,
-- so that id >= t and id > t both mean "in or after t's unit" and id = t is
-- never true, and no single id value behaves like that under every operator.
--

-- The literal form, for every type: the message, DETAIL and HINT.
CREATE TABLE hint_sno (id sno);
CREATE TABLE hint_tid (id atproto_tid);
CREATE TABLE hint_koid (id koid);
CREATE TABLE hint_uid (id uid);
CREATE TABLE hint_uid_global (id uid_global);
CREATE TABLE hint_codokey (key codokey);
SELECT * FROM hint_sno WHERE id >= '2026-11-01';
SELECT * FROM hint_tid WHERE id >= '2026-11-01';
SELECT * FROM hint_koid WHERE id >= '2026-11-01';
SELECT * FROM hint_uid WHERE id >= '2026-11-01';
SELECT * FROM hint_uid_global WHERE id >= '2026-11-01';
-- codokey has no operators with timestamptz: its hint names the constructor.
SELECT * FROM hint_codokey WHERE key >= '2026-11-01';

-- The forms drivers send: ISO 8601 with a T and an offset (node-postgres'
-- Date), a space and a numeric zone (pgJDBC), and the README's BETWEEN.
SELECT * FROM hint_sno WHERE id >= '2026-11-23T12:45:52.070+00:00';
SELECT * FROM hint_tid WHERE id < '2026-11-23 12:45:52.07+01';
SELECT * FROM hint_tid WHERE id BETWEEN '2026-01-10' AND '2026-01-10 00:10';
SELECT * FROM hint_koid WHERE id = 'now';

-- An untyped parameter of a prepared statement is resolved as the id type too.
PREPARE q_sno AS SELECT * FROM hint_sno WHERE id >= $1;
PREPARE q_tid AS SELECT * FROM hint_tid WHERE id >= $1;
PREPARE q_koid AS SELECT * FROM hint_koid WHERE id >= $1;
PREPARE q_uid AS SELECT * FROM hint_uid WHERE id >= $1;
PREPARE q_uid_global AS SELECT * FROM hint_uid_global WHERE id >= $1;
PREPARE q_codokey AS SELECT * FROM hint_codokey WHERE key >= $1;
SELECT p.name, p.parameter_types FROM pg_prepared_statements p WHERE p.name LIKE 'q\_%' ORDER BY 1;
EXECUTE q_sno('2026-11-23T12:45:52.070+00:00');
EXECUTE q_tid('2026-11-23T12:45:52.070+00:00');
EXECUTE q_koid('2026-11-23T12:45:52.070+00:00');
EXECUTE q_uid('2026-11-23T12:45:52.070+00:00');
EXECUTE q_uid_global('2026-11-23T12:45:52.070+00:00');
EXECUTE q_codokey('2026-11-23T12:45:52.070+00:00');
-- What the hint says to write works, with the meaning of the operators.
INSERT INTO hint_koid VALUES (koid_from_timestamp('2026-11-01 00:00:00.001+00'));
PREPARE q_koid_time AS SELECT count(*) FROM hint_koid WHERE id >= $1::timestamptz;
SET TimeZone = 'UTC';
EXECUTE q_koid_time('2026-11-01');
EXECUTE q_koid_time('2026-11-01 00:00:00.002');
SELECT count(*) FROM hint_koid WHERE id >= '2026-11-01'::timestamptz;
RESET TimeZone;
DEALLOCATE ALL;

-- Text that is no time gets no hint: a malformed id, a lone time zone name,
-- a date with an unknown zone, a date that does not exist, long text.
SELECT 'x'::sno;
SELECT '2222222222222221'::sno;
SELECT 'Europe/Paris'::atproto_tid;
SELECT '2026-11-01 Nowhere/Else'::koid;
SELECT '2026-02-30'::uid;
-- Text the datetime parser decodes but timestamptz_in rejects ("timestamp
-- out of range") is no time either.
SELECT '300000-01-01'::uid;
SELECT '300000-01-01 12:00'::sno;
SELECT ('2026-11-01 ' || repeat('0', 200))::uid_global;
SELECT 'YJ00'::codokey;
-- Text that starts a date field with a letter gets no hint: the datetime
-- parser would look it up as a time zone, and PostgreSQL keeps every zone
-- it accepts (POSIX specs such as ZONE7 too) in the backend's memory for
-- its life.  Bad ids in a loop must not grow the backend: the Timezones
-- context does not grow at all, all its contexts by less than 1 MB over
-- 500 such inputs (when the hint looked them up, 500 grew it by 3 MB).
SELECT 'item42'::koid;
SELECT 'zone7'::sno;
CREATE TEMP TABLE zone_memory AS
SELECT (SELECT total_bytes FROM pg_backend_memory_contexts WHERE name = 'Timezones') AS timezones,
       (SELECT sum(total_bytes) FROM pg_backend_memory_contexts) AS backend;
DO $$
BEGIN
    FOR i IN 1..500 LOOP
        BEGIN
            PERFORM ('zone' || i)::sno;
        EXCEPTION WHEN invalid_text_representation THEN
            NULL;
        END;
    END LOOP;
END $$;
SELECT (SELECT total_bytes FROM pg_backend_memory_contexts WHERE name = 'Timezones') - timezones
           AS timezones_growth,
       (SELECT sum(total_bytes) FROM pg_backend_memory_contexts) - backend < 1000000
           AS backend_growth_under_1mb
FROM zone_memory;
DROP TABLE zone_memory;
-- A real date still gets the hint after all that.
SELECT '2026-11-01'::sno;
-- The base64url decoders take no time: no hint.
SELECT uid_from_base64url('2026-11-01');
-- A cast from a text value gets the hint like a literal.
SELECT '2026-11-01'::text::sno;

-- The soft-error path (PostgreSQL 16+: pg_input_error_info) carries the
-- same hint; on 15 the same columns come from the raised error.
\getenv abs_srcdir PG_ABS_SRCDIR
\set input_error :abs_srcdir '/sql/include/input_error.sql'
\i :input_error
SELECT type, input, e.valid, e.state, e.hint
FROM (VALUES ('sno'), ('atproto_tid'), ('koid'), ('uid'), ('uid_global'), ('codokey')) t(type),
     (VALUES ('2026-11-01'), ('2026-11-23T12:45:52.070+00:00'), ('not a time'), ('300000-01-01')) i(input),
     input_error(input, type) e
ORDER BY 1, 2;
DROP FUNCTION input_error(text, text);

DROP TABLE hint_sno, hint_tid, hint_koid, hint_uid, hint_uid_global, hint_codokey;
