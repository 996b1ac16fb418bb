#!/usr/bin/env bash
# kid_adopt_database() against what other sessions hold (runs alone or from
# run-all.sh; its own cluster).  pg_regress has one session, so the cases
# that need a second one are here (test/sql/database_origin.sql has the
# rest: every way an id is stored, ids ahead of the clock, the arguments):
#   - another session's temporary table: kid cannot read it; the adoption
#     names it (a WARNING, status 'not read') and stops (55000): ids it
#     cannot see may be above every id it reads.  Excluded by name, it is
#     adopted without its ids (recorded as excluded); once that session has
#     ended, adopted as any other;
#   - a table another transaction is creating, and a column another
#     transaction is adding: the adoption cannot see them before they
#     commit, so it refuses (55006) while they are open, and reads them
#     once committed;
#   - a write in progress on a table with ids: the adoption waits for it
#     (it locks each table it reads in SHARE mode) and takes the id it
#     committed; a write that comes after the table was read waits for the
#     adoption to commit; the same for a partition, written through its
#     partitioned table (each partition is locked as it is read);
#   - a koid an hour ahead of the clock, stored by a database owner who is
#     no superuser: taken, it would make koid_new() fail for an hour in
#     every database of the server, so the adoption stops (55000) and
#     raises nothing; it takes it when sessions' kid.koid_max_clock_wait_ms
#     covers it (a WARNING: koid_new() waits), or when max_ahead reaches it
#     (a WARNING: koid_new() fails, and it does, in another database); a
#     floor 5 s ahead is named for koid alone (the others' lines lead the
#     clock by up to 10 s after any crash);
#   - two snos stored 23 hours ahead, one on each of sno's timelines:
#     taken, they would make sno_new() wait 23 hours in every database of
#     the server (it waits while both timelines' floors are ahead of the
#     clock), so the adoption names both columns and stops (55000), and
#     sno_new() goes on in another database; one timeline ahead is taken
#     (sno_new() goes on on the other), after which a sno ahead on the other
#     timeline, in another database, stops that database's adoption; taken
#     by a decision (max_ahead), a WARNING says sno_new() waits, and it does;
#     then snos not above both floors are taken (they lengthen no wait);
#   - on a new server (8 left both sno floors ahead): a materialized view
#     that gets a sno 23 hours ahead on tick 1 between the adoption's first
#     pass (which decides which snos to take, and saw a tick-0 sno 23 hours
#     ahead alone) and its second (which takes them): REFRESH ...
#     CONCURRENTLY is not held back by the adoption's locks.  The adoption
#     decides again on what it took, names both columns and stops (55000);
#     sno_new() goes on in another database.  The pause between the passes
#     is made certain: the adoption waits in its first pass for a REFRESH
#     of a later materialized view, begun after its check for such locks;
#   - two adoptions at once in two databases, one with a tick-0 sno 23
#     hours ahead, the other with a tick-1 one: the second waits for the
#     first to end (a lock of the whole server) and reads the floor it
#     raised, so it stops (55000) and one timeline alone is ahead.  The
#     first is held in its second pass, the floors read, as above.
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

