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
 */
#include "pg/kid_pg.h"

extern "C" {
#include "access/htup_details.h"
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
 * How many actions kid_partition_history keeps per table: the last
 * HISTORY_KEPT partitions made and, apart, the last HISTORY_KEPT retired
 * (so that partitions made, premake's or a short period's, never push a
 * retirement out), the rows of a run never pruned in that run; of tables
 * no longer configured, their retirements and the event that forgot them,
 * the last FORGOTTEN_KEPT rows of all of them (docs/partitioning.md).
 */
constexpr int HISTORY_KEPT = 1000;
constexpr int FORGOTTEN_KEPT = 100000;

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

/* The types of history_insert()'s parameters. */
static Oid insert_types[10] = {REGCLASSOID,  TEXTOID, TIMESTAMPTZOID, TEXTOID, TEXTOID,
                               TSTZRANGEOID, INT8OID, TEXTOID,        NAMEOID, BOOLOID};

/* The INSERT of a history row ($1 to $10 as insert_types), returning its id. */
static SPIPlanPtr history_insert(const HistoryWriter *w)
{
    SPIPlanPtr plan = SPI_prepare(
        psprintf("INSERT INTO %s.kid_partition_history (parent, parent_name, run_at, recorded_at, "
                 "action, partition_name, period, rows, detail, run_by, by_worker) "
                 "VALUES ($1, $2, $3, pg_catalog.clock_timestamp(), $4, $5, $6, $7, $8, $9, $10) "
                 "RETURNING id",
                 w->schema),
        10, insert_types);
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
 * Keep the table's last HISTORY_KEPT rows of the actions `actions` (an
 * array literal), counted since the table was last forgotten (an OID that
 * came round again starts afresh): older rows go, never one of this run
 * (ids from first_id on).
 */
static void prune_window(const HistoryWriter *w, Oid table, const char *actions, int64 first_id)
{
    Oid types[2] = {REGCLASSOID, INT8OID};
    Datum values[2] = {ObjectIdGetDatum(table), Int64GetDatum(first_id)};
    const char *sql = psprintf(
        "DELETE FROM %1$s.kid_partition_history h "
        "WHERE h.parent OPERATOR(pg_catalog.=) $1 "
        "AND h.action OPERATOR(pg_catalog.=) ANY ('%2$s'::pg_catalog.text[]) "
        "AND h.id OPERATOR(pg_catalog.<) $2 "
        "AND h.id OPERATOR(pg_catalog.>) COALESCE((SELECT pg_catalog.max(f.id) FROM "
        "%1$s.kid_partition_history f WHERE f.parent OPERATOR(pg_catalog.=) $1 "
        "AND f.action OPERATOR(pg_catalog.=) ANY ('{forget,unconfigure}'::pg_catalog.text[])), 0) "
        "AND h.id OPERATOR(pg_catalog.<) (SELECT k.id FROM %1$s.kid_partition_history k "
        "WHERE k.parent OPERATOR(pg_catalog.=) $1 "
        "AND k.action OPERATOR(pg_catalog.=) ANY ('%2$s'::pg_catalog.text[]) "
        "ORDER BY k.id DESC OFFSET %3$d LIMIT 1)",
        w->schema, actions, HISTORY_KEPT - 1);
    if (SPI_execute_with_args(sql, 2, types, values, nullptr, false, 0) != SPI_OK_DELETE)
        elog(ERROR, "kid could not prune the history of table with OID %u", table);
}

/*
 * Record the rows of a run (the tuplestore rsinfo holds: parent_table,
 * action, partition_name, period, rows, detail) in kid_partition_history,
 * then prune the table's windows (prune_window()).  The tuplestore is read
 * and rewound for the caller.  `caller` is the role that asked for the run.
 */
static void record_history(Oid self, Oid table, Datum at, Oid caller, ReturnSetInfo *rsinfo)
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
        /*
         * $1 parent, $2 parent_name, $3 run_at, $4 to $8 the run's columns 2
         * to 6 (action to detail), $9 run_by, $10 by_worker.
         */
        Datum values[10];
        char nulls[10];
        memset(nulls, ' ', sizeof(nulls));
        values[0] = ObjectIdGetDatum(table);
        values[1] = parent_name;
        values[2] = at;
        for (int c = 1; c < 6; c++) {
            values[c + 2] = slot->tts_values[c];
            if (slot->tts_isnull[c])
                nulls[c + 2] = 'n';
        }
        values[8] = by;
        values[9] = BoolGetDatum(partition_worker_running);
        int64 id = insert_history_row(insert, values, nulls, table);
        if (first_id == 0)
            first_id = id;
    }
    ExecDropSingleTupleTableSlot(slot);
    tuplestore_rescan(store);
    if (first_id != 0) {
        prune_window(&w, table, "{create,\"create default\"}", first_id);
        prune_window(&w, table, "{drop,detach}", first_id);
    }
    end_history(&w);
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

    Oid saved_user;
    int saved_context;
    GetUserIdAndSecContext(&saved_user, &saved_context);
    SetUserIdAndSecContext(owner, saved_context | SECURITY_LOCAL_USERID_CHANGE |
                                      SECURITY_RESTRICTED_OPERATION);
    int nest_level = NewGUCNestLevel();
    (void)set_config_option("search_path", PINNED_SEARCH_PATH, PGC_USERSET, PGC_S_SESSION,
                            GUC_ACTION_SAVE, true, 0, false);
    Datum result = FunctionCallInvoke(call);
    AtEOXact_GUC(false, nest_level);
    SetUserIdAndSecContext(saved_user, saved_context);
    fcinfo->isnull = call->isnull;
    record_history(fcinfo->flinfo->fn_oid, table, PG_GETARG_DATUM(1), saved_user,
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
 * unconfigure (it still exists); its history stays (no role may delete it),
 * its partitions made go, and the rows of every forgotten table are kept
 * to the last FORGOTTEN_KEPT.
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
    if (parent_att <= 0 || relname_att <= 0)
        elog(ERROR, "kid_partition_config has no column parent or relname");
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

    HistoryWriter w;
    begin_history(self, &w);
    /* The table's name: as it is, or as the history last knew it, or as its configuration did. */
    const char *parent_name = gone ? nullptr : qualified_name(table);
    if (parent_name == nullptr) {
        Oid types[1] = {REGCLASSOID};
        Datum values[1] = {ObjectIdGetDatum(table)};
        if (SPI_execute_with_args(psprintf("SELECT h.parent_name FROM %s.kid_partition_history h "
                                           "WHERE h.parent OPERATOR(pg_catalog.=) $1 "
                                           "ORDER BY h.id DESC LIMIT 1",
                                           w.schema),
                                  1, types, values, nullptr, true, 1) == SPI_OK_SELECT &&
            SPI_processed == 1)
            parent_name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
        if (parent_name == nullptr)
            parent_name = quote_identifier(relname);
    }
    Datum values[10] = {ObjectIdGetDatum(table),
                        CStringGetTextDatum(parent_name),
                        at,
                        CStringGetTextDatum(gone ? "forget" : "unconfigure"),
                        0,
                        0,
                        0,
                        CStringGetTextDatum(
                            gone ? "the table is gone: its configuration is removed"
                                 : "its configuration is removed: kid no longer maintains it"),
                        by,
                        BoolGetDatum(partition_worker_running)};
    char nulls[10] = {' ', ' ', ' ', ' ', 'n', 'n', 'n', ' ', ' ', ' '};
    int64 id = insert_history_row(history_insert(&w), values, nulls, table);
    /* Its partitions made go; its retirements stay, with the rows of other forgotten tables. */
    Oid types[2] = {REGCLASSOID, INT8OID};
    Datum args[2] = {ObjectIdGetDatum(table), Int64GetDatum(id)};
    if (SPI_execute_with_args(
            psprintf("DELETE FROM %s.kid_partition_history h "
                     "WHERE h.parent OPERATOR(pg_catalog.=) $1 AND h.id OPERATOR(pg_catalog.<) $2 "
                     "AND h.action OPERATOR(pg_catalog.=) ANY "
                     "('{create,\"create default\"}'::pg_catalog.text[])",
                     w.schema),
            2, types, args, nullptr, false, 0) != SPI_OK_DELETE ||
        SPI_execute(
            psprintf("DELETE FROM %1$s.kid_partition_history h WHERE h.id OPERATOR(pg_catalog.=) "
                     "ANY (ARRAY(SELECT o.id FROM %1$s.kid_partition_history o "
                     "WHERE EXISTS (SELECT FROM %1$s.kid_partition_history f "
                     "WHERE f.parent OPERATOR(pg_catalog.=) o.parent "
                     "AND f.action OPERATOR(pg_catalog.=) ANY "
                     "('{forget,unconfigure}'::pg_catalog.text[]) "
                     "AND f.id OPERATOR(pg_catalog.>=) o.id) "
                     "ORDER BY o.id DESC OFFSET %2$d))",
                     w.schema, FORGOTTEN_KEPT),
            false, 0) != SPI_OK_DELETE)
        elog(ERROR, "kid could not prune the history of forgotten tables");
    end_history(&w);
    return static_cast<Datum>(0);
}
