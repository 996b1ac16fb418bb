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

# The README's lead on a uuid column ("Already on uuid? Keep the column."),
# run as printed: its ALTER TABLE t, then its WHERE on a table t whose
# column holds version 4 uuids (gen_random_uuid(), as before the new
# default) and the version 7 ones the default makes.  It counts exactly the
# new rows, through the primary key.  The table is made so that a query
# short of exact fails: version 7 rows of two hours ago and of tomorrow,
# and version 4 uuids whose first 48 bits are minutes of the last hour (a
# version 7 uuid with its version digit made 4), which a time range without
# a version test counts.
doc_lead=$(perl -0777 -ne 'if (/^\*\*Already on uuid\?.*?\n\n/ms) { (my $p = $&) =~ s/\s+/ /g; print "$_\n" for $p =~ /`([^`]*)`/g }' README.md)
doc_lead_alter=$(grep '^ALTER TABLE t ' <<<"$doc_lead")
doc_lead_where=$(grep '^WHERE ' <<<"$doc_lead")
if [ -z "$doc_lead_alter" ] || [ -z "$doc_lead_where" ]; then
    check "README's uuid lead: found its ALTER TABLE t and its WHERE (the paragraph changed)" false
else
    main_db doc_lead || exit 1
    kpsql $PORT -d doc_lead -c "CREATE TABLE t (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int)" \
        -c "INSERT INTO t (n) SELECT g FROM generate_series(1, 20000) g" \
        -c "$doc_lead_alter" \
        -c "INSERT INTO t (n) SELECT g FROM generate_series(1, 100) g" \
        -c "INSERT INTO t (id, n) SELECT uuidv7_new_with_time(now() - interval '2 hours'), -g FROM generate_series(1, 10) g" \
        -c "INSERT INTO t (id, n) SELECT uuidv7_new_with_time(now() + interval '1 day'), -g FROM generate_series(11, 20) g" \
        -c "INSERT INTO t (id, n) SELECT overlay(uuidv7_new_with_time(now() - g * interval '1 minute')::text placing '4' from 15)::uuid, -g
            FROM generate_series(21, 25) g" \
        -c "VACUUM ANALYZE t" >/dev/null || exit 1
    # now() is the start of the transaction; the lead's range ends before
    # its millisecond.  Wait until the clock has left the millisecond of the
    # newest id the default made, so that a later transaction's now() is
    # past it, whichever millisecond the statements ran in.
    kpsql $PORT -d doc_lead -c "DO \$\$ BEGIN
        WHILE clock_timestamp() < (SELECT max(uuidv7_to_timestamp(id)) FROM t WHERE n > 0) + interval '1 millisecond' LOOP
            PERFORM pg_sleep(0.001);
        END LOOP; END \$\$" || exit 1
    expect_eq "README's uuid lead: the table mixes versions (the last hour's time range without a version test counts at least 105 rows)" \
        "$(kpsql $PORT -d doc_lead -c "SELECT count(*) >= 105 FROM t WHERE id >= now() - interval '1 hour' AND id < now()")" t
    expect_eq "README's uuid lead: \"$doc_lead_where\" counts the 100 rows of the last hour, on a column that also holds version 4 uuids" \
        "$(kpsql $PORT -d doc_lead -c "SELECT count(*) FROM t $doc_lead_where")" 100
    doc_lead_plan=$(kpsql $PORT -d doc_lead -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM t $doc_lead_where")
    doc_lead_plan_ok() {
        grep -Eq '^ *-> +Index (Only )?Scan using t_pkey on t$' <<<"$doc_lead_plan" &&
            grep -Eq '^ *Index Cond: \(\(id >= .*\) AND \(id < .*\)\)$' <<<"$doc_lead_plan" || { echo "$doc_lead_plan"; return 1; }
    }
    check "README's uuid lead: its WHERE is an index range scan of the primary key (the time range in the Index Cond)" doc_lead_plan_ok
    kpsql $PORT -d postgres -c "DROP DATABASE doc_lead"
fi

kid_finish
