#!/usr/bin/python3
"""An id partition taken over in the second half of a carry (run by
test/server/25-horizon.sh, with psycopg 3; libpq's environment names the
server, a server under libfaketime whose CLOCK_MONOTONIC is the true one;
the argument is its offset file).  Prints one "ok: NAME" / "FAILED: NAME:
why" line per check, then "end: N checks, F failed".

A horizon reads the clock at R; the clock steps back an hour, and sno and
uuidv7 carry R forward at half the pace of real time (src/pg/horizon.cpp).
Two backends carry: A, on partition p, for 2 s (its last ids 1 s or more
above R), then exits; C, on another partition, makes ids after A's exit.
Then the clock is stopped between R and A's last id (at or above the
horizon's reading, below the carry: where the clock is in the second half
of a carry) and a new backend B takes partition p over.  B must carry too:
its first sno and uuidv7 above A's last ids, sno on A's timeline, at or
above C's ids in time, no regression counted and no wait.  (A B that took
the clock would put its sno below A's on the other timeline, and its uuidv7
just above A's last millisecond, below C's.)

Stopping the clock makes the case certain whatever the machine's speed: B
reads the same clock whenever it comes, and the carry only moves away from
it.  B is found by connecting until a backend's pid modulo 256 is p (a
backend claims the first free partition from there, and p is free); it
makes no id until then.
"""

import datetime
import os
import sys
import time

import psycopg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from kid_checks import eq, finish, report  # noqa: E402 (test/server/lib/kid_checks.py)

FT_FILE = sys.argv[1]

# An sno and a uuidv7 id, with what the checks read of them (times in Unix microseconds).
IDS = """SELECT s::text, u::text, sno_partition(s) & 255, sno_tick(s),
    (extract(epoch FROM sno_to_timestamp(s)) * 1e6)::bigint,
    (extract(epoch FROM uuidv7_to_timestamp(u)) * 1e6)::bigint,
    sno_to_timestamp(s) > clock_timestamp() AND uuidv7_to_timestamp(u) > clock_timestamp()
    FROM sno_new() s, uuidv7_new() u"""
STATS = """SELECT string_agg(scheme || ' ' || regressions || ' ' || (overflow_waits + clock_waits + ahead_waits), ', '
    ORDER BY scheme) FROM kid_generator_stats() WHERE scheme IN ('sno', 'uuid')"""


def faketime(value):
    """The offset file written whole, by rename (test/lib.sh, faketime_set)."""
    with open(FT_FILE + ".new", "w") as f:
        f.write(value + "\n")
    os.chmod(FT_FILE + ".new", 0o644)
    os.replace(FT_FILE + ".new", FT_FILE)


def stop_clock(admin, unix_us):
    """Stop the server's clock at unix_us.  libfaketime reads a date and time
    in the server's time zone (and its daylight saving rule), so the string
    written in UTC is shifted by what the server then reads, once.  Returns
    the clock the server reads, and whether it stands still."""
    shift = 0
    for _ in range(2):
        at = unix_us - shift
        text = datetime.datetime.fromtimestamp(at // 1000000, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
        faketime(f"{text}.{at % 1000000:06d}")
        clock, still = admin.execute("SELECT (extract(epoch FROM clock_timestamp()) * 1e6)::bigint, "
                                     "clock_timestamp() = clock_timestamp()").fetchone()
        shift += clock - unix_us
    return clock, still


def stats_delta(before, after):
    """Regressions and waits per scheme between two STATS readings."""
    b = {row.split()[0]: row.split()[1:] for row in before.split(", ")}
    out = []
    for row in after.split(", "):
        scheme, regressions, waits = row.split()
        out.append(f"{scheme}: regressions {int(regressions) - int(b[scheme][0])}, "
                   f"waits {int(waits) - int(b[scheme][1])}")
    return "; ".join(out)


def main():
    faketime("+0")
    admin = psycopg.connect(autocommit=True)
    c = psycopg.connect(autocommit=True)
    c.execute(IDS)
    a = psycopg.connect(autocommit=True)
    p = a.execute(IDS).fetchone()[2]
    a_pid = a.info.backend_pid
    # R: the horizons' clock reading (their millisecond, from uuidv7's).
    r_us = admin.execute("SELECT (extract(epoch FROM uuidv7_to_timestamp(uuidv7_safe_horizon())) * 1e6)::bigint, "
                         "sno_safe_horizon()").fetchone()[0]
    faketime("-3600")
    a.execute(IDS)
    c.execute(IDS)
    time.sleep(2)
    a_last = a.execute(IDS).fetchone()
    report("A (partition %d) carried the horizon's reading ahead of the clock, an hour back" % p,
           a_last[6], f"A's last ids {a_last[0]} {a_last[1]}")
    a.close()
    deadline = time.monotonic() + 60
    while admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (a_pid,)).fetchone()[0]:
        if time.monotonic() > deadline:
            break
        time.sleep(0.01)
    # C's ids after A's exit: at least 50 ms of carry above A's last.
    time.sleep(0.1)
    c_ids = c.execute(IDS).fetchone()
    # The clock stopped half way between R and A's last millisecond: 0.5 s
    # or more from each (A carried 2 s or more at half pace).
    stop_us = (r_us + (a_last[5] - r_us) // 2) // 1000 * 1000
    clock, still = stop_clock(admin, stop_us)
    report("the clock stopped at or above the horizon's reading and below A's last ids (the second half of the carry)",
           still and r_us + 1000 <= clock < a_last[4] - 4000 and clock < a_last[5] - 1000,
           f"clock {clock} (stopped: {still}), reading {r_us}, A's last sno at {a_last[4]}, uuidv7 at {a_last[5]}")
    b = None
    for _ in range(20000):
        conn = psycopg.connect(autocommit=True)
        if conn.info.backend_pid % 256 == p:
            b = conn
            break
        conn.close()
    if b is None:
        report(f"a backend whose pid is {p} modulo 256 connected", False, "none in 20,000 connections")
        faketime("+0")
        return
    before = admin.execute(STATS).fetchone()[0]
    b_ids = b.execute(IDS).fetchone()
    after = admin.execute(STATS).fetchone()[0]
    faketime("+0")
    eq("B took partition %d over" % p, b_ids[2], p)
    report("sno: B's first id is above A's last (same partition)", b_ids[0] > a_last[0],
           f"B's {b_ids[0]}, A's {a_last[0]}")
    eq("sno: B's first id is on A's timeline", b_ids[3], a_last[3])
    report("sno: B's first id is at or above C's, made before it, in time", b_ids[4] >= c_ids[4],
           f"B's at {b_ids[4]}, C's at {c_ids[4]}")
    report("uuidv7: B's first id is above A's last (same partition)", b_ids[1] > a_last[1],
           f"B's {b_ids[1]}, A's {a_last[1]}")
    report("uuidv7: B's first id is at or above C's, made before it, in time", b_ids[5] >= c_ids[5],
           f"B's at {b_ids[5]}, C's at {c_ids[5]}")
    eq("B's first ids: no regression counted, no wait", stats_delta(before, after),
       "sno: regressions 0, waits 0; uuid: regressions 0, waits 0")
    for conn in (b, c, admin):
        conn.close()


if __name__ == "__main__":
    try:
        main()
    finally:
        faketime("+0")
    sys.exit(finish())
