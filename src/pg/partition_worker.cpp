/*
 * partition_worker.cpp - kid's background worker: it maintains the time
 * partitions of every database, with nothing to set up but
 * kid.partition_maintenance_interval (src/sql/partition.sql does the
 * maintenance; docs/partitioning.md says what it does and when).
 *
 * A backend is bound to one database for its life, and which databases
 * have configured tables can only be seen from inside each.  So there are
 * two kinds of process:
 *   - the launcher, a static background worker registered while kid is
 *     preloaded, connected to no database (it reads the shared catalog
 *     pg_database).  Every kid.partition_maintenance_interval seconds, on
 *     CLOCK_MONOTONIC (a step of the system clock neither hurries nor
 *     pauses it), it starts, for each database that accepts connections
 *     (templates excepted), one worker connected to it, and waits for it
 *     to end: one database at a time, so kid holds two worker slots
 *     (max_worker_processes).  It waits at most
 *     kid.partition_maintenance_timeout for a database: one whose worker
 *     runs longer is left to it (a slot more while it runs, and skipped by
 *     the next rounds until it ends), and the others go on.  With the
 *     interval at 0 it only waits for a reload.
 *   - a worker (a dynamic background worker, never restarted) finds kid's
 *     schema and the tables of kid_partition_config, and calls
 *     kid_partition_maintain() for each in a transaction of its own, which
 *     runs the table's maintenance as its owner (security-restricted, with
 *     search_path pinned: partition_maintenance.cpp), within
 *     kid.partition_maintenance_timeout.  A table that fails or runs out of
 *     time is logged (WARNING), recorded by kid_partition_failed() in a new
 *     transaction, and left for the next round; the other tables go on.  A
 *     configured table that is gone is forgotten.  The worker's own
 *     queries run as the bootstrap superuser, with search_path pinned to
 *     pg_catalog, pg_temp (no ALTER DATABASE ... SET search_path reaches
 *     it) and every function and operator they name schema-qualified.
 *
 * A worker must not hold up the commands that need its database to
 * themselves: DROP DATABASE, ALTER DATABASE ... RENAME or SET TABLESPACE,
 * CREATE DATABASE ... TEMPLATE.  Each takes a lock on the database (which
 * new sessions wait for), makes its checks, then waits at most 5 s for the
 * other sessions to leave and fails (CountOtherDBBackends), while a worker
 * may be in one table's maintenance for kid.partition_maintenance_timeout,
 * running the owner's code, where it cannot look for such a command.  So
 * the launcher, while a worker of its runs, looks at the worker's database
 * every WATCH_MS: one transaction of the database's owner or a superuser
 * holding such a command's lock for WATCH_HELD_MS is a command past its
 * checks and waiting for the database's sessions (no other command takes
 * those locks, and one still waiting in the lock queue holds nothing;
 * held_by() says why other roles are not counted), and the launcher stops
 * the worker, as
 * CountOtherDBBackends stops autovacuum (PostgreSQL 19 stops a worker
 * started with BGWORKER_INTERRUPTIBLE itself).  Its table's maintenance,
 * one transaction, is rolled back whole.  The launcher skips a database
 * such a command holds rather than start a worker that would wait for it,
 * and a worker waits at most WORKER_LOCK_TIMEOUT to connect.  No role's
 * command signals anything: only the launcher stops its own worker.
 *
 * Nothing here takes the server down: an ERROR in a table's maintenance is
 * caught and its transaction aborted; an ERROR elsewhere ends the worker
 * (the next round starts another) or the launcher (the postmaster starts it
 * again after LAUNCHER_RESTART_S).  It waits at most WORKER_LOCK_TIMEOUT for
 * a lock (lock_timeout), so that a table busy with a long query costs its
 * writers at most that much before the worker gives it up until the next
 * round.
 *
 * The entry points are found by name (bgw_function_name), hence extern "C";
 * like every function here they hold only trivially destructible locals
 * (ereport and PG_TRY longjmp through them).
 */
#include "pg/lease.h"
#include "pg/partition_worker.h"
#include "pg/settings.h"

#include <ctime>

extern "C" {
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "commands/dbcommands.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#if PG_VERSION_NUM < 170000
#include "storage/sinvaladt.h"
#endif
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
/* get_database_name: in commands/dbcommands.h before 19. */
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timeout.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

PGDLLEXPORT void kid_partition_launcher_main(Datum);
PGDLLEXPORT void kid_partition_worker_main(Datum);
}

