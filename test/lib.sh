# test/lib.sh - throwaway PostgreSQL clusters for kid's scripts (sourced).
#
# Servers run as the postgres user (PostgreSQL refuses root) on a Unix
# socket in a private directory, with kid preloaded.  Every postmaster's pid
# is recorded, and kid_cleanup (installed as an EXIT trap) stops them all
# by pid, whatever happened.

PG_CONFIG=${PG_CONFIG:-pg_config}
PG_BIN=${PG_BIN:-$($PG_CONFIG --bindir)}
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
    as_postgres "$PG_BIN/initdb" -D "$dir/data" -U postgres -A trust --no-sync >"$KID_TMP/$name.initdb.log" 2>&1 ||
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
    as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 "$@" start >/dev/null ||
        { tail -30 "$dir/server.log"; return 1; }
    head -1 "$dir/data/postmaster.pid" >> "$KID_PIDS"
}

# cluster_stop NAME [mode]
cluster_stop() {
    local name=$1 mode=${2:-fast}
    local dir="$KID_TMP/$name"
    as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -m "$mode" -w -t 60 stop >/dev/null 2>&1 || true
}

cluster_pid() {
    head -1 "$KID_TMP/$1/data/postmaster.pid"
}

# kpsql PORT [psql args...]: unaligned, quiet, stop on the first error.
kpsql() {
    local port=$1
    shift
    "$PG_BIN/psql" -h "$KID_TMP" -p "$port" -U postgres -X -q -A -t -v ON_ERROR_STOP=1 "$@"
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
