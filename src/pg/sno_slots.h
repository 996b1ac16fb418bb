/*
 * sno_slots.h - the 256 sno partitions of this server: each backend that
 * generates sno ids claims one slot (partition = node id << 8 | slot) and
 * holds it until it exits; the slot's generator state passes to the next
 * owner.  Claiming, release and floors are in sno_slots.cpp.
 */
#ifndef KID_PG_SNO_SLOTS_H
#define KID_PG_SNO_SLOTS_H

#include "pg/database_mark.h"
#include "pg/shared_state.h"

namespace kid::pg {

/* At start-up: every slot free, its generator new, its backfill sequence random. */
void sno_slots_init(KidShared *s);

/* Raise one sno generator above the sno floors (floor_us[0], [1]: tick 0 and 1). */
void sno_raise_floor(SnoGenerator *g, const int64 floor_us[2]);

/* Raise the free slots above the sno floors (owned ones: by their owner, on its next id). */
void sno_raise_free_slots(KidShared *s, const int64 floor_us[2]);

SnoGenerator *sno_claim_generator();
extern SnoGenerator *sno_my_generator;
/* The floor_epoch this backend's generator was floored at; odd: check on every id. */
extern uint32 sno_my_floor_epoch;

/*
 * This backend's sno generator; claims a slot on first use (ERROR when kid
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

/* The slot this backend owns, or -1. */
int sno_backend_slot();

} // namespace kid::pg

#endif
