/*
 * partition_maintenance.cpp - kid_partition_maintain_as_owner(parent, at):
 * the one door through which kid's maintenance of a table
 * (kid_partition_maintain_table(), src/sql/partition.sql) runs, whoever
 * asks for it: kid_partition_maintain(), kid_partition_by_time() and the
 * background worker (partition_worker.cpp) all come through here.
 *
 * Maintenance runs code of the table's owner: its triggers (a row moved out
 * of the default partition is deleted there), the index expressions and
 * constraints ATTACH PARTITION evaluates, the event triggers of its DDL.
 * Run with the caller's rights, that code would act as the caller: a
 * superuser's pg_cron job, or the worker's bootstrap superuser, would give
 * any table owner superuser.  So, as PostgreSQL does for VACUUM, ANALYZE and
 * REFRESH MATERIALIZED VIEW, the maintenance runs as the table's owner, in a
 * security-restricted operation (the owner's code can neither SET ROLE
 * back to the caller nor leave temporary objects behind for it), with
 * search_path pinned to pg_catalog, pg_temp (no operator or function in a
 * schema someone else can write wins a name the maintenance uses); the
 * user id, the security context and the setting come back when it ends, on
 * an error through the (sub)transaction's abort.
 *
 * The caller must own the table: be a member of its owning role, or a
 * superuser (the rule of kid_partition_guard() for kid_partition_config).
 *
 * What the run made and retired is then recorded in kid_partition_history,
 * here and nowhere else: as the owner of that table (kid's, the role that
 * created the extension), security-restricted, with search_path pinned, so
 * that no role needs, or has, a privilege to write it, and neither the
 * caller nor the table's owner (whose code the run ran) can forge a row.
 * kid prunes it here too, each prune bounded by an index of one table's rows
 * or of one role's pool, so that no role's actions push out, or wait for,
 * another role's records (docs/partitioning.md, "What it keeps").
 */
#include "pg/kid_pg.h"

extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
/* RelationGetNumberOfBlocks: not reached through the headers above on 15. */
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
}

#include "pg/partition_worker.h"

#include <algorithm>

namespace kid::pg {

/* The search_path the maintenance and everything it runs see. */
constexpr const char *PINNED_SEARCH_PATH = "pg_catalog, pg_temp";

/* kid_partition_maintain_table(regclass, timestamptz), in the schema of `self` (kid's). */
static Oid maintenance_function(Oid self) noexcept
{
    char *schema = get_namespace_name(get_func_namespace(self));
    Oid args[2] = {REGCLASSOID, TIMESTAMPTZOID};
    return LookupFuncName(list_make2(makeString(schema),
                                     makeString(pstrdup("kid_partition_maintain_table"))),
                          2, args, false);
}

/* The owner of relation rel (ERROR when it is gone). */
static Oid relation_owner(Oid rel, char *relkind = nullptr) noexcept
{
    HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(rel));
    if (!HeapTupleIsValid(tuple))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                        errmsg("relation with OID %u does not exist", rel)));
    Form_pg_class form = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple));
    Oid owner = form->relowner;
    if (relkind)
        *relkind = form->relkind;
    ReleaseSysCache(tuple);
    return owner;
}

/*
 * How many actions kid_partition_history keeps per configured table: the
 * last HISTORY_KEPT partitions made and, apart, the last HISTORY_KEPT
 * retired (so that partitions made, premake's or a short period's, never
 * push a retirement out), the rows of a run never pruned in that run.
 * When a configuration ends, the table's retirements and the row that
 * ended it join the pool of the role that owns the table then, which keeps
 * that role's last POOL_KEPT rows, whole tables' rows at a time
 * (docs/partitioning.md).  Pools are per role so that one role's ends of
 * configurations push out its own records only.
 */
