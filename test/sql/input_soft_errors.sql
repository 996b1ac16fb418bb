--
-- Soft input errors (PostgreSQL 16+): a malformed literal of any kid type is
-- saved into the caller's error context instead of raised, so that
-- pg_input_is_valid and pg_input_error_info report it without an ERROR.
--
-- PostgreSQL 15 has neither function.  There input_error shows the same
-- columns from the ERROR the cast raises, so that one expected output serves
-- every version; on 16+ the rows come without any ERROR raised.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set input_error :abs_srcdir '/sql/include/input_error.sql'
\i :input_error

-- A valid and a malformed literal of every type.
SELECT type, input, e.valid, e.message, e.detail, e.state
FROM (VALUES
    ('sno', '2222222222222222'), ('sno', '2222222222222221'),
    ('atproto_tid', '3jzfcijpj2z2a'), ('atproto_tid', '3jzfcijpj2z2'),
    ('atproto_rkey', 'self'), ('atproto_rkey', '..'),
    ('koid', '0123456789abcdef'), ('koid', '0123456789ABCDEF'),
    ('uid', '...........'), ('uid', 'not a uid'),
    ('uid_global', '................'), ('uid_global', ''),
    ('codokey', 'yj00'), ('codokey', 'YJ00')
) v(type, input), input_error(input, type) e
ORDER BY 1, 3 DESC;

-- Long input is cut in the saved message as in a raised one.
SELECT valid, length(message) AS message_length, right(message, 4) AS message_end, state
FROM input_error(repeat('x', 500), 'codokey');

-- A cast still raises the error.
SELECT 'x'::sno;

DROP FUNCTION input_error(text, text);
