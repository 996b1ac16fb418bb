#!/usr/bin/env bash
# WAL of older kids: their custom lease records replay where this kid is
# preloaded, and kid.wal_rmgr_id = 0 (runs alone or from run-all.sh; its own
# servers on ports 54450-54456).
#
# kid 0.1.0 (12a4ca6, its 80-byte record) and the last 0.2.0 build that
# wrote custom records (383e0f0, layout 2, 293 bytes) are built from git and
# preloaded by their path on a primary, each in turn, which makes tid, koid
# and uid ids (and uuids on 383e0f0) through functions declared on that
# library.  Two standbys, made before any id, run this kid: with the
# default kid.wal_rmgr_id (128) one replays the old records, its replayed
# marks equal to the old kid's lease; with kid.wal_rmgr_id = 0 the other
# stops at the first of them with core's FATAL.  The primary is stopped
# by an immediate shutdown and started on this kid: with kid.wal_rmgr_id =
# 0 crash recovery stops with the same FATAL; with the default it replays
# the old records (replayed marks = old marks, floors above them), new tids
# sort above the old ones, pg_walinspect describes the old records, and
# this kid writes logical messages from then on.  The standby is promoted
# with its clock 1 h behind: floors = the old marks + 10 s, new tid, koid
# and uid ids above every old one.
# Then kid.wal_rmgr_id = 0: a standby made once no old record is ahead of
# it replays this kid's messages; 127 stops the server (not a custom id).
# On a major after 18 (which the old kids do not build for) only this last
# part runs.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

LG_P=54450
lgq() { kpsql $LG_P -d postgres "$@"; }
lg_us() { echo "(extract(epoch FROM $1) * 1000000)::bigint"; }

# lg_build COMMIT DIR: kid as COMMIT had it, built against this server in DIR.
lg_build() {
    mkdir -p "$2" && git archive "$1" | tar -x -C "$2" &&
        make -s -j2 -C "$2" PG_CONFIG="$PG_CONFIG" >"$2/build.log" 2>&1 || { tail -20 "$2/build.log"; return 1; }
}

