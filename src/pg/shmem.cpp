/*
 * shmem.cpp - shared memory set-up, sno slot claiming, and the lease.
 *
 * Follows contrib/pg_stat_statements (PG15): the hooks are installed only
 * while shared_preload_libraries is being processed; the startup hook
 * creates the struct under AddinShmemInitLock and initialises it only when
 * it is new (also after a crash restart, when shared memory is rebuilt).
 *
 * The lease is a small file in the data directory that records, for each
 * lease line, a time that no generated id has reached.  It is written ahead
 * (LEASE_AHEAD_US into the future) with write, fsync and a durable rename,
 * so a restart, a crash or a clock stepped back while the server was down
 * starts every generator above anything it may have handed out.
 */
#include "shmem.h"
#include "uid.h"

#include <cinttypes>
#include <cstdio>

extern "C" {
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
}

namespace kid::pg {

KidShared *shared = nullptr;

static shmem_request_hook_type prev_shmem_request_hook = nullptr;
static shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

static const char LEASE_FILE[] = "kid.lease";
static const char LEASE_TEMP_FILE[] = "kid.lease.tmp";

static int my_slot = -1;
SnoGenerator *sno_my_generator = nullptr;

static void shmem_request()
{
    if (prev_shmem_request_hook)
        prev_shmem_request_hook();
    RequestAddinShmemSpace(MAXALIGN(sizeof(KidShared)));
    RequestNamedLWLockTranche("kid", 2);
}

/* Read the lease file; false (and zeros) when there is none. */
static bool lease_read(int64 lease[LEASE_LINES])
{
    for (int i = 0; i < LEASE_LINES; i++)
        lease[i] = 0;
    FILE *f = AllocateFile(LEASE_FILE, "r");
    if (f == nullptr) {
        if (errno != ENOENT)
            ereport(LOG, (errcode_for_file_access(),
                          errmsg("kid: could not read \"%s\": %m", LEASE_FILE)));
        return false;
    }
    long long v[LEASE_LINES];
    int n = fscanf(f, "kid lease 1 %lld %lld %lld", &v[0], &v[1], &v[2]);
    FreeFile(f);
    if (n != LEASE_LINES) {
        ereport(LOG, (errmsg("kid: ignoring malformed \"%s\"", LEASE_FILE)));
        return false;
    }
    for (int i = 0; i < LEASE_LINES; i++)
        lease[i] = v[i];
    return true;
}

/* Write the lease durably; called with lease_lock held. */
static void lease_write(const int64 lease[LEASE_LINES])
{
    char buf[128];
    int len = snprintf(buf, sizeof(buf), "kid lease 1 %lld %lld %lld\n",
                       static_cast<long long>(lease[0]), static_cast<long long>(lease[1]),
                       static_cast<long long>(lease[2]));
    int fd = OpenTransientFile(LEASE_TEMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
    if (fd < 0)
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("kid: could not create \"%s\": %m", LEASE_TEMP_FILE)));
    errno = 0;
    if (write(fd, buf, len) != len) {
        if (errno == 0)
            errno = ENOSPC;
        int save = errno;
        CloseTransientFile(fd);
        errno = save;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("kid: could not write \"%s\": %m", LEASE_TEMP_FILE)));
    }
    if (CloseTransientFile(fd) != 0)
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("kid: could not close \"%s\": %m", LEASE_TEMP_FILE)));
    /* fsyncs the file, renames, fsyncs the directory. */
    durable_rename(LEASE_TEMP_FILE, LEASE_FILE, ERROR);
}

void lease_extend(KidShared *s, LeaseLine line, int64_t unix_us)
{
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    if (static_cast<int64_t>(pg_atomic_read_u64(&s->lease_us[line])) <= unix_us) {
        int64 lease[LEASE_LINES];
        for (int i = 0; i < LEASE_LINES; i++)
            lease[i] = static_cast<int64>(pg_atomic_read_u64(&s->lease_us[i]));
        lease[line] = unix_us + LEASE_AHEAD_US;
        lease_write(lease);
        /* Publish only after the file is durable. */
        pg_atomic_write_u64(&s->lease_us[line], static_cast<uint64>(lease[line]));
        pg_atomic_fetch_add_u64(&s->lease_writes, 1);
    }
    LWLockRelease(s->lease_lock);
}

