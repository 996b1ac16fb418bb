/*
 * lease_file.h - the format of kid.lease, the lease's file in the data
 * directory (lease_file.cpp reads and writes it; lease.cpp decides what it
 * holds).
 */
#ifndef KID_PG_LEASE_FILE_H
#define KID_PG_LEASE_FILE_H

#include "pg/schemes.h"

namespace kid::pg {

extern const char LEASE_FILE[];

/*
 * The lease file, one line:
 *   kid lease 4 <own marks> <replayed marks> <margin pending> <exact>
 *               <koid epoch ms> <uid interval> <replayed uid interval> <uid_global guard>
 *               <uid interval the guard protects> <crc>
 * with the marks in LeaseLine order (sno tick 0, sno tick 1, atproto_tid,
 * koid, uid), in Unix microseconds, and <crc> the CRC-32C (eight lower-case
 * hexadecimal digits) of every byte before the blank ahead of it.  "Own"
 * marks are floors for what this server handed out (and the floors it
 * applied): every id of a line is at or below its mark, whose time unit
 * counts as used (a mark written ahead lies above every id; an exact mark
 * is the time of the newest one); "replayed" marks came from another
 * server's WAL.  <margin pending> is 1 when the replayed marks were written
 * during archive recovery and PROMOTION_MARGIN_US has not been added to
 * them yet.  <exact> is 1 when a clean shutdown wrote the own marks as the
 * generators' exact high-water marks, 0 when they were written ahead.
 *
 * <koid epoch ms> is the kid.koid_epoch_ms both koid marks are expressed
 * under: a koid holds milliseconds since the epoch, so what a koid mark
 * really bounds is mark / 1000 - epoch raw milliseconds.  A server started
 * with another epoch shifts both koid marks by the difference (lease_start),
 * which keeps that raw bound: moving the epoch later puts the koid floor
 * ahead of the clock by the move (koid_new waits, then refuses naming the
 * setting), moving it earlier lowers it (harmless: new koids are larger).
 *
 * <uid interval> is the kid.uid_interval the own uid mark was written
 * under, <replayed uid interval> that of the replayed one (0: none), and
 * <uid_global guard> the Unix microsecond before which uid_global_new()
 * refuses (0: none) because an interval change could repeat ids
 * (kid::uid_interval_change_guard_us), kept until the clock passes it, with
 * the interval of the ids it protects (for the error message).
 *
 * Two other forms are read, and rewritten at once in this one: version 3
 * (the same numbers without <crc>, written by kid 0.1.0), and "kid lease
 * floor <Unix microseconds>", which an operator writes by hand to replace a
 * damaged file (every own mark at that floor).
 */
struct LeaseFile {
    int64 own[LEASE_LINES];
    int64 replayed[LEASE_LINES];
    bool margin_pending;
    bool exact;
    int64 koid_epoch_ms;
    int32 uid_interval;
    int32 uid_replayed_interval;
    int64 uid_global_guard_us;
    int32 uid_guard_interval;
};

/*
 * Read the lease file; false (and zeros, with this server's settings) when
 * there is none.  Any other state kid cannot trust is FATAL (the server
 * does not start rather than start without floors): the file cannot be
 * opened or read, or is empty, cut short, too long, of another version,
 * fails its checksum or holds a number out of range.
 */
bool lease_read(LeaseFile *lf);

/*
 * Write the lease durably (write, fsync, rename, fsync the directory);
 * called with lease_lock held, or by the postmaster before anything runs.
 * A failure is reported at `elevel`; false when it was below ERROR.
 */
bool lease_write(const LeaseFile &lf, int elevel);

/* Whether the file holds any mark, own or replayed. */
bool lease_has_marks(const LeaseFile &lf);

} // namespace kid::pg

#endif
