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
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
}

#include "pg/partition_worker.h"

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

/* How many actions kid_partition_history keeps per table (docs/partitioning.md). */
constexpr int HISTORY_KEPT = 1000;

/*
 * The actions of a run that change the table, which kid_partition_history
 * records: not wait and keep, which a run repeats until something changes
 * and would push the drops out of the history.
 */
static bool recorded_action(const char *action) noexcept
{
    return strcmp(action, "create default") == 0 || strcmp(action, "create") == 0 ||
           strcmp(action, "drop") == 0 || strcmp(action, "detach") == 0;
}

/*
 * Record the rows of a run (the tuplestore rsinfo holds: parent_table,
 * action, partition_name, period, rows, detail) in kid_partition_history,
 * as that table's owner, security-restricted, search_path pinned, then keep
 * only the table's last HISTORY_KEPT rows.  The tuplestore is read and
 * rewound for the caller.  `caller` is the role that asked for the run.
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
    Oid nsp = get_func_namespace(self);
    const char *schema = quote_identifier(get_namespace_name(nsp));
    Oid history = get_relname_relid("kid_partition_history", nsp);
    if (!OidIsValid(history))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                        errmsg("relation \"%s.kid_partition_history\" does not exist", schema)));
    Oid writer = relation_owner(history);
    Datum by = DirectFunctionCall1(namein, CStringGetDatum(GetUserNameFromId(caller, false)));

    Oid saved_user;
    int saved_context;
    GetUserIdAndSecContext(&saved_user, &saved_context);
    SetUserIdAndSecContext(writer, saved_context | SECURITY_LOCAL_USERID_CHANGE |
                                       SECURITY_RESTRICTED_OPERATION);
    int nest_level = NewGUCNestLevel();
    (void)set_config_option("search_path", PINNED_SEARCH_PATH, PGC_USERSET, PGC_S_SESSION,
                            GUC_ACTION_SAVE, true, 0, false);
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "SPI_connect failed");
    Oid types[9] = {REGCLASSOID, TIMESTAMPTZOID, TEXTOID, TEXTOID, TSTZRANGEOID,
                    INT8OID,     TEXTOID,        NAMEOID, BOOLOID};
    SPIPlanPtr insert = SPI_prepare(
        psprintf("INSERT INTO %s.kid_partition_history (parent, run_at, recorded_at, action, "
                 "partition_name, period, rows, detail, run_by, by_worker) "
                 "VALUES ($1, $2, pg_catalog.clock_timestamp(), $3, $4, $5, $6, $7, $8, $9)",
                 schema),
        9, types);
    if (insert == nullptr)
        elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
    TupleTableSlot *slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
    bool any = false;
    while (tuplestore_gettupleslot(store, true, false, slot)) {
        slot_getallattrs(slot);
        if (slot->tts_isnull[1] || !recorded_action(TextDatumGetCString(slot->tts_values[1])))
            continue;
        /* $1 parent, $2 run_at, $3 to $7 the run's columns 2 to 6 (action to detail), $8 run_by, $9 by_worker. */
        Datum values[9];
        char nulls[9];
        memset(nulls, ' ', sizeof(nulls));
        values[0] = ObjectIdGetDatum(table);
        values[1] = at;
        for (int c = 1; c < 6; c++) {
            values[c + 1] = slot->tts_values[c];
            if (slot->tts_isnull[c])
                nulls[c + 1] = 'n';
        }
        values[7] = by;
        values[8] = BoolGetDatum(partition_worker_running);
        if (SPI_execute_plan(insert, values, nulls, false, 0) != SPI_OK_INSERT)
            elog(ERROR, "kid could not record the partition maintenance of table with OID %u",
                 table);
        any = true;
    }
    ExecDropSingleTupleTableSlot(slot);
    tuplestore_rescan(store);
    if (any) {
        Oid prune_types[1] = {REGCLASSOID};
        Datum prune_values[1] = {ObjectIdGetDatum(table)};
        SPI_execute_with_args(
            psprintf("DELETE FROM %1$s.kid_partition_history h "
                     "WHERE h.parent OPERATOR(pg_catalog.=) $1 AND h.id OPERATOR(pg_catalog.<) "
                     "(SELECT k.id FROM %1$s.kid_partition_history k "
                     "WHERE k.parent OPERATOR(pg_catalog.=) $1 ORDER BY k.id DESC "
                     "OFFSET %2$d LIMIT 1)",
                     schema, HISTORY_KEPT - 1),
            1, prune_types, prune_values, nullptr, false, 0);
    }
    SPI_finish();
    AtEOXact_GUC(false, nest_level);
    SetUserIdAndSecContext(saved_user, saved_context);
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