constexpr int HISTORY_KEPT = 1000;
constexpr int POOL_KEPT = 100000;
/*
 * The most tables one prune of a pool takes out.  A pool far over its
 * size (ends at REPEATABLE READ, which do not prune) is brought back a few
 * tables per end: the cost of a role's excess never falls whole on the
 * one end that meets it (another role's kid_partition_maintain() that
 * forgets the role's gone table, or the worker's).
 */
constexpr int POOL_PRUNE_TABLES = 16;

/*
 * The table kid's worker maintains now, in its own run, and how deep this
 * backend is in kid_partition_maintain_as_owner(): by_worker is recorded
 * for the worker's own run of that table only, never for a run that the
 * owner's code (a trigger, run by the worker's run) starts inside it.
 */
static int maintain_depth = 0;

static bool by_worker(Oid table) noexcept
{
    return partition_worker_running && maintain_depth == 0 && table == partition_worker_table;
}

/*
 * The actions of a run that change the table, which kid_partition_history
 * records: not wait and keep, which a run repeats until something changes.
 */
static bool recorded_action(const char *action) noexcept
{
    return strcmp(action, "create default") == 0 || strcmp(action, "create") == 0 ||
           strcmp(action, "drop") == 0 || strcmp(action, "detach") == 0;
}

/*
 * Writing kid_partition_history: as that table's owner (kid's),
 * security-restricted, search_path pinned, through SPI.  Begun and ended in
 * the same function; an error on the way is undone by the (sub)transaction's
 * abort, as for the maintenance.
 */
struct HistoryWriter {
    const char *schema; /* kid's, quoted */
    Oid saved_user;
    int saved_context;
    int nest_level;
};

static void begin_history(Oid self, HistoryWriter *w)
{
    Oid nsp = get_func_namespace(self);
    w->schema = quote_identifier(get_namespace_name(nsp));
    Oid history = get_relname_relid("kid_partition_history", nsp);
    if (!OidIsValid(history))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                        errmsg("relation \"%s.kid_partition_history\" does not exist", w->schema)));
    Oid writer = relation_owner(history);
    GetUserIdAndSecContext(&w->saved_user, &w->saved_context);
    SetUserIdAndSecContext(writer, w->saved_context | SECURITY_LOCAL_USERID_CHANGE |
                                       SECURITY_RESTRICTED_OPERATION);
    w->nest_level = NewGUCNestLevel();
    (void)set_config_option("search_path", PINNED_SEARCH_PATH, PGC_USERSET, PGC_S_SESSION,
                            GUC_ACTION_SAVE, true, 0, false);
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "SPI_connect failed");
}

static void end_history(HistoryWriter *w)
{
    SPI_finish();
    AtEOXact_GUC(false, w->nest_level);
    SetUserIdAndSecContext(w->saved_user, w->saved_context);
}

/* The columns history_insert() writes, $1 to $12 in this order. */
enum HistoryColumn {
    H_PARENT,
    H_PARENT_NAME,
    H_PARENT_OWNER,
    H_RUN_AT,
    H_ACTION,
    H_PARTITION_NAME,
    H_PERIOD,
    H_ROWS,
    H_DETAIL,
    H_RUN_BY,
    H_BY_WORKER,
    H_POOL_COUNT,
    H_COLUMNS
};
static Oid insert_types[H_COLUMNS] = {REGCLASSOID, TEXTOID, REGROLEOID,   TIMESTAMPTZOID,
                                      TEXTOID,     TEXTOID, TSTZRANGEOID, INT8OID,
                                      TEXTOID,     NAMEOID, BOOLOID,      INT8OID};

/* The INSERT of a history row ($1 to $12 as HistoryColumn), returning its id. */
static SPIPlanPtr history_insert(const HistoryWriter *w)
{
    SPIPlanPtr plan = SPI_prepare(
        psprintf(
            "INSERT INTO %s.kid_partition_history (parent, parent_name, parent_owner, run_at, "
            "recorded_at, action, partition_name, period, rows, detail, run_by, by_worker, "
            "pool_count) VALUES ($1, $2, $3, $4, pg_catalog.clock_timestamp(), $5, $6, $7, $8, "
            "$9, $10, $11, $12) RETURNING id",
            w->schema),
        H_COLUMNS, insert_types);
    if (plan == nullptr)
        elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
    return plan;
}

