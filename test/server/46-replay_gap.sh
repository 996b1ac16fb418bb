#!/usr/bin/env bash
# A lease replayed without kid (runs alone or from run-all.sh; its own
# servers on ports 54460-54464).
#
# A server without kid preloaded replays kid's lease messages as core's
# no-op: its kid.lease learns nothing.  Once kid is back, the file knows
# whether it still reflects every lease message before the point the
# replay starts at (docs/lease.md, "Servers that replayed without kid"),
# and while it may not, every generator refuses (55000, a HINT naming
# kid_adopt_database(floor => T)).  A primary g makes ids; its standbys
# are taken, then g writes a lease message and 1,000 ids of each scheme
# (the ids the promoted servers must stay above):
#   (1) s1, a standby without kid (the user's case: kid dropped from
#       shared_preload_libraries during recovery), from a low-level backup
#       whose kid.lease g wrote after the backup started, its restartpoint
#       past the copied file, restarted with kid: a WARNING at start, the
#       file says unverified; promoted with its clock 1 h behind
#       (libfaketime) it refuses tid_new(), sno_new(0) and uid_new(); once
#       the operator ran kid_adopt_database(floor => T) the ids are above
#       g's newest, after a restart too.
#   (2) no false alarm: g's crash restart and clean restart after
#       checkpoints with no lease message since; s2, a standby with kid
#       from its first start, restarted three times (crash, clean, crash)
#       with a checkpoint and a restartpoint before each and no lease
#       message, then promoted, generates above g's newest.
#   (3) g, stopped cleanly, re-attached without kid as a standby of s2,
#       which generates, then promoted without kid (a new timeline, no
#       backup label: its own primary-written kid.lease is stale): with kid
#       again, it refuses.
#   (4) a copy of s1 made while it was unverified (still a standby, its
#       restartpoint where s1's is), promoted, refuses; r, the restore of a
#       low-level backup of g (a lease message after kid.lease was copied)
#       opened by crash recovery without kid, on g's timeline: with kid, it
#       refuses (its backup_label.old names a backup the copied file was not
#       written under).
# Every statement has 30 s (a generator that should have refused may wait
# for its clock instead).  Not covered: learning the missed marks from WAL
# still in pg_wal (kid does not read WAL outside recovery).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

# A generator that does not refuse where it should may wait for its clock
# (sno, 1 h behind its floors): a check fails instead of the test hanging.
export PGOPTIONS="-c statement_timeout=30s"
RG_G=54460
RG_S1=54461
RG_S2=54462
RG_R=54463
RG_S1C=54464
gq() { kpsql $RG_G -d postgres "$@"; }
rg_wait() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
rg_out_of_recovery() { [ "$(kpsql "$1" -d postgres -c 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ]; }
rg_open() { rg_wait rg_out_of_recovery "$1"; } # PORT: until the server runs queries out of recovery
rg_conf() { # NAME LINE: append a line to NAME's postgresql.conf (the last setting wins)
    echo "$2" >>"$KID_TMP/$1/data/postgresql.conf"
}
# The lines a floor can be given to (every lease line but the commit horizons').
rg_id_lines="ARRAY(SELECT line FROM kid_lease() WHERE line NOT LIKE '% horizon' ORDER BY line)"
rg_message() { # a lease message on g: every id line's floor raised to 30 s ahead
    gq -c "SELECT count(*) FROM kid_raise_floors($rg_id_lines,
        ARRAY(SELECT clock_timestamp() + interval '30 seconds' FROM kid_lease() WHERE line NOT LIKE '% horizon'))" >/dev/null
}
rg_state() { # NAME: the WAL state word of NAME's kid.lease (0 unverified, 1 primary, 2 replica)
    awk '{print $6}' "$KID_TMP/$1/data/kid.lease"
}
rg_try() { # PORT SQL: the SQLSTATE and HINT of SQL's error, or "ok"
    local out
    out=$(kpsql "$1" -d postgres -v VERBOSITY=verbose -c "$2" 2>&1) && { echo ok; return; }
    echo "$(sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p' <<<"$out" | head -1) $(grep -c 'HINT:  As a superuser, run SELECT kid_adopt_database(floor => T)' <<<"$out")"
}
# rg_lowlevel_backup NAME BEFORE AFTER: NAME's data directory, a low-level
# backup of g (pg_backup_start, cp -a, pg_backup_stop, its backup_label and
# g's pg_wal), SQL BEFORE run on g after the backup started and before the
# copy, AFTER after the copy.
rg_lowlevel_backup() {
    local name=$1 label=$KID_TMP/$1.label
    as_postgres mkdir -p "$KID_TMP/$name" || return 1
    gq -c "SELECT pg_backup_start('$name', true)" -c "$2" \
        -c "\\! cp -a '$KID_TMP/rg_g/data' '$KID_TMP/$name/data' 2>/dev/null" -c "$3" \
        -c "SELECT labelfile FROM pg_backup_stop(false)" -c "SELECT pg_switch_wal()" >"$label.out" 2>&1
    grep -q 'START WAL LOCATION' "$label.out" || { cat "$label.out"; return 1; }
    grep -E '^(START WAL LOCATION|CHECKPOINT LOCATION|BACKUP METHOD|BACKUP FROM|START TIME|LABEL|START TIMELINE|INCREMENTAL FROM LSN|INCREMENTAL FROM TLI): ' "$label.out" >"$label"
    as_postgres rm -f "$KID_TMP/$name/data/postmaster.pid" "$KID_TMP/$name/data/standby.signal" &&
        as_postgres cp "$label" "$KID_TMP/$name/data/backup_label" &&
        as_postgres cp -a "$KID_TMP/rg_g/data/pg_wal/." "$KID_TMP/$name/data/pg_wal/"
}
rg_checkpoint_replayed() { # PORT: a checkpoint on g, replayed by the standby on PORT, and its restartpoint
    local lsn
    lsn=$(gq -c "CHECKPOINT" -c "SELECT pg_current_wal_insert_lsn()") &&
        wait_replayed "$1" "$lsn" && kpsql "$1" -d postgres -c "CHECKPOINT"
}
rg_messages_since() { # LSN: kid's lease messages on g since LSN
    # (To the flush position: 15's pg_walinspect refuses an end past it,
    # and an empty range; kid flushes each lease message before its ids.)
    gq -c "SELECT CASE WHEN pg_current_wal_flush_lsn() > '$1' THEN (SELECT count(*) FROM pg_get_wal_records_info('$1', pg_current_wal_flush_lsn())
                WHERE resource_manager = 'LogicalMessage' AND description LIKE 'non-transactional, prefix \"kid\";%') ELSE 0 END"
}

