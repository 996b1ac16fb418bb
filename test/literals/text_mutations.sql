-- test/literals/text_mutations.sql - random mutations of valid literals fed
-- to kid's text input functions (loaded by test/server/14-random_literals.sh
-- into a scratch database; not part of the extension).
--
--   lit_seed      valid literals per type: made by the server, and edge values
--   lit_mutate()  1 to 3 random edits of a literal
--   lit_try()     the input function, recording the SQLSTATE of a rejection
--   lit_expect()  an independent oracle: whether a text is a valid literal
--   lit_run()     n mutations per type into lit_result
--   lit_violation every result that breaks a rule (must stay empty)
--
-- Rules: an accepted literal prints back exactly as it came in (every kid
-- text form is canonical), is accepted exactly when the oracle says it is
-- valid, and a rejected one raised 22P02 (23514 for the atproto_rkey domain,
-- whose CHECK must agree with atproto_rkey_is_valid).

CREATE EXTENSION IF NOT EXISTS kid;

CREATE TABLE lit_seed (typ text, lit text);
CREATE TABLE lit_result (
    typ text, input text, mutated boolean, accepted boolean, output text, sqlstate text,
    expected boolean, rkey_valid boolean);

CREATE FUNCTION lit_alphabet(typ text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
SELECT CASE typ
    WHEN 'sno' THEN '23456789abcdefghijklmnopqrstuvwx'
    WHEN 'atproto_tid' THEN '234567abcdefghijklmnopqrstuvwxyz'
    WHEN 'koid' THEN '0123456789abcdef'
    WHEN 'uid' THEN '.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz'
    WHEN 'uid_global' THEN '.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz'
    WHEN 'codokey' THEN '0123456789abcdefghijklmnopqrstuvwxyz'
    WHEN 'atproto_rkey' THEN 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-_:~'
END $$;

-- The bits of a d64 text, 6 per character (NULL if a character is not d64).
CREATE FUNCTION lit_d64_bits(s text) RETURNS varbit
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    b varbit := B'';
    k int;
BEGIN
    FOR i IN 1 .. length(s) LOOP
        k := position(substr(s, i, 1) IN lit_alphabet('uid'));
        IF k = 0 THEN
            RETURN NULL;
        END IF;
        b := b || (k - 1)::bit(6);
    END LOOP;
    RETURN b;
END $$;

-- The oracle, written from the specs independently of kid's C++ codecs.
CREATE FUNCTION lit_expect(typ text, s text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    b varbit;
BEGIN
    CASE typ
    WHEN 'sno' THEN RETURN s ~ '^[2-9a-x]{16}$';
    WHEN 'atproto_tid' THEN RETURN s ~ '^[2-7a-j][2-7a-z]{12}$';
    WHEN 'koid' THEN RETURN s ~ '^[0-9a-f]{16}$';
    WHEN 'codokey' THEN RETURN s ~ '^[0-9a-z]{1,16}$';
    WHEN 'atproto_rkey' THEN RETURN s ~ '^[A-Za-z0-9._:~-]+$' AND length(s) <= 512 AND s NOT IN ('.', '..');
    WHEN 'uid' THEN
        -- 66 bits: megaseconds:20 seconds:20 step:10 sequence:14, then two zero bits.
        IF length(s) <> 11 THEN RETURN false; END IF;
        b := lit_d64_bits(s);
        RETURN b IS NOT NULL
            AND substring(b FROM 65 FOR 2) = B'00'
            AND substring(b FROM 21 FOR 20)::bit(20)::int <= 999999
            AND substring(b FROM 41 FOR 10)::bit(10)::int <= 976;
    WHEN 'uid_global' THEN
        -- 96 bits; the step is bits 14..23 counted from the least significant end.
        IF length(s) <> 16 THEN RETURN false; END IF;
        b := lit_d64_bits(s);
        -- The top 10 bits of the seconds (bits 21..30 from the most significant
        -- end) are at most 999999 >> 10 = 976 under every interval.
        RETURN b IS NOT NULL AND substring(b FROM 73 FOR 10)::bit(10)::int <= 976
            AND substring(b FROM 21 FOR 10)::bit(10)::int <= 976;
    END CASE;
END $$;

-- The text input of a type (through a cast, which calls the input function
-- as any literal would); a rejection returns its SQLSTATE.
CREATE FUNCTION lit_try(typ text, s text, OUT accepted boolean, OUT output text, OUT state text)
LANGUAGE plpgsql AS $$
BEGIN
    CASE typ
    WHEN 'sno' THEN output := s::sno::text;
    WHEN 'atproto_tid' THEN output := s::atproto_tid::text;
    WHEN 'koid' THEN output := s::koid::text;
    WHEN 'uid' THEN output := s::uid::text;
    WHEN 'uid_global' THEN output := s::uid_global::text;
    WHEN 'codokey' THEN output := s::codokey::text;
    WHEN 'atproto_rkey' THEN output := s::atproto_rkey::text;
    END CASE;
    accepted := true;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE;
    accepted := false;
END $$;

-- One character that no literal contains: ASCII punctuation, controls
-- (never NUL), and non-ASCII: raw bytes 0x80..0xFF in a SQL_ASCII
-- database, look-alike, invisible and combining characters in UTF-8.
CREATE FUNCTION lit_hostile(utf8 boolean) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    r float8 := random();
    -- e-acute, sharp s, dotted and dotless I, Kelvin sign, Angstrom sign,
    -- euro, fullwidth 0 A a, mathematical 2, Cyrillic a and ha, Greek
    -- omicron, zero-width space, BOM, no-break space, combining acute, line
    -- separator, replacement character, an emoji.
    odd int[] := ARRAY[233, 223, 304, 305, 8490, 8491, 8364, 65296, 65313, 65345, 120784,
                       1072, 1093, 959, 8203, 65279, 160, 769, 8232, 65533, 128512];
    cp int;
BEGIN
    IF r < 0.35 THEN
        RETURN chr(32 + floor(random() * 95)::int);
    ELSIF r < 0.5 THEN
        RETURN chr((ARRAY[1, 7, 8, 9, 10, 11, 12, 13, 27, 31, 127])[1 + floor(random() * 11)::int]);
    ELSIF NOT utf8 THEN
        RETURN chr(128 + floor(random() * 128)::int);
    ELSIF r < 0.8 THEN
        RETURN chr(odd[1 + floor(random() * array_length(odd, 1))::int]);
    ELSE
        LOOP
            cp := 128 + floor(random() * (196608 - 128))::int;
            EXIT WHEN cp NOT BETWEEN 55296 AND 57343;
        END LOOP;
        RETURN chr(cp);
    END IF;
END $$;

-- One to three random edits.
CREATE FUNCTION lit_mutate(s text, alphabet text, utf8 boolean) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    len int;
    p int;
    c text;
BEGIN
    FOR i IN 1 .. 1 + floor(random() * 3)::int LOOP
        len := length(s);
        p := 1 + floor(random() * greatest(len, 1))::int;
        CASE floor(random() * 15)::int
        WHEN 0, 1 THEN    -- replace one character by another of the alphabet
            s := overlay(s PLACING substr(alphabet, 1 + floor(random() * length(alphabet))::int, 1) FROM p FOR 1);
        WHEN 2 THEN       -- replace one character by a foreign one
            s := overlay(s PLACING lit_hostile(utf8) FROM p FOR 1);
        WHEN 3 THEN       -- insert a character of the alphabet
            s := overlay(s PLACING substr(alphabet, 1 + floor(random() * length(alphabet))::int, 1) FROM p FOR 0);
        WHEN 4 THEN       -- insert a foreign character
            s := overlay(s PLACING lit_hostile(utf8) FROM p FOR 0);
        WHEN 5 THEN       -- delete a character
            s := overlay(s PLACING '' FROM p FOR 1);
        WHEN 6 THEN       -- swap two neighbours
            IF len >= 2 THEN
                p := least(p, len - 1);
                s := overlay(s PLACING substr(s, p + 1, 1) || substr(s, p, 1) FROM p FOR 2);
            END IF;
        WHEN 7 THEN       -- change the case of one character, or of all
            c := substr(s, p, 1);
            IF random() < 0.3 THEN
                s := CASE WHEN random() < 0.5 THEN upper(s) ELSE lower(s) END;
            ELSE
                s := overlay(s PLACING CASE WHEN c = upper(c) THEN lower(c) ELSE upper(c) END FROM p FOR 1);
            END IF;
        WHEN 8 THEN       -- whitespace before, after or inside
            c := (ARRAY[' ', E'\t', E'\n', E'\r', E'\f', E'\v', '  '])[1 + floor(random() * 7)::int];
            s := CASE floor(random() * 3)::int WHEN 0 THEN c || s WHEN 1 THEN s || c
                 ELSE overlay(s PLACING c FROM p FOR 0) END;
        WHEN 9 THEN       -- truncate
            s := left(s, floor(random() * len)::int);
        WHEN 10 THEN      -- overlong: append a piece of itself, or repeat it
            s := CASE WHEN random() < 0.7 THEN s || substr(s, p) ELSE repeat(s, 2 + floor(random() * 60)::int) END;
        WHEN 11 THEN      -- signs, prefixes, quotes, separators
            c := (ARRAY['+', '-', '0x', '\x', '"', '''', '{', '}', '(', ')', ',', '.', '/', '\', '%', 'x', '0'])[1 + floor(random() * 17)::int];
            s := CASE WHEN random() < 0.5 THEN c || s ELSE s || c END;
        WHEN 12 THEN      -- a run of one character
            s := repeat(substr(alphabet, 1 + floor(random() * length(alphabet))::int, 1), 1 + floor(random() * 20)::int);
        WHEN 13 THEN      -- empty, or a single character
            s := CASE WHEN random() < 0.5 THEN '' ELSE lit_hostile(utf8) END;
        ELSE              -- the first or last character of the alphabet at an end
            s := overlay(s PLACING CASE WHEN random() < 0.5 THEN left(alphabet, 1) ELSE right(alphabet, 1) END
                         FROM CASE WHEN random() < 0.5 THEN 1 ELSE greatest(len, 1) END FOR 1);
        END CASE;
    END LOOP;
    RETURN s;
END $$;

-- Per type: every seed unmutated, then n inputs: a few fixed edges (empty,
-- 1 MB, padded, truncated, ...) and random mutations, seeded for replay.
CREATE FUNCTION lit_run(n int, seed float8) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    utf8 boolean := current_setting('server_encoding') = 'UTF8';
    t text;
    seeds text[];
    everything text[];
    edges text[];
    input text;
    r record;
BEGIN
    PERFORM setseed(seed);
    SELECT array_agg(s.lit ORDER BY s.typ, s.lit) INTO everything FROM lit_seed s;
    FOR t IN SELECT DISTINCT s.typ FROM lit_seed s ORDER BY 1 LOOP
        SELECT array_agg(s.lit ORDER BY s.lit) INTO seeds FROM lit_seed s WHERE s.typ = t;
        edges := ARRAY['', ' ', repeat('2', 1048576), repeat(seeds[1], 1000), seeds[1] || ' ', ' ' || seeds[1],
                       left(seeds[1], -1), seeds[1] || right(seeds[1], 1), upper(seeds[1]), E'\x7f', 'NULL', '0', '-1'];
        FOR i IN 1 .. n + array_length(seeds, 1) LOOP
            IF i <= array_length(seeds, 1) THEN
                input := seeds[i];
            ELSIF i <= array_length(seeds, 1) + array_length(edges, 1) THEN
                input := edges[i - array_length(seeds, 1)];
            ELSE
                -- Mostly a literal of the type; sometimes one of another type.
                input := CASE WHEN random() < 0.9 THEN seeds[1 + floor(random() * array_length(seeds, 1))::int]
                              ELSE everything[1 + floor(random() * array_length(everything, 1))::int] END;
                input := lit_mutate(input, lit_alphabet(t), utf8);
            END IF;
            r := lit_try(t, input);
            INSERT INTO lit_result VALUES (t, input, i > array_length(seeds, 1), r.accepted, r.output, r.state,
                lit_expect(t, input), CASE WHEN t = 'atproto_rkey' THEN atproto_rkey_is_valid(input) END);
        END LOOP;
    END LOOP;
END $$;

-- Every result that breaks a rule.
CREATE VIEW lit_violation AS
SELECT typ, input, why FROM (
    SELECT typ, input, CASE
        WHEN accepted AND output IS DISTINCT FROM input THEN 'accepted but printed back as ' || coalesce(output, 'NULL')
        WHEN accepted AND NOT expected THEN 'accepted, but not a valid literal'
        WHEN NOT accepted AND expected THEN 'rejected with ' || sqlstate || ', but a valid literal'
        WHEN NOT accepted AND sqlstate <> CASE typ WHEN 'atproto_rkey' THEN '23514' ELSE '22P02' END
            THEN 'rejected with unexpected SQLSTATE ' || sqlstate
        WHEN NOT mutated AND NOT accepted THEN 'a seed literal was rejected'
        WHEN typ = 'atproto_rkey' AND rkey_valid IS DISTINCT FROM accepted THEN 'atproto_rkey_is_valid disagrees with the domain'
    END AS why
    FROM lit_result) v
WHERE why IS NOT NULL;

-- Per type: mutations, accepted, rejected and the SQLSTATEs of rejections.
CREATE VIEW lit_summary AS
SELECT typ, count(*) FILTER (WHERE mutated) AS mutations,
       count(*) FILTER (WHERE mutated AND accepted) AS accepted,
       count(*) FILTER (WHERE mutated AND NOT accepted) AS rejected,
       coalesce(string_agg(DISTINCT sqlstate, ','), '-') AS sqlstates,
       count(*) FILTER (WHERE NOT mutated) AS seeds
FROM lit_result GROUP BY typ ORDER BY typ;

-- Seeds: ids the server makes, and the edges of each type.
INSERT INTO lit_seed
SELECT 'sno', sno_new()::text FROM generate_series(1, 8)
UNION ALL SELECT 'sno', sno_new(255)::text
UNION ALL SELECT 'sno', sno_new_with_time('2010-01-01 00:00:00+00', 7)::text
UNION ALL SELECT 'sno', sno_from_timestamp('2024-02-29 23:59:59.999+00')::text
UNION ALL SELECT 'sno', unnest(ARRAY['2222222222222222', 'xxxxxxxxxxxxxxxx', '2222222222222223', 'wxxxxxxxxxxxxxxx'])
UNION ALL SELECT 'atproto_tid', tid_new()::text FROM generate_series(1, 8)
UNION ALL SELECT 'atproto_tid', tid_from_timestamp('1970-01-01 00:00:00+00')::text
UNION ALL SELECT 'atproto_tid', atproto_tid_from_bigint(-1)::text
UNION ALL SELECT 'atproto_tid', unnest(ARRAY['2222222222222', 'jzzzzzzzzzzzz', '7zzzzzzzzzzzz', 'a222222222222', '3jzfcijpj2z2a'])
UNION ALL SELECT 'koid', koid_new()::text FROM generate_series(1, 8)
UNION ALL SELECT 'koid', unnest(ARRAY['0000000000000000', 'ffffffffffffffff', '7fffffffffffffff', '8000000000000000'])
UNION ALL SELECT 'uid', uid_new()::text FROM generate_series(1, 8)
UNION ALL SELECT 'uid', uid_from_bigint(0)::text
-- megaseconds 2^20-1, seconds 999999, step 976, sequence 16383: the largest uid
UNION ALL SELECT 'uid', uid_from_bigint((1048575::bigint << 44) | (999999::bigint << 24) | (976 << 14) | 16383)::text
UNION ALL SELECT 'uid_global', uid_global_new()::text FROM generate_series(1, 8)
UNION ALL SELECT 'uid_global', uid_to_global(uid_new(), 0, 5)::text
UNION ALL SELECT 'uid_global', uid_to_global(uid_from_bigint((1048575::bigint << 44) | (999999::bigint << 24) | (976 << 14) | 16383), 4294967295, 10)::text
UNION ALL SELECT 'uid_global', uid_global_from_timestamp('1970-01-01 00:00:00+00')::text
UNION ALL SELECT 'codokey', codokey(now(), p)::text FROM generate_series(0, 6) p
UNION ALL SELECT 'codokey', unnest(ARRAY['0', 'z', '0000000000000000', 'zzzzzzzzzzzzzzzz'])
UNION ALL SELECT 'atproto_rkey', tid_new()::text FROM generate_series(1, 4)
UNION ALL SELECT 'atproto_rkey', unnest(ARRAY['self', 'a', '~', '-', '...', 'a.b-c_d:e~f', 'app.bsky.feed.post', repeat('Z', 512)]);
