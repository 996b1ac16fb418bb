#!/usr/bin/env bash
# kid_adopt_database() against what other sessions hold (runs alone or from
# run-all.sh; its own cluster).  pg_regress has one session, so the cases
# that need a second one are here (test/sql/database_origin.sql has the
# rest: every way an id is stored, ids ahead of the clock, the arguments):
#   - another session's temporary table: kid cannot read it; the adoption
#     names it (a WARNING, status 'not read', recorded in floors), and does
#     not take its ids;
#   - a table another transaction is creating, and a column another
#     transaction is adding: the adoption cannot see them before they
#     commit, so it refuses (55006) while they are open, and reads them
#     once committed;
#   - a write in progress on a table with ids: the adoption waits for it
#     (it locks each table it reads in SHARE mode) and takes the id it
#     committed; a write that comes after the table was read waits for the
#     adoption to commit.
# The ids are of 2020 (far below what the generators reach), one month per
# case, so that the newest time found says which were read.  Where the
# adoption must refuse at once, lock_timeout turns a wait (a wrong answer
# that would hang the test: the other transaction ends only after it) into
# an error.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

AD_PORT=54430
cluster_init adopt $AD_PORT || exit 1
cluster_start adopt || exit 1
aq() { kpsql $AD_PORT -d app "$@"; }
kpsql $AD_PORT -d postgres -c "CREATE DATABASE app" || exit 1
aq -c "CREATE EXTENSION kid" -c "CREATE TABLE t (id koid)" -c "INSERT INTO t VALUES (koid_new_with_time('2020-01-01 00:00+00'))"

# Sessions of their own, each a psql fed through a fifo.  session_run NAME
# SQL sends SQL and returns once the session has run it (a marker echoed
# after it reached the output; 60 s at most).
declare -A AD_FD AD_PID
session_open() {
    local name=$1 fd
    mkfifo "$KID_TMP/$name.in"
    kpsql $AD_PORT -d app <"$KID_TMP/$name.in" >"$KID_TMP/$name.out" 2>&1 &
    AD_PID[$name]=$!
    exec {fd}>"$KID_TMP/$name.in"
    AD_FD[$name]=$fd
}
session_run() {
    local name=$1 marker="ran $RANDOM$RANDOM" i
    printf '%s\n\\echo %s\n' "$2" "$marker" >&"${AD_FD[$name]}"
    for i in $(seq 600); do
        grep -qx "$marker" "$KID_TMP/$name.out" && return 0
        kill -0 "${AD_PID[$name]}" 2>/dev/null || break
        sleep 0.1
    done
    echo "session $name did not run: $2"
    cat "$KID_TMP/$name.out"
    return 1
}
session_close() {
    exec {AD_FD[$1]}>&-
    wait "${AD_PID[$1]}"
}
# waiting_on_lock PATTERN: a backend whose query matches PATTERN waits for
# a lock (60 s at most).
waiting_on_lock() {
    local i
    for i in $(seq 600); do
        [ "$(aq -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '$1'")" = 1 ] && return 0
        sleep 0.1
    done
    return 1
}
# refused LABEL DETAIL: kid_adopt_database() refuses at once (55006) with
# that DETAIL (a regex).
refused() {
    local out
    out=$(aq -v VERBOSITY=verbose -c "SET lock_timeout = '30s'" -c "SELECT * FROM kid_adopt_database()" 2>&1)
    expect_eq "$1" "$(grep -c -e '^ERROR:  55006: cannot adopt database "app" while another transaction creates or changes a relation in it$' \
        -e "^DETAIL:  $2\$" <<<"$out")" 2
}
# koid_newest: the newest koid time kid_adopt_database() takes (a dry run).
koid_newest() {
    aq -c "SET client_min_messages = error" -c "SET TIME ZONE UTC" \
        -c "SELECT newest FROM kid_adopt_database(dry_run => true) WHERE line = 'koid'"
}

# 1. Another session's temporary table.
session_open s1
need "a session with a temporary table" session_run s1 \
    "CREATE TEMP TABLE held (id koid); INSERT INTO held VALUES (koid_new_with_time('2020-06-01 00:00+00'));"
