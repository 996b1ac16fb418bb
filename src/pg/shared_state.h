/*
 * shared_state.h - kid's shared memory: the struct every backend sees (id
 * partitions, server-wide generators, lease marks and floors, the commit
 * horizon's words), the per-backend slots after it, the hooks that create
 * them, and admission: whether this server may generate now.
 */
#ifndef KID_PG_SHARED_STATE_H
#define KID_PG_SHARED_STATE_H

#include "pg/kid_pg.h"
#include "pg/schemes.h"
#include "pg/settings.h"
#include "core/sno.h"
#include "core/trusted_time.h"

#include <time.h>

extern "C" {
#include "port/atomics.h"
#include "storage/lwlock.h"
}

struct PGPROC;

namespace kid::pg {

/* The id partitions of this server (IdPartition): the partition field of sno and uuidv7 ids. */
constexpr int ID_PARTITIONS = 256;

/*
 * Cache lines.  On a many-core machine a line that several cores write
 * moves from core to core on every write, and one that a core writes while
 * others read it moves as often; a line written rarely stays in every
 * core's cache.  So what each id must write (a counter scheme's state word)
 * sits alone on its line, what is read on every id but written rarely (the
 * highest clock reading, the trusted time's anchor) on another, and what a
 * backend writes for itself (an id partition, its statistics) on lines of its
 * own.  PG_CACHE_LINE_SIZE is 128: two 64-byte lines, as x86's adjacent-line
 * prefetcher fetches them in pairs.  ShmemInitStruct returns memory aligned
 * to it.
 */
#define KID_LINE alignas(PG_CACHE_LINE_SIZE)

/* What a counter generator counts for kid_generator_stats (GeneratorStats). */
enum CounterStat {
    STAT_GENERATED,
    STAT_REGRESSIONS,
    STAT_OVERFLOW_WAITS,
    STAT_CLOCK_WAITS,
    STAT_AHEAD_WAITS,
    COUNTER_STATS
};

/*
 * One PGPROC's slot: what the process holding it writes for itself, on
 * lines of its own.  Only that process writes it.
 *  - counts: its statistics of the schemes with a server-wide generator
 *    (see count_stat), plain stores that kid_generator_stats sums.  A slot
 *    outlives its process: the next process on the same PGPROC continues
 *    its counts (PGPROCs are handed over under ProcStructLock, which orders
 *    the last owner's stores before the next owner's loads), so nothing has
 *    to be folded into a total at exit and the sums never go back.
 *  - pending: the commit horizon's pending floor of each scheme in its open
 *    transaction (NO_PENDING_FLOOR when none; horizon.cpp).
 */
struct KID_LINE BackendSlot {
    pg_atomic_uint64 counts[SCHEME_COUNT][COUNTER_STATS];
    /* Read by every horizon call: not on the lines the owner writes per id. */
    KID_LINE pg_atomic_uint64 pending[SCHEME_COUNT];
};

/* A pending floor's value while the backend has no id of the scheme in an open transaction. */
constexpr uint64 NO_PENDING_FLOOR = PG_UINT64_MAX;

/*
 * What the lease settings of koid and uid keep (schemes.cpp, their
 * LeaseSetting), in their generator.
 * koid: when kid.koid_epoch_ms differs from the epoch of the lease's koid
 * marks, the epoch they were written under (else -1), for the error
 * message; and the koid state word the floors set, to tell "no koid was
 * made above the floor" from "the last koid was made at".
 * uid: the first Unix microsecond at which a uid_global may be made under
 * the kid.uid_interval in force (0: any).  Set when the interval differs
 * from the one the lease's (or a replayed record's) uid mark was written
 * under: see kid::uid_interval_change_guard_us.  guard_interval is the
 * interval of the ids the guard protects (for the error message),
 * replayed_interval that of the last replayed record (0: none).  Written
 * under lease_lock or before anything runs.
 */
struct KoidLeaseState {
    int64 lease_epoch_ms;
    pg_atomic_uint64 floor_word;
};
struct UidLeaseState {
    pg_atomic_uint64 global_guard_us;
    int32 guard_interval;
    int32 replayed_interval;
};

/*
 * One server-wide generator.  state is its state word, advanced by
 * compare-and-swap (the layout is the scheme's, in src/core): the one
 * shared write per id the formats need, on a line of its own.
 *
 * clock_high_us is a clock reading some backend saw while generating, at
 * most CLOCK_HIGH_STEP_US below the highest one; a backend loads it before
 * it reads the clock, so a reading below it means the clock went back (no
 * other backend's later reading can be mistaken for one).  It is raised at
 * most once per CLOCK_HIGH_STEP_US, not on every id, so it is a read-mostly
 * line.  trusted_offset is the highest anchor of the generator's trusted
 * time (each reading that raised clock_high_us and every floor it was
 * raised to, less CLOCK_MONOTONIC then; see src/core/trusted_time.h): tid and uid ids stay
 * within a small allowance of the trusted time while the clock reads below
 * it.  It rises only when the system clock moves against CLOCK_MONOTONIC
 * (a step, or the first readings), so it shares clock_high_us's line.
 */
struct KID_LINE CounterGenerator {
    pg_atomic_uint64 state;
    KID_LINE pg_atomic_uint64 clock_high_us;
    pg_atomic_uint64 trusted_offset; /* kid::trusted_offset_word; 0: no anchor yet */
    /* The scheme's own lease state, read-mostly beside clock_high_us (uid_global reads it per id). */
    union {
        KoidLeaseState koid;
        UidLeaseState uid;
    } lease_state;
    /*
     * The next value <scheme>_new_with_time() takes (fetch-and-add, from any
     * backend), for the field of a backfill id below its time.  It starts
     * at a random 32-bit value at server start, so that a restart most
     * likely does not repeat the values the run before used; 64 bits, so
     * that it never wraps and consecutive values stay consecutive.  One
     * sequence for all times, not one per time unit: ids for one time are
     * distinct only among as many consecutive calls as the field has values
     * (a per-unit count would have to remember every unit a backfill
     * touched, or re-issue the values of a unit that comes back).  A line
     * of its own: backfills write it on every id, tid_new() never.
     */
    KID_LINE pg_atomic_uint64 backfill_sequence;
};

/* How far clock_high_us may lag the highest reading: regressions smaller than this across backends go uncounted. */
constexpr int64_t CLOCK_HIGH_STEP_US = 1000;

/* Raise an atomic word to at least `v` (compare-and-swap; never lowers it). */
inline void atomic_raise(pg_atomic_uint64 *word, uint64 v)
{
    uint64 cur = pg_atomic_read_u64(word);
    while (cur < v && !pg_atomic_compare_exchange_u64(word, &cur, v)) {
    }
}

/*
 * CLOCK_MONOTONIC in microseconds: the same clock in every process, never
 * stepped (settimeofday and NTP steps move CLOCK_REALTIME only).
 */
inline int64_t monotonic_us()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

/* Make `unix_us` (a floor the generator was raised to) an anchor of its trusted time. */
inline void trust_anchor(CounterGenerator *g, int64_t unix_us)
{
    atomic_raise(&g->trusted_offset,
                 kid::trusted_offset_word(kid::trusted_offset(unix_us, monotonic_us())));
}

/*
 * The slot of `proc`, or nullptr when proc is nullptr or its slot is not
 * among the first `count`: the one way to a process's slot.  Slots are
 * numbered as PostgreSQL numbers PGPROCs (GetNumberFromPGProc, their index
 * in ProcGlobal->allProcs): the regular backends first, 0 to MaxBackends -
 * 1 (every process that runs transactions), then the auxiliary processes,
 * then the dummies of prepared transactions.  count is MaxBackends where
 * only transactions write (the horizon's pending floors), backend_slot_count
 * where any process with a PGPROC may (count_stat).  A numbering off by
 * one fails 25-horizon_edges.py (test/server), which fills every regular
 * backend's PGPROC, the walsenders' included.
 */
BackendSlot *proc_backend_slot(KidShared *s, const PGPROC *proc, int count);

/* This backend's slot (count_stat, the horizon's pending floors); nullptr until first used. */
extern BackendSlot *my_backend_slot;
/* Whether my_backend_slot is the shared slot of processes without a PGPROC slot (atomic adds). */
extern bool my_backend_slot_shared;
BackendSlot *backend_slot();

/*
 * Count one event of a server-wide generator for kid_generator_stats: a
 * plain store to this backend's own line, no locked instruction, nothing
 * another core has to give up.
 */
inline void count_stat(Scheme scheme, CounterStat k)
{
    BackendSlot *b = likely(my_backend_slot != nullptr) ? my_backend_slot : backend_slot();
    pg_atomic_uint64 *w = &b->counts[scheme][k];
    if (unlikely(my_backend_slot_shared))
        pg_atomic_fetch_add_u64(w, 1);
    else
        pg_atomic_write_u64(w, pg_atomic_read_u64(w) + 1);
}

/* The highest clock reading this backend saw, per scheme (regressions it saw itself). */
extern int64_t my_clock_high_us[SCHEME_COUNT];

/*
 * Read the clock for a counter generator: sets *regressed when the reading
 * is below one this backend saw before, or below clock_high_us.  When the
 * reading is CLOCK_HIGH_STEP_US or more above clock_high_us it raises
 * clock_high_us to it and makes it an anchor of the trusted time (the one
 * CLOCK_MONOTONIC reading here, at most once per CLOCK_HIGH_STEP_US across
 * the server).  On most calls: one clock reading, no shared write.
 */
inline int64_t counter_clock(Scheme c, CounterGenerator *g, bool *regressed)
{
    uint64 high = pg_atomic_read_u64(&g->clock_high_us);
    /* The vDSO clock read is ordered after this load (rdtsc_ordered); keep the compiler from moving it. */
    pg_compiler_barrier();
    int64_t now = now_unix_us();
    *regressed = now < static_cast<int64_t>(high) || now < my_clock_high_us[c];
    if (now > my_clock_high_us[c])
        my_clock_high_us[c] = now;
    while (now - static_cast<int64_t>(high) >= CLOCK_HIGH_STEP_US) {
        if (pg_atomic_compare_exchange_u64(&g->clock_high_us, &high, static_cast<uint64>(now))) {
            /*
             * Between anchors the offset of a clock that was not stepped
             * stays as it was, so an anchor per CLOCK_HIGH_STEP_US keeps
             * the trusted time at the highest reading, carried forward.
             */
            atomic_raise(&g->trusted_offset,
                         kid::trusted_offset_word(kid::trusted_offset(now, monotonic_us())));
            break;
        }
    }
    return now;
}

/*
 * The trusted time of a counter generator now (src/core/trusted_time.h):
 * its highest anchor carried forward by CLOCK_MONOTONIC.  Needed only when
 * the clock reads below the generator's last id: a generator first tries
 * with the clock as the limit, and asks for this when that says wait.
 */
inline int64_t counter_trusted(CounterGenerator *g)
{
    return kid::trusted_time(kid::trusted_offset_of_word(pg_atomic_read_u64(&g->trusted_offset)),
                             monotonic_us());
}

/*
 * What uuidv7_new() of a partition's owner leaves there (src/pg/uuidv7.cpp):
 * the Unix millisecond of its last id, -1 before any, and the ids it made.
 * The owner keeps its generator in process memory and writes these when its
 * millisecond changes, not per id; the next owner starts above last_ms.
 */
struct Uuidv7PartitionState {
    int64 last_ms;
    uint64 generated;
    uint64 regressions;
    uint64 ahead_waits;
};

/*
 * One id partition: the partition field of the sno and uuidv7 ids of the
 * backend that holds it (id_partitions.h), handed from owner to owner with
 * the state that keeps a later owner above an earlier one's ids.  On lines
 * of its own: its owner writes sno's generator on every id, and backends
 * forked one after another take neighbouring partitions.
 */
struct KID_LINE IdPartition {
    int32 owner_pid; /* 0 when free */
    /*
     * The next sequence sno_new_with_time() hands out on this partition.
     * Like sno it survives from one owner to the next, so a later session
     * on the same partition continues where the last one stopped instead of
     * repeating its backfill ids; it starts at a random value at server
     * start (pg_strong_random), so a restart most likely does not restart
     * the same range.  Only the owner touches it.
     */
    uint16 sno_backfill_sequence;
    uint16 pad_;
    SnoGenerator sno; /* survives from one owner to the next */
    Uuidv7PartitionState uuidv7;
};

/*
 * The commit horizon's words (horizon.cpp), read on every id of a
 * per-backend scheme, so on a line of their own.  force_us is the highest
 * clock reading a reader imposed per scheme; force_carry the highest carry
 * key of those readings (kid::carry_key in src/core/trusted_time.h), which
 * carries the one whose carry is highest forward at half the pace of real
 * time while the clock reads below it; both are written by readers only.
 * carried_us is the highest time any backend's generator was given while
 * carrying (0: none since start-up), raised by the generators themselves,
 * and only while a carry lasts (after a clock step back under a reading,
 * or after a restart with the clock below the horizon's floor): a backend
 * whose clock reads below it carries too, whatever it did before, so that
 * one that takes a partition over, or starts, while others carry goes on
 * above their ids instead of below them.
 */
struct KID_LINE HorizonForce {
    pg_atomic_uint64 force_us[SCHEME_COUNT];
    pg_atomic_uint64 force_carry[SCHEME_COUNT]; /* kid::trusted_offset_word of the key; 0: none */
    pg_atomic_uint64 carried_us[SCHEME_COUNT];
};

/* The floors of a prepared transaction, until COMMIT or ROLLBACK PREPARED (horizon.cpp). */
struct PreparedFloors {
    TransactionId xid; /* InvalidTransactionId: a free entry */
    bool legacy;       /* prepared before this start-up: its ids are unknown */
    uint64 pending[SCHEME_COUNT];
};

/* No two of what different cores write on every id share a line. */
static_assert(sizeof(IdPartition) % PG_CACHE_LINE_SIZE == 0, "an id partition ends a line");
static_assert(offsetof(CounterGenerator, clock_high_us) >= PG_CACHE_LINE_SIZE,
              "a counter scheme's state word is alone on its line");
static_assert(sizeof(CounterGenerator) % PG_CACHE_LINE_SIZE == 0, "a counter scheme ends a line");
static_assert(sizeof(BackendSlot) % PG_CACHE_LINE_SIZE == 0, "a backend's slot ends a line");
static_assert(offsetof(BackendSlot, pending) % PG_CACHE_LINE_SIZE == 0 &&
                  offsetof(BackendSlot, pending) >= sizeof(BackendSlot::counts),
              "the pending floors are on a line the counts are not on");
static_assert(sizeof(HorizonForce) == PG_CACHE_LINE_SIZE, "the horizon's force is one line");

/* What the last replayed lease record said about the server that wrote it. */
struct ReplayedWriter {
    int64 written_at_us; /* the writer's clock */
    int32 node_id;       /* its kid.node_id; -1 until a record was replayed */
    /* Per lease line, the node field the writer's ids carry (SchemeDef::node_field); -1: none. */
    int64 node_fields[LEASE_LINES];
};

/*
 * Locks.  What is read or written on every id is atomics, without a lock
 * (the server-wide generators' state words, the floors, the lease marks,
 * the horizon's words, each backend's own slot and id partition).  Three
 * LWLocks of the tranche "kid" guard the rest:
 *  - lease_lock serialises every change of the lease: writing kid.lease and
 *    the WAL message (lease_write_ahead, under it from the file to the
 *    message), the replay of a lease message, and every raise of the
 *    floors (lease_finalize_floors after start-up or recovery,
 *    lease_raise_floors at run time), so that the file, the WAL and the
 *    floors in memory change in one order.  A generator takes it in
 *    lease_extend, when its next id is past what the lease covers
 *    (lease_cover), holding no other lock of kid's.
 *  - partition_lock guards the id partitions' owners (IdPartition's
 *    owner_pid) and the state a free partition keeps for its next owner.
 *    Exclusive to claim one (claim_id_partition, the one place where any
 *    scheme claims: sno and uuidv7 share the backend's partition) and to
 *    release it at backend exit (id_partitions.cpp), and to raise the
 *    generator state of the free partitions (sno_raise_free_partitions,
 *    uuidv7_raise_to_floor); shared to read what a partition hands over to
 *    its new owner (uuidv7.cpp).  An owner writes its partition's generator
 *    state without it: no other process writes an owned partition, and the
 *    lock orders the last owner's writes before the next owner's reads.
 *  - horizon_lock guards the table of prepared transactions' floors and
 *    the one check of transactions prepared before start-up (horizon.cpp).
 * Order: lease_lock, then partition_lock (a raise of the floors raises the
 * free partitions under both); never the other way round: no code that
 * holds partition_lock takes lease_lock.  lease_lock is taken in lease.cpp
 * only, which checks the order each time (check_lock_order), so that a path
 * breaking it fails on its first run.  horizon_lock is taken with
 * neither.  AddinShmemInitLock is taken once, at start-up, to create this
 * struct (shared_state.cpp).
 */
struct KidShared {
    LWLock *partition_lock; /* claiming and releasing id partitions */
    LWLock *lease_lock;     /* serialises lease file writes and replay */
    LWLock *horizon_lock;   /* the horizon's prepared table and its legacy check */
    /*
     * Ids up to (not including) lease_us[line] are covered by the lease file
     * (and, on a primary, by a flushed WAL record).  After a clean restart it
     * starts at the exact mark, the time of the newest id made before the
     * restart, so the first new id renews it.  The file also keeps the marks
     * replayed from WAL, replayed_us.
     */
    pg_atomic_uint64 lease_us[LEASE_LINES];
    pg_atomic_uint64 replayed_us[LEASE_LINES];
    /* The lease found at start-up: generators began above it. */
    int64 startup_floor_us[LEASE_LINES];
    /*
     * Whether the file's own marks are the exact high-water marks a clean
     * shutdown wrote (not marks written ahead): startup_exact as read at
     * start-up, own_exact until the first lease write that raises them.
     */
    bool startup_found; /* there was a kid.lease at start-up */
    bool startup_exact;
    bool own_exact;
    /*
     * Every generator is above floor_us.  It starts as the startup floor and
     * rises once when generation starts after recovery (to the replayed
     * marks, plus PROMOTION_MARGIN_US after archive recovery).  Each rise
     * adds 2 to floor_epoch; an sno backend compares the epoch it applied
     * with this one on every id.
     */
    pg_atomic_uint64 floor_us[LEASE_LINES];
    pg_atomic_uint32 floor_epoch;
    pg_atomic_uint32 floors_final; /* 1 once the post-recovery floors are applied */
    /*
     * floor_us as it was when generation began after start-up or recovery
     * (set with floors_final, then never moved): every id made since is at
     * or above it.  floor_us itself rises again at run time
     * (kid_raise_floors, kid_adopt_database), above ids that open
     * transactions may still hold, so the commit horizon bounds its
     * readings with this one (horizon.cpp).
     */
    int64 generation_floor_us[LEASE_LINES];
    bool archive_recovery; /* standby.signal or recovery.signal at start-up */
    /*
     * Where the marks stand in the WAL (lease.cpp, "Where the marks stand
     * in the WAL"), as kid.lease records it: its LeaseWalState, timeline,
     * position and backup label; under lease_lock.  lease_unverified is 1
     * while the marks may miss lease messages a server without kid
     * replayed: every generator refuses (lease_check_verified).
     */
    pg_atomic_uint32 lease_unverified;
    int wal_state;
    uint32 wal_tli;
    uint64 wal_lsn;
    uint64 wal_label;
    bool start_signal; /* standby.signal or recovery.signal at start-up (not a pending margin) */
    uint64 gap_from;   /* the WAL replayed without kid, for the refusal's detail */
    uint64 gap_to;
    /* The time of the first id since start-up, per line (the end of its unit); 0 until then. */
    int64 first_us[LEASE_LINES];
    ReplayedWriter replayed_writer;
    pg_atomic_uint64 lease_writes;     /* lease file writes */
    pg_atomic_uint64 lease_records;    /* WAL records written */
    pg_atomic_uint64 replayed_records; /* WAL records replayed */
    /*
     * The server-wide generators of the schemes that have one (tid, koid,
     * uid, which uid_global shares), indexed by scheme; the per-backend
     * schemes' entries are unused.
     */
    CounterGenerator counters[SCHEME_COUNT];
    IdPartition partitions[ID_PARTITIONS];
    HorizonForce horizon_force;
    /* The highest key a horizon returned per scheme since start-up (0: none; horizon.cpp). */
    pg_atomic_uint64 horizon_returned[SCHEME_COUNT];
    bool horizon_legacy_checked; /* the prepared transactions found at start-up are entered */
    /*
     * After the struct, in the same shared memory (backend_slots(),
     * prepared_floors()): one BackendSlot per PGPROC (backend_slot_count of
     * them, then one more that processes without a PGPROC slot share, with
     * atomic adds), then prepared_count PreparedFloors.
     */
    int backend_slot_count;
    int prepared_count;
};

/* The per-backend slots, after the struct (its size is a multiple of the line size). */
inline BackendSlot *backend_slots(KidShared *s)
{
    return reinterpret_cast<BackendSlot *>(s + 1);
}

/* The prepared transactions' floors, after the per-backend slots. */
inline PreparedFloors *prepared_floors(KidShared *s)
{
    return reinterpret_cast<PreparedFloors *>(backend_slots(s) + s->backend_slot_count + 1);
}

/* NULL unless kid was in shared_preload_libraries. */
extern KidShared *shared;

/* Called from _PG_init while preloading. */
void install_shmem_hooks();

/*
 * The shared state, for a generator about to run.  ERROR when kid was not
 * preloaded, on a standby unless kid.standby_generation allows it, or when
 * this database holds ids of another cluster it has not adopted
 * (database_mark.h).  The
 * first call after start-up or recovery applies the floors (lease.cpp).
 */
KidShared *shared_for_generation(const char *type_name);

/*
 * The next value of a counter scheme's backfill sequence (its
 * backfill_sequence, fetch-and-add), for <scheme>_new_with_time(): the
 * same checks as shared_for_generation.
 */
uint64 next_backfill_sequence(const char *type_name, Scheme scheme);

/* The HINT for a server started without kid: the list to write (its own, with kid appended). */
const char *preload_hint();

/* Why generation is refused here (this database included), or nullptr when it is allowed (for kid_node_info). */
const char *generation_refusal();

} // namespace kid::pg

#endif
