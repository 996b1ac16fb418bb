/*
 * id_partitions.cpp - claiming and releasing this server's id partitions,
 * and raising their sno generators above the floors.  See id_partitions.h.
 */
#include "pg/id_partitions.h"

extern "C" {
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/ipc.h"
}

namespace kid::pg {

static int my_partition = -1;
SnoGenerator *sno_my_generator = nullptr;
uint32 sno_my_floor_epoch = 1;
int uuidv7_my_partition = -1;

void sno_raise_floor(SnoGenerator *g, const int64 floor_us[2])
{
    for (unsigned t = 0; t < 2; t++) {
        int64_t units;
        if (floor_us[t] > 0 && sno_units_from_unix_us(floor_us[t], &units))
            sno_generator_floor(g, t, units);
    }
}

void sno_raise_free_partitions(KidShared *s, const int64 floor_us[2])
{
    LWLockAcquire(s->partition_lock, LW_EXCLUSIVE);
    for (auto &p : s->partitions)
        if (p.owner_pid == 0)
            sno_raise_floor(&p.sno, floor_us);
    LWLockRelease(s->partition_lock);
}

void id_partitions_init(KidShared *s)
{
    for (int i = 0; i < ID_PARTITIONS; i++) {
        IdPartition *p = id_partition(s, i);
        p->owner_pid = 0;
        uint16 start = 0;
        if (!pg_strong_random(&start, sizeof(start)))
            start = static_cast<uint16>(random());
        p->sno_backfill_sequence = start;
        p->uuidv7 = {-1, 0, 0, 0};
        sno_generator_init(&p->sno, static_cast<uint16_t>(node_id << 8 | i));
    }
}

/* The sno floors now (tick 0 and 1). */
static void current_sno_floors(KidShared *s, int64 floor_us[2])
{
    floor_us[0] = static_cast<int64>(pg_atomic_read_u64(&s->floor_us[LEASE_SNO_TICK0]));
    floor_us[1] = static_cast<int64>(pg_atomic_read_u64(&s->floor_us[LEASE_SNO_TICK1]));
}

/*
 * on_shmem_exit callback: free the partition, keep its generators' state for
 * the next owner.  The next owner's claim takes partition_lock after this
 * releases it, so it reads what this backend last wrote there.
 */
static void release_partition(int, Datum) noexcept
{
    if (my_partition < 0 || shared == nullptr)
        return;
    IdPartition *p = id_partition(shared, my_partition);
    LWLockAcquire(shared->partition_lock, LW_EXCLUSIVE);
    if (p->owner_pid == MyProcPid)
        p->owner_pid = 0;
    LWLockRelease(shared->partition_lock);
    my_partition = -1;
    sno_my_generator = nullptr;
    sno_my_floor_epoch = 1;
    uuidv7_my_partition = -1;
}

int claim_id_partition(KidShared *s)
{
    if (my_partition >= 0)
        return my_partition;
    /* Before the first claim: registering can fail, and no claim may outlive the backend. */
    static bool exit_callback_registered = false;
    if (!exit_callback_registered) {
        on_shmem_exit(pg_callback(release_partition), 0);
        exit_callback_registered = true;
    }

    /* Start at the PID so that concurrent claimers mostly probe different partitions. */
    int start = MyProcPid % ID_PARTITIONS;
    LWLockAcquire(s->partition_lock, LW_EXCLUSIVE);
    for (int i = 0; i < ID_PARTITIONS; i++) {
        int candidate = (start + i) % ID_PARTITIONS;
        IdPartition *p = id_partition(s, candidate);
        if (p->owner_pid == 0) {
            p->owner_pid = MyProcPid;
            my_partition = candidate;
            break;
        }
    }
    LWLockRelease(s->partition_lock);

    /* (docs/faq.md and types.md quote the message.) */
    if (my_partition < 0)
        ereport(ERROR,
                (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                 errmsg("all %d id partitions of node %d are in use", ID_PARTITIONS, node_id),
                 errdetail("Each backend that generates sno or uuidv7 ids holds one id partition "
                           "until it exits."),
                 errhint("Use fewer concurrent connections that generate sno or uuidv7 ids, "
                         "e.g. through a connection pooler.")));
    return my_partition;
}

SnoGenerator *sno_claim_generator()
{
    KidShared *s = shared_for_generation("sno");
    /* Read the epoch before the floors: a rise after this is seen on the next id. */
    uint32 epoch = pg_atomic_read_u32(&s->floor_epoch);
    pg_read_barrier();
    /*
     * The first sno id, or the floors rose, or we are a standby checking
     * every id: the generator of our partition (claimed now if uuidv7 has
     * not claimed it already) above the floors as they are now.
     */
    if (sno_my_generator == nullptr)
        sno_my_generator = &id_partition(s, claim_id_partition(s))->sno;
    int64 sno_floor[2];
    current_sno_floors(s, sno_floor);
    sno_raise_floor(sno_my_generator, sno_floor);
    /* During recovery (kid.standby_generation) every id takes the checks again. */
    sno_my_floor_epoch = RecoveryInProgress() ? 1 : epoch;
    return sno_my_generator;
}

int backend_partition()
{
    return my_partition;
}

} // namespace kid::pg
