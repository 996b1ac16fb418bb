#!/usr/bin/python3
"""The locks of kid_partition_maintain() beside other transactions (run by
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
too (SHARE ROW EXCLUSIVE).  A transaction writes a customer, then an event;
had the run locked the events first, its ATTACH would wait for the
transaction while the transaction's INSERT into the events waits for the
run.  Another writes an event, then a customer; had the run locked the
customers first and then waited for the events, the transaction's UPDATE
of the customer would wait for the run.  The run locks customers first and
waits for the events half of deadlock_timeout at a time, letting customers
go in between: both transactions commit, and the run is done after them.
So with two tied tables, and in a call for every table (where the run
cannot let go what an earlier table took: it fails that table instead);
and a tied table the caller may not lock is left to ATTACH.
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


def blocked_by(watcher, pid, blocker):
    """True once session pid waits for a lock session blocker holds (30 s at most)."""
    for _ in range(300):
        if watcher.execute("SELECT %s = ANY (pg_blocking_pids(%s))", (blocker, pid)).fetchone()[0]:
            return True
        time.sleep(0.1)
    return False


def start_run(conn, sql, params, result, lock_timeout=None):
    """sql (a call of kid_partition_maintain) on conn in a thread of its own,
    in a transaction with a statement_timeout and, if given, a lock_timeout
    of its own: its rows, the lock_timeout after it (when given), or its
    error, into result."""

    def go():
        try:
            conn.execute("BEGIN")
            conn.execute("SET LOCAL statement_timeout = '20s'")
            if lock_timeout:
                conn.execute(f"SET LOCAL lock_timeout = '{lock_timeout}'")
            result["rows"] = conn.execute(sql, params).fetchall()
            if lock_timeout:
                result["lock_timeout"] = conn.execute("SHOW lock_timeout").fetchone()[0]
            conn.execute("COMMIT")
        except psycopg.Error as e:
            result["error"] = f"{e.sqlstate}: {e}"
            conn.execute("ROLLBACK")

    thread = threading.Thread(target=go)
    thread.start()
    return thread


def end_with(conn, sql):
    """sql, then COMMIT, in conn's open transaction: (its first value, None),
    or (None, its error) after a ROLLBACK."""
    try:
        cur = conn.execute(sql)
        value = cur.fetchone()[0] if cur.description else None
        conn.execute("COMMIT")
        return value, None
    except psycopg.Error as e:
        conn.execute("ROLLBACK")
        return None, f"{e.sqlstate}: {e}"


def tied_tables(setup, referenced, events):
    """Tables referenced (each with the row 1) and tables of events
    {name: columns}, partitioned by day from 2030-01-10, one period made
    ahead; the tables of the cases before gone."""
    setup.execute("DROP TABLE IF EXISTS fk_ev, fk2_ev, fk_a, fk_b, customers, products")
    for t in referenced:
        setup.execute(f"CREATE TABLE {t} (id int PRIMARY KEY, seen int)")
        setup.execute(f"INSERT INTO {t} VALUES (1)")
    for t, columns in events.items():
        setup.execute(f"CREATE TABLE {t} (id sno NOT NULL DEFAULT sno_new(), {columns}, PRIMARY KEY (id)) PARTITION BY RANGE (id)")
        setup.execute(f"SELECT count(*) FROM kid_partition_by_time('{t}', '1 day', premake => 1, at => '2030-01-10 00:00+00')")


def close(*conns):
    for conn in conns:
        conn.close()


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
    # A row of the run's time: retention counts back from the older of the
    # run's time and the table's newest row.
    setup.execute("INSERT INTO ev (id) VALUES (sno_new_with_time(%s))", (AT,))
    writer, runner, reader = connect(), connect(), connect()
    runner_pid = runner.info.backend_pid

    # The writer's row, not yet committed: the run's first plan does not see it.
    writer.execute("BEGIN")
    writer.execute("INSERT INTO ev (id) VALUES (sno_new_with_time(%s))", (OLD,))
    result = {}
    thread = start_run(runner, "SELECT action, partition_name FROM kid_partition_maintain('ev', at => %s)", (AT,), result)
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
    count, read_error = end_with(reader, "SELECT count(*) FROM ev")
    thread.join(60)
    eq(f"{label}: the reader read the writer's row, without an error", (count, read_error), (2, None))
    eq(f"{label}: the run ended without an error", result.get("error"), None)
    actions = sorted(a for a, p in result.get("rows", []) if p == "public.ev_p20300101" or p == "ev_p20300101")
    eq(
        f"{label}: the run made a partition for the row and retired it",
        actions,
        sorted(["create", "detach" if detach_only else "drop"]),
    )
    eq(
        f"{label}: the table has no row older than the retention left, and the newer one",
        setup.execute("SELECT count(*) FILTER (WHERE id < '2030-01-09 00:00+00'::timestamptz), count(*) FROM ev").fetchone(),
        (0, 1),
    )
    detached = setup.execute("SELECT to_regclass('ev_p20300101') IS NOT NULL").fetchone()[0]
    eq(f"{label}: the retired partition is {'a table of its own' if detach_only else 'gone'}", detached, detach_only)
    close(setup, writer, runner, reader)


def foreign_key(event_first):
    """A transaction that writes a customer and an event, in one order or
    the other, beside a run on the table of events, whose ATTACH locks
    customers too (SHARE ROW EXCLUSIVE).  The run has a lock_timeout of its
    own, which it leaves as it found it."""
    label = "foreign key, " + ("an event, then its customer" if event_first else "a customer, then its event")
    setup = connect()
    tied_tables(setup, ["customers"], {"fk_ev": "cid int NOT NULL REFERENCES customers"})
    writer, runner = connect(), connect()
    runner_pid = runner.info.backend_pid
    event = "INSERT INTO fk_ev (id, cid) VALUES (sno_new_with_time('2030-01-12 06:00+00'), 1)"
    customer = "UPDATE customers SET seen = 1 WHERE id = 1"
    writer.execute("BEGIN")
    writer.execute(event if event_first else customer)
    result = {}
    thread = start_run(
        runner,
        "SELECT action || coalesce(' ' || partition_name, '') FROM kid_partition_maintain('fk_ev', at => %s)",
        (AT,),
        result,
        lock_timeout="7s",
    )
    if event_first:
        # It holds customers and waits for the events (the writer's), a
        # while at a time.
        report(f"{label}: the run waits for the writer (SHARE ROW EXCLUSIVE on fk_ev)",
               waits_for(setup, runner_pid, "fk_ev", "ShareRowExclusiveLock"))
    else:
        # (The old code waited for it in its ATTACH, holding fk_ev.)
        report(f"{label}: the run waits for the writer (SHARE ROW EXCLUSIVE on customers)",
               waits_for(setup, runner_pid, "customers", "ShareRowExclusiveLock"))
    _, write_error = end_with(writer, customer if event_first else event)
    thread.join(60)
    eq(f"{label}: the writer committed, without an error", write_error, None)
    eq(f"{label}: the run ended without an error, the caller's lock_timeout as it was", (result.get("error"), result.get("lock_timeout")), (None, "7s"))
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
    close(setup, writer, runner)


def two_ties():
    """Events tied to customers and to products; a transaction writes a
    product, then a customer.  The run holds customers (the lower oid) while
    it waits for products: it lets customers go, waits for products alone,
    and tries again."""
    label = "two tied tables, a product then a customer"
    setup = connect()
    tied_tables(setup, ["customers", "products"], {"fk2_ev": "cid int REFERENCES customers, pid int REFERENCES products"})
    writer, runner = connect(), connect()
    writer.execute("BEGIN")
    writer.execute("UPDATE products SET seen = 1 WHERE id = 1")
    result = {}
    thread = start_run(runner, "SELECT action FROM kid_partition_maintain('fk2_ev', at => %s)", (AT,), result)
    report(f"{label}: the run waits for the writer (SHARE ROW EXCLUSIVE on products)",
           waits_for(setup, runner.info.backend_pid, "products", "ShareRowExclusiveLock"))
    _, write_error = end_with(writer, "UPDATE customers SET seen = 1 WHERE id = 1")
    thread.join(60)
    eq(f"{label}: the writer committed, without an error", write_error, None)
    eq(f"{label}: the run made the partitions of 2030-01-12 and 13, without an error",
       (result.get("error"), result.get("rows")), (None, [("create",), ("create",)]))
    close(setup, writer, runner)


def every_table():
    """kid_partition_maintain() for every table: two tables of events tied
    to customers, one transaction.  Once the first is maintained the run
    holds customers, which it cannot let go: a transaction that writes an
    event of the second and then a customer deadlocks with it.  The run is
    the one that fails (its second table: a row fail), never looping, and
    the transaction commits once it ends.

    Which of two sessions PostgreSQL fails is the one whose deadlock check
    (deadlock_timeout after it began to wait, once) finds the cycle.  So
    the cycle is made complete before the run begins to wait for fk_b: a
    third session holds the run back after fk_a (it has locked fk_a's row
    of kid_partition_state, which the run updates at fk_a's end, customers
    held) until the writer waits for customers; and the writer's own check
    comes only after a minute (its deadlock_timeout), long after the run's
    (100 ms), which ends the run's wait."""
    label = "every table, the second's event then a customer"
    setup = connect()
    tied_tables(setup, ["customers"], {"fk_a": "cid int REFERENCES customers", "fk_b": "cid int REFERENCES customers"})
    # Only these two are configured (the tables of the cases before are gone).
    setup.execute("DELETE FROM kid_partition_config WHERE parent NOT IN ('fk_a'::regclass, 'fk_b'::regclass)")
    writer, runner, gate = connect(), connect(), connect()
    writer.execute("SET deadlock_timeout = '1min'")
    gate.execute("BEGIN")
    gated = gate.execute("SELECT count(*) FROM (SELECT FROM kid_partition_state WHERE parent = 'fk_a'::regclass FOR UPDATE) s").fetchone()[0]
    eq(f"{label}: a session holds fk_a's row of kid_partition_state", gated, 1)
    writer.execute("BEGIN")
    writer.execute("INSERT INTO fk_b (id, cid) VALUES (sno_new_with_time('2030-01-12 06:00+00'), 1)")
    result = {}
    thread = start_run(
        runner,
        "SELECT parent_table::text || ' ' || action || coalesce(' ' || left(detail, 19), '') FROM kid_partition_maintain(at => %s)",
        (AT,),
        result,
    )
    report(f"{label}: the run, done with fk_a's partitions, waits for that session",
           blocked_by(setup, runner.info.backend_pid, gate.info.backend_pid))
    written = {}

    def write():
        written["value"] = end_with(writer, "UPDATE customers SET seen = 1 WHERE id = 1")

    writing = threading.Thread(target=write)
    writing.start()
    report(f"{label}: the writer waits for the run (customers)",
           waits_for(setup, writer.info.backend_pid, "customers", "RowExclusiveLock"))
    gate.execute("ROLLBACK")
    thread.join(60)
    writing.join(60)
    eq(f"{label}: the writer committed, without an error", written.get("value", (None, "no answer"))[1], None)
    eq(f"{label}: the run made fk_a's partitions and failed fk_b's (a deadlock), without looping",
       (result.get("error"), sorted(r for (r,) in result.get("rows", []))),
       (None, ["fk_a create premade", "fk_a create premade", "fk_b fail deadlock detected"]))
    close(setup, writer, runner, gate)


