/*
 * shmem.h - kid's shared memory: sno partitions, server-wide counters and
 * the persisted high-water mark ("lease") of generated time.
 */
#ifndef KID_PG_SHMEM_H
#define KID_PG_SHMEM_H

#include "kid_pg.h"
#include "sno.h"

extern "C" {
#include "port/atomics.h"
#include "storage/lwlock.h"
}

namespace kid::pg {

/*
 * sno's 16-bit partition is node id (high byte) | backend slot (low byte),
 * so a server has 256 slots and a key space has 256 nodes.
 */
constexpr int NODE_ID_MAX = 255;
constexpr int SNO_SLOTS = 256;

/*
 * Lines of the lease: one per sno timeline (a clock regression moves a
 * generator to the other one, so each keeps its own mark) and one shared by
 * the counter-based generators.
 */
enum LeaseLine { LEASE_SNO_TICK0, LEASE_SNO_TICK1, LEASE_COUNTERS, LEASE_LINES };

/*
 * How far ahead of the newest generated time the lease is written.  The file
 * is rewritten (and fsync'ed) about once per this interval while ids are
 * generated, never once per id.
 */
constexpr int64_t LEASE_AHEAD_US = INT64_C(10000000);

struct SnoSlot {
    int32 owner_pid;     /* 0 when free */
    int32 pad_;
    SnoGenerator gen;    /* survives from one owner to the next */
};

struct KidShared {
    LWLock *slot_lock;   /* claiming and releasing sno slots */
    LWLock *lease_lock;  /* serialises lease file writes */
    /* Ids up to (not including) lease_us[line] are covered by the lease file. */
    pg_atomic_uint64 lease_us[LEASE_LINES];
    /* The lease found at start-up: generators begin above it. */
    int64 startup_floor_us[LEASE_LINES];
    pg_atomic_uint64 lease_writes;
    /* Server-wide generator states, advanced by compare-and-swap. */
    pg_atomic_uint64 tid_state;
    pg_atomic_uint64 koid_state;
    pg_atomic_uint64 uid_state;
    /* Counters of the server-wide generators, per scheme: see kid_generator_stats. */
    pg_atomic_uint64 counter_stats[3][4];
    SnoSlot slots[SNO_SLOTS];
};

/* Settings (kid.cpp). */
extern int node_id;
extern bool standby_generation;
extern double koid_epoch_ms;
extern int koid_generator_id;
extern bool koid_overflow_error;
extern int koid_max_clock_wait_ms;
extern int uid_interval;
extern uint32 uid_node;

/* NULL unless kid was in shared_preload_libraries. */
extern KidShared *shared;

/* Called from _PG_init while preloading. */
void install_shmem_hooks();

/*
 * The shared state, for a generator about to run.  ERROR when kid was not
 * preloaded, or on a standby unless kid.standby_generation allows it.
 */
KidShared *shared_for_generation(const char *type_name);

SnoGenerator *sno_claim_generator();
extern SnoGenerator *sno_my_generator;

/*
 * This backend's sno generator; claims a slot on first use (ERROR when kid
 * is not preloaded, on a standby, or when none is free).  Once claimed, the
 * checks hold for the backend's life: a standby can be promoted to a
 * primary but a primary never turns into a standby, so a backend that
 * passed the standby check once passes it forever.
 */
inline SnoGenerator *sno_backend_generator()
{
    if (likely(sno_my_generator != nullptr))
        return sno_my_generator;
    return sno_claim_generator();
}

/* The slot this backend owns, or -1. */
int sno_backend_slot();

/*
 * Make sure the lease file covers `unix_us` on `line` before an id of that
 * time is handed out.  An atomic read and a compare, except about once per
 * LEASE_AHEAD_US when the file is rewritten.
 */
void lease_extend(KidShared *s, LeaseLine line, int64_t unix_us);

inline void lease_cover(KidShared *s, LeaseLine line, int64_t unix_us)
{
    if (static_cast<int64_t>(pg_atomic_read_u64(&s->lease_us[line])) <= unix_us)
        lease_extend(s, line, unix_us);
}

} // namespace kid::pg

#endif
