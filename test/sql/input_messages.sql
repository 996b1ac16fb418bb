--
-- Messages that quote hostile input show at most its first 200 bytes, cut
-- on a character boundary of the database encoding and followed by "...".
-- Half a character would make the message invalid in that encoding, and
-- its conversion to the client's encoding would then replace the 22P02 of
-- invalid input with a 22021 (invalid byte sequence).
--
-- In a UTF8 database whatever the cluster's default: pg_regress's may be
-- SQL_ASCII, where every byte is a character.
\set regress_db :DBNAME
SET client_min_messages = warning;
DROP DATABASE IF EXISTS regress_kid_utf8;   -- left by an interrupted run
RESET client_min_messages;
CREATE DATABASE regress_kid_utf8 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c regress_kid_utf8
CREATE EXTENSION kid;
SELECT getdatabaseencoding();

-- What evaluating a template with %L replaced by the input reports: its
-- SQLSTATE, whether the message is valid UTF8, how many bytes of input it
-- quotes (between its first and last double quote), and whether it says
-- that it cut them ("...").  The message's
-- bytes are read with textsend, which does not check them.
CREATE FUNCTION input_error(template text, input text,
    OUT state text, OUT message_valid boolean, OUT quoted_bytes integer, OUT cut boolean)
LANGUAGE plpgsql AS $$
DECLARE
    msg text;
    b bytea;
    open_quote integer;
    close_quote integer;
BEGIN
    EXECUTE format(template, input);
    state := 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
    BEGIN
        PERFORM convert_to(msg, 'UTF8');   -- checks the bytes
        message_valid := true;
    EXCEPTION WHEN character_not_in_repertoire THEN
        message_valid := false;
    END;
    b := textsend(msg);
    open_quote := position('\x22'::bytea IN b);
    close_quote := length(b);
    WHILE close_quote > open_quote AND get_byte(b, close_quote - 1) <> 34 LOOP
        close_quote := close_quote - 1;
    END LOOP;
    quoted_bytes := close_quote - open_quote - 1;
    cut := quoted_bytes >= 3 AND substring(b FROM close_quote - 3 FOR 3) = '\x2e2e2e'::bytea;   -- ...
    IF cut THEN
        quoted_bytes := quoted_bytes - 3;
    END IF;
END $$;

-- Every text input that can fail: the types' input functions and the
-- base64url decoders.
CREATE TABLE templates (template text);
INSERT INTO templates VALUES
    ('SELECT %L::sno'), ('SELECT %L::atproto_tid'), ('SELECT %L::koid'), ('SELECT %L::uid'),
    ('SELECT %L::uid_global'), ('SELECT %L::codokey'),
    ('SELECT uid_from_base64url(%L)'), ('SELECT uid_global_from_base64url(%L)');
-- Inputs: n ASCII bytes, then a character of 1 to 4 bytes, then 10 more
-- ASCII bytes, for every n that puts the character across or next to the
-- 200-byte limit, and short inputs that are quoted whole.
CREATE TABLE inputs AS
SELECT n, c, input, octet_length(input) AS input_bytes,
       CASE WHEN octet_length(input) <= 200 THEN octet_length(input)   -- all of it
            WHEN n >= 200 OR n + octet_length(c) <= 200 THEN 200        -- cut among the a's or b's
            ELSE n END AS expect_quoted                                 -- cut before c
FROM (SELECT n, c, repeat('a', n) || c || repeat('b', 10) AS input
      FROM generate_series(194, 201) n,
           unnest(ARRAY['z', chr(233), chr(8364), chr(128512)]) c   -- z, e-acute, euro sign, an emoji
      UNION ALL
      SELECT 0, c, c || c FROM unnest(ARRAY[chr(233), chr(8364), chr(128512)]) c) s;
SELECT octet_length(chr(233)) AS two, octet_length(chr(8364)) AS three, octet_length(chr(128512)) AS four;

CREATE TABLE results AS
SELECT t.template, i.n, i.c, i.input_bytes, i.expect_quoted, e.*
FROM templates t, inputs i, LATERAL input_error(t.template, i.input) e;
-- Every one is 22P02 with a valid message that quotes as many bytes as
-- fit on a character boundary, and says "..." exactly when it cut.
SELECT count(*) AS cases,
       count(*) FILTER (WHERE state <> '22P02') AS not_22p02,
       count(*) FILTER (WHERE NOT message_valid) AS invalid_messages,
       count(*) FILTER (WHERE quoted_bytes <> expect_quoted) AS wrong_length,
       count(*) FILTER (WHERE cut <> (expect_quoted < input_bytes)) AS wrong_ellipsis
FROM results;
-- Per template, the cases that go wrong (none).
SELECT template, n, octet_length(c) AS char_bytes, state, message_valid, quoted_bytes, expect_quoted, cut
FROM results
WHERE state <> '22P02' OR NOT message_valid OR quoted_bytes <> expect_quoted
   OR cut <> (expect_quoted < input_bytes)
ORDER BY 1, 2, 3;
-- A few rows in full.
SELECT template, n, octet_length(c) AS char_bytes, state, message_valid, quoted_bytes, cut
FROM results WHERE template = 'SELECT %L::sno' AND n IN (0, 198, 199) ORDER BY n, char_bytes;

-- The client sees 22P02, in LATIN1 too: a character cut in half would not
-- convert.  (The inputs are built with chr() so that this file is ASCII.)
SET client_encoding = 'LATIN1';
\set VERBOSITY sqlstate
SELECT (repeat('a', 199) || chr(233))::sno;
SELECT (repeat('a', 199) || chr(233))::atproto_tid;
SELECT (repeat('a', 199) || chr(233))::koid;
SELECT (repeat('a', 199) || chr(233))::uid;
SELECT (repeat('a', 199) || chr(233))::uid_global;
SELECT (repeat('a', 199) || chr(233))::codokey;
SELECT uid_from_base64url(repeat('a', 199) || chr(233));
SELECT uid_global_from_base64url(repeat('a', 199) || chr(233));
SELECT (repeat('a', 198) || chr(8364) || 'x')::sno;
SELECT (repeat('a', 197) || chr(128512) || 'x')::codokey;
\set VERBOSITY default
SELECT (repeat('a', 199) || chr(233))::koid;
RESET client_encoding;

-- An unknown codokey context name is quoted whole up to 200 characters,
-- then cut (characters, so never inside one).
SELECT state, message_valid, cut, quoted_bytes
FROM input_error('SELECT codokey(now(), 2, %L)', repeat(chr(8364), 300));
SELECT state, message_valid, cut, quoted_bytes
FROM input_error('SELECT codokey_to_timestamp(''yj'', %L)', repeat(chr(233), 150));

\c :regress_db
DROP DATABASE regress_kid_utf8;
