/*
 * shared_state.cpp - kid's shared memory: the shmem hooks that create and
 * initialise KidShared, and admission (shared_for_generation): whether this
 * server may generate now.
 *
 * Follows contrib/pg_stat_statements (PG15): the hooks are installed only
 * while shared_preload_libraries is being processed; the startup hook
 * creates the struct under AddinShmemInitLock and initialises it only when
 * it is new (also after a crash restart, when shared memory is rebuilt).
 * The hooks are PostgreSQL callbacks (CONTRIBUTING.md, "Callbacks").
 */
#include "pg/database_mark.h"
#include "pg/horizon.h"
#include "pg/id_partitions.h"
#include "pg/lease.h"
#include "pg/shared_state.h"

extern "C" {
#include "access/twophase.h"
#include "access/xlog.h"
#include "catalog/pg_authid.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/guc.h"
}

namespace kid::pg {

KidShared *shared = nullptr;
BackendSlot *my_backend_slot = nullptr;
bool my_backend_slot_shared = false;
int64_t my_clock_high_us[SCHEME_COUNT] = {0, 0, 0, 0, 0};

static shmem_request_hook_type prev_shmem_request_hook = nullptr;
static shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

/*
 * One slot per PGPROC, as ProcGlobal counts them (InitProcGlobal: backends,
 * auxiliary processes, prepared transactions).  MaxBackends is set when the
 * shmem request hook runs.
 */
static int backend_slot_count()
{
    return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

/* KidShared, the per-backend slots, the horizon's prepared table: one piece of shared memory. */
static Size shared_size()
{
    static_assert(sizeof(KidShared) % PG_CACHE_LINE_SIZE == 0, "the slots after it start a line");
    Size size = add_size(sizeof(KidShared),
                         mul_size(backend_slot_count() + 1, sizeof(BackendSlot)));
    return add_size(size, mul_size(horizon_prepared_capacity(), sizeof(PreparedFloors)));
}

static void shmem_request() noexcept
{
    if (prev_shmem_request_hook)
        prev_shmem_request_hook();
    RequestAddinShmemSpace(shared_size());
    RequestNamedLWLockTranche("kid", 3);
}

/* The server-wide generators at zero (the lease raises them above its floors), the slots empty. */
static void counters_init(KidShared *s)
{
    for (auto &c : s->counters) {
        pg_atomic_init_u64(&c.state, 0);
        pg_atomic_init_u64(&c.clock_high_us, 0);
        pg_atomic_init_u64(&c.trusted_offset, 0);
        uint32 start = 0;
        if (!pg_strong_random(&start, sizeof(start)))
            start = static_cast<uint32>(random());
        pg_atomic_init_u64(&c.backfill_sequence, start);
    }
    s->backend_slot_count = backend_slot_count();
    BackendSlot *slots = backend_slots(s);
    for (int i = 0; i <= s->backend_slot_count; i++) {
        for (auto &scheme : slots[i].counts)
            for (auto &count : scheme)
                pg_atomic_init_u64(&count, 0);
        for (auto &p : slots[i].pending)
            pg_atomic_init_u64(&p, NO_PENDING_FLOOR);
    }
}

BackendSlot *proc_backend_slot(KidShared *s, const PGPROC *proc, int count)
{
    if (proc == nullptr)
        return nullptr;
#if PG_VERSION_NUM >= 170000
    int n = GetNumberFromPGProc(proc);
#else
    int n = proc->pgprocno;
#endif
    return n >= 0 && n < count ? &backend_slots(s)[n] : nullptr;
}

BackendSlot *backend_slot()
{
    /* Only generators count, and they have checked that shared memory is there. */
    BackendSlot *mine = proc_backend_slot(shared, MyProc, shared->backend_slot_count);
    if (mine == nullptr) {
        /* Not expected (a generating process has a PGPROC); counted all the same, in the last slot. */
        my_backend_slot_shared = true;
        mine = &backend_slots(shared)[shared->backend_slot_count];
    }
    my_backend_slot = mine;
    return my_backend_slot;
}

static void shmem_startup() noexcept
{
    if (prev_shmem_startup_hook)
        prev_shmem_startup_hook();

    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found;
    shared = static_cast<KidShared *>(ShmemInitStruct("kid", shared_size(), &found));
    if (!found) {
        memset(static_cast<void *>(shared), 0, shared_size());
        LWLockPadded *locks = GetNamedLWLockTranche("kid");
        shared->partition_lock = &locks[0].lock;
        shared->lease_lock = &locks[1].lock;
        shared->horizon_lock = &locks[2].lock;
        id_partitions_init(shared);
        counters_init(shared);
        horizon_init(shared);
        /* Reads kid.lease and raises every generator above it. */
        lease_start(shared);
    }
    LWLockRelease(AddinShmemInitLock);

    /*
     * As contrib/pg_stat_statements does: the postmaster (or a single-user
     * backend) writes the exact marks when it exits.  After a crash restart
     * this registers again: shmem_exit ran the old callbacks and cleared
     * them before shared memory was rebuilt.
     */
    if (!IsUnderPostmaster)
        lease_register_shutdown_write();
}

void install_shmem_hooks()
{
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = pg_callback(shmem_request);
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = pg_callback(shmem_startup);
}

/*
 * Whether this standby generates under an identity of the server whose WAL
 * it replays: the same kid.node_id, or the same node field on a lease line.
 */
static bool shares_primary_identity(const KidShared *s)
{
    const ReplayedWriter &w = s->replayed_writer;
    if (w.node_id < 0)
        return false;
    if (w.node_id == node_id)
        return true;
    for (int line = 0; line < LEASE_LINES; line++)
        if (w.node_fields[line] >= 0 && w.node_fields[line] == lease_line_scheme(line).node_field())
            return true;
    return false;
}

/* The node fields of the replayed writer and of this server, per scheme, for the message. */
static char *node_fields_text(const KidShared *s, bool replayed)
{
    StringInfoData buf;
    initStringInfo(&buf);
    appendStringInfo(&buf, "node id %d",
                     replayed ? s->replayed_writer.node_id : static_cast<int32>(node_id));
    for (const SchemeDef &scheme : SCHEMES)
        appendStringInfo(&buf, ", %s node field %lld", scheme.name,
                         static_cast<long long>(
                             replayed ? s->replayed_writer.node_fields[scheme.first_line]
                                      : scheme.node_field()));
    return buf.data;
}

const char *generation_refusal()
{
    if (shared == nullptr)
        return "kid is not in shared_preload_libraries";
    if (pg_atomic_read_u32(&shared->lease_unverified) != 0)
        return "kid.lease may miss lease messages this server replayed without kid (docs/lease.md, "
               "\"Servers that replayed without kid\")";
    if (RecoveryInProgress()) {
        if (!standby_generation)
            return "in recovery (a standby), and kid.standby_generation is off";
        if (shares_primary_identity(shared))
            return "in recovery, and the replayed primary generates with this server's node id";
    }
    return database_mark_refusal();
}

/*
 * The hint for a server started without kid: the list to write, the
 * server's own with kid appended (a list of kid alone would unload the
 * libraries it has).  shared_preload_libraries is readable only by
 * superusers and members of pg_read_all_settings (GUC_SUPERUSER_ONLY): for
 * anyone else the hint shows an example instead.
 */
const char *preload_hint()
{
    const Oid user = GetUserId();
    if (!superuser() && !has_privs_of_role(user, ROLE_PG_READ_ALL_SETTINGS))
        return "Append kid to the list in shared_preload_libraries in postgresql.conf, keeping "
               "the libraries already there (e.g. shared_preload_libraries = "
               "'pg_stat_statements,kid'), and restart the server.";
    const char *now = GetConfigOption("shared_preload_libraries", true, false);
    if (now == nullptr || now[0] == '\0')
        return "Set shared_preload_libraries = 'kid' in postgresql.conf (it is empty now) and "
               "restart the server.";
    return psprintf("Set shared_preload_libraries = '%s, kid' in postgresql.conf (it is '%s' "
                    "now: keep the libraries already there) and restart the server.",
                    now, now);
}

/* Whether this server may generate: shared_for_generation without the database's mark. */
static KidShared *server_for_generation(const char *type_name)
{
    KidShared *s = shared;
    if (s == nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("kid must be loaded at server start to generate %s ids", type_name),
                        errhint("%s", preload_hint())));
    /* kid.lease may miss lease messages replayed without kid (lease.cpp). */
    lease_check_verified(s, type_name);
    if (likely(pg_atomic_read_u32(&s->floors_final) != 0)) {
        /*
         * Pairs with the full barrier lease_finalize_floors puts before
         * setting the flag: the floors, the raised free slots and
         * floor_epoch it wrote are read after this.  (A compiler barrier
         * only on x86.)
         */
        pg_read_barrier();
        return s;
    }
    if (RecoveryInProgress()) {
        if (!standby_generation)
            ereport(ERROR,
                    (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                     errmsg("cannot generate %s ids during recovery", type_name),
                     errdetail("A standby shares the primary's kid.node_id, so its ids could "
                               "repeat the primary's."),
                     errhint("Generate ids on the primary, or give this server its own "
                             "kid.node_id and set kid.standby_generation = on.")));
        if (shares_primary_identity(s))
            ereport(ERROR,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("cannot generate %s ids on this standby: the primary generates "
                            "with the same node identity",
                            type_name),
                     errdetail("The primary's last lease record names %s; this server has %s.",
                               node_fields_text(s, true), node_fields_text(s, false)),
                     errhint("Give this standby its own kid.node_id (and kid.koid_generator_id "
                             "and kid.uid_node if set), or set kid.standby_generation = off.")));
        return s;
    }
    /* The first generation after start-up or recovery. */
    lease_finalize_floors(s);
    return s;
}

KidShared *shared_for_generation(const char *type_name)
{
    KidShared *s = server_for_generation(type_name);
    /* Then whether this database's ids are this server's to continue (database_mark.cpp). */
    database_mark_check(type_name);
    return s;
}

uint64 next_backfill_sequence(const char *type_name, Scheme scheme)
{
    KidShared *s = shared_for_generation(type_name);
    return pg_atomic_fetch_add_u64(&s->counters[scheme].backfill_sequence, 1);
}

} // namespace kid::pg