cluster_init rg_g $RG_G "wal_level = replica" "max_wal_senders = 10"
cluster_start rg_g || exit 1
gq -c "CREATE EXTENSION kid" -c "CREATE EXTENSION pg_walinspect" -c "
CREATE TABLE rg_tid (id atproto_tid PRIMARY KEY DEFAULT tid_new(), round int NOT NULL DEFAULT 0);
CREATE TABLE rg_uid (id uid PRIMARY KEY DEFAULT uid_new(), round int NOT NULL DEFAULT 0);
CREATE TABLE rg_sno (id sno PRIMARY KEY DEFAULT sno_new(), round int NOT NULL DEFAULT 0);
INSERT INTO rg_tid (round) SELECT 0 FROM generate_series(1, 100);
INSERT INTO rg_uid (round) SELECT 0 FROM generate_series(1, 100);
INSERT INTO rg_sno (round) SELECT 0 FROM generate_series(1, 100);" >/dev/null
expect_eq "g's kid.lease is a primary's (state 1) once it generated" "$(rg_state rg_g)" 1

# The standbys, from base backups with kid.lease holding g's marks: s1
# without kid, s2 with kid; both with the clock 1 h behind.
# s1's copy of kid.lease is of a lease g wrote after the backup started
# (its position is past the backup's start: only later messages are missed).
rg_raise="SELECT count(*) FROM kid_raise_floors($rg_id_lines, ARRAY(SELECT clock_timestamp() + interval '20 seconds' FROM kid_lease() WHERE line NOT LIKE '% horizon'))"
need "s1: a low-level backup of g, a lease message before kid.lease is copied" \
    rg_lowlevel_backup rg_s1 "$rg_raise" "SELECT 1"
as_postgres touch "$KID_TMP/rg_s1/data/standby.signal"
rg_conf rg_s1 "port = $RG_S1"
rg_conf rg_s1 "shared_preload_libraries = ''"
rg_conf rg_s1 "primary_conninfo = 'host=$KID_TMP port=$RG_G user=postgres'"
standby_init rg_s2 $RG_G $RG_S2
faketime_set "$FT_FILE" -3600
cluster_start rg_s1 || exit 1
faketime_cluster_start rg_s2 || exit 1

# After the backups: a lease message, and 1,000 ids of each (above its mark).
rg_after=$(gq -c "SELECT pg_current_wal_insert_lsn()")
rg_message
gq -c "INSERT INTO rg_tid (round) SELECT 0 FROM generate_series(1, 1000)" \
    -c "INSERT INTO rg_uid (round) SELECT 0 FROM generate_series(1, 1000)" \
    -c "INSERT INTO rg_sno (round) SELECT 0 FROM generate_series(1, 1000)"
need "g wrote lease messages after the standbys' base backups" test "$(rg_messages_since "$rg_after")" -gt 0

