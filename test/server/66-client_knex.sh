#!/usr/bin/env bash
# Knex (npm knex, pinned with pg in test/clients/node/package.json) against
# kid, as an application uses it (runs alone or from run-all.sh; uses the
# "main" cluster over its Unix socket): test/clients/node/test_knex.mjs on a
# database of its own, its tables made by knex.migrate.latest().  Knex is
# plain JavaScript over node-postgres: once npm has installed it, it works
# offline (Prisma's client needs query-engine binaries that its install
# fetches from outside npm).  Every check the program prints counts here
# (run_client_test); knex that cannot be installed or loaded is a failed
# check, never a skip.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ensure_main_cluster || exit 1
need "Knex: npm install of test/clients/node/package.json" npm_install_once test/clients/node
run_client_test "Knex" kid_client_knex node test/clients/node/test_knex.mjs

kid_finish
