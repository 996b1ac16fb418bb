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
 * The lease file, one line of blank-separated words:
 *   kid lease 5 <margin pending> <exact> <wal state> <timeline> <lsn> <label>
 *       <line> ... <crc>
 * where each <line> is
 *   <name> <own mark> <replayed mark> <setting words>
 * with <name> the line's name (lease_line_name, "_" for each blank), the
 * marks in Unix microseconds, as many setting words as the line's scheme
 * writes (its LeaseSetting; none for a scheme without one), and <crc> the
 * CRC-32C (eight lower-case hexadecimal digits) of every byte before the
 * blank ahead of it.  "Own" marks are floors for what this server handed
 * out (and the floors it applied): every id of a line is at or below its
 * mark, whose time unit counts as used (a mark written ahead lies above
 * every id; an exact mark is the time of the newest one); "replayed" marks
 * came from another server's WAL.  <margin pending> is 1 when the replayed
 * marks were written during archive recovery and PROMOTION_MARGIN_US has
 * not been added to them yet.  <exact> is 1 when a clean shutdown wrote the
 * own marks as the generators' exact high-water marks, 0 when they were
 * written ahead.
 *
 * <wal state>, <timeline>, <lsn> and <label> say how far the marks
 * reflect the lease messages of the WAL history this data directory has
 * (LeaseWalState; lease.cpp, "Where the marks stand in the WAL"): <lsn> is
 * a position before which every lease message is reflected, <timeline>
 * the timeline a primary wrote the file on, and <label> the START WAL
 * LOCATION of the backup_label this data directory was restored from (0
 * when none), all as decimal numbers.
 *
 * The lines come in any order; a name this kid does not know, or one given
 * twice, is damage (a later kid's line cannot be dropped).  A line this kid
 * knows and the file lacks was added to kid after the file was written: it
 * starts at the file's highest own and replayed marks (safe whatever ids
 * of it there are), under this server's settings.
 *
 * Three other forms are read, and rewritten in this one: version 4 (kid
 * 0.2.0 before the WAL position: the same without its four words),
 * version 3 (kid 0.1.0: the five own marks, the five replayed marks, the
 * two flags, koid's one setting word and uid's four, without <crc>), and
 * "kid lease floor <Unix microseconds>", which an operator writes by hand
 * to replace a damaged file (every own mark at that floor).  None of them
 * has a position: their state is LeaseWalState::unknown.
 */
enum class LeaseWalState : int {
    /* The marks may miss lease messages a server without kid replayed: generation refuses. */
    unverified = 0,
    /* Written by a primary on <timeline>, restored from <label>: every message it wrote is reflected. */
    primary = 1,
    /* Written in recovery: every lease message before <lsn> is reflected. */
    replica = 2,
    /* An older kid's file, or one written by hand: taken as it is (never written). */
    unknown = 3,
};

struct LeaseFile {
    int64 own[LEASE_LINES];
    int64 replayed[LEASE_LINES];
    bool margin_pending;
    bool exact;
    LeaseWalState wal_state;
    uint32 wal_tli;
    uint64 wal_lsn;
    uint64 wal_label;
    /* Whether the file had the line, with its scheme's setting words (LeaseSetting). */
    bool has_line[LEASE_LINES];
    int64 words[LEASE_LINES][LEASE_WORDS_MAX];
};

/*
 * Read the lease file; false (and zeros, no line) when there is none.  Any other state kid cannot trust is FATAL (the server
 * does not start rather than start without floors): the file cannot be
 * opened or read, or is empty, cut short, too long, of another version,
 * fails its checksum, holds a number out of range, a line it does not know
 * or setting words its scheme's check refuses.
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
