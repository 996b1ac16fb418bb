#!/usr/bin/python3
"""The locks of kid_partition_maintain() beside a reader (run by
test/server/29-partition_locks.sh, with psycopg 3; libpq's environment names
the server).  Prints one "ok: NAME" / "FAILED: NAME: why" line per check,
then "end: N checks, F failed".

A run plans without a lock, then takes the lock its plan needs and plans
again under it.  Here the second plan needs more than the first: a writer
the run's SHARE ROW EXCLUSIVE waited for committed a row older than the
retention into the default partition, so the run makes a partition for it
(ATTACH holds ACCESS EXCLUSIVE on the default partition) and retires it
(DETACH or DROP: ACCESS EXCLUSIVE on the table).  A reader holds the table
in ACCESS SHARE from before and then reads it, default partition included.
Taken after the ATTACH, the run's ACCESS EXCLUSIVE would wait for the reader
while the reader waits for the default partition: a deadlock, which
PostgreSQL ends by failing one of them (40P01).  Taken before anything is
done, the run waits for the reader, the reader reads, and both succeed.

Every step waits for the one before by what the server shows (a session
waiting for a lock, in pg_locks), never by a sleep; deadlock_timeout
is 100 ms, so a deadlock is found long before the 30 s bounds.  Once with
detach_only (DETACH) and once without (DROP TABLE).

A table of events with a foreign key to customers: ATTACH locks customers
too (SHARE ROW EXCLUSIVE).  A transaction inserts a customer, then its
event.  Had the run locked the events first, its ATTACH would wait for the
transaction while the transaction's INSERT into the events waits for the
run; the run locks customers first, and waits for the transaction to end.
"""

import os
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from kid_checks import eq, finish, report  # noqa: E402 (test/server/lib/kid_checks.py)

AT = "2030-01-12 00:00+00"  # the run's time: cutoff 2030-01-09 (retain 3 days)
OLD = "2030-01-01 12:00+00"  # the writer's row: older than the cutoff


def connect():
    conn = psycopg.connect(autocommit=True)
    conn.execute("SET deadlock_timeout = '100ms'")
    return conn


def waits_for(watcher, pid, table, mode):
    """True once session pid waits for lock mode on table (30 s at most)."""
    for _ in range(300):
        if watcher.execute(
            "SELECT EXISTS (SELECT FROM pg_locks WHERE pid = %s AND relation = %s::regclass AND mode = %s AND NOT granted)",
            (pid, table, mode),
        ).fetchone()[0]:
            return True
        time.sleep(0.1)
    return False


def run(detach_only):
    label = "detach_only" if detach_only else "drop"
    setup = connect()
    setup.execute("DROP TABLE IF EXISTS ev, ev_p20300101")
    setup.execute("CREATE TABLE ev (id sno NOT NULL DEFAULT sno_new(), PRIMARY KEY (id)) PARTITION BY RANGE (id)")
    setup.execute(
        "SELECT count(*) FROM kid_partition_by_time('ev', '1 day', premake => 1, retain => '3 days',"
        " detach_only => %s, at => '2030-01-10 00:00+00')",
        (detach_only,),
    )
    writer, runner, reader = connect(), connect(), connect()
    runner_pid = runner.info.backend_pid

    # The writer's row, not yet committed: the run's first plan does not see it.
    writer.execute("BEGIN")
    writer.execute("INSERT INTO ev (id) VALUES (sno_new_with_time(%s))", (OLD,))

    result = {}

    def maintain():
        try:
            result["rows"] = runner.execute(
                "SELECT action, partition_name FROM kid_partition_maintain('ev', at => %s)", (AT,)
            ).fetchall()
        except psycopg.Error as e:
            result["error"] = f"{e.sqlstate}: {e}"

    thread = threading.Thread(target=maintain)
    thread.start()
    report(
        f"{label}: the run waits for the writer (SHARE ROW EXCLUSIVE on the table)",
        waits_for(setup, runner_pid, "ev", "ShareRowExclusiveLock"),
    )

    # The reader holds the table, not yet its partitions.
    reader.execute("BEGIN")
    reader.execute("LOCK TABLE ONLY ev IN ACCESS SHARE MODE")
    writer.execute("COMMIT")
    # (The old code waited for it in DETACH or DROP TABLE, after its ATTACH.)
    report(
        f"{label}: the run then waits for the reader (ACCESS EXCLUSIVE on the table)",
        waits_for(setup, runner_pid, "ev", "AccessExclusiveLock"),
    )

    read_error = None
    count = None
    try:
        count = reader.execute("SELECT count(*) FROM ev").fetchone()[0]
        reader.execute("COMMIT")
    except psycopg.Error as e:
        read_error = f"{e.sqlstate}: {e}"
        reader.execute("ROLLBACK")
    thread.join(60)
    eq(f"{label}: the reader read the writer's row, without an error", (count, read_error), (1, None))
    eq(f"{label}: the run ended without an error", result.get("error"), None)
    actions = sorted(a for a, p in result.get("rows", []) if p == "public.ev_p20300101" or p == "ev_p20300101")
    eq(
        f"{label}: the run made a partition for the row and retired it",
        actions,
        sorted(["create", "detach" if detach_only else "drop"]),
    )
    eq(f"{label}: the table has no row older than the retention left", setup.execute("SELECT count(*) FROM ev").fetchone()[0], 0)
    detached = setup.execute("SELECT to_regclass('ev_p20300101') IS NOT NULL").fetchone()[0]
    eq(f"{label}: the retired partition is {'a table of its own' if detach_only else 'gone'}", detached, detach_only)
    for conn in (setup, writer, runner, reader):
        conn.close()


