#!/usr/bin/env bash
# Real clock faults (runs alone or from run-all.sh).  A server runs under
# libfaketime, whose offset is read from a file at every clock call, and
# every generator makes ids while its clock steps back 1 ms, 1 s and 1 hour,
# then across a crash restart, and forward again.  Each follows its policy:
#   sno   first regression -> the other tick-tock timeline; a regression into
#         time covered on both timelines waits (interruptible);
#   tid   last + 1 microsecond;   uid   last + 1 sequence;
#   koid  waits for the clock up to kid.koid_max_clock_wait_ms, then 55000.
# Zero duplicates: every id goes into a primary key.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

# set_offset OFFSET: the faked clock's offset (the file is written by rename,
# never read half-written).
set_offset() { faketime_set "$FT_FILE" "$1"; }
FPORT=54350
# CLOCK_MONOTONIC stays true (faketime_cluster_start): tid and uid advance
# by it while the clock is behind (their trusted time, src/core/trusted_time.h).
need "a server under libfaketime" eval 'cluster_init faulty $FPORT && faketime_cluster_start faulty' || { kid_finish; exit 1; }

fq() { kpsql $FPORT -d postgres "$@"; }
fq -c "CREATE EXTENSION kid" -c "
CREATE TABLE f_sno (id sno PRIMARY KEY, round int);
CREATE TABLE f_tid (id atproto_tid PRIMARY KEY, round int);
CREATE TABLE f_koid (id koid PRIMARY KEY, round int);
CREATE TABLE f_uid (id uid PRIMARY KEY, round int);"

gen_all() { # round, then the generators to run
    local round=$1
    shift
    for g in "$@"; do
        case $g in
        sno) fq -c "INSERT INTO f_sno SELECT sno_new(), $round FROM generate_series(1, 2000)" ;;
        tid) fq -c "INSERT INTO f_tid SELECT tid_new(), $round FROM generate_series(1, 2000)" ;;
        koid) fq -c "SET kid.koid_max_clock_wait_ms = 5000" -c "INSERT INTO f_koid SELECT koid_new(), $round FROM generate_series(1, 2000)" ;;
        uid) fq -c "INSERT INTO f_uid SELECT uid_new(), $round FROM generate_series(1, 2000)" ;;
        esac || return 1
    done
}

check "clock faults: ids at the true time" gen_all 0 sno tid koid uid
expect_eq "clock faults: the server's clock is faked" \
    "$(set_offset -3600; fq -c "SELECT now() < statement_timestamp() OR clock_timestamp() < now() - interval '50 minutes' OR clock_timestamp() < (SELECT max(sno_to_timestamp(id)) FROM f_sno) - interval '50 minutes'"; set_offset +0)" t
set_offset -0.001
check "clock faults: 1 ms back, every generator" gen_all 1 sno tid koid uid
set_offset -1.001
# The first tid and uid after the step are above the last ones (their
# floor), while the clock reads below those.
expect_eq "clock faults: 1 s back, the first tid and uid are above the last ones, the clock behind them" \
    "$(fq -c "SELECT tid_new() > max(id) AND clock_timestamp() < max(tid_to_timestamp(id)) FROM f_tid")$(fq -c "SELECT uid_new() > max(id) AND clock_timestamp() < max(uid_to_timestamp(id)) FROM f_uid")" tt
check "clock faults: 1 s back, every generator (koid waits about 1 s)" gen_all 2 sno tid koid uid
set_offset -3601.001
check "clock faults: 1 h back, tid and uid continue" gen_all 3 tid uid
out=$(fq -v VERBOSITY=verbose -c "SET kid.koid_max_clock_wait_ms = 300" -c "SELECT koid_new()" 2>&1)
expect_eq "clock faults: 1 h back, koid waits 300 ms then fails with 55000" "$(grep -c 'ERROR:  55000' <<<"$out")" 1

