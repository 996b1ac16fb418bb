#!/usr/bin/python3
"""asyncpg (Debian python3-asyncpg, 0.27) against kid, used as an application
uses it.  Connects with libpq's environment (PGHOST, PGPORT, PGUSER,
PGDATABASE), which asyncpg reads too and test/server/60-client_python.sh sets to
a fresh database with kid created.  Prints one "ok:"/"FAILED:" line per check
(checks.py).

What asyncpg does that matters here: it prepares every statement and encodes
each parameter for the type the server inferred for it, on the client, before
sending.  Next to an id, a bare $1 is inferred as the id type, which asyncpg
knows only by its text form: it takes a str there and refuses anything else
(a datetime, an int) itself, so the server's 22P02 and kid's hint never come.
A $1::timestamptz is a timestamptz, and a datetime is encoded for it.  Results
of kid types come back as str, arrays of them as lists of str.  Its records
COPY (copy_records_to_table) is binary only and has no binary encoder for a
type it does not know: a str id fails there, unless the connection is given
a binary codec for the type (set_type_codec), which makes ids bytes.
"""

import asyncio
import io
import re
import sys
import uuid

from checks import TABLES, Checks, import_or_fail, minutes

checks = Checks("asyncpg")
asyncpg = import_or_fail(checks, "asyncpg", "python3-asyncpg")
if asyncpg is None:
    sys.exit(checks.finish())

# The scenarios run one statement at a time: each awaits on this loop.
loop = asyncio.new_event_loop()


def run(coroutine):
    return loop.run_until_complete(coroutine)


def rows(coroutine):
    """The records of a fetch, as tuples."""
    return [tuple(r) for r in run(coroutine)]


conn = run(asyncpg.connect())
for table in TABLES:
    run(conn.execute(table))


def client_refuses(name, statement, args, python_type):
    """asyncpg refuses the parameter itself: a DataError naming $1 and the
    str it wanted, and no server error (no SQLSTATE of the server, no hint)."""
    try:
        run(conn.fetch(statement, *args))
    except asyncpg.DataError as e:
        checks.eq(name, (str(e).startswith("invalid input for query argument $1:"),
                         f"(expected str, got {python_type})" in str(e), e.hint), (True, True, None))
        return
    except Exception as e:
        checks.fail(name, f"raised {type(e).__name__}: {e}")
        return
    checks.fail(name, "no error")


with checks.scenario("1. INSERT with DEFAULT ... RETURNING id"):
    sno_id = run(conn.fetchval("INSERT INTO event (id, body) VALUES (DEFAULT, $1) RETURNING id", "hello"))
    checks.eq("1. RETURNING a sno gives a str of 16 characters of 23456789a-x",
              (type(sno_id), bool(re.fullmatch("[2-9a-x]{16}", sno_id))), (str, True))
    koid_id = run(conn.fetchval("INSERT INTO follower (name) VALUES ('ann') RETURNING id"))
    checks.eq("1. RETURNING a koid gives a str of 16 hex digits",
              (type(koid_id), bool(re.fullmatch("[0-9a-f]{16}", koid_id))), (str, True))
    tid_id = run(conn.fetchval("INSERT INTO post (body) VALUES ('first') RETURNING id"))
    checks.eq("1. RETURNING an atproto_tid gives a str of 13 base32-sortable characters",
              (type(tid_id), bool(re.fullmatch("[2-7a-j][2-7a-z]{12}", tid_id))), (str, True))

with checks.scenario("2. look up by an id given as a str"):
    checks.eq("2. WHERE id = $1 with a str (no cast)",
              rows(conn.fetch("SELECT body FROM event WHERE id = $1", sno_id)), [("hello",)])
    checks.eq("2. atproto_tid: WHERE id = $1 with a str (no cast)",
              rows(conn.fetch("SELECT body FROM post WHERE id = $1", tid_id)), [("first",)])