namespace kid::pg {

bool partition_worker_running = false;
Oid partition_worker_table = InvalidOid;

constexpr int LAUNCHER_RESTART_S = 10;
constexpr const char *WORKER_LOCK_TIMEOUT = "5s";
/* How often the launcher looks at a running worker's database, and for how long a command must hold it. */
constexpr long WATCH_MS = 100;
constexpr int64 WATCH_HELD_MS = 300;
/* The search_path of a worker's own queries (and of what they call). */
constexpr const char *WORKER_SEARCH_PATH = "pg_catalog, pg_temp";

/* CLOCK_MONOTONIC in milliseconds: the launcher's schedule and waits. */
static int64 monotonic_ms() noexcept
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

/* What the processes wait on, as pg_stat_activity shows it. */
static uint32 launcher_wait_event() noexcept
{
#if PG_VERSION_NUM >= 170000
    static uint32 event = 0;
    if (event == 0)
        event = WaitEventExtensionNew("KidPartitionLauncher");
    return event;
#else
    return PG_WAIT_EXTENSION;
#endif
}

/* A background worker of kid's, running function `main` of kid.so. */
static void worker_spec(BackgroundWorker *w, const char *main, const char *name) noexcept
{
    memset(w, 0, sizeof(*w));
    w->bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    w->bgw_start_time = BgWorkerStart_RecoveryFinished;
    strlcpy(w->bgw_library_name, "kid", sizeof(w->bgw_library_name));
    strlcpy(w->bgw_function_name, main, sizeof(w->bgw_function_name));
    strlcpy(w->bgw_name, name, sizeof(w->bgw_name));
    strlcpy(w->bgw_type, "kid partition maintenance", sizeof(w->bgw_type));
}

void partition_worker_register()
{
    /* pg_upgrade's servers: no owner's code in databases half restored. */
    if (IsBinaryUpgrade)
        return;
    BackgroundWorker w;
    worker_spec(&w, "kid_partition_launcher_main", "kid partition launcher");
    strlcpy(w.bgw_type, "kid partition launcher", sizeof(w.bgw_type));
    w.bgw_restart_time = LAUNCHER_RESTART_S;
    RegisterBackgroundWorker(&w);
}

/* ------------------------------------------------------------ the launcher */

struct Database {
    Oid oid;
    NameData name;
};

/*
 * A stop request ends the launcher, with exit status 1: the postmaster
 * starts it again LAUNCHER_RESTART_S later unless the server is stopping.
 */
static void launcher_check_for_stop() noexcept
{
    if (ShutdownRequestPending)
        proc_exit(1);
    CHECK_FOR_INTERRUPTS();
}

/* The databases to visit: those that accept connections, templates excepted. */
static List *databases_to_visit(MemoryContext cxt) noexcept
{
    List *result = NIL;
    SetCurrentStatementStartTimestamp();
    StartTransactionCommand();
    Relation rel = table_open(DatabaseRelationId, AccessShareLock);
    TableScanDesc scan = table_beginscan_catalog(rel, 0, nullptr);
    HeapTuple tuple;
    while ((tuple = heap_getnext(scan, ForwardScanDirection)) != nullptr) {
        Form_pg_database db = (Form_pg_database)GETSTRUCT(tuple);
        /* An interrupted DROP DATABASE leaves a database no one may connect to. */
        if (!db->datallowconn || db->datistemplate || db->datconnlimit == DATCONNLIMIT_INVALID_DB)
            continue;
        MemoryContext old = MemoryContextSwitchTo(cxt);
        Database *d = static_cast<Database *>(palloc(sizeof(Database)));
        d->oid = db->oid;
        d->name = db->datname;
        result = lappend(result, d);
        MemoryContextSwitchTo(old);
    }
    table_endscan(scan);
    table_close(rel, AccessShareLock);
    CommitTransactionCommand();
    return result;
}

/*
 * What the launcher saw of a running worker's database: the transaction
 * that held it at the first look of the current run of looks (invalid:
 * none), since when, and whether the worker was stopped already.
 */
struct Watch {
    VirtualTransactionId holder;
    int64 since;
    bool stopped;
};

static void watch_reset(Watch *w) noexcept
{
    SetInvalidVirtualTransactionId(w->holder);
    w->since = 0;
    w->stopped = false;
}

/*
 * The workers the launcher stopped waiting for (they ran longer than
 * kid.partition_maintenance_timeout), by database, in TopMemoryContext: a
 * database whose worker still runs is not visited again until it ends.
 */
struct Overrun {
    Oid database;
    NameData name;
    BackgroundWorkerHandle *handle;
    Watch watch;
};
static List *overruns = NIL;

/* Whether database d's worker of an earlier round still runs (forget_ended_overruns() ran). */
static bool still_running(const Database *d) noexcept
{
    ListCell *lc;
    foreach (lc, overruns) {
        if (static_cast<Overrun *>(lfirst(lc))->database == d->oid)
            return true;
    }
    return false;
}

/* The process transaction `vxid` runs in; nullptr for a prepared transaction. */
static PGPROC *process_of(VirtualTransactionId vxid) noexcept
{
#if PG_VERSION_NUM >= 170000
    return vxid.procNumber == INVALID_PROC_NUMBER ? nullptr : ProcNumberGetProc(vxid.procNumber);
#else
    return vxid.backendId == InvalidBackendId ? nullptr : BackendIdGetProc(vxid.backendId);
#endif
}

/*
 * Whether transaction `vxid` is a session of the database's owner (a
 * member of its role) or of a superuser: the only ones that can get past
 * the checks of those commands on a database that is not a template.  A
 * role that may not run them still holds the lock for a while: it takes it
 * before its owner check, and lets it go only when its error is reported
 * (a client that does not read holds it there) or, in a loop of
 * subtransactions that catch the error, over and over in one transaction.
 */
static bool owner_session(VirtualTransactionId vxid, Oid owner) noexcept
{
    PGPROC *proc = process_of(vxid);
    if (proc == nullptr)
        return false;
    Oid role = proc->roleId;
    /* Still that transaction (the slot may have been reused meanwhile). */
    VirtualTransactionId now;
    GET_VXID_FROM_PGPROC(now, *proc);
    if (!VirtualTransactionIdEquals(now, vxid) || !OidIsValid(role))
        return false;
    return superuser_arg(role) || has_privs_of_role(role, owner);
}

/*
 * Whether transaction `holder` holds a lock on database `database` that
 * conflicts with the RowExclusiveLock every new session takes on it
 * (InitPostgres): only DROP DATABASE, ALTER DATABASE ... RENAME and SET
 * TABLESPACE (ACCESS EXCLUSIVE) and CREATE DATABASE ... TEMPLATE (SHARE)
 * take such a lock; held, not waited for (GetLockConflicts() gives the
 * holders only: any role can queue a DROP DATABASE behind a lock it holds
 * itself), and in a session of the database's owner or a superuser
 * (owner_session()).  An invalid `holder` asks for any such holder, and is
 * set to the first.
 */
static bool held_by(Oid database, VirtualTransactionId *holder) noexcept
{
    LOCKTAG tag;
    SET_LOCKTAG_OBJECT(tag, InvalidOid, DatabaseRelationId, database, 0);
    StartTransactionCommand();
    bool held = false;
    HeapTuple tuple = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(database));
    if (HeapTupleIsValid(tuple)) {
        Oid owner = ((Form_pg_database)GETSTRUCT(tuple))->datdba;
        ReleaseSysCache(tuple);
        int count = 0;
        VirtualTransactionId *holders = GetLockConflicts(&tag, RowExclusiveLock, &count);
        for (int i = 0; i < count && !held; i++) {
            if (VirtualTransactionIdIsValid(*holder)
                    ? !VirtualTransactionIdEquals(holders[i], *holder)
                    : !owner_session(holders[i], owner))
                continue;
            *holder = holders[i];
            held = true;
        }
    }
    CommitTransactionCommand();
    return held;
}

