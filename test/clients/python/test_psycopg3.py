#!/usr/bin/python3
"""psycopg 3 (Debian python3-psycopg) against kid, used as an application uses
it.  Connects with libpq's environment (PGHOST, PGPORT, PGUSER, PGDATABASE),
which test/server/60-client_python.sh sets to a fresh database with kid created.
Prints one "ok:"/"FAILED:" line per check (checks.py).

What psycopg 3 does that matters here: a str parameter is sent untyped (the
server gives it the column's type), a datetime with a tzinfo as timestamptz,
an int as int2/int4/int8 by value, a list of str as an untyped array; a kid
column comes back as str in text results and as its raw bytes in binary ones.
"""

import re
import sys
import uuid

from checks import TABLES, Checks, import_or_fail, minutes

checks = Checks("psycopg 3")
psycopg = import_or_fail(checks, "psycopg", "python3-psycopg")
if psycopg is None:
    sys.exit(checks.finish())

conn = psycopg.connect(autocommit=True)
cur = conn.cursor()
for table in TABLES:
    cur.execute(table)

with checks.scenario("1. INSERT with DEFAULT ... RETURNING id"):
    sno_id = cur.execute("INSERT INTO event (body) VALUES (%s) RETURNING id", ["hello"]).fetchone()[0]
    checks.eq("1. RETURNING a sno gives a str", type(sno_id), str)
    checks.eq("1. it is 16 characters of 23456789a-x", bool(re.fullmatch("[2-9a-x]{16}", sno_id)), True)
    koid_id = cur.execute("INSERT INTO follower (name) VALUES ('ann') RETURNING id").fetchone()[0]
    checks.eq("1. RETURNING a koid gives a str of 16 hex digits",
              (type(koid_id), bool(re.fullmatch("[0-9a-f]{16}", koid_id))), (str, True))
    tid_id = cur.execute("INSERT INTO post (body) VALUES ('first') RETURNING id").fetchone()[0]
    checks.eq("1. RETURNING an atproto_tid gives a str of 13 base32-sortable characters",
              (type(tid_id), bool(re.fullmatch("[2-7a-j][2-7a-z]{12}", tid_id))), (str, True))

with checks.scenario("2. look up by an id given as a str"):
    checks.eq("2. WHERE id = %s with a str (no cast)",
              cur.execute("SELECT body FROM event WHERE id = %s", [sno_id]).fetchall(), [("hello",)])
    checks.eq("2. atproto_tid: WHERE id = %s with a str (no cast)",
              cur.execute("SELECT body FROM post WHERE id = %s", [tid_id]).fetchall(), [("first",)])

with checks.scenario("3. a time range with datetime parameters"):
    cur.execute("CREATE TABLE timed (id sno PRIMARY KEY, body text)")
    for n in (0, 5, 10, 15):
        cur.execute("INSERT INTO timed VALUES (sno_new_with_time(%s), %s)", [minutes(n), f"m{n}"])
    documented = "SELECT body FROM timed WHERE id >= %s::timestamptz AND id < %s::timestamptz ORDER BY id"
    checks.eq("3. id >= %s::timestamptz AND id < %s::timestamptz with datetimes: exactly the rows of [00:05, 00:15)",
              cur.execute(documented, [minutes(5), minutes(15)]).fetchall(), [("m5",), ("m10",)])
    # psycopg 3 sends an aware datetime typed timestamptz: the cast is not needed.
    checks.eq("3. id >= %s AND id < %s with datetimes (no cast): the same rows",
              cur.execute("SELECT body FROM timed WHERE id >= %s AND id < %s ORDER BY id",
                          [minutes(5), minutes(15)]).fetchall(), [("m5",), ("m10",)])
    # A time given as a str is untyped: the server reads it as a sno.
    checks.error("3. a time as a str without the cast: 22P02, the sno message and a HINT to write ::timestamptz",
                 lambda: cur.execute("SELECT body FROM timed WHERE id >= %s", ["2026-01-10 00:05:00+00"]),
                 "22P02", 'invalid input syntax for type sno: "2026-01-10 00:05:00+00"', "::timestamptz")
    checks.eq("3. a time as a str with %s::timestamptz: the rows from 00:05",
              cur.execute("SELECT body FROM timed WHERE id >= %s::timestamptz ORDER BY id",
                          ["2026-01-10 00:05:00+00"]).fetchall(), [("m5",), ("m10",), ("m15",)])
    checks.eq("3. id::timestamptz comes back as the aware datetime the id was made for",
              cur.execute("SELECT id::timestamptz FROM timed WHERE body = 'm5'").fetchone()[0], minutes(5))

