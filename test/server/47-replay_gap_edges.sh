#!/usr/bin/env bash
# kid.lease's WAL state at its edges (runs alone or from run-all.sh; its
# own servers on ports 54470-54482), after a hostile review of
# 46-replay_gap's change, one case per finding:
#   A. a backup taken from a standby that replayed without kid (its
#      kid.lease the primary's copy, a backup_label present): refused; the
#      same backup of a standby with kid: generates, above the primary's ids;
#   F. a kid.lease without marks, written by a promotion (timeline 2), its
#      copy a primary on timeline 2 making ids an hour ahead, replayed
#      without kid by the original and promoted again (timeline 3), then
#      started with kid: refused (only pg_upgrade's new cluster, on a
#      timeline no promotion made, passes without marks);
#   E. a kid.lease the startup process cannot write at a checkpoint record
#      (a directory named kid.lease.tmp, as a full disk): a WARNING, and
#      the standby goes on replaying.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ids="ARRAY(SELECT line FROM kid_lease() WHERE line NOT LIKE '% horizon' ORDER BY line)"
ahead() { # PORT: every id line's floor an hour ahead (a lease message), then 1000 tids
    kpsql "$1" -d postgres -c "SELECT count(*) FROM kid_raise_floors($ids, ARRAY(SELECT clock_timestamp() + interval '1 hour' FROM kid_lease() WHERE line NOT LIKE '% horizon'))" \
        -c "INSERT INTO t SELECT FROM generate_series(1, 1000)" >/dev/null
}
opened() { for _ in $(seq 200); do [ "$(kpsql "$1" -d postgres -c "SELECT pg_is_in_recovery()")" = f ] && return 0; sleep 0.1; done; return 1; }
# try PORT NEWEST: "refused" (55000), or whether a new tid sorts above NEWEST
try() {
    local out
    out=$(kpsql "$1" -d postgres -v VERBOSITY=verbose -c "SELECT tid_new() > '$2'::atproto_tid" 2>&1)
    if grep -q '55000' <<<"$out"; then echo refused; else echo "above: $out"; fi
}

# ---------------------------------------------------------------- A
# g, a kid primary; s a cold copy of g (no backup_label.old), a standby
# without kid (s1) or with kid (s2); g makes ids an hour ahead, which s
# replays; r, a pg_basebackup of s, opened with kid.
a_case() { # NAME S_PRELOAD
    local name=$1 preload=$2 G=54470 S=54471 R=54472 gmax end
    cluster_init "${name}_g" $G "wal_level = replica" "max_wal_senders = 10" || return 1
    cluster_start "${name}_g" || return 1
    kpsql $G -d postgres -c "CREATE EXTENSION kid" -c "CREATE TABLE t (id atproto_tid PRIMARY KEY DEFAULT tid_new())" \
        -c "INSERT INTO t SELECT FROM generate_series(1, 100)" >/dev/null
    cluster_stop "${name}_g"
    as_postgres mkdir -p "$KID_TMP/${name}_s" && as_postgres cp -a "$KID_TMP/${name}_g/data" "$KID_TMP/${name}_s/data"
    as_postgres touch "$KID_TMP/${name}_s/data/standby.signal"
    { echo "port = $S"; echo "shared_preload_libraries = '$preload'"; echo "primary_conninfo = 'host=$KID_TMP port=$G user=postgres'"; } \
        >>"$KID_TMP/${name}_s/data/postgresql.conf"
    cluster_start "${name}_g" || return 1
    cluster_start "${name}_s" || return 1
    ahead $G
    gmax=$(kpsql $G -d postgres -c "SELECT max(id) FROM t")
    end=$(kpsql $G -d postgres -c "CHECKPOINT" -c "SELECT pg_current_wal_insert_lsn()")
    wait_replayed $S "$end" && kpsql $S -d postgres -c CHECKPOINT >/dev/null
    as_postgres mkdir -p "$KID_TMP/${name}_r"
    as_postgres "$PG_BIN/pg_basebackup" -h "$KID_TMP" -p $S -U postgres -D "$KID_TMP/${name}_r/data" -X stream -c fast || return 1
    cluster_stop "${name}_g"
    cluster_stop "${name}_s"
    as_postgres rm -f "$KID_TMP/${name}_r/data/standby.signal"
    { echo "port = $R"; echo "shared_preload_libraries = 'kid'"; } >>"$KID_TMP/${name}_r/data/postgresql.conf"
    cluster_start "${name}_r" || return 1
    opened $R
    A_RESULT=$(try $R "$gmax")
    cluster_stop "${name}_r"
}
A_RESULT=none
a_case ra ""
expect_eq "A. a base backup of a standby that replayed without kid, opened with kid: generation refused (55000)" "$A_RESULT" refused
A_RESULT=none
a_case rb kid
expect_eq "A. ... the same backup of a standby with kid generates, above the primary's newest" "$A_RESULT" "above: t"

