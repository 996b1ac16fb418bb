#!/usr/bin/python3
"""psycopg2 (Debian python3-psycopg2) against kid, used as an application uses
it.  Connects with libpq's environment (PGHOST, PGPORT, PGUSER, PGDATABASE),
which test/server/60-client_python.sh sets to a fresh database with kid created.
Prints one "ok:"/"FAILED:" line per check (checks.py).

What psycopg2 does that matters here: it writes the parameters into the query
text itself: a str becomes an untyped literal 'text' (the server gives it the
column's type), a datetime '...'::timestamptz, an int a numeric literal
(bigint when large), a list ARRAY['a', 'b'], which is text[], a tuple
('a', 'b'), untyped literals.  A kid column comes back as str.
"""

import io
import re
import sys
import uuid

from checks import TABLES, Checks, import_or_fail, minutes

checks = Checks("psycopg2")
psycopg2 = import_or_fail(checks, "psycopg2", "python3-psycopg2")
if psycopg2 is None:
    sys.exit(checks.finish())

conn = psycopg2.connect("")
conn.autocommit = True
cur = conn.cursor()


def query(sql, params=None):
    cur.execute(sql, params)
    return cur.fetchall()


for table in TABLES:
    cur.execute(table)

with checks.scenario("1. INSERT with DEFAULT ... RETURNING id"):
    sno_id = query("INSERT INTO event (body) VALUES (%s) RETURNING id", ["hello"])[0][0]
    checks.eq("1. RETURNING a sno gives a str", type(sno_id), str)
    checks.eq("1. it is 16 characters of 23456789a-x", bool(re.fullmatch("[2-9a-x]{16}", sno_id)), True)
    koid_id = query("INSERT INTO follower (name) VALUES ('ann') RETURNING id")[0][0]
    checks.eq("1. RETURNING a koid gives a str of 16 hex digits",
              (type(koid_id), bool(re.fullmatch("[0-9a-f]{16}", koid_id))), (str, True))
    tid_id = query("INSERT INTO post (body) VALUES ('first') RETURNING id")[0][0]
    checks.eq("1. RETURNING an atproto_tid gives a str of 13 base32-sortable characters",
              (type(tid_id), bool(re.fullmatch("[2-7a-j][2-7a-z]{12}", tid_id))), (str, True))

with checks.scenario("2. look up by an id given as a str"):
    checks.eq("2. WHERE id = %s with a str (no cast)",
              query("SELECT body FROM event WHERE id = %s", [sno_id]), [("hello",)])
    checks.eq("2. atproto_tid: WHERE id = %s with a str (no cast)",
              query("SELECT body FROM post WHERE id = %s", [tid_id]), [("first",)])

with checks.scenario("3. a time range with datetime parameters"):
    cur.execute("CREATE TABLE timed (id sno PRIMARY KEY, body text)")
    for n in (0, 5, 10, 15):
        cur.execute("INSERT INTO timed VALUES (sno_new_with_time(%s), %s)", [minutes(n), f"m{n}"])
    checks.eq("3. id >= %s::timestamptz AND id < %s::timestamptz with datetimes: exactly the rows of [00:05, 00:15)",
              query("SELECT body FROM timed WHERE id >= %s::timestamptz AND id < %s::timestamptz ORDER BY id",
                    [minutes(5), minutes(15)]), [("m5",), ("m10",)])
    # psycopg2 writes an aware datetime as '...'::timestamptz: no cast needed.
    checks.eq("3. id >= %s AND id < %s with datetimes (no cast): the same rows",
              query("SELECT body FROM timed WHERE id >= %s AND id < %s ORDER BY id",
                    [minutes(5), minutes(15)]), [("m5",), ("m10",)])
    checks.error("3. a time as a str without the cast: 22P02, the sno message and a HINT to write ::timestamptz",
                 lambda: cur.execute("SELECT body FROM timed WHERE id >= %s", ["2026-01-10 00:05:00+00"]),
                 "22P02", 'invalid input syntax for type sno: "2026-01-10 00:05:00+00"', "::timestamptz")
    checks.eq("3. a time as a str with %s::timestamptz: the rows from 00:05",
              query("SELECT body FROM timed WHERE id >= %s::timestamptz ORDER BY id", ["2026-01-10 00:05:00+00"]),
              [("m5",), ("m10",), ("m15",)])
    checks.eq("3. id::timestamptz comes back as the aware datetime the id was made for",
              query("SELECT id::timestamptz FROM timed WHERE body = 'm5'")[0][0], minutes(5))

with checks.scenario("4. a list of ids"):
    ids = [r[0] for r in query("SELECT id FROM timed WHERE body IN ('m0', 'm15')")]
    checks.gives("4. id = ANY(%s) with a list of str, sent as text[] (no cast)",
                 lambda: query("SELECT body FROM timed WHERE id = ANY(%s) ORDER BY id", [ids]),
                 [("m0",), ("m15",)])
    checks.eq("4. id = ANY(%s::sno[]) with a list of str",
              query("SELECT body FROM timed WHERE id = ANY(%s::sno[]) ORDER BY id", [ids]), [("m0",), ("m15",)])
    checks.eq("4. id IN %s with a tuple of str (no cast)",
              query("SELECT body FROM timed WHERE id IN %s ORDER BY id", [tuple(ids)]), [("m0",), ("m15",)])

