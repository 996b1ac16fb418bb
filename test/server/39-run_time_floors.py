#!/usr/bin/python3
"""Floors raised while the server runs (run by test/server/39-run_time_floors.sh,
with psycopg 3, on a throwaway server with kid.koid_max_clock_wait_ms = 0;
libpq's environment names the server).  Prints one "ok: NAME" /
"FAILED: NAME: why" line per check, then "end: N checks, F failed".

kid_raise_floors() and kid_adopt_database() raise the floors of the whole
server at run time, above ids that transactions still open may hold.

1. The commit horizon: a transaction in database app makes an id of every
   scheme and stays open; the floors rise (kid_raise_floors() from another
   database; the adoption of database moved, whose stored ids are ahead of
   the clock); while the transaction is open, every <scheme>_safe_horizon()
   is at or below its id, so that a consumer that follows docs/horizon.md
   reads it once it commits.
2. Generation: sessions of two databases that made ids before the rise
   make their next ids above the new floors, in the session that raised
   them and in the other: tid, uid, uid_global and uuidv7 above them, sno
   on its other timeline while one timeline's floor is ahead of the clock
   and waiting (never below) when both are, koid refusing (55000).
"""

import os
import sys
import time

import psycopg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from kid_checks import SCHEMES, eq, finish, report  # noqa: E402 (test/server/lib/kid_checks.py)


def connect(db, autocommit=True):
    return psycopg.connect(dbname=db, autocommit=autocommit)


def one(conn, sql, params=None):
    return conn.execute(sql, params).fetchone()[0]


def sqlstate(conn, sql):
    """The SQLSTATE sql fails with, or None when it succeeds."""
    try:
        conn.execute(sql)
    except psycopg.Error as e:
        return e.sqlstate
    return None


def setup(admin):
    for db in ("app", "other", "moved"):
        admin.execute(f"CREATE DATABASE {db}")
        with connect(db) as c:
            c.execute("CREATE EXTENSION kid")
    SCHEMES.load("app")
    with connect("app") as c:
        for type_name, generator, _ in SCHEMES:
            c.execute(f"CREATE TABLE t_{type_name} (id {type_name} PRIMARY KEY DEFAULT {generator})")


def held_ids(writer):
    """One row per scheme in the writer's open transaction; its ids as text."""
    ids = {}
    for type_name, _, _ in SCHEMES:
        ids[type_name] = one(writer, f"INSERT INTO t_{type_name} DEFAULT VALUES RETURNING id::text")
    return ids


class Consumer:
    """docs/horizon.md's protocol on one table: H := the horizon; read cursor <= id < H; cursor := H."""

    def __init__(self, conn, type_name, horizon):
        self.conn, self.type_name, self.horizon = conn, type_name, horizon
        self.cursor = one(conn, f"SELECT {horizon}::text")
        self.read = []

    def poll(self):
        h = one(self.conn, f"SELECT {self.horizon}::text")
        rows = self.conn.execute(
            f"SELECT id::text FROM t_{self.type_name} WHERE id >= %s::{self.type_name} AND id < %s::{self.type_name}",
            (self.cursor, h)).fetchall()
        self.read += [r[0] for r in rows]
        self.cursor = h
        return h


# The time of an id of each lease line (sno's on the timeline the id is on).
LINE_TIME = {
    "sno": "sno_to_timestamp(%s::sno)",
    "atproto_tid": "tid_to_timestamp(%s::atproto_tid)",
    "koid": "koid_to_timestamp(%s::koid)",
    "uid": "uid_to_timestamp(%s::uid)",
    "uuid": "uuidv7_to_timestamp(%s::uuid)",
}


def floors_above(label, conn, rows, ids, lines):
    """rows: (line, floor_after) of kid_raise_floors() or kid_adopt_database(); each line of
    `lines` must now have a floor above the time of the open id of its scheme."""
    above = []
    for line, floor_after in rows:
        if line.endswith(" horizon"):
            continue  # a commit horizon's line: no stored id raises it
        scheme = "sno" if line.startswith("sno") else line
        if floor_after is not None and one(conn, f"SELECT %s::timestamptz > {LINE_TIME[scheme]}",
                                           (floor_after, ids[scheme])):
            above.append(line)
    eq(f"{label}: the floors of {', '.join(lines)} rose above the ids the open transaction holds",
       sorted(above), sorted(lines))