/* Run an INSERT of history_insert(): the new row's id. */
static int64 insert_history_row(SPIPlanPtr plan, Datum *values, const char *nulls, Oid table)
{
    if (SPI_execute_plan(plan, values, nulls, false, 0) != SPI_OK_INSERT_RETURNING ||
        SPI_processed != 1)
        elog(ERROR, "kid could not record the partition maintenance of table with OID %u", table);
    bool isnull;
    Datum id = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
    return DatumGetInt64(id);
}

/* The name of table, schema-qualified ("" when it is gone). */
static char *qualified_name(Oid table) noexcept
{
    char *name = get_rel_name(table);
    if (name == nullptr)
        return pstrdup("");
    return quote_qualified_identifier(get_namespace_name(get_rel_namespace(table)), name);
}

/*
 * Run a query of SPI that must succeed with `expected`; never read-only, so
 * that it sees what the queries before it wrote.
 */
static void spi_run(const char *sql, int nargs, Oid *types, Datum *values, int expected,
                    const char *what, Oid table)
{
    if (SPI_execute_with_args(sql, nargs, types, values, nullptr, false, 0) != expected)
        elog(ERROR, "kid could not %s of table with OID %u", what, table);
}

/* The first column of the first row SPI returned, as an int64 (0 when none, or NULL). */
static int64 spi_int64() noexcept
{
    if (SPI_processed == 0)
        return 0;
    bool isnull;
    Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
    return isnull ? 0 : DatumGetInt64(d);
}

/*
 * The id of the row that last ended a configuration of table (the OID),
 * below `below` (0: none).  The rows above it are the table's since
 * (an OID that came round again starts afresh); the index on (parent, id),
 * read backwards, reaches it past those rows alone.
 */
static int64 last_end(const HistoryWriter *w, Oid table, int64 below)
{
    Oid types[2] = {REGCLASSOID, INT8OID};
    Datum values[2] = {ObjectIdGetDatum(table), Int64GetDatum(below)};
    spi_run(psprintf("SELECT h.id FROM %s.kid_partition_history h "
                     "WHERE h.parent OPERATOR(pg_catalog.=) $1 AND h.id OPERATOR(pg_catalog.<) $2 "
                     "AND h.pool_count IS NOT NULL ORDER BY h.id DESC LIMIT 1",
                     w->schema),
            2, types, values, SPI_OK_SELECT, "read the history", table);
    return spi_int64();
}

/*
 * Keep the table's last HISTORY_KEPT rows of the actions `actions` (an
 * array literal) since its configuration last ended (`since`): older rows
 * go, never one of this run (ids from first_id on).  Reads the table's
 * rows since then alone, by the index on (parent, id).
 */
static void prune_window(const HistoryWriter *w, Oid table, const char *actions, int64 since,
                         int64 first_id)
{
    Oid types[3] = {REGCLASSOID, INT8OID, INT8OID};
    Datum values[3] = {ObjectIdGetDatum(table), Int64GetDatum(since), Int64GetDatum(first_id)};
    spi_run(psprintf("DELETE FROM %1$s.kid_partition_history h "
                     "WHERE h.id OPERATOR(pg_catalog.=) ANY (ARRAY("
                     "SELECT k.id FROM %1$s.kid_partition_history k "
                     "WHERE k.parent OPERATOR(pg_catalog.=) $1 AND k.id OPERATOR(pg_catalog.>) $2 "
                     "AND k.action OPERATOR(pg_catalog.=) ANY ('%2$s'::pg_catalog.text[]) "
                     "ORDER BY k.id DESC OFFSET %3$d)) "
                     "AND h.id OPERATOR(pg_catalog.<) $3",
                     w->schema, actions, HISTORY_KEPT),
            3, types, values, SPI_OK_DELETE, "prune the history", table);
}

