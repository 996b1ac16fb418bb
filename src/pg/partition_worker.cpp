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
 *     pg_database).  Every kid.partition_maintenance_interval seconds it
 *     starts, for each database that accepts connections (templates
 *     excepted), one worker connected to it, and waits for it to end: one
 *     database at a time, so kid holds at most two worker slots
 *     (max_worker_processes).  With the setting at 0 it only waits for a
 *     reload.
 *   - a worker (a dynamic background worker, never restarted) finds kid's
 *     schema and the tables of kid_partition_config, and calls
 *     kid_partition_maintain() for each in a transaction of its own, as the
 *     table's owner (security-restricted, as autovacuum runs a table's
 *     index functions).  A table that fails is logged (WARNING), recorded
 *     by kid_partition_failed() in a new transaction, and left for the
 *     next round; the other tables go on.
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
#include "pg/partition_worker.h"
#include "pg/settings.h"

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
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
/* get_database_name: in commands/dbcommands.h before 19. */
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

PGDLLEXPORT void kid_partition_launcher_main(Datum);
PGDLLEXPORT void kid_partition_worker_main(Datum);
}

namespace kid::pg {

constexpr int LAUNCHER_RESTART_S = 10;
constexpr const char *WORKER_LOCK_TIMEOUT = "5s";

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

/* One worker for database d, waited for. */
static void visit(const Database *d) noexcept
{
    BackgroundWorker w;
    char name[BGW_MAXLEN];
    snprintf(name, sizeof(name), "kid partition maintenance of %s", NameStr(d->name));
    worker_spec(&w, "kid_partition_worker_main", name);
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
    if (WaitForBackgroundWorkerShutdown(handle) == BGWH_POSTMASTER_DIED)
        proc_exit(1);
    pfree(handle);
}

static void launcher_round(MemoryContext cxt) noexcept
{
    MemoryContextReset(cxt);
    List *dbs = databases_to_visit(cxt);
    ListCell *lc;
    foreach (lc, dbs) {
        CHECK_FOR_INTERRUPTS();
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
    pqsignal(SIGTERM, die);
    BackgroundWorkerUnblockSignals();
    /* No database: the launcher reads the shared catalog pg_database only. */
    BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
    MemoryContext round_cxt = AllocSetContextCreate(TopMemoryContext, "kid partition launcher",
                                                    ALLOCSET_DEFAULT_SIZES);

    int interval = -1; /* the interval in force, -1 before the first look */
    TimestampTz last_round = 0, next_round = 0;
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
        if (partition_maintenance_interval != interval) {
            /* Turned on: a round now.  Changed: the next one an interval after the last. */
            next_round = interval <= 0
                             ? GetCurrentTimestamp()
                             : TimestampTzPlusMilliseconds(last_round,
                                                           partition_maintenance_interval * 1000L);
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
            TimestampTz now = GetCurrentTimestamp();
            if (now >= next_round) {
                pgstat_report_activity(STATE_RUNNING, "kid: maintaining partitions");
                launcher_round(round_cxt);
                pgstat_report_activity(STATE_IDLE, nullptr);
                last_round = now;
                next_round = TimestampTzPlusMilliseconds(now, interval * 1000L);
                continue;
            }
            timeout = TimestampDifferenceMilliseconds(now, next_round);
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
    strlcpy(buf, e->message ? e->message : "unknown error", size);
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

/*
 * kid_partition_maintain() of one table, as its owner, in a transaction of
 * its own.  What it did goes to the log (LOG) when it made, moved or
 * retired something; a failure is a WARNING and is recorded.
 */
static void maintain_table(const char *schema, const char *database, Oid table) noexcept
{
    MemoryContext cxt = CurrentMemoryContext;
    char name[2 * NAMEDATALEN + 8] = "";
    char done[512] = "";
    char message[1024] = "";
    volatile bool failed = false;
    PG_TRY();
    {
        begin_spi("kid: maintaining the partitions of a table");
        Oid types[1] = {OIDOID};
        Datum values[1] = {ObjectIdGetDatum(table)};
        SPI_execute_with_args("SELECT c.relowner, pg_catalog.format('%I.%I', n.nspname, c.relname) "
                              "FROM pg_catalog.pg_class c "
                              "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                              "WHERE c.oid = $1",
                              1, types, values, nullptr, true, 1);
        /* A table dropped since the list was read is forgotten by the event trigger. */
        if (SPI_processed == 1) {
            bool isnull;
            Oid owner = DatumGetObjectId(
                SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
            strlcpy(name, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2),
                    sizeof(name));
            Oid saved_user;
            int saved_context;
            GetUserIdAndSecContext(&saved_user, &saved_context);
            SetUserIdAndSecContext(owner, saved_context | SECURITY_LOCAL_USERID_CHANGE |
                                              SECURITY_RESTRICTED_OPERATION);
            types[0] = REGCLASSOID;
            SPI_execute_with_args(
                psprintf(
                    "SELECT pg_catalog.string_agg(a.n || ' ' || a.action, ', ' ORDER BY a.action) "
                    "FROM (SELECT m.action, pg_catalog.count(*) AS n "
                    "FROM %s.kid_partition_maintain($1) m WHERE m.action <> 'wait' "
                    "GROUP BY m.action) a",
                    schema),
                1, types, values, nullptr, false, 0);
            char *d = spi_text(cxt);
            if (d)
                strlcpy(done, d, sizeof(done));
            SetUserIdAndSecContext(saved_user, saved_context);
        }
        end_spi();
    }
    PG_CATCH();
    {
        abort_with_message(cxt, message, sizeof(message));
        failed = true;
    }
    PG_END_TRY();
    if (failed) {
        ereport(WARNING, (errmsg("kid could not maintain the partitions of %s in database \"%s\"",
                                 name[0] ? name : "a table", database),
                          errdetail("%s", message),
                          errhint("kid_partition_status shows the last error of every table; the "
                                  "next round tries again.")));
        record_failure(schema, table, message);
    } else if (done[0])
        ereport(LOG, (errmsg("kid maintained the partitions of %s in database \"%s\": %s", name,
                             database, done)));
}

} // namespace kid::pg

void kid_partition_worker_main(Datum arg)
{
    using namespace kid::pg;
    pqsignal(SIGTERM, die);
    BackgroundWorkerUnblockSignals();
    BackgroundWorkerInitializeConnectionByOid(DatumGetObjectId(arg), InvalidOid, 0);
    SetConfigOption("lock_timeout", WORKER_LOCK_TIMEOUT, PGC_SUSET, PGC_S_OVERRIDE);
    /* kid_partition_maintain() refuses any other, whatever postgresql.conf says. */
    SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);
    MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "kid partition worker",
                                              ALLOCSET_DEFAULT_SIZES);

    /* kid's schema, if kid is here and has kid_partition_config (0.1.0 has not), and its tables. */
    char *schema = nullptr;
    char *database = nullptr;
    List *tables = NIL;
    begin_spi("kid: looking for tables to partition");
    database = MemoryContextStrdup(cxt, get_database_name(MyDatabaseId));
    SPI_execute(
        "SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e "
        "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace "
        "WHERE e.extname = 'kid' AND pg_catalog.to_regclass(pg_catalog.quote_ident(n.nspname) "
        "|| '.kid_partition_config') IS NOT NULL",
        true, 1);
    schema = spi_text(cxt);
    if (schema) {
        SPI_execute(psprintf("SELECT c.parent::pg_catalog.oid FROM %s.kid_partition_config c "
                             "ORDER BY c.parent::pg_catalog.text",
                             schema),
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