def raised_while_open(label, writer, reader, raise_floors):
    """A transaction holds an id of every scheme while raise_floors(ids) runs; consumers poll
    before and after its commit.  Each must read the row exactly once, and while the
    transaction is open the horizon must not pass the id."""
    consumers = {t: Consumer(reader, t, h) for t, _, h in SCHEMES}
    ids = held_ids(writer)
    raise_floors(ids)
    for type_name, _, horizon in SCHEMES:
        h = consumers[type_name].poll()
        below = one(reader, f"SELECT %s::{type_name} <= %s::{type_name}", (h, ids[type_name]))
        report(f"{label}: {horizon} stays at or below the id an open transaction holds",
               below, f"horizon {h}, open id {ids[type_name]}")
    writer.commit()
    # sno's and uuidv7's horizons pass an id once the clock has left its
    # time unit, and ids made above a floor ahead of the clock are ahead of
    # it: poll until every row was read, or 30 s passed.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(ids[t] not in c.read for t, c in consumers.items()):
        time.sleep(0.05)
        for c in consumers.values():
            c.poll()
    for type_name, _, _ in SCHEMES:
        eq(f"{label}: a consumer following the protocol reads {type_name}'s row once",
           consumers[type_name].read.count(ids[type_name]), 1)


def part_horizon(admin):
    writer = connect("app", autocommit=False)
    reader = connect("app")
    elsewhere = connect("other")
    # sno's floors rise a little only: with both timelines' floors ahead of
    # the clock, sno_new() waits for it (the next rounds make sno ids).
    # koid's not at all: a koid floor ahead of the clock makes koid_new() refuse.
    SNO_AHEAD, AHEAD = "interval '2 s'", "interval '3 s'"

    # (a) kid_raise_floors() from another database: every line of ids but
    # koid's, named as kid_lease() lists them.
    def raise_from_elsewhere(ids):
        rows = elsewhere.execute(f"""
            SELECT f.line, f.floor_after
            FROM (SELECT array_agg(line) AS lines,
                         array_agg(now() + CASE WHEN line LIKE 'sno tick _' THEN {SNO_AHEAD} ELSE {AHEAD} END) AS floors
                  FROM kid_lease() WHERE line NOT LIKE '% horizon' AND line <> 'koid') x,
                 kid_raise_floors(x.lines, x.floors) f""").fetchall()
        floors_above("kid_raise_floors()", reader, rows, ids,
                     ["sno tick 0", "sno tick 1", "atproto_tid", "uid", "uuid"])
    raised_while_open("kid_raise_floors() from another database", writer, reader, raise_from_elsewhere)

    # (b) the adoption of a database whose ids are ahead of the clock (as
    # after pg_dump/pg_restore from a cluster whose clock ran ahead): a row
    # of another cluster makes it foreign; its ids of every line are ahead,
    # sno's on both timelines.
    moved = connect("moved")
    moved.execute("CREATE TABLE stored (s sno, t atproto_tid, k koid, u uid, g uid_global, v uuid)")

    def adopt_moved(ids):
        moved.execute(f"""
            INSERT INTO stored
            SELECT sno_new_with_time(now() + {SNO_AHEAD} + interval '1 s'), tid_new_with_time(now() + 2 * {AHEAD}),
                   koid_new_with_time(now() + 2 * {AHEAD}), uid_new_with_time(now() + 2 * {AHEAD}),
                   uid_global_new_with_time(now() + 2 * {AHEAD}), uuidv7_new_with_time(now() + 2 * {AHEAD});
            -- The same time on sno's other timeline (the tick bit is bit 32 of its bytes).
            INSERT INTO stored (s) SELECT sno_from_bytea(set_bit(sno_to_bytea(s), 32, 1)) FROM stored;
            INSERT INTO kid_database_origin (position, system_identifier, how) VALUES (0, 42, 'created');""")
        eq("the stored sno ids are on both timelines",
           one(moved, "SELECT array_agg(DISTINCT sno_tick(s) ORDER BY sno_tick(s))::text FROM stored"), "{0,1}")
        # Its koid is ahead of the clock by more than koid_new() waits (0 ms
        # here): taken only when asked to (max_ahead), or the adoption stops.
        rows = moved.execute("SELECT line, floor_after FROM kid_adopt_database(max_ahead => '1 hour')").fetchall()
        floors_above("kid_adopt_database()", reader, rows, ids,
                     ["sno tick 0", "sno tick 1", "atproto_tid", "koid", "uid", "uuid"])
    raised_while_open("kid_adopt_database() of another database", writer, reader, adopt_moved)
    for c in (writer, reader, elsewhere, moved):
        c.close()