/*
 * Whether one transaction has held database `database` (held_by()) for
 * WATCH_HELD_MS, as of this look: the state of the looks in `w`.
 */
static bool held_long(Oid database, Watch *w) noexcept
{
    int64 now = monotonic_ms();
    if (VirtualTransactionIdIsValid(w->holder) && held_by(database, &w->holder))
        return now - w->since >= WATCH_HELD_MS;
    SetInvalidVirtualTransactionId(w->holder);
    w->since = now;
    (void)held_by(database, &w->holder);
    return false;
}

static void watch_overruns() noexcept;

/*
 * Whether database `database` is free for a worker: no one transaction
 * holds it (held_by()) for WATCH_HELD_MS, looked at every WATCH_MS until
 * WATCH_HELD_MS after the first holder seen.  (A worker that starts the
 * instant before such a command takes the database waits at most
 * WORKER_LOCK_TIMEOUT to connect.)
 */
static bool database_free(Oid database) noexcept
{
    Watch w;
    watch_reset(&w);
    for (;;) {
        if (held_long(database, &w))
            return false;
        if (!VirtualTransactionIdIsValid(w.holder))
            return true;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, WATCH_MS,
                        launcher_wait_event());
        ResetLatch(MyLatch);
        launcher_check_for_stop();
        watch_overruns();
    }
}

/*
 * A running worker of database `database`, looked at (its state in `w`):
 * once one transaction has held the database WATCH_HELD_MS (a command past
 * its checks, waiting for the database's sessions), the worker is stopped
 * (SIGTERM, as pg_terminate_backend(): a FATAL at its next
 * CHECK_FOR_INTERRUPTS(), its transaction rolled back), once.
 */
static void watch_worker(BackgroundWorkerHandle *handle, Oid database, const char *name,
                         Watch *w) noexcept
{
    if (w->stopped || !held_long(database, w))
        return;
    ereport(LOG, (errmsg("kid stops its partition maintenance of database \"%s\"", name),
                  errdetail("A session holds the database to itself (DROP DATABASE, ALTER "
                            "DATABASE ... RENAME or SET TABLESPACE, CREATE DATABASE ... "
                            "TEMPLATE); the table being maintained is rolled back and tried "
                            "again at a later round.")));
    TerminateBackgroundWorker(handle);
    w->stopped = true;
}

/* The overrun workers, looked at as the one the launcher waits for is. */
static void watch_overruns() noexcept
{
    ListCell *lc;
    foreach (lc, overruns) {
        Overrun *o = static_cast<Overrun *>(lfirst(lc));
        watch_worker(o->handle, o->database, NameStr(o->name), &o->watch);
    }
}

/*
 * One worker for database d, waited for at most
 * kid.partition_maintenance_timeout (the worker notifies the launcher's
 * latch when it ends).
 */
