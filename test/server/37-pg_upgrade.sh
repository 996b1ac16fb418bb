#!/usr/bin/env bash
# A database moved to a new cluster (runs alone or from run-all.sh): by
# pg_upgrade, and by pg_dump | pg_restore.  kid.lease and kid's WAL stay in
# the old data directory, so the new cluster's generators start at its own
# clock; the database carries kid_database_origin instead.
#
# The new clusters are this PG_CONFIG's major with the true clock; the old
# cluster is, per pass of make test: 15 -> 15 on the 15 pass, 17 -> 17 on the
# 17 pass (its chroot has only 17), 15 -> 18 on the 18 pass (KID_PG15_CONFIG,
# else Debian's 15), and on the 19 pass 18 -> 19, 17 -> 19 and 15 -> 19, one
# after the other (test/tools/pg19.sh's chroot holds sid's 18, trixie's 17
# and bookworm's 15 beside 19; kid is built for each here, in a copy of the
# tree).  Each old cluster has kid installed and runs under libfaketime with
# its clock 1 hour ahead; it makes ids of every scheme, is dumped (pg_dump
# -Fc) and stopped cleanly.  Each check names the old major ("from 18: ..."),
# the old server is checked to be of that major, and a last check says that
# the pass went through from each of its old majors into its own.
#   - pg_upgrade: generation in the upgraded database is refused (55000, the
#     hint names kid_adopt_database()), in a read-only transaction too;
#     kid_adopt_database() stops (55000) on the koids an hour ahead (taken,
#     koid_new() would fail for an hour: more than kid.koid_max_clock_wait_ms);
#     with max_ahead => '2 hours' the floors are the newest stored times, a
#     WARNING names each line raised ahead of the clock, every new
#     atproto_tid, uid and uid_global sorts above every old one, sno goes on
#     on its other timeline (tick 1) with no duplicate, koid refuses while its
#     clock is behind the floor (55000).  A second database still on 0.1.0's
#     SQL is updated after pg_upgrade (ALTER EXTENSION kid UPDATE, what
#     pg_upgrade's update_extensions.sql runs) with the server's
#     kid.koid_max_clock_wait_ms an hour: the update adopts it, says so in a
#     WARNING with its rows, and its new tids sort above its old ones at once.
#     A third database on 0.1.0 also holds ids far ahead of the clock (a
#     koid of 2036, an AT Protocol record key of 2041): its update goes on
#     but does not adopt it (a WARNING, an 'updated' row, generation
#     refused, no floor raised); kid_adopt_database() refuses them too,
#     until told to exclude the record keys' column and take the koid
#     (max_ahead): the koid floor is then 2036, the tid floor the old tids'.
#   - pg_restore of the dump into a fresh cluster: the same.
# It installs kid into the old cluster's PostgreSQL (another major, or
# 0.1.0's script into this one), which no other test may see meanwhile:
# kid-test: alone
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

faketime_set "$FT_FILE" "+3600"

# major PG_CONFIG: its PostgreSQL's major, the number before the first dot
# or letter ("19rc1" before a release).
major() { "$1" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p'; }
NEW_MAJOR=$(major "$PG_CONFIG")
NEW_BIN=$PG_BIN
# The majors upgraded from, in this order.  On 19 nothing else installs kid
# into the old majors of the chroot (test/run-all.sh installs it into 19):
# the test builds it for each (BUILD_OLD).
BUILD_OLD=
case $NEW_MAJOR in
15 | 17) OLD_MAJORS=$NEW_MAJOR ;;
19) OLD_MAJORS="18 17 15" BUILD_OLD=1 ;;
*) OLD_MAJORS=15 ;;
esac
# old_config MAJOR: the pg_config of the old major MAJOR.
old_config() {
    if [ "$1" = "$NEW_MAJOR" ]; then
        command -v "$PG_CONFIG"
    elif [ "$1" = 15 ] && [ -n "${KID_PG15_CONFIG:-}" ]; then
        echo "$KID_PG15_CONFIG"
    else
        echo "/usr/lib/postgresql/$1/bin/pg_config"
    fi
}
OPORT=54361 NPORT=54362 RPORT=54363

