#!/usr/bin/env bash
# Replay without kid (runs alone or from run-all.sh; its own servers on
# ports 54440-54446).
#
# kid's lease travels in core logical messages (prefix "kid", database 0),
# which every PostgreSQL replays; a server with kid preloaded reads them
# through a wrapper of that resource manager's redo (docs/lease.md,
# "Standbys and promotion").  A primary, kid preloaded and its WAL archived,
# makes ids of every scheme under load (pgbench) into primary keys.
#
# Without kid in shared_preload_libraries, each of these replays kid's WAL
# to the end and answers queries that decode the ids:
#   (a) a streaming standby;
#   (b) a point-in-time restore (archive, base backup made before the load)
#       to a restore point in the middle of the load, then opened;
#   (c) the restore of a pg_basebackup taken during the load;
#   (d) the primary itself, killed by SIGKILL with kid's messages since its
#       last checkpoint, kid taken out of shared_preload_libraries: starts.
# With kid, fresh copies of (a)-(c), the standby promoted and the restores
# opened with the clock stepped back 1 h (libfaketime): kid counts the
# messages it replayed (the wrapper ran on this major), the floors are the
# replayed marks (+ 10 s after archive recovery), new tid, uid, uid_global
# and uuid ids sort above every id the replayed WAL covers (for (b), every
# id made before the restore point, committed or not), sno continues on its
# other timeline, koid refuses (55000), no id repeats (primary keys).
#
# Messages kid did not write leave the marks and the replay count alone:
# pg_logical_emit_message(false, 'kid', <a lease payload>) from SQL, and,
# written by test/server/44-logical_message_tool.c, database 0 with the prefix
# "kidx", a transactional one, one with bytes past its payload; a message of
# kid's own form (database 0, "kid", non-transactional) is counted.  The
# tool, preloaded before kid on (a), wraps the same redo: it sees every
# message, so kid's wrapper calls the redo it replaced.  A pgoutput slot
# (what a subscriber reads) sees the messages from SQL and none of kid's.
# And the order of a renewal: while kid.lease is being written (held in
# open() on a FIFO), the renewal's message is not in the WAL; the failed
# write fails the call and leaves no message; the renewal's message is
# flushed before the id under it is handed out (the WAL flush position,
# read in the same statement right after the id, is past its end).
# Last, a message of kid's form that names a lease line this kid does not
# know (a later kid's), or one line twice, stops crash recovery (PANIC)
# instead of being skipped: its marks would be missed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

RW_P=54440
RW_ARCH=$KID_TMP/archive
rwq() { kpsql $RW_P -d postgres "$@"; }

# The helper, built with PGXS against this server (never installed).
rw_tool_build() {
    local dir=$KID_TMP/tool
    mkdir -p "$dir" && cp test/server/44-logical_message_tool.c "$dir/logical_message_tool.c" &&
        printf '%s\n' 'MODULES = logical_message_tool' 'override with_llvm = no' \
            'PG_CFLAGS = -Werror=implicit-function-declaration' \
            'PGXS := $(shell $(PG_CONFIG) --pgxs)' 'include $(PGXS)' >"$dir/Makefile" &&
        make -s -C "$dir" PG_CONFIG="$PG_CONFIG" >"$dir/build.log" 2>&1 ||
        { cat "$dir/build.log"; return 1; }
}
need "the helper test/server/44-logical_message_tool.c builds (PGXS)" rw_tool_build || { kid_finish; exit 1; }
RW_TOOL=$KID_TMP/tool/logical_message_tool.so

as_postgres mkdir -p "$RW_ARCH"
cluster_init rw_p $RW_P "wal_level = logical" "archive_mode = on" \
    "archive_command = 'test ! -f $RW_ARCH/%f && cp %p $RW_ARCH/%f'" "wal_keep_size = '1GB'"
