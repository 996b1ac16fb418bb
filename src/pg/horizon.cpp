/*
 * horizon.cpp - the commit horizon (horizon.h): pending floors per backend,
 * their hand-over to prepared transactions, and the computation the
 * *_safe_horizon() functions of each scheme's file call.
 *
 * Keys.  A horizon is computed on a key that orders the ids one scheme
 * makes on this server as the type orders them: for a scheme with a
 * server-wide state word, its row's next_key (tid: the Unix microsecond,
 * one tid per microsecond per server; koid: the koid's integer; uid and
 * uid_global: the state word, 1.024 ms step << 14 | sequence), for sno and
 * uuidv7 the Unix microsecond, read on the clock.  Each scheme's function
 * returns the smallest id of its type at that key.
 *
 * Shared memory: the words of KidShared named horizon_*, the pending floors
 * in each backend's BackendSlot, the prepared transactions' table after
 * the slots (shared_state.h lays them out).
 *
 * Why no id below H can still appear.  For every scheme, a reader takes
 * B, a bound of every id made from now on, then (after a full barrier)
 * reads every pending floor P; a backend publishes its P (then a full
 * barrier) before it makes its first id of the transaction.  Take an id x
 * whose transaction had not committed when the reader computed H.  Either
 * its backend published P before the reader read the slot, and the reader
 * saw P <= x; or it published after, so x was made after the reader took
 * B, and x >= B:
 *   - tid, koid, uid: B is the key of the next id the server-wide state
 *     word can give; the word only grows, so every id made after B was
 *     read is at or above B, and a backend's P, taken from the word just
 *     before its first id, is at or below all of its ids.
 *   - sno and uuidv7 have no server-wide word (every backend owns a
 *     generator).  B is the highest clock reading of any reader, this one
 *     included (force_us), which the reader imposes on every later id of
 *     the scheme before it reads the floors: a generator takes the clock
 *     when it reads at or above the force (and at or above every time
 *     carried so far), else the force carried forward at half the pace of
 *     real time (horizon_clocked_time; never below the force).  A backend
 *     reads the force after publishing P = the force it read before (or
 *     the generation floor, below, when higher), so either the reader sees
 *     its P or the backend sees the raised force.  The scheme's horizon
 *     lease line covers the force first (written ahead, and exactly at a
 *     clean shutdown), so that it survives a restart.
 * Floors.  The generators start above the lease floors, and after
 * recovery above the replayed marks (lease_finalize_floors), before any id
 * is made: those floors (KidShared::generation_floor_us) are below every
 * id made since, so P may be raised to them.  A clocked scheme's force
 * starts at its horizon line's floor (horizon_generation_began), at or
 * above every force before the restart, and H is clamped to it.  Floors
 * raised later, while the server runs (kid_raise_floors,
 * kid_adopt_database), are not below every id: ids made before the raise,
 * in transactions still open in any database, are below them.  The
 * generators obey them all the same (the state words are raised, sno and
 * uuidv7 see floor_epoch move), and every key above is still read from
 * them.
 * A transaction's P stays until it ends, and is cleared after its commit
 * is visible (XACT_EVENT_COMMIT comes after ProcArrayEndTransaction): a
 * statement whose snapshot is taken after the reader computed H sees every
 * id below H that ever commits.  H is also never below an H returned
 * before: every id still to come was shown above that one when it was
 * returned, by the same argument.
 *
 * Across restarts: tid, koid and uid start above the lease floor, which is
 * above every id made before, so B after a restart is above every earlier
 * H; sno's and uuidv7's force starts at the floor of their horizon line,
 * which is above every force before the restart (and, after a promotion,
 * above the old primary's, replayed, plus the margin), and their ids carry
 * it forward while the clock reads below it.  Transactions
 * prepared before the start are the exception: kid does not know their
 * ids, so the functions refuse (55000) until they end.
 */
#include "pg/horizon.h"
#include "pg/lease.h"
#include "pg/schemes.h"

extern "C" {
#include "access/transam.h"
#include "access/twophase.h"
#include "access/parallel.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/procarray.h"
}

