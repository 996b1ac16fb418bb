/*
 * database_mark.cpp - whether this database's ids are this cluster's to
 * continue, and raising the floors when they are not.
 *
 * The lease (lease.cpp) lives in the data directory and the WAL, so it
 * stays behind when a database moves to another cluster: pg_upgrade,
 * pg_dump/pg_restore, any copy of its rows.  A new cluster's generators
 * then start at its own clock, below the moved ids when the old cluster's
 * clock was ahead.  The mark that travels with the data is the extension's
 * configuration table kid_database_origin (src/sql/database_origin.sql):
 * a row per cluster that created the extension here ('created'), updated
 * it from 0.1.0 without adopting its ids ('updated', origin unknown), or
 * adopted the database ('adopted', kid_adopt_database()), in the order the
 * rows were inserted (position).  pg_upgrade carries the table's file,
 * pg_dump its rows (and CREATE EXTENSION in the restore adds a 'created'
 * row of the new cluster first).
 *
 * A database is this cluster's when every row of another cluster (and
 * every 'updated' row) comes before a row this cluster inserted when it
 * adopted it.  Otherwise generation is refused until kid_adopt_database()
 * has raised this server's floors above every id stored in the database
 * (through kid_raise_floors, below) and recorded that.
 *
 * The table is read with a plain heap scan under the query's snapshot: no
 * privilege or row security applies (generators run for roles that cannot
 * read it), and it works in read-only transactions and parallel workers
 * (each reads it once for itself).  The answer is kept per backend until a
 * relcache invalidation of the table (its statement trigger,
 * kid_database_origin_changed, sends one on every change).
 */
#include "pg/database_mark.h"
#include "pg/lease.h"
#include "pg/shared_state.h"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xlog.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "commands/trigger.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
/* tuplestore_putvalues: before 19 nodes/execnodes.h (through funcapi.h) included it. */
#include "utils/tuplestore.h"
}

namespace kid::pg {

bool database_mark_ok = false;

/* The table the answer was read from; any invalidation of it (or of every relation) clears it. */
static Oid mark_relid = InvalidOid;

static void mark_invalidated(Datum, Oid relid) noexcept
{
    if (relid == InvalidOid || relid == mark_relid)
        database_mark_ok = false;
}

static void watch_table(Oid relid)
{
    static bool registered = false;
    if (!registered) {
        CacheRegisterRelcacheCallback(pg_callback(mark_invalidated), 0);
        registered = true;
    }
    mark_relid = relid;
}

static const char ORIGIN_TABLE[] = "kid_database_origin";

/* The columns read here, in the order src/sql/database_origin.sql creates them. */
enum OriginColumn {
    ORIGIN_POSITION = 1,
    ORIGIN_SYSTEM_IDENTIFIER,
    ORIGIN_HOW,
    ORIGIN_COLUMNS_READ = 3
};

/* The schema of extension kid in this database, else InvalidOid (16+ has get_extension_schema). */
static Oid kid_schema()
{
    Relation catalog = table_open(ExtensionRelationId, AccessShareLock);
    ScanKeyData key;
    ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
                CStringGetDatum("kid"));
    SysScanDesc scan = systable_beginscan(catalog, ExtensionNameIndexId, true, nullptr, 1, &key);
    HeapTuple tuple = systable_getnext(scan);
    Oid schema = HeapTupleIsValid(tuple)
                     ? reinterpret_cast<Form_pg_extension>(GETSTRUCT(tuple))->extnamespace
                     : InvalidOid;
    systable_endscan(scan);
    table_close(catalog, AccessShareLock);
    return schema;
}

static bool column_is(TupleDesc desc, int attnum, const char *name, Oid type)
{
    Form_pg_attribute a = TupleDescAttr(desc, attnum - 1);
    return !a->attisdropped && a->atttypid == type && strcmp(NameStr(a->attname), name) == 0;
}

/* What the rows say, for the check and its message. */
struct OriginSummary {
    int64 newest_adopted;  /* position of this cluster's newest 'adopted' row, else -1 */
    int64 newest_foreign;  /* position of the newest row of another cluster or 'updated', else -1 */
    uint64 foreign_system; /* that row's system identifier */
    bool foreign_updated;  /* that row is an 'updated' one */
};

