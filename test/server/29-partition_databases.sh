#!/usr/bin/env bash
# kid's partition worker beside the commands that need a database to
# themselves (issue 35; runs alone or from run-all.sh; its own cluster on
# port 54393).
#
# DROP DATABASE, ALTER DATABASE ... RENAME and SET TABLESPACE, CREATE
# DATABASE ... TEMPLATE wait at most 5 s for the other sessions of the
# database to leave, then fail ("database is being accessed by other
# users").  kid's worker is connected to a database while it maintains its
# tables, up to kid.partition_maintenance_timeout (300 s) per table.  Here
# it is held in the middle of a table's maintenance, in a trigger of the
# owner's that sleeps until told to stop (and catches query_canceled: a
# cancel does not free the database), after it made a partition for a row
# of the default partition and before the row moved.  kid's launcher
# watches a running worker's database and stops the worker once such a
# command has held the database 300 ms (src/pg/partition_worker.cpp).
# Asserts, on every major:
# 1. each command the server refuses at once (a role that does not own
#    the database or may not create databases or use the tablespace, a
#    transaction block, a pipeline, a function, a read-only transaction, a
#    template, a name taken, pg_global, other options, a subscription in
#    the database) fails as it does without kid, and the worker goes on;
#    one that gets past its checks and waits for a prepared transaction
#    stops the worker (as it stops autovacuum), then fails;
# 2. the owner's ALTER DATABASE ... RENAME, then CREATE DATABASE ...
#    TEMPLATE of the renamed database, ALTER DATABASE ... SET TABLESPACE
#    and DROP DATABASE of it succeed, each while a worker is held in it:
#    the worker is terminated (core's "terminating background worker"
#    line) and is gone, and what its transaction had begun is rolled back
#    (no partition made, the row still in the default partition, in the
#    database and in its copy); the copy's worker, once its trigger lets
#    go, moves the row into the partition of its day: no row was lost;
# 3. while a session holds a database for such a command (a RENAME in an
#    open transaction), the launcher skips that database (and says so)
#    rather than start a worker that would wait for it, and maintains the
#    other databases;
# 4. the owner's DROP DATABASE ... WITH (FORCE) is refused while the
#    worker is there (FORCE checks that the role may end every session of
#    the database, and the worker's is the bootstrap superuser's), and the
#    worker goes on; a superuser's succeeds; the server was never
#    restarted.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

PD_PORT=54393
LOG=$KID_TMP/pd/server.log
cluster_init pd $PD_PORT "max_prepared_transactions = 2" || exit 1
cluster_start pd || exit 1
q() { kpsql $PD_PORT "$@"; }
start_time=$(q -d postgres -c "SELECT pg_postmaster_start_time()")