namespace kid::pg {
namespace {

/* This backend: which floors it published in the open transaction. */
bool published[SCHEME_COUNT];

/*
 * The slot of a process (proc_backend_slot), among the regular backends'
 * only: nullptr for one that never runs a transaction (an auxiliary
 * process, whose PGPROC comes after MaxBackends).
 */
BackendSlot *floors_of(PGPROC *proc)
{
    return proc_backend_slot(shared, proc, MaxBackends);
}

/*
 * Where this process publishes: its own slot, or for a parallel worker its
 * leader's, since the ids it makes belong to the leader's transaction
 * (tid_new, koid_new and the uid generators are PARALLEL SAFE) and the
 * worker ends before that transaction does.
 */
BackendSlot *publishing_floors()
{
    PGPROC *proc = IsParallelWorker() && MyProc->lockGroupLeader ? MyProc->lockGroupLeader : MyProc;
    BackendSlot *floors = floors_of(proc);
    if (!floors)
        elog(ERROR, "kid: process %d has no commit horizon slot", MyProcPid);
    return floors;
}

void publish(Scheme scheme, uint64 floor)
{
    /* Lower only: a leader and its workers may publish into one slot. */
    pg_atomic_uint64 *slot = &publishing_floors()->pending[scheme];
    uint64 cur = pg_atomic_read_u64(slot);
    while (floor < cur && !pg_atomic_compare_exchange_u64(slot, &cur, floor)) {
    }
    /* Before the id is made: the reader's argument needs this order. */
    pg_memory_barrier();
    published[scheme] = true;
}

/*
 * At the end of the transaction, after its commit is visible: the whole
 * slot, whatever this process's flags say (its parallel workers may have
 * published into it).  A worker leaves the slot to its leader.
 */
void clear_floors()
{
    for (auto &p : published)
        p = false;
    if (IsParallelWorker() || !shared)
        return;
    BackendSlot *mine = floors_of(MyProc);
    if (!mine)
        return;
    pg_memory_barrier();
    for (auto &p : mine->pending)
        if (pg_atomic_read_u64(&p) != NO_PENDING_FLOOR)
            pg_atomic_write_u64(&p, NO_PENDING_FLOOR);
}

/*
 * An entry of the prepared table to (re)use, under horizon_lock: an unused
 * one, else one whose transaction has ended; nullptr when every entry
 * holds an open transaction.
 */
PreparedFloors *free_prepared_entry(KidShared *s)
{
    PreparedFloors *table = prepared_floors(s);
    for (int i = 0; i < s->prepared_count; i++)
        if (!TransactionIdIsValid(table[i].xid))
            return &table[i];
    for (int i = 0; i < s->prepared_count; i++)
        if (!TransactionIdIsInProgress(table[i].xid))
            return &table[i];
    return nullptr;
}

/*
 * PREPARE TRANSACTION: the transaction outlives this backend, so its
 * floors go to the prepared table, keyed by its xid, before the backend
 * lets go of them (XACT_EVENT_PREPARE).  Every prepared transaction with an
 * xid gets an entry, with floors or without, so that one found at start-up
 * without an entry is known to be older than this start.  Entries whose
 * transaction has ended are reused.
 */
void enter_prepared()
{
    TransactionId xid = GetTopTransactionIdIfAny();
    KidShared *s = shared;
    if (!TransactionIdIsValid(xid) || s->prepared_count == 0)
        return;
    BackendSlot *mine = floors_of(MyProc);
    LWLockAcquire(s->horizon_lock, LW_EXCLUSIVE);
    PreparedFloors *entry = free_prepared_entry(s);
    if (!entry) {
        LWLockRelease(s->horizon_lock);
        ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                        errmsg("kid's table of prepared transactions is full (%d entries)",
                               s->prepared_count)));
    }
    entry->xid = xid;
    entry->legacy = false;
    for (int i = 0; i < SCHEME_COUNT; i++)
        entry->pending[i] = mine ? pg_atomic_read_u64(&mine->pending[i]) : NO_PENDING_FLOOR;
    LWLockRelease(s->horizon_lock);
}

void horizon_xact_callback(XactEvent event, void *) noexcept
{
    switch (event) {
    case XACT_EVENT_PRE_PREPARE:
        enter_prepared();
        break;
    case XACT_EVENT_COMMIT:
    case XACT_EVENT_ABORT:
    case XACT_EVENT_PREPARE:
    case XACT_EVENT_PARALLEL_COMMIT:
    case XACT_EVENT_PARALLEL_ABORT:
        clear_floors();
        break;
    default:
        break;
    }
}

/*
 * The prepared transactions that were there when the server started hold
 * ids kid cannot know (they were made before): enter them once, by asking
 * pg_prepared_xacts, as legacy entries.  Transactions prepared since the
 * start may have used every entry by then, so an entry whose transaction
 * has ended is taken as well as an unused one; with none (which the
 * capacity rules out) no horizon is returned rather than one above them.
 */