static OriginSummary read_origin(Relation rel)
{
    OriginSummary sum = {-1, -1, 0, false};
    uint64 mine = GetSystemIdentifier();
    Snapshot snapshot = RegisterSnapshot(ActiveSnapshotSet() ? GetActiveSnapshot()
                                                             : GetTransactionSnapshot());
#if PG_VERSION_NUM >= 190000
    /*
     * 19 takes the caller's scan options.  SO_HINT_REL_READ_ONLY promises
     * that the query does not modify the table (heap may then set pages
     * all-visible as it reads them); this scan runs inside whatever query
     * generates an id, which kid cannot vouch for, so it asks for nothing,
     * as the scan of 15 to 18 did.
     */
    TableScanDesc scan = table_beginscan(rel, snapshot, 0, nullptr, SO_NONE);
#else
    TableScanDesc scan = table_beginscan(rel, snapshot, 0, nullptr);
#endif
    TupleTableSlot *slot = table_slot_create(rel, nullptr);
    while (table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
        bool null_position, null_system, null_how;
        Datum position = slot_getattr(slot, ORIGIN_POSITION, &null_position);
        Datum system = slot_getattr(slot, ORIGIN_SYSTEM_IDENTIFIER, &null_system);
        Datum how = slot_getattr(slot, ORIGIN_HOW, &null_how);
        /* A row that cannot be read whole counts as another cluster's, and as the newest. */
        int64 pos = null_position ? PG_INT64_MAX : DatumGetInt32(position);
        bool here = !null_system && static_cast<uint64>(DatumGetInt64(system)) == mine;
        char *how_text = null_how ? nullptr : TextDatumGetCString(how);
        bool adopted = how_text != nullptr && strcmp(how_text, "adopted") == 0;
        bool created = how_text != nullptr && strcmp(how_text, "created") == 0;
        if (here && adopted) {
            if (pos > sum.newest_adopted)
                sum.newest_adopted = pos;
        } else if (!(here && created) && pos >= sum.newest_foreign) {
            sum.newest_foreign = pos;
            sum.foreign_system = null_system ? 0 : static_cast<uint64>(DatumGetInt64(system));
            sum.foreign_updated = here || (how_text != nullptr && strcmp(how_text, "updated") == 0);
        }
        if (how_text != nullptr)
            pfree(how_text);
    }
    ExecDropSingleTupleTableSlot(slot);
    table_endscan(scan);
    UnregisterSnapshot(snapshot);
    return sum;
}

/* What the database's mark says. */
enum class Mark { ours, unreadable, foreign, unknown_origin };

/*
 * Read the mark: ours when there is no table to read (no kid extension
 * here, kid's C functions reached under another extension's name, or a
 * database still on 0.1.0's SQL, which has no mark).
 */
static Mark read_mark(OriginSummary *sum)
{
    Oid schema = kid_schema();
    Oid relid = OidIsValid(schema) ? get_relname_relid(ORIGIN_TABLE, schema) : InvalidOid;
    watch_table(relid);
    if (!OidIsValid(relid))
        return Mark::ours;
    Relation rel = table_open(relid, AccessShareLock);
    TupleDesc desc = RelationGetDescr(rel);
    bool readable = desc->natts >= ORIGIN_COLUMNS_READ &&
                    column_is(desc, ORIGIN_POSITION, "position", INT4OID) &&
                    column_is(desc, ORIGIN_SYSTEM_IDENTIFIER, "system_identifier", INT8OID) &&
                    column_is(desc, ORIGIN_HOW, "how", TEXTOID);
    if (readable)
        *sum = read_origin(rel);
    table_close(rel, AccessShareLock);
    if (!readable)
        return Mark::unreadable;
    if (sum->newest_foreign >= 0 && sum->newest_adopted <= sum->newest_foreign)
        return sum->foreign_updated ? Mark::unknown_origin : Mark::foreign;
    return Mark::ours;
}