# sno's policy lives in one backend's partition: one session steps the clock
# back twice.  Each new backend takes a partition of its own, which never
# saw the earlier times, so only the same session shows the policy.
set_offset +0
out=$(fq -v VERBOSITY=verbose <<SQL 2>&1
INSERT INTO f_sno SELECT sno_new(), 10 FROM generate_series(1, 2000);
\! echo "-1.001" > $FT_FILE.new && mv -f $FT_FILE.new $FT_FILE
INSERT INTO f_sno SELECT sno_new(), 11 FROM generate_series(1, 2000);
SELECT 'ticks ' || count(*) FILTER (WHERE sno_tick(id) = 1) FROM f_sno WHERE round = 11;
\! echo "-3601.001" > $FT_FILE.new && mv -f $FT_FILE.new $FT_FILE
\set ON_ERROR_STOP 0
SET statement_timeout = '500ms';
SELECT sno_new();
SELECT 'alive';
SQL
)
expect_eq "clock faults: sno's first regression moves to the other timeline (tick 1)" "$(grep -c '^ticks 2000$' <<<"$out")" 1
expect_eq "clock faults: sno's second regression into covered time waits, honouring statement_timeout" \
    "$(grep -c 'ERROR:  57014' <<<"$out")" 1
expect_eq "clock faults: the backend survived the cancel" "$(grep -c '^alive$' <<<"$out")" 1
fq -c "SELECT scheme, generated, regressions, overflow_waits, clock_waits, ahead_waits FROM kid_generator_stats()" | sed 's/^/  stats: /'
expect_eq "clock faults: regressions and waits are counted (sno, tid, uid regressions; sno and koid clock waits)" \
    "$(fq -c "SELECT bool_and(regressions > 0) FILTER (WHERE scheme IN ('sno', 'atproto_tid', 'uid')) AND bool_and(clock_waits > 0) FILTER (WHERE scheme IN ('sno', 'koid')) FROM kid_generator_stats()")" t

# Crash restart while the clock is an hour behind.
cf_reinits() { grep -c 'all server processes terminated; reinitializing' "$KID_TMP/faulty/server.log"; }
cf_before=$(cf_reinits)
cf_lease=$(fq -c "SELECT string_agg(line || '=' || covered_until, ' ' ORDER BY line) FROM kid_lease() WHERE line IN ('atproto_tid', 'uid')")
check "clock faults: a backend killed by SIGKILL" crash_backend $FPORT "$KID_TMP/faulty/server.log"
expect_eq "clock faults: the postmaster crash-restarted (server log)" "$(cf_reinits)" $((cf_before + 1))
expect_eq "clock faults: after the crash restart the tid and uid floors are the lease marks before it" \
    "$(fq -c "SELECT string_agg(line || '=' || startup_floor, ' ' ORDER BY line) FROM kid_lease() WHERE line IN ('atproto_tid', 'uid')")" "$cf_lease"
set_offset -3601.001
check "clock faults: after a crash restart 1 h back, tid and uid continue" gen_all 4 tid uid
expect_eq "clock faults: after a crash restart 1 h back, the first tid and uid are above their floors" \
    "$(fq -c "SELECT (SELECT min(tid_to_timestamp(id)) FROM f_tid WHERE round = 4) > (SELECT startup_floor FROM kid_lease() WHERE line = 'atproto_tid')
                 AND (SELECT min(uid_to_timestamp(id)) FROM f_uid WHERE round = 4) > (SELECT startup_floor FROM kid_lease() WHERE line = 'uid')")" t
set_offset +0
sleep 11   # past the lease written ahead before the crash (10 s)
check "clock faults: clock back to true time, every generator" gen_all 5 sno tid koid uid

expect_eq "clock faults: zero duplicates (rows per generator)" \
    "$(fq -c "SELECT (SELECT count(DISTINCT id) FROM f_sno) || ' ' || (SELECT count(DISTINCT id) FROM f_tid) || ' ' || (SELECT count(DISTINCT id) FROM f_koid) || ' ' || (SELECT count(DISTINCT id) FROM f_uid)")" \
    "12000 12000 8000 12000"
expect_eq "clock faults: tid and uid rose strictly through every fault (round order = id order)" \
    "$(fq -c "SELECT (SELECT count(*) FROM (SELECT round, lag(round) OVER (ORDER BY id) AS prev FROM f_tid) s WHERE prev > round) + (SELECT count(*) FROM (SELECT round, lag(round) OVER (ORDER BY id) AS prev FROM f_uid) s WHERE prev > round)")" 0
cluster_stop faulty

