/*
 * lease.h - the lease: a persisted time no generated id has reached, per
 * lease line, kept in kid.lease and logged in the WAL.  Renewal, replay,
 * the floors after start-up and recovery, and the exact marks at a clean
 * shutdown are in lease.cpp; the file format in lease_file.cpp; the WAL
 * message that carries the marks, and its redo, in lease_wal.cpp (older
 * kids' custom records: lease_wal_legacy.cpp).
 */
#ifndef KID_PG_LEASE_H
#define KID_PG_LEASE_H

#include "pg/shared_state.h"

namespace kid::pg {

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

/*
 * A lease record of the WAL as lease_wal.cpp decoded it (the layout on the
 * wire is lease_wal.cpp's): per lease line, whether the record has it, its
 * mark and the setting word its scheme wrote (LeaseSetting::record), both
 * in the writer's terms, and the node field the writer's ids of the line
 * carry; and the writer's kid.node_id and clock.
 */
struct LeaseWalReplay {
    bool has_line[LEASE_LINES];
    int64 marks[LEASE_LINES];
    int64 settings[LEASE_LINES];
    int64 node_fields[LEASE_LINES];
    int64 written_at_us;
    int32 node_id;
};

/*
 * At start-up, in the postmaster, with the struct new and its generators
 * at zero: read kid.lease, set the lease's part of shared memory, and raise
 * every scheme's generator above its floor.
 */
void lease_start(KidShared *s);

/*
 * In the postmaster (or a single-user backend), after shared memory is set
 * up: at a clean shutdown, write the generators' exact high-water marks to
 * kid.lease (an on_shmem_exit callback).
 */
void lease_register_shutdown_write();

/*
 * The first generation after start-up or recovery: raise every generator
 * above the replayed marks (plus the promotion margin after archive
 * recovery), durably.  Sets floors_final.
 */
void lease_finalize_floors(KidShared *s);

/*
 * Raise the floors of the lines where want_us[line] is above them and not
 * below the time unit of the generators' newest id (0: leave the line), at
 * run time, as lease_finalize_floors does after recovery:
 * kid.lease and a WAL record first when the lease does not cover the new
 * floor yet, then the floors and the generators (id partitions through
 * floor_epoch).  For kid_adopt_database (database_mark.cpp).
 */
void lease_raise_floors(KidShared *s, const int64 want_us[LEASE_LINES]);

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

/*
 * Redo of the marks in the WAL (lease_wal.cpp calls it in the startup
 * process); `end_lsn` is the end of the message: every lease message
 * before it is reflected once it is replayed (the latest one carries every
 * line's mark, and marks only rise).
 */
void lease_replay(const LeaseWalReplay &rec, uint64 end_lsn);

/*
 * At a checkpoint record replayed at `at` (lease_wal.cpp's wrapper of the
 * XLOG redo, before core's redo runs): every lease message before it was
 * replayed with kid, so kid.lease records `at` as its position, ahead of
 * the restartpoint the record may become.
 */
void lease_replay_position(uint64 at);

/*
 * Once recovery has ended (a promotion, the end of a point-in-time
 * recovery): kid.lease records that a primary writes it now, on its
 * timeline (called by kid's partition launcher, which starts then).
 */
void lease_recovery_finished();

/*
 * Refuse generation (55000) while kid.lease may miss lease messages that
 * this server replayed without kid; `type_name` for the message.  An
 * atomic read on every id: the flag is set at start-up only, and cleared
 * once (lease.cpp, "Where the marks stand in the WAL").
 */
void lease_refuse_unverified(KidShared *s, const char *type_name);
inline void lease_check_verified(KidShared *s, const char *type_name)
{
    if (unlikely(pg_atomic_read_u32(&s->lease_unverified) != 0))
        lease_refuse_unverified(s, type_name);
}

/*
 * WAL-log the marks in a logical message and flush it (lease_wal.cpp);
 * returns false during recovery.
 */
bool lease_wal_log(const int64 marks[LEASE_LINES]);

/*
 * Install the redo of the marks (lease_wal.cpp): the wrapper of the logical
 * message redo, and the custom resource manager of older kids' records
 * (lease_wal_legacy.cpp) unless kid.wal_rmgr_id is 0.  From _PG_init while
 * preloading.
 */
void lease_wal_register();

} // namespace kid::pg

#endif
