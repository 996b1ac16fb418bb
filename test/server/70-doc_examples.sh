#!/usr/bin/env bash
# Every SQL example of README.md and docs/*.md runs, and prints what the
# documentation says it prints (runs alone or from run-all.sh; uses the
# "main" cluster).
#
# The format (docs/testing.md, CONTRIBUTING.md): a fenced ```sql block is an
# example.  When the next fenced block follows it with only blank lines
# between and is a ```text block, that block is psql's output as a user sees
# it (psql -X, aligned, command tags, notices and errors without psql's
# "psql:file:line:" prefix) and must match exactly, trailing blanks of
# lines and trailing blank lines aside.  A sql block without one must run
# without an ERROR.  Each markdown
# file gets a fresh database (with kid created, unless the file creates it
# itself) and one psql session, in file order, so later examples see the
# tables of earlier ones.  TimeZone is UTC (PGTZ).  A file whose first line
# is "<!-- examples: NAME -->" (citus, cdc) needs other servers or settings:
# its own test runs it, with doc_run of test/server/lib/doc_run.sh.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ensure_main_cluster || exit 1

source test/server/lib/doc_run.sh || exit 1

# The test can fail: a copy of a small document with a wrong output block
# and an example that errors must be caught, at their lines.
doc_selftest() {
    local md="$KID_TMP/selftest.md" report
    cat >"$md" <<'EOF'
Right:

```sql
SELECT sno_to_timestamp('2222222222222222');
```

```text
    sno_to_timestamp
------------------------
 2010-01-01 00:00:00+00
(1 row)
```

Wrong output:

```sql
SELECT 1 AS one;
```
```text
 one
-----
   2
(1 row)
```

An error:

```sql
SELECT 'x'::sno;
```
EOF
    report=$(doc_run "$md" 3>/dev/null)
    [ $? -ne 0 ] && grep -q "selftest.md:16: the output differs" <<<"$report" &&
        grep -q "selftest.md:28: the example fails" <<<"$report" &&
        ! grep -q "selftest.md:3:" <<<"$report" ||
        { echo "$report"; return 1; }
}
check "doc_examples catches a wrong output block and a failing example (self-test)" doc_selftest

doc_total=0
for f in README.md docs/*.md; do
    [ -f "$f" ] || continue
    if head -1 "$f" | grep -q '^<!-- examples: [a-z_]* -->'; then
        echo "($f: run by its own test)"
        continue
    fi
    exec 4>"$KID_TMP/count"
    doc_run "$f" 3>&4
    rc=$?
    exec 4>&-
    count=$(cat "$KID_TMP/count")
    doc_total=$((doc_total + count))
    # A file without examples has nothing to check (but a failure to read it).
    if [ "$count" -eq 0 ] && [ "$rc" -eq 0 ]; then
        note "$f: no SQL example"
    else
        expect_eq "$f: its $count SQL examples run and print what it shows" "$rc" 0
    fi
done
echo "$doc_total SQL examples executed"

kid_finish