/*
 * Record the rows of a run (the tuplestore rsinfo holds: parent_table,
 * action, partition_name, period, rows, detail) in kid_partition_history,
 * then prune the table's windows (prune_window()).  The tuplestore is read
 * and rewound for the caller.  `caller` is the role that asked for the run
 * (current_user), `owner` the table's, as which it ran.
 */
static void record_history(Oid self, Oid table, Datum at, Oid caller, Oid owner, bool worker,
                           ReturnSetInfo *rsinfo)
{
    /* (A run that returned no row made and retired nothing.) */
    if (rsinfo == nullptr || !IsA(rsinfo, ReturnSetInfo) ||
        rsinfo->returnMode != SFRM_Materialize || rsinfo->setResult == nullptr)
        return;
    Tuplestorestate *store = rsinfo->setResult;
    TupleDesc desc = rsinfo->setDesc;
    if (desc == nullptr || desc->natts != 6)
        elog(ERROR, "kid_partition_maintain_table() returned %d columns, not 6",
             desc ? desc->natts : 0);
    Datum by = DirectFunctionCall1(namein, CStringGetDatum(GetUserNameFromId(caller, false)));
    Datum parent_name = CStringGetTextDatum(qualified_name(table));

    HistoryWriter w;
    begin_history(self, &w);
    SPIPlanPtr insert = history_insert(&w);
    TupleTableSlot *slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
    int64 first_id = 0;
    while (tuplestore_gettupleslot(store, true, false, slot)) {
        slot_getallattrs(slot);
        if (slot->tts_isnull[1] || !recorded_action(TextDatumGetCString(slot->tts_values[1])))
            continue;
        Datum values[H_COLUMNS];
        char nulls[H_COLUMNS];
        memset(nulls, ' ', sizeof(nulls));
        values[H_PARENT] = ObjectIdGetDatum(table);
        values[H_PARENT_NAME] = parent_name;
        values[H_PARENT_OWNER] = ObjectIdGetDatum(owner);
        values[H_RUN_AT] = at;
        /* The run's columns 2 to 6, action to detail. */
        for (int c = 1; c < 6; c++) {
            values[H_ACTION + c - 1] = slot->tts_values[c];
            if (slot->tts_isnull[c])
                nulls[H_ACTION + c - 1] = 'n';
        }
        values[H_RUN_BY] = by;
        values[H_BY_WORKER] = BoolGetDatum(worker);
        values[H_POOL_COUNT] = 0;
        nulls[H_POOL_COUNT] = 'n';
        int64 id = insert_history_row(insert, values, nulls, table);
        if (first_id == 0)
            first_id = id;
    }
    ExecDropSingleTupleTableSlot(slot);
    tuplestore_rescan(store);
    if (first_id != 0) {
        int64 since = last_end(&w, table, first_id);
        prune_window(&w, table, "{create,\"create default\"}", since, first_id);
        prune_window(&w, table, "{drop,detach}", since, first_id);
    }
    end_history(&w);
}

/*
 * The pool_count of the row that ends a configuration of table, owned by
 * `owner`: the rows owner's pool has taken in, through the table's since
 * its configuration last ended (since) and the end row itself.  Reads the
 * table's rows since then by (parent, id), and owner's pool by its index.
 * (Two ends of owner's that commit together may count from the same
 * number: its pool then keeps a few rows more.)
 */
