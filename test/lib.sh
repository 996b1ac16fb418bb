# test/lib.sh - throwaway PostgreSQL clusters for kid's scripts (sourced).
#
# Servers run as the postgres user (PostgreSQL refuses root) on a Unix
# socket in a private directory, with kid preloaded.  Every postmaster's pid
# is recorded, and kid_cleanup (installed as an EXIT trap) stops them all
# by pid, whatever happened.  Each script that sources this file has its own
# directory ($KID_TMP) and stops only the servers it started.
#
# The "main" cluster (port 54329) is the one general-purpose server:
# ensure_main_cluster uses the one test/run-all.sh started and exported
# (KID_MAIN_PORT, KID_MAIN_SOCK, KID_MAIN_DIR), or starts a private one.
[ -z "${KID_LIB_LOADED:-}" ] || return 0
KID_LIB_LOADED=1

PG_CONFIG=${PG_CONFIG:-pg_config}
PG_BIN=${PG_BIN:-$($PG_CONFIG --bindir)}
# Every client (psql, pg_regress, the client libraries) talks UTF8 to the
# UTF8 test servers, whatever locale the machine has (none on a minimal
# Debian, where psql would otherwise choose SQL_ASCII and align non-ASCII
# output by bytes).
export PGCLIENTENCODING=UTF8
KID_TMP=$(mktemp -d /tmp/kid.XXXXXX)
chmod 755 "$KID_TMP"
chown postgres: "$KID_TMP"
# Under test/run-all.sh the list is a file of run-all's (KID_SERVER_PIDS),
# so that run-all can stop what a test killed by its time limit left; it is
# taken out of the environment, so that a script this one runs keeps a
# list of its own.
if [ -n "${KID_SERVER_PIDS:-}" ]; then
    KID_PIDS=$KID_SERVER_PIDS
    unset KID_SERVER_PIDS
else
    KID_PIDS="$KID_TMP/postmaster.pids"
    : > "$KID_PIDS"
fi

as_postgres() {
    # cd first: the caller's directory may not be readable by postgres.
    (cd "$KID_TMP" && runuser -u postgres -- "$@")
}

# cluster_init NAME PORT [postgresql.conf lines...]
cluster_init() {
    local name=$1 port=$2
    shift 2
    local dir="$KID_TMP/$name"
    as_postgres mkdir -p "$dir"
    # UTF8 and the C locale on every machine: a minimal Debian has no locale
    # configured, and initdb would then choose SQL_ASCII, for which client
    # libraries (psycopg 3) hand text back as bytes.
    as_postgres "$PG_BIN/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 --locale=C >"$KID_TMP/$name.initdb.log" 2>&1 ||
        { cat "$KID_TMP/$name.initdb.log"; return 1; }
    {
        echo "shared_preload_libraries = 'kid'"
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$KID_TMP'"
        echo "port = $port"
        echo "fsync = off"
        echo "max_connections = 120"
        # A standby of standby_init streams without a slot: the primary
        # keeps its WAL, so that one started after a busy moment of the
        # tests around it does not find its start removed.
        echo "wal_keep_size = '1GB'"
        # kid's partition worker off: it would maintain the tables of the
        # tests at the true time (test/server/28-partition_worker.sh turns it on).
        echo "kid.partition_maintenance_interval = 0"
        for line in "$@"; do echo "$line"; done
    } >> "$dir/data/postgresql.conf"
}

# cluster_start NAME [pg_ctl options...]
cluster_start() {
    local name=$1
    shift
    local dir="$KID_TMP/$name"
    if ! as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 "$@" start >/dev/null; then
        # pg_ctl gave up waiting, but the postmaster may still be running
        # (or come up later): record it so that kid_cleanup stops it.
        [ ! -f "$dir/data/postmaster.pid" ] || head -1 "$dir/data/postmaster.pid" >> "$KID_PIDS"
        tail -30 "$dir/server.log"
        return 1
    fi
    head -1 "$dir/data/postmaster.pid" >> "$KID_PIDS"
}