static void visit(const Database *d) noexcept
{
    if (still_running(d)) {
        ereport(LOG, (errmsg("kid skips the partition maintenance of database \"%s\" this round",
                             NameStr(d->name)),
                      errdetail("Its worker of an earlier round is still running.")));
        return;
    }
    /* A worker started now would wait to connect until the command ends. */
    if (!database_free(d->oid)) {
        ereport(LOG, (errmsg("kid skips the partition maintenance of database \"%s\" this round",
                             NameStr(d->name)),
                      errdetail("A session holds the database for DROP DATABASE, ALTER DATABASE or "
                                "CREATE DATABASE with it as template.")));
        return;
    }
    BackgroundWorker w;
    char name[BGW_MAXLEN];
    snprintf(name, sizeof(name), "kid partition maintenance of %s", NameStr(d->name));
    worker_spec(&w, "kid_partition_worker_main", name);
#ifdef BGWORKER_INTERRUPTIBLE
    /* PostgreSQL 19: those commands end the worker themselves. */
    w.bgw_flags |= BGWORKER_INTERRUPTIBLE;
#endif
    w.bgw_restart_time = BGW_NEVER_RESTART;
    w.bgw_main_arg = ObjectIdGetDatum(d->oid);
    w.bgw_notify_pid = MyProcPid;
    BackgroundWorkerHandle *handle;
    if (!RegisterDynamicBackgroundWorker(&w, &handle)) {
        ereport(WARNING, (errmsg("kid could not start the partition maintenance of database \"%s\"",
                                 NameStr(d->name)),
                          errdetail("No background worker slot is free."),
                          errhint("Raise max_worker_processes; the next round tries again.")));
        return;
    }
    int64 deadline = monotonic_ms() + partition_maintenance_timeout * INT64CONST(1000);
    Watch watch;
    watch_reset(&watch);
    for (;;) {
        pid_t pid;
        BgwHandleStatus status = GetBackgroundWorkerPid(handle, &pid);
        if (status == BGWH_POSTMASTER_DIED)
            proc_exit(1);
        if (status == BGWH_STOPPED) {
            pfree(handle);
            return;
        }
        int64 left = deadline - monotonic_ms();
        if (left <= 0)
            break;
        watch_worker(handle, d->oid, NameStr(d->name), &watch);
        watch_overruns();
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
                        Min(left, WATCH_MS), launcher_wait_event());
        ResetLatch(MyLatch);
        launcher_check_for_stop();
    }
    ereport(LOG, (errmsg("kid goes on without waiting for the partition maintenance of database "
                         "\"%s\"",
                         NameStr(d->name)),
                  errdetail("It has run longer than kid.partition_maintenance_timeout (%d s); it "
                            "goes on, and the next rounds skip the database until it ends.",
                            partition_maintenance_timeout)));
    MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
    Overrun *o = static_cast<Overrun *>(palloc(sizeof(Overrun)));
    o->database = d->oid;
    o->name = d->name;
    o->handle = handle;
    o->watch = watch;
    overruns = lappend(overruns, o);
    MemoryContextSwitchTo(old);
}

/* Forget the overrun workers that have ended (of databases dropped meanwhile too). */
static void forget_ended_overruns() noexcept
{
    ListCell *lc;
    foreach (lc, overruns) {
        Overrun *o = static_cast<Overrun *>(lfirst(lc));
        pid_t pid;
        if (GetBackgroundWorkerPid(o->handle, &pid) != BGWH_STOPPED)
            continue;
        overruns = foreach_delete_current(overruns, lc);
        pfree(o->handle);
        pfree(o);
    }
}

static void launcher_round(MemoryContext cxt) noexcept
{
    MemoryContextReset(cxt);
    forget_ended_overruns();
    List *dbs = databases_to_visit(cxt);
    ListCell *lc;
    foreach (lc, dbs) {
        launcher_check_for_stop();
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
        if (partition_maintenance_interval == 0)
            break;
        visit(static_cast<Database *>(lfirst(lc)));
    }
}

} // namespace kid::pg

void kid_partition_launcher_main(Datum)
{
    using namespace kid::pg;
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    /* A stop (the server's, pg_terminate_backend()) ends it quietly (no FATAL in the log). */
    pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
    BackgroundWorkerUnblockSignals();
    /* No database: the launcher reads the shared catalog pg_database only. */
    BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
    /* It starts once recovery has ended: kid.lease is a primary's from now on. */
    lease_recovery_finished();
    MemoryContext round_cxt = AllocSetContextCreate(TopMemoryContext, "kid partition launcher",
                                                    ALLOCSET_DEFAULT_SIZES);

    int interval = -1; /* the interval in force, -1 before the first look */
    /* The schedule, in monotonic_ms(): when the last round started, when the next one is due. */
    int64 last_round = 0, next_round = 0;
    for (;;) {
        launcher_check_for_stop();
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
        if (partition_maintenance_interval != interval) {
            /* Turned on: a round now.  Changed: the next one an interval after the last. */
            next_round = interval <= 0
                             ? monotonic_ms()
                             : last_round + partition_maintenance_interval * INT64CONST(1000);
            interval = partition_maintenance_interval;
            if (interval == 0)
                ereport(LOG, (errmsg("kid partition maintenance is off"),
                              errdetail("kid.partition_maintenance_interval is 0.")));
            else
                ereport(LOG, (errmsg("kid maintains the partitions of every database every %d s",
                                     interval)));
        }
        long timeout = -1;
        if (interval > 0) {
            int64 now = monotonic_ms();
            if (now >= next_round) {
                pgstat_report_activity(STATE_RUNNING, "kid: maintaining partitions");
                launcher_round(round_cxt);
                pgstat_report_activity(STATE_IDLE, nullptr);
                last_round = now;
                next_round = now + interval * INT64CONST(1000);
                continue;
            }
            timeout = static_cast<long>(next_round - now);
        }
        /* A worker left running (an overrun) is looked at as often as the one waited for. */
        forget_ended_overruns();
        if (overruns != NIL) {
            watch_overruns();
            timeout = timeout < 0 ? WATCH_MS : Min(timeout, WATCH_MS);
        }
        (void)WaitLatch(MyLatch,
                        WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | (timeout >= 0 ? WL_TIMEOUT : 0),
                        timeout, launcher_wait_event());
        ResetLatch(MyLatch);
    }
}