const char *database_mark_refusal()
{
    if (database_mark_ok)
        return nullptr;
    OriginSummary sum = {-1, -1, 0, false};
    switch (read_mark(&sum)) {
    case Mark::ours:
        database_mark_ok = true;
        return nullptr;
    case Mark::unreadable:
        return "kid cannot read its table kid_database_origin";
    case Mark::unknown_origin:
        return "this database holds ids of unknown origin (updated from 0.1.0 without adopting "
               "them): run SELECT * FROM kid_adopt_database()";
    case Mark::foreign:
        break;
    }
    return psprintf("this database came from another cluster (system identifier %llu): run "
                    "SELECT * FROM kid_adopt_database()",
                    static_cast<unsigned long long>(sum.foreign_system));
}

void database_mark_verify(const char *type_name)
{
    OriginSummary sum = {-1, -1, 0, false};
    Mark mark = read_mark(&sum);
    if (mark == Mark::unreadable)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot generate %s ids: kid cannot read its table %s", type_name,
                               ORIGIN_TABLE),
                        errdetail("Its columns are not the ones kid created."),
                        errhint("Restore the table as the kid extension created it.")));
    if (mark != Mark::ours) {
        const char *database = get_database_name(MyDatabaseId);
        if (mark == Mark::unknown_origin)
            ereport(ERROR,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("cannot generate %s ids in database \"%s\": it holds ids of "
                            "unknown origin",
                            type_name, database),
                     errdetail("kid was updated from 0.1.0 here without adopting its ids (kid was "
                               "not in shared_preload_libraries, or the update's adoption stopped "
                               "with a WARNING): they may have been made by another cluster, above "
                               "this server's floors."),
                     errhint("Run SELECT * FROM kid_adopt_database(); in database \"%s\" as a "
                             "superuser: it raises this server's floors above every id stored "
                             "in it.",
                             database)));
        ereport(
            ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("cannot generate %s ids in database \"%s\": it came from another "
                    "cluster (system identifier %llu)",
                    type_name, database, static_cast<unsigned long long>(sum.foreign_system)),
             errdetail("pg_upgrade, pg_dump or a copy of its rows brought it here without "
                       "that cluster's kid.lease, so this server (system identifier %llu) "
                       "may generate below the ids stored in it.",
                       static_cast<unsigned long long>(GetSystemIdentifier())),
             errhint("Run SELECT * FROM kid_adopt_database(); in database \"%s\" as a superuser: "
                     "it raises this server's floors above every id stored in it.",
                     database)));
    }
    database_mark_ok = true;
}

} // namespace kid::pg

/*
 * kid_database_origin_changed(): statement trigger of kid_database_origin.
 * Every backend drops its answer at the next transaction after the change
 * commits (the relcache invalidation reaches mark_invalidated), so rows a
 * data-only restore adds to a database in use refuse generation at once.
 */
KID_FUNCTION(kid_database_origin_changed)
{
    if (!CALLED_AS_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("kid_database_origin_changed() must be called as a trigger")));
    TriggerData *trigger = reinterpret_cast<TriggerData *>(fcinfo->context);
    CacheInvalidateRelcache(trigger->tg_relation);
    /*
     * A statement trigger's result is ignored; a null pointer as a Datum is
     * 0.  Not PointerGetDatum(nullptr): from 19 that is a macro whose
     * "true ? (X) : NULL" C++ rejects for nullptr.
     */
    return static_cast<Datum>(0);
}

/*
 * kid_raise_floors(lines, floors): raise this server's generator floors of
 * the lease lines named in lines (kid_lease()'s line) to the time at the
 * same position in floors (NULL: leave the line, as a line not named is
 * left), durably (kid.lease and the WAL, lease_raise_floors); never lowers
 * one.  By name, not by position: a caller's array keeps its meaning when
 * a new lease line comes.  Superuser only: the floors are the whole
 * server's.  One row per lease line, named or not, with the floor before
 * and after.  kid_adopt_database() calls it with the newest time stored
 * per line, and reads the floors now through it with no line named.
 */
enum FloorColumn { FLOOR_LINE, FLOOR_BEFORE, FLOOR_AFTER, FLOOR_COLUMNS };

/*
 * A finite floor t for lease line i, in microseconds since 1970; 22008 for
 * one no id of the line's scheme can be above, or kid.lease cannot hold:
 * refused, not stored.  kid_adoption_start() checks a floor given by hand
 * with it, so that a dry run refuses what the real run would.
 */
