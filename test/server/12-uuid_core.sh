#!/usr/bin/env bash
# kid's uuid door beside PostgreSQL's own uuid, on every major: kid adds
# functions and operators for plain uuid (src/sql/uuidv7.sql) and members
# to core's uuid operator families, and each major adds uuid functions and
# casts of its own (17 uuid_extract_*, 18 uuidv4 and uuidv7, 19 the bytea
# casts); none may shadow, capture or make ambiguous another.  In a
# database with kid created, on the main cluster (kid preloaded):
#   - no routine or operator of kid's has the signature of one of
#     pg_catalog's (pg_catalog comes first in every search path: kid's
#     would never be called), and no routine of kid's is named like one of
#     core's uuid routines (an overload there can capture core's calls,
#     those with an untyped literal first);
#   - no cast from or to uuid is kid's;
#   - the members of core's uuid families that are kid's or not
#     (uuid, uuid) are exactly kid's, as src/sql/uuidv7.sql adds them;
#   - each call of core's uuid API that the major has, and each of kid's
#     uuid door, resolves to the functions and operators it names: core's
#     to pg_catalog's, kid's to kid's, none ambiguous;
#   - on 18 and 19, the major's own uuid regression test
#     (src/test/regress/sql/uuid.sql of its source, as
#     test/server/12-catalog_sanity.sh takes it) passes unchanged.
set -uo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
source test/server/lib/regress_files.sh

ensure_main_cluster || exit 1
need "a database uuid_core with kid" main_db uuid_core || { kid_finish; exit 1; }
q() { kpsql "$PORT" -d uuid_core "$@"; }
major=$(q -c "SELECT current_setting('server_version_num')::int / 10000")
echo "-- PostgreSQL $major with kid $(q -c "SELECT extversion FROM pg_extension WHERE extname = 'kid'")"

# q_member SQL [psql args...]: SQL after pg_temp.kid_member(CLASS, OID),
# whether an object is one of the extension kid's (made again in each
# session: pg_temp is the session's).
MEMBER_FN="CREATE FUNCTION pg_temp.kid_member(regclass, oid) RETURNS boolean LANGUAGE sql STABLE
    RETURN EXISTS (SELECT FROM pg_depend WHERE classid = \$1 AND objid = \$2 AND deptype = 'e'
                   AND refclassid = 'pg_extension'::regclass
                   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'kid'))"
q_member() {
    local sql=$1
    shift
    q -c "$MEMBER_FN" -c "$sql" "$@"
}

# ---------------------------------------------------------------- the catalog
expect_eq "no routine or operator of kid's has the signature of one of pg_catalog's (it would never be called)" \
    "$(q_member "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_proc c ON c.proname = p.proname
                   AND c.proargtypes = p.proargtypes AND c.pronamespace = 'pg_catalog'::regnamespace AND c.oid <> p.oid
                 WHERE pg_temp.kid_member('pg_proc', p.oid)
                 UNION ALL
                 SELECT o.oid::regoperator::text FROM pg_operator o JOIN pg_operator c ON c.oprname = o.oprname
                   AND c.oprleft = o.oprleft AND c.oprright = o.oprright AND c.oprnamespace = 'pg_catalog'::regnamespace AND c.oid <> o.oid
                 WHERE pg_temp.kid_member('pg_operator', o.oid)")" ""

# Core's uuid routines: pg_catalog's that take or return a uuid, or are
# named after it (gen_random_uuid(), uuidv7(), 19's uuid(bytea) and
# bytea(uuid)).
expect_eq "no routine of kid's is named like one of core's uuid routines" \
    "$(q_member "SELECT p.oid::regprocedure || ' (core: ' || string_agg(DISTINCT c.oid::regprocedure::text, ', ') || ')'
                 FROM pg_proc p JOIN pg_proc c ON c.proname = p.proname AND c.pronamespace = 'pg_catalog'::regnamespace
                 WHERE pg_temp.kid_member('pg_proc', p.oid)
                   AND ('uuid'::regtype = ANY (c.proargtypes::oid[]) OR c.prorettype = 'uuid'::regtype OR c.proname ~ 'uuid')
                 GROUP BY p.oid")" ""

