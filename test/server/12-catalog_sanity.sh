#!/usr/bin/env bash
# PostgreSQL's own catalog rules, with kid in the catalog: the catalog sanity
# suites of PostgreSQL's regression tests (opr_sanity, type_sanity,
# misc_sanity, oidjoins), run by pg_regress in a database where kid is
# created.  Each suite's must-be-empty queries must stay empty; what kid may
# add to a suite's listings (queries that list what is legal but unusual)
# is test/server/12-catalog_sanity.allowed (on 19
# 12-catalog_sanity.allowed.19: a listing there holds more of core's rows),
# one comment per difference saying why.  The differences, as `diff -U2`
# prints them, must be exactly those (the line numbers of a hunk aside,
# which move with every release's expected output): a new difference
# fails, and so does an allowed one that went away (remove it from the
# file).
#
# Which suites, and what they are compared with, by major:
#   - 18 (and 19 once a mirror has Debian's source package of the installed
#     19): the suites of the server's own release (test/tools/pg_source.sh:
#     18's vendored tarball; Debian's source package of 19), compared with
#     their expected output.
#   - 19 while its source is not to be had (this machine's mirror: 404):
#     the vendored release's suites (18.6's), by difference.  They run twice
#     on the same server: in a database without kid, then in one with kid
#     created, and the differences of the second from the first are what
#     the allowed file must list.  That is sound because every row a suite
#     prints comes from the database's catalog: a rule kid breaks prints a
#     row only in the run with kid, so it shows as a difference; what 19
#     changed in core's catalog since 18.6 (new rows in a listing, a query
#     whose answer moved) is the same in both runs and cancels out.  What
#     the method cannot see is a rule 19 added to its own suites, and a
#     query that fails on 19's catalog: no error may appear in the run
#     without kid that 18.6's expected output does not hold (an error
#     prints no rows, with kid or without), which is checked.
#   - 15 and 17: not run (the script says so and counts nothing).  Debian
#     ships neither their suites nor, on this machine's mirror, their
#     source.  18.6's queries do run on 15's catalog without an error
#     (tried), but 18.6's regress.c does not build there: it uses 18's
#     RelPathStr, and type_sanity's is_catalog_text_unique_index_oid()
#     calls IsCatalogTextUniqueIndexOid(), which neither 15 nor 17 has.
#
# KID_CATALOG_KEEP=DIR keeps the suites' results and differences in DIR
# (kid_catalog_sanity.diff is what the allowed file lists, with comments).
# KID_CATALOG_BY_DIFFERENCE=1 runs them by difference where the own suites
# are there too: on 18 both methods find the same differences.
#
# It puts 0.1.0's install script into the server's extension directory,
# which no other test may see meanwhile:
# kid-test: alone
set -uo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
source test/server/lib/regress_files.sh

SUITES="opr_sanity type_sanity misc_sanity oidjoins"
major=$("$PG_CONFIG" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
ALLOWED=test/server/12-catalog_sanity.allowed
[ ! -f "$ALLOWED.$major" ] || ALLOWED=$ALLOWED.$major

# BY_DIFFERENCE: the majors that run the vendored release's suites by
# difference when their own are not to be had (header).
BY_DIFFERENCE="18 19"

# The suites, their expected output and regress.c: binary_coercible() and
# is_catalog_text_unique_index_oid(), which opr_sanity and type_sanity call,
# are C functions of PostgreSQL's test library, built here with PGXS.
files=(regress.c)
for s in $SUITES; do files+=("sql/$s.sql" "expected/$s.out"); done
by_difference=
if [ -n "${KID_CATALOG_BY_DIFFERENCE:-}" ]; then
    rc=2 REGRESS_WHY="KID_CATALOG_BY_DIFFERENCE is set"
else
    regress_files "${files[@]}"
    rc=$?
fi
if [ $rc -eq 2 ] && [[ " $BY_DIFFERENCE " == *" $major "* ]]; then
    own_why=$REGRESS_WHY
    regress_files --vendored "${files[@]}"
    rc=$?
    [ $rc -ne 2 ] || REGRESS_WHY="$own_why; $REGRESS_WHY"
    [ $rc -ne 0 ] || { by_difference=yes; note "PostgreSQL $major's own suites not to be had ($own_why): $REGRESS_TARBALL's, by difference"; }
fi
case $rc in
0) ;;
2)
    KID_SKIP="not run on $REGRESS_WHY"
    kid_finish
    exit 0
    ;;