static int64 floor_unix_us(int i, TimestampTz t, const char *caller)
{
    using namespace kid::pg;
    const SchemeDef &scheme = lease_line_scheme(i);
    int64 unix_us = finite_unix_us("kid floor", t);
    int64 last = Min(scheme.last_unix_us(), LEASE_MARK_MAX - 2 * PROMOTION_MARGIN_US);
    if (unix_us > last)
        ereport(ERROR,
                (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                 errmsg("%s: the floor of lease line \"%s\" is past the "
                        "last time %s ids can hold",
                        caller, lease_line_name(i), scheme.name),
                 errdetail("The last is %s.", timestamptz_to_str(timestamptz_from_unix_us(last)))));
    return unix_us;
}

KID_FUNCTION(kid_raise_floors)
{
    using namespace kid::pg;
    if (!superuser())
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied to raise kid's floors"),
                        errdetail("Only a superuser may: the floors are the whole server's.")));
    if (shared == nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("kid must be loaded at server start to raise its floors"),
                        errhint("%s", preload_hint())));
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot raise kid's floors during recovery"),
                        errhint("Raise them on the primary: its lease records replicate.")));
    ArrayType *names = PG_GETARG_ARRAYTYPE_P(0);
    ArrayType *floors = PG_GETARG_ARRAYTYPE_P(1);
    /* Both lists, one-dimensional (an empty array has no dimension), paired by position. */
    ArrayType *lists[] = {names, floors};
    for (ArrayType *list : lists)
        if (ARR_NDIM(list) > 1)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("kid_raise_floors(): %s must be a one-dimensional array, "
                                   "not %d-dimensional",
                                   list == names ? "lines" : "floors", ARR_NDIM(list))));
    Datum *name_elems;
    bool *name_nulls;
    int name_count;
    deconstruct_array(names, TEXTOID, -1, false, TYPALIGN_INT, &name_elems, &name_nulls,
                      &name_count);
    Datum *elems;
    bool *elem_nulls;
    int count;
    deconstruct_array(floors, TIMESTAMPTZOID, sizeof(TimestampTz), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
                      &elems, &elem_nulls, &count);
    if (name_count != count)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("kid_raise_floors(): %d lines and %d floors", name_count, count),
                        errdetail("The floor of each line named in lines is at the same position "
                                  "in floors.")));
    /*
     * Paired by subscript, as SQL reads them: lines[i] with floors[i].  Two
     * arrays that start at different subscripts ('[0:1]={...}') would pair
     * otherwise by position than by subscript: refused rather than guessed.
     */
    if (count > 0 && ARR_LBOUND(names)[0] != ARR_LBOUND(floors)[0])
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("kid_raise_floors(): lines start at subscript %d and floors at %d",
                               ARR_LBOUND(names)[0], ARR_LBOUND(floors)[0]),
                        errdetail("The floor of each line named in lines is at the same subscript "
                                  "in floors.")));
    /*
     * Each name is a lease line's, exactly as kid_lease() spells it, and
     * names it once: nothing is raised unless every name is right.
     */
    int named_at[LEASE_LINES];
    int64 want[LEASE_LINES];
    for (int i = 0; i < LEASE_LINES; i++) {
        named_at[i] = -1;
        want[i] = 0;
    }
    int first = ARR_NDIM(names) == 1 ? ARR_LBOUND(names)[0] : 1;
    for (int k = 0; k < count; k++) {
        if (name_nulls[k])
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("kid_raise_floors(): lines[%d] is NULL", first + k),
                            errdetail("Each element of lines names a lease line.")));
        const char *name = TextDatumGetCString(name_elems[k]);
        int i = 0;
        while (i < LEASE_LINES && strcmp(name, lease_line_name(i)) != 0)
            i++;
        if (i == LEASE_LINES) {
            StringInfoData known;
            initStringInfo(&known);
            for (int j = 0; j < LEASE_LINES; j++)
                appendStringInfo(&known, "%s\"%s\"", j == 0 ? "" : ", ", lease_line_name(j));
            ereport(ERROR,
                    (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                     errmsg("kid_raise_floors(): no lease line is named \"%s\"", name),
                     errhint("The lease lines are %s (kid_lease() lists them).", known.data)));
        }
        if (named_at[i] >= 0)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("kid_raise_floors(): lease line \"%s\" is named twice", name),
                            errdetail("lines[%d] and lines[%d] both name it.", first + named_at[i],
                                      first + k)));
        named_at[i] = k;
        if (elem_nulls[k])
            continue;
        TimestampTz t = DatumGetTimestampTz(elems[k]);
        if (TIMESTAMP_IS_NOBEGIN(t))
            continue;
        const SchemeDef &scheme = lease_line_scheme(i);
        /*
         * A commit horizon's line holds no id: its floor is what horizons
         * returned, which a restart carries by itself; raised by hand it
         * would only push ids ahead after the next restart.
         */
        if (i == scheme.horizon_line)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("kid_raise_floors() cannot raise lease line \"%s\"",
                                   lease_line_name(i)),
                            errdetail("A commit horizon's line holds no id; give it NULL.")));
        int64 unix_us = floor_unix_us(i, t, "kid_raise_floors()");
        if (unix_us > 0)
            want[i] = unix_us;
    }
    int64 before[LEASE_LINES];
    for (int i = 0; i < LEASE_LINES; i++)
        before[i] = static_cast<int64>(pg_atomic_read_u64(&shared->floor_us[i]));
    lease_raise_floors(shared, want);
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    for (int i = 0; i < LEASE_LINES; i++) {
        int64 after = static_cast<int64>(pg_atomic_read_u64(&shared->floor_us[i]));
        Datum values[FLOOR_COLUMNS] = {CStringGetTextDatum(lease_line_name(i)),
                                       TimestampTzGetDatum(timestamptz_from_unix_us(before[i])),
                                       TimestampTzGetDatum(timestamptz_from_unix_us(after))};
        bool nulls[FLOOR_COLUMNS] = {false, before[i] == 0, after == 0};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    PG_RETURN_VOID();
}