cluster_start rw_p || exit 1
rwq -c "CREATE EXTENSION kid" -c "CREATE EXTENSION pg_walinspect" -c "
CREATE TABLE rw_sno (id sno PRIMARY KEY DEFAULT sno_new(), made timestamptz NOT NULL DEFAULT clock_timestamp(), round int NOT NULL DEFAULT 0);
CREATE TABLE rw_tid (id atproto_tid PRIMARY KEY DEFAULT tid_new(), made timestamptz NOT NULL DEFAULT clock_timestamp(), round int NOT NULL DEFAULT 0);
CREATE TABLE rw_koid (id koid PRIMARY KEY DEFAULT koid_new(), made timestamptz NOT NULL DEFAULT clock_timestamp(), round int NOT NULL DEFAULT 0);
CREATE TABLE rw_uid (id uid PRIMARY KEY DEFAULT uid_new(), made timestamptz NOT NULL DEFAULT clock_timestamp(), round int NOT NULL DEFAULT 0);
CREATE TABLE rw_uidg (id uid_global PRIMARY KEY DEFAULT uid_global_new(), made timestamptz NOT NULL DEFAULT clock_timestamp(), round int NOT NULL DEFAULT 0);
CREATE TABLE rw_uuid (id uuid PRIMARY KEY DEFAULT uuidv7_new(), made timestamptz NOT NULL DEFAULT clock_timestamp(), round int NOT NULL DEFAULT 0);
CREATE PUBLICATION rw_pub;" >/dev/null
need "the helper's function loads" rwq -c "CREATE FUNCTION logical_message_write(oid, bool, bytea, bytea, bytea) RETURNS pg_lsn
    AS '$RW_TOOL' LANGUAGE C STRICT"
rwq -c "SELECT pg_create_logical_replication_slot('rw_slot', 'pgoutput')" >/dev/null

# Before any id: the base backup of the point-in-time restores, and the
# standbys (their kid.lease holds no mark: what they know comes from WAL).
need "a base backup before the load" as_postgres "$PG_BIN/pg_basebackup" -h "$KID_TMP" -p $RW_P -U postgres \
    -D "$KID_TMP/rw_b0" -X stream -c fast
standby_init rw_a_nokid $RW_P 54441 "shared_preload_libraries = ''" "archive_mode = off"
cluster_start rw_a_nokid
standby_init rw_a_kid $RW_P 54442 "shared_preload_libraries = '$RW_TOOL,kid'" "archive_mode = off"
# Where (a) with kid starts replaying: the tool must see every message from there on.
rw_a_kid_start=$(sed -n 's/^START WAL LOCATION: \([^ ]*\) .*/\1/p' "$KID_TMP/rw_a_kid/data/backup_label")
faketime_cluster_start rw_a_kid