/* --------------------------------------------------------------- a worker */

namespace kid::pg {

/* A transaction with an SPI connection and a snapshot, at the current time. */
static void begin_spi(const char *activity) noexcept
{
    SetCurrentStatementStartTimestamp();
    StartTransactionCommand();
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "SPI_connect failed");
    PushActiveSnapshot(GetTransactionSnapshot());
    pgstat_report_activity(STATE_RUNNING, activity);
}

static void end_spi() noexcept
{
    SPI_finish();
    PopActiveSnapshot();
    CommitTransactionCommand();
    pgstat_report_activity(STATE_IDLE, nullptr);
}

/*
 * src into buf of size bytes, cut at a character's boundary (in the
 * database's encoding) when it is longer: what is cut goes into
 * kid_partition_state and the log, which must stay valid text.
 */
static void copy_clipped(char *buf, size_t size, const char *src) noexcept
{
    int len = pg_mbcliplen(src, static_cast<int>(strlen(src)), static_cast<int>(size) - 1);
    memcpy(buf, src, len);
    buf[len] = '\0';
}

/*
 * In a PG_CATCH block: the error's message into buf, the error forgotten
 * and the transaction aborted (which also gives the worker back its own
 * user id), in memory context cxt.
 */
static void abort_with_message(MemoryContext cxt, char *buf, size_t size) noexcept
{
    MemoryContextSwitchTo(cxt);
    ErrorData *e = CopyErrorData();
    FlushErrorState();
    AbortCurrentTransaction();
    copy_clipped(buf, size, e->message ? e->message : "unknown error");
    FreeErrorData(e);
}

/* Column 1 of row 0 of the last SPI result as text copied into cxt, or nullptr. */
static char *spi_text(MemoryContext cxt, int column = 1) noexcept
{
    if (SPI_processed == 0)
        return nullptr;
    char *v = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, column);
    return v ? MemoryContextStrdup(cxt, v) : nullptr;
}

/*
 * Record that table's maintenance failed (kid_partition_failed()), as the
 * worker's superuser, in a transaction of its own; a failure here is a
 * WARNING too.
 */
static void record_failure(const char *schema, Oid table, const char *message) noexcept
{
    MemoryContext cxt = CurrentMemoryContext;
    PG_TRY();
    {
        begin_spi("kid: recording a failed partition maintenance");
        Oid types[2] = {REGCLASSOID, TEXTOID};
        Datum values[2] = {ObjectIdGetDatum(table), CStringGetTextDatum(message)};
        SPI_execute_with_args(psprintf("SELECT %s.kid_partition_failed($1, $2)", schema), 2, types,
                              values, nullptr, false, 0);
        end_spi();
    }
    PG_CATCH();
    {
        char why[1024];
        abort_with_message(cxt, why, sizeof(why));
        ereport(WARNING, (errmsg("kid could not record the failed partition maintenance of the "
                                 "table with OID %u",
                                 table),
                          errdetail("%s", why)));
    }
    PG_END_TRY();
}

/* The end of a log line of actions too long for it. */
constexpr const char CUT_NOTE[] = " ... (cut here; see kid_partition_history)";

/* What a run did, for the log: the actions kid_partition_maintain() returns, in this order. */
constexpr const char *LOGGED_ACTIONS[] = {"create", "create default", "detach",
                                          "drop",   "forget",         "keep"};

/*
 * The rows of the last SPI result (action, partition_name, rows) summed up
 * for the log, e.g. "2 create (public.events_p20261201, public.events_p20261202:
 * 12 rows moved), 1 drop (public.events_p20261101: 9472 rows)": every
 * partition retired with the rows it held ("rows not counted" when the run
 * did not count them), a partition made with the rows moved into it when
 * there were any; "" when it made, moved and retired
 * nothing.
 */
