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
KID_PIDS="$KID_TMP/postmaster.pids"
: > "$KID_PIDS"

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

# faketime_set FILE OFFSET: libfaketime's offset file (FAKETIME_TIMESTAMP_FILE)
# written whole, by rename: Debian 13's libfaketime ends the process that
# reads a half-written file.
faketime_set() {
    echo "$2" > "$1.new" && chmod 644 "$1.new" && mv -f "$1.new" "$1"
}

# npm_install_once DIR: the packages of DIR/package.json (pinned versions),
# installed once into DIR/node_modules (gitignored) and reused by every later
# run and script; reinstalled when package.json changes.
npm_install_once() {
    local dir=$1 stamp=$1/node_modules/.kid-installed
    [ -f "$stamp" ] && [ "$stamp" -nt "$dir/package.json" ] && return 0
    echo "installing the npm packages of $dir/package.json into $dir/node_modules"
    if (cd "$dir" && flock package.json npm install --no-audit --no-fund --silent) >"$KID_TMP/npm.log" 2>&1; then
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

kid_cleanup() {
    local pid
    while read -r pid; do
        [ -n "$pid" ] || continue
        if kill -0 "$pid" 2>/dev/null; then
            kill -INT "$pid" 2>/dev/null || true   # fast shutdown
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done < "$KID_PIDS"
    # For test/run-all.sh, which runs each server test as its own process.
    [ -z "${KID_RESULTS:-}" ] || echo "$KID_PASSED $KID_FAILED" > "$KID_RESULTS"
    rm -rf "$KID_TMP"
}
trap kid_cleanup EXIT

# Test bookkeeping: check NAME COMMAND... counts a pass or a failure.
KID_PASSED=0
KID_FAILED=0
check() {
    local name=$1
    shift
    if "$@"; then
        KID_PASSED=$((KID_PASSED + 1))
        echo "ok: $name"
    else
        KID_FAILED=$((KID_FAILED + 1))
        echo "FAILED: $name"
    fi
}

# expect_eq NAME ACTUAL EXPECTED
expect_eq() {
    if [ "$2" == "$3" ]; then
        KID_PASSED=$((KID_PASSED + 1))
        echo "ok: $1"
    else
        KID_FAILED=$((KID_FAILED + 1))
        echo "FAILED: $1: got '$2', expected '$3'"
    fi
}

# need NAME COMMAND...: what a test needs but does not itself test (a tool
# installed, a program that ran to its end).  It is no check: when it holds
# it says so on a "note:" line, uncounted; when it does not, that is a
# failed check.  Returns COMMAND's status.
need() {
    local name=$1
    shift
    if "$@"; then
        echo "note: $name"
        return 0
    fi
    KID_FAILED=$((KID_FAILED + 1))
    echo "FAILED: $name"
    return 1
}

# count_program_checks NAME OUTPUT EXIT_STATUS: the checks a client test
# program (test/clients/) printed to OUTPUT, one "ok: ..." or "FAILED: ..."
# line each, counted here under NAME.  Its last line is "end: P passed, F
# failed" (or "end: P+F checks, F failed"); a program that did not print
# it, whose counts are not the lines it printed, or that exited non-zero
# with nothing failed, stopped early: a failed check, never fewer passes.
count_program_checks() {
    local name=$1 out=$2 rc=$3 line p=0 f=0
    while IFS= read -r line; do
        case $line in
        "ok: "*) check "$name: ${line#ok: }" true; p=$((p + 1)) ;;
        "FAILED: "*) check "$name: ${line#FAILED: }" false; f=$((f + 1)) ;;
        *) echo "$line" ;;
        esac
    done <"$out"
    program_ended() {
        grep -qx -e "end: $p passed, $f failed" -e "end: $((p + f)) checks, $f failed" "$out" &&
            { [ "$rc" -eq 0 ] || [ $f -gt 0 ]; }
    }
    need "$name: the test program ran to its end, $p passed, $f failed (exit status $rc)" program_ended
}

# kid_finish: a server test's last line.  Run as a program of its own
# (test/server/NAME.sh, or by run-all.sh) it prints the script's counts and
# fails on any failure; sourced into a shell that counts for it, nothing.
kid_finish() {
    [ "${BASH_SOURCE[1]}" = "$0" ] || return 0
    [ -n "${KID_RESULTS:-}" ] || echo "${KID_PASSED} passed, ${KID_FAILED} failed"
    [ "$KID_FAILED" -eq 0 ]
}