# cluster_stop NAME [mode]
cluster_stop() {
    local name=$1 mode=${2:-fast}
    local dir="$KID_TMP/$name"
    as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -m "$mode" -w -t 60 stop >/dev/null 2>&1 || true
}

cluster_pid() {
    if [ "$1" = main ] && [ -n "${KID_MAIN_DIR:-}" ]; then
        head -1 "$KID_MAIN_DIR/data/postmaster.pid"
    else
        head -1 "$KID_TMP/$1/data/postmaster.pid"
    fi
}

# kpsql PORT [psql args...]: unaligned, quiet, stop on the first error.
# The main cluster's port connects to its socket directory, any other port
# to this script's own.
kpsql() {
    local port=$1 host=$KID_TMP
    shift
    [ "$port" != "${KID_MAIN_PORT:-}" ] || host=$KID_MAIN_SOCK
    "$PG_BIN/psql" -h "$host" -p "$port" -U postgres -X -q -A -t -v ON_ERROR_STOP=1 "$@"
}

# ensure_main_cluster: sets PORT to the main cluster's port, starting a
# private main cluster unless run-all.sh shares one (or a caller that
# sources the server tests already started one in this $KID_TMP).
ensure_main_cluster() {
    if [ -z "${KID_MAIN_PORT:-}" ]; then
        KID_MAIN_PORT=54329
        KID_MAIN_SOCK=$KID_TMP
        KID_MAIN_DIR=$KID_TMP/main
        if [ ! -f "$KID_MAIN_DIR/data/postmaster.pid" ]; then
            echo "(starting a main cluster of its own on port $KID_MAIN_PORT)"
            cluster_init main $KID_MAIN_PORT && cluster_start main || return 1
        fi
    fi
    PORT=$KID_MAIN_PORT
}

# reload_conf PORT: pg_reload_conf() on the server of PORT, returning once
# the postmaster has read the files again (a new session's
# pg_conf_load_time() moved; by then it has signalled every backend, which
# applies the reload before its next statement).  Bounded: 60 s, then 1.
reload_conf() {
    local port=$1 before
    before=$(kpsql "$port" -d postgres -c "SELECT pg_conf_load_time()") || return 1
    kpsql "$port" -d postgres -c "SELECT pg_reload_conf()" >/dev/null || return 1
    for _ in $(seq 600); do
        [ "$(kpsql "$port" -d postgres -c "SELECT pg_conf_load_time()")" != "$before" ] && return 0
        sleep 0.1
    done
    echo "the server on port $port did not reload its configuration in 60 s"
    return 1
}

# standby_init NAME PRIMARY_PORT PORT [postgresql.conf lines...]: cluster
# NAME, a streaming standby of the server on PRIMARY_PORT (a base backup
# with its recovery configuration), on PORT with its socket in $KID_TMP and
# the lines given (they come last: a setting named again wins).  Not
# started (cluster_start NAME).
standby_init() {
    local name=$1 primary=$2 port=$3 host=$KID_TMP line
    shift 3
    [ "$primary" != "${KID_MAIN_PORT:-}" ] || host=$KID_MAIN_SOCK
    as_postgres mkdir -p "$KID_TMP/$name" &&
        as_postgres "$PG_BIN/pg_basebackup" -h "$host" -p "$primary" -U postgres -D "$KID_TMP/$name/data" -R -X stream -c fast >/dev/null ||
        return 1
    {
        echo "port = $port"
        echo "unix_socket_directories = '$KID_TMP'"
        for line in "$@"; do echo "$line"; done
    } >> "$KID_TMP/$name/data/postgresql.conf"
}

# wait_replayed PORT LSN: returns once the standby on PORT has replayed the
# WAL up to LSN (pg_last_wal_replay_lsn()).  Bounded: 60 s, then 1.
wait_replayed() {
    for _ in $(seq 600); do
        [ "$(kpsql "$1" -d postgres -c "SELECT pg_last_wal_replay_lsn() >= '$2'" 2>/dev/null)" = t ] && return 0
        sleep 0.1
    done
    echo "  the standby on port $1 did not replay up to $2 in 60 s"
    return 1
}

