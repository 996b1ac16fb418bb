#!/usr/bin/env bash
# Random literals (runs alone or from run-all.sh; uses the "main" cluster).
#
# Valid literals of every kid type (made by the server, plus the edges of
# each type) are mutated at random and fed to the input functions:
#   text    KID_LITERAL_TEXT_N mutations per type (sno, atproto_tid, koid,
#           uid, uid_global, codokey and the atproto_rkey domain), in a
#           SQL_ASCII database (raw bytes 0x01..0xFF) and in a UTF-8 one
#           (multibyte look-alikes, invisible and combining characters):
#           test/literals/text_mutations.sql.  An accepted literal prints back
#           exactly as it came in and is valid by an independent oracle; a
#           rejected one raised 22P02 (23514 for atproto_rkey, whose CHECK
#           agrees with atproto_rkey_is_valid).
#   binary  KID_LITERAL_BINARY_N mutated payloads per type, each loaded by
#           binary COPY (test/literals/binary_mutations.pl): accepted exactly
#           when valid, copied back out byte for byte, rejected with 22P03.
# Throughout, the server must not crash: same postmaster, no backend
# terminated by a signal in the log, an unlogged marker row still there
# (crash recovery would empty it).  KID_LITERAL_SEED replays a run.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

LIT_DIR="$KID_TMP/literals"
LIT_SEED=${KID_LITERAL_SEED:-$(( (RANDOM << 15) | RANDOM ))}
LIT_TEXT_N=${KID_LITERAL_TEXT_N:-20000}
LIT_BINARY_N=${KID_LITERAL_BINARY_N:-2000}
mkdir -p "$LIT_DIR"
echo "seed $LIT_SEED (KID_LITERAL_SEED=$LIT_SEED replays it); $LIT_TEXT_N text and $LIT_BINARY_N binary mutations per type"

ensure_main_cluster || exit 1
lit_started_at=$SECONDS
lit_log_offset=$(stat -c %s "$KID_MAIN_DIR/server.log")
lit_postmaster=$(cluster_pid main)
lit_started=$(kpsql $PORT -d postgres -c "SELECT pg_postmaster_start_time()")
kpsql $PORT -d postgres <<'SQL'
DROP DATABASE IF EXISTS kid_lit_ascii;
DROP DATABASE IF EXISTS kid_lit_utf8;
CREATE DATABASE kid_lit_ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE kid_lit_utf8 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
SQL
kpsql $PORT -d kid_lit_ascii -c "CREATE UNLOGGED TABLE lit_alive AS SELECT 'no crash since' AS marker"

# --- text input ---------------------------------------------------------------
for db in kid_lit_ascii kid_lit_utf8; do
    kpsql $PORT -d $db -f test/literals/text_mutations.sql
    kpsql $PORT -d $db -c "SELECT lit_run($LIT_TEXT_N, $LIT_SEED / 1073741824.0)" >/dev/null
    echo "text input, $db: type|mutations|accepted|rejected|SQLSTATEs|seed literals"
    kpsql $PORT -d $db -c "TABLE lit_summary" | sed 's/^/  /'
    kpsql $PORT -d $db -c "SELECT typ || ': ' || why || ': ' || quote_literal(left(input, 80)) FROM lit_violation LIMIT 20" | sed 's/^/  VIOLATION /'
    expect_eq "random literals, $db: every text mutation of every type round-trips or fails with the expected SQLSTATE" \
        "$(kpsql $PORT -d $db -c "SELECT count(*) FROM lit_violation")" 0
    expect_eq "random literals, $db: $LIT_TEXT_N mutations per type, some accepted and some rejected" \
        "$(kpsql $PORT -d $db -c "SELECT count(*) FROM lit_summary WHERE mutations = $LIT_TEXT_N AND accepted > 0 AND rejected > 0")" 7
done

# --- binary input (binary COPY) ------------------------------------------------
kpsql $PORT -d kid_lit_ascii <<'SQL'
CREATE TABLE lit_bin_sno (n int PRIMARY KEY, id sno);
CREATE TABLE lit_bin_atproto_tid (n int PRIMARY KEY, id atproto_tid);
CREATE TABLE lit_bin_koid (n int PRIMARY KEY, id koid);
CREATE TABLE lit_bin_uid (n int PRIMARY KEY, id uid);
CREATE TABLE lit_bin_uid_global (n int PRIMARY KEY, id uid_global);
CREATE TABLE lit_bin_codokey (n int PRIMARY KEY, id codokey);
SQL
kpsql $PORT -d kid_lit_ascii -F $'\t' -c "
    SELECT typ, encode(CASE typ
        WHEN 'sno' THEN sno_send(lit::sno)
        WHEN 'atproto_tid' THEN atproto_tid_send(lit::atproto_tid)
        WHEN 'koid' THEN koid_send(lit::koid)
        WHEN 'uid' THEN uid_send(lit::uid)
        WHEN 'uid_global' THEN uid_global_send(lit::uid_global)
        WHEN 'codokey' THEN codokey_send(lit::codokey) END, 'hex')
    FROM lit_seed WHERE typ <> 'atproto_rkey' ORDER BY typ, lit" > "$LIT_DIR/binary_seeds.tsv"
perl test/literals/binary_mutations.pl make "$LIT_SEED" "$LIT_BINARY_N" "$LIT_DIR" < "$LIT_DIR/binary_seeds.tsv"
echo "binary COPY: type mutations accepted rejected SQLSTATEs violations"
lit_binary_ok=0
for type in sno atproto_tid koid uid uid_global codokey; do
    kpsql $PORT -d kid_lit_ascii -f "$LIT_DIR/$type.psql" 2> "$LIT_DIR/$type.results"
    perl test/literals/binary_mutations.pl check "$LIT_DIR" "$type" > "$LIT_DIR/$type.check"
    sed 's/^/  /' "$LIT_DIR/$type.check"
    read -r _ lit_n lit_acc lit_rej _ lit_bad < "$LIT_DIR/$type.check"
    [ "${lit_n:-}" = "$LIT_BINARY_N" ] && [ "${lit_acc:-0}" -gt 0 ] && [ "${lit_rej:-0}" -gt 0 ] && [ "${lit_bad:-}" = 0 ] &&
        lit_binary_ok=$((lit_binary_ok + 1))
done
expect_eq "random literals, binary COPY: 6 types, every mutated payload accepted and copied back out unchanged or rejected with 22P03" \
    "$lit_binary_ok" 6

echo "random literals: $((SECONDS - lit_started_at)) s"

# --- the server never restarted --------------------------------------------------
expect_eq "random literals: same postmaster, never restarted" \
    "$(cluster_pid main) $(kpsql $PORT -d postgres -c "SELECT pg_postmaster_start_time()")" "$lit_postmaster $lit_started"
expect_eq "random literals: no crash recovery (the unlogged marker row survived)" \
    "$(kpsql $PORT -d kid_lit_ascii -c "SELECT count(*) FROM lit_alive")" 1
expect_eq "random literals: no backend terminated by a signal or crashed (server log)" \
    "$(tail -c +$((lit_log_offset + 1)) "$KID_MAIN_DIR/server.log" | grep -cE 'terminated by signal|was terminated|exited with exit code|reinitializing|PANIC')" 0

kid_finish