# lg_round NAME COMMIT UUID: one old kid through the whole round; UUID yes
# when that kid had uuidv7_new().
lg_round() {
    local name=$1 commit=$2 uuid=$3 old=$KID_TMP/old-$1
    need "$name: kid at $commit built from git" lg_build "$commit" "$old" || return
    as_postgres rm -rf "$KID_TMP/lg_p" "$KID_TMP/lg_s" "$KID_TMP/lg_s0"
    cluster_init lg_p $LG_P "wal_level = replica" "wal_keep_size = '1GB'" "shared_preload_libraries = '$old/kid.so'"
    # An old kid does not know kid.partition_maintenance_interval, which
    # cluster_init sets, and stops on an unknown kid.* name: the primary runs
    # without it (no partitioned table here for the worker to maintain).
    sed -i '/^kid\.partition_maintenance_interval = /d' "$KID_TMP/lg_p/data/postgresql.conf"
    need "$name: the primary starts with the old kid" cluster_start lg_p || return
    lgq -c "CREATE EXTENSION pg_walinspect" -c "
CREATE FUNCTION old_tid_new() RETURNS bigint AS '$old/kid.so', 'tid_new' LANGUAGE C VOLATILE STRICT;
CREATE FUNCTION old_koid_new() RETURNS bigint AS '$old/kid.so', 'koid_new' LANGUAGE C VOLATILE STRICT;
CREATE FUNCTION old_uid_new() RETURNS bigint AS '$old/kid.so', 'uid_new' LANGUAGE C VOLATILE STRICT;
CREATE FUNCTION old_kid_lease(OUT line text, OUT covered_until timestamptz, OUT startup_floor timestamptz)
    RETURNS SETOF record AS '$old/kid.so', 'kid_lease' LANGUAGE C STRICT;
CREATE TABLE lg_tid (id bigint PRIMARY KEY, round int);
CREATE TABLE lg_koid (id bigint PRIMARY KEY, round int);
CREATE TABLE lg_uid (id bigint PRIMARY KEY, round int);
CREATE TABLE lg_uuid (id uuid PRIMARY KEY, round int);" >/dev/null
    [ "$uuid" = no ] || lgq -c "CREATE FUNCTION old_uuidv7_new() RETURNS uuid AS '$old/kid.so', 'uuidv7_new' LANGUAGE C VOLATILE STRICT" >/dev/null
    # Before any id: two standbys on this kid, with and without the legacy resource manager.
    standby_init lg_s $LG_P 54451 "shared_preload_libraries = 'kid'"
    faketime_cluster_start lg_s
    standby_init lg_s0 $LG_P 54452 "shared_preload_libraries = 'kid'" "kid.wal_rmgr_id = 0"
    cluster_start lg_s0

    local lsn0 lsn1
    lsn0=$(lgq -c "SELECT pg_current_wal_lsn()")
    lgq -c "INSERT INTO lg_tid SELECT old_tid_new(), 0 FROM generate_series(1, 1000)" \
        -c "INSERT INTO lg_koid SELECT old_koid_new(), 0 FROM generate_series(1, 1000)" \
        -c "INSERT INTO lg_uid SELECT old_uid_new(), 0 FROM generate_series(1, 1000)" >/dev/null
    [ "$uuid" = no ] || lgq -c "INSERT INTO lg_uuid SELECT old_uuidv7_new(), 0 FROM generate_series(1, 1000)" >/dev/null
    lsn1=$(lgq -c "SELECT pg_current_wal_flush_lsn()")
    local lines="'atproto_tid', 'koid', 'uid'"
    [ "$uuid" = no ] || lines="$lines, 'uuid'"
    local old_marks
    old_marks=$(lgq -c "SELECT string_agg(line || '=' || $(lg_us covered_until), ' ' ORDER BY line) FROM old_kid_lease() WHERE line IN ($lines)")
    expect_eq "$name: the old kid wrote custom records (rmgr kid, LEASE)" \
        "$(lgq -c "SELECT count(*) >= 3 FROM pg_get_wal_records_info('$lsn0', '$lsn1') WHERE resource_manager = 'kid' AND record_type = 'LEASE'")" t

    # The standby with the legacy resource manager replays them.
    check "$name: the standby on this kid replayed the old records" wait_replayed 54451 "$lsn1"
    # The standby without it stops at the first of them.
    lg_fatal() {
        for _ in $(seq 300); do
            grep -q 'FATAL:  resource manager with ID 128 not registered' "$KID_TMP/lg_s0/server.log" && return 0
            sleep 0.2
        done
        return 1
    }
    check "$name: a standby with kid.wal_rmgr_id = 0 stops at the first old record (core's FATAL, rmgr 128 not registered)" lg_fatal
    cluster_stop lg_s0 immediate

    # The primary: an immediate shutdown, then this kid.
    cluster_stop lg_p immediate
    sed -i "s|^shared_preload_libraries = '$old/kid.so'|shared_preload_libraries = 'kid'|" "$KID_TMP/lg_p/data/postgresql.conf"
    echo "kid.wal_rmgr_id = 0" >>"$KID_TMP/lg_p/data/postgresql.conf"
    local off
    off=$(log_size "$KID_TMP/lg_p/server.log")
    if cluster_start lg_p >/dev/null 2>&1; then
        check "$name: crash recovery with kid.wal_rmgr_id = 0 stops at the first old record" false
        cluster_stop lg_p immediate
    else
        expect_eq "$name: crash recovery with kid.wal_rmgr_id = 0 stops at the first old record (core's FATAL)" \
            "$(tail -c +$((off + 1)) "$KID_TMP/lg_p/server.log" | grep -c 'FATAL:  resource manager with ID 128 not registered')" 1
    fi
    sed -i '/^kid.wal_rmgr_id = 0$/d' "$KID_TMP/lg_p/data/postgresql.conf"
    check "$name: the primary starts on this kid (crash recovery)" cluster_start lg_p
    # (The standby can query kid once the extension is created and replayed;
    # before the primary generates again, it has replayed only the old records.)
    lgq -c "CREATE EXTENSION kid" >/dev/null
    need "$name: the standby replayed CREATE EXTENSION kid" wait_replayed 54451 "$(lgq -c "SELECT pg_current_wal_lsn()")"
    expect_eq "$name: the standby's replayed marks are the old kid's lease marks, from the records it counted" \
        "$(kpsql 54451 -d postgres -c "SELECT string_agg(scheme || '=' || $(lg_us replayed_until), ' ' ORDER BY scheme) || ' ' || bool_and(replayed_records >= 3) FROM kid_node_info() WHERE scheme IN ($lines)")" \
        "$old_marks true"
    expect_eq "$name: crash recovery replayed the old records: replayed marks = old marks, floors at or above them" \
        "$(lgq -c "SELECT string_agg(scheme || '=' || $(lg_us replayed_until), ' ' ORDER BY scheme) || ' ' || bool_and(replayed_records >= 3 AND generator_floor >= replayed_until) FROM kid_node_info() WHERE scheme IN ($lines)")" \
        "$old_marks true"
    expect_eq "$name: pg_walinspect describes the old records through this kid's legacy resource manager (the last one)" \
        "$(lgq -c "SELECT bool_and(description LIKE 'node 0; sno tick 0 until none, node field 0; sno tick 1 until none, node field 0; atproto_tid until 20%, node field 0; koid until 20%, node field 0, setting 0; uid until 20%, node field $(lgq -c "SELECT node_field FROM kid_node_info() WHERE scheme = 'uid'"), setting 8;%written at 20%') FROM (SELECT description FROM pg_get_wal_records_info('$lsn0', '$lsn1') WHERE resource_manager = 'kid' ORDER BY start_lsn DESC LIMIT 1) last")" t
    local lsn2
    lsn2=$(lgq -c "SELECT pg_current_wal_lsn()")
    lgq -c "INSERT INTO lg_tid SELECT tid_new()::bigint, 1 FROM generate_series(1, 1000)" >/dev/null
    expect_eq "$name: new tids sort above the old kid's, and this kid wrote its marks in logical messages" \
        "$(lgq -c "SELECT (SELECT min(id::atproto_tid) FROM lg_tid WHERE round = 1) > (SELECT max(id::atproto_tid) FROM lg_tid WHERE round = 0)" \
            -c "SELECT count(*) > 0 FROM pg_get_wal_records_info('$lsn2', pg_current_wal_flush_lsn()) WHERE resource_manager = 'LogicalMessage' AND description LIKE 'non-transactional, prefix \"kid\";%'")" "t
t"
    local lsn3
    lsn3=$(lgq -c "SELECT pg_current_wal_lsn()")
    check "$name: the standby replayed the primary's WAL on this kid" wait_replayed 54451 "$lsn3"
    cluster_stop lg_p

    # The standby promoted with its clock 1 h behind.
    faketime_set "$FT_FILE" -3600
    as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/lg_s/data" -w -t 60 promote >/dev/null
    local lq="kpsql 54451 -d postgres"
    $lq -c "INSERT INTO lg_tid SELECT tid_new()::bigint, 2 FROM generate_series(1, 1000)" \
        -c "INSERT INTO lg_uid SELECT uid_new()::bigint, 2 FROM generate_series(1, 1000)" >/dev/null
    expect_eq "$name: promoted 1 h behind: floors = replayed marks + 10 s, at or above the old marks" \
        "$($lq -c "SELECT bool_and(generator_floor - replayed_until = interval '10 seconds') AND bool_and($(lg_us replayed_until) >= (regexp_match(' $old_marks', ' ' || scheme || '=([0-9]+)'))[1]::bigint) FROM kid_node_info() WHERE scheme IN ('atproto_tid', 'uid')")" t
    expect_eq "$name: promoted 1 h behind: new tid and uid ids sort above every old one" \
        "$($lq -c "SELECT (SELECT min(id::atproto_tid) FROM lg_tid WHERE round = 2) > (SELECT max(id::atproto_tid) FROM lg_tid WHERE round < 2) AND (SELECT min(id::uid) FROM lg_uid WHERE round = 2) > (SELECT max(id::uid) FROM lg_uid WHERE round < 2)")" t
    local out
    out=$($lq -v VERBOSITY=verbose -c "SET kid.koid_max_clock_wait_ms = 0" -c "SELECT koid_new()" 2>&1)
    expect_eq "$name: promoted 1 h behind: koid refuses (55000) below the old koids" "$(grep -c 'ERROR:  55000' <<<"$out")" 1
    cluster_stop lg_s
    faketime_set "$FT_FILE" +0
}

