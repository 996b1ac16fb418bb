-- input_error(input, type): whether input is a valid literal of type, and
-- the error it gives (message, detail, SQLSTATE, hint), as
-- pg_input_error_info reports it on PostgreSQL 16 and later.  15 has no
-- soft errors: there the same columns come from the ERROR the cast raises,
-- so that one expected output serves every version.
SELECT current_setting('server_version_num')::integer >= 160000 AS soft_errors \gset
\if :soft_errors
CREATE FUNCTION input_error(input text, type text, OUT valid boolean,
    OUT message text, OUT detail text, OUT state text, OUT hint text)
LANGUAGE sql AS $$
    SELECT pg_input_is_valid(input, type), e.message, e.detail, e.sql_error_code, e.hint
    FROM pg_input_error_info(input, type) e
$$;
\else
CREATE FUNCTION input_error(input text, type text, OUT valid boolean,
    OUT message text, OUT detail text, OUT state text, OUT hint text)
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('SELECT %L::%s', input, type);
    valid := true;
EXCEPTION WHEN others THEN
    GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL,
        state = RETURNED_SQLSTATE, hint = PG_EXCEPTION_HINT;
    valid := false;
    detail := nullif(detail, '');
    hint := nullif(hint, '');
END $$;
\endif