expect_eq "no cast from or to uuid is kid's, and each is core's" \
    "$(q_member "SELECT format('%s -> %s', castsource::regtype, casttarget::regtype) FROM pg_cast c
                 WHERE 'uuid'::regtype IN (castsource, casttarget)
                   AND (pg_temp.kid_member('pg_cast', c.oid)
                        OR (castfunc <> 0 AND (SELECT pronamespace FROM pg_proc WHERE oid = castfunc) <> 'pg_catalog'::regnamespace))")" ""

# The members of the families of core's uuid classes (btree and hash
# uuid_ops, BRIN's three) that are kid's, or whose types are not
# (uuid, uuid): src/sql/uuidv7.sql's, and nothing else.  tstz is
# timestamptz; "kid" or "core" is whose operator or function it is (the
# btree comparison of uuid_timestamptz_ops, kid's class, is core's
# timestamptz_cmp).
members=$(q_member "SELECT f.opfname || ' ' || m.amname || ' ' || kind || ' ' || num || ' (' || l || ', ' || r || ') ' || whose
    FROM (SELECT amopfamily AS fam, 'op' AS kind, amopstrategy AS num, amoplefttype AS lt, amoprighttype AS rt,
                 amopopr::regoperator::text AS obj, pg_temp.kid_member('pg_operator', amopopr) AS kids
          FROM pg_amop
          UNION ALL
          SELECT amprocfamily, 'fn', amprocnum, amproclefttype, amprocrighttype,
                 amproc::regprocedure::text, pg_temp.kid_member('pg_proc', amproc)
          FROM pg_amproc) x
    JOIN pg_opfamily f ON f.oid = x.fam JOIN pg_am m ON m.oid = f.opfmethod
    CROSS JOIN LATERAL (SELECT replace(format_type(x.lt, NULL), 'timestamp with time zone', 'tstz') AS l,
                               replace(format_type(x.rt, NULL), 'timestamp with time zone', 'tstz') AS r) t
    CROSS JOIN LATERAL (SELECT replace(x.obj, 'timestamp with time zone', 'tstz') || CASE WHEN x.kids THEN ' kid' ELSE ' core' END AS whose) o
    WHERE f.oid IN (SELECT opcfamily FROM pg_opclass WHERE opcintype = 'uuid'::regtype AND opcnamespace = 'pg_catalog'::regnamespace)
      AND (x.kids OR (x.lt, x.rt) <> ('uuid'::regtype, 'uuid'::regtype))
    ORDER BY f.opfname, m.amname, l, r, kind DESC, num")
expected_members="uuid_minmax_ops brin op 1 (uuid, tstz) <(uuid,tstz) kid
uuid_minmax_ops brin op 2 (uuid, tstz) <=(uuid,tstz) kid
uuid_minmax_ops brin op 3 (uuid, tstz) =(uuid,tstz) kid
uuid_minmax_ops brin op 4 (uuid, tstz) >=(uuid,tstz) kid
uuid_minmax_ops brin op 5 (uuid, tstz) >(uuid,tstz) kid
uuid_ops btree op 1 (tstz, tstz) ~<~(tstz,tstz) kid
uuid_ops btree op 2 (tstz, tstz) ~<=~(tstz,tstz) kid
uuid_ops btree op 3 (tstz, tstz) ~=~(tstz,tstz) kid
uuid_ops btree op 4 (tstz, tstz) ~>=~(tstz,tstz) kid
uuid_ops btree op 5 (tstz, tstz) ~>~(tstz,tstz) kid
uuid_ops btree fn 1 (tstz, tstz) timestamptz_cmp(tstz,tstz) core
uuid_ops btree op 1 (tstz, uuid) <(tstz,uuid) kid
uuid_ops btree op 2 (tstz, uuid) <=(tstz,uuid) kid
uuid_ops btree op 3 (tstz, uuid) =(tstz,uuid) kid
uuid_ops btree op 4 (tstz, uuid) >=(tstz,uuid) kid
uuid_ops btree op 5 (tstz, uuid) >(tstz,uuid) kid
uuid_ops btree fn 1 (tstz, uuid) timestamptz_cmp_uuid(tstz,uuid) kid
uuid_ops btree op 1 (uuid, tstz) <(uuid,tstz) kid
uuid_ops btree op 2 (uuid, tstz) <=(uuid,tstz) kid
uuid_ops btree op 3 (uuid, tstz) =(uuid,tstz) kid
uuid_ops btree op 4 (uuid, tstz) >=(uuid,tstz) kid
uuid_ops btree op 5 (uuid, tstz) >(uuid,tstz) kid
uuid_ops btree fn 1 (uuid, tstz) uuid_cmp_timestamptz(uuid,tstz) kid"
check "the members of core's uuid families that are kid's or not (uuid, uuid) are src/sql/uuidv7.sql's" \
    diff -u <(echo "$expected_members") <(echo "$members")

# ----------------------------------------------------------- how calls resolve
# Each call, parsed into a view: the functions and operators it resolved
# to are the funcid and opno fields of the view's stored parse tree (not
# pg_depend, which records nothing for pg_catalog's objects: they are
# pinned), each with whose it is (kid, core, or another's).  A call that
# does not resolve (not unique, no such function) gives its error instead.
# u is a uuid column, b a bytea one.
q_member "CREATE TABLE uuid_core_t (u uuid, b bytea)" \
    -c "CREATE FUNCTION uuid_core_calls(expr text) RETURNS text LANGUAGE plpgsql AS \$f\$
        DECLARE called text;
        BEGIN
            EXECUTE format('CREATE VIEW uuid_core_v AS SELECT %s AS x FROM uuid_core_t', expr);
            SELECT string_agg(DISTINCT obj, ', ' ORDER BY obj) INTO called FROM (
                SELECT replace(coalesce(p.oid::regprocedure::text, o.oid::regoperator::text), 'timestamp with time zone', 'tstz')
                       || CASE WHEN pg_temp.kid_member(CASE WHEN p.oid IS NULL THEN 'pg_operator' ELSE 'pg_proc' END, coalesce(p.oid, o.oid))
                               THEN ' kid'
                               WHEN coalesce(p.pronamespace, o.oprnamespace) = 'pg_catalog'::regnamespace THEN ' core'
                               ELSE ' other' END AS obj
                FROM pg_rewrite w
                CROSS JOIN regexp_matches(w.ev_action::text, ':(funcid|opno) ([0-9]+)', 'g') m
                LEFT JOIN pg_proc p ON m[1] = 'funcid' AND p.oid = m[2]::oid
                LEFT JOIN pg_operator o ON m[1] = 'opno' AND o.oid = m[2]::oid
                WHERE w.ev_class = 'uuid_core_v'::regclass) s;
            DROP VIEW uuid_core_v;
            RETURN coalesce(called, 'nothing');
        EXCEPTION WHEN others THEN
            RETURN 'ERROR: ' || SQLERRM;
        END \$f\$" >/dev/null ||
    { check "the call resolver" false; kid_finish; exit 1; }

# FROM-MAJOR|CALL|WHAT IT RESOLVES TO: core's uuid API (the major it came
# with), then kid's door.  The untyped literals matter most: an overload
# of kid's taking text would win them from core's uuid (the string
# category is preferred), as uuidv7_to_timestamp(text) does by design.
# A type's name called on an untyped literal, uuid('...'), is its input
# cast whatever functions of that name exist: nothing is called.
V7=019ca965-0895-7abc-8123-456789abcdef
CALLS="15|u = u|=(uuid,uuid) core
15|u <> '$V7'|<>(uuid,uuid) core
15|'$V7' < u|<(uuid,uuid) core
15|u IN ('$V7', '11111111-1111-1111-1111-111111111111')|=(uuid,uuid) core
15|gen_random_uuid()|gen_random_uuid() core
15|uuid('$V7')|nothing
17|uuid_extract_version(u)|uuid_extract_version(uuid) core
17|uuid_extract_version('11111111-1111-5111-8111-111111111111')|uuid_extract_version(uuid) core
17|uuid_extract_timestamp(u)|uuid_extract_timestamp(uuid) core
17|uuid_extract_timestamp('$V7')|uuid_extract_timestamp(uuid) core
18|uuidv4()|uuidv4() core
18|uuidv7()|uuidv7() core
18|uuidv7(interval '1 day')|uuidv7(interval) core
18|uuidv7('-1 day')|uuidv7(interval) core
19|u::bytea|bytea(uuid) core
19|b::uuid|uuid(bytea) core
19|bytea(u)|bytea(uuid) core
19|uuid(b)|uuid(bytea) core
19|uuid('\\x019ca96508957abc8123456789abcdef'::bytea)|uuid(bytea) core
19|encode(u::bytea, 'base32hex')|bytea(uuid) core, encode(bytea,text) core
19|decode('06EAIP88ILTBP0938LJOJAUDTS======', 'base32hex')::uuid|decode(text,text) core, uuid(bytea) core
15|u >= now()|>=(uuid,tstz) kid, now() core
15|now() < u|<(tstz,uuid) kid, now() core
15|u < timestamptz '2026-03-01 12:00+00'|<(uuid,tstz) kid
15|u >= '2026-03-01 12:00+00'|ERROR: invalid input syntax for type uuid: \"2026-03-01 12:00+00\"
15|uuidv7_to_timestamp(u)|uuidv7_to_timestamp(uuid) kid
15|uuidv7_to_timestamp('$V7')|uuidv7_to_timestamp(text) kid
15|uuidv7_from_timestamp(now())|now() core, uuidv7_from_timestamp(tstz) kid
15|uuidv7_new()|uuidv7_new() kid
15|uuidv7_new_with_time(now())|now() core, uuidv7_new_with_time(tstz) kid
15|uuidv7_safe_horizon()|uuidv7_safe_horizon() kid"
while IFS='|' read -r from call want; do
    [ "$major" -ge "$from" ] || continue
    got=$(q_member "SELECT uuid_core_calls(\$\$$call\$\$)")
    expect_eq "$call resolves to $want" "$got" "$want"
done <<<"$CALLS"

# ------------------------------------------------- the major's own uuid test
regress_files sql/uuid.sql expected/uuid.out
case $? in
0)
    # pg_regress makes its own database, kid created in it, on the main
    # cluster, where kid is preloaded.
    W=$KID_TMP/uuid
    mkdir -p "$W/sql" "$W/expected" && cp "$KID_TMP/regress/sql/uuid.sql" "$W/sql/" &&
        cp "$KID_TMP/regress/expected/uuid.out" "$W/expected/" && chmod -R a+rX "$W" && chown -R postgres: "$W"
    expect_eq "kid is preloaded in the server the uuid test runs on" \
        "$(q -c "SELECT 'kid' = ANY (string_to_array(current_setting('shared_preload_libraries'), ','))")" t
    regress=$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress
    as_postgres "$regress" --inputdir="$W" --outputdir="$W" --expecteddir="$W" \
        --host="$KID_MAIN_SOCK" --port="$KID_MAIN_PORT" --user=postgres --dbname=kid_uuid_regress \
        --load-extension=kid uuid >"$W/pg_regress.log" 2>&1
    # pg_regress's own verdict, and kid was in the database it ran in.
    if ! grep -q '^ok [0-9]* *- uuid ' "$W/pg_regress.log"; then
        cat "$W/pg_regress.log"
        head -60 "$W/regression.diffs" 2>/dev/null
    fi
    check "PostgreSQL $major's own uuid regression test ($REGRESS_TARBALL) passes unchanged with kid created" \
        grep -q '^ok [0-9]* *- uuid ' "$W/pg_regress.log"
    as_postgres "$PG_BIN/psql" -X -q -h "$KID_MAIN_SOCK" -p "$KID_MAIN_PORT" -U postgres -d postgres \
        -c "DROP DATABASE IF EXISTS kid_uuid_regress"
    ;;
2)
    echo "# PostgreSQL's own uuid regression test not run on $REGRESS_WHY"
    ;;
*)
    check "the uuid regression test of PostgreSQL $major's source (test/tools/pg_source.sh)" false
    ;;
esac

kpsql "$PORT" -d postgres -c "DROP DATABASE uuid_core"
kid_finish
