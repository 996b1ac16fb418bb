#!/usr/bin/env bash
# The Python client libraries against kid, as an application uses them (runs
# alone or from run-all.sh; uses the "main" cluster over its Unix socket):
# psycopg 3 (Debian python3-psycopg), psycopg2 (python3-psycopg2), asyncpg
# (python3-asyncpg) and SQLAlchemy over psycopg2 (python3-sqlalchemy), each
# test/clients/python/test_*.py on a database of its own.  Every check the
# programs print counts here (run_client_test); a library that is missing is
# a failed check, never a skip.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

# Debian's python3, the one the python3-* packages install into
# (a python3 first on the PATH, pyenv's for one, would not see them); -B: no
# __pycache__ in the tree.
PYTHON=/usr/bin/python3

ensure_main_cluster || exit 1
run_client_test "psycopg 3" kid_client_psycopg3 $PYTHON -B test/clients/python/test_psycopg3.py
run_client_test "psycopg2" kid_client_psycopg2 $PYTHON -B test/clients/python/test_psycopg2.py
run_client_test "asyncpg" kid_client_asyncpg $PYTHON -B test/clients/python/test_asyncpg.py
run_client_test "SQLAlchemy" kid_client_sqlalchemy $PYTHON -B test/clients/python/test_sqlalchemy.py

kid_finish
