#!/usr/bin/env bash
# node-postgres (npm pg, pinned in test/clients/node/package.json) against
# kid, as an application uses it (runs alone or from run-all.sh; uses the
# "main" cluster over its Unix socket): test/clients/node/test_pg.mjs on a
# database of its own.  npm installs pg once into
# test/clients/node/node_modules (gitignored), as for the cross-checks.
# Every check the program prints counts here (run_client_test); pg that
# cannot be installed or imported is a failed check, never a skip.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ensure_main_cluster || exit 1
need "node-postgres: npm install of test/clients/node/package.json" npm_install_once test/clients/node
# TZ=UTC: node-postgres writes a Date in the process's time zone, and the
# test compares the text the server reports.
run_client_test "node-postgres" kid_client_node env TZ=UTC node test/clients/node/test_pg.mjs

kid_finish