void enter_legacy_prepared()
{
    KidShared *s = shared;
    if (s->prepared_count == 0 || s->horizon_legacy_checked)
        return;
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "kid: SPI_connect failed");
    if (SPI_execute("SELECT transaction::text FROM pg_catalog.pg_prepared_xacts", true, 0) !=
        SPI_OK_SELECT)
        elog(ERROR, "kid: could not read pg_prepared_xacts");
    PreparedFloors *table = prepared_floors(s);
    LWLockAcquire(s->horizon_lock, LW_EXCLUSIVE);
    if (!s->horizon_legacy_checked) {
        for (uint64 row = 0; row < SPI_processed; row++) {
            char *text = SPI_getvalue(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, 1);
            TransactionId xid = static_cast<TransactionId>(strtoul(text, nullptr, 10));
            bool known = false;
            for (int i = 0; i < s->prepared_count && !known; i++)
                known = table[i].xid == xid;
            if (known)
                continue;
            PreparedFloors *free_entry = free_prepared_entry(s);
            if (!free_entry) {
                LWLockRelease(s->horizon_lock);
                ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                                errmsg("kid's table of prepared transactions is full (%d entries)",
                                       s->prepared_count),
                                errdetail("Transaction %u, prepared before the server started, "
                                          "could not be entered; no horizon is safe without it.",
                                          xid)));
            }
            free_entry->xid = xid;
            free_entry->legacy = true;
            for (auto &p : free_entry->pending)
                p = 0;
        }
        s->horizon_legacy_checked = true;
    }
    LWLockRelease(s->horizon_lock);
    SPI_finish();
}

/*
 * The least pending floor of `scheme` of the prepared transactions still
 * open, after the backends' (a transaction is first a backend's, then the
 * table's: reading in this order sees it in one place at least).  ERROR
 * while a transaction prepared before the start is open.
 */
uint64 prepared_floor(Scheme scheme, const char *function)
{
    KidShared *s = shared;
    if (s->prepared_count == 0)
        return NO_PENDING_FLOOR;
    uint64 least = NO_PENDING_FLOOR;
    TransactionId legacy = InvalidTransactionId;
    const PreparedFloors *table = prepared_floors(s);
    LWLockAcquire(s->horizon_lock, LW_SHARED);
    for (int i = 0; i < s->prepared_count; i++) {
        const PreparedFloors &e = table[i];
        if (!TransactionIdIsValid(e.xid) || !TransactionIdIsInProgress(e.xid))
            continue;
        if (e.legacy)
            legacy = e.xid;
        else if (e.pending[scheme] < least)
            least = e.pending[scheme];
    }
    LWLockRelease(s->horizon_lock);
    if (TransactionIdIsValid(legacy))
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("%s() cannot be computed while transaction %u, prepared before the "
                        "server started, is open",
                        function, legacy),
                 errdetail("kid does not know the ids a transaction prepared before the last "
                           "start made, so no horizon is safe until it ends."),
                 errhint("Finish it with COMMIT PREPARED or ROLLBACK PREPARED "
                         "(pg_prepared_xacts lists it).")));
    return least;
}

/*
 * The floor of a clocked scheme's horizon line when generation began after
 * start-up or recovery (KidShared::generation_floor_us): at or above every
 * horizon returned before, and the force started there
 * (horizon_generation_began), so every id made since is above it.  Not the
 * floor now: kid_raise_floors() and kid_adopt_database() raise floors at run
 * time above ids that open transactions, in any database, may still hold.
 */
uint64 horizon_generation_floor_us(KidShared *s, Scheme scheme)
{
    return static_cast<uint64>(s->generation_floor_us[SCHEMES[scheme].horizon_line]);
}

/*
 * The lowest floor of a scheme's generator lines when generation began:
 * every id its generators made since is above it (a lower bound of a
 * pending floor, never a clamp of the horizon: a line's floor says nothing
 * of the horizons returned before).
 */
uint64 ids_generation_floor_us(KidShared *s, Scheme scheme)
{
    return static_cast<uint64>(least_of_lines(SCHEMES[scheme], s->generation_floor_us));
}

/*
 * Impose `unix_us`, a reading (or the floor a horizon starts from), on
 * every later id of a clocked scheme.  The carry first: a generator that
 * sees the new force sees its carry too.
 */
