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
 * Lines of the lease: one per generated scheme, each in its own terms, so
 * that one scheme's volume or floor never moves another's.  sno has two (a
 * clock regression moves a generator to the other timeline, so each keeps
 * its own mark); uid and uid_global share one line because they share one
 * server-wide state word.  Marks are Unix microseconds; koid's are Unix
 * microseconds under the kid.koid_epoch_ms in force (the lease records that
 * epoch, and a mark written under another epoch is shifted on reading so
 * that it stands for the same raw koid milliseconds: see lease_read).
 */
enum LeaseLine { LEASE_SNO_TICK0, LEASE_SNO_TICK1, LEASE_TID, LEASE_KOID, LEASE_UID, LEASE_LINES };

/* The line names, as kid_lease() and the WAL record description show them (SQL type names). */
extern const char *const LEASE_LINE_NAMES[LEASE_LINES];

/* The server-wide (counter) generators. */
enum CounterScheme { COUNTER_TID, COUNTER_KOID, COUNTER_UID, COUNTER_SCHEMES };

/* Their SQL type names, as kid_generator_stats() and error messages use them. */
extern const char *const COUNTER_SCHEME_NAMES[COUNTER_SCHEMES];

/* What a counter generator did since start-up (kid_generator_stats). */
struct CounterStats {
    pg_atomic_uint64 generated;
    /* calls that read the clock below a reading an earlier call had seen: a clock that went back */
    pg_atomic_uint64 regressions;
    /* waits because the ids of the current time unit ran out (koid, uid) */
    pg_atomic_uint64 overflow_waits;
    /* waits for a clock behind the generator's last id (koid) */
    pg_atomic_uint64 clock_waits;
    /* waits because the next id would be too far ahead of the clock (tid) */
    pg_atomic_uint64 ahead_waits;
};

/*
 * One server-wide generator: its state word, advanced by compare-and-swap,
 * and the highest clock reading any backend saw while generating with it.
 * A backend loads clock_high_us before it reads the clock, so a reading
 * below it means the clock went back (no other backend's later reading can
 * be mistaken for one); tid also uses it as the trusted time that bounds
 * how far ahead of the clock volume may push its ids.
 */
struct CounterGenerator {
    pg_atomic_uint64 state;
    pg_atomic_uint64 clock_high_us;
    CounterStats stats;
};

/*
 * Read the clock for a counter generator: raises clock_high_us, and sets
 * *regressed when the reading is below what a call before this one saw.
 */
inline int64_t counter_clock(CounterGenerator *g, int64_t *high_out, bool *regressed)
{
    uint64 high = pg_atomic_read_u64(&g->clock_high_us);
    *high_out = static_cast<int64_t>(high);
    /* The vDSO clock read is ordered after this load (rdtsc_ordered); keep the compiler from moving it. */
    pg_compiler_barrier();
    int64_t now = now_unix_us();
    *regressed = now < static_cast<int64_t>(high);
    if (now > static_cast<int64_t>(high)) {
        while (!pg_atomic_compare_exchange_u64(&g->clock_high_us, &high, static_cast<uint64>(now)) &&
               static_cast<int64_t>(high) < now) {
        }
    }
    return now;
}

/*
 * How far ahead of the newest generated time the lease is written, and how
 * early it is renewed: once an id comes within LEASE_RENEW_US of the mark,
 * the mark moves to LEASE_AHEAD_US past that id.  So the file is rewritten
 * (and fsync'ed, and the WAL record flushed) about once per
 * LEASE_AHEAD_US - LEASE_RENEW_US while ids are generated, never per id, and
 * every mark reaches the WAL about LEASE_RENEW_US before the first id that
 * needs it, which gives a streaming standby that much time to receive it.
 */
constexpr int64_t LEASE_AHEAD_US = INT64_C(10000000);
constexpr int64_t LEASE_RENEW_US = INT64_C(5000000);

/*
 * After archive recovery (a promoted standby, a point-in-time restore) the
 * replayed marks are raised by this much before generation starts: it
 * covers lease records the old primary flushed but the standby had not
 * received when the primary stopped, as long as the standby was less than
 * LEASE_RENEW_US + PROMOTION_MARGIN_US behind.
 */
constexpr int64_t PROMOTION_MARGIN_US = INT64_C(10000000);

struct SnoSlot {
    int32 owner_pid;     /* 0 when free */
    /*
     * The next sequence sno_new_with_time() hands out on this partition.
     * Like gen it survives from one owner to the next, so a later session
     * on the same partition continues where the last one stopped instead of
     * repeating its backfill ids; it starts at a random value at server
     * start (pg_strong_random), so a restart most likely does not restart
     * the same range.  Only the owner touches it.
     */
    uint16 backfill_sequence;
    uint16 pad_;
    SnoGenerator gen;    /* survives from one owner to the next */
};

/* What the last replayed lease record said about the server that wrote it. */
struct ReplayedWriter {
    int64 written_at_us; /* the writer's clock */
    int32 node_id;       /* -1 until a record was replayed */
    int32 koid_generator_id;
    uint32 uid_node;
    int32 uid_interval;
    int64 koid_epoch_ms;
};

