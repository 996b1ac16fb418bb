#!/usr/bin/env bash
# koid's overflow on a real server, whatever the machine's speed (runs alone
# or from run-all.sh; starts a server of its own).  The server runs under
# libfaketime, which reads the time from a file at every clock call; an
# absolute time there stops the clock, so every koid_new() falls in one
# millisecond until the file changes:
#   1. kid.koid_overflow_error = on: 4096 koids in the stopped millisecond,
#      counters 0 to 4095; the 4097th is 53400 (configuration_limit_exceeded)
#      "more than 4096 koids in one millisecond", and so is the next attempt.
#   2. off (the default): the 4097th waits (overflow_waits counts it, the
#      backend is still in koid_new()), and once the clock moves on it is
#      the first koid of a later millisecond, counter 0.
# (libfaketime 0.9.10 reads a changed absolute time an hour off in some
# processes, so the checks compare times with each other, not with the file.)
# (pg_regress's koid_type tests generation at the machine's own pace, where
# 4096 koids in one millisecond may or may not happen.)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

FT_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
FT_FILE="$KID_TMP/faketime.time"
OPORT=54352
need "libfaketime is installed ($FT_LIB, Debian package libfaketime)" test -f "$FT_LIB" || { kid_finish; exit 1; }
echo "+0" >"$FT_FILE"
chmod 644 "$FT_FILE"
cluster_init overflow $OPORT || exit 1
LD_PRELOAD=$FT_LIB FAKETIME_TIMESTAMP_FILE=$FT_FILE FAKETIME_NO_CACHE=1 cluster_start overflow || exit 1
oq() { kpsql $OPORT -d postgres "$@"; }
oq -c "CREATE EXTENSION kid" || exit 1

# Stopped a day ahead of the real clock, so that it never reads below a time
# the server saw before (a clock that goes back is clock_faults.sh's case).
frozen=$(date -u -d '+1 day' '+%Y-%m-%d %H:%M:%S')
echo "$frozen" >"$FT_FILE"
stopped() {
    local a b
    a=$(oq -c "SELECT clock_timestamp()") && sleep 0.2 && b=$(oq -c "SELECT clock_timestamp()") &&
        [ -n "$a" ] && [ "$a" = "$b" ] || { echo "read $a, then $b"; return 1; }
}
check "the server's clock is stopped (libfaketime)" stopped

# 1. kid.koid_overflow_error = on.
expect_eq "overflow_error on: 4096 koids in the stopped millisecond, counters 0 to 4095, all distinct" \
    "$(oq -c "SET kid.koid_overflow_error = on" \
        -c "CREATE TABLE ms1 AS SELECT n, koid_new() AS id FROM generate_series(1, 4096) n" \
        -c "SELECT count(DISTINCT id), min((koid_info(id)).counter), max((koid_info(id)).counter),
                   count(DISTINCT koid_to_timestamp(id)), bool_and((koid_info(id)).counter = n - 1) FROM ms1")" \
    "4096|0|4095|1|t"
overflow_attempt() {
    oq -c "SET kid.koid_overflow_error = on" -c "SET statement_timeout = '60s'" -c "DO \$\$
        BEGIN
            RAISE NOTICE 'made %', koid_new();
        EXCEPTION WHEN OTHERS THEN
            RAISE NOTICE '% %', SQLSTATE, SQLERRM;
        END \$\$" 2>&1
}
expect_eq "overflow_error on: the 4097th koid of the millisecond is 53400" \
    "$(overflow_attempt)" "NOTICE:  53400 more than 4096 koids in one millisecond"
expect_eq "overflow_error on: ... and so is the 4098th attempt" \
    "$(overflow_attempt)" "NOTICE:  53400 more than 4096 koids in one millisecond"

# 2. kid.koid_overflow_error = off: the 4097th waits for the next millisecond.
waits() { oq -c "SELECT overflow_waits FROM kid_generator_stats() WHERE scheme = 'koid'"; }
waits_before=$(waits)
oq -c "CREATE TABLE ms2 AS SELECT koid_new() AS id" >"$KID_TMP/waiting.out" 2>&1 &
waiting_pid=$!
# The backend is in koid_new() when overflow_waits moves (bounded: a backend
# that never waits is a failure, not a hang).
waited() {
    for _ in $(seq 600); do
        [ "$(waits)" -gt "$waits_before" ] && return 0
        kill -0 $waiting_pid 2>/dev/null || { cat "$KID_TMP/waiting.out"; return 1; }
        sleep 0.1
    done
    return 1
}
check "overflow_error off: the 4097th koid waits while the clock stays in its millisecond (overflow_waits counts it)" waited
check "... and has not returned" kill -0 $waiting_pid
date -u -d "$frozen +1 day" '+%Y-%m-%d %H:%M:%S' >"$FT_FILE"
wait $waiting_pid
rc=$?
cat "$KID_TMP/waiting.out"
expect_eq "... the clock a day later: it is the first koid of a later millisecond, counter 0" \
    "psql $rc: $(oq -c "SELECT (SELECT koid_to_timestamp(id) FROM ms2) > (SELECT max(koid_to_timestamp(id)) FROM ms1), (koid_info(id)).counter FROM ms2")" \
    "psql 0: t|0"

cluster_stop overflow
kid_finish