static char *actions_done() noexcept
{
    StringInfoData done;
    initStringInfo(&done);
    for (const char *action : LOGGED_ACTIONS) {
        int count = 0;
        StringInfoData names;
        initStringInfo(&names);
        for (uint64 i = 0; i < SPI_processed; i++) {
            char *a = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
            if (a == nullptr || strcmp(a, action) != 0)
                continue;
            char *name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
            char *rows = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 3);
            appendStringInfo(&names, "%s%s", count > 0 ? ", " : "", name ? name : "-");
            bool retired = strcmp(action, "drop") == 0 || strcmp(action, "detach") == 0;
            if (rows && (retired || strcmp(rows, "0") != 0))
                appendStringInfo(&names, ": %s %s%s", rows, strcmp(rows, "1") == 0 ? "row" : "rows",
                                 retired ? "" : " moved");
            else if (retired)
                appendStringInfoString(&names, ": rows not counted");
            count++;
        }
        if (count > 0)
            appendStringInfo(&done, "%s%d %s (%s)", done.len > 0 ? ", " : "", count, action,
                             names.data);
    }
    return done.data;
}

/*
 * The time limit of one table's maintenance.  At kid.partition_maintenance_timeout
 * the statement is cancelled, as statement_timeout cancels it (a background
 * worker has no client statement to time: the timeout is armed here, where
 * a SET of the table's owner cannot lift it): an ERROR, which the owner's
 * code may catch (EXCEPTION WHEN query_canceled) and go on.  So at twice
 * the limit the worker ends (FATAL, which no one catches): the tables after
 * it wait for the next round, which tries the least recently tried tables
 * first.
 */
static TimeoutId overrun_timeout = MAX_TIMEOUTS;
static volatile sig_atomic_t overran = 0;
/* What the worker is maintaining, for the log line of an overrun. */
static char overrun_table[2 * NAMEDATALEN + 8];
static char overrun_database[NAMEDATALEN];

/* The timeout handler: end the process at its next CHECK_FOR_INTERRUPTS(). */
static void maintenance_overran() noexcept
{
    overran = 1;
    ProcDiePending = true;
    InterruptPending = true;
    SetLatch(MyLatch);
}

/* At exit: say why, when it was the overrun. */
static void log_overrun(int, Datum) noexcept
{
    if (overran)
        ereport(LOG, (errmsg("kid ended its partition maintenance of %s in database \"%s\"",
                             overrun_table, overrun_database),
                      errdetail("It ran twice kid.partition_maintenance_timeout (%d s) and was "
                                "not stopped by the cancel at the first; the tables after it wait "
                                "for the next round.",
                                partition_maintenance_timeout)));
}

static void arm_time_limit() noexcept
{
    int ms = partition_maintenance_timeout * 1000;
    enable_timeout_after(STATEMENT_TIMEOUT, ms);
    enable_timeout_after(overrun_timeout, 2 * ms);
}

static void disarm_time_limit() noexcept
{
    disable_timeout(STATEMENT_TIMEOUT, false);
    disable_timeout(overrun_timeout, false);
    /* Fired after the statement ended: its cancel would fail the next table. */
    if (get_timeout_indicator(STATEMENT_TIMEOUT, true))
        QueryCancelPending = false;
}

/*
 * Find the table, and record that the worker tries it now
 * (kid_partition_state.last_attempt, committed before the maintenance
 * starts, so that a worker ended by an overrun leaves its mark): name gets
 * its name.  A table that is gone is forgotten (its row deleted).
 */
