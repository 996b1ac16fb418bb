#!/usr/bin/python3
"""docs/horizon.md's Python consumer, run as the page gives it (its python
block, executed here, not a copy) on the page's outbox, after the page's SQL
examples ran in the database libpq's environment names
(test/server/26-horizon_doc.sh).  Prints one "ok: NAME" / "FAILED: NAME: why"
line per check, then "end: ...".

1. poll() from FIRST_CURSOR reads the page's two rows.
2. Made to happen: a transaction inserts a row and stays open while a later
   row commits; poll() returns neither until the first commits, then both,
   in id order, each once.
3. consume() in a thread against four writers that commit after random
   delays, abort, and hold transactions open: every committed row is read
   exactly once, in id order, and no aborted one."""

import os
import random
import re
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from kid_checks import eq, finish  # noqa: E402 (test/server/lib/kid_checks.py)


page = open(sys.argv[1]).read()
blocks = re.findall(r"^```python\n(.*?)^```$", page, re.S | re.M)
eq(f"{sys.argv[1]} has one python block", len(blocks), 1)
page_code = {}
exec(compile(blocks[0], f"{sys.argv[1]} (python block)", "exec"), page_code)
poll, consume, FIRST = page_code["poll"], page_code["consume"], page_code["FIRST_CURSOR"]

conn = psycopg.connect(autocommit=True)
rows, cursor = poll(conn, FIRST)
eq("1. poll(FIRST_CURSOR) reads the page's rows", [p for _id, p in rows], ["first", "second"])

slow = psycopg.connect()
slow.execute("INSERT INTO outbox (payload) VALUES ('slow')")
time.sleep(0.01)  # 'fast' in a later 4 ms unit: a later id
conn.execute("INSERT INTO outbox (payload) VALUES ('fast')")
time.sleep(0.01)  # the clock's 4 ms unit of 'fast' is over
held, cursor = poll(conn, cursor)
eq("2. an open transaction's row holds the horizon: poll() returns neither it nor the later committed row", held, [])
slow.commit()
slow.close()
time.sleep(0.01)
rows, cursor = poll(conn, cursor)
eq("2. after its commit, poll() returns both, in id order, each once", [p for _id, p in rows], ["slow", "fast"])
eq("2. ... and then nothing", poll(conn, cursor)[0], [])

# 3. consume() against writers.
conn.execute("TRUNCATE outbox")
read, lock, stop = [], threading.Lock(), threading.Event()


class Done(Exception):
    pass


def handle(rows, cursor):
    with lock:
        read.extend(rows)
    if stop.is_set():
        raise Done
    time.sleep(0.002)


committed, aborted = [], []


def writer(seed):
    rnd = random.Random(seed)
    w = psycopg.connect()
    end = time.time() + 2
    while time.time() < end:
        ids = [w.execute("INSERT INTO outbox (payload) VALUES (%s) RETURNING id::text", [f"w{seed}"]).fetchone()[0]
               for _ in range(rnd.randint(1, 3))]
        time.sleep(rnd.random() * 0.03)
        if rnd.random() < 0.2:
            w.rollback()
            aborted.extend(ids)
        else:
            w.commit()
            committed.extend(ids)
    w.close()


def consumer():
    try:
        consume(handle)
    except Done:
        pass


threads = [threading.Thread(target=writer, args=(s,)) for s in range(4)]
reader = threading.Thread(target=consumer)
reader.start()
for t in threads:
    t.start()
for t in threads:
    t.join()
time.sleep(0.05)  # past the last row's 4 ms unit: the next poll reads it
deadline = time.time() + 10
while time.time() < deadline:
    with lock:
        if len(read) >= len(committed):
            break
    time.sleep(0.01)
stop.set()
reader.join(10)
ids = [i for i, _p in read]
eq(f"3. consume(): every committed row ({len(committed)}) read exactly once, no aborted one ({len(aborted)})",
   (sorted(ids) == sorted(committed), len(ids) == len(set(ids)), set(ids) & set(aborted)), (True, True, set()))
eq("3. consume(): the rows in id order across polls (as SELECT ... ORDER BY id lists the table)",
   ids == [r[0] for r in conn.execute("SELECT id::text FROM outbox ORDER BY id").fetchall()], True)
sys.exit(finish())
