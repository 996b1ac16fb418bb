/*
 * id_partitions.h - the 256 id partitions of this server: each backend that
 * generates sno or uuidv7 ids claims one (the ids' partition field: node id
 * << 8 | partition for sno, the partition byte of a version 7 uuid) and
 * holds it until it exits; sno's generator state and uuidv7's last
 * millisecond pass to the next owner (IdPartition).  Claiming, release and
 * sno's floors are in id_partitions.cpp.
 *
 * One backend, one partition, for every scheme that carries one: a scheme
 * claims through claim_id_partition() and reaches the slot through
 * id_partition(), so that two schemes of one backend can never hold two
 * partitions, nor a scheme take a partition another backend's scheme holds.
 */
#ifndef KID_PG_ID_PARTITIONS_H
#define KID_PG_ID_PARTITIONS_H

#include "pg/database_mark.h"
#include "pg/shared_state.h"

namespace kid::pg {

/* At start-up: every partition free, its generators new, its backfill sequence random. */
void id_partitions_init(KidShared *s);

/* Raise one sno generator above the sno floors (floor_us[0], [1]: tick 0 and 1). */
void sno_raise_floor(SnoGenerator *g, const int64 floor_us[2]);

/* Raise the sno generators of the free partitions above the sno floors (owned ones: by their owner, on its next id). */
void sno_raise_free_partitions(KidShared *s, const int64 floor_us[2]);

/*
 * The number of the partition this backend holds, claimed on the first call
 * (under partition_lock; released at exit): ERROR when none is free.  The
 * caller has passed shared_for_generation.  Every scheme whose ids carry
 * the partition claims it here, and none other takes partition_lock to
 * claim.
 */
int claim_id_partition(KidShared *s);

/* Partition n's slot (0 <= n < ID_PARTITIONS): the one way into KidShared::partitions by number. */
inline IdPartition *id_partition(KidShared *s, int n)
{
    Assert(n >= 0 && n < ID_PARTITIONS);
    return &s->partitions[n];
}

SnoGenerator *sno_claim_generator();
extern SnoGenerator *sno_my_generator;
/* The floor_epoch this backend's generator was floored at; odd: check on every id. */
extern uint32 sno_my_floor_epoch;
/*
 * The partition uuidv7_new() started its generator on (the backend's
 * claim), -1 before: uuidv7's copy of the claim for its per-id path,
 * cleared with the claim when the partition is released, as sno's is.
 */
extern int uuidv7_my_partition;

/*
 * This backend's sno generator; claims a partition on first use (ERROR when kid
 * is not preloaded, on a standby, or when none is free).  Once claimed, the
 * checks hold for the backend's life: a standby can be promoted to a
 * primary but a primary never turns into a standby, so a backend that
 * passed the standby check once passes it forever.  When the floors rose
 * (after recovery), the slow path raises this generator above them first;
 * it also reads the database's mark again once kid_database_origin changed
 * (database_mark.h).
 */
inline SnoGenerator *sno_backend_generator()
{
    if (likely(sno_my_generator != nullptr && database_mark_ok &&
               sno_my_floor_epoch == pg_atomic_read_u32(&shared->floor_epoch)))
        return sno_my_generator;
    return sno_claim_generator();
}

/* The partition this backend owns, or -1. */
int backend_partition();

} // namespace kid::pg

#endif
