#!/usr/bin/env bash
# PostgreSQL's own catalog rules, with kid in the catalog: the catalog sanity
# suites of PostgreSQL's regression tests (opr_sanity, type_sanity,
# misc_sanity, oidjoins), taken from the source tarball of the server's
# release (test/tools/pg_source.sh), run by pg_regress in a database where
# kid is created.  Each suite's must-be-empty queries must stay empty; what
# kid may add to a suite's listings (queries that list what is legal but
# unusual) is test/server/12-catalog_sanity.allowed (on 19
# 12-catalog_sanity.allowed.19: a listing there holds more of core's rows),
# one comment per difference saying why.  The differences, as `diff -U2` prints them, must
# be exactly those (the line numbers of a hunk aside, which move with every
# release's expected output): a new difference fails, and so does an
# allowed one that went away (remove it from the file).
#
# KID_CATALOG_KEEP=DIR keeps the suites' results and differences in DIR
# (kid_catalog_sanity.diff is what the allowed file lists, with comments).
#
# Runs on 18 and 19, where test/server/lib/regress_files.sh finds the
# suites (18: the vendored release tarball; 19: Debian's source package of
# the installed 19, skipped, saying why, when the mirror lacks it).  On
# other majors the script says so and counts nothing.
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

# The suites, their expected output and regress.c: binary_coercible() and
# is_catalog_text_unique_index_oid(), which opr_sanity and type_sanity call,
# are C functions of PostgreSQL's test library, built here with PGXS.
regress_files regress.c $(for s in $SUITES; do echo "sql/$s.sql expected/$s.out"; done)
case $? in
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

# run_suites DB VERSION: the suites in a new database DB with kid VERSION;
# writes $W/DB.diff, their differences from the expected output, suite by
# suite.  First catalog_setup, the set-up the suites assume of PostgreSQL's
# own test run (its test_setup and the tests before them): binary_coercible(),
# and an enum type (type_sanity and opr_sanity list enum_in and its friends
# as the input functions of enum types, which they are only while one exists).
run_suites() {
    local db=$1 version=$2 s
    {
        if [ "$version" != "$default_version" ]; then
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
    { cat "$W/sql/catalog_setup.sql"; printf ' extversion \n------------\n %s\n(1 row)\n\n' "$version"; } >"$W/expected/catalog_setup.out"
    chmod -R a+rX "$W" && chown -R postgres: "$W"
    rm -rf "$W/results" "$W/regression.diffs"
    as_postgres "$regress" --inputdir="$W" --outputdir="$W" --expecteddir="$W" --dlpath="$W/lib" \
        --host="$KID_MAIN_SOCK" --port="$KID_MAIN_PORT" --user=postgres --dbname="$db" \
        --load-extension=kid catalog_setup $SUITES >"$W/$db.log" 2>&1
    if ! grep -q '^ok [0-9]* *- catalog_setup' "$W/$db.log"; then
        cat "$W/$db.log"
        sed -n '1,/^=== /p' "$W/regression.diffs" 2>/dev/null | head -40
        return 1
    fi
    for s in $SUITES; do
        echo "=== $s"
        diff -U2 "$W/expected/$s.out" "$W/results/$s.out" | tail -n +3
    done >"$W/$db.diff"
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

echo "-- PostgreSQL $major's catalog sanity suites ($src) with kid created"
if run_suites kid_catalog_sanity "$default_version"; then
    for s in $SUITES; do
        same() {
            diff -u <(allowed_of "$s") <(section "$s" "$W/kid_catalog_sanity.diff") >"$W/$s.vs-allowed" && return 0
            echo "differences from $ALLOWED (- allowed, + found):"
            cat "$W/$s.vs-allowed"
            return 1
        }
        check "$s: differs from PostgreSQL's expected output only as $ALLOWED explains" same
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
    -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS kid_catalog_sanity" -c "DROP DATABASE IF EXISTS kid_catalog_sanity_010"
[ -z "${KID_CATALOG_KEEP:-}" ] || cp -r "$W" "$KID_CATALOG_KEEP"
kid_finish
