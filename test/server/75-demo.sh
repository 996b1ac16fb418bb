#!/usr/bin/env bash
# make demo's second half, test/tools/demo.sh (runs alone or from run-all.sh;
# starts its own throwaway server, as the demo does): it runs to its end on
# a copy of PG_CONFIG's PostgreSQL, and leaves the PostgreSQL it copied as it
# found it: kid's files there (the ones run-all.sh, make install or a
# package put there) are not rewritten, and no server of the demo is left.
# (What make demo's first half, test/tools/install-deps.sh --demo, changes:
# packages it names, and no configuration; README.md, Installing.)
#
# The demo is for the PostgreSQL that make demo installs; its result does
# not depend on the major, so test/run-all.sh runs it on the first only:
# kid-test: server-independent
# It compares kid's installed files before and after, so nothing else
# installs meanwhile:
# kid-test: alone
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

# demo_files: kid's files in PG_CONFIG's PostgreSQL, with size and mtime
# (make install rewrites them, which changes the time even for the same bytes).
demo_files() {
    ls -l --time-style=+%s.%N "$("$PG_CONFIG" --pkglibdir)"/kid.so "$("$PG_CONFIG" --sharedir)"/extension/kid* 2>&1
}
before=$(demo_files)
need "kid is installed in PG_CONFIG's PostgreSQL (by run-all.sh or make install), to see that the demo leaves it" \
    grep -q 'kid\.so$' <<<"$before"

test/tools/demo.sh >"$KID_TMP/demo.out" 2>&1
demo_rc=$?
tail -3 "$KID_TMP/demo.out"
expect_eq "test/tools/demo.sh runs to its end: exit status 0, its last step and the demo's queries" \
    "$demo_rc, $(grep -c '^== demo done' "$KID_TMP/demo.out"), $(grep -c '^ERROR' "$KID_TMP/demo.out"), $(grep -cx ' 2222222222222222 | xxxxxxxxxxxxxxxx' "$KID_TMP/demo.out")" \
    "0, 1, 0, 1"
expect_eq "the demo leaves kid's files in the PostgreSQL it copied as they were (not reinstalled)" \
    "$(demo_files)" "$before"
demo_pid=$(sed -n 's/^== throwaway server (pid \([0-9]*\)).*/\1/p' "$KID_TMP/demo.out")
demo_stopped() { [ -n "$demo_pid" ] && ! kill -0 "$demo_pid" 2>/dev/null; }
check "the demo's server (pid ${demo_pid:-not printed}) is stopped" demo_stopped
demo_copy=$(sed -n 's/^== copying PostgreSQL .* into \(\/tmp\/kid\.[A-Za-z0-9]*\)\/pg for the demo.*/\1/p' "$KID_TMP/demo.out")
demo_removed() { [ -n "$demo_copy" ] && [ ! -e "$demo_copy" ]; }
check "its copy of PostgreSQL and its cluster (${demo_copy:-not printed}) are removed" demo_removed

kid_finish
