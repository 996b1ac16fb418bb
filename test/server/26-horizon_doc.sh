#!/usr/bin/env bash
# docs/horizon.md as a reader uses it (runs alone or from run-all.sh; uses the
# "main" cluster): the page's SQL examples (doc_run, as doc_examples.sh runs
# them), then, in the same database, the page's Python consumer
# (test/server/26-horizon_doc.py executes its python block) on the page's
# outbox, against writers that hold transactions open.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1
source test/server/lib/doc_run.sh || exit 1

ensure_main_cluster || exit 1
DOC=docs/horizon.md
DOC_KEEP_DB=1 doc_run "$DOC" 3>/dev/null
expect_eq "$DOC: its SQL examples run and print what it shows" "$?" 0
PGHOST=$KID_MAIN_SOCK PGPORT=$KID_MAIN_PORT PGUSER=postgres PGDATABASE=doc_horizon \
    /usr/bin/python3 -B test/server/26-horizon_doc.py "$DOC" >"$KID_TMP/horizon_doc.out" 2>&1
count_program_checks "$DOC's consumer" "$KID_TMP/horizon_doc.out" $?
kpsql $KID_MAIN_PORT -d postgres -c "DROP DATABASE doc_horizon"

kid_finish
