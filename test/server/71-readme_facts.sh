#!/usr/bin/env bash
# Documentation facts that drift from the code (runs alone or from
# run-all.sh; uses the "main" cluster and the repository root as working
# directory).
#
# Each check reads a kind of factual statement out of README.md, docs/*.md
# (and META.json) and compares it with what it describes: the catalog, the
# settings, the files of the tree.  A failure names the statement to update.
# The SQL examples themselves are run by doc_examples.sh.
#
# Its result is the same on every PostgreSQL (the catalog it reads is the
# install script's), so test/run-all.sh runs it on the first major only:
# kid-test: server-independent
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ensure_main_cluster || exit 1
main_db readme_facts || exit 1
rf_sql() {
    kpsql $PORT -d readme_facts -c "$1"
}
# The user guide and the documents it links to (docs/citus.md names Citus's
# own functions, which are not installed here: its test runs its examples).
rf_docs="README.md $(ls docs/*.md 2>/dev/null | grep -v '^docs/citus.md$' | tr '\n' ' ')"
rf_kid_functions="FROM pg_proc p
    JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
    JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid AND e.extname = 'kid'"

# rf_expect NAME ACTUAL EXPECTED READ...: expect_eq NAME ACTUAL EXPECTED,
# where each READ is what the check read (out of the text, or the catalog)
# to compare: when one is empty the statement or the query was not found,
# and the comparison would check nothing; that is a failure.
rf_expect() {
    local name=$1 actual=$2 expected=$3 read
    shift 3
    for read in "$@"; do
        if [ -z "${read//[[:space:]]/}" ]; then
            check "$name (found nothing to compare: the statement or the query changed)" false
            return
        fi
    done
    expect_eq "$name" "$actual" "$expected"
}