with checks.scenario("4. a list of ids"):
    ids = [r[0] for r in cur.execute("SELECT id FROM timed WHERE body IN ('m0', 'm15')")]
    checks.eq("4. id = ANY(%s) with a list of str (no cast)",
              cur.execute("SELECT body FROM timed WHERE id = ANY(%s) ORDER BY id", [ids]).fetchall(),
              [("m0",), ("m15",)])
    checks.eq("4. id = ANY(%s::sno[]) with a list of str",
              cur.execute("SELECT body FROM timed WHERE id = ANY(%s::sno[]) ORDER BY id", [ids]).fetchall(),
              [("m0",), ("m15",)])

with checks.scenario("5. COPY"):
    expected = cur.execute("SELECT id::text, body FROM timed ORDER BY id").fetchall()
    with cur.copy("COPY timed (id, body) TO STDOUT") as copy:
        text_out = list(copy.rows())
    checks.eq("5. text COPY TO STDOUT: each id as its str", sorted(text_out), expected)
    cur.execute("CREATE TABLE timed_text (LIKE timed)")
    with cur.copy("COPY timed_text (id, body) FROM STDIN") as copy:
        for row in text_out:
            copy.write_row(row)
    checks.eq("5. text COPY FROM STDIN of str ids: the same rows",
              cur.execute("SELECT id::text, body FROM timed_text ORDER BY id").fetchall(), expected)

    # Binary COPY carries a kid id as its raw bytes (10 for a sno): read it
    # as bytea, write it as bytes.
    raw = cur.execute("SELECT id::bytea, body FROM timed ORDER BY id").fetchall()
    with cur.copy("COPY timed (id, body) TO STDOUT (FORMAT BINARY)") as copy:
        copy.set_types(["bytea", "text"])
        binary_out = sorted((bytes(i), b) for i, b in copy.rows())
    checks.eq("5. binary COPY TO STDOUT with set_types(['bytea', 'text']): each id as its 10 bytes",
              binary_out, raw)
    cur.execute("CREATE TABLE timed_binary (LIKE timed)")
    with cur.copy("COPY timed_binary (id, body) FROM STDIN (FORMAT BINARY)") as copy:
        for row in binary_out:
            copy.write_row(row)
    checks.eq("5. binary COPY FROM STDIN of bytes ids: exactly the same rows",
              cur.execute("SELECT id::text, body FROM timed_binary ORDER BY id").fetchall(), expected)

    def copy_str_in_binary():
        with cur.copy("COPY timed_binary (id, body) FROM STDIN (FORMAT BINARY)") as copy:
            copy.write_row([expected[0][0], "as str"])
    checks.error("5. binary COPY FROM STDIN of a str id: 22P03 (binary wants the bytes)",
                 copy_str_in_binary, "22P03", "invalid binary value for type sno")

with checks.scenario("6. a bad id"):
    checks.error("6. WHERE id = %s with 'not-an-id': 22P02 and the sno message",
                 lambda: cur.execute("SELECT body FROM event WHERE id = %s", ["not-an-id"]),
                 "22P02", 'invalid input syntax for type sno: "not-an-id"')
    checks.error("6. INSERT of a bad id: 22P02 and the sno message",
                 lambda: cur.execute("INSERT INTO event (id, body) VALUES (%s, 'x')", ["zzzzzzzzzzzzzzzz"]),
                 "22P02", 'invalid input syntax for type sno: "zzzzzzzzzzzzzzzz"')