# built_for CONFIG: kid built for CONFIG's PostgreSQL and installed into it,
# from a copy of the tree (the tree's own build, for this PG_CONFIG, is left
# as it is; the Makefile's .kid-built-for rebuilds the copy for each major).
KID_SRC=$KID_TMP/src
built_for() {
    if [ ! -d "$KID_SRC" ]; then
        mkdir -p "$KID_SRC" &&
            tar -c --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=.kid-built-for \
                --exclude=node_modules --exclude=./test/fuzz --exclude=./results . | tar -x -C "$KID_SRC" || return 1
    fi
    if ! { make -C "$KID_SRC" -s -j2 PG_CONFIG="$1" && make -C "$KID_SRC" -s install PG_CONFIG="$1"; } \
        >>"$KID_TMP/build.log" 2>&1; then
        tail -20 "$KID_TMP/build.log"
        return 1
    fi
}

# A database on 0.1.0 needs 0.1.0's install script, which make install does
# not install (only the current one and the upgrade scripts): copied into
# each old PostgreSQL that lacks it, for the length of the test.
OLD_010_COPIES=
trap 'trap "" INT TERM PIPE; rm -f $OLD_010_COPIES; kid_cleanup' EXIT

oq() { PG_BIN=$OLD_BIN kpsql $OPORT "$@"; }
nq() { kpsql $NPORT "$@"; }
rq() { kpsql $RPORT "$@"; }
# server_major SERVER_QUERY_FUNCTION: the major of the server it queries.
server_major() { $1 -d postgres -c "SELECT current_setting('server_version_num')::int / 10000"; }

# uuid_members SERVER_QUERY_FUNCTION DB: how many uuid-timestamptz members
# PostgreSQL's uuid_ops (btree, 15 with the timestamptz class) and
# uuid_minmax_ops (BRIN, 5) hold; uuid_scan: whether id >= t is an index
# condition, and its count (51 of the 110 uuids are from 01:00 on).
uuid_members() {
    $1 -d "$2" -c "SELECT count(*) FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
        WHERE f.opfname IN ('uuid_ops', 'uuid_minmax_ops') AND 'timestamptz'::regtype IN (o.amoplefttype, o.amoprighttype)"
}
uuid_scan() {
    echo "$($1 -d "$2" -c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off" \
        -c "EXPLAIN (COSTS OFF) SELECT * FROM t_uuid WHERE id >= '2026-01-01 01:00+00'::timestamptz" | grep -c 'Index Cond: (id >=')" \
        "$($1 -d "$2" -c "SELECT count(*) FROM t_uuid WHERE id >= '2026-01-01 01:00+00'::timestamptz")"
}
# The tables every database gets, and the ids the old cluster makes.
TABLES="
CREATE DOMAIN tid_domain AS atproto_tid;
CREATE TABLE t_sno (id sno PRIMARY KEY, old boolean NOT NULL);
CREATE TABLE t_tid (id atproto_tid PRIMARY KEY, old boolean NOT NULL);
CREATE TABLE t_koid (id koid PRIMARY KEY, old boolean NOT NULL);
CREATE TABLE t_uid (id uid PRIMARY KEY, old boolean NOT NULL);
CREATE TABLE t_gid (id uid_global PRIMARY KEY, old boolean NOT NULL);
CREATE TABLE t_domain (id tid_domain PRIMARY KEY, old boolean NOT NULL);
CREATE TABLE t_array (ids uid[], old boolean NOT NULL);
INSERT INTO t_sno SELECT sno_new(), true FROM generate_series(1, 1000);
INSERT INTO t_tid SELECT tid_new(), true FROM generate_series(1, 1000);
INSERT INTO t_koid SELECT koid_new(), true FROM generate_series(1, 1000);
INSERT INTO t_uid SELECT uid_new(), true FROM generate_series(1, 1000);
INSERT INTO t_gid SELECT uid_global_new(), true FROM generate_series(1, 1000);
INSERT INTO t_domain SELECT tid_new(), true FROM generate_series(1, 10);
INSERT INTO t_array SELECT ARRAY[uid_new(), uid_new()], true FROM generate_series(1, 10);"

# parts_config SERVER_QUERY_FUNCTION: t_parts's configuration, partitions and rows.
parts_config() {
    $1 -d app -c "SELECT format('%s %s %s %s %s; %s partitions; %s rows', c.parent, c.every, c.premake, c.retain, c.time_zone,
                     (SELECT count(*) FROM pg_inherits WHERE inhparent = 't_parts'::regclass), (SELECT count(*) FROM t_parts))
                  FROM kid_partition_config c"
}