*)
    check "the suites of PostgreSQL $major's source (test/tools/pg_source.sh)" false
    kid_finish
    exit 1
    ;;
esac
src=$REGRESS_TARBALL
W=$KID_TMP/catalog
mkdir -p "$W/sql" "$W/expected" "$W/lib"
for s in $SUITES; do
    cp "$KID_TMP/regress/sql/$s.sql" "$W/sql/" && cp "$KID_TMP/regress/expected/$s.out" "$W/expected/"
done
cp "$KID_TMP/regress/regress.c" "$W/lib/"
printf 'MODULES = regress\nPGXS := $(shell $(PG_CONFIG) --pgxs)\ninclude $(PGXS)\n' >"$W/lib/Makefile"
(unset MAKELEVEL MAKEFLAGS MFLAGS && make -s -C "$W/lib" PG_CONFIG="$PG_CONFIG") >"$KID_TMP/regress-lib.log" 2>&1 ||
    { cat "$KID_TMP/regress-lib.log"; check "building $src's regress.c" false; kid_finish; exit 1; }

ensure_main_cluster || exit 1
regress=$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress
default_version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" kid.control)

# run_suites DB VERSION: the suites in a new database DB with kid VERSION
# (none when VERSION is empty); writes $W/DB.diff, their differences from
# $REF (the expected output, or the results without kid), suite by suite,
# and keeps the results in $W/DB.  First catalog_setup, the set-up the
# suites assume of PostgreSQL's own test run (its test_setup and the tests
# before them): binary_coercible(), and an enum type (type_sanity and
# opr_sanity list enum_in and its friends as the input functions of enum
# types, which they are only while one exists).
REF=$W/expected
against="PostgreSQL's expected output"
run_suites() {
    local db=$1 version=$2 s
    {
        if [ -z "$version" ]; then
            :
        elif [ "$version" != "$default_version" ]; then
            echo "DROP EXTENSION kid;"
            echo "CREATE EXTENSION kid VERSION '$version';"
        fi
        cat <<'SQL'
\getenv libdir PG_LIBDIR
\getenv dlsuffix PG_DLSUFFIX
\set regresslib :libdir '/regress' :dlsuffix
CREATE FUNCTION binary_coercible(oid, oid) RETURNS bool
    AS :'regresslib', 'binary_coercible' LANGUAGE C STRICT STABLE PARALLEL SAFE;
CREATE TYPE catalog_sanity_enum AS ENUM ('a');
SELECT extversion FROM pg_extension WHERE extname = 'kid';
SQL
    } >"$W/sql/catalog_setup.sql"
    {
        cat "$W/sql/catalog_setup.sql"
        if [ -n "$version" ]; then
            printf ' extversion \n------------\n %s\n(1 row)\n\n' "$version"
        else
            printf ' extversion \n------------\n(0 rows)\n\n'
        fi
    } >"$W/expected/catalog_setup.out"
    chmod -R a+rX "$W" && chown -R postgres: "$W"
    rm -rf "$W/results" "$W/regression.diffs"
    as_postgres "$regress" --inputdir="$W" --outputdir="$W" --expecteddir="$W" --dlpath="$W/lib" \
        --host="$KID_MAIN_SOCK" --port="$KID_MAIN_PORT" --user=postgres --dbname="$db" \
        ${version:+--load-extension=kid} catalog_setup $SUITES >"$W/$db.log" 2>&1
    if ! grep -q '^ok [0-9]* *- catalog_setup' "$W/$db.log"; then
        cat "$W/$db.log"
        sed -n '1,/^=== /p' "$W/regression.diffs" 2>/dev/null | head -40
        return 1
    fi
    rm -rf "${W:?}/$db" && cp -r "$W/results" "$W/$db"
    for s in $SUITES; do
        echo "=== $s"
        diff -U2 "$REF/$s.out" "$W/results/$s.out" | tail -n +3
    done >"$W/$db.diff"
    return 0 # (diff's status, through pipefail, is no failure here)
}