static void shmem_startup()
{
    if (prev_shmem_startup_hook)
        prev_shmem_startup_hook();

    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found;
    shared = static_cast<KidShared *>(ShmemInitStruct("kid", sizeof(KidShared), &found));
    if (!found) {
        memset(shared, 0, sizeof(KidShared));
        LWLockPadded *locks = GetNamedLWLockTranche("kid");
        shared->slot_lock = &locks[0].lock;
        shared->lease_lock = &locks[1].lock;

        int64 lease[LEASE_LINES];
        lease_read(lease);
        for (int i = 0; i < LEASE_LINES; i++) {
            shared->startup_floor_us[i] = lease[i];
            /* The file already covers everything below its marks. */
            pg_atomic_init_u64(&shared->lease_us[i], static_cast<uint64>(lease[i]));
        }
        pg_atomic_init_u64(&shared->lease_writes, 0);

        /*
         * Every slot starts above the persisted mark of its timeline: a unit
         * at or below it may have been handed out before the restart.
         */
        for (int i = 0; i < SNO_SLOTS; i++) {
            SnoSlot *slot = &shared->slots[i];
            slot->owner_pid = 0;
            sno_generator_init(&slot->gen, static_cast<uint16_t>(node_id << 8 | i));
            for (unsigned t = 0; t < 2; t++) {
                int64_t units;
                if (lease[t] > 0 && sno_units_from_unix_us(lease[t], &units))
                    sno_generator_floor(&slot->gen, t, units);
            }
        }
        /* The counters continue above the persisted mark (tid counts microseconds). */
        pg_atomic_init_u64(&shared->tid_state, static_cast<uint64>(lease[LEASE_COUNTERS]));
        /* koid: the lease's millisecond counts as used up (counter 4095). */
        int64 koid_floor_ms = lease[LEASE_COUNTERS] / 1000 - static_cast<int64>(koid_epoch_ms);
        pg_atomic_init_u64(&shared->koid_state,
                           koid_floor_ms > 0 ? (static_cast<uint64>(koid_floor_ms) << 12) | 4095 : 0);
        /* uid: the lease's step counts as used up. */
        pg_atomic_init_u64(&shared->uid_state,
                           lease[LEASE_COUNTERS] > 0
                               ? kid::uid_word_from_unix_us(lease[LEASE_COUNTERS]) | kid::UID_SEQ_MAX
                               : 0);
        for (auto &scheme : shared->counter_stats)
            for (auto &c : scheme)
                pg_atomic_init_u64(&c, 0);
    }
    LWLockRelease(AddinShmemInitLock);
}

void install_shmem_hooks()
{
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = shmem_request;
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = shmem_startup;
}

KidShared *shared_for_generation(const char *type_name)
{
    if (shared == nullptr)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("kid must be loaded at server start to generate %s ids", type_name),
                 errhint("Add kid to shared_preload_libraries in postgresql.conf, e.g. "
                         "shared_preload_libraries = 'kid', and restart the server.")));
    if (!standby_generation && RecoveryInProgress())
        ereport(ERROR,
                (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                 errmsg("cannot generate %s ids during recovery", type_name),
                 errdetail("A standby shares the primary's kid.node_id, so its ids could repeat "
                           "the primary's."),
                 errhint("Generate ids on the primary, or give this server its own "
                         "kid.node_id and set kid.standby_generation = on.")));
    return shared;
}

/* on_shmem_exit callback: free the slot, keep its generator state for the next owner. */
static void sno_release_slot(int, Datum)
{
    if (my_slot < 0 || shared == nullptr)
        return;
    LWLockAcquire(shared->slot_lock, LW_EXCLUSIVE);
    if (shared->slots[my_slot].owner_pid == MyProcPid)
        shared->slots[my_slot].owner_pid = 0;
    LWLockRelease(shared->slot_lock);
    my_slot = -1;
    sno_my_generator = nullptr;
}

SnoGenerator *sno_claim_generator()
{
    KidShared *s = shared_for_generation("sno");
    static bool exit_callback_registered = false;
    if (!exit_callback_registered) {
        on_shmem_exit(sno_release_slot, 0);
        exit_callback_registered = true;
    }

    /* Start at the PID so that concurrent claimers mostly probe different slots. */
    int start = MyProcPid % SNO_SLOTS;
    LWLockAcquire(s->slot_lock, LW_EXCLUSIVE);
    for (int i = 0; i < SNO_SLOTS; i++) {
        int candidate = (start + i) % SNO_SLOTS;
        if (s->slots[candidate].owner_pid == 0) {
            s->slots[candidate].owner_pid = MyProcPid;
            my_slot = candidate;
            break;
        }
    }
    LWLockRelease(s->slot_lock);

    if (my_slot < 0)
        ereport(ERROR,
                (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                 errmsg("all %d sno partitions of node %d are in use", SNO_SLOTS, node_id),
                 errdetail("Each backend that generates sno ids holds one partition until it "
                           "exits."),
                 errhint("Use fewer concurrent connections that generate sno ids, e.g. "
                         "through a connection pooler.")));
    sno_my_generator = &s->slots[my_slot].gen;
    return sno_my_generator;
}

int sno_backend_slot()
{
    return my_slot;
}

} // namespace kid::pg