# A clock step back after a commit horizon was read.  The horizon imposes
# its clock reading on every later sno and uuidv7 (none may be below it);
# below that reading they carry on from it at the pace of real time
# instead of piling into its time unit and waiting for the clock (sno's
# 65,536 ids per 4 ms unit): no wait of any kind either way, and sno's first
# step back with no horizon read still moves it to its other timeline.
# One session, as sno's timelines live in its partition; a server of its own.
HPORT=54353
rm -f "$FT_FILE"
need "a second server under libfaketime, at the true time" eval 'cluster_init hzclock $HPORT && faketime_cluster_start hzclock' || { kid_finish; exit 1; }
hq() { kpsql $HPORT -d postgres "$@"; }
out=$(hq <<SQL 2>&1
CREATE EXTENSION kid;
CREATE TABLE h_sno (id sno PRIMARY KEY, round int);
CREATE TABLE h_uuid (id uuid PRIMARY KEY, round int);
CREATE TEMP TABLE waits AS SELECT scheme, overflow_waits + clock_waits + ahead_waits AS w FROM kid_generator_stats();
INSERT INTO h_sno SELECT sno_new(), 1 FROM generate_series(1, 1000);
\! echo "-6" > $FT_FILE.new && mv -f $FT_FILE.new $FT_FILE
INSERT INTO h_sno SELECT sno_new(), 2 FROM generate_series(1, 200000);
SELECT 'no horizon: ' || count(*) || ' sno ids, on tick ' || string_agg(DISTINCT sno_tick(id)::text, ',') FROM h_sno WHERE round = 2;
\! echo "+0" > $FT_FILE.new && mv -f $FT_FILE.new $FT_FILE
INSERT INTO h_sno SELECT sno_new(), 3 FROM generate_series(1, 1000);
INSERT INTO h_uuid SELECT uuidv7_new(), 3 FROM generate_series(1, 1000);
SELECT sno_safe_horizon() AS s, uuidv7_safe_horizon() AS v \gset h_
\! echo "-6" > $FT_FILE.new && mv -f $FT_FILE.new $FT_FILE
SELECT 'clock behind the horizon: ' || (clock_timestamp() < sno_to_timestamp(:'h_s') - interval '5 s');
INSERT INTO h_sno SELECT sno_new(), 4 FROM generate_series(1, 200000);
INSERT INTO h_uuid SELECT uuidv7_new(), 4 FROM generate_series(1, 200000);
SELECT 'after the horizon: ' || count(*) || ' sno ids, ' || count(*) FILTER (WHERE id < :'h_s') || ' below it' FROM h_sno WHERE round = 4;
SELECT 'after the horizon: ' || count(*) || ' uuids, ' || count(*) FILTER (WHERE id < :'h_v') || ' below it' FROM h_uuid WHERE round = 4;
SELECT 'waits: ' || string_agg(k.scheme || ' ' || (k.overflow_waits + k.clock_waits + k.ahead_waits - w.w), ', ' ORDER BY k.scheme)
FROM kid_generator_stats() k JOIN waits w USING (scheme) WHERE k.scheme IN ('sno', 'uuid');
SQL
)
expect_eq "clock faults: 6 s back with no horizon read, sno moves to its other timeline" \
    "$(grep -c '^no horizon: 200000 sno ids, on tick 1$' <<<"$out")" 1
expect_eq "clock faults: a horizon read, then 6 s back: the clock is behind the horizon's reading" \
    "$(grep -c '^clock behind the horizon: true$' <<<"$out")" 1
expect_eq "clock faults: after the horizon and 6 s back, 200,000 sno ids, none below the horizon" \
    "$(grep -c '^after the horizon: 200000 sno ids, 0 below it$' <<<"$out")" 1
expect_eq "clock faults: after the horizon and 6 s back, 200,000 uuidv7 ids, none below the horizon" \
    "$(grep -c '^after the horizon: 200000 uuids, 0 below it$' <<<"$out")" 1
expect_eq "clock faults: sno and uuidv7 never waited, with or without a horizon (overflow, clock and ahead waits)" \
    "$(grep '^waits: ' <<<"$out")" "waits: sno 0, uuid 0"
cluster_stop hzclock

kid_finish