void impose_reading(KidShared *s, Scheme scheme, int64 unix_us, int64 mono_us)
{
    atomic_raise(&s->horizon_force.force_carry[scheme],
                 kid::trusted_offset_word(kid::carry_key(unix_us, mono_us)));
    atomic_raise(&s->horizon_force.force_us[scheme], static_cast<uint64>(unix_us));
}

uint64 raise_returned(Scheme scheme, uint64 key)
{
    pg_atomic_uint64 *returned = &shared->horizon_returned[scheme];
    uint64 prev = pg_atomic_read_u64(returned);
    while (prev < key && !pg_atomic_compare_exchange_u64(returned, &prev, key)) {
    }
    return prev > key ? prev : key;
}

} // namespace

uint64 horizon_compute(Scheme scheme, const char *function)
{
    const SchemeDef &def = SCHEMES[scheme];
    if (RecoveryInProgress())
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("%s() cannot be computed on a standby", function),
                 errdetail("The horizon bounds the ids the primary's transactions make."),
                 errhint(
                     "Call it on the primary; read a standby only once it has replayed the "
                     "primary's WAL up to a position taken after the call (docs/horizon.md).")));
    /*
     * The floors of start-up or recovery are applied, and a server without
     * kid preloaded (no horizon either: both are set up together) or a
     * database it must not generate in refuses, as for generation.
     */
    KidShared *s = shared_for_generation(def.name);
    enter_legacy_prepared();

    uint64 bound;
    uint64 least_ever = 0;
    if (def.per_backend) {
        int64 now = now_unix_us();
        int64 mono = monotonic_us();
        /*
         * Covered by the scheme's horizon line before any id is made under
         * it, so that after a restart the horizon starts above it (and so
         * above every horizon returned before).
         */
        lease_cover(s, static_cast<LeaseLine>(def.horizon_line), now);
        impose_reading(s, scheme, now, mono);
        /*
         * A clock reading, never more: while the clock reads below an
         * earlier reading (it went back), the bound stays there, and the
         * generators carry on above it (horizon_clocked_time).
         */
        bound = pg_atomic_read_u64(&s->horizon_force.force_us[scheme]);
        least_ever = horizon_generation_floor_us(s, scheme);
    } else {
        bound = def.next_key(s);
    }
    pg_memory_barrier();
    uint64 least = bound;
    BackendSlot *slots = backend_slots(s);
    for (int i = 0; i < MaxBackends; i++) {
        uint64 p = pg_atomic_read_u64(&slots[i].pending[scheme]);
        if (p < least)
            least = p;
    }
    uint64 p = prepared_floor(scheme, function);
    if (p < least)
        least = p;
    if (least < least_ever)
        least = least_ever;
    return raise_returned(scheme, least);
}

int horizon_prepared_capacity()
{
    /* Prepared ones plus those being prepared (at most one per backend). */
    return max_prepared_xacts > 0 ? max_prepared_xacts + MaxBackends : 0;
}

void horizon_init(KidShared *s)
{
    for (auto &f : s->horizon_force.force_us)
        pg_atomic_init_u64(&f, 0);
    for (auto &f : s->horizon_force.force_carry)
        pg_atomic_init_u64(&f, 0);
    for (auto &c : s->horizon_force.carried_us)
        pg_atomic_init_u64(&c, 0);
    for (auto &r : s->horizon_returned)
        pg_atomic_init_u64(&r, 0);
    s->horizon_legacy_checked = false;
    s->prepared_count = horizon_prepared_capacity();
    PreparedFloors *table = prepared_floors(s);
    for (int i = 0; i < s->prepared_count; i++)
        table[i].xid = InvalidTransactionId;
}

void horizon_register_callbacks()
{
    /* In the postmaster: every backend inherits it. */
    RegisterXactCallback(pg_callback(horizon_xact_callback), nullptr);
}

void horizon_enter_counter(Scheme scheme, KidShared *s)
{
    if (published[scheme])
        return;
    publish(scheme, SCHEMES[scheme].next_key(s));
}

void horizon_generation_began(KidShared *s)
{
    for (int scheme = 0; scheme < SCHEME_COUNT; scheme++) {
        if (!SCHEMES[scheme].per_backend)
            continue;
        int64 floor = static_cast<int64>(
            horizon_generation_floor_us(s, static_cast<Scheme>(scheme)));
        if (floor <= 0)
            continue;
        impose_reading(s, static_cast<Scheme>(scheme), floor, monotonic_us());
    }
}

