#!/usr/bin/env bash
# Upgrades of kid (runs alone or from run-all.sh; uses the "main" cluster).
# The rules it checks are CONTRIBUTING.md's "Upgrades".
#
# The scripts of sql/ are installed under a throwaway extension name
# (kid_upg, same library) so that nothing of the installed kid changes:
#   - kid.control's default_version has an install script;
#   - every upgrade script sql/kid--A--B.sql leads somewhere from 0.1.0, and
#     0.1.0 (the first release) updates to the default version;
#   - a released version's scripts are unchanged (test/released-scripts.sha256);
#   - every C symbol any script of sql/ names is in kid.so (old SQL may
#     still call it);
#   - when the default version is not 0.1.0: install 0.1.0, write data of
#     every type, ALTER EXTENSION ... UPDATE, and the catalog of the
#     extension's objects (definitions, comments, privileges; no OIDs)
#     equals a fresh install of the default version's, and the data reads
#     the same (text, binary COPY, decoders, index scans).
# The last step runs today too, on a made-up next version 0.1.1 (0.1.0's
# script plus a changed comment, a new function, a revoked privilege and a
# changed cost, as an upgrade script and as a full script): the upgraded
# catalog equals the fresh one, and an upgrade script missing any one of
# those statements is caught.

# It puts older versions' install scripts into the server's extension
# directory, which no other test may see meanwhile:
# kid-test: alone
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1
ensure_main_cluster || exit 1

UPG_FIRST=0.1.0
UPG_DEFAULT=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" kid.control)
UPG_EXT_DIR=$("$PG_CONFIG" --sharedir)/extension
UPG_DIR=$KID_TMP/upgrade
mkdir -p "$UPG_DIR" && chmod 755 "$UPG_DIR"