# Generators' parallel safety: every VOLATILE generator (*_new,
# *_new_with_time) is named in a sentence "`f`, `g` and `h` are
# `PARALLEL SAFE`" (or RESTRICTED) with the marking the catalog has.
rf_parallel_text=$(perl -0777 -ne 's/\s+/ /g;
        while (/((?:`\w+`(?:, | and )?)+) are `PARALLEL (SAFE|RESTRICTED|UNSAFE)`/g) {
            my ($names, $m) = ($1, lc substr($2, 0, 1));
            print "$_:$m\n" for $names =~ /`(\w+)`/g;
        }' README.md | LC_ALL=C sort -u | tr '\n' ' ')
rf_parallel_catalog=$(rf_sql "SELECT p.proname || ':' || p.proparallel::text $rf_kid_functions
               WHERE p.provolatile = 'v' AND p.proname ~ '_new(_with_time)?$'" | LC_ALL=C sort -u | tr '\n' ' ')
rf_expect "README: every generator's PARALLEL marking, as the catalog has it" \
    "$rf_parallel_text" "$rf_parallel_catalog" "$rf_parallel_text" "$rf_parallel_catalog"

# Every function called in inline code exists (kid's or PostgreSQL's),
# but for the few that are not kid's or not installed here.
rf_called=$(perl -ne 'while (/`([^`]+)`/g) { my $c = $1; print "$1\n" while $c =~ /\b([a-z][a-z0-9_]*)\(/g }' $rf_docs |
    LC_ALL=C sort -u | tr '\n' ' ')
rf_expect "README and docs/: every function called in inline code exists" \
    "$(rf_sql "SELECT coalesce(string_agg(n, ' ' ORDER BY n), 'none') FROM unnest(string_to_array(trim('$rf_called'), ' ')) n
               WHERE NOT EXISTS (SELECT FROM pg_proc WHERE proname = n)
                 AND n NOT IN ('uuidv7', 'uuid_generate_v1', 'uuid_generate_v4', 'uuid_generate_v7',  -- benchmark's comparisons
                               'typename', 'send', 'recv', 'f',                  -- placeholders
                               'floor_div',                                      -- a C++ helper
                               'pg_input_is_valid', 'pg_input_error_info',       -- PostgreSQL 16+
                               'uuid_extract_timestamp',                         -- PostgreSQL 17+ (benchmark on 18)
                               'uuid_extract_version', 'uuidv4', 'bytea', 'uuid', -- core's uuid API by major (docs/types.md)
                               'pg_get_loaded_modules', 'pg_restore_relation_stats')  -- PostgreSQL 18")" none "$rf_called"

# The SQLSTATE the README and docs/ give for each of kid's errors is the one
# src/pg raises it with (test/server/71-doc_errors.pl); first, the comparison
# catches a wrong one.
rf_errcodes=$("$PG_CONFIG" --includedir-server)/utils/errcodes.h
printf '| `cannot generate sno ids during recovery` | 55000 | a made-up wrong row |\n' >"$KID_TMP/errors.md"
expect_eq "71-doc_errors.pl catches a wrong SQLSTATE" \
    "$(perl test/server/71-doc_errors.pl "$rf_errcodes" "$KID_TMP/errors.md" | grep ' says ')" \
    "$KID_TMP/errors.md:1 says 55000, kid raises 25006: cannot generate sno ids during recovery"
expect_eq "README and docs/: each kid error's SQLSTATE is the one kid raises" \
    "$(perl test/server/71-doc_errors.pl "$rf_errcodes" $rf_docs | grep ' says ')" ""

# Every function a user calls by name is in the README: every kid function
# but those PostgreSQL calls for the types (input and output, operators,
# casts, operator classes, aggregates' parts, the triggers and event
# triggers), the helper codokey's context functions call to raise for an
# unknown name, and the helpers whose comment says they are internal.
rf_user_functions=$(rf_sql "SELECT p.proname $rf_kid_functions
    WHERE p.prokind = 'f' AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype) AND p.proname <> 'codokey_context_missing'
      AND coalesce(obj_description(p.oid, 'pg_proc'), '') NOT LIKE 'internal:%'
      AND NOT EXISTS (SELECT FROM pg_type t WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend))
      AND NOT EXISTS (SELECT FROM pg_operator o WHERE o.oprcode = p.oid)
      AND NOT EXISTS (SELECT FROM pg_amproc a WHERE a.amproc = p.oid)
      AND NOT EXISTS (SELECT FROM pg_cast c WHERE c.castfunc = p.oid)
      AND NOT EXISTS (SELECT FROM pg_aggregate g WHERE p.oid IN (g.aggtransfn, g.aggfinalfn, g.aggcombinefn))")
rf_expect "README: names every function users call (all but the types' support functions)" \
    "$(for f in $rf_user_functions; do grep -qw -- "$f" README.md || printf '%s ' "$f"; done)" "" "$rf_user_functions"

# Every file of the tree named in README.md, docs/ and CONTRIBUTING.md
# exists (the install script and fuzz artifacts are made by the build and
# runs; docs/citus.md comes with the citus branch; globs are not files).
rf_files=$(perl -ne 'while (/`((?:test|src|sql|expected|docs)\/[^`\s]*)`/g) { print "$1\n" }' README.md docs/*.md CONTRIBUTING.md |
    LC_ALL=C sort -u | grep -v -e VERSION -e '^test/fuzz/artifacts/' -e '^test/xcheck/node_modules' -e '\*' -e '^docs/citus.md$')
rf_expect "README, docs/, CONTRIBUTING: every file of the tree they name exists" \
    "$(while read -r f; do [ -e "$f" ] || printf '%s ' "$f"; done <<<"$rf_files")" "" "$rf_files"

# Counts of things.
rf_regress=$(ls test/sql/*.sql | wc -l)
expect_eq "docs/guarantees.md: the number of pg_regress tests (sanitize result, Guarantees table)" \
    "$(grep -h -o -e '([0-9]* tests, ' -e 'ASan+UBSan: [0-9]* tests' $rf_docs | grep -o '[0-9]*' | sort -u | tr '\n' ' ')" "$rf_regress "
rf_functions=$(rf_sql "SELECT count(*) $rf_kid_functions")
rf_called_n=$(grep -c '| called$' expected/privileges.out)
rf_unused_n=$(grep -c '| NOT USED$' expected/privileges.out)
rf_other_n=$((rf_functions - rf_called_n - rf_unused_n))
rf_expect "docs/guarantees.md: functions of the privileges test (total, called, used otherwise)" \
    "$(cat $rf_docs | perl -0777 -ne 's/\s+/ /g; print "$1 $2 $3\n" if /of (\d+) functions, (\d+) show as `called`.*?(\d+) others cannot/; print "$1 $2 $3\n" if /(\d+) functions: (\d+) called directly, (\d+) used/' | tr '\n' ' ')" \
    "$rf_functions $rf_called_n $rf_other_n $rf_functions $rf_called_n $rf_other_n " "$rf_functions"
# (zero functions "called" would mean the test's output changed form.)
rf_expect "test/sql/privileges.sql: no kid function is left NOT USED" "$rf_unused_n" 0 "${rf_called_n#0}"
rf_expect "docs/testing.md: the number of codokey unit-test cases" \
    "$(cat $rf_docs | perl -0777 -ne 's/\s+/ /g; print "$1" if /codokey_test\.cpp`\) (\d+) cases/')" \
    "$(grep -c '^TEST' test/unit/codokey_test.cpp)"
rf_fuzz=$(ls test/fuzz/*_fuzz.cpp | wc -l)
expect_eq "docs/: the number of libFuzzer targets" \
    "$(grep -h -o -e '[0-9]* libFuzzer targets' -e 'each of [0-9]* decoder targets' $rf_docs | grep -o '[0-9]*' | sort -u | tr '\n' ' ')" "$rf_fuzz "

# The Settings tables: each kid.* row's default, range and context, and no
# row more or less than the server has (src/pg/settings.cpp defines them from
# one table; these are its documentation).  A range is min..max, or – for a
# boolean or a string; pg_settings prints a real's bounds with %g, so the
# documented bounds of the real settings are printed the same way.
rf_settings=$(rf_sql "SELECT name || '=' || boot_val || '/' || coalesce(min_val || '..' || max_val, '') || '/' || context FROM pg_settings WHERE name LIKE 'kid.%'" | LC_ALL=C sort | tr '\n' ' ')
rf_reals=$(rf_sql "SELECT string_agg(name, ' ') FROM pg_settings WHERE name LIKE 'kid.%' AND vartype = 'real'")
# rf_settings_table FIRST LAST FILE: the rows of the table between headings FIRST and LAST, as rf_settings.
rf_settings_table() {
    RF_REALS="$rf_reals" perl -CSD -Mutf8 -ne '
        BEGIN { %real = map { $_ => 1 } split / /, $ENV{RF_REALS} }
        next unless (/^## \Q'"$1"'\E/ .. /^## \Q'"$2"'\E/) && /^\| `(kid\.\w+)` \| ([^|]*?) \| ([^|]*?) \| (\w+)/;
        my ($n, $d, $r, $c) = ($1, $2, $3, $4);
        s/ \(.*// for $d, $r;
        $d = "" if $d eq "empty";
        $r = "" if $r eq "–";
        $r = join "..", map { sprintf "%g", $_ } split /\.\./, $r if $real{$n} && $r ne "";
        print "$n=$d/$r/$c\n"' "$3" | LC_ALL=C sort | tr '\n' ' '
}
rf_table=$(rf_settings_table Settings FAQ README.md)
rf_expect "README: the Settings table's defaults, ranges and contexts are the server's" "$rf_table" "$rf_settings" "$rf_table" "$rf_settings"
rf_table=$(rf_settings_table "The settings" Privileges docs/settings.md)
rf_expect "docs/settings.md: the settings table's defaults, ranges and contexts are the server's" "$rf_table" "$rf_settings" "$rf_table" "$rf_settings"

# The set-up is the two commands the Makefile has, word for word.
expect_eq "README: the set-up commands are exactly make demo and make test, targets of the Makefile" \
    "$(perl -ne 'print "$1\n" if (/^```sh/ ... /^```/) && /^(make \w+)\s+#/' README.md | head -2 | tr '\n' ' ')" "make demo make test "
rf_targets() { make -n -s demo test >/dev/null; }
check "README: make demo and make test are targets" rf_targets

# What the two commands install: every package test/tools/install-deps.sh names is
# in docs/testing.md's list ("What make test installs", which the README links
# to; the list there is the script's, word for word).
rf_packages=$({ sed -n '/^[a-z_]*packages=(/,/^)/p' test/tools/install-deps.sh; grep -o 'packages+=([^)]*)' test/tools/install-deps.sh; } |
    sed 's/#.*//; s/^[a-z_]*packages=(//; s/packages+=(//; s/)//g' | tr ' ' '\n' | grep -v '^$')
rf_install_list=$(awk '/^## What make test installs/{f=1; next} /^## /{f=0} f' docs/testing.md | tr -s ' \n' '  ')
rf_expect "docs/testing.md: names every package test/tools/install-deps.sh installs, in its section What make test installs" \
    "$(while read -r p; do grep -qF -- "\`$p" <<<"$rf_install_list" || grep -qF -- " $p" <<<"$rf_install_list" || printf '%s ' "$p"; done <<<"$rf_packages")" "" "$rf_packages" "$rf_install_list"

# The client lines of the README and docs/clients.md are the client tests'
# lines: every SQL string in their python, js, java, go, ruby, php and perl
# blocks occurs in test/clients/ (docs/horizon.md's consumer is the code its
# own test runs).
rf_client_sql=$(perl -ne 'if (/^```(python|js|java|go|ruby|php|perl)/ ... /^```$/) { while (/["\x27]((?:SELECT|INSERT|COPY|UPDATE)[^"\x27]*)["\x27]/g) { print "$1\n" } }' README.md docs/clients.md)
rf_expect "README, docs/clients.md: every SQL string of their client examples occurs in test/clients/" \
    "$(while read -r q; do grep -rqF -- "$q" test/clients/ || printf '%s; ' "$q"; done <<<"$rf_client_sql")" "" "$rf_client_sql"

# Links from the README and docs/ to files of the tree and to headings
# reach them (a heading's anchor as GitHub makes it).  docs/citus.md is
# written on its own branch: a link to it waits for that merge.
rf_links() {
    perl -e '
        sub anchors { my $f = shift; open my $h, "<", $f or return (); my %a;
            my $fence = 0;
            while (<$h>) { $fence = !$fence if /^```/; next if $fence;
                next unless /^#+\s+(.*?)\s*$/; my $t = lc $1;
                $t =~ s/[^\w\- ]//g; $t =~ s/ /-/g; $a{$t} = 1 }
            return %a }
        for my $f (@ARGV) {
            open my $h, "<", $f or die; my $text = join "", <$h>;
            (my $dir = $f) =~ s{[^/]*$}{};
            while ($text =~ /\]\(([^)\s]+)\)/g) {
                my $l = $1; next if $l =~ /^[a-z]+:/;
                my ($path, $anchor) = split /#/, $l, 2;
                my $target = $path eq "" ? $f : "$dir$path";
                if (!-e $target) { print "$f: $l " unless $target =~ m{(^|/)docs/citus\.md$} || $target eq "citus.md"; next }
                next unless defined $anchor;
                my %a = anchors($target);
                print "$f: $l " unless $a{$anchor};
            }
        }' README.md docs/*.md
}
rf_link_targets=$(perl -ne 'print "$1\n" while /\]\(([^)\s]+)\)/g' README.md docs/*.md)
rf_expect "README and docs/: every link reaches its file and heading" "$(rf_links)" "" "$rf_link_targets"

# META.json: the version is the control file's, and the file it names exists.
rf_version=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" kid.control)
rf_expect "META.json: version and provides.kid.version are kid.control's, provides.kid.file exists" \
    "$(perl -MJSON::PP -0777 -ne 'my $m = decode_json($_); my $p = $m->{provides}{kid};
        print join(" ", $m->{version}, $p->{version}, (-e $p->{file} ? "exists" : "missing: $p->{file}"))' META.json)" \
    "$rf_version $rf_version exists" "$rf_version"

# The majors kid supports, three places that name them: make test's default
# run (test/run-majors.sh's KID_MAJORS), the README's "Supported:" sentence
# and META.json's x_tested_postgresql.
rf_majors=$(sed -n 's/^KID_MAJORS=\${KID_MAJORS:-\(.*\)}$/\1/p' test/run-majors.sh)
rf_readme_majors=$(perl -0777 -ne 'print "$1\n" if /^Supported: PostgreSQL ([0-9, and]+), on which/m' README.md | grep -o '[0-9]\+' | tr '\n' ' ' | sed 's/ $//')
rf_meta_majors=$(perl -MJSON::PP -0777 -ne 'print join(" ", @{decode_json($_)->{x_tested_postgresql} || []})' META.json)
rf_expect "README's Supported: and META.json's x_tested_postgresql name the majors make test runs ($rf_majors)" \
    "$rf_readme_majors; $rf_meta_majors" "$rf_majors; $rf_majors" "$rf_majors" "$rf_readme_majors" "$rf_meta_majors"

# META.json's tags say what kid is: every word of every tag occurs in the
# README (a tag for a scheme kid does not have, such as ksuid, fails).
rf_tags=$(perl -MJSON::PP -0777 -ne 'print join " ", @{decode_json($_)->{tags}}' META.json)
rf_expect "META.json: every word of its tags occurs in the README" \
    "$(perl -MJSON::PP -0777 -e 'open my $m, "<", "META.json"; my $meta = decode_json(join "", <$m>);
        open my $r, "<", "README.md"; my $readme = lc join "", <$r>;
        print join " ", grep { index($readme, lc $_) < 0 } map { split /[- ]/ } @{$meta->{tags}}')" "" "$rf_tags"

kpsql $PORT -d postgres -c "DROP DATABASE readme_facts"

kid_finish