enum class Attempt { begun, forgotten, gone };
static Attempt begin_attempt(const char *schema, Oid table, char *name, size_t size) noexcept
{
    Attempt attempt = Attempt::begun;
    Oid types[1] = {OIDOID};
    Datum values[1] = {ObjectIdGetDatum(table)};
    begin_spi("kid: maintaining the partitions of a table");
    SPI_execute_with_args(
        "SELECT pg_catalog.format('%I.%I', n.nspname, c.relname) "
        "FROM pg_catalog.pg_class c "
        "JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace "
        "WHERE c.oid OPERATOR(pg_catalog.=) $1",
        1, types, values, nullptr, true, 1);
    if (SPI_processed == 1) {
        copy_clipped(name, size, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
        types[0] = REGCLASSOID;
        SPI_execute_with_args(psprintf("SELECT %s.kid_partition_attempt($1)", schema), 1, types,
                              values, nullptr, false, 0);
    } else {
        /* Gone, and its configuration left behind (dropped while event triggers were off). */
        SPI_execute_with_args(psprintf("DELETE FROM %s.kid_partition_config c "
                                       "WHERE c.parent::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
                                       schema),
                              1, types, values, nullptr, false, 0);
        attempt = SPI_processed > 0 ? Attempt::forgotten : Attempt::gone;
        SPI_execute_with_args(psprintf("DELETE FROM %s.kid_partition_attempts a "
                                       "WHERE a.parent OPERATOR(pg_catalog.=) $1",
                                       schema),
                              1, types, values, nullptr, false, 0);
    }
    end_spi();
    return attempt;
}

/*
 * kid_partition_maintain() of one table, in a transaction of its own,
 * within its time limit (above).  What it did goes to the log (LOG) when it
 * made, moved or retired something; a failure is a WARNING and is
 * recorded.  A table that is gone is forgotten.
 */
static void maintain_table(const char *schema, const char *database, Oid table) noexcept
{
    MemoryContext cxt = CurrentMemoryContext;
    char name[2 * NAMEDATALEN + 8] = "";
    char done[8192] = "";
    char message[1024] = "";
    volatile bool failed = false;
    volatile Attempt attempt = Attempt::gone;
    partition_worker_table = table;
    PG_TRY();
    {
        attempt = begin_attempt(schema, table, name, sizeof(name));
        if (attempt == Attempt::begun) {
            copy_clipped(overrun_table, sizeof(overrun_table), name);
            begin_spi("kid: maintaining the partitions of a table");
            Oid types[1] = {REGCLASSOID};
            Datum values[1] = {ObjectIdGetDatum(table)};
            arm_time_limit();
            /* Both arguments: no default of a look-alike function decides which one runs. */
            SPI_execute_with_args(psprintf("SELECT m.action, m.partition_name, m.rows FROM "
                                           "%s.kid_partition_maintain($1, pg_catalog.now()) m",
                                           schema),
                                  1, types, values, nullptr, false, 0);
            disarm_time_limit();
            const char *all = actions_done();
            copy_clipped(done, sizeof(done), all);
            /* Cut: say so, rather than end the list as if it were whole. */
            if (strlen(all) >= sizeof(done)) {
                copy_clipped(done, sizeof(done) - sizeof(CUT_NOTE) + 1, all);
                strlcat(done, CUT_NOTE, sizeof(done));
            }
            end_spi();
        }
    }
    PG_CATCH();
    {
        disarm_time_limit();
        abort_with_message(cxt, message, sizeof(message));
        failed = true;
    }
    PG_END_TRY();
    partition_worker_table = InvalidOid;
    if (failed) {
        ereport(WARNING, (errmsg("kid could not maintain the partitions of %s in database \"%s\"",
                                 name[0] ? name : "a table", database),
                          errdetail("%s", message),
                          errhint("kid_partition_status shows the last error of every table; the "
                                  "next round tries again.")));
        record_failure(schema, table, message);
    } else if (attempt == Attempt::forgotten)
        ereport(LOG, (errmsg("kid forgot the partitioning of the table with OID %u in database "
                             "\"%s\": the table is gone",
                             table, database)));
    else if (done[0])
        ereport(LOG, (errmsg("kid maintained the partitions of %s in database \"%s\": %s", name,
                             database, done)));
}

/*
 * The tables a worker began and neither finished nor failed: that worker
 * ended in its maintenance (its time limit's end, or a stop), and its
 * failure is recorded now (record_failure(), a transaction per table, so
 * that one table whose record fails does not lose the others').  A table
 * dropped since is left to maintain_table(), which forgets it; and
 * nothing that fails here keeps this worker from its tables (a failure
 * that repeats would otherwise end every worker of the database before its
 * first table, round after round): a WARNING.
 */
static void record_overruns(const char *schema) noexcept
{
    MemoryContext cxt = CurrentMemoryContext;
    List *volatile overrun = NIL;
    PG_TRY();
    {
        begin_spi("kid: recording ended partition maintenance");
        SPI_execute(
            psprintf("SELECT c.parent::pg_catalog.oid FROM %s.kid_partition_config c "
                     "JOIN pg_catalog.pg_class r "
                     "ON r.oid OPERATOR(pg_catalog.=) c.parent::pg_catalog.oid "
                     "JOIN %s.kid_partition_attempts a "
                     "ON a.parent OPERATOR(pg_catalog.=) c.parent::pg_catalog.oid "
                     "LEFT JOIN %s.kid_partition_state s "
                     "ON s.parent::pg_catalog.oid OPERATOR(pg_catalog.=) c.parent::pg_catalog.oid "
                     "WHERE a.began OPERATOR(pg_catalog.>) COALESCE(GREATEST(s.last_run, "
                     "s.last_error_at), '-infinity'::pg_catalog.timestamptz)",
                     schema, schema, schema),
            true, 0);
        MemoryContext old = MemoryContextSwitchTo(cxt);
        for (uint64 i = 0; i < SPI_processed; i++) {
            bool isnull;
            overrun = lappend_oid(overrun, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
                                                                          SPI_tuptable->tupdesc, 1,
                                                                          &isnull)));
        }
        MemoryContextSwitchTo(old);
        end_spi();
    }
    PG_CATCH();
    {
        char why[1024];
        abort_with_message(cxt, why, sizeof(why));
        ereport(WARNING, (errmsg("kid could not read the partition maintenance that kid's last "
                                 "worker left unfinished"),
                          errdetail("%s", why)));
    }
    PG_END_TRY();
    ListCell *lc;
    foreach (lc, overrun)
        record_failure(schema, lfirst_oid(lc),
                       "kid's worker ended during the maintenance of this table: it ran past "
                       "twice kid.partition_maintenance_timeout, or was stopped");
    list_free(overrun);
}

} // namespace kid::pg