# upg_install_ext NAME DEFAULT FILES...: a throwaway extension NAME using
# kid's library, its scripts the FILES (named kid--*.sql or NAME--*.sql).
UPG_INSTALLED=""
upg_install_ext() {
    local name=$1 default=$2 f base
    shift 2
    printf "comment = 'kid upgrade test'\ndefault_version = '%s'\nmodule_pathname = '\$libdir/kid'\nrelocatable = false\ntrusted = false\n" \
        "$default" > "$UPG_EXT_DIR/$name.control"
    UPG_INSTALLED="$UPG_INSTALLED $UPG_EXT_DIR/$name.control"
    for f in "$@"; do
        base=$(basename "$f")
        base=$name--${base#*--}
        cp "$f" "$UPG_EXT_DIR/$base"
        UPG_INSTALLED="$UPG_INSTALLED $UPG_EXT_DIR/$base"
    done
}
upg_cleanup() {
    local f
    for f in $UPG_INSTALLED; do rm -f "$f"; done
    for db in upg_old upg_new upg_next_old upg_next_new upg_bad upg_comment upg_states upg_foreign; do
        kpsql $PORT -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
    done
}
# Remove the throwaway extension's files and databases whatever happens,
# then lib.sh's cleanup.
trap 'trap "" INT TERM PIPE; upg_cleanup; [ -z "${UPG_KEEP:-}" ] || cp -r "$UPG_DIR" "$UPG_KEEP"; kid_cleanup' EXIT

upg_db() { # upg_db DB: a fresh database DB
    kpsql $PORT -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
}

# ---------------------------------------------------------------- the files
check "kid.control's default_version $UPG_DEFAULT has its install script sql/kid--$UPG_DEFAULT.sql" \
    test -f "sql/kid--$UPG_DEFAULT.sql"
check "the first release's install script sql/kid--$UPG_FIRST.sql is kept" test -f "sql/kid--$UPG_FIRST.sql"

upg_install_ext kid_upg "$UPG_DEFAULT" sql/kid--*.sql

# Every version an upgrade script leads to, and the default version, are
# reached from 0.1.0 (PostgreSQL's own path search over the installed files).
upg_paths() {
    local targets v path bad=0
    targets=$( (ls sql/ | sed -n 's/^kid--[^-]*--\(.*\)\.sql$/\1/p'; echo "$UPG_DEFAULT") | sort -u)
    for v in $targets; do
        [ "$v" = "$UPG_FIRST" ] && continue
        path=$(kpsql $PORT -d postgres -c "SELECT path FROM pg_extension_update_paths('kid_upg') WHERE source = '$UPG_FIRST' AND target = '$v'")
        [ -n "$path" ] || { echo "no update path from $UPG_FIRST to $v"; bad=1; }
    done
    return $bad
}
check "every upgrade script's target and the default version are reached from $UPG_FIRST" upg_paths

# Released scripts never change.  test/released-scripts.sha256 holds the
# sha256 of every script of a released version (git tags need not travel
# with the tree); a version is released when CHANGELOG.md dates it
# ("## 0.1.0 (2026-11-23)").  Every listed script is unchanged, and a script
# is listed exactly when the version it installs or updates to is released.
upg_released() { sed -n 's/^## \([0-9][0-9.]*\) ([0-9]\{4\}-[0-9][0-9]-[0-9][0-9])$/\1/p' CHANGELOG.md; }
upg_listed() { grep -v '^#' test/released-scripts.sha256 | awk '{ print $2 }'; }
upg_unchanged() {
    [ -n "$(upg_listed)" ] || { echo "test/released-scripts.sha256 lists nothing"; return 1; }
    grep -v '^#' test/released-scripts.sha256 | sha256sum --quiet -c -
}
check "every released script (test/released-scripts.sha256) is unchanged" upg_unchanged
upg_listed_iff_released() {
    local f v bad=0 released listed
    released=$(upg_released)
    listed=$(upg_listed)
    grep -qx "$UPG_FIRST" <<<"$released" || { echo "CHANGELOG.md dates no $UPG_FIRST"; bad=1; }
    for f in sql/kid--*.sql; do
        v=$(basename "$f" .sql)
        v=${v##*--}
        if grep -qxF "$v" <<<"$released"; then
            grep -qxF "$f" <<<"$listed" || { echo "$f is of released $v but not in test/released-scripts.sha256"; bad=1; }
        else
            grep -qxF "$f" <<<"$listed" && { echo "$f is of unreleased $v but in test/released-scripts.sha256"; bad=1; }
        fi
    done
    return $bad
}
check "a script of sql/ is listed as released exactly when CHANGELOG.md dates its version" upg_listed_iff_released

# Every C symbol a script names (AS 'MODULE_PATHNAME', 'symbol') is
# exported by the built kid.so: old SQL may call it after an upgrade of the
# library alone.
upg_symbols() {
    local lib missing
    lib=$("$PG_CONFIG" --pkglibdir)/kid.so
    missing=$(comm -23 \
        <(grep -ho "'MODULE_PATHNAME', *'[A-Za-z0-9_]*'" sql/kid--*.sql | sed "s/.*, *'\(.*\)'/\1/" | LC_ALL=C sort -u) \
        <(nm -D --defined-only "$lib" | awk '{ print $3 }' | LC_ALL=C sort -u))
    [ -z "$missing" ] || { echo "not in $lib:"; echo "$missing"; return 1; }
}
check "every C symbol the scripts of sql/ name is exported by the installed kid.so" upg_symbols

# ---------------------------------------------------------------- the catalog
# upg_catalog DB EXT: one line per property of the extension EXT's objects
# (members, definitions, operator families, the configuration table,
# comments, privileges and initial privileges), names instead of OIDs, sorted.
upg_catalog() {
    kpsql $PORT -d "$1" -v ext="$2" <<'SQL'
CREATE TEMP TABLE upg_m AS
    SELECT d.classid, d.objid FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = :'ext';
CREATE TEMP TABLE upg_fam AS
    SELECT objid AS oid FROM upg_m WHERE classid = 'pg_opfamily'::regclass
    UNION SELECT opcfamily FROM pg_opclass WHERE oid IN (SELECT objid FROM upg_m WHERE classid = 'pg_opclass'::regclass)
    UNION SELECT amopfamily FROM pg_amop WHERE amopopr IN (SELECT objid FROM upg_m WHERE classid = 'pg_operator'::regclass);
CREATE TEMP TABLE upg_rel AS SELECT objid AS oid FROM upg_m WHERE classid = 'pg_class'::regclass;
-- every object whose comment or privileges count: members and what belongs to them
CREATE TEMP TABLE upg_all AS
    SELECT classid, objid FROM upg_m
    UNION SELECT 'pg_opfamily'::regclass, oid FROM upg_fam
    UNION SELECT 'pg_trigger'::regclass, oid FROM pg_trigger WHERE tgrelid IN (SELECT oid FROM upg_rel)
    UNION SELECT 'pg_constraint'::regclass, oid FROM pg_constraint
        WHERE conrelid IN (SELECT oid FROM upg_rel) OR contypid IN (SELECT objid FROM upg_m WHERE classid = 'pg_type'::regclass)
    UNION SELECT 'pg_class'::regclass, indexrelid FROM pg_index WHERE indrelid IN (SELECT oid FROM upg_rel);
SELECT replace(line, E'\n', '\n') COLLATE "C" FROM (
    SELECT format('extension: version %s, schema %s, config %s, condition %s', extversion, extnamespace::regnamespace,
        extconfig::regclass[], extcondition) AS line FROM pg_extension WHERE extname = :'ext'
    UNION ALL SELECT 'member: ' || pg_describe_object(classid, objid, 0) FROM upg_m
    UNION ALL SELECT format('function %s: %s', p.oid::regprocedure,
            CASE WHEN p.prokind = 'a' THEN
                (SELECT row(a.aggkind, a.aggnumdirectargs, a.aggtransfn::regprocedure, a.aggfinalfn::regprocedure,
                    a.aggcombinefn::regprocedure, a.aggserialfn::regprocedure, a.aggdeserialfn::regprocedure,
                    a.aggmtransfn::regprocedure, a.aggminvtransfn::regprocedure, a.aggmfinalfn::regprocedure,
                    a.aggfinalextra, a.aggmfinalextra, a.aggfinalmodify, a.aggmfinalmodify, a.aggsortop::regoperator,
                    a.aggtranstype::regtype, a.aggtransspace, a.aggmtranstype::regtype, a.aggmtransspace,
                    a.agginitval, a.aggminitval, p.proparallel)::text
                 FROM pg_aggregate a WHERE a.aggfnoid = p.oid)
            ELSE pg_get_functiondef(p.oid) END)
        FROM pg_proc p WHERE p.oid IN (SELECT objid FROM upg_m WHERE classid = 'pg_proc'::regclass)
    UNION ALL SELECT format('function %s: acl %s, owner %s', oid::regprocedure, proacl, proowner::regrole)
        FROM pg_proc WHERE oid IN (SELECT objid FROM upg_m WHERE classid = 'pg_proc'::regclass)
    UNION ALL SELECT format('type %s: %s', t.oid::regtype, row(t.typlen, t.typbyval, t.typtype, t.typcategory,
            t.typispreferred, t.typisdefined, t.typdelim, t.typrelid::regclass, t.typsubscript::regproc, t.typelem::regtype,
            t.typarray::regtype, t.typinput::regproc, t.typoutput::regproc, t.typreceive::regproc, t.typsend::regproc,
            t.typmodin::regproc, t.typmodout::regproc, t.typanalyze::regproc, t.typalign, t.typstorage, t.typnotnull,
            t.typbasetype::regtype, t.typtypmod, t.typndims, t.typcollation::regcollation, t.typdefault, t.typacl,
            t.typowner::regrole))
        FROM pg_type t WHERE t.oid IN (SELECT objid FROM upg_m WHERE classid = 'pg_type'::regclass)
    UNION ALL SELECT format('operator %s: %s', o.oid::regoperator, row(o.oprkind, o.oprcanmerge, o.oprcanhash,
            o.oprresult::regtype, o.oprcom::regoperator, o.oprnegate::regoperator, o.oprcode::regprocedure,
            o.oprrest::regprocedure, o.oprjoin::regprocedure, o.oprowner::regrole))
        FROM pg_operator o WHERE o.oid IN (SELECT objid FROM upg_m WHERE classid = 'pg_operator'::regclass)
    UNION ALL SELECT format('cast %s -> %s: %s', c.castsource::regtype, c.casttarget::regtype,
            row(c.castfunc::regprocedure, c.castcontext, c.castmethod))
        FROM pg_cast c WHERE c.oid IN (SELECT objid FROM upg_m WHERE classid = 'pg_cast'::regclass)
    UNION ALL SELECT format('operator class %s: %s', pg_describe_object('pg_opclass'::regclass, c.oid, 0),
            row(c.opcintype::regtype, c.opcdefault, pg_describe_object('pg_opfamily'::regclass, c.opcfamily, 0),
                c.opckeytype::regtype, c.opcowner::regrole))
        FROM pg_opclass c WHERE c.oid IN (SELECT objid FROM upg_m WHERE classid = 'pg_opclass'::regclass)
    UNION ALL SELECT format('%s: strategy %s (%s, %s) %s %s %s', pg_describe_object('pg_opfamily'::regclass, a.amopfamily, 0),
            a.amopstrategy, a.amoplefttype::regtype, a.amoprighttype::regtype, a.amopopr::regoperator, a.amoppurpose,
            pg_describe_object('pg_opfamily'::regclass, a.amopsortfamily, 0))
        FROM pg_amop a WHERE a.amopfamily IN (SELECT oid FROM upg_fam)
    UNION ALL SELECT format('%s: support %s (%s, %s) %s', pg_describe_object('pg_opfamily'::regclass, p.amprocfamily, 0),
            p.amprocnum, p.amproclefttype::regtype, p.amprocrighttype::regtype, p.amproc::regprocedure)
        FROM pg_amproc p WHERE p.amprocfamily IN (SELECT oid FROM upg_fam)
    UNION ALL SELECT format('relation %s: %s', c.oid::regclass, row(c.relkind, c.relpersistence, c.reloptions,
            c.relacl, c.relowner::regrole, c.relrowsecurity))
        FROM pg_class c WHERE c.oid IN (SELECT oid FROM upg_rel)
    UNION ALL SELECT format('column %s.%s: %s', a.attrelid::regclass, a.attname, row(a.attnum, a.atttypid::regtype,
            a.atttypmod, a.attnotnull, a.attidentity, a.attgenerated, a.attcollation::regcollation, a.attacl,
            pg_get_expr(d.adbin, d.adrelid)))
        FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid IN (SELECT oid FROM upg_rel) AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL SELECT format('index %s', pg_get_indexdef(indexrelid)) FROM pg_index WHERE indrelid IN (SELECT oid FROM upg_rel)
    UNION ALL SELECT format('trigger %s', pg_get_triggerdef(oid)) FROM pg_trigger
        WHERE tgrelid IN (SELECT oid FROM upg_rel) AND NOT tgisinternal
    UNION ALL SELECT format('constraint %s: %s', pg_describe_object('pg_constraint'::regclass, oid, 0), pg_get_constraintdef(oid))
        FROM pg_constraint WHERE oid IN (SELECT objid FROM upg_all WHERE classid = 'pg_constraint'::regclass)
    UNION ALL SELECT format('comment on %s: %s', pg_describe_object(d.classoid, d.objoid, d.objsubid), d.description)
        FROM pg_description d JOIN upg_all a ON a.classid = d.classoid AND a.objid = d.objoid
    UNION ALL SELECT format('initial privileges of %s: %s %s', pg_describe_object(i.classoid, i.objoid, i.objsubid),
            i.privtype, i.initprivs)
        FROM pg_init_privs i JOIN upg_all a ON a.classid = i.classoid AND a.objid = i.objoid
) lines ORDER BY 1;
-- The rows the scripts write into the extension's tables (kid_id_types,
-- which kid's SQL reads instead of naming types; codokey_context's
-- default context), the database's own being none here; but
-- kid_database_origin, where the update records itself and a fresh
-- install does not.
CREATE TEMP TABLE upg_content AS
    SELECT c.oid::regclass AS rel FROM pg_class c
    WHERE c.oid IN (SELECT oid FROM upg_rel) AND c.relkind = 'r' AND c.relname <> 'kid_database_origin';
CREATE FUNCTION pg_temp.upg_rows() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE r regclass;
BEGIN
    FOR r IN SELECT rel FROM upg_content ORDER BY rel::text LOOP
        RETURN QUERY EXECUTE format('SELECT %L || '' row: '' || t::text FROM %s t', r::text, r);
    END LOOP;
END $$;
SELECT line COLLATE "C" FROM pg_temp.upg_rows() AS line ORDER BY 1;
SQL
}

# ---------------------------------------------------------------- data
# What an old version wrote: every type, generated and literal, with indexes.
UPG_WRITE="
CREATE SCHEMA upg_data;
CREATE TABLE upg_data.t (n int PRIMARY KEY, s sno, t atproto_tid, k koid, u uid, g uid_global, c codokey, r atproto_rkey);
INSERT INTO upg_data.t
    SELECT n, sno_new(n % 3), tid_new(), koid_new(), uid_new(), uid_global_new(),
        codokey(timestamptz '2026-01-01 00:00:00+00' - n * interval '37 hours', n % 7), 'rk-' || n
    FROM generate_series(1, 200) n;
INSERT INTO upg_data.t VALUES (0, '9q9raufq2229o26k', '3jzfcijpj2z2a', '0000000000000001', NULL, NULL, NULL, 'self');
CREATE INDEX ON upg_data.t (s); CREATE INDEX ON upg_data.t (t); CREATE INDEX ON upg_data.t (k);
CREATE INDEX ON upg_data.t (u); CREATE INDEX ON upg_data.t USING hash (g); CREATE INDEX ON upg_data.t (c);
"
# How it reads: text, decoders, the binary form, and index scans in the
# types' orders.
UPG_READ="
SELECT n, s, t, k, u, g, c, r, sno_to_timestamp(s), sno_info(s), tid_info(t), koid_info(k), uid_info(u),
    uid_global_info(g), codokey_info(c), s::bytea, t::bigint, k::bigint, u::bigint, g::bytea
FROM upg_data.t ORDER BY n;
COPY (SELECT s, t, k, u, g, c FROM upg_data.t ORDER BY n) TO STDOUT (FORMAT binary);
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT string_agg(n::text, ',') FROM (SELECT n FROM upg_data.t WHERE s IS NOT NULL ORDER BY s) x;
SELECT string_agg(n::text, ',') FROM (SELECT n FROM upg_data.t WHERE t IS NOT NULL ORDER BY t) x;
SELECT string_agg(n::text, ',') FROM (SELECT n FROM upg_data.t WHERE k IS NOT NULL ORDER BY k) x;
SELECT string_agg(n::text, ',') FROM (SELECT n FROM upg_data.t WHERE u IS NOT NULL ORDER BY u) x;
SELECT n FROM upg_data.t WHERE g = (SELECT g FROM upg_data.t WHERE n = 7);
SELECT string_agg(n::text, ',') FROM (SELECT n FROM upg_data.t WHERE c IS NOT NULL ORDER BY c, n) x;
"
# upg_read DB FILE: what the data reads as, into FILE; fails on any error.
upg_read() { kpsql $PORT -d "$1" <<<"$UPG_READ" > "$2" && [ "$(grep -c . "$2")" -gt 200 ]; }

# upg_same_data DB PREFIX: DB reads as PREFIX.before said.
upg_same_data() { upg_read "$1" "$2.after" && cmp "$2.before" "$2.after"; }

# upg_compare NAME EXT FROM TO OLD_DB NEW_DB: install EXT FROM in OLD_DB,
# write data, update to TO; install TO fresh in NEW_DB; the catalogs are
# equal and the data reads the same.
upg_compare() {
    local name=$1 ext=$2 from=$3 to=$4 old=$5 new=$6
    upg_db "$old" && upg_db "$new" || return 1
    kpsql $PORT -d "$old" -c "CREATE EXTENSION $ext VERSION '$from'" -c "$UPG_WRITE" || return 1
    upg_read "$old" "$UPG_DIR/$name.before" || { echo "reading the data failed"; return 1; }
    kpsql $PORT -d "$old" -c "ALTER EXTENSION $ext UPDATE TO '$to'" || return 1
    kpsql $PORT -d "$new" -c "CREATE EXTENSION $ext VERSION '$to'" || return 1
    upg_catalog "$old" "$ext" > "$UPG_DIR/$name.updated" && upg_catalog "$new" "$ext" > "$UPG_DIR/$name.fresh" || return 1
    check "$name: the catalog after ALTER EXTENSION UPDATE $from -> $to equals a fresh $to ($(wc -l <"$UPG_DIR/$name.fresh") lines)" \
        diff -u "$UPG_DIR/$name.fresh" "$UPG_DIR/$name.updated"
    check "$name: data written under $from reads the same after the update (text, decoders, binary, index scans)" \
        upg_same_data "$old" "$UPG_DIR/$name"
}

if [ "$UPG_DEFAULT" != "$UPG_FIRST" ]; then
    upg_compare kid kid_upg "$UPG_FIRST" "$UPG_DEFAULT" upg_old upg_new
    # The extension's comment (\dx) comes from kid.control at CREATE
    # EXTENSION only: a database made under 0.1.0 has 0.1.0's (given here as
    # 0.1.0's kid.control had it), and the update sets the current one.
    upg_comment_of() { sed -n "s/^comment *= *'\(.*\)'/\1/p"; }
    upg_db upg_comment &&
        kpsql $PORT -d upg_comment -c "CREATE EXTENSION kid_upg VERSION '$UPG_FIRST'" \
            -c "COMMENT ON EXTENSION kid_upg IS 'k-ordered unique identifiers: sno, AT Protocol tid, koid, uid and codokey types'" \
            -c "ALTER EXTENSION kid_upg UPDATE TO '$UPG_DEFAULT'" >/dev/null
    expect_eq "kid: after the update from $UPG_FIRST the extension's comment is kid.control's" \
        "$(kpsql $PORT -d upg_comment -c "SELECT obj_description(oid, 'pg_extension') FROM pg_extension WHERE extname = 'kid_upg'")" \
        "$(upg_comment_of < kid.control)"
    # The update from 0.1.0 adopts the database where kid is preloaded (as
    # here), whatever state its relations are in: a materialized view not
    # populated holds no ids (it made the update fail before), an unlogged
    # table is read.  It says what it did in a WARNING (an extension script
    # shows no NOTICE): per lease line the columns read, the newest time and
    # the floor before and after.
    upg_db upg_states &&
        kpsql $PORT -d upg_states -c "CREATE EXTENSION kid_upg VERSION '$UPG_FIRST'" \
            -c "CREATE TABLE t (id atproto_tid PRIMARY KEY)" -c "INSERT INTO t SELECT tid_new() FROM generate_series(1, 10)" \
            -c "CREATE MATERIALIZED VIEW recent AS SELECT id FROM t WITH NO DATA" \
            -c "CREATE UNLOGGED TABLE u (id koid)" -c "INSERT INTO u SELECT koid_new()" >/dev/null
    upg_states_out=$(kpsql $PORT -d upg_states -c "SET TIME ZONE UTC" -c "ALTER EXTENSION kid_upg UPDATE TO '$UPG_DEFAULT'" 2>&1)
    expect_eq "kid: the update from $UPG_FIRST adopts a database with a materialized view not populated and an unlogged table" \
        "$(kpsql $PORT -d upg_states -c "SELECT string_agg(concat_ws(' ', how, (floors->>'atproto_tid')::timestamptz = (SELECT tid_to_timestamp(max(id)) FROM t),
            (floors->>'koid')::timestamptz = (SELECT koid_to_timestamp(id) FROM u)), ',')
            FROM kid_database_origin")" "adopted t t"
    expect_eq "kid: ... the update passes the adoption's rows on in a WARNING (the tid line: 1 column, its newest time)" \
        "$(grep -c -e '^WARNING:  updating kid from 0.1.0 adopted database "upg_states"$' \
            -e "^atproto_tid: 1 column, newest $(kpsql $PORT -d upg_states -c "SET TIME ZONE UTC" -c "SELECT tid_to_timestamp(max(id)) FROM t"), floor " \
            -e '^koid: 1 column, newest ' <<<"$upg_states_out")" 3
    # A foreign table (a wrapper without a handler: reading it would fail)
    # may hold ids above every id the adoption reads: the adoption stops, and
    # the update goes on without it (a WARNING says why) and records
    # 'updated', which refuses generation (in a database of kid itself:
    # test/server/37-pg_upgrade.sh) until an adoption by hand decides.
    upg_db upg_foreign &&
        kpsql $PORT -d upg_foreign -c "CREATE EXTENSION kid_upg VERSION '$UPG_FIRST'" \
            -c "CREATE TABLE t (id atproto_tid PRIMARY KEY)" -c "INSERT INTO t SELECT tid_new() FROM generate_series(1, 10)" \
            -c "CREATE FOREIGN DATA WRAPPER upg_nothing" -c "CREATE SERVER upg_elsewhere FOREIGN DATA WRAPPER upg_nothing" \
            -c "CREATE FOREIGN TABLE f (id koid) SERVER upg_elsewhere" >/dev/null
    upg_foreign_out=$(kpsql $PORT -d upg_foreign -c "ALTER EXTENSION kid_upg UPDATE TO '$UPG_DEFAULT'" 2>&1)
    expect_eq "kid: the update from $UPG_FIRST of a database with a foreign table completes" \
        "$(kpsql $PORT -d upg_foreign -c "SELECT extversion FROM pg_extension WHERE extname = 'kid_upg'")" "$UPG_DEFAULT"
    expect_eq "kid: ... names the foreign table and says the database was not adopted (WARNINGs)" \
        "$(grep -c -e '^WARNING:  kid_adopt_database() cannot read public.f.id: foreign table' \
            -e '^WARNING:  updating kid from 0.1.0 did not adopt database "upg_foreign": cannot adopt database "upg_foreign": it cannot read 1 column$' \
            <<<"$upg_foreign_out")" 2
    expect_eq "kid: ... records 'updated', not 'adopted'" \
        "$(kpsql $PORT -d upg_foreign -c "SELECT string_agg(how, ',' ORDER BY position) FROM kid_database_origin")" "updated"
    expect_eq "kid: ... adopted by hand once the foreign table's column is excluded" \
        "$(kpsql $PORT -d upg_foreign -c "SET client_min_messages = warning" -c "SELECT count(*) > 0 FROM kid_adopt_database(exclude => ARRAY['public.f.id'])" \
            -c "SELECT string_agg(how, ',' ORDER BY position) || ' ' || (tid_new() > (SELECT max(id) FROM t)) FROM kid_database_origin")" "t
updated,adopted true"
else
    echo "(default version is $UPG_FIRST: no upgrade of kid to test yet; the made-up 0.1.1 below tests the machinery)"
fi

# ---------------------------------------------------------------- the machinery, on a made-up 0.1.1
UPG_NEXT_STATEMENTS=(
    "COMMENT ON FUNCTION koid_new() IS 'upgrade test: a changed comment';"
    "CREATE FUNCTION kid_upgrade_probe(koid) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS 'SELECT \$1::bigint';"
    "REVOKE EXECUTE ON FUNCTION tid_clock_id(atproto_tid) FROM PUBLIC;"
    "ALTER FUNCTION koid_to_timestamp(koid) COST 3;"
)
{
    printf '%s\n' "${UPG_NEXT_STATEMENTS[@]}"
} > "$UPG_DIR/kid--0.1.0--0.1.1.sql"
{
    cat "sql/kid--$UPG_FIRST.sql"
    printf '%s\n' "${UPG_NEXT_STATEMENTS[@]}"
} > "$UPG_DIR/kid--0.1.1.sql"
# One faulty upgrade script per statement: that statement left out.
upg_bad_files=()
for i in "${!UPG_NEXT_STATEMENTS[@]}"; do
    for j in "${!UPG_NEXT_STATEMENTS[@]}"; do
        [ "$i" = "$j" ] || echo "${UPG_NEXT_STATEMENTS[$j]}"
    done > "$UPG_DIR/kid--0.1.0--bad$i.sql"
    upg_bad_files+=("$UPG_DIR/kid--0.1.0--bad$i.sql")
done
upg_install_ext kid_upgnext 0.1.1 "sql/kid--$UPG_FIRST.sql" "$UPG_DIR/kid--0.1.0--0.1.1.sql" "$UPG_DIR/kid--0.1.1.sql" \
    "${upg_bad_files[@]}"

upg_compare next kid_upgnext "$UPG_FIRST" 0.1.1 upg_next_old upg_next_new

# Each faulty upgrade leaves a catalog that differs from the fresh 0.1.1 (the
# extension's version line aside) in the object of the missing statement.
upg_catches() {
    local i=$1 object=$2 diffs
    upg_db upg_bad && kpsql $PORT -d upg_bad -c "CREATE EXTENSION kid_upgnext VERSION '$UPG_FIRST'" \
        -c "ALTER EXTENSION kid_upgnext UPDATE TO 'bad$i'" || return 1
    upg_catalog upg_bad kid_upgnext > "$UPG_DIR/bad$i.updated" || return 1
    diffs=$(diff "$UPG_DIR/next.fresh" "$UPG_DIR/bad$i.updated" | grep '^[<>]' | grep -v '^[<>] extension: ')
    [ -n "$diffs" ] || { echo "no difference found"; return 1; }
    grep -qv -F -- "$object" <<<"$diffs" && { echo "differences beyond $object:"; echo "$diffs"; return 1; }
    return 0
}
check "a faulty upgrade is caught: a comment left out" upg_catches 0 "koid_new()"
check "a faulty upgrade is caught: a new function left out" upg_catches 1 "kid_upgrade_probe(koid)"
check "a faulty upgrade is caught: a REVOKE left out" upg_catches 2 "tid_clock_id(atproto_tid)"
check "a faulty upgrade is caught: a changed definition (COST) left out" upg_catches 3 "koid_to_timestamp(koid)"

kid_finish
