#!/usr/bin/python3
"""Consumers of a table read by id, against kid's commit horizon (run by
test/server/25-horizon.sh, with psycopg 3, on a server with
max_prepared_transactions > 0; libpq's environment names the database).
Prints one "ok: NAME" / "FAILED: NAME: why" line per check, then "end: ...".

The protocol under test (docs/horizon.md): read H = <scheme>_safe_horizon()
in one statement, then cursor <= id < H in a later one, then cursor := H.
Beside it a naive consumer reads id > (the largest id it saw).

1. Made to happen, for every scheme: a transaction makes an id and stays
   open while a later id commits; the naive consumer moves past the first
   and never reads it, the safe one reads both, each once.  Then what holds
   the horizon and what must not: a prepared transaction whose backend has
   gone (until COMMIT PREPARED), a terminated backend, an idle session, a
   rolled-back subtransaction (until its transaction ends), an abort.
2. Random: writers commit after random delays of up to 30 ms, abort, roll
   back subtransactions, prepare and commit or roll back prepared, and get
   terminated, while both consumers poll; the safe one must read every
   committed row exactly once and nothing else.
"""

import os
import random
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from kid_checks import SCHEMES, eq, finish, report  # noqa: E402 (test/server/lib/kid_checks.py)

# Per-backend generators: their horizon is a unit of the clock.
CLOCKED = ("sno", "uuid")


def connect():
    return psycopg.connect(autocommit=True)


def one(conn, sql, params=None):
    return conn.execute(sql, params).fetchone()[0]


def past_clock_unit(type_name):
    """sno's horizon is the smallest sno of the clock's 4 ms unit (uuidv7's,
    the smallest version 7 uuid of its millisecond): a row of
    the current unit is below it only once the clock has left that unit
    (ids can be a little ahead of the clock: the checks that need the
    horizon past an id wait for it, with released())."""
    if type_name in CLOCKED:
        time.sleep(0.01)


def released(conn, horizon, type_name, x):
    """Whether the horizon passes id x: at once for the counter schemes; for
    sno once the clock has left x's unit (waited for, at most 5 s)."""
    for _ in range(500 if type_name in CLOCKED else 1):
        if one(conn, f"SELECT {horizon} > %s::{type_name}", [x]):
            return True
        time.sleep(0.01)
    return False


class SafeConsumer:
    def __init__(self, conn, table, horizon, type_name):
        self.conn, self.table, self.horizon, self.type_name = conn, table, horizon, type_name
        self.cursor = None
        self.read = []
        self.went_back = 0  # polls whose horizon was below the one before

    def poll(self):
        if self.cursor is None:
            h = one(self.conn, f"SELECT {self.horizon}::text")
        else:
            h, back = self.conn.execute(f"SELECT h::text, h < %s::{self.type_name} FROM (SELECT {self.horizon} AS h) x",
                                        [self.cursor]).fetchone()
            self.went_back += 1 if back else 0
        if self.cursor is None:
            rows = self.conn.execute(f"SELECT id::text FROM {self.table} WHERE id < %s ORDER BY id", [h]).fetchall()
        else:
            rows = self.conn.execute(f"SELECT id::text FROM {self.table} WHERE id >= %s AND id < %s ORDER BY id",
                                     [self.cursor, h]).fetchall()
        self.read += [r[0] for r in rows]
        self.cursor = h
        return h


class NaiveConsumer:
    def __init__(self, conn, table):
        self.conn, self.table = conn, table
        self.cursor = None
        self.read = []

    def poll(self):
        if self.cursor is None:
            rows = self.conn.execute(f"SELECT id::text FROM {self.table} ORDER BY id").fetchall()
        else:
            rows = self.conn.execute(f"SELECT id::text FROM {self.table} WHERE id > %s ORDER BY id",
                                     [self.cursor]).fetchall()
        self.read += [r[0] for r in rows]
        if rows:
            self.cursor = rows[-1][0]