with checks.scenario("3. a time range with datetime parameters"):
    run(conn.execute("CREATE TABLE timed (id sno PRIMARY KEY, body text)"))
    run(conn.executemany("INSERT INTO timed VALUES (sno_new_with_time($1), $2)",
                         [(minutes(n), f"m{n}") for n in (0, 5, 10, 15)]))
    checks.eq("3. id >= $1::timestamptz AND id < $2::timestamptz with aware datetimes: exactly the rows of [00:05, 00:15)",
              rows(conn.fetch("SELECT body FROM timed WHERE id >= $1::timestamptz AND id < $2::timestamptz ORDER BY id",
                             minutes(5), minutes(15))), [("m5",), ("m10",)])
    # Without the cast, $1 is inferred as a sno and asyncpg wants a str.
    client_refuses("3. id >= $1 with a datetime (no cast): asyncpg refuses it before sending (expected str)",
                   "SELECT body FROM timed WHERE id >= $1", [minutes(5)], "datetime")
    checks.error("3. a time as a str without the cast: 22P02, the sno message and a HINT to write ::timestamptz",
                 lambda: run(conn.fetch("SELECT body FROM timed WHERE id >= $1", "2026-01-10 00:05:00+00")),
                 "22P02", 'invalid input syntax for type sno: "2026-01-10 00:05:00+00"', "::timestamptz")
    checks.eq("3. id::timestamptz comes back as the aware datetime the id was made for",
              run(conn.fetchval("SELECT id::timestamptz FROM timed WHERE body = 'm5'")), minutes(5))

with checks.scenario("4. a list of ids"):
    ids = [r[0] for r in run(conn.fetch("SELECT id FROM timed WHERE body IN ('m0', 'm15') ORDER BY id"))]
    checks.eq("4. id = ANY($1) with a list of str (no cast)",
              rows(conn.fetch("SELECT body FROM timed WHERE id = ANY($1) ORDER BY id", ids)), [("m0",), ("m15",)])
    checks.eq("4. array_agg(id) comes back as a list of str",
              run(conn.fetchval("SELECT array_agg(id ORDER BY id) FROM timed WHERE body IN ('m0', 'm15')")), ids)

with checks.scenario("5. COPY"):
    expected = rows(conn.fetch("SELECT id::text, body FROM timed ORDER BY id"))
    out = io.BytesIO()
    run(conn.copy_from_table("timed", columns=["id", "body"], output=out))
    text_out = out.getvalue()
    checks.eq("5. text COPY out (copy_from_table): each id as its text",
              sorted(tuple(line.split("\t")) for line in text_out.decode().splitlines()), expected)
    run(conn.execute("CREATE TABLE timed_text (LIKE timed)"))
    run(conn.copy_to_table("timed_text", columns=["id", "body"], source=io.BytesIO(text_out)))
    checks.eq("5. text COPY in (copy_to_table) of the text ids: the same rows",
              rows(conn.fetch("SELECT id::text, body FROM timed_text ORDER BY id")), expected)

    # copy_records_to_table is binary COPY: a str id has no binary encoder.
    run(conn.execute("CREATE TABLE timed_binary (LIKE timed)"))
    try:
        run(conn.copy_records_to_table("timed_binary", columns=["id", "body"], records=[(expected[0][0], "as str")]))
        checks.fail("5. copy_records_to_table with a str id: asyncpg has no binary encoder for sno", "no error")
    except asyncpg.InternalClientError as e:
        checks.eq("5. copy_records_to_table with a str id: asyncpg has no binary encoder for sno",
                  str(e).startswith("no binary format encoder for type sno"), True)

    # A connection with a binary codec for sno: ids travel as their raw
    # bytes, in results and in binary COPY.
    raw = rows(conn.fetch("SELECT id::bytea, body FROM timed ORDER BY id"))
    binary_conn = run(asyncpg.connect())
    run(binary_conn.set_type_codec("sno", schema="public", format="binary", encoder=bytes, decoder=bytes))
    checks.eq("5. with set_type_codec('sno', format='binary', encoder=bytes, decoder=bytes): a sno comes back as its 10 bytes",
              rows(binary_conn.fetch("SELECT id, body FROM timed ORDER BY id")), raw)
    run(binary_conn.copy_records_to_table("timed_binary", columns=["id", "body"], records=raw))
    checks.eq("5. copy_records_to_table of bytes ids with the binary codec: exactly the same rows",
              rows(conn.fetch("SELECT id::text, body FROM timed_binary ORDER BY id")), expected)
    checks.error("5. copy_records_to_table of 9 bytes with the binary codec: 22P03",
                 lambda: run(binary_conn.copy_records_to_table("timed_binary", columns=["id", "body"],
                                                               records=[(raw[0][0][:9], "short")])),
                 "22P03", "invalid binary value for type sno")
    run(binary_conn.close())