void kid_partition_worker_main(Datum arg)
{
    using namespace kid::pg;
    pqsignal(SIGTERM, die);
    BackgroundWorkerUnblockSignals();
    /*
     * Before connecting: the connection's own lock on the database waits at
     * most this long for a command that holds it (one that began after the
     * launcher looked, database_free()).  Above the database's and the
     * role's settings (ALTER DATABASE ... SET).
     */
    SetConfigOption("lock_timeout", WORKER_LOCK_TIMEOUT, PGC_SUSET, PGC_S_OVERRIDE);
    BackgroundWorkerInitializeConnectionByOid(DatumGetObjectId(arg), InvalidOid, 0);
    partition_worker_running = true;
    SetConfigOption("search_path", WORKER_SEARCH_PATH, PGC_SUSET, PGC_S_OVERRIDE);
    /* kid_partition_maintain() refuses any other, whatever postgresql.conf says. */
    SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);
    overrun_timeout = RegisterTimeout(USER_TIMEOUT, pg_callback(maintenance_overran));
    before_shmem_exit(pg_callback(log_overrun), 0);
    MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "kid partition worker",
                                              ALLOCSET_DEFAULT_SIZES);

    /*
     * kid's schema, if kid is here and its kid_partition_config is kid's
     * own (a member of the extension: 0.1.0's SQL has none), and its
     * tables.  A relation of that name that is not kid's is another
     * role's: where kid's SQL is still 0.1.0's (a package upgrade or
     * pg_upgrade before ALTER EXTENSION kid UPDATE), a role that may create
     * objects in kid's schema (public is the database owner's) could
     * otherwise have this superuser call functions of its own under kid's
     * names.  Such a database is skipped, with a WARNING.
     */
    char *schema = nullptr;
    char *database = nullptr;
    char *impostor = nullptr;
    List *tables = NIL;
    begin_spi("kid: looking for tables to partition");
    database = MemoryContextStrdup(cxt, get_database_name(MyDatabaseId));
    strlcpy(overrun_database, database, sizeof(overrun_database));
    SPI_execute(
        "SELECT pg_catalog.quote_ident(n.nspname), "
        "EXISTS (SELECT FROM pg_catalog.pg_depend d "
        "WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
        "AND d.objid OPERATOR(pg_catalog.=) c.oid "
        "AND d.refclassid OPERATOR(pg_catalog.=) "
        "'pg_catalog.pg_extension'::pg_catalog.regclass "
        "AND d.refobjid OPERATOR(pg_catalog.=) e.oid AND d.deptype OPERATOR(pg_catalog.=) 'e') "
        "FROM pg_catalog.pg_extension e "
        "JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace "
        "JOIN pg_catalog.pg_class c ON c.relnamespace OPERATOR(pg_catalog.=) n.oid "
        "AND c.relname OPERATOR(pg_catalog.=) 'kid_partition_config' "
        "WHERE e.extname OPERATOR(pg_catalog.=) 'kid'",
        true, 1);
    schema = spi_text(cxt);
    if (schema && strcmp(spi_text(cxt, 2), "t") != 0) {
        impostor = schema;
        schema = nullptr;
    }
    /*
     * kid's SQL names its schema as it was named at install: renamed, and
     * another schema made under the old name, every call of kid's own
     * functions would reach that one's objects (kid_schema_intact(), in
     * src/sql/partition.sql).  Asked through the schema's current name.
     */
    bool renamed = false;
    if (schema) {
        SPI_execute(psprintf("SELECT %s.kid_schema_intact()", schema), true, 1);
        renamed = strcmp(spi_text(cxt), "t") != 0;
    }
    end_spi();
    if (renamed) {
        ereport(WARNING,
                (errmsg("kid's partition worker skipped database \"%s\": kid's schema %s is no "
                        "longer named as when kid was installed",
                        database, schema),
                 errdetail("kid's functions name their schema as it was named then: another "
                           "schema of that name would take their calls."),
                 errhint("Give kid's schema its name back (ALTER SCHEMA ... RENAME TO ...).")));
        schema = nullptr;
    }
    if (impostor)
        ereport(WARNING,
                (errmsg("kid's partition worker skipped database \"%s\": relation "
                        "%s.kid_partition_config is not kid's",
                        database, impostor),
                 errdetail("kid maintains partitions only through its own tables and functions."),
                 errhint("If kid's SQL in this database is older than its library, run ALTER "
                         "EXTENSION kid UPDATE there; drop a relation of that name that kid did "
                         "not make.")));
    if (schema)
        record_overruns(schema);
    begin_spi("kid: looking for tables to partition");
    if (schema) {
        /* The least recently tried first (an overrun ends the worker at its table). */
        SPI_execute(
            psprintf("SELECT c.parent::pg_catalog.oid FROM %s.kid_partition_config c "
                     "LEFT JOIN %s.kid_partition_attempts a "
                     "ON a.parent OPERATOR(pg_catalog.=) c.parent::pg_catalog.oid "
                     "ORDER BY a.began NULLS FIRST, c.parent::pg_catalog.text COLLATE \"C\"",
                     schema, schema),
            true, 0);
        MemoryContext old = MemoryContextSwitchTo(cxt);
        for (uint64 i = 0; i < SPI_processed; i++) {
            bool isnull;
            tables = lappend_oid(tables, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
                                                                        SPI_tuptable->tupdesc, 1,
                                                                        &isnull)));
        }
        MemoryContextSwitchTo(old);
    }
    end_spi();

    ListCell *lc;
    foreach (lc, tables) {
        CHECK_FOR_INTERRUPTS();
        maintain_table(schema, database, lfirst_oid(lc));
    }
    proc_exit(0);
}
