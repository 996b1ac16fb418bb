#!/usr/bin/env bash
# What the commit horizon costs (not a test: it prints figures), in one run:
#   1. the write path, before and after: sno_new(), tid_new() and koid_new()
#      per call (SELECT count(f()) FROM generate_series(1, N), next to the
#      count(g) floor) and single-row INSERT ... DEFAULT sno_new() with
#      pgbench at 8 clients, on one data directory served in turns by
#      PostgreSQL with kid as built from BEFORE (a git revision, default
#      the merge base with main) and from the working tree;
#   2. the read path: one sno_safe_horizon() / tid_safe_horizon() call with
#      IDLE idle sessions and with as many in an open transaction that made
#      an id (their floors are what a call reads).
# Rounds interleave before and after; the best round is kept.  Needs a
# second PostgreSQL 15 install to put the "before" build in: KID_BEFORE_ROOT
# (/usr/lib/postgresql/15, /usr/share/postgresql/15 and /usr/include/postgresql
# copied under one root: Debian's PostgreSQL finds its files relative to
# its binaries, so the copy builds and runs kid on its own).
#   KID_BEFORE_ROOT=/opt/kid-pg/before BEFORE=main test/tools/bench_horizon.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh

N=${BENCH_N:-1000000}
ROUNDS=${BENCH_ROUNDS:-5}
SECONDS_PER_ROUND=${BENCH_SECONDS:-5}
IDLE=${BENCH_IDLE:-300}
BEFORE=${BEFORE:-$(git merge-base HEAD main)}
BEFORE_ROOT=${KID_BEFORE_ROOT:?set KID_BEFORE_ROOT to a relocated PostgreSQL 15 for the build before}
AFTER_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
BEFORE_CONFIG=$BEFORE_ROOT/usr/lib/postgresql/15/bin/pg_config

# The two builds: the working tree into PG_CONFIG's install, BEFORE (from
# git, in a scratch tree) into the relocated one.
make -s -j2 PG_CONFIG="$AFTER_CONFIG" >/dev/null && make -s install PG_CONFIG="$AFTER_CONFIG" >/dev/null
before_tree=$KID_TMP/before
git worktree add -q --detach "$before_tree" "$BEFORE"
trap 'git worktree remove --force "$before_tree"; kid_cleanup' EXIT
(cd "$before_tree" && make -s -j2 PG_CONFIG="$BEFORE_CONFIG" >/dev/null && make -s install PG_CONFIG="$BEFORE_CONFIG" >/dev/null)
echo "before: $(git log -1 --format='%h %s' "$BEFORE" | cut -c1-70)"
echo "after:  the working tree ($(git log -1 --format=%h HEAD), $(git status --short src | wc -l) changed files in src)"

PORT=54333
cluster_init hbench $PORT "max_connections = $((IDLE * 2 + 20))" "shared_buffers = 256MB" "synchronous_commit = off"
serve() { # BIN: start the data directory with that PostgreSQL
    as_postgres "$1/pg_ctl" -D "$KID_TMP/hbench/data" -l "$KID_TMP/hbench/server.log" -w -t 60 start >/dev/null
    head -1 "$KID_TMP/hbench/data/postmaster.pid" >>"$KID_PIDS"
}
unserve() { as_postgres "$1/pg_ctl" -D "$KID_TMP/hbench/data" -m fast -w -t 60 stop >/dev/null; }
AFTER_BIN=$("$AFTER_CONFIG" --bindir)
BEFORE_BIN=$("$BEFORE_CONFIG" --bindir)
serve "$AFTER_BIN"
kpsql $PORT -d postgres -c "CREATE EXTENSION kid" -c "CREATE TABLE ins (id sno PRIMARY KEY DEFAULT sno_new(), n int)"
unserve "$AFTER_BIN"

# ns per call of f over N calls, timed on the server.
per_call() {
    kpsql $PORT -d postgres -c "DO \$\$ DECLARE t0 timestamptz; BEGIN t0 := clock_timestamp();
        PERFORM count($1) FROM generate_series(1, $N) g;
        RAISE NOTICE '%', round(extract(epoch FROM clock_timestamp() - t0) * 1e9 / $N); END \$\$" 2>&1 | sed 's/^NOTICE:  //'
}
inserts() {
    echo "INSERT INTO ins (n) VALUES (1);" >"$KID_TMP/ins.sql"
    as_postgres "$AFTER_BIN/pgbench" -h "$KID_TMP" -p $PORT -U postgres -n -c 8 -j 2 -T "$SECONDS_PER_ROUND" -f "$KID_TMP/ins.sql" postgres 2>/dev/null |
        sed -n 's/^tps = \([0-9.]*\).*/\1/p' | cut -d. -f1
}
declare -A best
keep_min() { [ -z "${best[$1]:-}" ] || [ "$2" -lt "${best[$1]}" ] && best[$1]=$2 || true; }
keep_max() { [ -z "${best[$1]:-}" ] || [ "$2" -gt "${best[$1]}" ] && best[$1]=$2 || true; }
for round in $(seq "$ROUNDS"); do
    for side in before after; do
        bin=$([ $side = before ] && echo "$BEFORE_BIN" || echo "$AFTER_BIN")
        serve "$bin"
        keep_min "$side floor" "$(per_call g)"
        for f in sno_new tid_new koid_new; do keep_min "$side $f" "$(per_call "$f()")"; done
        kpsql $PORT -d postgres -c "TRUNCATE ins"
        keep_max "$side insert" "$(inserts)"
        unserve "$bin"
    done
done
echo
echo "Write path, best of $ROUNDS rounds (ns per call over $N calls; INSERT: rows/s at 8 clients):"
printf '%-16s %10s %10s %14s\n' "" before after "after/before"
for k in floor sno_new tid_new koid_new insert; do
    printf '%-16s %10s %10s %14s\n' "$k" "${best[before $k]}" "${best[after $k]}" \
        "$(awk -v a="${best[after $k]}" -v b="${best[before $k]}" 'BEGIN { printf "%.2f", a / b }')"
done

# The read path, on the build after.
serve "$AFTER_BIN"
echo
echo "Read path: ns per call, best of $ROUNDS (max_connections $((IDLE * 2 + 20))):"
for f in "sno_safe_horizon()" "tid_safe_horizon()"; do
    for _ in $(seq "$ROUNDS"); do keep_min "alone $f" "$(per_call "$f")"; done
done
# IDLE sessions that only wait, then IDLE more in an open transaction that made an id.
for i in $(seq "$IDLE"); do
    kpsql $PORT -d postgres -c "SELECT pg_sleep(3600)" >/dev/null 2>&1 &
done
for i in $(seq "$IDLE"); do
    kpsql $PORT -d postgres -c "BEGIN" -c "SELECT sno_new(), tid_new()" -c "SELECT pg_sleep(3600)" >/dev/null 2>&1 &
done
for _ in $(seq 600); do
    [ "$(kpsql $PORT -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(3600)%'")" -ge $((IDLE * 2)) ] && break
    sleep 0.1
done
for f in "sno_safe_horizon()" "tid_safe_horizon()"; do
    for _ in $(seq "$ROUNDS"); do keep_min "busy $f" "$(per_call "$f")"; done
done
printf '%-22s %10s %28s\n' "" alone "$((IDLE * 2)) sessions, $IDLE holding"
for f in "sno_safe_horizon()" "tid_safe_horizon()"; do
    printf '%-22s %10s %28s\n' "$f" "${best[alone $f]}" "${best[busy $f]}"
done
kpsql $PORT -d postgres -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(3600)%'" >/dev/null
wait
unserve "$AFTER_BIN"