struct KidShared {
    LWLock *slot_lock;   /* claiming and releasing sno slots */
    LWLock *lease_lock;  /* serialises lease file writes and replay */
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
    bool archive_recovery;         /* standby.signal or recovery.signal at start-up */
    /* The time of the first id since start-up, per line (the end of its unit); 0 until then. */
    int64 first_us[LEASE_LINES];
    ReplayedWriter replayed_writer;
    pg_atomic_uint64 lease_writes;     /* lease file writes */
    pg_atomic_uint64 lease_records;    /* WAL records written */
    pg_atomic_uint64 replayed_records; /* WAL records replayed */
    /* The server-wide generators: tid, koid, uid (shared by uid and uid_global). */
    CounterGenerator counters[COUNTER_SCHEMES];
    /*
     * koid: when kid.koid_epoch_ms differs from the epoch of the lease's
     * koid marks, the epoch they were written under (else -1), for the
     * error message; and the koid state word the floors set, to tell "no
     * koid was made above the floor" from "the last koid was made at".
     */
    int64 koid_lease_epoch_ms;
    pg_atomic_uint64 koid_floor_word;
    /*
     * uid_global: the first Unix microsecond at which a uid_global may be
     * made under the kid.uid_interval in force (0: any).  Set when the
     * interval differs from the one the lease's (or a replayed record's)
     * uid mark was written under: see kid::uid_interval_change_guard_us.
     * uid_guard_interval is the interval of the ids the guard protects (for
     * the error message), uid_replayed_interval that of the last replayed
     * record (0: none).  Written under lease_lock or before anything runs.
     */
    pg_atomic_uint64 uid_global_guard_us;
    int32 uid_guard_interval;
    int32 uid_replayed_interval;
    SnoSlot slots[SNO_SLOTS];
};

/*
 * The lease record in the WAL (lease_wal.cpp); trivially copyable.  Its
 * marks are in the writer's terms: the koid mark under koid_epoch_ms, the
 * uid mark with uid_interval.  A record of another version stops replay.
 */
struct LeaseWalRecord {
    int64 marks[LEASE_LINES];
    int64 written_at_us;
    int64 koid_epoch_ms;
    int32 node_id;
    int32 koid_generator_id;
    uint32 uid_node;
    int32 uid_interval;
    uint32 version;
    uint32 pad_;
};
constexpr uint32 LEASE_WAL_VERSION = 2;

/* Settings (kid.cpp). */
extern int node_id;
extern bool standby_generation;
extern double koid_epoch_ms;
extern int koid_generator_id;
extern bool koid_overflow_error;
extern int koid_max_clock_wait_ms;
extern int uid_interval;
extern uint32 uid_node;
extern int wal_rmgr_id;

/* kid.koid_epoch_ms as whole milliseconds. */
inline int64 koid_epoch_whole_ms()
{
    return static_cast<int64>(koid_epoch_ms);
}

/* The koid generator id in use: kid.koid_generator_id, or kid.node_id. */
inline int effective_koid_generator_id()
{
    return koid_generator_id >= 0 ? koid_generator_id : node_id;
}

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
/* The floor_epoch this backend's generator was floored at; odd: check on every id. */
extern uint32 sno_my_floor_epoch;

/*
 * This backend's sno generator; claims a slot on first use (ERROR when kid
 * is not preloaded, on a standby, or when none is free).  Once claimed, the
 * checks hold for the backend's life: a standby can be promoted to a
 * primary but a primary never turns into a standby, so a backend that
 * passed the standby check once passes it forever.  When the floors rose
 * (after recovery), the slow path raises this generator above them first.
 */
inline SnoGenerator *sno_backend_generator()
{
    if (likely(sno_my_generator != nullptr &&
               sno_my_floor_epoch == pg_atomic_read_u32(&shared->floor_epoch)))
        return sno_my_generator;
    return sno_claim_generator();
}

/* The slot this backend owns, or -1. */
int sno_backend_slot();

/*
 * Make sure the lease covers `unix_us` on `line` before an id of that time
 * is handed out, and renew it when the id comes within LEASE_RENEW_US of
 * the mark.  An atomic read and a compare, except about once per
 * LEASE_AHEAD_US - LEASE_RENEW_US when the file and a WAL record are written.
 */
void lease_extend(KidShared *s, LeaseLine line, int64_t unix_us);

inline void lease_cover(KidShared *s, LeaseLine line, int64_t unix_us)
{
    if (static_cast<int64_t>(pg_atomic_read_u64(&s->lease_us[line])) <= unix_us + LEASE_RENEW_US)
        lease_extend(s, line, unix_us);
}

/* Redo of a lease record (lease_wal.cpp calls it in the startup process). */
void lease_replay(const LeaseWalRecord &rec);

/* WAL-log the marks and flush the record (lease_wal.cpp); returns false during recovery. */
bool lease_wal_log(const int64 marks[LEASE_LINES]);

/* Register the WAL resource manager (lease_wal.cpp); from _PG_init while preloading. */
void lease_wal_register();

/* Why generation is refused here, or nullptr when it is allowed (for kid_node_info). */
const char *generation_refusal();

} // namespace kid::pg

#endif