# ---------------------------------------------------------------- F
H=54475 S=54476 Q=54477
cluster_init f_h $H "wal_level = replica" "max_wal_senders = 10" || exit 1
cluster_start f_h || exit 1
kpsql $H -d postgres -c "CREATE EXTENSION kid" -c "CREATE TABLE t (id atproto_tid PRIMARY KEY DEFAULT tid_new())" >/dev/null
standby_init f_s $H $S || exit 1
cluster_start f_s || exit 1
wait_replayed $S "$(kpsql $H -d postgres -c "SELECT pg_current_wal_insert_lsn()")"
cluster_stop f_h
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/f_s/data" -w -t 60 promote >/dev/null
need "F. s promoted (timeline 2)" opened $S
for _ in $(seq 100); do [ -f "$KID_TMP/f_s/data/kid.lease" ] && break; sleep 0.1; done
kpsql $S -d postgres -c CHECKPOINT >/dev/null
cluster_stop f_s
expect_eq "F. s's kid.lease after its promotion: a primary's (state 1), on timeline 2" \
    "$(awk '{print $6, $7}' "$KID_TMP/f_s/data/kid.lease")" "1 2"
as_postgres mkdir -p "$KID_TMP/f_q" && as_postgres cp -a "$KID_TMP/f_s/data" "$KID_TMP/f_q/data"
echo "port = $Q" >>"$KID_TMP/f_q/data/postgresql.conf"
cluster_start f_q || exit 1
as_postgres touch "$KID_TMP/f_s/data/standby.signal"
echo "shared_preload_libraries = ''" >>"$KID_TMP/f_s/data/postgresql.conf"
echo "primary_conninfo = 'host=$KID_TMP port=$Q user=postgres'" >>"$KID_TMP/f_s/data/postgresql.auto.conf"
cluster_start f_s || exit 1
ahead $Q
qmax=$(kpsql $Q -d postgres -c "SELECT max(id) FROM t")
wait_replayed $S "$(kpsql $Q -d postgres -c CHECKPOINT -c "SELECT pg_current_wal_insert_lsn()")" && kpsql $S -d postgres -c CHECKPOINT >/dev/null
cluster_stop f_q
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/f_s/data" -w -t 60 promote >/dev/null
need "F. s promoted again, without kid (timeline 3)" opened $S
kpsql $S -d postgres -c CHECKPOINT >/dev/null
cluster_stop f_s
echo "shared_preload_libraries = 'kid'" >>"$KID_TMP/f_s/data/postgresql.conf"
cluster_start f_s || exit 1
expect_eq "F. ... started with kid: generation refused (55000), not ids below q's" "$(try $S "$qmax")" refused
cluster_stop f_s

# ---------------------------------------------------------------- E
G=54480 S=54481
cluster_init e_g $G "wal_level = replica" "max_wal_senders = 10" || exit 1
cluster_start e_g || exit 1
kpsql $G -d postgres -c "CREATE EXTENSION kid" -c "SELECT tid_new()" >/dev/null
standby_init e_s $G $S || exit 1
cluster_start e_s || exit 1
wait_replayed $S "$(kpsql $G -d postgres -c "SELECT pg_current_wal_insert_lsn()")"
e_pid=$(cluster_pid e_s)
as_postgres mkdir "$KID_TMP/e_s/data/kid.lease.tmp"
offset=$(log_size "$KID_TMP/e_s/server.log")
end=$(kpsql $G -d postgres -c CHECKPOINT -c "SELECT pg_current_wal_insert_lsn()")
check "E. kid.lease not writable at a checkpoint record the standby replays: a WARNING" \
    wait_for_log "$KID_TMP/e_s/server.log" "$offset" 'WARNING:  kid: could not create "kid.lease.tmp"'
end=$(kpsql $G -d postgres -c "CREATE TABLE after_e ()" -c "SELECT pg_current_wal_insert_lsn()")
check "E. ... and the standby goes on replaying (its postmaster alive, the WAL after the record replayed)" \
    wait_replayed $S "$end"
expect_eq "E. ... its postmaster is the one started" "$(cluster_pid e_s)" "$e_pid"
as_postgres rmdir "$KID_TMP/e_s/data/kid.lease.tmp"
cluster_stop e_s
cluster_stop e_g

kid_finish
