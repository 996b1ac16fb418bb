/*
 * horizon.h - the commit horizon: for each generator, an id H such that no
 * id it made on this server in a transaction that has not ended yet, nor
 * any id it makes later, is below H (docs/horizon.md says what a consumer
 * does with it, and what it does not cover).
 *
 * How it holds, in short (horizon.cpp has the argument in full):
 *  - A backend that is about to make its first id of a scheme in a
 *    transaction first publishes, in its own slot of shared memory, a lower
 *    bound of every id it can still make (its "pending floor"), then makes
 *    the id.  The floor stays until the transaction ends (commit, abort, or
 *    the rollback of the subtransaction that set it); a prepared
 *    transaction hands it to a table keyed by its xid until COMMIT or
 *    ROLLBACK PREPARED.
 *  - A reader first takes a bound of every id made from now on (the
 *    server-wide state word for tid, koid and uid; for sno and uuidv7, whose
 *    state is per backend, its own clock reading, which it then imposes on
 *    every later id of the scheme as a floor), then reads every pending
 *    floor.  H is the least of them, never less than an H returned before
 *    (since start-up, and across restarts through the lease).
 * The per-id cost is one read of a line that only readers write (and, while
 * a clock step back under a reading is carried, the generators that carry);
 * the shared write happens once per transaction, to the backend's own line.
 */
#ifndef KID_PG_HORIZON_H
#define KID_PG_HORIZON_H

#include "pg/schemes.h"
#include "pg/shared_state.h"

namespace kid::pg {

/* From _PG_init while preloading: the transaction callback that clears a backend's pending floors. */
void horizon_register_callbacks();

/* The size of the prepared transactions' table (entries), and its initial state (shared_state.cpp). */
int horizon_prepared_capacity();
void horizon_init(KidShared *s);

/*
 * The horizon's key for `scheme` (see the top of horizon.cpp): no id of the
 * scheme that a transaction not yet committed made, nor any made later, is
 * below it.  ERROR (55000) on a standby, where generation is refused, and
 * while a transaction prepared before the start is open.  `function` names
 * the SQL function in messages.  Each scheme's <scheme>_safe_horizon()
 * returns the smallest id of its type at this key.
 */
uint64 horizon_compute(Scheme scheme, const char *function);

/*
 * A scheme with a server-wide state word (tid, koid, uid and uid_global,
 * which share uid's): before its first id in this transaction, publish its
 * pending floor, the key of the next id the word could give (its row's
 * next_key).  A read of a backend-local flag on every other call.
 */
void horizon_enter_counter(Scheme scheme, KidShared *s);

/*
 * A scheme whose generators are per backend (SchemeDef::per_backend: sno,
 * uuidv7): the same, then the Unix microsecond every id made now must be
 * at or above, given the clock's reading now_us: now_us itself, unless the
 * clock reads below the highest reading a reader imposed (it went back
 * since, or a restart started the horizon above it), or below a time any
 * backend of the server was given from it; then that reading carried
 * forward at half the pace of real time until the clock catches up with
 * it, so that the generator carries on above it instead of waiting for the
 * clock, and goes on with the clock without a drop.  Every backend carries
 * alike, one that takes a partition over in the middle of a carry too.
 * Costs two atomic reads per call while the clock is at or above both (of
 * the 128 bytes kid counts as a line: two hardware lines of 64 bytes).
 */
int64 horizon_clocked_time(Scheme scheme, int64 now_us);

/*
 * When generation begins after start-up or recovery (lease_finalize_floors,
 * with the generation floors set and nothing generated yet): each clocked
 * scheme's horizon starts from the floor of its horizon lease line, as if a
 * reader had just imposed it, so that no id of it goes below a horizon
 * returned before the restart, and none waits for a clock behind it.
 */
void horizon_generation_began(KidShared *s);

/* The highest clock reading a horizon imposed on a clocked scheme (0: none), for its lease line. */
int64 horizon_force_us(Scheme scheme);

} // namespace kid::pg

#endif