# Sessions of their own, each a psql fed through a fifo (session_open NAME
# [DATABASE [ROLE [go-on]]], go-on: the session goes on after an error).  session_run NAME SQL sends SQL and returns once the
# session has run it (a marker echoed after it reached the output; 60 s at
# most); session_send NAME SQL returns at once.
declare -A AD_FD AD_PID
# without_sessions CMD...: CMD without the sessions' fifos open, so that a
# session's psql sees its end of input when session_close closes it.
without_sessions() {
    local fd
    for fd in "${AD_FD[@]}"; do exec {fd}>&-; done
    "$@"
}
session_open() {
    local name=$1 fd
    rm -f "$KID_TMP/$name.in"
    mkfifo "$KID_TMP/$name.in"
    (without_sessions kpsql $AD_PORT -d "${2:-app}" ${3:+-U "$3"} ${4:+-v ON_ERROR_STOP=0} \
        <"$KID_TMP/$name.in" >"$KID_TMP/$name.out" 2>&1) &
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
session_send() {
    printf '%s\n' "$2" >&"${AD_FD[$1]}"
}
session_close() {
    exec {AD_FD[$1]}>&-
    unset "AD_FD[$1]"
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
held=$(aq -c "SELECT column_name FROM kid_adoption_columns(scan => false) WHERE column_name LIKE 'pg\_temp\_%.held.id'")
out=$(aq -v VERBOSITY=verbose -c "SELECT * FROM kid_adopt_database()" 2>&1)
expect_eq "another session's temporary table: the adoption names it in a WARNING and stops (55000)" \
    "$(grep -c -e '^WARNING:  01000: kid_adopt_database() cannot read pg_temp_[0-9]*\.held\.id: temporary table of another session$' \
        -e '^ERROR:  55000: cannot adopt database "app": it cannot read 1 column$' \
        -e '^DETAIL:  pg_temp_[0-9]*\.held\.id: not read (temporary table of another session)$' <<<"$out")" 3
expect_eq "... and records nothing" "$(aq -c "SELECT count(*) FROM kid_database_origin WHERE how = 'adopted'")" 0
out=$(aq -c "SET TIME ZONE UTC" -c "SET client_min_messages = warning" \
    -c "CREATE TEMP TABLE a AS SELECT * FROM kid_adopt_database(exclude => ARRAY['$held'])" -c "SELECT newest FROM a WHERE line = 'koid'" 2>&1)
expect_eq "another session's temporary table, excluded by name: adopted without its ids" "$out" "2020-01-01 00:00:00+00"
expect_eq "... and recorded as excluded" \
    "$(aq -c "SELECT how || ' ' || (floors->'excluded' ? '$held') FROM kid_database_origin ORDER BY position DESC LIMIT 1")" "adopted true"
session_close s1
# Its backend drops the table on its way out, after psql has gone.
temp_table_gone() {
    local i
    for i in $(seq 600); do
        [ "$(aq -c "SELECT count(*) FROM pg_class WHERE relname = 'held'")" = 0 ] && return 0
        sleep 0.1
    done
    return 1
}
need "the session's temporary table is gone with it" temp_table_gone
expect_eq "once that session has ended, the adoption needs no word on it" \
    "$(aq -c "SET TIME ZONE UTC" -c "SELECT newest FROM kid_adopt_database() WHERE line = 'koid'" 2>&1)" "2020-01-01 00:00:00+00"

# 2. A table another transaction is creating.
session_open s2
need "a transaction creating a table" session_run s2 \
    "BEGIN; CREATE TABLE imported (id koid); INSERT INTO imported VALUES (koid_new_with_time('2020-07-01 00:00+00'));"
refused "a table being created by another transaction: the adoption refuses (55006), naming the process" \
    'Process [0-9]* is creating relation [0-9]*, which this transaction cannot see before it commits\.'
expect_eq "... and records nothing" "$(aq -c "SELECT count(*) FROM kid_database_origin WHERE how = 'adopted'")" 2
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

# 6. The same through a partitioned table: each partition it reads is
# locked against writes as a table is.
aq -c "CREATE TABLE parted (id koid) PARTITION BY RANGE (id)" \
    -c "CREATE TABLE parted_all PARTITION OF parted FOR VALUES FROM (MINVALUE) TO (MAXVALUE)"
need "a transaction writing an id into a partition" session_run s2 \
    "BEGIN; INSERT INTO parted VALUES (koid_new_with_time('2020-11-01 00:00+00'));"
aq -c "SET TIME ZONE UTC" -c "SELECT newest FROM kid_adopt_database() WHERE line = 'koid'" >"$KID_TMP/adopt-parted.out" 2>&1 &
adopt_pid=$!
check "a write in progress into a partition: the adoption waits for its lock" waiting_on_lock '%kid_adopt_database()%'
need "the writing transaction commits" session_run s2 "COMMIT;"
wait $adopt_pid
expect_eq "... and takes the id it committed" "$(grep -v '^WARNING\|^HINT\|^NOTICE' "$KID_TMP/adopt-parted.out")" "2020-11-01 00:00:00+00"
need "an adoption in an open transaction" session_run s2 "BEGIN; SELECT count(*) FROM kid_adopt_database();"
aq -c "INSERT INTO parted VALUES (koid_new_with_time('2020-12-01 00:00+00'))" >"$KID_TMP/insert-parted.out" 2>&1 &
insert_pid=$!
check "a write into a partition after the adoption read it waits for the adoption" waiting_on_lock 'INSERT INTO parted%'
need "the adoption commits" session_run s2 "COMMIT;"
wait $insert_pid
expect_eq "... and is written once it committed" "$(aq -c "SELECT count(*) FROM parted")" 2
session_close s2

# 7. A koid an hour ahead of the clock, in a database
# whose owner is no superuser; the server's other databases generate koids.
kpsql $AD_PORT -d postgres -c "CREATE ROLE alice LOGIN" -c "CREATE DATABASE owned OWNER alice" -c "CREATE DATABASE other" &&
    kpsql $AD_PORT -d owned -c "CREATE EXTENSION kid" && kpsql $AD_PORT -d other -c "CREATE EXTENSION kid" || exit 1
oq() { kpsql $AD_PORT -d owned "$@"; }
need "alice stores a koid an hour ahead in her own table" \
    kpsql $AD_PORT -d owned -U alice -c "CREATE TABLE mine (k koid)" -c "INSERT INTO mine VALUES (koid_new_with_time(now() + interval '1 hour'))"
out=$(oq -v VERBOSITY=verbose -c "SELECT * FROM kid_adopt_database()" 2>&1)
expect_eq "a koid an hour ahead: named (more than kid.koid_max_clock_wait_ms ahead) and the adoption stops (55000)" \
    "$(grep -c -e '^WARNING:  01000: public\.mine\.k holds 1 koid id more than kid\.koid_max_clock_wait_ms (1000 ms) ahead of this server.s clock, the newest at ' \
        -e '^ERROR:  55000: cannot adopt database "owned": 1 column holds ids too far ahead of this server.s clock$' <<<"$out")" 2
expect_eq "... nothing recorded" "$(oq -c "SELECT count(*) FROM kid_database_origin WHERE how = 'adopted'")" 0
expect_eq "... nothing raised: koid_new() works in another database" \
    "$(kpsql $AD_PORT -d other -c "SET kid.koid_max_clock_wait_ms = 0" -c "SELECT koid_new() IS NOT NULL")" t
# What is ahead, for the WARNING on a floor the adoption raises: for koid,
# any lead (koid_new() waits or fails); for the others, more than the 10 s
# by which kid.lease leads the clock (a crash restart gives that anyway).
# A floor 5 s ahead, in a dry run: the koid line's alone is named.
out=$(oq -c "SELECT count(*) FROM kid_adopt_database(floor => now() + interval '5 s', dry_run => true)" 2>&1)
expect_eq "a floor 5 s ahead (dry run): a WARNING for the koid line, none for the others" \
    "$(grep '^WARNING:  kid_adopt_database() would raise the ' <<<"$out" | sed 's/ floor to .*//')" \
    "WARNING:  kid_adopt_database() would raise the koid"
# Sessions that wait an hour for their clock (the server's setting; a SET
# in the adopting session would not count): taken, koid_new() waits.
kpsql $AD_PORT -d postgres -c "ALTER SYSTEM SET kid.koid_max_clock_wait_ms = '1h'" && need "reload" reload_conf $AD_PORT
out=$(oq -c "SET TIME ZONE UTC" -c "SELECT line, koid_to_timestamp(max(k)) = floor_after FROM kid_adopt_database(), mine WHERE line = 'koid' GROUP BY 1, floor_after" 2>&1)
expect_eq "... with the server's kid.koid_max_clock_wait_ms an hour, taken: the koid floor is its time, and a WARNING says koid_new() waits" \
    "$(grep -c -e '^WARNING:  kid_adopt_database() raised the koid floor to .*, ahead of this server.s clock$' \
        -e '^DETAIL:  koid_new() waits for the clock to pass it (kid\.koid_max_clock_wait_ms is 3600000 ms)\.$' -e '^koid|t$' <<<"$out")" 3
kpsql $AD_PORT -d postgres -c "ALTER SYSTEM RESET kid.koid_max_clock_wait_ms" && need "reload" reload_conf $AD_PORT
# A koid two hours ahead, taken by a decision (max_ahead): the WARNING says
# koid_new() fails, and it does, in another database.
oq -c "INSERT INTO mine VALUES (koid_new_with_time(now() + interval '2 hours'))"
out=$(oq -c "SET TIME ZONE UTC" -c "SELECT line, koid_to_timestamp(max(k)) = floor_after FROM kid_adopt_database(max_ahead => '3 hours'), mine WHERE line = 'koid' GROUP BY 1, floor_after" 2>&1)
expect_eq "a koid two hours ahead, max_ahead => '3 hours': taken, and a WARNING says koid_new() fails in every database" \
    "$(grep -c -e '^WARNING:  kid_adopt_database() raised the koid floor to .*, ahead of this server.s clock$' \
        -e '^DETAIL:  koid_new() fails with ERROR 55000, in every database of this server, until the clock is within kid\.koid_max_clock_wait_ms (1000 ms) of it\.$' \
        -e '^koid|t$' <<<"$out")" 3
expect_eq "... and koid_new() fails with 55000 in another database" \
    "$(kpsql $AD_PORT -d other -v VERBOSITY=verbose -c "SELECT koid_new()" 2>&1 | grep -c '^ERROR:  55000: the system clock is behind the koid floor by ')" 1

# 8. Two snos 23 hours ahead, one on each of sno's timelines (the tick bit
# is bit 32 of its bytes), stored by alice in tables of her own.  A
# sno_new() that would wait for its clock is cut by statement_timeout.
kpsql $AD_PORT -d postgres -c "CREATE DATABASE snos OWNER alice" -c "CREATE DATABASE snos_too OWNER alice" &&
    kpsql $AD_PORT -d snos -c "CREATE EXTENSION kid" && kpsql $AD_PORT -d snos_too -c "CREATE EXTENSION kid" || exit 1
sq() { kpsql $AD_PORT -d snos "$@"; }
# next_sno: the tick of the next sno_new() in another database, or its error.
next_sno() {
    kpsql $AD_PORT -d other -v VERBOSITY=sqlstate -c "SET statement_timeout = '$1'" -c "SELECT sno_tick(sno_new())" 2>&1
}
need "alice stores two snos 23 hours ahead, one on each timeline" \
    kpsql $AD_PORT -d snos -U alice -c "CREATE TABLE tick0 (s sno)" -c "CREATE TABLE tick1 (s sno)" \
        -c "INSERT INTO tick0 VALUES (sno_new_with_time(now() + interval '23 hours'))" \
        -c "INSERT INTO tick1 SELECT sno_from_bytea(set_bit(sno_to_bytea(s), 32, 1)) FROM tick0"
expect_eq "the dry run lists both columns as ahead, bound by both sno timelines" \
    "$(sq -c "SELECT string_agg(column_name || ': ' || bound_by || ', ' || ahead_count, ' ' ORDER BY column_name) FROM kid_adoption_columns() WHERE type = 'sno'::regtype")" \
    "public.tick0.s: both sno timelines, 1 public.tick1.s: both sno timelines, 1"
out=$(sq -v VERBOSITY=verbose -c "SELECT * FROM kid_adopt_database()" 2>&1)
expect_eq "two snos 23 hours ahead, one on each timeline: each column named (both timelines ahead) and the adoption stops (55000)" \
    "$(grep -c -e '^WARNING:  01000: public\.tick0\.s holds 1 sno id ahead of this server.s clock, with both sno timelines ahead, the newest at ' \
        -e '^WARNING:  01000: public\.tick1\.s holds 1 sno id ahead of this server.s clock, with both sno timelines ahead, the newest at ' \
        -e '^HINT:  Taken, they would put the floors of both of sno.s timelines ahead of the clock .*: sno_new() would wait, in every database of this server, until the clock passed the nearer one\. ' \
        -e '^ERROR:  55000: cannot adopt database "snos": 2 columns hold ids too far ahead of this server.s clock$' <<<"$out")" 5
expect_eq "... nothing recorded" "$(sq -c "SELECT count(*) FROM kid_database_origin WHERE how = 'adopted'")" 0
expect_eq "... nothing raised: sno_new() in another database makes an id on tick 0" "$(next_sno 5s)" 0
# This server's tick-1 floor an hour in the past (as a clean restart
# leaves the floors: at the marks, behind the clock): not ahead, so it
# does not count as a timeline ahead.
expect_eq "sno tick 1's floor raised to an hour ago" \
    "$(kpsql $AD_PORT -d other -c "SELECT floor_after < now() - interval '59 minutes' FROM kid_raise_floors(ARRAY['sno tick 1'], ARRAY[now() - interval '1 hour']) WHERE line = 'sno tick 1'")" t
# One timeline ahead is no wait: with tick1's column excluded, the tick-0
# sno is taken, and sno_new() goes on on tick 1.
out=$(sq -c "SELECT line, coalesce(floor_after > now() + interval '22 hours', false) FROM kid_adopt_database(exclude => ARRAY['public.tick1.s'])
             WHERE line LIKE 'sno tick _'" 2>&1)
expect_eq "with tick1's column excluded: taken, the sno tick 0 floor 23 hours ahead, and a WARNING says sno_new() goes on on tick 1" \
    "$(grep -c -e '^WARNING:  kid_adopt_database() raised the sno tick 0 floor to .*, ahead of this server.s clock$' \
        -e '^DETAIL:  sno_new() makes its ids on its other timeline (tick 1) until the clock passes it' \
        -e '^sno tick 0|t$' -e '^sno tick 1|f$' <<<"$out")" 4
expect_eq "... and sno_new() in another database makes an id on tick 1" "$(next_sno 5s)" 1
# Now a sno 23 hours ahead on tick 1 alone, in another database: with this
# server's tick-0 floor ahead, both timelines would be.
need "alice stores a sno 23 hours ahead on tick 1 in another database" \
    kpsql $AD_PORT -d snos_too -U alice -c "CREATE TABLE later (s sno)" \
        -c "INSERT INTO later VALUES (sno_from_bytea(set_bit(sno_to_bytea(sno_new_with_time(now() + interval '23 hours')), 32, 1)))"
out=$(kpsql $AD_PORT -d snos_too -v VERBOSITY=verbose -c "SELECT * FROM kid_adopt_database()" 2>&1)
expect_eq "a sno 23 hours ahead on tick 1, the server's tick-0 floor ahead: named, and the adoption stops (55000)" \
    "$(grep -c -e '^WARNING:  01000: public\.later\.s holds 1 sno id ahead of this server.s clock, with both sno timelines ahead, the newest at ' \
        -e '^ERROR:  55000: cannot adopt database "snos_too": 1 column holds ids too far ahead of this server.s clock$' <<<"$out")" 2
expect_eq "... and sno_new() in another database still makes an id on tick 1" "$(next_sno 5s)" 1
# Taken by a decision: a WARNING says sno_new() waits, and it does.
out=$(kpsql $AD_PORT -d snos_too -c "SELECT count(*) FROM kid_adopt_database(max_ahead => '1 day')" 2>&1)
expect_eq "taken with max_ahead => '1 day': a WARNING says sno_new() waits in every database" \
    "$(grep -c -e '^WARNING:  kid_adopt_database() raised the sno tick 1 floor to .*, ahead of this server.s clock$' \
        -e '^DETAIL:  Both of sno.s timelines are then ahead of the clock: sno_new() waits, in every database of this server, until the clock passes ' <<<"$out")" 2
expect_eq "... and it waits in another database (57014 from statement_timeout)" "$(next_sno 300ms)" "ERROR:  57014"
# Both timelines' floors are ahead now: snos at or below them lengthen no
# wait, so database snos, whose two snos are, is adopted as it is.
expect_eq "with both floors ahead already, snos not above them are taken without a decision" \
    "$(sq -c "SET client_min_messages = error" -c "SELECT count(*) FROM kid_adopt_database()" 2>&1)" 8

cluster_stop adopt

# 9. A new server, whose sno floors are at its clock.
cluster_init race $AD_PORT && cluster_start race || exit 1
kpsql $AD_PORT -d postgres -c "CREATE ROLE alice LOGIN" -c "CREATE DATABASE mv OWNER alice" \
    -c "CREATE DATABASE db_a OWNER alice" -c "CREATE DATABASE db_b OWNER alice" -c "CREATE DATABASE other" || exit 1
for db in mv db_a db_b other; do kpsql $AD_PORT -d $db -c "CREATE EXTENSION kid" || exit 1; done
# lock_waited DATABASE CONDITION: a lock of pg_locks (seen from DATABASE)
# that matches CONDITION is waited for (60 s at most).
lock_waited() {
    local i
    for i in $(seq 600); do
        [ "$(kpsql $AD_PORT -d "$1" -c "SELECT count(*) FROM pg_locks WHERE NOT granted AND $2")" -gt 0 ] && return 0
        sleep 0.1
    done
    return 1
}
# A tick-0 sno 23 hours ahead in t0 (one timeline: taken), and m_src, a
# materialized view of snos cast from text (a table with no kid column,
# which the adoption does not lock), empty when the first pass reads it.
need "alice stores a tick-0 sno 23 hours ahead, an empty materialized view of snos, and a gate" \
    kpsql $AD_PORT -d mv -U alice -c "CREATE TABLE t0 (s sno)" \
        -c "INSERT INTO t0 VALUES (sno_new_with_time(now() + interval '23 hours'))" \
        -c "CREATE TABLE srctext (v text)" -c "CREATE MATERIALIZED VIEW m_src AS SELECT v::sno AS s FROM srctext" \
        -c "CREATE UNIQUE INDEX ON m_src (s)" -c "CREATE MATERIALIZED VIEW zz_gate AS SELECT NULL::sno AS s" || exit 1
session_open writer mv alice
session_open gate mv alice
session_open adopter mv postgres go-on
# The adoption waits for alice's write on t0 in its lock loop (after its
# check for ACCESS EXCLUSIVE locks); meanwhile she begins a REFRESH of
# zz_gate, which the first pass reads after m_src, and holds it.
need "alice writes to t0" session_run writer "BEGIN; LOCK t0 IN ROW EXCLUSIVE MODE;"
session_send adopter "SELECT * FROM kid_adopt_database();"
need "the adoption waits for t0" lock_waited mv "relation = 't0'::regclass AND mode = 'ShareLock'"
need "alice refreshes zz_gate in an open transaction" session_run gate "BEGIN; REFRESH MATERIALIZED VIEW zz_gate;"
need "alice commits the write" session_run writer "COMMIT;"
need "the adoption waits in its first pass for zz_gate, m_src read" lock_waited mv "relation = 'zz_gate'::regclass"
need "alice refreshes m_src CONCURRENTLY with a tick-1 sno 23 hours ahead" \
    kpsql $AD_PORT -d mv -U alice -c "INSERT INTO srctext SELECT sno_from_bytea(set_bit(sno_to_bytea(s), 32, 1))::text FROM t0" \
        -c "REFRESH MATERIALIZED VIEW CONCURRENTLY m_src"
need "alice ends the REFRESH of zz_gate" session_run gate "COMMIT;"
need "the adoption ends" session_run adopter "SELECT 'adoption ended';"
session_close writer; session_close gate; session_close adopter
out=$(cat "$KID_TMP/adopter.out")
expect_eq "a sno ahead on the other timeline, refreshed into a materialized view between the passes: both columns named and the adoption stops (55000)" \
    "$(grep -c -e '^WARNING:  public\.m_src\.s holds sno ids ahead of this server.s clock, with both sno timelines ahead once every place was read, the newest at .*$' \
        -e '^WARNING:  public\.t0\.s holds sno ids ahead of this server.s clock, with both sno timelines ahead once every place was read, the newest at .*$' \
        -e '^ERROR:  cannot adopt database "mv": 2 columns hold ids too far ahead of this server.s clock$' <<<"$out")" 3
expect_eq "... nothing recorded" "$(kpsql $AD_PORT -d mv -c "SELECT count(*) FROM kid_database_origin WHERE how = 'adopted'")" 0
expect_eq "... nothing raised: sno_new() in another database makes an id on tick 0" "$(next_sno 5s)" 0
out=$(kpsql $AD_PORT -d mv -c "SELECT count(*) FROM kid_adopt_database(dry_run => true)" 2>&1)
expect_eq "... and run again (a dry run), the adoption names both columns before it reads them for their ids" \
    "$(grep -c -e '^WARNING:  public\.\(m_src\|t0\)\.s holds 1 sno id ahead of this server.s clock, with both sno timelines ahead, the newest at ' <<<"$out")" 2

# 10. Two adoptions at once: db_b's, held in its second pass (the floors
# read) by a REFRESH of a materialized view with a tid column (read in the
# second pass only), and db_a's.
need "alice stores a tick-0 sno 23 hours ahead in db_a" \
    kpsql $AD_PORT -d db_a -U alice -c "CREATE TABLE t0 (s sno)" -c "INSERT INTO t0 VALUES (sno_new_with_time(now() + interval '23 hours'))" || exit 1
need "alice stores a tick-1 sno 23 hours ahead in db_b, and a gate" \
    kpsql $AD_PORT -d db_b -U alice -c "CREATE TABLE t1 (s sno)" \
        -c "INSERT INTO t1 SELECT sno_from_bytea(set_bit(sno_to_bytea(sno_new_with_time(now() + interval '23 hours')), 32, 1))" \
        -c "CREATE MATERIALIZED VIEW zz_tidgate AS SELECT NULL::atproto_tid AS k" || exit 1
session_open writer db_b alice
session_open gate db_b alice
session_open adopter db_b postgres go-on
need "alice writes to t1" session_run writer "BEGIN; LOCK t1 IN ROW EXCLUSIVE MODE;"
session_send adopter "SELECT line, coalesce(floor_after > now() + interval '22 hours', false) FROM kid_adopt_database() WHERE line LIKE 'sno tick _';"
need "db_b's adoption waits for t1" lock_waited db_b "relation = 't1'::regclass AND mode = 'ShareLock'"
need "alice refreshes zz_tidgate in an open transaction" session_run gate "BEGIN; REFRESH MATERIALIZED VIEW zz_tidgate;"
need "alice commits the write" session_run writer "COMMIT;"
need "db_b's adoption waits in its second pass for zz_tidgate, the floors read" lock_waited db_b "relation = 'zz_tidgate'::regclass"
without_sessions kpsql $AD_PORT -d db_a -v VERBOSITY=verbose -c "SELECT line, floor_after > now() + interval '22 hours' FROM kid_adopt_database() WHERE line LIKE 'sno tick _'" \
    >"$KID_TMP/adopt-a.out" 2>&1 &
adopt_pid=$!
# adoption_waited PID: a lock of the whole server (an advisory lock of no
# database) is waited for, while the adoption PID runs (60 s at most).
adoption_waited() {
    local i
    for i in $(seq 600); do
        [ "$(kpsql $AD_PORT -d db_a -c "SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = 'advisory' AND database = 0")" = 1 ] && return 0
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
check "db_a's adoption waits for db_b's to end" adoption_waited $adopt_pid
need "alice ends the REFRESH of zz_tidgate" session_run gate "COMMIT;"
need "db_b's adoption ends" session_run adopter "SELECT 'adoption ended';"
session_close writer; session_close gate; session_close adopter
wait $adopt_pid
expect_eq "db_b's adoption takes its tick-1 sno (one timeline ahead)" \
    "$(grep -c -e '^sno tick 0|f$' -e '^sno tick 1|t$' "$KID_TMP/adopter.out")" 2
expect_eq "db_a's, after it, finds the tick-1 floor ahead: it names its tick-0 sno and stops (55000)" \
    "$(grep -c -e '^WARNING:  01000: public\.t0\.s holds 1 sno id ahead of this server.s clock, with both sno timelines ahead, the newest at ' \
        -e '^ERROR:  55000: cannot adopt database "db_a": 1 column holds ids too far ahead of this server.s clock$' "$KID_TMP/adopt-a.out")" 2
expect_eq "... and sno_new() in another database makes an id on tick 0" "$(next_sno 5s)" 0

cluster_stop race
kid_finish