with checks.scenario("6. a bad id"):
    checks.error("6. WHERE id = $1 with 'not-an-id': 22P02 and the sno message",
                 lambda: run(conn.fetch("SELECT body FROM event WHERE id = $1", "not-an-id")),
                 "22P02", 'invalid input syntax for type sno: "not-an-id"')
    checks.error("6. INSERT of a bad id: 22P02 and the sno message",
                 lambda: run(conn.execute("INSERT INTO event (id, body) VALUES ($1, 'x')", "zzzzzzzzzzzzzzzz")),
                 "22P02", 'invalid input syntax for type sno: "zzzzzzzzzzzzzzzz"')

with checks.scenario("7. koid as int and as str"):
    koid_int = run(conn.fetchval("SELECT id::bigint FROM follower WHERE id = $1", koid_id))
    checks.eq("7. id::bigint comes back as an int equal to the hex digits", koid_int, int(koid_id, 16))
    checks.eq("7. WHERE id = $1::bigint::koid with an int",
              rows(conn.fetch("SELECT name FROM follower WHERE id = $1::bigint::koid", koid_int)), [("ann",)])
    client_refuses("7. WHERE id = $1::koid with an int: asyncpg refuses it before sending (expected str)",
                   "SELECT name FROM follower WHERE id = $1::koid", [koid_int], "int")
    new_int = koid_int + 1
    checks.eq("7. INSERT of an int as $1::bigint: stored as that koid",
              run(conn.fetchval("INSERT INTO follower (id, name) VALUES ($1::bigint, 'bob') RETURNING id::bigint", new_int)),
              new_int)
    client_refuses("7. INSERT of an int as a bare $1: asyncpg refuses it before sending (expected str)",
                   "INSERT INTO follower (id, name) VALUES ($1, 'cy')", [new_int + 1], "int")
    checks.eq("7. WHERE id = $1 with the koid as a hex str (no cast)",
              rows(conn.fetch("SELECT name FROM follower WHERE id = $1", format(new_int, "016x"))), [("bob",)])

with checks.scenario("8. a uuid column: uuidv7_new(), a time range with datetimes"):
    run(conn.execute("CREATE TABLE uuid_timed (id uuid PRIMARY KEY DEFAULT uuidv7_new(), body text)"))
    run(conn.executemany("INSERT INTO uuid_timed VALUES (uuidv7_new_with_time($1), $2)",
                         [(minutes(n), f"m{n}") for n in (0, 5, 10, 15)]))
    new_id = run(conn.fetchval("INSERT INTO uuid_timed (body) VALUES ('now') RETURNING id"))
    checks.eq("8. RETURNING a uuidv7_new() id gives a UUID of version 7 (asyncpg's own uuid class)",
              (isinstance(new_id, uuid.UUID), new_id.version), (True, 7))
    checks.eq("8. WHERE id = $1 with that UUID",
              rows(conn.fetch("SELECT body FROM uuid_timed WHERE id = $1", new_id)), [("now",)])
    checks.eq("8. id >= $1::timestamptz AND id < $2::timestamptz with aware datetimes: the rows of [00:05, 00:15)",
              rows(conn.fetch("SELECT body FROM uuid_timed WHERE id >= $1::timestamptz AND id < $2::timestamptz ORDER BY id",
                              minutes(5), minutes(15))), [("m5",), ("m10",)])
    checks.eq("8. uuidv7_to_timestamp(id) comes back as the aware datetime the id was made for",
              run(conn.fetchval("SELECT uuidv7_to_timestamp(id) FROM uuid_timed WHERE body = 'm5'")), minutes(5))

run(conn.close())
sys.exit(checks.finish())