def made_to_happen(type_name, generator, horizon):
    table = f"feed_{type_name}"
    admin = connect()
    admin.execute(f"CREATE TABLE {table} (id {type_name} PRIMARY KEY DEFAULT {generator}, body text)")
    below = f"SELECT {horizon} <= %s::{type_name}"
    safe, naive = SafeConsumer(connect(), table, horizon, type_name), NaiveConsumer(connect(), table)
    safe.poll()
    naive.poll()

    # A transaction that made an id and stays open holds the horizon at or below it.
    slow = connect()
    slow.execute("BEGIN")
    a = one(slow, f"INSERT INTO {table} (body) VALUES ('slow') RETURNING id::text")
    past_clock_unit(type_name)
    b = one(admin, f"INSERT INTO {table} (body) VALUES ('fast') RETURNING id::text")
    eq(f"{type_name}: the later row's id is above the open one's", one(admin, f"SELECT %s::{type_name} > %s::{type_name}", [b, a]), True)
    naive.poll()
    safe.poll()
    eq(f"{type_name}: an open transaction holds the horizon at or below its id", one(admin, below, [a]), True)
    slow.execute("COMMIT")
    past_clock_unit(type_name)
    naive.poll()
    safe.poll()
    eq(f"{type_name}: the naive consumer read the later row and never the earlier one (it missed it)",
       (b in naive.read, a in naive.read), (True, False))
    eq(f"{type_name}: the safe consumer read both rows, each once", sorted(safe.read), sorted([a, b]))

    # A prepared transaction holds it after its backend is gone, until COMMIT PREPARED.
    prep = connect()
    prep.execute("BEGIN")
    c = one(prep, f"INSERT INTO {table} (body) VALUES ('prepared') RETURNING id::text")
    prep.execute(f"PREPARE TRANSACTION 'horizon_{type_name}'")
    prep.close()
    past_clock_unit(type_name)
    one(admin, f"SELECT {generator}")
    eq(f"{type_name}: a prepared transaction whose backend exited holds the horizon", one(admin, below, [c]), True)
    admin.execute(f"COMMIT PREPARED 'horizon_{type_name}'")
    past_clock_unit(type_name)
    eq(f"{type_name}: after COMMIT PREPARED the horizon moves past its id", released(admin, horizon, type_name, c), True)
    safe.poll()
    eq(f"{type_name}: the safe consumer read the prepared row once", safe.read.count(c), 1)

    # ROLLBACK PREPARED releases it as well.
    prep = connect()
    prep.execute("BEGIN")
    d = one(prep, f"INSERT INTO {table} (body) VALUES ('rolled back prepared') RETURNING id::text")
    prep.execute(f"PREPARE TRANSACTION 'horizon_{type_name}_2'")
    prep.close()
    eq(f"{type_name}: a second prepared transaction holds the horizon", one(admin, below, [d]), True)
    admin.execute(f"ROLLBACK PREPARED 'horizon_{type_name}_2'")
    past_clock_unit(type_name)
    eq(f"{type_name}: after ROLLBACK PREPARED the horizon moves past its id", released(admin, horizon, type_name, d), True)

    # A terminated backend, an idle session, an abort, a rolled-back subtransaction.
    victim = connect()
    victim.execute("BEGIN")
    e = one(victim, f"SELECT {generator}::text")
    pid = one(victim, "SELECT pg_backend_pid()")
    eq(f"{type_name}: a backend in a transaction holds the horizon", one(admin, below, [e]), True)
    admin.execute("SELECT pg_terminate_backend(%s, 10000)", [pid])
    past_clock_unit(type_name)
    eq(f"{type_name}: once that backend is terminated the horizon moves past its id", released(admin, horizon, type_name, e), True)

    idle = connect()
    f = one(idle, f"SELECT {generator}::text")
    past_clock_unit(type_name)
    eq(f"{type_name}: an idle session that made an id does not hold the horizon", released(admin, horizon, type_name, f), True)

    idle.execute("BEGIN")
    g = one(idle, f"INSERT INTO {table} (body) VALUES ('aborted') RETURNING id::text")
    idle.execute("ROLLBACK")
    past_clock_unit(type_name)
    eq(f"{type_name}: an aborted transaction does not hold the horizon", released(admin, horizon, type_name, g), True)

    idle.execute("BEGIN")
    idle.execute("SAVEPOINT s")
    h = one(idle, f"INSERT INTO {table} (body) VALUES ('subtransaction') RETURNING id::text")
    idle.execute("ROLLBACK TO SAVEPOINT s")
    eq(f"{type_name}: an id of a rolled-back subtransaction holds the horizon until its transaction ends",
       one(admin, below, [h]), True)
    idle.execute("COMMIT")
    past_clock_unit(type_name)
    eq(f"{type_name}: ... and no longer after it", released(admin, horizon, type_name, h), True)

    safe.poll()
    committed = [r[0] for r in admin.execute(f"SELECT id::text FROM {table} ORDER BY id")]
    eq(f"{type_name}: the safe consumer read every committed row exactly once", sorted(safe.read), committed)
    for c_ in (slow, victim, idle, admin, safe.conn, naive.conn):
        c_.close()