with checks.scenario("5. COPY"):
    expected = query("SELECT id::text, body FROM timed ORDER BY id")
    text_out = io.StringIO()
    cur.copy_expert("COPY (SELECT id, body FROM timed ORDER BY id) TO STDOUT", text_out)
    checks.eq("5. text COPY TO STDOUT: each id as its text",
              text_out.getvalue(), "".join(f"{i}\t{b}\n" for i, b in expected))
    cur.execute("CREATE TABLE timed_text (LIKE timed)")
    cur.copy_expert("COPY timed_text (id, body) FROM STDIN", io.StringIO(text_out.getvalue()))
    checks.eq("5. text COPY FROM STDIN of that text: the same rows",
              query("SELECT id::text, body FROM timed_text ORDER BY id"), expected)

    # psycopg2 passes binary COPY through as the raw stream (PGCOPY header,
    # then each id as its length and raw bytes): it round-trips as is.
    binary_out = io.BytesIO()
    cur.copy_expert("COPY (SELECT id, body FROM timed ORDER BY id) TO STDOUT (FORMAT BINARY)", binary_out)
    stream = binary_out.getvalue()
    first_id = query("SELECT id::bytea FROM timed ORDER BY id LIMIT 1")[0][0].tobytes()
    # header 11 + flags 4 + extension 4, then the tuple's field count 2 and the id's length 4
    checks.eq("5. binary COPY TO STDOUT: PGCOPY, the first id as length 10 and its raw bytes",
              (stream[:11], stream[21:25], stream[25:35]), (b"PGCOPY\n\xff\r\n\0", b"\0\0\0\x0a", first_id))
    cur.execute("CREATE TABLE timed_binary (LIKE timed)")
    cur.copy_expert("COPY timed_binary (id, body) FROM STDIN (FORMAT BINARY)", io.BytesIO(stream))
    checks.eq("5. binary COPY FROM STDIN of that stream: exactly the same rows",
              query("SELECT id::text, body FROM timed_binary ORDER BY id"), expected)

with checks.scenario("6. a bad id"):
    checks.error("6. WHERE id = %s with 'not-an-id': 22P02 and the sno message",
                 lambda: cur.execute("SELECT body FROM event WHERE id = %s", ["not-an-id"]),
                 "22P02", 'invalid input syntax for type sno: "not-an-id"')
    checks.error("6. INSERT of a bad id: 22P02 and the sno message",
                 lambda: cur.execute("INSERT INTO event (id, body) VALUES (%s, 'x')", ["zzzzzzzzzzzzzzzz"]),
                 "22P02", 'invalid input syntax for type sno: "zzzzzzzzzzzzzzzz"')

with checks.scenario("7. koid as int and as str"):
    koid_int = query("SELECT id::bigint FROM follower WHERE id = %s", [koid_id])[0][0]
    checks.eq("7. id::bigint comes back as an int equal to the hex digits", koid_int, int(koid_id, 16))
    checks.eq("7. WHERE id = %s::koid with an int (a bigint literal)",
              query("SELECT name FROM follower WHERE id = %s::koid", [koid_int]), [("ann",)])
    checks.error("7. WHERE id = %s with an int (no cast): 42883, koid = bigint has no operator",
                 lambda: cur.execute("SELECT name FROM follower WHERE id = %s", [koid_int]),
                 "42883", "operator does not exist: koid = bigint")
    new_int = koid_int + 1
    cur.execute("INSERT INTO follower (id, name) VALUES (%s::koid, 'bob')", [new_int])
    checks.eq("7. INSERT of an int as %s::koid: stored as that koid",
              query("SELECT id::bigint FROM follower WHERE name = 'bob'"), [(new_int,)])
    checks.gives("7. INSERT of an int into a koid column (no cast): stored as that koid",
                 lambda: query("INSERT INTO follower (id, name) VALUES (%s, 'cy') RETURNING id::bigint",
                               [new_int + 1]), [(new_int + 1,)])
    checks.eq("7. WHERE id = %s with the koid as a hex str (no cast)",
              query("SELECT name FROM follower WHERE id = %s", [format(new_int, "016x")]), [("bob",)])

with checks.scenario("8. a uuid column: uuidv7_new(), a time range with datetimes"):
    import psycopg2.extras  # noqa: E402 (register_uuid: uuid columns as uuid.UUID)
    psycopg2.extras.register_uuid()
    cur.execute("CREATE TABLE uuid_timed (id uuid PRIMARY KEY DEFAULT uuidv7_new(), body text)")
    for n in (0, 5, 10, 15):
        cur.execute("INSERT INTO uuid_timed VALUES (uuidv7_new_with_time(%s), %s)", [minutes(n), f"m{n}"])
    new_id = query("INSERT INTO uuid_timed (body) VALUES ('now') RETURNING id")[0][0]
    checks.eq("8. RETURNING a uuidv7_new() id gives a uuid.UUID of version 7 (register_uuid)",
              (type(new_id), new_id.version), (uuid.UUID, 7))
    checks.eq("8. WHERE id = %s with that uuid.UUID (written as '...'::uuid)",
              query("SELECT body FROM uuid_timed WHERE id = %s", [new_id]), [("now",)])
    checks.eq("8. id >= %s AND id < %s with datetimes (no cast): the rows of [00:05, 00:15)",
              query("SELECT body FROM uuid_timed WHERE id >= %s AND id < %s ORDER BY id",
                    [minutes(5), minutes(15)]), [("m5",), ("m10",)])
    checks.eq("8. uuidv7_to_timestamp(id) comes back as the aware datetime the id was made for",
              query("SELECT uuidv7_to_timestamp(id) FROM uuid_timed WHERE body = 'm5'")[0][0], minutes(5))

conn.close()
sys.exit(checks.finish())
