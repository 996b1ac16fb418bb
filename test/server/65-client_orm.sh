#!/usr/bin/env bash
# ORMs against kid, each creating its tables through its own migrations
# (runs alone or from run-all.sh; uses the "main" cluster over its Unix
# socket): Django (Debian python3-django) and Rails' ActiveRecord (Debian
# ruby-activerecord), each program of test/clients/ on a database of its
# own: a table with an sno primary key made by the database's DEFAULT, read
# back, filtered by time, joined through a foreign key.  Every check the
# programs print counts here (run_client_test); a library that is missing is
# a failed check, never a skip.  (Knex, from npm: 66-client_knex.sh.)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ensure_main_cluster || exit 1
# Debian's interpreters, the ones the packages install into; -B: no
# __pycache__ in the tree.
run_client_test "Django" kid_client_django /usr/bin/python3 -B test/clients/python/test_django.py
run_client_test "ActiveRecord" kid_client_activerecord /usr/bin/ruby test/clients/ruby/test_activerecord.rb

kid_finish
