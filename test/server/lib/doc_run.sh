# test/server/lib/doc_run.sh - the documentation's examples, run (sourced by
# test/server/70-doc_examples.sh, which runs README.md's and docs/'s, and by
# the tests of documents whose examples need a server of their own, marked
# "<!-- examples: NAME -->" on their first line).  The format is in
# docs/testing.md, "The documentation's examples".

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

# doc_run FILE [HOST PORT]: runs FILE's examples on the server of HOST and
# PORT (default: the main cluster), in a fresh database doc_<file name>,
# dropped afterwards unless DOC_KEEP_DB=1; prints one line per failing
# block (FILE:LINE and why) and the number of examples to fd 3; fails on any.
doc_run() {
    local file=$1 host=${2:-$KID_MAIN_SOCK} port=${3:-$KID_MAIN_PORT} dir db n line kind out failed=0
    dir=$(mktemp -d "$KID_TMP/doc.XXXXXX")
    doc_split "$file" "$dir" || return 1
    db=doc_$(basename "$file" .md | tr 'A-Z.-' 'a-z__')
    kpsql $port -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || return 1
    if ! grep -qi '^CREATE EXTENSION kid' "$dir/script.sql"; then
        kpsql $port -d "$db" -c "CREATE EXTENSION kid" || return 1
    fi
    chmod -R a+rX "$dir"
    # Unbuffered, so that errors (stderr) fall between the results they
    # follow; psql's "psql:FILE:LINE: " prefix is what a terminal omits.
    PGTZ=UTC stdbuf -o0 -e0 "$PG_BIN/psql" -h "$host" -p $port -U postgres -X -d "$db" \
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
    [ "${DOC_KEEP_DB:-}" = 1 ] || kpsql $port -d postgres -c "DROP DATABASE $db"
    return $failed
}