/*
 * kid_adoption_start(floor, serialize): what kid_adopt_database() does
 * before it reads anything.
 *
 * floor, the time given by hand, is checked against every line that holds
 * ids as kid_raise_floors() would check it at the end, so a dry run
 * (which raises nothing) refuses it the same way (22008).
 *
 * With serialize, one adoption at a time on the whole server: an adoption
 * reads this server's floors (sno's two timelines decide which snos it
 * takes) and raises them at its end, so two adoptions in two databases
 * that both read the floors before either raised could each take one
 * timeline and leave both ahead of the clock.  A transaction-level lock
 * (released at commit or abort, as pg_advisory_xact_lock's) in the
 * advisory lock space, with database InvalidOid: pg_advisory_*() always
 * put the session's database there, so no user lock can be this one, and
 * every database's adoptions meet on it.  The second adoption waits (a
 * heavyweight lock: cancellable, lock_timeout, the deadlock check) and
 * reads the floors the first raised.  pg_locks shows it as an advisory
 * lock of database 0, classid 0x6b6964 ("kid"), objid 1, objsubid 3.
 */
static constexpr uint32 ADOPTION_LOCK_KEY1 = 0x6b6964;
static constexpr uint32 ADOPTION_LOCK_KEY2 = 1;
static constexpr uint16 ADOPTION_LOCK_FIELD4 = 3;

KID_FUNCTION(kid_adoption_start)
{
    using namespace kid::pg;
    if (!superuser())
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied to start an adoption"),
                        errdetail("Only a superuser may: kid_adopt_database() calls it.")));
    if (!PG_ARGISNULL(0)) {
        TimestampTz t = PG_GETARG_TIMESTAMPTZ(0);
        if (!TIMESTAMP_IS_NOBEGIN(t))
            for (int i = 0; i < LEASE_LINES; i++)
                if (i != lease_line_scheme(i).horizon_line)
                    (void)floor_unix_us(i, t, "kid_adopt_database()");
    }
    if (!PG_ARGISNULL(1) && PG_GETARG_BOOL(1)) {
        LOCKTAG tag;
        SET_LOCKTAG_ADVISORY(tag, InvalidOid, ADOPTION_LOCK_KEY1, ADOPTION_LOCK_KEY2,
                             ADOPTION_LOCK_FIELD4);
        (void)LockAcquire(&tag, ExclusiveLock, false, false);
    }
    PG_RETURN_VOID();
}
