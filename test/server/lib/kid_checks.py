"""What the Python helpers of the server tests share (25-horizon_consumer.py,
25-horizon_edges.py, 26-horizon_doc.py, 39-run_time_floors.py): the
generated schemes with their generator and horizon functions, and the check
lines count_program_checks (test/lib.sh) reads: "ok: NAME" or "FAILED: NAME:
why" per check, then "end: N checks, F failed".  A helper puts this folder
on its path and imports what it uses:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
    from kid_checks import SCHEMES, eq, finish, report"""

import threading

# (type, generator, horizon function) of every generated scheme.
SCHEMES = [
    ("sno", "sno_new()", "sno_safe_horizon()"),
    ("atproto_tid", "tid_new()", "tid_safe_horizon()"),
    ("koid", "koid_new()", "koid_safe_horizon()"),
    ("uid", "uid_new()", "uid_safe_horizon()"),
    ("uid_global", "uid_global_new()", "uid_global_safe_horizon()"),
    ("uuid", "uuidv7_new()", "uuidv7_safe_horizon()"),
]

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