# (2) g's crash restart and clean restart, each after two checkpoints
# with no lease message since: no refusal.
rg_lsn=$(gq -c "CHECKPOINT" -c "CHECKPOINT" -c "SELECT pg_current_wal_insert_lsn()")
expect_eq "(2) no lease message since g's last checkpoints" "$(rg_messages_since "$(gq -c "SELECT redo_lsn FROM pg_control_checkpoint()")")" 0
cluster_stop rg_g immediate
cluster_start rg_g || exit 1
expect_eq "(2) g after a crash restart (checkpoints, no message since) generates" "$(rg_try $RG_G "INSERT INTO rg_tid (round) VALUES (2)")" ok
gq -c "CHECKPOINT" -c "CHECKPOINT" >/dev/null
cluster_stop rg_g
cluster_start rg_g || exit 1
expect_eq "(2) g after a clean restart generates" "$(rg_try $RG_G "INSERT INTO rg_uid (round) VALUES (2)")" ok

rg_ref_tid=$(gq -c "SELECT max(id) FROM rg_tid")
rg_ref_uid=$(gq -c "SELECT max(id) FROM rg_uid")
# T: a time at or after g's newest id (the DBA's knowledge of the failover).
rg_T=$(gq -c "SELECT greatest((SELECT max(tid_to_timestamp(id)) FROM rg_tid), (SELECT max(uid_to_timestamp(id)) FROM rg_uid), (SELECT max(sno_to_timestamp(id)) FROM rg_sno)) + interval '1 second'")

# (1) s1: replayed everything without kid; g checkpoints and s1 makes a
# restartpoint past the copied kid.lease.
rg_end=$(gq -c "SELECT pg_current_wal_insert_lsn()")
need "(1) s1 without kid replayed g's WAL" wait_replayed $RG_S1 "$rg_end"
need "(1) a restartpoint on s1 after the lease messages" rg_checkpoint_replayed $RG_S1
cluster_stop rg_s1
rg_conf rg_s1 "shared_preload_libraries = 'kid'"
faketime_cluster_start rg_s1 || exit 1
expect_eq "(1) s1 with kid: a WARNING at start names the refusal" \
    "$(grep -c 'WARNING:  kid: generation is refused: "kid.lease" may miss lease messages replayed without kid' "$KID_TMP/rg_s1/server.log")" 1
expect_eq "(1) s1's kid.lease says unverified (state 0)" "$(rg_state rg_s1)" 0
# (4) a copy of s1's data directory, unverified, still a standby (its
# restartpoint where s1's is), promoted: refuses too.
cluster_stop rg_s1
as_postgres cp -a "$KID_TMP/rg_s1/data" "$KID_TMP/rg_s1c.data" && as_postgres mkdir -p "$KID_TMP/rg_s1c" &&
    as_postgres mv "$KID_TMP/rg_s1c.data" "$KID_TMP/rg_s1c/data"
rg_conf rg_s1c "port = $RG_S1C"
faketime_cluster_start rg_s1c || exit 1
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/rg_s1c/data" -w -t 60 promote >/dev/null
check "(4) the copy is promoted" rg_open $RG_S1C
expect_eq "(4) a copy of the unverified data directory refuses" "$(rg_try $RG_S1C "SELECT tid_new()")" "55000 1"
cluster_stop rg_s1c
faketime_cluster_start rg_s1 || exit 1
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/rg_s1/data" -w -t 60 promote >/dev/null
check "(1) s1 is promoted" rg_open $RG_S1
expect_eq "(1) promoted, s1 refuses tid_new() (55000, HINT: kid_adopt_database(floor => T))" "$(rg_try $RG_S1 "SELECT tid_new()")" "55000 1"
expect_eq "(1) and sno_new(0)" "$(rg_try $RG_S1 "SELECT sno_new(0)")" "55000 1"
expect_eq "(1) and uid_new()" "$(rg_try $RG_S1 "SELECT uid_new()")" "55000 1"
expect_eq "(1) kid_node_info() says why" \
    "$(kpsql $RG_S1 -d postgres -c "SELECT DISTINCT generation FROM kid_node_info()")" \
    "kid.lease may miss lease messages this server replayed without kid (docs/lease.md, \"Servers that replayed without kid\")"
cluster_stop rg_s1


# (1) The operator's command, then ids above g's newest, after a restart too.
faketime_cluster_start rg_s1 || exit 1
expect_eq "(1) s1, restarted, still refuses" "$(rg_try $RG_S1 "SELECT tid_new()")" "55000 1"
expect_eq "(1) kid_adopt_database(floor => T) runs" "$(rg_try $RG_S1 "SELECT count(*) FROM kid_adopt_database(floor => '$rg_T')")" ok
kpsql $RG_S1 -d postgres -c "INSERT INTO rg_tid (round) SELECT 1 FROM generate_series(1, 500)" \
    -c "INSERT INTO rg_uid (round) SELECT 1 FROM generate_series(1, 500)" >/dev/null