# section SUITE FILE: the lines of SUITE's section of FILE (after "=== SUITE").
# Blanks at the ends of lines do not count (an editor may strip them), nor
# do a hunk's line numbers ("@@ -1034,5 +1034,6 @@" reads "@@"): they move
# when the expected output gains or loses lines above the hunk, as it does
# from one release to the next, and the hunk's context lines place it.
section() {
    sed -n "/^=== $1\$/,/^=== /p" "$2" | sed -e 's/[[:space:]]*$//' -e 's/^@@ -[0-9,]* +[0-9,]* @@$/@@/' |
        grep -v -e '^=== ' -e '^#' -e '^$'
}
# The allowed differences of SUITE, without their comments.
allowed_of() { section "$1" "$ALLOWED"; }

if [ -n "$by_difference" ]; then
    echo "-- $src's catalog sanity suites on PostgreSQL $major without kid (what kid's run is compared with)"
    if run_suites kid_catalog_sanity_without ""; then
        REF=$W/kid_catalog_sanity_without against="the run without kid"
        for s in $SUITES; do
            # An error prints no rows, with kid or without: a query of
            # $src's that fails on this catalog would hide what kid adds.
            errors_as_expected() {
                diff -u <(grep '^ERROR:' "$W/expected/$s.out") <(grep '^ERROR:' "$REF/$s.out") >"$W/$s.errors" && return 0
                echo "errors of $src's queries on PostgreSQL $major (- expected, + found):"
                cat "$W/$s.errors"
                return 1
            }
            check "$s: $src's queries run on PostgreSQL $major's catalog, no error but the expected ones" errors_as_expected
        done
        note "without kid, PostgreSQL $major's catalog differs from $src's expected output in $(grep -c '^@@' "$W/kid_catalog_sanity_without.diff") hunks (core's changes; they cancel out)"
    else
        check "the catalog sanity suites ran without kid (pg_regress)" false
    fi
fi

echo "-- $src's catalog sanity suites on PostgreSQL $major with kid created"
if run_suites kid_catalog_sanity "$default_version"; then
    for s in $SUITES; do
        same() {
            diff -u <(allowed_of "$s") <(section "$s" "$W/kid_catalog_sanity.diff") >"$W/$s.vs-allowed" && return 0
            echo "differences from $ALLOWED (- allowed, + found):"
            cat "$W/$s.vs-allowed"
            return 1
        }
        check "$s: differs from $against only as $ALLOWED explains" same
    done
else
    check "the catalog sanity suites ran (pg_regress)" false
fi

# The test itself: kid 0.1.0's catalog, whose btree families broke both
# rules, is caught by opr_sanity's must-be-empty queries (its = members
# that are not mergejoinable, its members no class of their family can use).
echo "-- the same with kid 0.1.0"
# make install installs only the default version's script: 0.1.0's is put
# beside it for this run, and removed whatever happens.
ext_dir=$("$PG_CONFIG" --sharedir)/extension
if [ ! -f "$ext_dir/kid--0.1.0.sql" ]; then
    cp sql/kid--0.1.0.sql "$ext_dir/" && trap 'trap "" INT TERM PIPE; rm -f "$ext_dir/kid--0.1.0.sql"; kid_cleanup' EXIT
fi
if run_suites kid_catalog_sanity_010 0.1.0; then
    # The rows it adds to opr_sanity beyond the allowed ones.
    new_rows=$(diff <(allowed_of opr_sanity) <(section opr_sanity "$W/kid_catalog_sanity_010.diff") | grep '^> +')
    # "oid | oprname | amopfamily": an = in a btree family, not MERGES.
    check "kid 0.1.0: an = member not mergejoinable is caught" grep -Eq '^> \+ *[0-9]+ \| = +\| +[0-9]+$' <<<"$new_rows"
    # "amopfamily | amopstrategy | amopopr": a member no class can use.
    check "kid 0.1.0: a member no class of its family can use is caught" grep -Eq '^> \+ *[0-9]+ \| +5 \| +[0-9]+$' <<<"$new_rows"
else
    check "the catalog sanity suites ran on kid 0.1.0 (pg_regress)" false
fi
as_postgres "$PG_BIN/psql" -X -q -h "$KID_MAIN_SOCK" -p "$KID_MAIN_PORT" -U postgres -d postgres \
    -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS kid_catalog_sanity" -c "DROP DATABASE IF EXISTS kid_catalog_sanity_010" \
    -c "DROP DATABASE IF EXISTS kid_catalog_sanity_without"
[ -z "${KID_CATALOG_KEEP:-}" ] || cp -r "$W" "$KID_CATALOG_KEEP"
kid_finish
