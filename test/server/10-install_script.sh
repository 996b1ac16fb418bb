#!/usr/bin/env bash
# The install-script generator, src/sql/build-install-script.pl (runs alone
# or from run-all.sh; uses the "main" cluster).
#
# Values with quotes and shell or regex metacharacters ('  &  $1  @TYPE@  |)
# come out literally, quotes doubled inside '...' literals; a script made
# from them installs with CREATE EXTENSION (as a throwaway extension
# kid_gentest using kid's library) and its comments read back exactly as
# written.  What the generator cannot place safely is refused with the file
# and line, and nothing is written: a backslash, a control or non-ASCII
# character, a bad identifier or number, an unknown or missing key, a text
# value outside a literal or comment, an unknown placeholder, a dollar quote
# in the template.
#
# Its result is the same on every PostgreSQL (the generator is perl; what it
# installs, pg_regress installs on each major), so test/run-all.sh runs it
# on the first major only:
# kid-test: server-independent

set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1
ensure_main_cluster || exit 1

GEN_DIR="$KID_TMP/gen"
mkdir -p "$GEN_DIR"
# The odd values go into koid's record; everything else stays as shipped.
GEN_COMMENT="it's koid & co: \$1 \$& @TYPE@ @LENGTH@ ''x'' | ~<~ -- not a comment"
GEN_UNIT="1 ms 'quoted' & \$2 @UNIT@"
gen_conf() {
    perl -pe '
        $in = /^\[koid\]$/ ? 1 : /^\[/ ? 0 : $in;
        s/^type_comment = .*/type_comment = $ENV{GEN_COMMENT}/ if $in;
        s/^unit = .*/unit = $ENV{GEN_UNIT}/ if $in;
    ' src/sql/id_types.conf
}
export GEN_COMMENT GEN_UNIT
gen_conf > "$GEN_DIR/odd.conf"

gen_literal() {
    perl src/sql/build-install-script.pl --conf "$GEN_DIR/odd.conf" > "$GEN_DIR/odd.sql" || return 1
    local quoted=${GEN_COMMENT//\'/\'\'}
    grep -qxF "COMMENT ON TYPE koid IS '$quoted';" "$GEN_DIR/odd.sql" || { echo "type comment not literal"; return 1; }
    quoted=${GEN_UNIT//\'/\'\'}
    grep -qxF "COMMENT ON OPERATOR < (koid, timestamptz) IS 'koid is before the time''s $quoted unit';" "$GEN_DIR/odd.sql" ||
        { echo "unit in a literal not literal"; return 1; }
    grep -qF -- "-- smallest koid of t's time unit ($GEN_UNIT): above every koid of earlier" "$GEN_DIR/odd.sql" ||
        { echo "unit in a -- comment not literal"; return 1; }
    # Nothing else differs from the shipped script but those lines (and
    # the source comments, which name the conf file).
    local changed GEN_SHIPPED
    GEN_SHIPPED=sql/kid--$(sed -n "s/^default_version *= *'\\(.*\\)'/\\1/p" kid.control).sql
    changed=$(diff <(grep -v '^-- (from ' "$GEN_SHIPPED") <(grep -v '^-- (from ' "$GEN_DIR/odd.sql") | grep -c '^>')
    [ "$changed" -eq 10 ] || { echo "$changed lines changed, not 10"; return 1; }
}
check "install script generator: quotes and metacharacters come out literally" gen_literal

gen_installs() {
    local ext
    ext=$("$PG_CONFIG" --sharedir)/extension
    printf "comment = 'kid generator test'\ndefault_version = '1'\nmodule_pathname = '\$libdir/kid'\nrelocatable = false\n" \
        > "$ext/kid_gentest.control"
    cp "$GEN_DIR/odd.sql" "$ext/kid_gentest--1.sql"
    local got rc=0
    kpsql $PORT -d postgres -c "CREATE DATABASE kid_gentest" &&
    got=$(kpsql $PORT -d kid_gentest -c "CREATE EXTENSION kid_gentest" \
        -c "SELECT obj_description('koid'::regtype, 'pg_type')" \
        -c "SELECT obj_description('<(koid,timestamptz)'::regoperator, 'pg_operator')" \
        -c "SELECT koid_new() < koid_new()") || rc=1
    kpsql $PORT -d postgres -c "DROP DATABASE IF EXISTS kid_gentest" || rc=1
    rm -f "$ext/kid_gentest.control" "$ext/kid_gentest--1.sql"
    [ $rc -eq 0 ] || return 1
    local want="$GEN_COMMENT
koid is before the time's $GEN_UNIT unit
t"
    [ "$got" == "$want" ] || { echo "got:"; echo "$got"; echo "want:"; echo "$want"; return 1; }
}
check "a script generated from odd values installs with CREATE EXTENSION, comments exact" gen_installs

# gen_refuses NAME PATTERN: the generator, given $GEN_DIR/bad.conf (and the
# sources in $GEN_DIR/src), fails with a message matching PATTERN and
# writes nothing to standard output.
gen_refuses() {
    local name=$1 pattern=$2 out err
    out=$(perl "$GEN_DIR/src/build-install-script.pl" --conf "$GEN_DIR/bad.conf" 2>"$GEN_DIR/err") &&
        { echo "$name: accepted"; return 1; }
    err=$(cat "$GEN_DIR/err")
    [ -z "$out" ] || { echo "$name: wrote output"; return 1; }
    [[ $err =~ $pattern ]] || { echo "$name: message '$err' does not match '$pattern'"; return 1; }
}
gen_refusals() {
    rm -rf "$GEN_DIR/src"
    cp -r src/sql "$GEN_DIR/src"
    local fails=0 name edit pattern
    # conf edits: koid's record gets LINE (a perl substitution on it).
    while IFS='|' read -r name edit pattern; do
        GEN_EDIT=$edit perl -pe '$in = /^\[koid\]$/ ? 1 : /^\[/ ? 0 : $in; eval $ENV{GEN_EDIT} if $in' \
            src/sql/id_types.conf > "$GEN_DIR/bad.conf"
        gen_refuses "$name" "$pattern" || fails=$((fails + 1))
    done <<'EOF'
backslash|s/^type_comment = .*/type_comment = a \\ backslash/|bad.conf:[0-9]+: type_comment must be printable ASCII text without backslash
non-ASCII|s/^unit = .*/unit = 1 µs/|bad.conf:[0-9]+: unit must be printable ASCII text
carriage return|s/^unit = .*/unit = 1 ms\r/|bad.conf:[0-9]+: a carriage return or other control character
type name|s/^\[koid\]/[koid; drop]/|bad.conf:[0-9]+: \[koid; drop\]: a type name is
upper-case type name|s/^\[koid\]/[Koid]/|bad.conf:[0-9]+: \[Koid\]: a type name is
quote in an identifier|s/^id_name = .*/id_name = koid'x/|bad.conf:[0-9]+: id_name must be an identifier
length|s/^length = .*/length = 8; DROP TABLE x/|bad.conf:[0-9]+: length must be a number of bytes
alignment|s/^alignment = .*/alignment = int8/|bad.conf:[0-9]+: alignment must be char, int2, int4 or double
yes/no|s/^bigint_cast = .*/bigint_cast = true/|bad.conf:[0-9]+: bigint_cast must be yes or no
unknown key|s/^unit = /units = /|bad.conf:[0-9]+: unknown key 'units'
missing key|s/^text_form = .*//|bad.conf:[0-9]+: \[koid\] has no text_form
key twice|s/^(unit = .*)/$1\n$1/|bad.conf:[0-9]+: 'unit' twice in \[koid\]
EOF
    # template edits, with the shipped conf.
    cp src/sql/id_types.conf "$GEN_DIR/bad.conf"
    while IFS='|' read -r name edit pattern; do
        GEN_EDIT=$edit perl -pe 'eval $ENV{GEN_EDIT}' src/sql/id_type.sql.in > "$GEN_DIR/src/id_type.sql.in"
        gen_refuses "$name" "$pattern" || fails=$((fails + 1))
    done <<'EOF'
text outside a literal|s/^    STORAGE = plain$/    STORAGE = \@TYPE_COMMENT\@/|id_type.sql.in:[0-9]+: @TYPE_COMMENT@ is text: only inside
dollar quote in the template|s/^(CREATE TYPE \@TYPE\@;)$/$1 SELECT \$\$x\$\$;/|id_type.sql.in:[0-9]+: a backslash or [$] outside a -- comment
unknown placeholder|s/^CREATE TYPE \@TYPE\@;$/CREATE TYPE \@TYPO\@;/|id_type.sql.in:[0-9]+: @TYPO@ is no key of id_types.conf
literal across lines|s/^(COMMENT ON TYPE .*)';$/$1/|id_type.sql.in:[0-9]+: a '...' literal that does not end on its line
unclosed if|$_ = "" if /^\@endif\@$/ && !$seen++|@if@ without @endif@
EOF
    cp src/sql/id_type.sql.in "$GEN_DIR/src/id_type.sql.in"
    printf '\nSELECT @TYPE@;\n' >> "$GEN_DIR/src/monitoring.sql"
    gen_refuses "placeholder outside the template" 'monitoring.sql:[0-9]+: a placeholder or directive' || fails=$((fails + 1))
    [ $fails -eq 0 ]
}
check "install script generator refuses what it cannot place safely, naming file and line" gen_refusals

# src/sql/check-entry-points.pl (make check-install-script) on the installed
# kid.so: it passes with the scripts of sql/, and fails, naming the symbol,
# for a script that names a C function kid.so lacks, for an entry point no
# script names, and for a stale line of the allowed list.
GEN_LIB=$("$PG_CONFIG" --pkglibdir)/kid.so
entry_points() {
    perl src/sql/check-entry-points.pl "$GEN_LIB" "$1" "${@:2}" > "$GEN_DIR/entry.out" 2>&1
}
# entry_points_refuse PATTERN ALLOWED SCRIPT...: fails, printing a line matching PATTERN.
entry_points_refuse() {
    local pattern=$1
    shift
    entry_points "$@" && { echo "passed: $*"; return 1; }
    grep -Eq "$pattern" "$GEN_DIR/entry.out" || { cat "$GEN_DIR/entry.out"; return 1; }
}
entry_point_checks() {
    local scripts=(sql/kid--*.sql) fails=0
    entry_points src/sql/entry-points.allowed "${scripts[@]}" || { cat "$GEN_DIR/entry.out"; return 1; }
    # every script with sno_out renamed: a symbol kid.so lacks, and sno_out unnamed.
    mkdir -p "$GEN_DIR/renamed"
    for f in "${scripts[@]}"; do sed "s/'sno_out'/'sno_outx'/" "$f" > "$GEN_DIR/renamed/${f#sql/}"; done
    entry_points_refuse "names C function sno_outx, but .* does not export pg_finfo_sno_outx" \
        src/sql/entry-points.allowed "$GEN_DIR"/renamed/*.sql || fails=$((fails + 1))
    entry_points_refuse "entry point sno_out \(pg_finfo_sno_out\) is named by no script" \
        src/sql/entry-points.allowed "$GEN_DIR"/renamed/*.sql || fails=$((fails + 1))
    # sno_out listed as unnamed: taken when no script names it, stale when one does.
    printf '# reason\nsno_out  a test\n' > "$GEN_DIR/allowed"
    perl -ne "print unless /'sno_out'/" "${scripts[@]}" > "$GEN_DIR/without_sno_out.sql"
    entry_points "$GEN_DIR/allowed" "$GEN_DIR/without_sno_out.sql" || { cat "$GEN_DIR/entry.out"; fails=$((fails + 1)); }
    entry_points_refuse "sno_out is named by .*remove it from the list" "$GEN_DIR/allowed" "${scripts[@]}" ||
        fails=$((fails + 1))
    printf 'sno_nothing  a test\n' > "$GEN_DIR/allowed"
    entry_points_refuse "sno_nothing is not an entry point" "$GEN_DIR/allowed" "${scripts[@]}" || fails=$((fails + 1))
    [ $fails -eq 0 ]
}
check "the scripts of sql/ and kid.so name the same C entry points; the check names a missing or unnamed one" entry_point_checks

kid_finish