static int64 pool_count(const HistoryWriter *w, Oid table, Oid owner, int64 since)
{
    Oid types[2] = {REGCLASSOID, INT8OID};
    Datum values[2] = {ObjectIdGetDatum(table), Int64GetDatum(since)};
    spi_run(psprintf("SELECT pg_catalog.count(*) FROM %s.kid_partition_history h "
                     "WHERE h.parent OPERATOR(pg_catalog.=) $1 AND h.id OPERATOR(pg_catalog.>) $2",
                     w->schema),
            2, types, values, SPI_OK_SELECT, "read the history", table);
    int64 joined = spi_int64() + 1;
    Oid owner_type[1] = {REGROLEOID};
    Datum owner_value[1] = {ObjectIdGetDatum(owner)};
    spi_run(psprintf("SELECT h.pool_count FROM %s.kid_partition_history h "
                     "WHERE h.parent_owner OPERATOR(pg_catalog.=) $1 AND h.pool_count IS NOT NULL "
                     "ORDER BY h.pool_count DESC LIMIT 1",
                     w->schema),
            1, owner_type, owner_value, SPI_OK_SELECT, "read the history", table);
    return spi_int64() + joined;
}

/*
 * Keep owner's pool to its last POOL_KEPT rows, `count` being its
 * pool_count now: the tables whose rows all came into it POOL_KEPT rows or
 * more before go, each with the row that ended its configuration (the
 * oldest first; a table's rows go together).  Reads owner's pool by its
 * index, and each such table's rows by (parent, id): it deletes only what
 * is in excess (POOL_PRUNE_TABLES tables at most), and touches no other
 * role's rows.  An end row that another
 * transaction is pruning (locked) is skipped: should that one roll back, a
 * later prune of the same pool deletes it.
 */
static void prune_pool(const HistoryWriter *w, Oid table, Oid owner, int64 count)
{
    /*
     * Under REPEATABLE READ or SERIALIZABLE a row another transaction
     * pruned after this one's snapshot fails the prune with 40001 (SKIP
     * LOCKED skips rows locked, not rows deleted and committed), and the
     * DROP TABLE or DELETE that ended the configuration with it.  The pool
     * is housekeeping: it waits for the next end of that role's
     * configurations at READ COMMITTED (the worker's), and only grows
     * meanwhile.
     */
    if (count <= POOL_KEPT || IsolationUsesXactSnapshot())
        return;
    Oid types[3] = {REGROLEOID, INT8OID, INT8OID};
    Datum values[3] = {ObjectIdGetDatum(owner), Int64GetDatum(count - POOL_KEPT), 0};
    spi_run(psprintf("SELECT e.id, e.parent::pg_catalog.oid FROM %s.kid_partition_history e "
                     "WHERE e.parent_owner OPERATOR(pg_catalog.=) $1 AND e.pool_count IS NOT NULL "
                     "AND e.pool_count OPERATOR(pg_catalog.<=) $2 "
                     "ORDER BY e.pool_count LIMIT %d FOR UPDATE SKIP LOCKED",
                     w->schema, POOL_PRUNE_TABLES),
            2, types, values, SPI_OK_SELECT, "prune the history", table);
    uint64 n = SPI_processed;
    /* (Kept until SPI_finish(), whatever SPI runs meanwhile.) */
    SPITupleTable *ends = SPI_tuptable;
    for (uint64 i = 0; i < n; i++) {
        bool isnull;
        int64 end_id = DatumGetInt64(SPI_getbinval(ends->vals[i], ends->tupdesc, 1, &isnull));
        Oid parent = DatumGetObjectId(SPI_getbinval(ends->vals[i], ends->tupdesc, 2, &isnull));
        int64 since = last_end(w, parent, end_id);
        types[0] = REGCLASSOID;
        values[0] = ObjectIdGetDatum(parent);
        values[1] = Int64GetDatum(since);
        values[2] = Int64GetDatum(end_id);
        spi_run(
            psprintf("DELETE FROM %s.kid_partition_history h "
                     "WHERE h.parent OPERATOR(pg_catalog.=) $1 AND h.id OPERATOR(pg_catalog.>) $2 "
                     "AND h.id OPERATOR(pg_catalog.<=) $3",
                     w->schema),
            3, types, values, SPI_OK_DELETE, "prune the history", table);
    }
}

