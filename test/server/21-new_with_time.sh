#!/usr/bin/env bash
# Backfill ids from concurrent backends (runs alone or from run-all.sh; uses
# the "main" cluster).
#
# tid_new_with_time, koid_new_with_time, uid_new_with_time and
# uid_global_new_with_time take the field below the time from a server-wide
# sequence by fetch-and-add.  Promised (src/sql/tid.sql, koid.sql, uid.sql):
# the ids one server makes for one time unit are distinct up to the size of
# that field, whatever backends make them; and a backfill tid never equals
# a tid_new() id of this server.  Here pgbench clients make ids for one
# same time, one per transaction, into tables whose primary key refuses a
# duplicate (its transaction, and so pgbench, would fail), up to just below
# each field's size; then tid_new() and tid_new_with_time() of the current
# time go into one table.  Nothing else makes backfill ids meanwhile, so
# each run takes consecutive sequence values.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ensure_main_cluster || exit 1
main_db kid_backfill || exit 1
kpsql $PORT -d kid_backfill <<'SQL' || exit 1
CREATE TABLE bf_tid (id atproto_tid PRIMARY KEY);
CREATE TABLE bf_koid (id koid PRIMARY KEY);
CREATE TABLE bf_uid (id uid PRIMARY KEY);
CREATE TABLE bf_uid_global (id uid_global PRIMARY KEY);
CREATE TABLE bf_mixed (id atproto_tid PRIMARY KEY, backfill boolean NOT NULL);
SQL

bench() {
    local script=$KID_TMP/bench.$RANDOM.sql
    echo "$1" >"$script"
    chmod 644 "$script"
    shift
    main_pgbench kid_backfill -f "$script" "$@"
}
count() {
    kpsql $PORT -d kid_backfill -c "$1"
}

# One time for all: a microsecond of 2024, the unit of every type (uid's
# step starts there: 2024-05-01 12:00:00 is a whole second).
T="'2024-05-01 12:00:00+00'"

# tid: 1023 clock ids per microsecond; 4 clients x 255 = 1020.
bench "INSERT INTO bf_tid VALUES (tid_new_with_time($T));" -c 4 -j 2 -t 255
expect_eq "tid_new_with_time: pgbench clients succeeded (no duplicate key)" "$?" 0
expect_eq "tid_new_with_time: 1020 ids of one microsecond from 4 backends are distinct" \
    "$(count "SELECT count(DISTINCT id) || ' ' || count(DISTINCT tid_to_timestamp(id)) FROM bf_tid")" "1020 1"

# koid: 4096 counters per millisecond; 4 clients x 1024 = 4096.
bench "INSERT INTO bf_koid VALUES (koid_new_with_time($T));" -c 4 -j 2 -t 1024
expect_eq "koid_new_with_time: pgbench clients succeeded (no duplicate key)" "$?" 0
expect_eq "koid_new_with_time: 4096 ids of one millisecond from 4 backends are distinct" \
    "$(count "SELECT count(DISTINCT id) || ' ' || count(DISTINCT koid_to_timestamp(id)) FROM bf_koid")" "4096 1"

# uid and uid_global (one sequence): 16384 per step; 4 clients x 4096 each.
bench "INSERT INTO bf_uid VALUES (uid_new_with_time($T));" -c 4 -j 2 -t 4096
expect_eq "uid_new_with_time: pgbench clients succeeded (no duplicate key)" "$?" 0
expect_eq "uid_new_with_time: 16384 ids of one step from 4 backends are distinct" \
    "$(count "SELECT count(DISTINCT id) || ' ' || count(DISTINCT uid_to_timestamp(id)) FROM bf_uid")" "16384 1"
bench "INSERT INTO bf_uid_global VALUES (uid_global_new_with_time($T));" -c 4 -j 2 -t 4096
expect_eq "uid_global_new_with_time: pgbench clients succeeded (no duplicate key)" "$?" 0
expect_eq "uid_global_new_with_time: 16384 ids of one step from 4 backends are distinct" \
    "$(count "SELECT count(DISTINCT id) || ' ' || count(DISTINCT uid_global_to_timestamp(id)) FROM bf_uid_global")" "16384 1"

# The limit is what was said: 3 more ids of that microsecond are new (1023
# in all), the next 3 repeat the first ones.
expect_eq "tid_new_with_time: after 1023 ids of a microsecond the next ones repeat" \
    "$(count "SELECT string_agg((id IN (SELECT id FROM bf_tid))::text, ' ' ORDER BY n) FROM (SELECT n, tid_new_with_time($T) AS id FROM generate_series(1, 6) n) s")" "false false false true true true"

# tid_new() and tid_new_with_time() of the current time, from 4 backends at
# once: the backfill ids never take this server's clock id.
bench "INSERT INTO bf_mixed VALUES (tid_new(), false), (tid_new_with_time(clock_timestamp()), true);" -c 4 -j 2 -t 2000
expect_eq "tid_new and tid_new_with_time(now): pgbench clients succeeded (no duplicate key)" "$?" 0
expect_eq "tid_new and tid_new_with_time(now): 16000 distinct ids, the backfill ones never with kid.node_id's clock id" \
    "$(count "SELECT count(DISTINCT id) || ' ' || count(*) FILTER (WHERE backfill AND tid_clock_id(id) = current_setting('kid.node_id')::int) FROM bf_mixed")" "16000 0"

kpsql $PORT -d postgres -c "DROP DATABASE kid_backfill"
kid_finish