# main_db NAME: a fresh database NAME on the main cluster, with kid created.
main_db() {
    kpsql "$KID_MAIN_PORT" -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" &&
        kpsql "$KID_MAIN_PORT" -d "$1" -c "CREATE EXTENSION kid"
}

# main_pgbench DB [pgbench options...]: pgbench on the main cluster's
# database DB, its output to a log of its own under $KID_TMP; its exit
# status is pgbench's (0 when every client succeeded).
main_pgbench() {
    local db=$1
    shift
    "$PG_BIN/pgbench" -h "$KID_MAIN_SOCK" -p "$KID_MAIN_PORT" -U postgres -n "$@" "$db" \
        >"$KID_TMP/pgbench.$BASHPID.$RANDOM.log" 2>&1
}

# wait_for_log LOG OFFSET PATTERN: returns once a line matching PATTERN (grep
# -E) stands in LOG after its first OFFSET bytes (take the offset with
# log_size before what should log it); as PostgreSQL's own TAP tests do
# (wait_for_log).  Bounded: 60 s, then 1 with a message.
log_size() { stat -c %s "$1"; }
wait_for_log() {
    local log=$1 offset=$2 pattern=$3
    for _ in $(seq 600); do
        tail -c +$((offset + 1)) "$log" | grep -qE -- "$pattern" && return 0
        sleep 0.1
    done
    echo "  $log: no line '$pattern' after byte $offset in 60 s; its last errors and warnings since:"
    tail -c +$((offset + 1)) "$log" | grep -a -E '(ERROR|WARNING|FATAL|PANIC):' | tail -n 8 | cut -c1-300 | sed 's/^/    /'
    return 1
}

# wait_accepting PORT: returns once the server of PORT runs a query (after a
# start, a crash restart, a promotion).  Bounded: 60 s, then 1.
wait_accepting() {
    for _ in $(seq 600); do
        kpsql "$1" -d postgres -c "SELECT 1" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "  the server on port $1 accepts no query 60 s on"
    return 1
}