expect_eq "another session's temporary table: listed as not read" \
    "$(aq -c "SELECT status || ': ' || why FROM kid_adoption_columns() WHERE column_name LIKE 'pg\_temp\_%.held.id'")" \
    "not read: temporary table of another session"
out=$(aq -c "SET TIME ZONE UTC" -c "CREATE TEMP TABLE a AS SELECT * FROM kid_adopt_database()" \
    -c "SELECT newest FROM a WHERE line = 'koid'" 2>&1)
expect_eq "another session's temporary table: the adoption names it in a WARNING and does not take its ids" \
    "$(grep -c -e '^WARNING:  kid_adopt_database() cannot read pg_temp_[0-9]*\.held\.id: temporary table of another session$' \
        -e '^2020-01-01 00:00:00+00$' <<<"$out")" 2
expect_eq "another session's temporary table: the adoption records it as not read" \
    "$(aq -c "SELECT how || ' ' || (SELECT count(*) FROM jsonb_object_keys(floors->'not read') k WHERE k LIKE 'pg\_temp\_%.held.id')
        FROM kid_database_origin ORDER BY position DESC LIMIT 1")" "adopted 1"
session_close s1

# 2. A table another transaction is creating.
session_open s2
need "a transaction creating a table" session_run s2 \
    "BEGIN; CREATE TABLE imported (id koid); INSERT INTO imported VALUES (koid_new_with_time('2020-07-01 00:00+00'));"
refused "a table being created by another transaction: the adoption refuses (55006), naming the process" \
    'Process [0-9]* is creating relation [0-9]*, which this transaction cannot see before it commits\.'
expect_eq "... and records nothing" "$(aq -c "SELECT count(*) FROM kid_database_origin WHERE how = 'adopted'")" 1
need "the transaction commits" session_run s2 "COMMIT;"
expect_eq "once it committed, the adoption reads the table" "$(koid_newest)" "2020-07-01 00:00:00+00"

# 3. A column another transaction is adding.
need "a transaction adding a column" session_run s2 \
    "BEGIN; ALTER TABLE t ADD COLUMN more koid; UPDATE t SET more = koid_new_with_time('2020-08-01 00:00+00');"
refused "a column being added by another transaction: the adoption refuses (55006), naming the table" \
    'Process [0-9]* holds an ACCESS EXCLUSIVE lock on public\.t\.'
need "the transaction commits" session_run s2 "COMMIT;"
expect_eq "once it committed, the adoption reads the column" "$(koid_newest)" "2020-08-01 00:00:00+00"

# 4. A write in progress: the adoption waits for it and takes its id.
need "a transaction writing an id" session_run s2 "BEGIN; INSERT INTO imported VALUES (koid_new_with_time('2020-09-01 00:00+00'));"
aq -c "SET TIME ZONE UTC" -c "SELECT newest FROM kid_adopt_database() WHERE line = 'koid'" >"$KID_TMP/adopt.out" 2>&1 &
adopt_pid=$!
check "a write in progress: the adoption waits for its lock" waiting_on_lock '%kid_adopt_database()%'
need "the writing transaction commits" session_run s2 "COMMIT;"
wait $adopt_pid
expect_eq "... and takes the id it committed" "$(grep -v '^WARNING\|^HINT\|^NOTICE' "$KID_TMP/adopt.out")" "2020-09-01 00:00:00+00"

# 5. A write after a table was read waits until the adoption commits.
need "an adoption in an open transaction" session_run s2 "BEGIN; SELECT count(*) FROM kid_adopt_database();"
aq -c "INSERT INTO imported VALUES (koid_new_with_time('2020-10-01 00:00+00'))" >"$KID_TMP/insert.out" 2>&1 &
insert_pid=$!
check "a write after the adoption read the table waits for the adoption" waiting_on_lock 'INSERT INTO imported%'
need "the adoption commits" session_run s2 "COMMIT;"
wait $insert_pid
expect_eq "... and is written once it committed" "$(aq -c "SELECT count(*) FROM imported")" 3
session_close s2

cluster_stop adopt
kid_finish