with checks.scenario("7. koid as int and as str; binary results"):
    koid_int = cur.execute("SELECT id::bigint FROM follower WHERE id = %s", [koid_id]).fetchone()[0]
    checks.eq("7. id::bigint comes back as an int equal to the hex digits", koid_int, int(koid_id, 16))
    checks.eq("7. WHERE id = %s::koid with an int (sent as int8)",
              cur.execute("SELECT name FROM follower WHERE id = %s::koid", [koid_int]).fetchall(), [("ann",)])
    checks.error("7. WHERE id = %s with an int (no cast): 42883, koid = bigint has no operator",
                 lambda: cur.execute("SELECT name FROM follower WHERE id = %s", [koid_int]),
                 "42883", "operator does not exist: koid = bigint")
    new_int = koid_int + 1
    cur.execute("INSERT INTO follower (id, name) VALUES (%s::koid, 'bob')", [new_int])
    checks.eq("7. INSERT of an int as %s::koid: stored as that koid",
              cur.execute("SELECT id::bigint FROM follower WHERE name = 'bob'").fetchone()[0], new_int)
    checks.gives("7. INSERT of an int into a koid column (no cast): stored as that koid",
                 lambda: cur.execute("INSERT INTO follower (id, name) VALUES (%s, 'cy') RETURNING id::bigint",
                                     [new_int + 1]).fetchall(), [(new_int + 1,)])
    checks.eq("7. WHERE id = %s with the koid as a hex str (no cast)",
              cur.execute("SELECT name FROM follower WHERE id = %s", [format(new_int, "016x")]).fetchall(),
              [("bob",)])

    binary = conn.cursor(binary=True)
    sno_bytes = binary.execute("SELECT id FROM event WHERE body = 'hello'").fetchone()[0]
    checks.eq("7. cursor(binary=True): a sno comes back as bytes, its 10 raw bytes",
              (type(sno_bytes), sno_bytes),
              (bytes, cur.execute("SELECT id::bytea FROM event WHERE body = 'hello'").fetchone()[0]))
    koid_bytes = binary.execute("SELECT id FROM follower WHERE name = 'bob'").fetchone()[0]
    checks.eq("7. cursor(binary=True): a koid comes back as its 8 bytes, the int big-endian",
              koid_bytes, new_int.to_bytes(8, "big"))
    checks.eq("7. binary parameter (%b) of a sno's bytes with ::sno",
              binary.execute("SELECT body FROM event WHERE id = %b::sno", [sno_bytes]).fetchall(), [("hello",)])
    checks.gives("7. binary parameter (%b) of a sno as a str (sent as text, no cast)",
                 lambda: binary.execute("SELECT body FROM event WHERE id = %b", [sno_id]).fetchall(), [("hello",)])

with checks.scenario("8. a uuid column: uuidv7_new(), a time range with datetimes"):
    cur.execute("CREATE TABLE uuid_timed (id uuid PRIMARY KEY DEFAULT uuidv7_new(), body text)")
    for n in (0, 5, 10, 15):
        cur.execute("INSERT INTO uuid_timed VALUES (uuidv7_new_with_time(%s), %s)", [minutes(n), f"m{n}"])
    new_id = cur.execute("INSERT INTO uuid_timed (body) VALUES ('now') RETURNING id").fetchone()[0]
    checks.eq("8. RETURNING a uuidv7_new() id gives a uuid.UUID of version 7", (type(new_id), new_id.version),
              (uuid.UUID, 7))
    checks.eq("8. WHERE id = %s with that uuid.UUID",
              cur.execute("SELECT body FROM uuid_timed WHERE id = %s", [new_id]).fetchall(), [("now",)])
    checks.eq("8. id >= %s AND id < %s with datetimes (sent as timestamptz, no cast): the rows of [00:05, 00:15)",
              cur.execute("SELECT body FROM uuid_timed WHERE id >= %s AND id < %s ORDER BY id",
                          [minutes(5), minutes(15)]).fetchall(), [("m5",), ("m10",)])
    checks.eq("8. uuidv7_to_timestamp(id) comes back as the aware datetime the id was made for",
              cur.execute("SELECT uuidv7_to_timestamp(id) FROM uuid_timed WHERE body = 'm5'").fetchone()[0], minutes(5))

conn.close()
sys.exit(checks.finish())
