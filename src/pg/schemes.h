/*
 * schemes.h - the generated schemes, described once.
 *
 * A row of SCHEMES says, for one scheme, everything that code working on
 * every scheme needs: its SQL name, its lease lines, the node field its ids
 * carry, how to raise its generator state above a floor, what its exact
 * high-water mark is, its statistics, and its newest id.  The start-up
 * floors, the floors after recovery, the exact marks at a clean shutdown,
 * kid_generator_stats() and kid_node_info() loop over the table; the state
 * word's layout stays in the scheme's core file (src/core/<scheme>.h),
 * whose accessors the rows call.  CONTRIBUTING.md, "Adding a scheme", says
 * which files a new scheme touches.
 */
#ifndef KID_PG_SCHEMES_H
#define KID_PG_SCHEMES_H

#include "pg/kid_pg.h"

namespace kid::pg {

/*
 * Lines of the lease: one per generated scheme, each in its own terms, so
 * that one scheme's volume or floor never moves another's.  sno has two (a
 * clock regression moves a generator to the other timeline, so each keeps
 * its own mark); uid and uid_global share one line because they share one
 * server-wide state word.  Marks are Unix microseconds; koid's are Unix
 * microseconds under the kid.koid_epoch_ms in force (the lease records that
 * epoch, and a mark written under another epoch is shifted on reading so
 * that it stands for the same raw koid milliseconds).  The lease file and
 * the WAL record hold the lines in this order: a new line is a new layout
 * version of both.
 */
enum LeaseLine { LEASE_SNO_TICK0, LEASE_SNO_TICK1, LEASE_TID, LEASE_KOID, LEASE_UID, LEASE_LINES };

/* The line names, as kid_lease() and the WAL record description show them. */
extern const char *const LEASE_LINE_NAMES[LEASE_LINES];

/* The server-wide generators, one shared state word each (KidShared::counters). */
enum CounterScheme { COUNTER_TID, COUNTER_KOID, COUNTER_UID, COUNTER_SCHEMES };

struct KidShared;

/* What a scheme's generator(s) did since start-up (kid_generator_stats). */
struct GeneratorStats {
    int64 generated;
    /* ids (koid: calls) made while the clock read below a reading seen before */
    int64 regressions;
    /* waits because the ids of the current time unit ran out (sno, koid, uid) */
    int64 overflow_waits;
    /* waits for a clock behind the generator's last id (sno, koid) */
    int64 clock_waits;
    /* waits because the next id would be too far ahead of the clock (tid) */
    int64 ahead_waits;
};

/* A scheme's newest id, for kid_node_info. */
struct NewestId {
    int64 end_us;  /* the end of its time unit, as the lease counts it */
    bool has_text; /* false where one state does not make one id (sno: a slot per backend) */
    char text[32]; /* its text form, NUL-terminated */
};

struct SchemeDef {
    const char *name;     /* the SQL type name */
    LeaseLine first_line; /* its lease lines: first_line .. first_line + lines - 1 */
    int lines;
    /* The node field it puts in each id: kid.node_id, the koid generator id, the uid node. */
    int64 (*node_field)();
    /*
     * Raise the generator state above floor_us (its own lines): a time at
     * or below a floor may have been handed out, and the time unit holding
     * the floor counts as used up.  sno raises the free slots; an owned
     * slot is raised by its owner on its next id (floor_epoch).
     */
    void (*raise_to_floor)(KidShared *s, const int64 floor_us[LEASE_LINES]);
    /*
     * Raise marks[line] of its lines to the start of the time unit of its
     * newest id (flooring there puts the generator back where it is).
     */
    void (*high_water)(KidShared *s, int64 marks[LEASE_LINES]);
    GeneratorStats (*stats)(KidShared *s);
    /* Its newest id; false when it made none since start-up. */
    bool (*newest)(KidShared *s, NewestId *out);
};

enum Scheme { SCHEME_SNO, SCHEME_TID, SCHEME_KOID, SCHEME_UID, SCHEME_COUNT };

extern const SchemeDef SCHEMES[SCHEME_COUNT];

} // namespace kid::pg

#endif