# The old kids build for 15 to 18 (the next major's headers stop them), so
# no cluster of a later major holds their records: there only this kid's
# part runs, on a primary of its own.
lg_major=$("$PG_CONFIG" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
if [ "$lg_major" -le 18 ]; then
    lg_round "0.1.0" 12a4ca6bc3afc394d95f464c9c7db1f34f53161b no
    lg_round "0.2.0 before the logical message" 383e0f0 yes
else
    note "kid 0.1.0 and 383e0f0 build for PostgreSQL 15 to 18, not $lg_major: no WAL of theirs to replay here"
    cluster_init lg_p $LG_P "wal_level = replica" "wal_keep_size = '1GB'" "shared_preload_libraries = 'kid'"
    need "the primary starts" cluster_start lg_p
    lgq -c "CREATE EXTENSION kid" -c "CREATE TABLE lg_tid (id bigint PRIMARY KEY, round int)" >/dev/null
    cluster_stop lg_p
fi

# kid.wal_rmgr_id = 0 with this kid's WAL: a standby made after a checkpoint
# (no old record ahead of it) replays the messages.
cluster_start lg_p
lgq -c "CHECKPOINT" >/dev/null
standby_init lg_s0b $LG_P 54453 "kid.wal_rmgr_id = 0"
cluster_start lg_s0b
lgq -c "INSERT INTO lg_tid SELECT tid_new()::bigint, 3 FROM generate_series(1, 1000)" >/dev/null
check "kid.wal_rmgr_id = 0: a standby replays this kid's WAL" wait_replayed 54453 "$(lgq -c "SELECT pg_current_wal_lsn()")"
expect_eq "kid.wal_rmgr_id = 0: it shows 0 and counts the messages it replayed" \
    "$(kpsql 54453 -d postgres -c "SELECT current_setting('kid.wal_rmgr_id') || ' ' || bool_and(replayed_records > 0) FROM kid_node_info()")" "0 true"
cluster_stop lg_s0b
cluster_stop lg_p
echo "kid.wal_rmgr_id = 127" >>"$KID_TMP/lg_p/data/postgresql.conf"
off=$(log_size "$KID_TMP/lg_p/server.log")
if cluster_start lg_p >/dev/null 2>&1; then
    check "kid.wal_rmgr_id = 127 stops the server" false
    cluster_stop lg_p
else
    expect_eq "kid.wal_rmgr_id = 127 stops the server, naming what is valid" \
        "$(tail -c +$((off + 1)) "$KID_TMP/lg_p/server.log" | grep -A1 'FATAL:  invalid value for parameter "kid.wal_rmgr_id": "127"' | grep -c 'DETAIL:  kid.wal_rmgr_id must be 0 or a custom resource manager id from 128 to 255.')" 1
fi

kid_finish