def random_run(type_name, generator, horizon, seconds, seed):
    table = f"storm_{type_name}"
    admin = connect()
    admin.execute(f"CREATE TABLE {table} (id {type_name} PRIMARY KEY DEFAULT {generator}, body text)")
    stop = threading.Event()
    pids = {}
    counts = {"commit": 0, "abort": 0, "savepoint": 0, "prepare": 0, "terminated": 0}

    def writer(w):
        rnd = random.Random(seed * 100 + w)
        conn = connect()
        pids[w] = one(conn, "SELECT pg_backend_pid()")
        n = 0
        while not stop.is_set():
            n += 1
            try:
                conn.execute("BEGIN")
                for _ in range(rnd.randint(1, 3)):
                    conn.execute(f"INSERT INTO {table} (body) VALUES (%s)", [f"w{w} n{n}"])
                action = rnd.random()
                if action < 0.1:
                    conn.execute("SAVEPOINT s")
                    conn.execute(f"INSERT INTO {table} (body) VALUES ('undone')")
                    conn.execute("ROLLBACK TO SAVEPOINT s")
                    counts["savepoint"] += 1
                time.sleep(rnd.random() * 0.03)
                if action < 0.7:
                    conn.execute("COMMIT")
                    counts["commit"] += 1
                elif action < 0.8:
                    conn.execute("ROLLBACK")
                    counts["abort"] += 1
                else:
                    gid = f"storm_{type_name}_{w}_{n}"
                    conn.execute(f"PREPARE TRANSACTION '{gid}'")
                    time.sleep(rnd.random() * 0.03)
                    conn.execute(f"{'COMMIT' if action < 0.95 else 'ROLLBACK'} PREPARED '{gid}'")
                    counts["prepare"] += 1
            except psycopg.OperationalError:
                # Terminated by the killer: a new session goes on.
                counts["terminated"] += 1
                conn = connect()
                pids[w] = one(conn, "SELECT pg_backend_pid()")
        conn.close()

    def killer():
        rnd = random.Random(seed)
        conn = connect()
        while not stop.is_set():
            time.sleep(0.2 + rnd.random() * 0.2)
            w = rnd.choice(list(pids))
            conn.execute("SELECT pg_terminate_backend(%s)", [pids[w]])
        conn.close()

    safe = SafeConsumer(connect(), table, horizon, type_name)
    naive = NaiveConsumer(connect(), table)

    def poller(consumer):
        while not stop.is_set():
            consumer.poll()
            time.sleep(0.005)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    threads += [threading.Thread(target=killer), threading.Thread(target=poller, args=(safe,)),
                threading.Thread(target=poller, args=(naive,))]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    # A writer terminated between PREPARE and COMMIT PREPARED left its
    # transaction prepared, as a crashed client would: resolve it, as a
    # transaction manager would, before the last poll.
    for (gid,) in admin.execute("SELECT gid FROM pg_prepared_xacts WHERE gid LIKE 'storm_%'").fetchall():
        admin.execute(f"COMMIT PREPARED '{gid}'")
    # Every writer has ended: one more poll reads the rest.
    past_clock_unit(type_name)
    safe.poll()
    naive.poll()
    committed = [r[0] for r in admin.execute(f"SELECT id::text FROM {table} ORDER BY id")]
    missed = len(set(committed) - set(safe.read))
    twice = len(safe.read) - len(set(safe.read))
    foreign = len(set(safe.read) - set(committed))
    naive_missed = len(set(committed) - set(naive.read))
    print(f"{type_name}: {len(committed)} rows committed ({counts}); safe consumer missed {missed}, "
          f"read twice {twice}; naive consumer missed {naive_missed}", flush=True)
    eq(f"{type_name}: random writers, aborts, subtransactions, prepared and terminated: the safe consumer "
       f"missed no row, read none twice and nothing uncommitted", (missed, twice, foreign), (0, 0, 0))
    eq(f"{type_name}: no horizon the safe consumer read was below the one before", safe.went_back, 0)
    eq(f"{type_name}: the random run committed rows and exercised every case",
       (len(committed) > 0, all(v > 0 for v in counts.values())), (True, True))
    for c_ in (admin, safe.conn, naive.conn):
        c_.close()


def main():
    SCHEMES.load()  # before the test takes every connection slot
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 4
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    for type_name, generator, horizon in SCHEMES:
        try:
            made_to_happen(type_name, generator, horizon)
        except Exception as e:
            report(f"{type_name}: the scenarios ran to their end", False, f"{type(e).__name__}: {e}")
    for type_name, generator, horizon in SCHEMES:
        try:
            random_run(type_name, generator, horizon, seconds, seed)
        except Exception as e:
            report(f"{type_name}: the random run ran to its end", False, f"{type(e).__name__}: {e}")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
