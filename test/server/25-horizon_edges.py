#!/usr/bin/python3
"""Two edges of the commit horizon (run by test/server/25-horizon.sh, with
psycopg 3; libpq's environment names the server).  Prints one "ok: NAME" /
"FAILED: NAME: why" line per check, then "end: N checks, F failed".

1. Every backend slot.  A reader computes the horizon as the least pending
   floor over every backend's slot (one per PGPROC); a slot it skipped
   would let the horizon pass an id that an open transaction holds.  So
   every connection slot of the server is taken at once (max_connections
   sessions, and max_wal_senders walsender sessions, whose PGPROCs come from
   the walsenders' slots; the autovacuum and background worker slots
   cannot be taken this way), and each session in turn opens a transaction, makes
   an id of every scheme and reads every horizon: each must be at or below
   its own id.  Before reading, the session waits until the clock has left
   the id's time unit (sno's 4 ms, uuidv7's 1 ms), so that a horizon that
   skipped its slot would be above the id.
2. Committed, not yet visible.  A transaction's pending floor stays until
   its commit is visible to others: a writer at synchronous_commit = on,
   with synchronous_standby_names naming a standby that never connects,
   has written its commit record and waits (wait event SyncRep) before it
   leaves the process array; while it waits, every horizon must be at or
   below its ids, and once it is released its rows are read below the next
   horizon.
"""

import os
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from kid_checks import SCHEMES, finish, report  # noqa: E402 (test/server/lib/kid_checks.py)


def wait_until(conn, sql, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if conn.execute(sql).fetchone()[0]:
            return True
        time.sleep(0.05)
    return False


def sync_rep_wait(admin):
    columns = ", ".join(f"c_{t} {t} DEFAULT {g}" for t, g, _ in SCHEMES)
    admin.execute(f"CREATE TABLE sync_rep ({columns}, at int)")
    admin.execute("ALTER SYSTEM SET synchronous_standby_names = 'kid_never_connects'")
    admin.execute("SELECT pg_reload_conf()")
    report("synchronous_standby_names names a standby (reloaded)",
           wait_until(admin, "SELECT current_setting('synchronous_standby_names') = 'kid_never_connects'"))
    writer = psycopg.connect(autocommit=False)
    writer.execute("SET synchronous_commit = on")
    ids = writer.execute(f"INSERT INTO sync_rep (at) VALUES (1) RETURNING {', '.join(f'c_{t}::text' for t, _, _ in SCHEMES)}").fetchone()
    pid = writer.execute("SELECT pg_backend_pid()").fetchone()[0]
    done = threading.Event()
    outcome = []

    def commit():
        try:
            writer.commit()
            outcome.append("committed")
        except psycopg.Error as e:
            outcome.append(f"{e.sqlstate}: {e}")
        done.set()

    threading.Thread(target=commit, daemon=True).start()
    waiting = wait_until(admin, f"SELECT wait_event = 'SyncRep' FROM pg_stat_activity WHERE pid = {pid}")
    report("the writer committed locally and waits for the standby (wait event SyncRep)", waiting and not done.is_set(),
           f"outcome {outcome}")
    time.sleep(0.01)  # the clock leaves the ids' time units
    for i, (type_name, _, horizon) in enumerate(SCHEMES):
        h = admin.execute(f"SELECT {horizon}::text").fetchone()[0]
        ok = admin.execute(f"SELECT %s::{type_name} <= %s::{type_name}", (h, ids[i])).fetchone()[0]
        report(f"while its commit is not yet visible, {horizon} is at or below its id", ok,
               f"horizon {h}, id {ids[i]}")
    # Released: cancelling the wait leaves the transaction committed (a WARNING).
    admin.execute(f"SELECT pg_cancel_backend({pid})")
    report("the writer was released", done.wait(60) and outcome == ["committed"], f"outcome {outcome}")
    admin.execute("ALTER SYSTEM RESET synchronous_standby_names")
    admin.execute("SELECT pg_reload_conf()")
    wait_until(admin, "SELECT current_setting('synchronous_standby_names') = ''")
    # sno's and uuidv7's horizons pass a row once the clock has left its
    # time unit (and has passed a horizon carried from before a restart).
    all_below = f"""SELECT {' AND '.join(f"c_{t} < {h}" for t, _, h in SCHEMES)} FROM sync_rep"""
    report("after its commit is visible, its row falls below every horizon", wait_until(admin, all_below, 30),
           admin.execute(f"""SELECT {', '.join(f"c_{t} < {h}" for t, _, h in SCHEMES)} FROM sync_rep""").fetchone())
    writer.close()


def main():
    SCHEMES.load()  # before the test takes every connection slot
    admin = psycopg.connect(autocommit=True)
    max_connections = int(admin.execute("SHOW max_connections").fetchone()[0])
    # Every connection slot: this session and max_connections - 1 others (as
    # a superuser, the reserved ones too), then one walsender session.
    sessions = [("backend", admin)]
    for _ in range(max_connections - 1):
        sessions.append(("backend", psycopg.connect(autocommit=True)))
    # Every walsender slot too (which of them a walsender gets depends on
    # the order earlier ones exited).
    max_wal_senders = int(admin.execute("SHOW max_wal_senders").fetchone()[0])
    for _ in range(max_wal_senders):
        sessions.append(("walsender", psycopg.connect(autocommit=True, replication="database")))
    in_use = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE backend_type IN ('client backend', 'walsender')").fetchone()[0]
    report(f"{max_connections} client backends and {max_wal_senders} walsenders connected at once",
           in_use == max_connections + max_wal_senders, f"{in_use} sessions")
    try:
        psycopg.connect(autocommit=True, connect_timeout=5).close()
        report("no connection slot is left", False, "one more session connected")
    except psycopg.OperationalError:
        report("no connection slot is left", True)

    make = ", ".join(f"{g}::text" for _, g, _ in SCHEMES)
    read = ", ".join(f"{h}::text" for _, _, h in SCHEMES)
    worst = {}
    for kind, conn in sessions:
        # One statement (its own transaction) makes the ids, lets the clock
        # leave their time unit, and reads the horizons; sent with the simple
        # query protocol, the only one a walsender takes.
        res = conn.pgconn.exec_(f"""
            WITH ids AS MATERIALIZED (SELECT {make}),
                 waited AS MATERIALIZED (SELECT pg_sleep(0.005) FROM ids)
            SELECT ids.*, {read}, pg_backend_pid() FROM ids, waited""".encode())
        if res.status != psycopg.pq.ExecStatus.TUPLES_OK:
            report(f"{kind} session: ids and horizons", False, res.error_message.decode())
            continue
        row = [res.get_value(0, i).decode() for i in range(res.nfields)]
        ids, horizons = row[:len(SCHEMES)], row[len(SCHEMES):2 * len(SCHEMES)]
        for i, (type_name, _, horizon) in enumerate(SCHEMES):
            ok = admin.execute(f"SELECT %s::{type_name} <= %s::{type_name}", (horizons[i], ids[i])).fetchone()[0]
            if not ok:
                worst.setdefault(type_name, f"{kind} {row[-1]}: horizon {horizons[i]} above its id {ids[i]}")
    for type_name, _, horizon in SCHEMES:
        report(f"in each of the {len(sessions)} sessions, {horizon} is at or below the id it holds",
               type_name not in worst, worst.get(type_name, ""))
    for _, conn in sessions:
        if conn is not admin:
            conn.close()
    sync_rep_wait(admin)
    admin.close()
    return finish()


if __name__ == "__main__":
    sys.exit(main())