# crash_backend PORT LOG [SQL [COMMAND...]]: a crash restart of the server of
# PORT, whose log is LOG.  A backend runs SQL (if given), then sleeps; once
# it sleeps (SQL done), COMMAND runs (to read what the backend left before
# it dies); then the backend is killed by SIGKILL, which makes the
# postmaster end every process and reinitialise shared memory.  Returns once
# the postmaster logged "all server processes terminated; reinitializing"
# after the kill and the server runs queries again; on any step that fails,
# 1 with a message.  CRASH_PID is the backend's pid.
crash_backend() {
    local port=$1 log=$2 sql=${3:-} psql_pid offset app=kid_crash_backend_${BASHPID}_$RANDOM
    shift 2
    shift $(($# > 0 ? 1 : 0))
    CRASH_PID=""
    # Its application_name (this call's own) finds it; its sleep (pg_sleep's
    # wait event) says SQL is done, each -c being a statement of its own.
    PGAPPNAME=$app kpsql "$port" -d postgres ${sql:+-c "$sql"} -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
    psql_pid=$!
    for _ in $(seq 600); do
        CRASH_PID=$(kpsql "$port" -d postgres -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$app' AND wait_event = 'PgSleep'")
        [ -n "$CRASH_PID" ] && break
        kill -0 $psql_pid 2>/dev/null || break
        sleep 0.1
    done
    [ -n "$CRASH_PID" ] || { crash_backend_abort "no backend asleep after '$sql' (psql ended, or 60 s passed)"; return 1; }
    [ $# -eq 0 ] || "$@" || { crash_backend_abort "'$*' failed before the kill"; return 1; }
    offset=$(log_size "$log")
    kill -KILL "$CRASH_PID" || { crash_backend_abort "kill -KILL $CRASH_PID failed"; return 1; }
    wait $psql_pid 2>/dev/null
    wait_for_log "$log" "$offset" 'all server processes terminated; reinitializing' && wait_accepting "$port"
}
# (When a step fails, crash_backend's backend and psql are ended: a backend
# asleep outlives its client.)
crash_backend_abort() {
    echo "  crash_backend: $1"
    [ -z "$CRASH_PID" ] || kpsql "$port" -d postgres -c "SELECT pg_terminate_backend($CRASH_PID)" >/dev/null
    kill $psql_pid 2>/dev/null
    wait $psql_pid 2>/dev/null
}

# crash_postmaster NAME: the postmaster of cluster NAME killed by SIGKILL;
# returns once it and every process it had started are gone (they notice
# its death and exit), so that the cluster can start again; 1 with the
# pids still there after 60 s.  The next start runs crash recovery.
crash_postmaster() {
    local pid children alive
    pid=$(cluster_pid "$1") && [ -n "$pid" ] || { echo "  crash_postmaster: no postmaster.pid for $1"; return 1; }
    children=$(pgrep -P "$pid" | tr '\n' ' ')
    kill -KILL "$pid" || { echo "  crash_postmaster: kill -KILL $pid failed"; return 1; }
    for _ in $(seq 600); do
        alive=""
        for c in $pid $children; do kill -0 "$c" 2>/dev/null && alive="$alive $c"; done
        [ -z "$alive" ] && return 0
        sleep 0.1
    done
    echo "  crash_postmaster: still running 60 s after the kill:$alive"
    return 1
}

# Servers under libfaketime: faketime_cluster_start starts a cluster whose
# clock is the true time plus the offset in $FT_FILE ("+0", "-3600", or an
# absolute time that stops the clock), read at every clock call; change it
# with faketime_set "$FT_FILE" OFFSET.
FT_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
FT_FILE=$KID_TMP/faketime.offset
# select() past libfaketime, preloaded before it: without it a background
# worker PostgreSQL 15 starts while its postmaster waits runs at the true
# time (test/server/lib/real_select.c).  Built once per script.
FT_SELECT=$KID_TMP/real_select.so
faketime_select() {
    [ -f "$FT_SELECT" ] || cc -shared -fPIC -O2 -o "$FT_SELECT" test/server/lib/real_select.c
}

# faketime_set FILE OFFSET: libfaketime's offset file (FAKETIME_TIMESTAMP_FILE)
# written whole, by rename: Debian 13's libfaketime ends the process that
# reads a half-written file ("failed to parse FAKETIME").
faketime_set() {
    echo "$2" > "$1.new" && chmod 644 "$1.new" && mv -f "$1.new" "$1"
}

# faketime_clear_stale: libfaketime makes a semaphore and a shared memory
# object per process in /dev/shm, named by its pid, and removes them at
# its exit, not when it is killed (SIGKILL, the crash tests).  A later
# process given that pid again, as another user (the chroots' postgres is
# another uid), cannot open them ("sem_open failed ... Permission
# denied") and ends: a server that does not start.  Those of processes
# that no longer exist go before each start.
faketime_clear_stale() {
    local f pid
    for f in /dev/shm/sem.faketime_sem_* /dev/shm/faketime_shm_*; do
        [ -e "$f" ] || continue
        pid=${f##*_}
        [ -d "/proc/$pid" ] || rm -f "$f"
    done
}

# faketime_cluster_start NAME [--fake-monotonic] [pg_ctl options...]:
# cluster_start under libfaketime, the offset file "+0" unless written
# before.  CLOCK_MONOTONIC stays true, as on a real machine, where a clock
# step moves CLOCK_REALTIME only (PostgreSQL's waits and timers, and kid's
# trusted time, run on it); --fake-monotonic moves it with the offset too.
faketime_cluster_start() {
    local name=$1
    shift
    faketime_clear_stale
    (
        if [ "${1:-}" = --fake-monotonic ]; then
            shift
        else
            export FAKETIME_DONT_FAKE_MONOTONIC=1
        fi
        [ -f "$FT_FILE" ] || faketime_set "$FT_FILE" +0 || exit 1
        faketime_select || exit 1
        export LD_PRELOAD="$FT_SELECT $FT_LIB" FAKETIME_TIMESTAMP_FILE=$FT_FILE FAKETIME_NO_CACHE=1
        cluster_start "$name" "$@"
    )
}

# npm_install_once DIR: the packages of DIR/package.json (pinned versions),
# installed once into DIR/node_modules (gitignored) and reused by every later
# run and script; reinstalled when package.json changes.  A request that
# stalls is given up after 60 s and tried again (npm's own default waits
# 5 minutes), so a slow registry costs minutes, not the run.
npm_install_once() {
    local dir=$1 stamp=$1/node_modules/.kid-installed
    [ -f "$stamp" ] && [ "$stamp" -nt "$dir/package.json" ] && return 0
    echo "installing the npm packages of $dir/package.json into $dir/node_modules"
    if (cd "$dir" && flock package.json npm install --no-audit --no-fund --silent --fetch-timeout=60000 --fetch-retries=3) >"$KID_TMP/npm.log" 2>&1; then
        touch "$stamp"
    else
        tail -5 "$KID_TMP/npm.log"
        return 1
    fi
}

# xcheck_install: the reference packages the cross-checks compare kid with.
xcheck_install() {
    npm_install_once test/xcheck
}

# The cross-checks (test/server/5x-xcheck_*.sh) compare kid with reference
# implementations, node scripts of test/xcheck/, on a database of the main
# cluster: xcheck_begin, then xcheck_kid and xcheck_ref, then xcheck_end.
#
# xcheck_begin DB: the main cluster (PORT), a fresh database DB with kid,
# the reference packages installed, and the directory $XC for the files
# compared.  Returns 1 (a failed check) when any of them is missing.
xcheck_begin() {
    XC_DB=$1
    XC=$KID_TMP/xcheck
    mkdir -p "$XC"
    need "the main cluster" ensure_main_cluster &&
        need "a database $XC_DB with kid" main_db "$XC_DB" &&
        need "the reference packages of test/xcheck/package.json installed (npm)" xcheck_install
}

# xcheck_node SCRIPT ARGS...: node on test/xcheck/SCRIPT in $XC; its exit
# status is node's (a missing script or package fails it).
xcheck_node() {
    local script=$PWD/test/xcheck/$1
    shift
    (cd "$XC" && node "$script" "$@")
}

# xcheck_kid LABEL SCRIPT KIND N SQL: kid's ids, one line each of SQL's
# output (N expected), read by the reference (SCRIPT check-kid), which
# prints each line it disagrees with and, on stderr, "checked N kid KIND, D
# disagreements".  One check: node's exit status, the lines it disagreed
# with, the lines kid gave, and the reference's own count.
xcheck_kid() {
    local label=$1 script=$2 kind=$3 n=$4 sql=$5 rc
    kpsql "$PORT" -d "$XC_DB" -c "$sql" >"$XC/kid.tsv"
    xcheck_node "$script" check-kid <"$XC/kid.tsv" >"$XC/disagreements.txt" 2>"$XC/summary.txt"
    rc=$?
    cat "$XC/summary.txt"
    expect_eq "$label" \
        "node $rc, $(wc -l <"$XC/disagreements.txt") of $(wc -l <"$XC/kid.tsv") disagree, $(grep -o "^checked [0-9]* kid $kind, [0-9]* disagreements" "$XC/summary.txt")" \
        "node 0, 0 of $n disagree, checked $n kid $kind, 0 disagreements"
}

# xcheck_ref LABEL N SCRIPT ARGS... <PSQL_SCRIPT: the reference's ids (node
# SCRIPT ARGS writes N lines to $XC/ref.tsv), read by kid: PSQL_SCRIPT
# loads $XC/ref.tsv and prints the rows kid reads otherwise, nothing else
# (what it says beside, to stderr: \warn).  One check: the exit statuses
# of node and psql, the rows printed, the lines the reference gave.
xcheck_ref() {
    local label=$1 n=$2 rc psql_rc
    shift 2
    xcheck_node "$@" </dev/null >"$XC/ref.tsv"
    rc=$?
    kpsql "$PORT" -d "$XC_DB" >"$XC/mismatch.txt"
    psql_rc=$?
    expect_eq "$label" \
        "node $rc, psql $psql_rc, $(grep -c . "$XC/mismatch.txt") of $(wc -l <"$XC/ref.tsv") disagree" \
        "node 0, psql 0, 0 of $n disagree"
}

# xcheck_end: the database of xcheck_begin dropped.
xcheck_end() {
    [ -z "${PORT:-}" ] || kpsql "$PORT" -d postgres -c "DROP DATABASE IF EXISTS $XC_DB"
}

# run_client_test NAME DB COMMAND...: a client library's test program
# (test/clients/) on a fresh database DB of the main cluster, reached over its
# Unix socket through libpq's environment variables (PGHOST, PGPORT, PGUSER,
# PGDATABASE), which node-postgres reads too; its checks are counted by
# count_program_checks (below).
run_client_test() {
    local name=$1 db=$2 out="$KID_TMP/client-$2.out"
    shift 2
    if ! main_db "$db"; then
        check "$name: a database with kid" false
        return
    fi
    PGHOST=$KID_MAIN_SOCK PGPORT=$KID_MAIN_PORT PGUSER=postgres PGDATABASE=$db "$@" >"$out" 2>&1
    count_program_checks "$name" "$out" $?
    kpsql "$KID_MAIN_PORT" -d postgres -c "DROP DATABASE $db"
}

# stop_servers FILE: every postmaster FILE lists that still runs, stopped by
# pid: a fast shutdown, SIGKILL after 5 s.  A pid that is no longer a
# postgres process is left alone (the number may have been reused).
stop_servers() {
    local pid
    while read -r pid; do
        [ -n "$pid" ] || continue
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = postgres ] || continue
        kill -INT "$pid" 2>/dev/null || true   # fast shutdown
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done < "$1"
}

kid_cleanup() {
    # Not cut short by a second signal (a ^C, then run-all's TERM).
    trap '' INT TERM PIPE
    stop_servers "$KID_PIDS"
    # And any server of a data directory of this script's that no list
    # has (pg_upgrade's own, when the script is stopped while it runs): a
    # postmaster.pid whose process runs in that directory (a stale file's
    # number may be another script's process now).
    local pidfile
    find "$KID_TMP" -name postmaster.pid 2>/dev/null | while read -r pidfile; do
        pid=$(head -n 1 "$pidfile")
        [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$(realpath "$(dirname "$pidfile")")" ] && echo "$pid"
    done > "$KID_TMP/left.pids"
    stop_servers "$KID_TMP/left.pids"
    # For test/run-all.sh, which runs each server test as its own process:
    # its counts, and whether it reached kid_finish (its last line).
    [ -z "${KID_RESULTS:-}" ] || echo "$KID_PASSED $KID_FAILED ${KID_FINISHED:-stopped}" > "$KID_RESULTS"
    rm -rf "$KID_TMP"
}
# Bash runs it too when TERM or SIGPIPE ends the script (run-all.sh's time
# limit, its output gone), and on ^C through the INT trap.
trap kid_cleanup EXIT
trap 'exit 130' INT

# Test bookkeeping: check NAME COMMAND... counts a pass or a failure.  The
# output is TAP, as PostgreSQL's own TAP tests print it and prove reads it:
# "ok N - NAME" or "not ok N - NAME" per check (the lines after a NAME's
# first, such as a failure's got and expected values, as "# " lines), "# "
# before a note, and the plan "1..N" from kid_finish, the script's last
# line: a script that stops before it has no plan, and prove fails it.
KID_PASSED=0
KID_FAILED=0
KID_CHECKS=0 # the number of the last check line printed
# KID_CHECK_PREFIX: put before each check's name, by a script that runs the
# same checks more than once (test/server/37-pg_upgrade.sh: once per old
# major), so that a line says which run it is of.
KID_CHECK_PREFIX=
tap_line() {
    local first=${2%%$'\n'*}
    KID_CHECKS=$((KID_CHECKS + 1))
    # (A "#" in a name would start a TAP directive: escaped.)
    local name=$KID_CHECK_PREFIX$first
    echo "$1 $KID_CHECKS - ${name//#/\\#}"
    [ "$first" = "$2" ] || note "${2#*$'\n'}"
}
kid_pass() { KID_PASSED=$((KID_PASSED + 1)); tap_line ok "$1"; }
kid_fail() { KID_FAILED=$((KID_FAILED + 1)); tap_line "not ok" "$1"; }
# note TEXT: a line (or lines) of comment, "# TEXT", counted nowhere.
note() {
    local line
    while IFS= read -r line; do echo "# $line"; done <<<"$1"
}
check() {
    local name=$1
    shift
    if "$@"; then kid_pass "$name"; else kid_fail "$name"; fi
}

# expect_eq NAME ACTUAL EXPECTED
expect_eq() {
    if [ "$2" == "$3" ]; then kid_pass "$1"; else kid_fail "$1: got '$2', expected '$3'"; fi
}

# need NAME COMMAND...: what a test needs but does not itself test (a tool
# installed, a program that ran to its end).  It is no check: when it holds
# it says so on a note line ("# NAME"), uncounted; when it does not, that is
# a failed check.  Returns COMMAND's status.
need() {
    local name=$1
    shift
    if "$@"; then
        note "$name"
        return 0
    fi
    kid_fail "$name"
    return 1
}

# count_program_checks NAME OUTPUT EXIT_STATUS: the checks a client test
# program (test/clients/) printed to OUTPUT, one "ok: ..." or "FAILED: ..."
# line each, counted here under NAME.  Its last line is "end: P passed, F
# failed" (or "end: P+F checks, F failed").  A program that did not print
# it, whose counts are not the lines it printed, or that exited non-zero
# with nothing failed, stopped early: each of its "ok:" lines counts as a
# failure (a run cut short never adds passes), and so does the stop.  Its
# checks are printed again as this script's (TAP), its other lines as notes.
count_program_checks() {
    local name=$1 out=$2 rc=$3 p f ended=yes line
    p=$(grep -c '^ok: ' "$out")
    f=$(grep -c '^FAILED: ' "$out")
    grep -qx -e "end: $p passed, $f failed" -e "end: $((p + f)) checks, $f failed" "$out" &&
        { [ "$rc" -eq 0 ] || [ "$f" -gt 0 ]; } || ended=
    while IFS= read -r line; do
        case $line in
        "ok: "*) if [ -n "$ended" ]; then kid_pass "$name: ${line#ok: }"; else kid_fail "$name: ${line#ok: } (not counted as passed: the program stopped before its end)"; fi ;;
        "FAILED: "*) kid_fail "$name: ${line#FAILED: }" ;;
        *) note "$line" ;;
        esac
    done <"$out"
    program_ended() { [ -n "$ended" ]; }
    need "$name: the test program ran to its end, $p passed, $f failed (exit status $rc)" program_ended
}

# kid_finish: a server test's last line.  Run as a program of its own
# (test/server/NAME.sh, by prove, or by run-all.sh) it prints the plan, then
# the script's counts as a note (run-all.sh counts for it), and fails on any
# failure; sourced into a shell that counts for it, nothing.  A script that
# checked nothing (what it tests is not on this server) says why in
# KID_SKIP: the plan "1..0 # SKIP why".
kid_finish() {
    [ "${BASH_SOURCE[1]}" = "$0" ] || return 0
    KID_FINISHED=finished
    if [ "$KID_CHECKS" -eq 0 ] && [ -n "${KID_SKIP:-}" ]; then
        echo "1..0 # SKIP $KID_SKIP"
    else
        echo "1..$KID_CHECKS"
    fi
    [ -n "${KID_RESULTS:-}" ] || note "${KID_PASSED} passed, ${KID_FAILED} failed"
    [ "$KID_FAILED" -eq 0 ]
}
