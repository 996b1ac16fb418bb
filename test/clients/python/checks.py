"""Named checks for the Python client tests, one line each: "ok: NAME" or
"FAILED: NAME: why", then "end: ..." (run_client_test in test/lib.sh counts
the lines).  A scenario that raises where it should not counts as a failed
check of its own, and a missing library as a failed import, so nothing is
skipped silently."""

import contextlib
import datetime
import sys
import traceback

# What both libraries' scenarios work on: the tables, and the times the
# time-range rows are made for (whole minutes from T0).
TABLES = (
    "CREATE TABLE event (id sno PRIMARY KEY DEFAULT sno_new(), body text)",
    "CREATE TABLE follower (id koid PRIMARY KEY DEFAULT koid_new(), name text)",
    "CREATE TABLE post (id atproto_tid PRIMARY KEY DEFAULT tid_new(), body text)",
)
T0 = datetime.datetime(2026, 1, 10, tzinfo=datetime.timezone.utc)


def minutes(n):
    return T0 + datetime.timedelta(minutes=n)



def error_fields(e):
    """(SQLSTATE, primary message, HINT) of a database error: psycopg's and
    psycopg2's errors carry them in e.diag, asyncpg's on the error itself."""
    diag = getattr(e, "diag", None)
    if diag is not None:
        return (diag.sqlstate, diag.message_primary, diag.message_hint)
    return (getattr(e, "sqlstate", None), getattr(e, "message", None), getattr(e, "hint", None))


class Checks:
    def __init__(self, library):
        self.library = library
        self.failed = 0
        self.count = 0

    def _report(self, name, ok, why=""):
        self.count += 1
        if ok:
            print(f"ok: {self.library}: {name}", flush=True)
        else:
            self.failed += 1
            print(f"FAILED: {self.library}: {name}: {why}", flush=True)

    def eq(self, name, actual, expected):
        self._report(name, actual == expected, f"got {actual!r}, expected {expected!r}")

    def gives(self, name, run, expected):
        """run() returns expected; an error it raises fails this check only."""
        try:
            actual = run()
        except Exception as e:  # the driver's own error class
            self._report(name, False, f"raised {type(e).__name__} {error_fields(e)[0]}: "
                         + str(e).strip().replace("\n", " | "))
            return
        self.eq(name, actual, expected)

    def fail(self, name, why):
        self._report(name, False, why)

    def error(self, name, run, sqlstate, message=None, hint_has=None):
        """run() must raise a database error with this SQLSTATE (and this
        primary message, and a HINT containing hint_has), as the application
        sees them through the driver's diag.  Returns the error."""
        try:
            run()
        except Exception as e:  # the driver's own error class
            got = error_fields(e)
            ok = got[0] == sqlstate and (message is None or got[1] == message) and (
                hint_has is None or (got[2] is not None and hint_has in got[2]))
            self._report(name, ok, f"got {type(e).__name__} {got!r}, expected {sqlstate}"
                         + (f" {message!r}" if message else "")
                         + (f" with a HINT containing {hint_has!r}" if hint_has else ""))
            return e
        self._report(name, False, f"no error, expected {sqlstate}")
        return None

    @contextlib.contextmanager
    def scenario(self, name):
        try:
            yield
        except Exception:
            self._report(f"{name} ran to its end", False,
                         traceback.format_exc().strip().replace("\n", " | "))

    def finish(self):
        """The last line, which tells the runner the program ran to its end,
        and the exit status: 0 when nothing failed."""
        print(f"end: {self.count} checks, {self.failed} failed", flush=True)
        return 1 if self.failed else 0


def import_or_fail(checks, module, package):
    """The library, or None after a failed check naming the Debian package."""
    try:
        return __import__(module)
    except ImportError as e:
        checks.fail(f"import {module} (Debian package {package})", repr(e))
        return None


if __name__ == "__main__":
    sys.exit("a module of the client tests, not a program")
