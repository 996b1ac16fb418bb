-- LEAKPROOF: the planner runs a leakproof qual before row-level security
-- policies and security-barrier views, so a leakproof function must not be
-- able to raise for any argument value: its error message could show a row
-- the policy hides.  kid's rule: a function is LEAKPROOF only if no argument
-- value can make it raise.
SET TIME ZONE 'UTC';

-- (a) Every LEAKPROOF function of kid.  A new one shows up here in review;
-- it must pass (b).
CREATE TEMP VIEW kid_leakproof AS
SELECT p.oid, p.oid::regprocedure AS fn
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
    AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'kid'
WHERE p.proleakproof;
SELECT fn FROM kid_leakproof ORDER BY fn::text COLLATE "C";

-- (b) Call every LEAKPROOF function of kid with the extreme values of each
-- argument type (every combination) and report any error.  The candidates
-- that are not values of their type (casts that fail) are dropped first;
-- the list pins what is left.
CREATE TEMP TABLE extreme_candidates (typ regtype, expr text);
INSERT INTO extreme_candidates VALUES
    ('sno', $$'\x00000000000000000000'::bytea::sno$$),
    ('sno', $$'\xffffffffffffffffffff'::bytea::sno$$),
    ('sno', $$'\x7fffffffff0000000000'::bytea::sno$$),
    ('sno', $$'\x00000000010000000000'::bytea::sno$$),
    ('atproto_tid', '0::bigint::atproto_tid'),
    ('atproto_tid', '(-1)::bigint::atproto_tid'),
    ('atproto_tid', '9223372036854775807::bigint::atproto_tid'),
    ('atproto_tid', '(-9223372036854775808)::bigint::atproto_tid'),
    ('koid', '0::bigint::koid'),
    ('koid', '(-1)::bigint::koid'),
    ('koid', '9223372036854775807::bigint::koid'),
    ('koid', '(-9223372036854775808)::bigint::koid'),
    ('uid', '0::bigint::uid'),
    ('uid', '(-814970814465)::bigint::uid'),          -- megasecond 2^20-1, second 999999, step 976, sequence 16383
    ('uid', '(-1)::bigint::uid'),                     -- not a uid: dropped
    ('uid_global', $$'\x000000000000000000000000'::bytea::uid_global$$),
    ('uid_global', 'uid_to_global((-814970814465)::bigint::uid, 4294967295, 5)'),
    ('uid_global', 'uid_to_global((-814970814465)::bigint::uid, 4294967295, 10)'),
    ('uid_global', $$'\xffffffffffffffffffffffff'::bytea::uid_global$$),
    ('codokey', $$'0'::codokey$$),
    ('codokey', $$'0123456789abcdef'::codokey$$),
    ('codokey', $$'zzzzzzzzzzzzzzzz'::codokey$$),
    ('uuid', $$'00000000-0000-0000-0000-000000000000'::uuid$$),
    ('uuid', $$'00000000-0000-7000-8000-000000000000'::uuid$$),
    ('uuid', $$'f81d4fae-7dec-41d0-a765-00a0c91e6bf6'::uuid$$),
    ('uuid', $$'ffffffff-ffff-7fff-bfff-ffffffffffff'::uuid$$),
    ('uuid', $$'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid$$),
    ('timestamptz', $$'10889-08-02 05:31:50.655999+00'::timestamptz$$),
    ('timestamptz', $$'10889-08-02 05:31:50.656+00'::timestamptz$$),
    ('timestamptz', $$'-infinity'::timestamptz$$),
    ('timestamptz', $$'infinity'::timestamptz$$),
    ('timestamptz', $$'4714-11-24 00:00:00+00 BC'::timestamptz$$),
    ('timestamptz', $$'294276-12-31 23:59:59.999999+00'::timestamptz$$),
    ('timestamptz', $$'2000-01-01+00'::timestamptz + interval '9222425352054775807 microseconds'$$),
    ('timestamptz', $$'2000-01-01+00'::timestamptz + interval '9222425352054775808 microseconds'$$),
    ('timestamptz', $$'1969-12-31 23:59:59.999999+00'::timestamptz$$),
    ('timestamptz', $$'1970-01-01 00:00:00+00'::timestamptz$$),
    ('timestamptz', $$'2009-12-31 23:59:59.999999+00'::timestamptz$$),
    ('timestamptz', $$'2079-09-07 15:47:35.551+00'::timestamptz$$),
    ('timestamptz', $$'2255-06-05 23:47:34.740992+00'::timestamptz$$),
    ('timestamptz', $$'35198-01-19 07:06:40+00'::timestamptz$$),
    ('bigint', '0::bigint'),
    ('bigint', '(-1)::bigint'),
    ('bigint', '9223372036854775807::bigint'),
    ('bigint', '(-9223372036854775808)::bigint'),
    ('bigint', '4294967296::bigint'),
    ('integer', '0'),
    ('integer', '-1'),
    ('integer', '4'),
    ('integer', '11'),
    ('integer', '2147483647'),
    ('integer', '(-2147483648)'),
    ('text', $$''::text$$),
    ('text', $$'..'::text$$),
    ('text', $$repeat('a', 513)$$),
    ('text', $$repeat('~', 100000)$$);

DO $$
DECLARE c record;
BEGIN
    FOR c IN SELECT ctid, expr FROM extreme_candidates LOOP
        BEGIN
            EXECUTE 'SELECT ' || c.expr;
        EXCEPTION WHEN OTHERS THEN
            DELETE FROM extreme_candidates WHERE ctid = c.ctid;
        END;
    END LOOP;
END $$;
SELECT typ, expr FROM extreme_candidates ORDER BY typ::text COLLATE "C", expr COLLATE "C";

CREATE TEMP TABLE leakproof_errors (fn regprocedure, call text, sqlstate text, message text);
CREATE TEMP TABLE leakproof_calls (fn regprocedure, calls integer);
DO $$
DECLARE
    f record;
    nargs integer;
    pos integer[];
    args text;
    call text;
    calls integer;
    state text;
    msg text;
BEGIN
    FOR f IN SELECT p.oid, p.oid::regprocedure AS fn, p.proname, ns.nspname, (SELECT array_agg(t ORDER BY o) FROM unnest(p.proargtypes) WITH ORDINALITY u(t, o)) AS types
             FROM kid_leakproof k JOIN pg_proc p ON p.oid = k.oid JOIN pg_namespace ns ON ns.oid = p.pronamespace
    LOOP
        nargs := coalesce(array_length(f.types, 1), 0);
        calls := 0;
        -- An odometer over the extreme values of each argument.
        pos := array_fill(1, ARRAY[greatest(nargs, 1)]);
        LOOP
            args := '';
            FOR i IN 1 .. nargs LOOP
                args := args || CASE WHEN i > 1 THEN ', ' ELSE '' END ||
                        (SELECT expr FROM extreme_candidates WHERE typ = f.types[i] ORDER BY expr OFFSET pos[i] - 1 LIMIT 1);
            END LOOP;
            EXIT WHEN args IS NULL;   -- an argument type without extreme values: no calls
            call := format('SELECT %I.%I(%s)', f.nspname, f.proname, args);
            BEGIN
                EXECUTE call;
            EXCEPTION WHEN OTHERS THEN
                GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
                INSERT INTO leakproof_errors VALUES (f.fn, call, state, msg);
            END;
            calls := calls + 1;
            -- Advance the odometer; stop after the last combination.
            FOR i IN 1 .. nargs + 1 LOOP
                IF i > nargs THEN
                    pos := NULL;
                    EXIT;
                END IF;
                IF pos[i] < (SELECT count(*) FROM extreme_candidates WHERE typ = f.types[i]) THEN
                    pos[i] := pos[i] + 1;
                    EXIT;
                END IF;
                pos[i] := 1;
            END LOOP;
            EXIT WHEN pos IS NULL;
        END LOOP;
        INSERT INTO leakproof_calls VALUES (f.fn, calls);
    END LOOP;
END $$;
-- Every LEAKPROOF function was called (a function whose argument type has
-- no extreme values above would show here with 0 calls) ...
SELECT fn, calls FROM leakproof_calls WHERE calls = 0 ORDER BY fn::text COLLATE "C";
SELECT count(*) AS leakproof_functions_called, sum(calls) > 2000 AS many_calls FROM leakproof_calls;
-- ... and none raised.
SELECT fn, call, sqlstate, message FROM leakproof_errors ORDER BY fn::text COLLATE "C", call COLLATE "C";

-- (c) Row-level security: a role that sees only its own rows filters the
-- table with every formerly-leakproof function.  Only hidden rows hold
-- values these functions reject, so an error would show a hidden row.
-- The policy's function is expensive, so that a leakproof qual (cheap)
-- would run before it; a non-leakproof one runs after it.
DROP ROLE IF EXISTS regress_kid_rls_reader;
CREATE ROLE regress_kid_rls_reader NOSUPERUSER;
CREATE FUNCTION rls_may_see(owner text) RETURNS boolean
LANGUAGE plpgsql STABLE COST 10000 AS $$ BEGIN RETURN owner = current_user; END $$;
CREATE TABLE rls_people (name text, owner text, born timestamptz, neighborhood integer, gid uid_global, raw bigint);
INSERT INTO rls_people VALUES
    ('visible', 'regress_kid_rls_reader', '2026-01-10 12:00', 8,
     uid_to_global(uid_from_timestamp('2026-01-10 12:00'), 1, 8), uid_to_bigint(uid_from_timestamp('2026-01-10 12:00'))),
    ('hidden', 'someone_else', '1900-01-01 00:00:00.123456', 99,
     uid_to_global(uid_from_timestamp('2026-01-10 12:00'), 1, 8), -1234567);
ALTER TABLE rls_people ENABLE ROW LEVEL SECURITY;
CREATE POLICY rls_people_own ON rls_people USING (rls_may_see(owner));
GRANT SELECT ON rls_people TO regress_kid_rls_reader;

-- The table owner is not subject to the policy: the hidden row's values do
-- raise (this is what must not reach the reader).
SELECT name FROM rls_people WHERE sno_from_timestamp(born) IS NOT NULL;
SELECT name FROM rls_people WHERE uid_from_bigint(raw) IS NOT NULL;
SELECT name FROM rls_people WHERE uid_global_to_timestamp(gid, neighborhood) IS NOT NULL;

SET ROLE regress_kid_rls_reader;
-- The policy runs first ...
EXPLAIN (COSTS OFF) SELECT name FROM rls_people WHERE sno_from_timestamp(born) IS NOT NULL;
-- ... so every query sees its one row and no error.
SELECT name FROM rls_people WHERE sno_from_timestamp(born) IS NOT NULL;
SELECT name FROM rls_people WHERE tid_from_timestamp(born) IS NOT NULL;
SELECT name FROM rls_people WHERE koid_from_timestamp(born) IS NOT NULL;
SELECT name FROM rls_people WHERE uid_from_timestamp(born) IS NOT NULL;
SELECT name FROM rls_people WHERE uid_global_from_timestamp(born, neighborhood) IS NOT NULL;
SELECT name FROM rls_people WHERE uid_global_to_timestamp(gid, neighborhood) IS NOT NULL;
SELECT name FROM rls_people WHERE uid_from_bigint(raw) IS NOT NULL;
SELECT name FROM rls_people WHERE raw::uid IS NOT NULL;
RESET ROLE;

-- The same through a security-barrier view (with an expensive condition,
-- which a leakproof qual would overtake).
CREATE FUNCTION rls_is_reader(owner text) RETURNS boolean
LANGUAGE plpgsql STABLE COST 10000 AS $$ BEGIN RETURN owner = 'regress_kid_rls_reader'; END $$;
CREATE VIEW rls_people_view WITH (security_barrier) AS
    SELECT name, born, raw FROM rls_people WHERE rls_is_reader(owner);
SELECT name FROM rls_people_view WHERE sno_from_timestamp(born) IS NOT NULL AND uid_from_bigint(raw) IS NOT NULL;

DROP VIEW rls_people_view;
DROP TABLE rls_people;
DROP FUNCTION rls_may_see(text);
DROP FUNCTION rls_is_reader(text);
DROP ROLE regress_kid_rls_reader;
