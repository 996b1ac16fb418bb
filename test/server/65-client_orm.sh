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

# docs/clients.md: CREATE EXTENSION kid needs a superuser (kid is not
# trusted); an application role with CREATE on its database is refused,
# and once a superuser made it there, the IF NOT EXISTS that Django's
# CreateExtension and Rails' enable_extension run does nothing.
kpsql "$KID_MAIN_PORT" -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS kid_orm_app" \
    -c "DROP ROLE IF EXISTS kid_orm_app" -c "CREATE ROLE kid_orm_app LOGIN" -c "CREATE DATABASE kid_orm_app OWNER kid_orm_app"
expect_eq "CREATE EXTENSION kid as the database's owner, not a superuser: permission denied (42501)" \
    "$(kpsql "$KID_MAIN_PORT" -d kid_orm_app -U kid_orm_app -v VERBOSITY=verbose -c "CREATE EXTENSION kid" 2>&1 | grep -o '^ERROR:  42501: permission denied to create extension "kid"')" \
    'ERROR:  42501: permission denied to create extension "kid"'
kpsql "$KID_MAIN_PORT" -d kid_orm_app -c "CREATE EXTENSION kid"
expect_eq "... made by a superuser, the owner's CREATE EXTENSION IF NOT EXISTS kid does nothing (a NOTICE)" \
    "$(kpsql "$KID_MAIN_PORT" -d kid_orm_app -U kid_orm_app -c "CREATE EXTENSION IF NOT EXISTS kid" 2>&1; echo "rc $?")" \
    "NOTICE:  extension \"kid\" already exists, skipping
rc 0"
kpsql "$KID_MAIN_PORT" -d postgres -c "DROP DATABASE kid_orm_app" -c "DROP ROLE kid_orm_app"
# Debian's interpreters, the ones the packages install into; -B: no
# __pycache__ in the tree.
run_client_test "Django" kid_client_django /usr/bin/python3 -B test/clients/python/test_django.py
run_client_test "ActiveRecord" kid_client_activerecord /usr/bin/ruby test/clients/ruby/test_activerecord.rb

kid_finish
