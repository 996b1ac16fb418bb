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
 */
#include "pg/kid_pg.h"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

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

} // namespace kid::pg

/*
 * kid_partition_maintain_as_owner(parent regclass, at timestamptz): the rows
 * of kid_partition_maintain_table(parent, at), run as the table's owner.
 * Its result is that function's: the caller's ReturnSetInfo is handed on,
 * and the PL/pgSQL function fills it (materialize mode).
 */
KID_FUNCTION(kid_partition_maintain_as_owner)
{
    using namespace kid::pg;
    Oid table = PG_GETARG_OID(0);
    HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(table));
    if (!HeapTupleIsValid(tuple))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                        errmsg("relation with OID %u does not exist", table)));
    Form_pg_class form = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple));
    Oid owner = form->relowner;
    char relkind = form->relkind;
    ReleaseSysCache(tuple);
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
    return result;
}