/*
 * The rows of relation rel counted by a scan of its table access method
 * (no executor: no row-level security, no privilege checked but the
 * caller's below, no trigger, no foreign server), or NULL (returns false)
 * when it is not a plain table or has more than max_pages pages: a count
 * kid makes while it holds the table's ACCESS EXCLUSIVE lock must stay
 * short.  The caller must own rel or the partitioned table rel is attached
 * to (whose owner reads every row of rel through it).
 */
static bool count_rows(Oid relid, int32 max_pages, int64 *count)
{
    char relkind;
    Oid owner = relation_owner(relid, &relkind);
    if (!has_privs_of_role(GetUserId(), owner)) {
        Oid parent = InvalidOid;
        if (get_rel_relispartition(relid))
            parent = get_partition_parent(relid, true);
        if (!OidIsValid(parent) || !has_privs_of_role(GetUserId(), relation_owner(parent)))
            aclcheck_error(ACLCHECK_NOT_OWNER, get_relkind_objtype(relkind), get_rel_name(relid));
    }
    if (relkind != RELKIND_RELATION)
        return false;
    Relation rel = table_open(relid, AccessShareLock);
    if (RelationGetNumberOfBlocks(rel) > static_cast<BlockNumber>(std::max(max_pages, 0))) {
        table_close(rel, NoLock);
        return false;
    }
    Snapshot snapshot = RegisterSnapshot(GetLatestSnapshot());
#if PG_VERSION_NUM >= 190000
    /* 19 takes the caller's scan options: none, as the scan of 15 to 18 had. */
    TableScanDesc scan = table_beginscan(rel, snapshot, 0, nullptr, SO_NONE);
#else
    TableScanDesc scan = table_beginscan(rel, snapshot, 0, nullptr);
#endif
    TupleTableSlot *slot = table_slot_create(rel, nullptr);
    int64 n = 0;
    while (table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
        CHECK_FOR_INTERRUPTS();
        n++;
    }
    ExecDropSingleTupleTableSlot(slot);
    table_endscan(scan);
    UnregisterSnapshot(snapshot);
    table_close(rel, NoLock);
    *count = n;
    return true;
}

} // namespace kid::pg

/*
 * kid_partition_maintain_as_owner(parent regclass, at timestamptz): the rows
 * of kid_partition_maintain_table(parent, at), run as the table's owner.
 * Its result is that function's: the caller's ReturnSetInfo is handed on,
 * and the PL/pgSQL function fills it (materialize mode); record_history()
 * then reads it, and rewinds it for the caller.
 */
KID_FUNCTION(kid_partition_maintain_as_owner)
{
    using namespace kid::pg;
    Oid table = PG_GETARG_OID(0);
    char relkind;
    Oid owner = relation_owner(table, &relkind);
    if (!has_privs_of_role(GetUserId(), owner))
        aclcheck_error(ACLCHECK_NOT_OWNER, get_relkind_objtype(relkind), get_rel_name(table));

    FmgrInfo body;
    fmgr_info(maintenance_function(fcinfo->flinfo->fn_oid), &body);
    LOCAL_FCINFO(call, 2);
    InitFunctionCallInfoData(*call, &body, 2, fcinfo->fncollation, nullptr, fcinfo->resultinfo);
    call->args[0] = fcinfo->args[0];
    call->args[1] = fcinfo->args[1];

    /* The worker's own run of the table it maintains, not one nested in a run. */
    bool worker = by_worker(table);
    Oid saved_user;
    int saved_context;
    GetUserIdAndSecContext(&saved_user, &saved_context);
    SetUserIdAndSecContext(owner, saved_context | SECURITY_LOCAL_USERID_CHANGE |
                                      SECURITY_RESTRICTED_OPERATION);
    int nest_level = NewGUCNestLevel();
    (void)set_config_option("search_path", PINNED_SEARCH_PATH, PGC_USERSET, PGC_S_SESSION,
                            GUC_ACTION_SAVE, true, 0, false);
    Datum result;
    maintain_depth++;
    PG_TRY();
    {
        result = FunctionCallInvoke(call);
    }
    PG_CATCH();
    {
        /* (The user, context and setting come back with the abort.) */
        maintain_depth--;
        PG_RE_THROW();
    }
    PG_END_TRY();
    maintain_depth--;
    AtEOXact_GUC(false, nest_level);
    SetUserIdAndSecContext(saved_user, saved_context);
    fcinfo->isnull = call->isnull;
    record_history(fcinfo->flinfo->fn_oid, table, PG_GETARG_DATUM(1), saved_user, owner, worker,
                   reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo));
    return result;
}