def part_generation(admin):
    """Sessions that generated before the rise: the next ids obey the new floors."""
    sessions = {"the session that raised them": connect("app"), "a session of another database": connect("other")}
    for conn in sessions.values():
        conn.execute("SELECT " + ", ".join(g for _, g, _ in SCHEMES if g != "koid_new()"))
    raiser = sessions["the session that raised them"]
    # An hour ahead on every line but sno's tick 1, on a millisecond's first
    # microsecond: the floor's millisecond counts as used, and uuidv7_new()
    # goes on in the next one at once, not when a full millisecond has passed
    # since the rise.
    floor = one(raiser, "SELECT date_trunc('milliseconds', now() + interval '1 hour')")
    one(raiser, """SELECT count(*)
                   FROM (SELECT array_agg(line) AS lines, array_agg(%s::timestamptz) AS floors
                         FROM kid_lease() WHERE line NOT LIKE '%% horizon' AND line <> 'sno tick 1') x,
                        kid_raise_floors(x.lines, x.floors)""", (floor,))
    uuid_waits = "SELECT overflow_waits + clock_waits + ahead_waits FROM kid_generator_stats() WHERE scheme = 'uuid'"
    for who, conn in sessions.items():
        waits_before = one(conn, uuid_waits)
        row = conn.execute("""
            SELECT tid_to_timestamp(tid_new()) >= %(f)s, uid_to_timestamp(uid_new()) >= date_trunc('second', %(f)s::timestamptz),
                   uid_global_new() > uid_global_from_timestamp(%(f)s),
                   uuidv7_to_timestamp(uuidv7_new()) >= date_trunc('milliseconds', %(f)s::timestamptz),
                   uid_new() > uid_from_timestamp(%(f)s)""", {"f": floor}).fetchone()
        eq(f"{who}: the next tid, uid, uid_global and uuidv7 are above floors raised an hour ahead",
           row, (True, True, True, True, True))
        eq(f"{who}: ... and uuidv7_new() did not wait for its first id above the floor",
           one(conn, uuid_waits) - waits_before, 0)
        eq(f"{who}: sno, its tick-0 floor an hour ahead, goes on on its other timeline",
           one(conn, "SELECT sno_tick(sno_new())"), 1)
        eq(f"{who}: koid_new() refuses (55000) rather than go below its floor",
           sqlstate(conn, "SELECT koid_new()"), "55000")
    # Both sno timelines an hour ahead: sno waits (cancelled by statement_timeout) rather than go below.
    one(raiser, "SELECT count(*) FROM kid_raise_floors(ARRAY['sno tick 1'], ARRAY[%s::timestamptz])", (floor,))
    for who, conn in sessions.items():
        conn.execute("SET statement_timeout = '300ms'")
        eq(f"{who}: sno_new() with both timelines' floors ahead waits (57014 from statement_timeout)",
           sqlstate(conn, "SELECT sno_new()"), "57014")
        conn.close()


def main():
    admin = connect("postgres")
    setup(admin)
    part_horizon(admin)
    part_generation(admin)
    admin.close()
    return finish()


if __name__ == "__main__":
    sys.exit(main())
