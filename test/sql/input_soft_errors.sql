--
-- Soft input errors (PostgreSQL 16+): a malformed literal of any kid type is
-- saved into the caller's error context instead of raised, so that
-- pg_input_is_valid and pg_input_error_info report it without an ERROR.
--
-- PostgreSQL 15 has neither function.  There input_check shows the same
-- columns from the ERROR the cast raises, so that one expected output serves
-- every version; on 16+ the rows come without any ERROR raised.
--
SELECT current_setting('server_version_num')::integer >= 160000 AS soft_errors \gset
\if :soft_errors
CREATE FUNCTION input_check(input text, type text,
    OUT valid boolean, OUT message text, OUT detail text, OUT state text)
LANGUAGE sql AS $$
    SELECT pg_input_is_valid(input, type), e.message, e.detail, e.sql_error_code
    FROM pg_input_error_info(input, type) e
$$;
\else
CREATE FUNCTION input_check(input text, type text,
    OUT valid boolean, OUT message text, OUT detail text, OUT state text)
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('SELECT %L::%s', input, type);
    valid := true;
EXCEPTION WHEN others THEN
    GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL, state = RETURNED_SQLSTATE;
    valid := false;
    detail := nullif(detail, '');
END $$;
\endif

-- A valid and a malformed literal of every type.
SELECT type, input, (input_check(input, type)).*
FROM (VALUES
    ('sno', '2222222222222222'), ('sno', '2222222222222221'),
    ('atproto_tid', '3jzfcijpj2z2a'), ('atproto_tid', '3jzfcijpj2z2'),
    ('atproto_rkey', 'self'), ('atproto_rkey', '..'),
    ('koid', '0123456789abcdef'), ('koid', '0123456789ABCDEF'),
    ('uid', '...........'), ('uid', 'not a uid'),
    ('uid_global', '................'), ('uid_global', ''),
    ('codokey', 'yj00'), ('codokey', 'YJ00')
) v(type, input)
ORDER BY 1, 3 DESC;

-- Long input is cut in the saved message as in a raised one.
SELECT valid, length(message) AS message_length, right(message, 4) AS message_end, state
FROM input_check(repeat('x', 500), 'codokey');

-- A cast still raises the error.
SELECT 'x'::sno;

DROP FUNCTION input_check(text, text);