/*
 * kid_partition_rows(rel regclass, max_pages integer): count_rows(), NULL
 * when it counts none.
 */
KID_FUNCTION(kid_partition_rows)
{
    int64 count = 0;
    if (!kid::pg::count_rows(PG_GETARG_OID(0), PG_GETARG_INT32(1), &count))
        PG_RETURN_NULL();
    PG_RETURN_INT64(count);
}

/*
 * kid_partition_config_removed(): trigger AFTER DELETE OR UPDATE OF parent
 * on kid_partition_config.  A table's configuration that goes (its owner
 * deletes it, DROP TABLE's event trigger, kid_partition_maintain()'s forget,
 * an UPDATE that moves it to another table) is recorded in
 * kid_partition_history as the action forget (the table is gone) or
 * unconfigure (it still exists); its history stays (no role may delete it)
 * but its partitions made, and joins the pool of the table's owner
 * (pool_count(), prune_pool()).
 */
KID_FUNCTION(kid_partition_config_removed)
{
    using namespace kid::pg;
    if (!CALLED_AS_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("kid_partition_config_removed() must be called as a trigger")));
    TriggerData *trigger = reinterpret_cast<TriggerData *>(fcinfo->context);
    Relation config = trigger->tg_relation;
    Oid self = fcinfo->flinfo->fn_oid;
    if (!TRIGGER_FIRED_AFTER(trigger->tg_event) || !TRIGGER_FIRED_FOR_ROW(trigger->tg_event) ||
        RelationGetNamespace(config) != get_func_namespace(self) ||
        strcmp(RelationGetRelationName(config), "kid_partition_config") != 0)
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("kid_partition_config_removed() must be fired after each row of "
                               "kid's kid_partition_config")));
    TupleDesc desc = RelationGetDescr(config);
    int parent_att = SPI_fnumber(desc, "parent");
    int relname_att = SPI_fnumber(desc, "relname");
    int owner_att = SPI_fnumber(desc, "parent_owner");
    if (parent_att <= 0 || relname_att <= 0 || owner_att <= 0)
        elog(ERROR, "kid_partition_config has no column parent, relname or parent_owner");
    bool isnull;
    Oid table = DatumGetObjectId(heap_getattr(trigger->tg_trigtuple, parent_att, desc, &isnull));
    if (TRIGGER_FIRED_BY_UPDATE(trigger->tg_event)) {
        Oid now = DatumGetObjectId(heap_getattr(trigger->tg_newtuple, parent_att, desc, &isnull));
        /*
         * An AFTER trigger's result is ignored.  0, not PointerGetDatum(nullptr):
         * from 19 that macro's "true ? (X) : NULL" does not compile in C++.
         */
        if (now == table)
            return static_cast<Datum>(0);
    } else if (!TRIGGER_FIRED_BY_DELETE(trigger->tg_event))
        ereport(ERROR,
                (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                 errmsg("kid_partition_config_removed() must be fired by DELETE or UPDATE")));
    const char *relname = NameStr(
        *DatumGetName(heap_getattr(trigger->tg_trigtuple, relname_att, desc, &isnull)));
    char *name = get_rel_name(table);
    bool gone = name == nullptr || strcmp(name, relname) != 0;
    Datum by = DirectFunctionCall1(namein, CStringGetDatum(GetUserNameFromId(GetUserId(), false)));
    Datum at = TimestampTzGetDatum(GetCurrentTransactionStartTimestamp());
    bool worker = by_worker(table);

    HistoryWriter w;
    begin_history(self, &w);
    int64 since = last_end(&w, table, PG_INT64_MAX);
    /*
     * The table's name and owner: as they are; or, when it is gone, its
     * name as its last row since its configuration began knew it (else its
     * configuration's), and the owner its configuration recorded
     * (kid_partition_guard() sets it from pg_class at every write of the
     * row): never the role that ends it, which may be anyone's
     * kid_partition_maintain() or the worker's, and whose pool it is not.
     */
    const char *parent_name = nullptr;
    Oid owner;
    if (!gone) {
        parent_name = qualified_name(table);
        owner = relation_owner(table);
    } else {
        owner = DatumGetObjectId(heap_getattr(trigger->tg_trigtuple, owner_att, desc, &isnull));
        if (isnull || !OidIsValid(owner))
            elog(ERROR, "kid_partition_config has no owner for table with OID %u", table);
        Oid types[2] = {REGCLASSOID, INT8OID};
        Datum values[2] = {ObjectIdGetDatum(table), Int64GetDatum(since)};
        spi_run(
            psprintf("SELECT h.parent_name FROM %s.kid_partition_history h "
                     "WHERE h.parent OPERATOR(pg_catalog.=) $1 AND h.id OPERATOR(pg_catalog.>) $2 "
                     "ORDER BY h.id DESC LIMIT 1",
                     w.schema),
            2, types, values, SPI_OK_SELECT, "read the history", table);
        if (SPI_processed == 1)
            parent_name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
        if (parent_name == nullptr)
            parent_name = quote_identifier(relname);
    }
    /* Its partitions made go (read by (parent, id), since its configuration began). */
    Oid types[2] = {REGCLASSOID, INT8OID};
    Datum args[2] = {ObjectIdGetDatum(table), Int64GetDatum(since)};
    spi_run(psprintf("DELETE FROM %s.kid_partition_history h "
                     "WHERE h.parent OPERATOR(pg_catalog.=) $1 AND h.id OPERATOR(pg_catalog.>) $2 "
                     "AND h.action OPERATOR(pg_catalog.=) ANY "
                     "('{create,\"create default\"}'::pg_catalog.text[])",
                     w.schema),
            2, types, args, SPI_OK_DELETE, "prune the history", table);
    int64 count = pool_count(&w, table, owner, since);
    Datum values[H_COLUMNS] = {};
    char nulls[H_COLUMNS];
    memset(nulls, ' ', sizeof(nulls));
    values[H_PARENT] = ObjectIdGetDatum(table);
    values[H_PARENT_NAME] = CStringGetTextDatum(parent_name);
    values[H_PARENT_OWNER] = ObjectIdGetDatum(owner);
    values[H_RUN_AT] = at;
    values[H_ACTION] = CStringGetTextDatum(gone ? "forget" : "unconfigure");
    nulls[H_PARTITION_NAME] = nulls[H_PERIOD] = nulls[H_ROWS] = 'n';
    values[H_DETAIL] = CStringGetTextDatum(
        gone ? "the table is gone: its configuration is removed"
             : "its configuration is removed: kid no longer maintains it");
    values[H_RUN_BY] = by;
    values[H_BY_WORKER] = BoolGetDatum(worker);
    values[H_POOL_COUNT] = Int64GetDatum(count);
    (void)insert_history_row(history_insert(&w), values, nulls, table);
    prune_pool(&w, table, owner, count);
    end_history(&w);
    return static_cast<Datum>(0);
}