# victim is dbowner's (not a superuser): the commands are the owner's.
# intruder may create databases, but owns none of these.
q -d postgres >/dev/null <<'SQL' || exit 1
CREATE ROLE dbowner LOGIN CREATEDB;
CREATE ROLE intruder LOGIN CREATEDB;
CREATE DATABASE victim OWNER dbowner;
CREATE DATABASE bystander;
SQL
# held: a daily table whose default partition holds a row of 3 days ago;
# moving it out fires stall(), which sleeps while hold.sleeping, counting
# its naps in the sequence ticks (which no rollback takes back).
q -d victim >/dev/null <<'SQL' || exit 1
CREATE EXTENSION kid;
CREATE TABLE held (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('held', '1 day', premake => 1);
CREATE TABLE hold (sleeping boolean NOT NULL);
INSERT INTO hold VALUES (true);
CREATE SEQUENCE ticks;
CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WHILE (SELECT h.sleeping FROM public.hold h) LOOP
        PERFORM pg_catalog.nextval('public.ticks');
        BEGIN
            PERFORM pg_catalog.pg_sleep(0.1);
        EXCEPTION WHEN query_canceled THEN
            NULL;  -- a cancel does not end the wait
        END;
    END LOOP;
    RETURN OLD;
END $$;
CREATE TRIGGER stall BEFORE DELETE ON held_default FOR EACH ROW EXECUTE FUNCTION stall();
INSERT INTO held VALUES (sno_new_with_time(now() - interval '3 days'));
SQL
q -d bystander >/dev/null <<'SQL' || exit 1
CREATE EXTENSION kid;
CREATE TABLE events (id sno PRIMARY KEY) PARTITION BY RANGE (id);
SELECT count(*) FROM kid_partition_by_time('events', '1 day', premake => 1);
SQL

# parts DB: held's tables (partitions, attached or not), as committed.
parts() { q -d "$1" -c "SELECT string_agg(relname, ' ' ORDER BY relname) FROM pg_class WHERE relname LIKE 'held\_%' AND relkind IN ('r', 'p')"; }
# rows DB: held's rows, and those of them in the default partition.
rows() { q -d "$1" -c "SELECT count(*) || ' rows, ' || count(*) FILTER (WHERE tableoid = 'held_default'::regclass) || ' in the default partition' FROM held"; }
PARTS_BEFORE=$(parts victim)
need "held has its partitions of today and tomorrow and a default one ($PARTS_BEFORE), and a row in the default one" \
    test "$(wc -w <<<"$PARTS_BEFORE") $(rows victim)" = "3 1 rows, 1 in the default partition"
# ticks DB: the naps stall() took in DB so far.
ticks() { q -d "$1" -c "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ticks"; }
# worker_in DB: the pid of kid's worker connected to DB, if any.
worker_in() { q -d postgres -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'kid partition maintenance' AND datname = '$1'"; }
# wait_held DB: returns once kid's worker of DB is in stall() (two naps
# more than at the call), its pid in HELD_PID.  Bounded: 60 s, then 1.
wait_held() {
    local from now
    from=$(ticks "$1") || return 1
    for _ in $(seq 600); do
        now=$(ticks "$1")
        HELD_PID=$(worker_in "$1")
        [ -n "$HELD_PID" ] && [ "$now" -ge $((from + 2)) ] && return 0
        sleep 0.1
    done
    echo "  no worker of kid's napped twice in stall() of $1 in 60 s"
    return 1
}
# as ROLE SQL: SQL run by ROLE from the database postgres; its output and
# errors in OUT, psql's exit status its own.
as() {
    OUT=$(kpsql $PD_PORT -U "$1" -d postgres -c "$2" 2>&1)
}
gone() { test "$(q -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE pid = $1")" = 0; }
# terminated PID: whether the log says, after $offset, that the worker PID
# was terminated (core's message, for pg_terminate_backend() too).
terminated() {
    tail -c +$((offset + 1)) "$LOG" |
        grep -qF "[$1] FATAL:  terminating background worker \"kid partition maintenance\" due to administrator command"
}

offset=$(log_size "$LOG")
q -d postgres -c "ALTER SYSTEM SET kid.partition_maintenance_interval = 1" >/dev/null
need "kid.partition_maintenance_interval set to 1 s by a reload" reload_conf $PD_PORT || { kid_finish; exit 1; }
need "kid's worker is held in the maintenance of victim's table held" wait_held victim || { kid_finish; exit 1; }

# ---------------------------------------------------------------- 1. refused commands
# refused LABEL ROLE SQL ERROR: SQL of ROLE's, while kid's worker is held in
# victim, fails with ERROR (an extended regular expression: the start of
# the message, which may differ between majors) as it does without kid,
# and the worker goes on:
# it naps twice more, the same process (a signal sent for the command would
# have ended it at its first nap).  kid stops the workers only for a
# command core then runs.
# A last argument "waits" says that the command gets past its checks and
# waits for the database's sessions to leave (5 s) before it fails: then,
# as the server ends autovacuum there, the worker is ended (by kid's
# launcher, which sees the command hold the database; on 19 by the server,
# BGWORKER_INTERRUPTIBLE), and the second check is that it was.
MAJOR=$("$PG_CONFIG" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
refused() {
    local label=$1 role=$2 sql=$3 error=$4 waits=${5:-} pid
    need "kid's worker is held in the maintenance of victim's table held" wait_held victim || return 1
    pid=$HELD_PID
    as "$role" "$sql"
    local status=$? first
    # The first line, ERROR when it begins with ERROR (19 says "from a
    # function or procedure").
    first=$(head -n 1 <<<"$OUT")
    [[ $first =~ ^ERROR:\ \ ($error) ]] && first="ERROR:  $error"
    expect_eq "$label: refused, as without kid" "$status: $first" "1: ERROR:  $error"
    if [ "$waits" = waits ]; then
        check "... and, as the command waited for the database's sessions, the worker was ended (as autovacuum is)" gone "$pid"
    else
        check "... and the worker goes on in its maintenance (the same process naps on)" \
            eval 'wait_held victim && test "$HELD_PID" = "$pid"'
    fi
}
q -d postgres >/dev/null <<'SQL' || exit 1
CREATE ROLE nocreatedb LOGIN;
SQL
# elsewhere: dbowner may create in it; forbidden: no one but superusers.
as_postgres mkdir "$KID_TMP/elsewhere" "$KID_TMP/forbidden"
q -d postgres -c "CREATE TABLESPACE elsewhere LOCATION '$KID_TMP/elsewhere'" \
    -c "GRANT CREATE ON TABLESPACE elsewhere TO dbowner" \
    -c "CREATE TABLESPACE forbidden LOCATION '$KID_TMP/forbidden'" >/dev/null
refused "DROP DATABASE by a role that does not own the database" intruder \
    "DROP DATABASE victim" "must be owner of database victim"
refused "the owner's DROP DATABASE in a transaction block" dbowner \
    "BEGIN; DROP DATABASE victim" "DROP DATABASE cannot run inside a transaction block"
# A role with no right on victim queues a DROP DATABASE of it behind a
# lock it holds itself (ALTER ROLE ... IN DATABASE ... SET holds ACCESS
# SHARE on the database until its transaction ends): the DROP waits for
# the lock, holding nothing, and the worker goes on.
need "kid's worker is held in the maintenance of victim's table held" wait_held victim
pid=$HELD_PID
kpsql $PD_PORT -U intruder -d postgres -c "BEGIN" -c "ALTER ROLE CURRENT_USER IN DATABASE victim SET work_mem = '4MB'" -c "SELECT pg_sleep(4)" >/dev/null 2>&1 &
sleeper=$!
need "... its transaction holds ACCESS SHARE on victim" eval 'for _ in $(seq 600); do
    [ "$(q -d postgres -c "SELECT count(*) FROM pg_locks WHERE locktype = '"'object'"' AND classid = '"'pg_database'"'::regclass
                           AND objid = (SELECT oid FROM pg_database WHERE datname = '"'victim'"') AND mode = '"'AccessShareLock'"' AND granted")" = 1 ] && break
    sleep 0.1; done; true'
PGOPTIONS="-c lock_timeout=2s" as intruder "DROP DATABASE victim"
expect_eq "a role without rights on victim queues DROP DATABASE behind its own lock: it waits, then times out" \
    "$?: $(head -n 1 <<<"$OUT")" "1: ERROR:  canceling statement due to lock timeout"
wait $sleeper
check "... and the worker goes on in its maintenance (the same process naps on)" \
    eval 'wait_held victim && test "$HELD_PID" = "$pid"'
# Refused DROP DATABASEs, one after another from two sessions, for 3 s:
# each holds the lock for an instant.
for _ in 1 2; do
    (end=$((SECONDS + 3)); while [ $SECONDS -lt $end ]; do kpsql $PD_PORT -U intruder -d postgres -c "DROP DATABASE victim" >/dev/null 2>&1; done) &
done
wait
check "a role without rights on victim runs refused DROP DATABASEs back to back for 3 s: the worker goes on" \
    eval 'wait_held victim && test "$HELD_PID" = "$pid"'
# One transaction that takes the lock over and over: refused RENAMEs in a
# loop of subtransactions that catch the error, each with a long
# statement for its error context, for 3 s.
as intruder "DO \$\$ DECLARE t timestamptz := clock_timestamp(); BEGIN
    WHILE clock_timestamp() < t + interval '3 s' LOOP
        BEGIN EXECUTE 'ALTER DATABASE victim RENAME TO other /* ' || repeat('x', 100000) || ' */';
        EXCEPTION WHEN insufficient_privilege THEN NULL; END;
    END LOOP; END \$\$"
check "a role without rights on victim runs refused RENAMEs in one transaction for 3 s: the worker goes on" \
    eval 'wait_held victim && test "$HELD_PID" = "$pid"'
refused "DROP DATABASE ... WITH (FORCE) by a role that does not own the database" intruder \
    "DROP DATABASE victim WITH (FORCE)" "must be owner of database victim"
refused "the owner's DROP DATABASE ... WITH (FORCE) in a transaction block" dbowner \
    "BEGIN; DROP DATABASE victim WITH (FORCE)" "DROP DATABASE cannot run inside a transaction block"
refused "the owner's DROP DATABASE in a multi-statement query (an implicit transaction block)" dbowner \
    "DROP DATABASE victim; SELECT 1" "DROP DATABASE cannot run inside a transaction block"
refused "the owner's DROP DATABASE from a function" dbowner \
    "DO \$\$ BEGIN EXECUTE 'DROP DATABASE victim'; END \$\$" "DROP DATABASE cannot be executed from a function"
PGOPTIONS="-c default_transaction_read_only=on" \
    refused "the owner's DROP DATABASE in a read-only transaction (as on a standby)" dbowner \
    "DROP DATABASE victim" "cannot execute DROP DATABASE in a read-only transaction"
q -d postgres -c "ALTER DATABASE victim IS_TEMPLATE true" >/dev/null
refused "the owner's DROP DATABASE of a template" dbowner \
    "DROP DATABASE victim" "cannot drop a template database"
q -d postgres -c "ALTER DATABASE victim IS_TEMPLATE false" >/dev/null
refused "ALTER DATABASE ... RENAME by a role that does not own it" intruder \
    "ALTER DATABASE victim RENAME TO other" "must be owner of database victim"
refused "the owner's ALTER DATABASE ... RENAME to a name taken" dbowner \
    "ALTER DATABASE victim RENAME TO bystander" "database \"bystander\" already exists"
q -d postgres -c "ALTER DATABASE victim OWNER TO nocreatedb" >/dev/null
refused "ALTER DATABASE ... RENAME by its owner, who may not create databases" nocreatedb \
    "ALTER DATABASE victim RENAME TO other" "permission denied to rename database"
q -d postgres -c "ALTER DATABASE victim OWNER TO dbowner" >/dev/null
refused "the owner's ALTER DATABASE ... SET TABLESPACE into a tablespace not granted" dbowner \
    "ALTER DATABASE victim SET TABLESPACE forbidden" "permission denied for tablespace forbidden"
refused "the owner's ALTER DATABASE ... WITH TABLESPACE and another option" dbowner \
    "ALTER DATABASE victim WITH TABLESPACE elsewhere CONNECTION LIMIT 5" "option \"tablespace\" cannot be specified with other options"
refused "a superuser's ALTER DATABASE ... SET TABLESPACE pg_global" postgres \
    "ALTER DATABASE victim SET TABLESPACE pg_global" "pg_global cannot be used as default tablespace"
refused "CREATE DATABASE ... TEMPLATE, by a role that may create databases but does not own the template" intruder \
    "CREATE DATABASE other TEMPLATE victim" "permission denied to copy database \"victim\""
refused "the owner's CREATE DATABASE ... TEMPLATE under a name taken" dbowner \
    "CREATE DATABASE bystander TEMPLATE victim" "database \"bystander\" already exists"
refused "the owner's CREATE DATABASE ... TEMPLATE with an option core refuses" dbowner \
    "CREATE DATABASE other TEMPLATE victim STRATEGY bogus" "invalid create database strategy \"bogus\""
# States of the database that make core refuse the command.
q -d victim -c "BEGIN" -c "SELECT pg_current_xact_id()" -c "PREPARE TRANSACTION 'waiting'" >/dev/null
refused "the owner's DROP DATABASE while a prepared transaction of the database waits" dbowner \
    "DROP DATABASE victim" "database \"victim\" is being accessed by other users" waits
refused "the owner's ALTER DATABASE ... RENAME meanwhile" dbowner \
    "ALTER DATABASE victim RENAME TO other" "database \"victim\" is being accessed by other users" waits
q -d victim -c "ROLLBACK PREPARED 'waiting'" >/dev/null
q -d victim -c "CREATE SUBSCRIPTION sub CONNECTION 'dbname=nowhere' PUBLICATION pub WITH (connect = false)" >/dev/null 2>&1
refused "the owner's DROP DATABASE of a database with a subscription" dbowner \
    "DROP DATABASE victim" "database \"victim\" is being used by logical replication subscription"
q -d victim -c "ALTER SUBSCRIPTION sub SET (slot_name = NONE)" -c "DROP SUBSCRIPTION sub" >/dev/null
# A superuser's session in victim: FORCE may not end it for dbowner.
kpsql $PD_PORT -d victim -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
sleeper=$!
need "a superuser's session sleeps in victim" \
    eval 'for _ in $(seq 600); do [ "$(q -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE datname = '"'victim'"' AND query LIKE '"'%pg_sleep(600)%'"' AND pid <> pg_backend_pid()")" = 1 ] && break; sleep 0.1; done; true'
refused "the owner's DROP DATABASE ... WITH (FORCE) while a superuser's session is in the database" dbowner \
    "DROP DATABASE victim WITH (FORCE)" "must be a superuser to terminate superuser process|permission denied to terminate process"
q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'victim' AND query LIKE '%pg_sleep(600)%' AND pid <> pg_backend_pid()" >/dev/null
wait $sleeper 2>/dev/null
# A pipeline (the extended protocol, through pgbench): a statement, then DROP DATABASE.
printf '%s\n' '\startpipeline' 'SELECT 1;' 'DROP DATABASE victim;' '\endpipeline' > "$KID_TMP/pipeline.sql"
chmod a+r "$KID_TMP/pipeline.sql"
need "kid's worker is held in the maintenance of victim's table held" wait_held victim
pid=$HELD_PID
"$PG_BIN/pgbench" -h "$KID_TMP" -p $PD_PORT -U dbowner -n -t 1 -M extended -f "$KID_TMP/pipeline.sql" postgres >"$KID_TMP/pipeline.out" 2>&1
# (17 and later run a pipeline's statements in an implicit transaction block.)
check "the owner's DROP DATABASE in a pipeline: refused, as without kid" \
    grep -q -E "DROP DATABASE cannot (be executed within a pipeline|run inside a transaction block)" "$KID_TMP/pipeline.out"
grep -q -E "DROP DATABASE cannot" "$KID_TMP/pipeline.out" || note "$(cat "$KID_TMP/pipeline.out")"
check "... and the worker goes on in its maintenance (the same process naps on)" \
    eval 'wait_held victim && test "$HELD_PID" = "$pid"'

# ---------------------------------------------------------------- 2. the owner's commands
# run_command LABEL DB SQL: SQL of dbowner's while kid's worker is held in DB.
run_command() {
    local label=$1 db=$2 sql=$3 role=${4:-dbowner} pid
    need "kid's worker is held in the maintenance of $db's table held" wait_held "$db" || return 1
    pid=$HELD_PID
    offset=$(log_size "$LOG")
    as "$role" "$sql"
    expect_eq "$label while kid's worker is in the middle of a table's maintenance in the database: succeeds" "$?: $OUT" "0: "
    check "... the worker was terminated" terminated "$pid"
    check "... and is gone" gone "$pid"
}
run_command "ALTER DATABASE victim RENAME TO renamed" victim "ALTER DATABASE victim RENAME TO renamed"
expect_eq "... what its maintenance had begun was rolled back: no partition made, the row still in the default partition" \
    "$(parts renamed); $(rows renamed)" "$PARTS_BEFORE; 1 rows, 1 in the default partition"

run_command "CREATE DATABASE copy TEMPLATE renamed" renamed "CREATE DATABASE copy TEMPLATE renamed"
expect_eq "... the copy has no partition that maintenance made, and the row in the default partition" \
    "$(parts copy); $(rows copy)" "$PARTS_BEFORE; 1 rows, 1 in the default partition"
expect_eq "... and so has the template" \
    "$(parts renamed); $(rows renamed)" "$PARTS_BEFORE; 1 rows, 1 in the default partition"
# Both the copy and its template hold a worker now (the launcher waits for
# the one it visited first): both triggers let go.
offset=$(log_size "$LOG")
q -d copy -c "UPDATE hold SET sleeping = false" >/dev/null
q -d renamed -c "UPDATE hold SET sleeping = false" >/dev/null
check "the copy's trigger letting go, its worker moves held's row (1 create)" \
    wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public\.held in database "copy": 1 create'
expect_eq "... into a partition of its day: no row was lost" \
    "$(rows copy); $(wc -w <<<"$(parts copy)") tables" "1 rows, 0 in the default partition; 4 tables"
need "... and so does the template's" \
    wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public\.held in database "renamed": 1 create'
# arm DB DAYS: a row of DAYS days ago in DB's default partition, and its
# trigger sleeps again (one transaction: no round between them).
arm() {
    q -d "$1" -c "UPDATE hold SET sleeping = true; INSERT INTO held VALUES (sno_new_with_time(now() - interval '$2 days'))" >/dev/null
}

parts_renamed=$(parts renamed)
arm renamed 5
run_command "ALTER DATABASE renamed SET TABLESPACE elsewhere" renamed "ALTER DATABASE renamed SET TABLESPACE elsewhere"
expect_eq "... there, and its maintenance rolled back (the new row still in the default partition)" \
    "$(q -d postgres -c "SELECT t.spcname FROM pg_database d JOIN pg_tablespace t ON t.oid = d.dattablespace WHERE d.datname = 'renamed'"); $(parts renamed); $(rows renamed)" \
    "elsewhere; $parts_renamed; 2 rows, 1 in the default partition"

run_command "DROP DATABASE renamed" renamed "DROP DATABASE renamed"
expect_eq "... the database is gone" "$(q -d postgres -c "SELECT count(*) FROM pg_database WHERE datname = 'renamed'")" 0

# ---------------------------------------------------------------- 3. a database held by a session
arm copy 4
# A RENAME in a transaction that stays open holds copy (its lock on the
# database, which new sessions of copy wait for) until it ends.  Once copy's
# worker is held, so that the launcher is waiting for it, not about to
# start one.
need "kid's worker is held in the maintenance of copy's table held" wait_held copy
kpsql $PD_PORT -U dbowner -d postgres -c "BEGIN" -c "ALTER DATABASE copy RENAME TO copy_renamed" -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
holder=$!
locked() {
    for _ in $(seq 600); do
        [ "$(q -d postgres -c "SELECT count(*) FROM pg_locks WHERE locktype = 'object' AND classid = 'pg_database'::regclass
                               AND objid = (SELECT oid FROM pg_database WHERE datname = 'copy') AND mode = 'AccessExclusiveLock' AND granted")" = 1 ] && return 0
        sleep 0.1
    done
    echo "  the RENAME did not hold copy in 60 s"
    return 1
}
offset=$(log_size "$LOG")
need "a session holds copy for its RENAME, in an open transaction" locked
# more_premake: events needs one partition more; returns once the worker
# made it.
more_premake() {
    local offset
    offset=$(log_size "$LOG")
    q -d bystander -c "UPDATE kid_partition_config SET premake = premake + 1 WHERE parent = 'events'::regclass" >/dev/null &&
        wait_for_log "$LOG" "$offset" 'kid maintained the partitions of public\.events in database "bystander": 1 create'
}
# Twice: whatever the order of the databases, one of the rounds that made
# them went past copy.
check "meanwhile the other databases are maintained (1)" more_premake
check "... (2)" more_premake
# skipped DB: returns once the launcher said, after $offset, that it skips
# DB for a session that holds it.  Bounded: 60 s, then 1.
skipped() {
    for _ in $(seq 600); do
        tail -c +$((offset + 1)) "$LOG" | grep -A1 -F "LOG:  kid skips the partition maintenance of database \"$1\" this round" |
            grep -qF 'DETAIL:  A session holds the database for DROP DATABASE, ALTER DATABASE or CREATE DATABASE with it as template.' &&
            return 0
        sleep 0.1
    done
    echo "  the launcher did not say in 60 s that it skips $1 for a session that holds it"
    return 1
}
check "... and the launcher skips copy, and says why" skipped copy
# kid_waiters: the processes of kid's that wait for the lock on copy.  A
# process that waits to connect is not in pg_stat_activity yet: its title
# (/proc/PID/cmdline) names it, "kid partition maintenance of copy"; an
# autovacuum worker may wait there too, and is not kid's.
kid_waiters() {
    local pid n=0
    for pid in $(q -d postgres -c "SELECT pid FROM pg_locks WHERE locktype = 'object' AND classid = 'pg_database'::regclass
                                   AND objid = (SELECT oid FROM pg_database WHERE datname = 'copy') AND NOT granted"); do
        tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kid partition' && n=$((n + 1))
    done
    echo $n
}
check "... (no worker of kid's waits for the lock on copy)" test "$(kid_waiters)" = 0
q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'dbowner' AND query LIKE '%pg_sleep(600)%'" >/dev/null
wait $holder 2>/dev/null

# ---------------------------------------------------------------- 4. FORCE
# FORCE first checks that the role may end every other session of the
# database, and the worker's is the bootstrap superuser's: the owner's
# FORCE is refused at once, as for any superuser's session there, and the
# worker goes on (a plain DROP DATABASE is the owner's way, section 2).
need "kid's worker is held in the maintenance of copy's table held" wait_held copy
pid=$HELD_PID
as dbowner "DROP DATABASE copy WITH (FORCE)"
status=$?
first=$(head -n 1 <<<"$OUT")
expect_eq "the owner's DROP DATABASE ... WITH (FORCE): refused, as for any superuser's session in the database" \
    "$status: $(grep -c -E '^ERROR:  (must be a member of the role whose process is being terminated|must be a superuser to terminate superuser process|permission denied to terminate process)' <<<"$first")" "1: 1"
check "... and the worker goes on in its maintenance (the same process naps on)" \
    eval 'wait_held copy && test "$HELD_PID" = "$pid"'
run_command "A superuser's DROP DATABASE copy WITH (FORCE)" copy "DROP DATABASE copy WITH (FORCE)" postgres
expect_eq "... the database is gone" "$(q -d postgres -c "SELECT count(*) FROM pg_database WHERE datname = 'copy'")" 0
expect_eq "the server was never restarted (postmaster start time)" "$(q -d postgres -c "SELECT pg_postmaster_start_time()")" "$start_time"
expect_eq "the launcher still runs" \
    "$(q -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'kid partition launcher'")" 1
cluster_stop pd

kid_finish