# refused SERVER_QUERY_FUNCTION DB LABEL: every generator refuses with 55000 and the hint.
refused() {
    local q=$1 db=$2 label=$3 f out
    for f in "sno_new()" "tid_new()" "koid_new()" "uid_new()" "uid_global_new()" "tid_new_with_time(now())"; do
        out=$($q -d "$db" -v VERBOSITY=verbose -c "SELECT $f" 2>&1)
        expect_eq "$label: $f refused (55000, hint kid_adopt_database())" \
            "$(grep -c -e '^ERROR:  55000: cannot generate .* in database "'"$db"'": it came from another cluster' \
                -e '^HINT:  Run SELECT \* FROM kid_adopt_database(); in database "'"$db"'"' <<<"$out")" 2
    done
    out=$($q -d "$db" -c "BEGIN READ ONLY" -c "SELECT tid_new()" 2>&1)
    expect_eq "$label: refused in a read-only transaction too" "$(grep -c 'ERROR:  cannot generate atproto_tid ids' <<<"$out")" 1
}

# adopted SERVER_QUERY_FUNCTION DB LABEL SYSID ORIGIN_ROWS UUID_COLUMNS:
# kid_adopt_database() stops on the koids an hour ahead; told to take them,
# it finds the newest old times in every column (UUID_COLUMNS for the uuid
# line: t_uuid's, and one per partition of t_parts, each read on its own)
# and raises the floors (a WARNING per line raised ahead of the clock); then
# new ids sort above the old.
adopted() {
    local q=$1 db=$2 label=$3 out
    out=$($q -d "$db" -v VERBOSITY=verbose -c "SELECT * FROM kid_adopt_database()" 2>&1)
    expect_eq "$label: kid_adopt_database() stops (55000) on the koids an hour ahead, more than kid.koid_max_clock_wait_ms" \
        "$(grep -c -e '^WARNING:  01000: public.t_koid.id holds 1000 koid ids more than kid.koid_max_clock_wait_ms (1000 ms) ahead of this server.s clock' \
            -e '^ERROR:  55000: cannot adopt database "'"$db"'": 1 column holds ids too far ahead of this server.s clock$' <<<"$out")" 2
    expect_eq "$label: with max_ahead => '2 hours', kid_adopt_database() finds the newest stored time per lease line" \
        "$($q -d "$db" -c "CREATE TEMP TABLE a AS SELECT * FROM kid_adopt_database(max_ahead => '2 hours')" 2>"$KID_TMP/adopt-$label.err" \
            -c "SELECT concat_ws(' ', (SELECT newest FROM a WHERE line = 'sno tick 0'), (SELECT newest FROM a WHERE line = 'atproto_tid'),
                (SELECT newest FROM a WHERE line = 'koid'), (SELECT newest FROM a WHERE line = 'uid'))
                || ' ' || (SELECT string_agg(line || ':' || columns, ',' ORDER BY line) FROM a WHERE columns > 0)
                || ' ' || (SELECT bool_and(floor_after = newest) FROM a WHERE newest IS NOT NULL)")" \
        "$OLD_NEWEST atproto_tid:2,koid:1,sno tick 0:1,sno tick 1:1,uid:3,uuid:$6 true"
    expect_eq "$label: ... a WARNING for each line it raised an hour ahead (sno tick 0, atproto_tid, koid, uid, uuid), koid_new()'s failing" \
        "$(grep -c -e '^WARNING:  kid_adopt_database() raised the sno tick 0 floor to ' -e '^WARNING:  kid_adopt_database() raised the atproto_tid floor to ' \
            -e '^WARNING:  kid_adopt_database() raised the koid floor to ' -e '^WARNING:  kid_adopt_database() raised the uid floor to ' \
            -e '^WARNING:  kid_adopt_database() raised the uuid floor to ' \
            -e '^DETAIL:  koid_new() fails with ERROR 55000, in every database of this server, until the clock is within kid.koid_max_clock_wait_ms (1000 ms) of it.$' \
            "$KID_TMP/adopt-$label.err")" 6
    expect_eq "$label: the adoption is recorded" \
        "$($q -d "$db" -c "SELECT string_agg(how || ':' || (system_identifier = $4), ' ' ORDER BY position) FROM kid_database_origin")" "$5"
    local uuid_top
    uuid_top=$($q -d "$db" -c "SELECT max(id::text) FROM t_uuid")
    $q -d "$db" -c "INSERT INTO t_sno SELECT sno_new(), false FROM generate_series(1, 1000)" \
        -c "INSERT INTO t_tid SELECT tid_new(), false FROM generate_series(1, 1000)" \
        -c "INSERT INTO t_uid SELECT uid_new(), false FROM generate_series(1, 1000)" \
        -c "INSERT INTO t_gid SELECT uid_global_new(), false FROM generate_series(1, 1000)" \
        -c "INSERT INTO t_uuid SELECT uuidv7_new() FROM generate_series(1, 1000)"
    expect_eq "$label: every new atproto_tid, uid and uid_global sorts above every old one" \
        "$($q -d "$db" -c "SELECT (SELECT min(id) FROM t_tid WHERE NOT old) > (SELECT max(id) FROM t_tid WHERE old)
            AND (SELECT min(id) FROM t_uid WHERE NOT old) > (SELECT max(id) FROM t_uid WHERE old)
            AND (SELECT min(id) FROM t_gid WHERE NOT old) > (SELECT max(id) FROM t_gid WHERE old)
            AND (SELECT count(*) FROM t_tid WHERE NOT old) = 1000")" t
    expect_eq "$label: every new uuidv7_new() id sorts above every old one (the uuid line's floor)" \
        "$($q -d "$db" -c "SELECT count(*) FROM t_uuid WHERE id::text > '$uuid_top'")" 1000
    expect_eq "$label: new sno ids are on the other timeline (tick 1), old ones on tick 0, none repeated" \
        "$($q -d "$db" -c "SELECT string_agg(DISTINCT old || ':' || sno_tick(id), ' ') || ' ' || count(DISTINCT id) FROM t_sno")" \
        "false:1 true:0 2000"
    expect_eq "$label: koid refuses while the clock is behind the floor (55000)" \
        "$($q -d "$db" -v VERBOSITY=verbose -c "SET kid.koid_max_clock_wait_ms = 0" -c "SELECT koid_new()" 2>&1 | grep -c '^ERROR:  55000: ')" 1
}

