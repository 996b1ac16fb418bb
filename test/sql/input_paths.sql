-- input_paths: every way into a kid type accepts exactly what its text input
-- accepts.  For each type, values that are valid or invalid in one field go
-- through the text input, the bytea cast, the binary receive function (COPY
-- FORMAT binary of a file holding the raw bytes) and, for the 64-bit types,
-- the bigint cast.  Each path reports 'ok' or the SQLSTATE it raised; text
-- rejects with 22P02, bytea and binary with 22P03, bigint with 22003.
SET TIME ZONE 'UTC';
\set SHOW_CONTEXT never

-- The raw bits of a bytea, most significant first.
CREATE FUNCTION ip_bits(b bytea) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(string_agg(get_byte(b, i)::bit(8)::text, '' ORDER BY i), '')
    FROM generate_series(0, length(b) - 1) i $$;
-- Bits written k at a time in an alphabet (the text forms of sno, tid, uid),
-- zero bits padded at the end (trailing) or the start.
CREATE FUNCTION ip_radix(bits text, k int, alphabet text, pad_end boolean) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT string_agg(substr(alphabet, lpad(substring(p FROM i FOR k), 32, '0')::bit(32)::int + 1, 1), '' ORDER BY i)
    FROM (SELECT CASE WHEN pad_end THEN rpad(bits, (length(bits) + k - 1) / k * k, '0')
                      ELSE lpad(bits, (length(bits) + k - 1) / k * k, '0') END AS p) s,
         generate_series(1, length(p), k) i $$;
-- The text a value of these bits has in a type's own syntax (written here, not by the type).
CREATE FUNCTION ip_text(typ text, b bytea) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE typ
        WHEN 'sno' THEN ip_radix(ip_bits(b), 5, '23456789abcdefghijklmnopqrstuvwx', true)
        WHEN 'atproto_tid' THEN ip_radix('0' || ip_bits(b), 5, '234567abcdefghijklmnopqrstuvwxyz', false)
        WHEN 'koid' THEN encode(b, 'hex')
        WHEN 'uid' THEN ip_radix(ip_bits(b), 6, '.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz', true)
        WHEN 'uid_global' THEN ip_radix(ip_bits(b), 6, '.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz', true)
        WHEN 'codokey' THEN convert_from(b, 'SQL_ASCII') END $$;
-- Run a statement: 'ok', or the SQLSTATE it raised.
CREATE FUNCTION ip_try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE stmt;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
-- Binary input: the bytes as the one field of a binary COPY file (a bytea's
-- binary form is its bytes), loaded into a column of the type.
CREATE FUNCTION ip_recv(typ text, b bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    f text := current_setting('data_directory') || '/pg_stat_tmp/kid_input_paths.copy';
BEGIN
    EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', b, f);
    EXECUTE format('CREATE TEMP TABLE IF NOT EXISTS ip_recv_%s (v %s)', typ, typ);
    RETURN ip_try(format('COPY ip_recv_%s FROM %L (FORMAT binary)', typ, f));
END $$;

CREATE TABLE ip_case (typ text, what text, bytes bytea);
INSERT INTO ip_case VALUES
    ('sno', 'all zero', '\x00000000000000000000'),
    ('sno', 'all one bits', '\xffffffffffffffffffff'),
    ('sno', '9 bytes', '\xffffffffffffffffff'),
    ('atproto_tid', 'all zero', '\x0000000000000000'),
    ('atproto_tid', 'top bit set', '\x8000000000000001'),
    ('atproto_tid', 'all one bits', '\xffffffffffffffff'),
    ('koid', 'all zero', '\x0000000000000000'),
    ('koid', 'all one bits', '\xffffffffffffffff'),
    ('koid', '7 bytes', '\xffffffffffffff'),
    -- uid: megaseconds:20 | seconds:20 | step:10 | sequence:14
    ('uid', '1970-01-01 00:00:01', '\x0000000001000000'),
    ('uid', 'every field at its maximum', '\xffffff423ff43fff'),
    ('uid', 'seconds 1000000', '\x00000f4240000000'),
    ('uid', 'step 977', '\x0000000001f44000'),
    ('uid', 'all one bits', '\xffffffffffffffff'),
    -- uid_global: megaseconds:20 | seconds >> I | node:32 | seconds low I bits | step:10 | sequence:14
    ('uid_global', '1 s, node 0x01020304, interval 8', '\x000000000102030401000000'),
    ('uid_global', 'every field at its maximum, interval 5', '\xffffff423ffffffffff43fff'),
    ('uid_global', 'seconds >> 10 = 976, low bits 1023', '\x00000f4300000000ff000000'),
    ('uid_global', 'seconds >> 10 = 977', '\x00000f440000000000000000'),
    ('uid_global', 'seconds >> 10 = 1023, low bits 1023', '\x00000fff00000000ff000000'),
    ('uid_global', 'step 977', '\x000000000102030401f44000'),
    ('uid_global', '11 bytes', '\x0000000001020304010000'),
    ('codokey', 'valid key', 'yj00'),
    ('codokey', 'upper-case letter', 'yJ00'),
    ('codokey', 'empty', ''),
    ('codokey', '17 characters', 'yj000000000000000');

CREATE TABLE ip_result AS
SELECT typ, what,
       ip_try(format('SELECT %L::%s', ip_text(typ, bytes), typ)) AS text_in,
       CASE WHEN typ <> 'codokey' THEN ip_try(format('SELECT %L::bytea::%s', bytes, typ)) END AS bytea_cast,
       ip_recv(typ, bytes) AS binary_in,
       CASE WHEN typ IN ('atproto_tid', 'koid', 'uid') AND length(bytes) = 8
            THEN ip_try(format('SELECT (%s)::bigint::%s', ('x' || encode(bytes, 'hex'))::bit(64)::bigint, typ)) END AS bigint_cast
FROM ip_case;
SELECT * FROM ip_result ORDER BY typ, what;
-- Disagreements between the paths: none.
SELECT typ, what FROM ip_result
WHERE (text_in = 'ok') <> (binary_in = 'ok') OR (text_in = 'ok') <> (coalesce(bytea_cast, text_in) = 'ok')
   OR (text_in = 'ok') <> (coalesce(bigint_cast, text_in) = 'ok');

-- A uid_global whose top 10 bits of seconds are 976 is valid for some
-- intervals only: input takes it, a decoder whose interval reads seconds
-- above 999999 raises 22008 rather than return a time of the next megasecond.
SELECT uid_global_to_timestamp('\x00000f4300000000ff000000'::bytea::uid_global, 10) AS with_interval_10;
SELECT uid_global_to_timestamp('\x00000f4300000000ff000000'::bytea::uid_global, 8);
SELECT uid_global_info('\x00000f4300000000ff000000'::bytea::uid_global, 5);

DROP TABLE ip_case, ip_result;
DROP FUNCTION ip_recv(text, bytea), ip_try(text), ip_text(text, bytea), ip_radix(text, int, text, boolean), ip_bits(bytea);