expect_eq "(1) then 500 new tids and uids, all above g's newest" \
    "$(kpsql $RG_S1 -d postgres -c "SELECT (SELECT count(*) FROM rg_tid WHERE round = 1 AND id > '$rg_ref_tid') || ' ' || (SELECT count(*) FROM rg_uid WHERE round = 1 AND id > '$rg_ref_uid')")" "500 500"
expect_eq "(1) its kid.lease is a primary's again (state 1)" "$(rg_state rg_s1)" 1
cluster_stop rg_s1
faketime_cluster_start rg_s1 || exit 1
expect_eq "(1) after a clean restart s1 generates" "$(rg_try $RG_S1 "SELECT tid_new() > '$rg_ref_tid'")" ok
cluster_stop rg_s1

# (2) s2, kid from its first start: three restarts (crash, clean, crash),
# each after a checkpoint of g and a restartpoint, no lease message.
rg_s2_from=$(gq -c "SELECT pg_current_wal_insert_lsn()")
for mode in immediate fast immediate; do
    need "(2) a restartpoint on s2" rg_checkpoint_replayed $RG_S2
    cluster_stop rg_s2 $mode
    need "(2) s2 starts again ($mode stop)" faketime_cluster_start rg_s2
done
expect_eq "(2) no lease message while s2 restarted" "$(rg_messages_since "$rg_s2_from")" 0
# g stops cleanly; s2 replays its shutdown checkpoint, then is promoted.
cluster_stop rg_g
rg_g_end=$(as_postgres "$PG_BIN/pg_controldata" -D "$KID_TMP/rg_g/data" | sed -n 's/^Latest checkpoint location: *//p')
need "(2) s2 replayed g's shutdown checkpoint" wait_replayed $RG_S2 "$rg_g_end"
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/rg_s2/data" -w -t 60 promote >/dev/null
check "(2) s2 is promoted" rg_open $RG_S2
expect_eq "(2) promoted, s2 generates: 500 tids and uids, all above g's newest" \
    "$(kpsql $RG_S2 -d postgres -c "INSERT INTO rg_tid (round) SELECT 3 FROM generate_series(1, 500)" -c "INSERT INTO rg_uid (round) SELECT 3 FROM generate_series(1, 500)" \
        -c "SELECT (SELECT count(*) FROM rg_tid WHERE round = 3 AND id > '$rg_ref_tid') || ' ' || (SELECT count(*) FROM rg_uid WHERE round = 3 AND id > '$rg_ref_uid')" 2>&1)" "500 500"

# (3) g re-attached without kid as a standby of s2, which generates; g
# promoted without kid, then started with kid.
as_postgres touch "$KID_TMP/rg_g/data/standby.signal"
rg_conf rg_g "shared_preload_libraries = ''"
rg_conf rg_g "primary_conninfo = 'host=$KID_TMP port=$RG_S2 user=postgres'"
cluster_start rg_g || exit 1
rg_s2_end=$(kpsql $RG_S2 -d postgres -c "INSERT INTO rg_tid (round) SELECT 4 FROM generate_series(1, 100)" -c "SELECT pg_current_wal_insert_lsn()")
need "(3) g without kid replayed s2's WAL" wait_replayed $RG_G "$rg_s2_end"
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/rg_g/data" -w -t 60 promote >/dev/null
check "(3) g is promoted without kid" rg_open $RG_G
cluster_stop rg_g
cluster_stop rg_s2
rg_conf rg_g "shared_preload_libraries = 'kid'"
cluster_start rg_g || exit 1
expect_eq "(3) with kid again, g (its kid.lease a primary's of an older timeline) refuses" "$(rg_try $RG_G "SELECT tid_new()")" "55000 1"

# (4) r: a low-level backup of g (now a primary again after the operator's
# command), a lease message written after kid.lease was copied.
expect_eq "(3) kid_adopt_database(floor => T) on g" "$(rg_try $RG_G "SELECT count(*) FROM kid_adopt_database(floor => now() + interval '5 minutes')")" ok
need "(4) r: a low-level backup of g, a lease message after kid.lease was copied" \
    rg_lowlevel_backup rg_r "SELECT 1" "$(sed 's/20 seconds/10 minutes/' <<<"$rg_raise")"
cluster_stop rg_g
rg_conf rg_r "port = $RG_R"
rg_conf rg_r "shared_preload_libraries = ''"
check "(4) r without kid: crash recovery from the backup label opens" cluster_start rg_r
cluster_stop rg_r
rg_conf rg_r "shared_preload_libraries = 'kid'"
faketime_cluster_start rg_r || exit 1
expect_eq "(4) r with kid refuses (backup_label.old names another backup than kid.lease's)" "$(rg_try $RG_R "SELECT tid_new()")" "55000 1"
cluster_stop rg_r

kid_finish
