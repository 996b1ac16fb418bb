"""What the Python helpers of the server tests share (25-horizon_consumer.py,
25-horizon_edges.py, 26-horizon_doc.py, 39-run_time_floors.py): the
generated schemes with their generator and horizon functions, and the check
lines count_program_checks (test/lib.sh) reads: "ok: NAME" or "FAILED: NAME:
why" per check, then "end: N checks, F failed".  A helper puts this folder
on its path and imports what it uses:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
    from kid_checks import SCHEMES, eq, finish, report"""

import threading

class _Schemes:
    """(type, generator call, horizon call) of every generator of kid's id
    types, as the server's kid_id_types lists them (a new scheme's row is
    tested without a list here to join).  load(dbname) reads them, over a
    connection of its own to database dbname (default: the PG* environment's),
    which must have kid: call it before a test uses every connection slot."""

    def __init__(self):
        self._rows = None

    def load(self, dbname=None):
        if self._rows is None:
            import psycopg

            args = {"dbname": dbname} if dbname else {}
            with psycopg.connect(autocommit=True, **args) as conn:
                self._rows = conn.execute(
                    "SELECT t.type::text, g.fn || '()', t.safe_horizon || '()' "
                    "FROM kid_id_types t, unnest(t.generators) WITH ORDINALITY AS g(fn, n) "
                    "ORDER BY t.type::oid, g.n").fetchall()
            if not self._rows:
                raise RuntimeError("kid_id_types lists no id type")
        return self

    def __iter__(self):
        return iter(self.load()._rows)

    def __len__(self):
        return len(self.load()._rows)


SCHEMES = _Schemes()

count = 0
failed = 0
_lock = threading.Lock()  # checks come from threads too


def report(name, ok, why=""):
    global count, failed
    with _lock:
        count += 1
        if ok:
            print(f"ok: {name}", flush=True)
        else:
            failed += 1
            print(f"FAILED: {name}: {why}", flush=True)


def eq(name, actual, expected):
    report(name, actual == expected, f"got {actual!r}, expected {expected!r}")


def finish():
    """The last line, which tells the runner the program ran to its end, and
    the exit status: 0 when nothing failed."""
    print(f"end: {count} checks, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit("a module of the server tests' helpers, not a program")