# upgrade_from MAJOR: the old cluster of PostgreSQL MAJOR, its pg_upgrade
# and its dump restored, into this PG_CONFIG's major; "OLD->NEW" (the
# majors the two servers said they were) added to UPGRADED_FROM once the
# upgraded cluster is up.  Returns early when it cannot go on (a failed
# check says why).
UPGRADED_FROM=
upgrade_from() {
    OLD_MAJOR=$1
    OLD_CONFIG=$(old_config "$OLD_MAJOR")
    KID_CHECK_PREFIX="from $OLD_MAJOR: "
    if [ ! -x "$OLD_CONFIG" ]; then
        check "PostgreSQL $OLD_MAJOR is installed ($OLD_CONFIG; on 19 test/tools/pg19.sh installs it)" false
        return
    fi
    OLD_BIN=$("$OLD_CONFIG" --bindir)
    echo "(old: $("$OLD_BIN/postgres" --version); new: $("$NEW_BIN/postgres" --version))"
    if [ -n "$BUILD_OLD" ]; then
        local build_start=$SECONDS built
        need "kid built for PostgreSQL $OLD_MAJOR in a copy of the tree, and installed into it" built_for "$OLD_CONFIG"
        built=$?
        BUILD_SECONDS=$((SECONDS - build_start))
        [ "$built" = 0 ] || return
    fi
    # kid in the old PostgreSQL must be this tree's (on the 18 pass
    # test/run-all.sh on 15 installed it: make test runs 15 first and passes
    # its pg_config on).
    if ! cmp -s sql/kid--0.2.0.sql "$("$OLD_CONFIG" --sharedir)/extension/kid--0.2.0.sql" ||
        [ ! -f "$("$OLD_CONFIG" --pkglibdir)/kid.so" ]; then
        check "this tree's kid is installed in the old PostgreSQL $OLD_MAJOR ($OLD_CONFIG; set KID_PG15_CONFIG)" false
        return
    fi
    local old_010 old_server_major
    old_010="$("$OLD_CONFIG" --sharedir)/extension/kid--0.1.0.sql"
    if [ ! -e "$old_010" ]; then
        cp sql/kid--0.1.0.sql "$old_010"
        OLD_010_COPIES="$OLD_010_COPIES $old_010"
    fi

    # The old cluster, with the old binaries (cluster_init runs PG_BIN's initdb).
    PG_BIN=$OLD_BIN cluster_init old$OLD_MAJOR $OPORT
    PG_BIN=$OLD_BIN faketime_cluster_start old$OLD_MAJOR --fake-monotonic || exit 1
    old_server_major=$(server_major oq)
    expect_eq "old cluster: its server is PostgreSQL $OLD_MAJOR" "$old_server_major" "$OLD_MAJOR"
    oq -d postgres -c "CREATE DATABASE app" -c "CREATE DATABASE app010" -c "CREATE DATABASE app010_ahead"
    oq -d app -c "CREATE EXTENSION kid" -c "$TABLES"
    # A uuid column served by kid's operators in PostgreSQL's uuid_ops
    # (src/sql/uuidv7.sql): 100 version 7 uuids a minute apart from 2026-01-01,
    # 10 from uuidv7_new() (the old clock, 1 h ahead: adoption finds them).
    oq -d app -c "CREATE TABLE t_uuid (id uuid PRIMARY KEY)" \
        -c "INSERT INTO t_uuid SELECT uuidv7_from_timestamp(timestamptz '2026-01-01 00:00+00' + i * interval '1 minute') FROM generate_series(1, 100) i" \
        -c "INSERT INTO t_uuid SELECT uuidv7_new() FROM generate_series(1, 10)"
    oq -d app010 -c "CREATE EXTENSION kid VERSION '0.1.0'" -c "$TABLES"
    # A third database, on 0.1.0 too, also holds ids far ahead of the clock,
    # which the adoption must not take silently: a koid of 2036 a database owner made (koid_new_with_time in a
    # 0.2.0 database, as text), and in a table of AT Protocol records a record
    # key of 2041 made on another server.
    KOID_2036=$(oq -d app -c "SELECT koid_new_with_time('2036-01-01 00:00+00')::text")
    oq -d app010_ahead -c "CREATE EXTENSION kid VERSION '0.1.0'" -c "$TABLES" \
        -c "INSERT INTO t_koid VALUES ('$KOID_2036', true)" \
        -c "CREATE TABLE records (rkey atproto_tid PRIMARY KEY)" -c "INSERT INTO records VALUES ('3zzzzzzzzzzzz'), ('3kfj6ygtxbc2a')"
    # Partitions on the id (docs/partitioning.md): a uuid table kid partitions
    # by day; its configuration and state must come through.
    oq -d app -c "CREATE TABLE t_parts (id uuid PRIMARY KEY) PARTITION BY RANGE (id)" \
        -c "SELECT count(*) FROM kid_partition_by_time('t_parts', '1 day', premake => 2, retain => '30 days', at => '2026-01-01 12:00+00')" \
        -c "INSERT INTO t_parts SELECT uuidv7_from_timestamp(timestamptz '2026-01-01 00:00+00' + i * interval '1 hour') FROM generate_series(0, 60) i" >/dev/null
    PARTS=$(parts_config oq)
    expect_eq "old cluster: t_parts partitioned by kid" "$PARTS" "t_parts 1 day 2 30 days UTC; 4 partitions; 61 rows"
    expect_eq "old cluster: its clock is 1 h ahead (tid times vs the true clock, minutes)" \
        "$(oq -d app -c "SELECT round(extract(epoch FROM max(tid_to_timestamp(id)) - '$(date -u '+%F %T')+00'::timestamptz) / 60) FROM t_tid")" 60
    OLD_SYSID=$(oq -d app -c "SELECT system_identifier FROM pg_control_system()")
    expect_eq "old cluster: uuid_ops and uuid_minmax_ops hold kid's members" "$(uuid_members oq app)" 20
    expect_eq "old cluster: id >= t on a uuid is an index condition" "$(uuid_scan oq app)" "1 51"
    expect_eq "old cluster: CREATE EXTENSION recorded it in kid_database_origin" \
        "$(oq -d app -c "SELECT position || ' ' || how || ' ' || (system_identifier = $OLD_SYSID) FROM kid_database_origin")" "1 created true"
    # The newest old time per scheme, to compare with what adoption finds.
    OLD_NEWEST=$(oq -d app -c "SELECT concat_ws(' ', (SELECT max(sno_to_timestamp(id)) FROM t_sno),
        greatest((SELECT max(tid_to_timestamp(id)) FROM t_tid), (SELECT max(tid_to_timestamp(id)) FROM t_domain)),
        (SELECT max(koid_to_timestamp(id)) FROM t_koid),
        greatest((SELECT max(uid_to_timestamp(id)) FROM t_uid), (SELECT max(uid_global_to_timestamp(id)) FROM t_gid),
                 (SELECT max(uid_to_timestamp(u)) FROM t_array, unnest(ids) u)))")
    # Debian's PostgreSQL 15.20 gives every column an attribute option
    # pg_attver (ALTER ... RESET keeps it), which pg_dump carries and the
    # PostgreSQL 18 built from source refuses ("unrecognized parameter"): taken
    # out of the catalog of the user's columns here, before pg_dump and
    # pg_upgrade.  No other server sets it.
    for db in app app010 app010_ahead; do
        oq -d $db -c "UPDATE pg_attribute SET attoptions = nullif(ARRAY(SELECT o FROM unnest(attoptions) o WHERE o NOT LIKE 'pg_attver=%'), '{}')
                      WHERE attrelid >= 16384 AND attoptions::text LIKE '%pg_attver=%'" >/dev/null
    done
    "$NEW_BIN/pg_dump" -h "$KID_TMP" -p $OPORT -U postgres -Fc -f "$KID_TMP/app$OLD_MAJOR.dump" app
    check "pg_dump of the old database" test -s "$KID_TMP/app$OLD_MAJOR.dump"
    cluster_stop old$OLD_MAJOR fast

    # -------------------------------------------------------------- pg_upgrade
    cluster_init new$OLD_MAJOR $NPORT
    # From 18 initdb turns data checksums on; pg_upgrade wants the old
    # cluster's setting, which is off on 15 and 17 (on where old and new are 19).
    if as_postgres "$OLD_BIN/pg_controldata" "$KID_TMP/old$OLD_MAJOR/data" | grep -q '^Data page checksum version: *0$'; then
        as_postgres "$NEW_BIN/pg_checksums" --disable -D "$KID_TMP/new$OLD_MAJOR/data" >/dev/null 2>&1
    fi
    if as_postgres "$NEW_BIN/pg_upgrade" -b "$OLD_BIN" -B "$NEW_BIN" -d "$KID_TMP/old$OLD_MAJOR/data" -D "$KID_TMP/new$OLD_MAJOR/data" \
        -p $OPORT -P $NPORT -s "$KID_TMP" >"$KID_TMP/pg_upgrade$OLD_MAJOR.log" 2>&1; then
        check "pg_upgrade $OLD_MAJOR -> $NEW_MAJOR" true
    else
        tail -30 "$KID_TMP/pg_upgrade$OLD_MAJOR.log"
        grep -h -B2 -A8 "ERROR\\|FATAL" "$KID_TMP"/new$OLD_MAJOR/data/pg_upgrade_output.d/*/log/*.log | head -60
        check "pg_upgrade $OLD_MAJOR -> $NEW_MAJOR" false
        return
    fi
    cluster_start new$OLD_MAJOR || exit 1
    UPGRADED_FROM="$UPGRADED_FROM${UPGRADED_FROM:+ }$old_server_major->$(server_major nq)"
    NEW_SYSID=$(nq -d app -c "SELECT system_identifier FROM pg_control_system()")
    check "pg_upgrade: the new cluster has its own system identifier" test "$NEW_SYSID" != "$OLD_SYSID"

    # pg_upgrade's schema dump has no statement for loose members of a
    # pg_catalog family: the new cluster lacks the 10 cross-type operators
    # (kid's timestamptz class, its own object, keeps its 5); id >= t stays
    # right but is no index condition until kid_adopt_database() adds them.
    expect_eq "pg_upgrade: uuid_ops has lost kid's loose members" "$(uuid_members nq app)" 5
    expect_eq "pg_upgrade: id >= t on a uuid still counts right, without the index" "$(uuid_scan nq app)" "0 51"
    expect_eq "pg_upgrade: t_parts's configuration, partitions and rows came through" "$(parts_config nq)" "$PARTS"
    expect_eq "pg_upgrade: ... and what its last run did (kid_partition_state)" \
        "$(nq -d app -c "SELECT last_actions FROM kid_partition_status")" 4
    expect_eq "pg_upgrade: maintenance at the time it was configured has nothing to do; two days later, two days more" \
        "$(nq -d app -c "SELECT count(*) FROM kid_partition_maintain('t_parts', at => '2026-01-01 12:00+00')") $(nq -d app -c "SELECT count(*) FROM kid_partition_maintain('t_parts', at => '2026-01-03 12:00+00') WHERE action = 'create'")" \
        "0 2"
    refused nq app "pg_upgrade"
    # t_parts: its 4 partitions and the 2 made two days later.
    adopted nq app "pg_upgrade" "$NEW_SYSID" "created:false adopted:true" 7
    expect_eq "pg_upgrade: kid_adopt_database() gave uuid_ops and uuid_minmax_ops their members again" "$(uuid_members nq app)" 20
    expect_eq "pg_upgrade: after adoption id >= t on a uuid is an index condition (1000 more ids since)" "$(uuid_scan nq app)" "1 1051"

    # The database still on 0.1.0: no mark yet; the update adopts it.  Its
    # koids are an hour ahead: the update takes them when koid_new() waits that
    # long in the server's sessions (kid.koid_max_clock_wait_ms).
    expect_eq "pg_upgrade, 0.1.0 database: version before the update" "$(nq -d app010 -c "SELECT extversion FROM pg_extension WHERE extname = 'kid'")" 0.1.0
    nq -d postgres -c "ALTER SYSTEM SET kid.koid_max_clock_wait_ms = '1h'" && need "reload" reload_conf $NPORT
    update_out=$(nq -d app010 -c "ALTER EXTENSION kid UPDATE" 2>&1)
    nq -d postgres -c "ALTER SYSTEM RESET kid.koid_max_clock_wait_ms" && need "reload" reload_conf $NPORT
    expect_eq "pg_upgrade, 0.1.0 database: the update says it adopted the database, with its rows (a WARNING)" \
        "$(grep -c -e '^WARNING:  updating kid from 0.1.0 adopted database "app010"$' -e '^koid: 1 column, newest ' -e '^atproto_tid: 2 columns, newest ' <<<"$update_out")" 3
    expect_eq "pg_upgrade, 0.1.0 database: the update added kid's uuid members" "$(uuid_members nq app010)" 20
    expect_eq "pg_upgrade, 0.1.0 database: ALTER EXTENSION kid UPDATE adopted it" \
        "$(nq -d app010 -c "SELECT string_agg(how || ':' || (system_identifier = $NEW_SYSID), ' ' ORDER BY position) FROM kid_database_origin")" "adopted:true"
    nq -d app010 -c "INSERT INTO t_tid SELECT tid_new(), false FROM generate_series(1, 1000)"
    expect_eq "pg_upgrade, 0.1.0 database: new tids sort above the old ones after the update" \
        "$(nq -d app010 -c "SELECT (SELECT min(id) FROM t_tid WHERE NOT old) > (SELECT max(id) FROM t_tid WHERE old)")" t

    # The 0.1.0 database with ids far ahead: the update neither takes them nor
    # fails (pg_upgrade's update_extensions.sql goes on): it says why in a
    # WARNING, records 'updated', and generation stays refused until an
    # adoption by hand decides.
    ahead_out=$(nq -d app010_ahead -c "ALTER EXTENSION kid UPDATE" 2>&1)
    check "pg_upgrade, 0.1.0 database with ids far ahead: ALTER EXTENSION kid UPDATE succeeds" \
        test "$(nq -d app010_ahead -c "SELECT extversion FROM pg_extension WHERE extname = 'kid'")" = 0.2.0
    expect_eq "pg_upgrade, ids far ahead: the update names both columns and says the database was not adopted" \
        "$(grep -c -e '^WARNING:  public.t_koid.id holds 1001 koid ids more than kid.koid_max_clock_wait_ms (1000 ms) ahead of this server.s clock, the newest at 2036-01-01 00:00:00' \
            -e '^WARNING:  public.records.rkey holds 1 atproto_tid id more than 1 day ahead of this server.s clock, the newest at 2041-05-10 11:56:53.685247' \
            -e '^WARNING:  updating kid from 0.1.0 did not adopt database "app010_ahead": cannot adopt database "app010_ahead": 2 columns hold ids' \
            <<<"$ahead_out")" 3
    expect_eq "pg_upgrade, ids far ahead: the update recorded 'updated' (not adopted)" \
        "$(nq -d app010_ahead -c "SELECT string_agg(how || ':' || (system_identifier = $NEW_SYSID), ' ' ORDER BY position) FROM kid_database_origin")" "updated:true"
    expect_eq "pg_upgrade, ids far ahead: generation is refused (55000, ids of unknown origin, the update's adoption stopped)" \
        "$(nq -d app010_ahead -v VERBOSITY=verbose -c "SELECT tid_new()" 2>&1 | grep -c \
            -e '^ERROR:  55000: cannot generate atproto_tid ids in database "app010_ahead": it holds ids of unknown origin' \
            -e "^DETAIL:  kid was updated from 0.1.0 here without adopting its ids (kid was not in shared_preload_libraries, or the update's adoption stopped with a WARNING)")" 2
    expect_eq "pg_upgrade, ids far ahead: no floor was raised to them" \
        "$(nq -d app010_ahead -c "SET client_min_messages = error" -c "SELECT bool_and(coalesce(floor_before, '-infinity') < '2030-01-01') FROM kid_adopt_database(dry_run => true)")" t
    expect_eq "pg_upgrade, ids far ahead: kid_adopt_database() by hand refuses them too (55000)" \
        "$(nq -d app010_ahead -v VERBOSITY=sqlstate -c "SET client_min_messages = error" -c "SELECT * FROM kid_adopt_database()" 2>&1)" "ERROR:  55000"
    # The DBA decides: the record keys are not this server's ids (excluded);
    # the koid of 2036 is taken (max_ahead wide enough), on its own line only.
    nq -d app010_ahead -c "CREATE TABLE adopted AS SELECT * FROM kid_adopt_database(max_ahead => '20 years', exclude => ARRAY['public.records.rkey'])" 2>/dev/null
    expect_eq "pg_upgrade, ids far ahead: adopted by hand; the koid floor at 2036, the tid floor at the old tids, not at the record key" \
        "$(nq -d app010_ahead -F ' ' -c "SELECT (SELECT floor_after FROM adopted WHERE line = 'koid') = '2036-01-01 00:00+00',
            (SELECT floor_after FROM adopted WHERE line = 'atproto_tid') BETWEEN (SELECT max(tid_to_timestamp(id)) FROM t_tid) AND '2030-01-01',
            (SELECT string_agg(how, ' ' ORDER BY position) FROM kid_database_origin),
            (SELECT floors->'excluded' FROM kid_database_origin ORDER BY position DESC LIMIT 1)")" \
        't t updated adopted ["public.records.rkey"]'
    nq -d app010_ahead -c "INSERT INTO t_tid SELECT tid_new(), false FROM generate_series(1, 1000)"
    expect_eq "pg_upgrade, ids far ahead: new tids sort above the old ones and are not of 2041" \
        "$(nq -d app010_ahead -c "SELECT (SELECT min(id) FROM t_tid WHERE NOT old) > (SELECT max(id) FROM t_tid WHERE old)
            AND (SELECT max(tid_to_timestamp(id)) FROM t_tid WHERE NOT old) < '2030-01-01'")" t
    expect_eq "pg_upgrade, ids far ahead: koid_new() refuses below the floor of 2036 it was given (55000)" \
        "$(nq -d app010_ahead -v VERBOSITY=verbose -c "SET kid.koid_max_clock_wait_ms = 0" -c "SELECT koid_new()" 2>&1 | grep -c '^ERROR:  55000: ')" 1
    cluster_stop new$OLD_MAJOR fast

    # -------------------------------------------------------------- pg_dump | pg_restore
    cluster_init restored$OLD_MAJOR $RPORT
    cluster_start restored$OLD_MAJOR || exit 1
    RESTORED_SYSID=$(rq -d postgres -c "SELECT system_identifier FROM pg_control_system()")
    rq -d postgres -c "CREATE DATABASE app"
    check "pg_restore into a fresh cluster" "$NEW_BIN/pg_restore" -h "$KID_TMP" -p $RPORT -U postgres -d app --exit-on-error "$KID_TMP/app$OLD_MAJOR.dump"
    expect_eq "pg_restore: the dump carried the old cluster's row, after the new cluster's CREATE EXTENSION" \
        "$(rq -d app -c "SELECT string_agg(how || ':' || system_identifier, ' ' ORDER BY position) FROM kid_database_origin")" \
        "created:$RESTORED_SYSID created:$OLD_SYSID"
    expect_eq "pg_restore: CREATE EXTENSION gave uuid_ops and uuid_minmax_ops kid's members" "$(uuid_members rq app)" 20
    expect_eq "pg_restore: id >= t on a uuid is an index condition" "$(uuid_scan rq app)" "1 51"
    expect_eq "pg_restore: t_parts's configuration, partitions and rows came through" "$(parts_config rq)" "$PARTS"
    expect_eq "pg_restore: ... its state did not (it describes the old cluster's runs)" "$(rq -d app -c "SELECT count(*) FROM kid_partition_state")" 0
    expect_eq "pg_restore: maintenance at the time it was configured has nothing to do" \
        "$(rq -d app -c "SELECT count(*) FROM kid_partition_maintain('t_parts', at => '2026-01-01 12:00+00')")" 0
    refused rq app "pg_restore"
    adopted rq app "pg_restore" "$RESTORED_SYSID" "created:true created:false adopted:true" 5
    cluster_stop restored$OLD_MAJOR fast
}

for m in $OLD_MAJORS; do
    start=$SECONDS BUILD_SECONDS=0
    upgrade_from "$m"
    # What is left of this major's clusters (their servers are stopped).
    rm -rf "$KID_TMP/old$m" "$KID_TMP/new$m" "$KID_TMP/restored$m"
    echo "(from $m: $((SECONDS - start)) s${BUILD_OLD:+, of which the build of kid $BUILD_SECONDS s})"
done
KID_CHECK_PREFIX=
expect_eq "pg_upgrade went through from each old major of this pass, each server of its major" \
    "$UPGRADED_FROM" "$(for m in $OLD_MAJORS; do echo "$m->$NEW_MAJOR"; done | paste -sd ' ')"

kid_finish