def foreign_key():
    """A customer, then its event, in one transaction, beside a run on the
    table of events, whose ATTACH locks customers (SHARE ROW EXCLUSIVE)."""
    label = "foreign key"
    setup = connect()
    setup.execute("DROP TABLE IF EXISTS fk_ev, customers")
    setup.execute("CREATE TABLE customers (id int PRIMARY KEY)")
    setup.execute("INSERT INTO customers VALUES (1)")
    setup.execute(
        "CREATE TABLE fk_ev (id sno NOT NULL DEFAULT sno_new(), cid int NOT NULL REFERENCES customers,"
        " PRIMARY KEY (id)) PARTITION BY RANGE (id)"
    )
    setup.execute("SELECT count(*) FROM kid_partition_by_time('fk_ev', '1 day', premake => 1, at => '2030-01-10 00:00+00')")
    writer, runner = connect(), connect()
    runner_pid = runner.info.backend_pid
    writer.execute("BEGIN")
    writer.execute("INSERT INTO customers VALUES (2)")
    result = {}

    def maintain():
        try:
            result["rows"] = runner.execute(
                "SELECT action || coalesce(' ' || partition_name, '') FROM kid_partition_maintain('fk_ev', at => %s)", (AT,)
            ).fetchall()
        except psycopg.Error as e:
            result["error"] = f"{e.sqlstate}: {e}"

    thread = threading.Thread(target=maintain)
    thread.start()
    # (The old code waited for it in its ATTACH, holding fk_ev.)
    report(
        f"{label}: the run waits for the writer (SHARE ROW EXCLUSIVE on customers)",
        waits_for(setup, runner_pid, "customers", "ShareRowExclusiveLock"),
    )
    write_error = None
    try:
        writer.execute("INSERT INTO fk_ev (id, cid) VALUES (sno_new_with_time('2030-01-12 06:00+00'), 2)")
        writer.execute("COMMIT")
    except psycopg.Error as e:
        write_error = f"{e.sqlstate}: {e}"
        writer.execute("ROLLBACK")
    thread.join(60)
    eq(f"{label}: the customer and its event committed, without an error", write_error, None)
    eq(f"{label}: the run ended without an error", result.get("error"), None)
    eq(
        f"{label}: the run made the partitions of 2030-01-12 and 13",
        sorted(a for (a,) in result.get("rows", [])),
        ["create public.fk_ev_p20300112", "create public.fk_ev_p20300113"],
    )
    eq(
        f"{label}: the event is in its day's partition (the run planned again once it had its locks)",
        setup.execute("SELECT tableoid::regclass::text FROM fk_ev").fetchall(),
        [("fk_ev_p20300112",)],
    )
    for conn in (setup, writer, runner):
        conn.close()


run(True)
run(False)
foreign_key()
sys.exit(finish())