# The order of a lease write: kid.lease first, then the message.  kid.lease
# is written through kid.lease.tmp; made a FIFO that nobody reads, it holds
# the backend in open() (its wait channel says so) before the file is
# written, and no message of the renewal may be in the WAL then: a base
# backup that copies the old file before a renewal always finds the
# renewal's message in the WAL it replays.  Then the FIFO is moved away and
# read: the write fails (ERROR), the id is not handed out.
rw_fifo=$KID_TMP/rw_p/data/kid.lease.tmp
as_postgres mkfifo "$rw_fifo"
rw_order_lsn=$(rwq -c "SELECT pg_current_wal_insert_lsn()")
PGAPPNAME=rw_order kpsql $RW_P -d postgres -c "SELECT koid_new()" >"$KID_TMP/rw_order.out" 2>&1 &
rw_order=$!
rw_order_pid() { rw_opid=$(rwq -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'rw_order'"); [ -n "$rw_opid" ]; }
rw_wait() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
rw_in_open() { [ "$(cat /proc/"$rw_opid"/wchan 2>/dev/null)" = wait_for_partner ]; }
# (Kid's messages since then; a message of the tool's, flushed, ends the range read.)
rw_order_msgs() {
    rwq -c "SELECT logical_message_write(1, false, '\\x6f7264657200', '', '')" \
        -c "SELECT count(*) FROM pg_get_wal_records_info('$rw_order_lsn', pg_current_wal_flush_lsn()) WHERE resource_manager = 'LogicalMessage' AND description LIKE '%prefix \"kid\";%'" | tail -1
}
if need "a backend renews the lease" rw_wait rw_order_pid &&
    need "the backend waits in open() on kid.lease.tmp (wait channel wait_for_partner)" rw_wait rw_in_open; then
    expect_eq "order: while kid.lease is being written, the renewal's message is not in the WAL yet" \
        "$(rw_order_msgs)" 0
fi
as_postgres mv "$rw_fifo" "$rw_fifo.held"
cat "$rw_fifo.held" >/dev/null
wait $rw_order
as_postgres rm -f "$rw_fifo.held"
expect_eq "order: the failed write of kid.lease fails the call (no id) and leaves no message" \
    "$(grep -c 'ERROR:  could not open file "kid.lease.tmp"' "$KID_TMP/rw_order.out") $(rw_order_msgs)" "1 0"

# The first tid of the server renews the lease of its line.  The flush
# position is read in the same statement, right after tid_new() returned:
# nothing there waits for the WAL, and a read-only statement's end would
# flush nothing.  Every message of kid's between the statement's start and
# the end of the WAL (pg_walinspect) must end at or before it.
rwq -c "CREATE FUNCTION rw_flush_probe(OUT started pg_lsn, OUT flushed pg_lsn) LANGUAGE plpgsql AS \$\$
BEGIN
    started := pg_current_wal_insert_lsn();
    PERFORM tid_new();
    flushed := pg_current_wal_flush_lsn();
END \$\$"
IFS='|' read -r rw_started rw_flushed <<<"$(rwq -c "SELECT * FROM rw_flush_probe()")"
# (The tool's message, which it flushes, ends the range read: a commit need
# not flush, txid_current()'s for one, which wrote no WAL of its own.)
expect_eq "order: the renewal's message is flushed before tid_new() returns the first id under it" \
    "$(rwq -c "SELECT logical_message_write(1, false, '\\x666c75736800', '', '')" -c "SELECT count(*) > 0, bool_and(end_lsn <= '$rw_flushed') FROM pg_get_wal_records_info('$rw_started', pg_current_wal_flush_lsn()) WHERE resource_manager = 'LogicalMessage' AND description LIKE 'non-transactional, prefix \"kid\";%'" | tail -1)" \
    "t|t"

# The load: 3 clients, 10 ids of each of five schemes per transaction.
cat >"$KID_TMP/rw_load.sql" <<'SQL'
BEGIN;
INSERT INTO rw_sno (round) SELECT 0 FROM generate_series(1, 10);
INSERT INTO rw_tid (round) SELECT 0 FROM generate_series(1, 10);
INSERT INTO rw_koid (round) SELECT 0 FROM generate_series(1, 10);
INSERT INTO rw_uid (round) SELECT 0 FROM generate_series(1, 10);
INSERT INTO rw_uidg (round) SELECT 0 FROM generate_series(1, 10);
COMMIT;
SQL
chmod 644 "$KID_TMP/rw_load.sql"
"$PG_BIN/pgbench" -h "$KID_TMP" -p $RW_P -U postgres -n -c 3 -j 2 -T 20 -R 60 \
    -f "$KID_TMP/rw_load.sql" postgres >"$KID_TMP/rw_pgbench.log" 2>&1 &
rw_load=$!
rw_rows() { [ "$(rwq -c "SELECT count(*) >= 3000 FROM rw_tid")" = t ]; }
need "the load made 3,000 tids" rw_wait rw_rows

# (b)'s target, in the middle of the load: every id made before rw_before
# was made before the restore point.
rw_before=$(rwq -c "SELECT clock_timestamp()")
rw_target=$(rwq -c "SELECT pg_create_restore_point('rw_mid')")
rw_after=$(rwq -c "SELECT clock_timestamp()")

# (c)'s base backup, during the load, slowed down so that it is still
# copying when the first uuids are made: their lease message is in the
# backup's WAL (replayed by its restore), whatever the load's timing.
as_postgres "$PG_BIN/pg_basebackup" -h "$KID_TMP" -p $RW_P -U postgres -D "$KID_TMP/rw_c" \
    -X stream -c fast --max-rate=4M >"$KID_TMP/rw_c.log" 2>&1 &
rw_bb=$!
rw_copying() { [ "$(rwq -c "SELECT count(*) FROM pg_stat_progress_basebackup WHERE phase = 'streaming database files'")" = 1 ]; }
need "pg_basebackup is copying files" rw_wait rw_copying
rw_bb_before=$(rwq -c "SELECT clock_timestamp()")
rw_uuid_lsn=$(rwq -c "INSERT INTO rw_uuid (round) SELECT 0 FROM generate_series(1, 100)" -c "SELECT pg_current_wal_insert_lsn()")
need "pg_basebackup during the load" wait $rw_bb
rw_bb_end=$(sed -n 's/.*"End-LSN": "\([^"]*\)".*/\1/p' "$KID_TMP/rw_c/backup_manifest")
need "the backup's WAL ends after the first uuids ($rw_bb_end > $rw_uuid_lsn)" \
    test "$(rwq -c "SELECT '$rw_bb_end'::pg_lsn > '$rw_uuid_lsn'")" = t
rw_bb_after=$(rwq -c "SELECT clock_timestamp()")

wait $rw_load
expect_eq "the load: pgbench ran without error (no duplicate on the primary)" "$?" 0

# Messages kid did not write (the primary generates no more from here).
rw_le() { # BYTES VALUE: VALUE as BYTES little-endian bytes, in hex
    local hex out="" i
    hex=$(printf "%0$(($1 * 2))x" "$2")
    for ((i = ${#hex} - 2; i >= 0; i -= 2)); do out+=${hex:i:2}; done
    echo "$out"
}
rw_payload() { # MARK_US: kid's lease payload (layout 2) with every line at MARK_US, in hex
    local out line hex
    out=$(rw_le 4 2)$(rw_le 4 6)$(rw_le 8 "$1")$(rw_le 4 0)$(rw_le 4 0)
    for line in "sno tick 0" "sno tick 1" "atproto_tid" koid uid uuid; do
        hex=$(printf '%s' "$line" | od -An -tx1 | tr -d ' \n')
        while [ ${#hex} -lt 32 ]; do hex+=00; done
        out+=$hex$(rw_le 8 "$1")$(rw_le 8 $([ "$line" = uid ] && echo 8 || echo 0))$(rw_le 8 0)
    done
    echo "$out"
}
rw_far=$(rw_payload 4102444800000000) # 2100-01-01
rw_low=$(rw_payload 1000000)          # 1970-01-01 00:00:01
[ ${#rw_far} = 528 ] || echo "rw_payload: ${#rw_far} hex digits, not 264 bytes"
rw_marks_sql="SELECT string_agg(scheme || '=' || coalesce(replayed_until::text, '-'), ' ' ORDER BY scheme) || ' ' || max(replayed_records) FROM kid_node_info()"
rw_a_kid_q() { kpsql 54442 -d postgres "$@"; }
rw_load_end=$(rwq -c "SELECT pg_current_wal_flush_lsn()")
need "(a) with kid replayed the load" wait_replayed 54442 "$rw_load_end"
rw_marks0=$(rw_a_kid_q -c "$rw_marks_sql")
rw_forged() { # WHAT SQL: after SQL is replayed, (a) with kid shows the same marks and count
    local lsn
    # txid_current() commits a transaction with an xid; that commit wrote no
    # WAL before its commit record, so it is asynchronous: the WAL writer
    # flushes the message soon after, and wait_replayed waits for that.
    lsn=$(rwq -c "$2" -c "SELECT pg_current_wal_insert_lsn()" -c "SELECT txid_current()" | tail -2 | head -1) || return 1
    wait_replayed 54442 "$lsn" || return 1
    expect_eq "forged: $1 leaves the replayed marks and the replay count unchanged" \
        "$(rw_a_kid_q -c "$rw_marks_sql")" "$rw_marks0"
}
rw_forged "pg_logical_emit_message(false, 'kid', a lease payload of 2100) from SQL" \
    "SELECT pg_logical_emit_message(false, 'kid', '\\x$rw_far'::bytea)"
rw_forged "pg_logical_emit_message(true, 'kid', a lease payload of 2100) from SQL" \
    "SELECT pg_logical_emit_message(true, 'kid', '\\x$rw_far'::bytea)"
rw_forged "a message of database 0 with the prefix \"kidx\"" \
    "SELECT logical_message_write(0, false, '\\x6b69647800', '\\x$rw_far', '')"
rw_forged "a transactional message of database 0 with the prefix \"kid\"" \
    "SELECT logical_message_write(0, true, '\\x6b696400', '\\x$rw_far', '')"
rw_forged "a message of database 0, prefix \"kid\", 8 bytes past its payload" \
    "SELECT logical_message_write(0, false, '\\x6b696400', '\\x$rw_far', '\\x0000000000000000')"
# Of kid's form, with marks below every mark: counted, nothing rises.
rw_lsn=$(rwq -c "SELECT logical_message_write(0, false, '\\x6b696400', '\\x$rw_low', '')")
need "(a) with kid replayed the message of kid's form" wait_replayed 54442 "$rw_lsn"
expect_eq "a message of kid's form (database 0, \"kid\", non-transactional) is replayed: counted, no mark lowered" \
    "$(rw_a_kid_q -c "$rw_marks_sql")" "${rw_marks0% *} $((${rw_marks0##* } + 1))"

# What the WAL holds (kid's messages: those of the load), and what a
# subscriber's decoding sees.
rw_end=$(rwq -c "SELECT txid_current()" -c "SELECT pg_current_wal_flush_lsn()" | tail -1)
# Layout 2: a 24-byte header and 40 bytes per lease line (as many as
# kid_lease() lists); the record adds 57 bytes (PostgreSQL's record and data
# block headers, the message header, the prefix).
rw_lines=$(rwq -c "SELECT count(*) FROM kid_lease()")
rw_payload_len=$((24 + 40 * rw_lines))
rw_kid_msgs="FROM pg_get_wal_records_info('$rw_a_kid_start', '$rw_load_end') WHERE resource_manager = 'LogicalMessage' AND description LIKE 'non-transactional, prefix \"kid\"; payload ($rw_payload_len bytes): 02 00 00 00 $(printf '%02x' "$rw_lines") 00 00 00 %'"
expect_eq "pg_walinspect: kid's messages are LogicalMessage records (prefix \"kid\", layout 2, $rw_lines lines), $((57 + rw_payload_len)) bytes each" \
    "$(rwq -c "SELECT count(*) > 10, string_agg(DISTINCT record_type || ' ' || record_length, ',') $rw_kid_msgs")" "t|MESSAGE $((57 + rw_payload_len))"
rw_decoded=$(rwq -c "SELECT count(*) FILTER (WHERE get_byte(data, 0) = 77) || ' ' ||
    count(*) FILTER (WHERE get_byte(data, 0) = 77 AND position('\\x6b696400'::bytea in data) = 11)
    FROM pg_logical_slot_get_binary_changes('rw_slot', NULL, NULL, 'proto_version', '1', 'publication_names', 'rw_pub', 'messages', 'true')")
expect_eq "pgoutput (a subscriber's decoding) sees the two messages from SQL, none of kid's" "$rw_decoded" "2 2"
rwq -c "SELECT pg_drop_replication_slot('rw_slot')" >/dev/null
expect_eq "(a) with kid: the tool preloaded before kid saw every logical message (kid's wrapper calls the redo it replaced)" \
    "$(grep -c 'logical_message_tool: redo of a logical message' "$KID_TMP/rw_a_kid/server.log")" \
    "$(rwq -c "SELECT count(*) FROM pg_get_wal_records_info('$rw_a_kid_start', '$rw_end') WHERE resource_manager = 'LogicalMessage'")"

# What every check below compares with, read on the primary.
rw_tables="rw_sno rw_tid rw_koid rw_uid rw_uidg rw_uuid"
rw_digest() { # PORT: per table, row count and a digest of its ids (round 0)
    local t sql=""
    for t in $rw_tables; do sql="$sql${sql:+ || ' ' || }(SELECT count(*) || ':' || md5(coalesce(string_agg(id::text, ',' ORDER BY id::text), '')) FROM $t WHERE round = 0)"; done
    kpsql "$1" -d postgres -c "SELECT $sql"
}
rw_max() { # TABLE [WHERE]: the largest id, as text
    rwq -c "SELECT id FROM $1 ${2:+WHERE $2} ORDER BY id DESC LIMIT 1"
}
rw_primary=$(rw_digest $RW_P)
rw_tids=$(rwq -c "SELECT count(*) FROM rw_tid")
rw_ref_all="$(rw_max rw_tid) $(rw_max rw_uid) $(rw_max rw_uidg) $(rw_max rw_uuid)"
rw_ref_b="$(rw_max rw_tid "made < '$rw_before'") $(rw_max rw_uid "made < '$rw_before'") $(rw_max rw_uidg "made < '$rw_before'")"
rw_ref_c="$(rw_max rw_tid "made < '$rw_bb_before'") $(rw_max rw_uid "made < '$rw_bb_before'") $(rw_max rw_uidg "made < '$rw_bb_before'") $(rw_max rw_uuid "made < '$rw_bb_before'")"
rwq -c "SELECT pg_switch_wal()" >/dev/null
rw_seg=$(rwq -c "SELECT pg_walfile_name('$rw_end')")
rw_archived() { [ -f "$RW_ARCH/$rw_seg" ]; }
need "the WAL up to the end is archived" rw_wait rw_archived

# (a) without kid: replayed to the end, decodes.
check "(a) without kid: the standby replayed every record, kid's messages too" wait_replayed 54441 "$rw_end"
expect_eq "(a) without kid: the standby holds the primary's ids (counts and digests per table)" "$(rw_digest 54441)" "$rw_primary"
expect_eq "(a) without kid: its ids decode to the load's times" \
    "$(kpsql 54441 -d postgres -c "SELECT count(*) = (SELECT count(*) FROM rw_tid) FROM rw_tid WHERE tid_to_timestamp(id) BETWEEN now() - interval '10 minutes' AND now()")" t
cluster_stop rw_a_nokid

# (d) the primary killed, started without kid: crash recovery replays kid's messages.
rw_redo=$(rwq -c "SELECT redo_lsn FROM pg_control_checkpoint()")
need "kid's messages since the primary's last checkpoint" \
    test "$(rwq -c "SELECT count(*) > 0 FROM pg_get_wal_records_info('$rw_redo', pg_current_wal_flush_lsn()) WHERE resource_manager = 'LogicalMessage' AND description LIKE 'non-transactional, prefix \"kid\";%'")" = t
check "(d) the primary is killed (SIGKILL)" crash_postmaster rw_p
sed -i "s/^shared_preload_libraries = 'kid'/shared_preload_libraries = ''/" "$KID_TMP/rw_p/data/postgresql.conf"
check "(d) without kid, the primary starts (crash recovery)" cluster_start rw_p 2>/dev/null # pg_ctl warns about the dead postmaster's pid file
expect_eq "(d) it ran crash recovery" "$(grep -c 'database system was not properly shut down; automatic recovery in progress' "$KID_TMP/rw_p/server.log")" 1
expect_eq "(d) it holds every id and decodes them" \
    "$(rw_digest $RW_P) $(rwq -c "SELECT max(uid_to_timestamp(id)) < now() FROM rw_uid")" "$rw_primary t"
cluster_stop rw_p

# The restores: (b) from the archive to the restore point, (c) the backup
# taken during the load; each without kid, then a fresh copy with kid.
rw_restore() { # NAME FROM PORT [postgresql.conf lines...]
    local name=$1 from=$2 port=$3
    shift 3
    as_postgres mkdir -p "$KID_TMP/$name" && as_postgres cp -a "$from" "$KID_TMP/$name/data" || return 1
    {
        echo "port = $port"
        echo "archive_mode = off"
        for line in "$@"; do echo "$line"; done
    } >>"$KID_TMP/$name/data/postgresql.conf"
}
rw_pitr() { # NAME PORT [lines]
    rw_restore "$1" "$KID_TMP/rw_b0" "$2" "restore_command = 'cp $RW_ARCH/%f %p'" \
        "recovery_target_name = 'rw_mid'" "recovery_target_action = 'promote'" "${@:3}"
    as_postgres touch "$KID_TMP/$1/data/recovery.signal"
}
rw_open() { # PORT: until the server runs queries out of recovery
    for _ in $(seq 600); do
        [ "$(kpsql "$1" -d postgres -c "SELECT pg_is_in_recovery()" 2>/dev/null)" = f ] && return 0
        sleep 0.1
    done
    return 1
}

rw_pitr rw_b_nokid 54443 "shared_preload_libraries = ''"
cluster_start rw_b_nokid
check "(b) without kid: the point-in-time restore reaches its target and opens" rw_open 54443
expect_eq "(b) without kid: recovery stopped at the restore point" \
    "$(grep -c 'recovery stopping at restore point "rw_mid"' "$KID_TMP/rw_b_nokid/server.log")" 1
rw_b_digest=$(rw_digest 54443)
expect_eq "(b) without kid: the ids decode to times before the target, and it holds ids from the middle of the load" \
    "$(kpsql 54443 -d postgres -c "SELECT (SELECT max(tid_to_timestamp(id)) FROM rw_tid) < '$rw_after' AND (SELECT max(sno_to_timestamp(id)) FROM rw_sno) < '$rw_after'
        AND (SELECT max(koid_to_timestamp(id)) FROM rw_koid) < '$rw_after' AND (SELECT count(*) FROM rw_tid) BETWEEN 3000 AND $rw_tids - 1")" t
cluster_stop rw_b_nokid

rw_restore rw_c_nokid "$KID_TMP/rw_c" 54445 "shared_preload_libraries = ''"
check "(c) without kid: the base backup's restore replays and starts" cluster_start rw_c_nokid
rw_c_digest=$(rw_digest 54445)
expect_eq "(c) without kid: it holds the first uuids, and its ids decode to times before the backup ended" \
    "$(kpsql 54445 -d postgres -c "SELECT (SELECT count(*) FROM rw_uuid) = 100 AND (SELECT max(uid_to_timestamp(id)) < '$rw_bb_after' FROM rw_uid) AND (SELECT max(uuidv7_to_timestamp(id)) < '$rw_bb_after' FROM rw_uuid)")" t
cluster_stop rw_c_nokid

# With kid, the clock 1 h behind: a promotion and two restores opened.
# rw_kid_checks WHAT PORT REF MARGIN: REF the largest tid, uid, uid_global
# (and uuid) ids the server must stay above; MARGIN the floor over the
# replayed marks ("10 seconds" after archive recovery; "file" for the
# larger of the copied kid.lease and the replayed marks).
rw_kid_checks() {
    local what=$1 port=$2 ref=$3 margin=$4 out tid uid uidg uuid
    read -r tid uid uidg uuid <<<"$ref"
    local q="kpsql $port -d postgres"
    expect_eq "$what: kid replayed the lease messages (the wrapper ran), and the clock is 1 h behind them" \
        "$($q -c "SELECT bool_and(replayed_records > 0) AND max(replayed_until) > clock_timestamp() + interval '50 minutes' FROM kid_node_info()")" t
    # The first ids after opening, in one session.
    out=$($q -c "INSERT INTO rw_tid (round) SELECT 1 FROM generate_series(1, 500)" \
        -c "INSERT INTO rw_uid (round) SELECT 1 FROM generate_series(1, 500)" \
        -c "INSERT INTO rw_uidg (round) SELECT 1 FROM generate_series(1, 500)" \
        -c "INSERT INTO rw_uuid (round) SELECT 1 FROM generate_series(1, 500)" \
        -c "INSERT INTO rw_sno (round) SELECT 1 FROM generate_series(1, 500)" -c "SELECT 'inserted'" 2>&1)
    expect_eq "$what: 500 new ids of tid, uid, uid_global, uuid and sno go into the primary keys (no duplicate)" "$out" inserted
    if [ "$margin" = file ]; then
        expect_eq "$what: the floors are the larger of the copied kid.lease and the replayed marks" \
            "$($q -c "SELECT bool_and(generator_floor = greatest(startup_floor, replayed_until)) FROM kid_node_info() WHERE scheme IN ('atproto_tid', 'uid', 'uuid')")" t
    else
        expect_eq "$what: the floors are the replayed marks plus $margin" \
            "$($q -c "SELECT bool_and(generator_floor - replayed_until = interval '$margin') FROM kid_node_info() WHERE scheme IN ('atproto_tid', 'uid')")" t
    fi
    expect_eq "$what: new tid, uid and uid_global ids sort above every id before the restore (and every id the primary made that the WAL covered)" \
        "$($q -c "SELECT (SELECT min(id) FROM rw_tid WHERE round = 1) > greatest((SELECT max(id) FROM rw_tid WHERE round = 0), '$tid')
            AND (SELECT min(id) FROM rw_uid WHERE round = 1) > greatest((SELECT max(id) FROM rw_uid WHERE round = 0), '$uid')
            AND (SELECT min(id) FROM rw_uidg WHERE round = 1) > greatest((SELECT max(id) FROM rw_uidg WHERE round = 0), '$uidg')")" t
    expect_eq "$what: new uuids sort above every earlier one" \
        "$($q -c "SELECT (SELECT min(id::text) FROM rw_uuid WHERE round = 1) > coalesce((SELECT max(id::text) FROM rw_uuid WHERE round = 0), '')${uuid:+ AND (SELECT min(id::text) FROM rw_uuid WHERE round = 1) > '$uuid'}")" t
    expect_eq "$what: new sno ids are on the other timeline (tick 1), the load's on tick 0" \
        "$($q -c "SELECT count(*) FILTER (WHERE round = 1 AND sno_tick(id) = 1) || ' ' || bool_and(sno_tick(id) = 0) FILTER (WHERE round = 0) FROM rw_sno")" "500 true"
    out=$($q -v VERBOSITY=verbose -c "SET kid.koid_max_clock_wait_ms = 0" -c "SELECT koid_new()" 2>&1)
    expect_eq "$what: koid refuses (55000) while the clock is behind its floor" "$(grep -c 'ERROR:  55000' <<<"$out")" 1
}
faketime_set "$FT_FILE" -3600

# (a) with kid: promoted.
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/rw_a_kid/data" -w -t 60 promote >/dev/null
check "(a) with kid: the standby is promoted" rw_open 54442
expect_eq "(a) with kid: it holds the primary's ids" "$(rw_digest 54442)" "$rw_primary"
rw_kid_checks "(a) with kid, promoted" 54442 "$rw_ref_all" "10 seconds"
cluster_stop rw_a_kid

# (b) with kid: the same point in time.
rw_pitr rw_b_kid 54444
faketime_cluster_start rw_b_kid
check "(b) with kid: the point-in-time restore reaches its target and opens" rw_open 54444
expect_eq "(b) with kid: it holds what the restore without kid held" "$(rw_digest 54444)" "$rw_b_digest"
rw_kid_checks "(b) with kid, opened at the restore point" 54444 "$rw_ref_b" "10 seconds"
cluster_stop rw_b_kid

# (c) with kid: the backup's restore.
rw_restore rw_c_kid "$KID_TMP/rw_c" 54446
check "(c) with kid: the base backup's restore starts" faketime_cluster_start rw_c_kid
expect_eq "(c) with kid: it holds what the restore without kid held" "$(rw_digest 54446)" "$rw_c_digest"
rw_kid_checks "(c) with kid, opened" 54446 "$rw_ref_c" file
cluster_stop rw_c_kid

# A message of kid's form whose payload names a lease line this kid does
# not know, or a line twice: crash recovery with kid stops (PANIC) at it.
# The primary, kid back in shared_preload_libraries, writes the message
# through the tool and is killed; started again, it replays the message.
# Then, started once without kid, it replays past the message (and its
# end-of-recovery checkpoint leaves it behind) for the next one.
rw_entry() { # NAME MARK: a line's entry of the payload (setting and node field 0), in hex
    local hex
    hex=$(printf '%s' "$1" | od -An -tx1 | tr -d ' \n')
    while [ ${#hex} -lt 32 ]; do hex+=00; done
    echo "$hex$(rw_le 8 "$2")$(rw_le 8 0)$(rw_le 8 0)"
}
rw_header() { # LINES: the payload's header (layout 2), in hex
    echo "$(rw_le 4 2)$(rw_le 4 "$1")$(rw_le 8 4102444800000000)$(rw_le 4 0)$(rw_le 4 0)"
}
rw_write() { # PAYLOAD: a message of kid's form (database 0, "kid", non-transactional), flushed
    rwq -c "SELECT logical_message_write(0, false, '\\x6b696400', '\\x$1', '')" >/dev/null
}
rw_refused() { # WHAT PAYLOAD WHY
    local off
    sed -i "s/^shared_preload_libraries = ''$/shared_preload_libraries = 'kid'/" "$KID_TMP/rw_p/data/postgresql.conf"
    need "$1: the primary starts with kid" cluster_start rw_p || return 1
    need "$1: the primary writes the message" rw_write "$2" &&
        need "$1: the primary is killed (SIGKILL)" crash_postmaster rw_p || return 1
    off=$(log_size "$KID_TMP/rw_p/server.log")
    if cluster_start rw_p >/dev/null 2>&1; then
        check "$1: crash recovery with kid stops at it" false
        cluster_stop rw_p immediate
    else
        expect_eq "$1: crash recovery with kid stops at it (PANIC, naming why)" \
            "$(tail -c +$((off + 1)) "$KID_TMP/rw_p/server.log" | grep -c "PANIC:  kid: cannot replay a lease WAL record: $3")" 1
    fi
    sed -i "s/^shared_preload_libraries = 'kid'$/shared_preload_libraries = ''/" "$KID_TMP/rw_p/data/postgresql.conf"
    need "$1: without kid, the primary replays past it and starts" cluster_start rw_p 2>/dev/null &&
        cluster_stop rw_p
}
rw_refused "a message naming a lease line this kid does not know (\"uuidv9\")" \
    "$(rw_header 1)$(rw_entry uuidv9 4102444800000000)" "it names a lease line this kid does not know"
rw_refused "a message naming the line \"koid\" twice" \
    "$(rw_header 2)$(rw_entry koid 4102444800000000)$(rw_entry koid 4102444800000000)" "it names a lease line twice"

kid_finish