int64 horizon_force_us(Scheme scheme)
{
    return shared != nullptr
               ? static_cast<int64>(pg_atomic_read_u64(&shared->horizon_force.force_us[scheme]))
               : 0;
}

int64 horizon_clocked_time(Scheme scheme, int64 now_us)
{
    HorizonForce *f = &shared->horizon_force;
    /*
     * The pending floor: every id made from now on is at or above the force
     * and the floors generation began with.
     */
    if (!published[scheme]) {
        uint64 force = pg_atomic_read_u64(&f->force_us[scheme]);
        uint64 floor = ids_generation_floor_us(shared, scheme);
        publish(scheme, force > floor ? force : floor);
    }
    /*
     * Read after publishing (publish ends with a full barrier): see the top
     * of this file.  Then the carried time, on the same line: no barrier
     * between the two, as each word only grows and is checked for itself.
     * A backend raises carried_us (a compare-and-swap, a full barrier;
     * none when the word is already at or above, raised by another whose
     * compare-and-swap was one) before the time is returned, so before any
     * id holds it; a call that must be above that id (the same backend's next one,
     * the next owner's of its partition, whose claim the partition lock
     * orders after the last owner's exit, or any whose backend learned of
     * the id) reads the word after that raise, so at or above it.  Outside
     * a carry the line is only read: the fast path is two loads of a line
     * every core keeps, and no write.
     */
    int64 force = static_cast<int64>(pg_atomic_read_u64(&f->force_us[scheme]));
    int64 carried = static_cast<int64>(pg_atomic_read_u64(&f->carried_us[scheme]));
    if (likely(now_us >= force && now_us >= carried))
        return now_us;
    /*
     * The clock reads below a reading a horizon imposed (it went back, or
     * the horizon started above it after a restart), or below what some
     * backend of the server was given from it: carry the reading forward,
     * so that ids go on above it instead of piling into its time unit and
     * waiting for the clock.  At half the pace of real time
     * (src/core/trusted_time.h: the carry was raised before the force, and
     * this reads it after, so the carried time is at or above the force):
     * the clock, at its full pace, catches up with it after twice the step
     * back, and the generator goes on with the clock from there without a
     * drop.  (At the full pace the clock would never catch up; a carry that
     * stopped at the force would drop back by the step, below the ids just
     * made, and sno would wait.)
     *
     * Every backend that carries carries the same reading alike, and the
     * clock passes the force halfway through the carry: from then on the
     * clock is above the force but below the carry, so a backend that has
     * carried nothing yet (one that takes a partition over, or starts
     * generating, then) would take the clock, below the ids the others, the
     * partition's last owner among them, carried: sno would move to its
     * other timeline, and wait if that one is ahead too.  carried_us says
     * so: a backend whose clock reads below it carries, from the same key,
     * so at or above every time given out before (the key and
     * CLOCK_MONOTONIC only grow); and at or above the word itself, which
     * holds even if this backend does not see yet a key the raiser saw.
     * One word per scheme for the server, not the last owner's carried
     * time handed over with the partition (free per id, but it would
     * cover the partition's next owner only: a backend that starts on a
     * partition no one carried on would still go below every other
     * backend's ids, out of the time order sno and uuidv7 keep across
     * backends); and it stands for each backend's own record of what it
     * carried, which a shared word makes redundant.
     * The word is shared memory only: a restart starts it at 0, and the
     * generators above the lease floors, which cover every id made before
     * (and so every id made from a carried time).
     *
     * The key stays until a horizon reading replaces it: if, after a carry
     * ended with no reading since, the clock steps back to a time at or
     * above the force but below the word, the carry starts again from the
     * old key, which has gone on at half pace since: ahead of the word by
     * about half the time since that reading, never by more than the step
     * (docs/horizon.md, "A clock that goes back, floors that rise").
     */
    pg_read_barrier();
    int64 half = kid::carried_time(kid::trusted_offset_of_word(
                                       pg_atomic_read_u64(&f->force_carry[scheme])),
                                   monotonic_us());
    if (half < force)
        half = force;
    if (half < carried)
        half = carried;
    /*
     * The clock reads below the force or the word, so below half: the
     * carry ends on the fast path, once the clock passes the word.  A
     * compare-and-swap per id while carrying (the word rises with every
     * carried id), none once the clock has caught up: a carry lasts twice a
     * clock step back that went below a horizon's reading.
     */
    atomic_raise(&f->carried_us[scheme], static_cast<uint64>(half));
    return half;
}

} // namespace kid::pg
