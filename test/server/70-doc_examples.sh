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
# is "<!-- examples: citus -->" needs other servers: its own test runs it.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ensure_main_cluster || exit 1

# doc_split FILE DIR: DIR/script.sql (every sql block, each after a marker
# line that psql echoes) and DIR/blocks (one line per block: number, line
# of the opening fence, "text" or "none"), DIR/expected.N for text blocks.
doc_split() {
    perl -e '
        my ($file, $dir) = @ARGV;
        open my $in, "<", $file or die "$file: $!";
        my @lines = <$in>;
        my (@blocks, $i);
        for ($i = 0; $i < @lines; $i++) {
            next unless $lines[$i] =~ /^```(\w*)\s*$/;
            my ($lang, $start, @body) = ($1, $i + 1);
            for ($i++; $i < @lines && $lines[$i] !~ /^```\s*$/; $i++) { push @body, $lines[$i] }
            die "$file:$start: unclosed fence\n" if $i >= @lines;
            push @blocks, { lang => $lang, line => $start, body => join("", @body), end => $i + 1 };
        }
        open my $script, ">", "$dir/script.sql" or die;
        open my $list, ">", "$dir/blocks" or die;
        my $n = 0;
        for my $k (0 .. $#blocks) {
            my $b = $blocks[$k];
            next unless $b->{lang} eq "sql";
            $n++;
            my $next = $blocks[$k + 1];
            my $expected = "none";
            if ($next && $next->{lang} eq "text"
                && join("", @lines[$b->{end} .. $next->{line} - 2]) =~ /^\s*$/) {
                $expected = "text";
                open my $e, ">", "$dir/expected.$n" or die;
                print $e $next->{body};
            }
            print $list "$n $b->{line} $expected\n";
            print $script "\\echo \@\@kid-doc-block $n\@\@\n$b->{body}";
        }
        print $script "\\echo \@\@kid-doc-block end\@\@\n";
    ' "$1" "$2"
}

# doc_run FILE: runs FILE's examples; prints one line per failing block
# (FILE:LINE and why) and the number of examples to fd 3; fails on any.
doc_run() {
    local file=$1 dir db n line kind out failed=0
    dir=$(mktemp -d "$KID_TMP/doc.XXXXXX")
    doc_split "$file" "$dir" || return 1
    db=doc_$(basename "$file" .md | tr 'A-Z.-' 'a-z__')
    kpsql $PORT -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || return 1
    if ! grep -qi '^CREATE EXTENSION kid' "$dir/script.sql"; then
        kpsql $PORT -d "$db" -c "CREATE EXTENSION kid" || return 1
    fi
    chmod -R a+rX "$dir"
    # Unbuffered, so that errors (stderr) fall between the results they
    # follow; psql's "psql:FILE:LINE: " prefix is what a terminal omits.
    PGTZ=UTC stdbuf -o0 -e0 "$PG_BIN/psql" -h "$KID_MAIN_SOCK" -p $PORT -U postgres -X -d "$db" \
        -f "$dir/script.sql" >"$dir/output" 2>&1
    sed -i 's/^psql:[^:]*:[0-9]*: //' "$dir/output"
    # Split the output at the markers: DIR/got.N.
    awk -v dir="$dir" '/^@@kid-doc-block [0-9a-z]+@@$/ { f = dir "/got." substr($2, 1, length($2) - 2); next }
                       f { print > f }' "$dir/output"
    while read -r n line kind; do
        out="$dir/got.$n"
        [ -f "$out" ] || : >"$out"
        # Trailing blanks and blank lines are layout, not output (psql pads
        # its header lines; editors strip that).
        sed -i -e 's/[[:space:]]*$//' "$out" && sed -i -e ':a' -e '/^\n*$/{$d;N;ba' -e '}' "$out"
        if [ "$kind" = text ]; then
            sed -i -e 's/[[:space:]]*$//' "$dir/expected.$n" && sed -i -e ':a' -e '/^\n*$/{$d;N;ba' -e '}' "$dir/expected.$n"
            if ! cmp -s "$dir/expected.$n" "$out"; then
                echo "$file:$line: the output differs from the text block after it (- documented, + printed):"
                diff -u "$dir/expected.$n" "$out" | tail -n +3 | head -40
                failed=1
            fi
        elif grep -qE '^(ERROR|FATAL|PANIC):' "$out"; then
            echo "$file:$line: the example fails:"
            grep -E -A3 '^(ERROR|FATAL|PANIC):' "$out" | head -12
            failed=1
        fi
    done <"$dir/blocks"
    if ! grep -q '^@@kid-doc-block end@@$' "$dir/output"; then
        echo "$file: psql stopped before the last example:"
        tail -5 "$dir/output"
        failed=1
    fi
    echo "$(wc -l <"$dir/blocks")" >&3
    kpsql $PORT -d postgres -c "DROP DATABASE $db"
    return $failed
}

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
    if head -1 "$f" | grep -q '^<!-- examples: citus -->'; then
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
        echo "note: $f: no SQL example"
    else
        expect_eq "$f: its $count SQL examples run and print what it shows" "$rc" 0
    fi
done
echo "$doc_total SQL examples executed"

kid_finish