def tie_out_of_reach():
    """A table tied by a foreign key that the caller may not lock (no USAGE
    on its schema, though UPDATE on it): the run leaves it to ATTACH."""
    label = "a tied table in a schema the caller may not use"
    su = connect()
    su.execute("DROP TABLE IF EXISTS bobs.refunds, a_ev")
    su.execute("DROP SCHEMA IF EXISTS bobs")
    su.execute("DROP ROLE IF EXISTS kid_alice")
    su.execute("DROP ROLE IF EXISTS kid_bob")
    su.execute("CREATE ROLE kid_alice")
    su.execute("CREATE ROLE kid_bob")
    su.execute("GRANT CREATE ON SCHEMA public TO kid_alice")
    su.execute("CREATE SCHEMA bobs AUTHORIZATION kid_bob")
    su.execute("SET ROLE kid_alice")
    su.execute("CREATE TABLE a_ev (id sno PRIMARY KEY) PARTITION BY RANGE (id)")
    su.execute("SELECT count(*) FROM kid_partition_by_time('a_ev', '1 day', premake => 1, at => '2030-01-10 00:00+00')")
    su.execute("GRANT REFERENCES ON a_ev TO kid_bob")
    su.execute("SET ROLE kid_bob")
    su.execute("CREATE TABLE bobs.refunds (ev sno REFERENCES a_ev)")
    su.execute("GRANT UPDATE ON bobs.refunds TO kid_alice")
    su.execute("SET ROLE kid_alice")
    try:
        rows = su.execute("SELECT action FROM kid_partition_maintain('a_ev', at => %s)", (AT,)).fetchall()
        eq(f"{label}: the run made the partitions of 2030-01-12 and 13", rows, [("create",), ("create",)])
    except psycopg.Error as e:
        report(f"{label}: the run made the partitions of 2030-01-12 and 13", False, f"{e.sqlstate}: {e}")
    su.execute("RESET ROLE")
    su.execute("DROP TABLE bobs.refunds, a_ev")
    su.execute("DROP SCHEMA bobs")
    su.execute("REVOKE CREATE ON SCHEMA public FROM kid_alice")
    su.execute("DROP ROLE kid_alice")
    su.execute("DROP ROLE kid_bob")
    su.close()


run(True)
run(False)
foreign_key(False)
foreign_key(True)
two_ties()
every_table()
tie_out_of_reach()
sys.exit(finish())
