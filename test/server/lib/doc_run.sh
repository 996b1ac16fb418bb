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
            open my $one, ">", "$dir/block.$n.sql" or die;
            print $one $b->{body};
            print $script "\\echo \@\@kid-doc-block $n\@\@\n$b->{body}";
        }
        print $script "\\echo \@\@kid-doc-block end\@\@\n";
    ' "$1" "$2"
}

# doc_check_block FILE DIR N LINE KIND: compares DIR/got.N, the output of
# FILE's example N (its fence on LINE), with its text block (KIND text), or
# looks for an error in it (KIND none); prints what differs.
doc_check_block() {
    local file=$1 dir=$2 n=$3 line=$4 kind=$5 out failed=0
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
    return $failed
}

# doc_run FILE [HOST PORT]: runs FILE's examples on the server of HOST and
# PORT (default: the main cluster), in a fresh database doc_<file name>,
# dropped afterwards unless DOC_KEEP_DB=1; prints one line per failing
# block (FILE:LINE and why) and the number of examples to fd 3; fails on any.
doc_run() {
    local file=$1 host=${2:-$KID_MAIN_SOCK} port=${3:-$KID_MAIN_PORT} dir db n line kind failed=0
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
        doc_check_block "$file" "$dir" "$n" "$line" "$kind" || failed=1
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


# doc_run_pair FILE HOST PUBLISHER_PORT SUBSCRIBER_PORT: runs FILE's
# examples on two servers, each block in a psql session of its own, in file
# order: on the subscriber a block whose first line is "-- on the
# subscriber", on the publisher the others, in a fresh database
# doc_<file name> on each.  Before a subscriber's block the subscriber has
# caught up: every table of its subscriptions synchronised, and every
# logical slot of the publisher's database confirmed up to the WAL the
# publisher had flushed (60 s at most).  A subscription's CONNECTION
# string is replaced by the publisher's (HOST, PUBLISHER_PORT, the
# database, postgres): the only change made to what the document prints.
# Prints and fails as doc_run does.
doc_run_pair() {
    local file=$1 host=$2 pub=$3 sub=$4 dir db n line kind port lsn i caught failed=0
    dir=$(mktemp -d "$KID_TMP/doc.XXXXXX")
    doc_split "$file" "$dir" || return 1
    db=doc_$(basename "$file" .md | tr 'A-Z.-' 'a-z__')
    for port in $pub $sub; do
        kpsql $port -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" \
            -c "CREATE DATABASE $db" || return 1
    done
    chmod -R a+rX "$dir"
    while read -r n line kind; do
        port=$pub
        if head -1 "$dir/block.$n.sql" | grep -q '^-- on the subscriber$'; then
            port=$sub
            lsn=$(kpsql $pub -d "$db" -c "SELECT pg_current_wal_flush_lsn()")
            caught=
            for i in $(seq 120); do
                caught=$(kpsql $sub -d "$db" -c "SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate <> 'r'")$(
                    kpsql $pub -d "$db" -c "SELECT coalesce(bool_and(confirmed_flush_lsn >= '$lsn'), true)
                                            FROM pg_replication_slots WHERE database = current_database() AND NOT temporary")
                [ "$caught" = tt ] && break
                sleep 0.5
            done
            if [ "$caught" != tt ]; then
                echo "$file:$line: the subscriber did not catch up with the publisher's $lsn in 60 s"
                failed=1
            fi
        fi
        sed -i "s|CONNECTION '[^']*'|CONNECTION 'host=$host port=$pub dbname=$db user=postgres'|" "$dir/block.$n.sql"
        PGTZ=UTC stdbuf -o0 -e0 "$PG_BIN/psql" -h "$host" -p $port -U postgres -X -d "$db" \
            -f "$dir/block.$n.sql" >"$dir/got.$n" 2>&1
        sed -i 's/^psql:[^:]*:[0-9]*: //' "$dir/got.$n"
        doc_check_block "$file" "$dir" "$n" "$line" "$kind" || failed=1
    done <"$dir/blocks"
    echo "$(wc -l <"$dir/blocks")" >&3
    if [ "${DOC_KEEP_DB:-}" != 1 ]; then
        # A subscription left by a failed example would hold its slot.
        for i in $(kpsql $sub -d "$db" -c "SELECT subname FROM pg_subscription WHERE subdbid = (SELECT oid FROM pg_database WHERE datname = current_database())"); do
            kpsql $sub -d "$db" -c "ALTER SUBSCRIPTION $i DISABLE" -c "ALTER SUBSCRIPTION $i SET (slot_name = NONE)" -c "DROP SUBSCRIPTION $i"
        done
        kpsql $sub -d postgres -c "DROP DATABASE $db"
        kpsql $pub -d postgres -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = '$db'" \
            -c "DROP DATABASE $db" >/dev/null
    fi
    return $failed
}
