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
 * server-wide state word.  A scheme whose generators are per backend (sno,
 * uuidv7) has one more, its commit horizon's: the highest clock reading a
 * horizon imposed on its ids, which no id of it may go below after a
 * restart either (horizon.cpp).  Marks are Unix microseconds; a scheme whose
 * marks depend on a setting (koid's epoch, uid's interval) records it with
 * them and translates marks written under another (its LeaseSetting).
 * kid.lease and the WAL record name every line (its scheme's row names
 * it), so a new line is a new enum value here and its row of SCHEMES, not a
 * new layout of either.
 */
enum LeaseLine {
    LEASE_SNO_TICK0,
    LEASE_SNO_TICK1,
    LEASE_TID,
    LEASE_KOID,
    LEASE_UID,
    LEASE_UUIDV7,
    LEASE_SNO_HORIZON,
    LEASE_UUIDV7_HORIZON,
    LEASE_LINES
};

/* The most lease lines one scheme has (sno: two). */
constexpr int SCHEME_LINES_MAX = 2;

/*
 * The longest line name (SchemeDef::line_names): a lower-case letter, then
 * lower-case letters, digits, "_" and blanks, no two alike once blanks are
 * "_" (lease_start checks).
 */
constexpr int LEASE_LINE_NAME_MAX = 15;

/* The most setting words a lease line carries in kid.lease (LeaseSetting::words). */
constexpr int LEASE_WORDS_MAX = 4;

/*
 * The highest mark (or time in a setting word) kid.lease may hold: far
 * past any real clock (year 148,000), low enough that adding the margins
 * to it cannot overflow.
 */
constexpr int64 LEASE_MARK_MAX = INT64CONST(1) << 62;

/*
 * The generated schemes: the one name by which code refers to a scheme, its
 * row of SCHEMES, its server-wide generator (KidShared::counters, for the
 * schemes that have one) and its statistics.
 */
enum Scheme { SCHEME_SNO, SCHEME_TID, SCHEME_KOID, SCHEME_UID, SCHEME_UUIDV7, SCHEME_COUNT };

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

/*
 * A scheme's lease setting: what its lines carry in kid.lease and the WAL
 * record besides their marks, because the marks mean something only under
 * a setting (koid: kid.koid_epoch_ms; uid: kid.uid_interval), and what
 * follows when that setting changed.  The lease stores the words and calls
 * these hooks for each of the scheme's lines; it never reads the words.
 */
struct LeaseSetting {
    /* How many words each line carries in kid.lease: 1 to LEASE_WORDS_MAX. */
    int words;
    /*
     * The words kid.lease records for `line` now: the settings its marks
     * are under (always this server's: marks are translated as they come
     * in), and any state the scheme keeps across restarts.  With lease_lock
     * held, or in the postmaster before anything runs.
     */
    void (*save)(KidShared *s, LeaseLine line, int64 words[]);
    /*
     * Whether words read from kid.lease can be trusted: nullptr when they
     * can, else what is wrong with them (kid.lease is then damaged: FATAL).
     */
    const char *(*check)(const int64 words[]);
    /*
     * At start-up, in the postmaster: bring the marks read from kid.lease,
     * written under `words`, to this server's settings, and set the
     * scheme's shared state (and log what changed).  words is nullptr when
     * the file has none for the line (no file, a floor written by hand, a
     * file written before the line existed): the marks are then under this
     * server's settings.
     */
    void (*load)(KidShared *s, LeaseLine line, const int64 *words, int64 *own, int64 *replayed);
    /* The word a WAL record carries for `line`: the setting its mark is under. */
    int64 (*record)(LeaseLine line);
    /*
     * Replay (the startup process, lease_lock held): bring *mark, written
     * under the record's `word`, to this server's settings, and update the
     * scheme's shared state.  True when what save() writes changed, so that
     * kid.lease must be rewritten.
     */
    bool (*replay)(KidShared *s, LeaseLine line, int64 word, int64 *mark);
};

struct SchemeDef {
    Scheme scheme;        /* its index in SCHEMES (lease_start checks) */
    const char *name;     /* the SQL type name */
    LeaseLine first_line; /* its generators' lease lines: first_line .. first_line + lines - 1 */
    int lines;
    /* Their names, as kid_lease(), kid.lease (blanks as "_") and the WAL record show them. */
    const char *line_names[SCHEME_LINES_MAX];
    /*
     * The lease line of its commit horizon (per_backend schemes), else -1,
     * and its name.  Not a generator floor: the horizon starts from it
     * after a restart (horizon_generation_began).
     */
    int horizon_line;
    const char *horizon_line_name;
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
    /* Its lease setting; nullptr when its marks are plain Unix time under every setting. */
    const LeaseSetting *setting;
    /*
     * Its generators are per backend (sno, uuidv7), with no server-wide state
     * word: the commit horizon takes the reader's clock as the bound of the
     * ids still to come and imposes it on them (horizon.cpp).
     */
    bool per_backend;
    /*
     * A scheme with a server-wide state word (not per_backend): the commit
     * horizon's key of the next id the word can give, a key that orders the
     * scheme's ids as its type does (horizon.cpp).  nullptr otherwise.
     */
    uint64 (*next_key)(KidShared *s);
    /* The last Unix microsecond its ids can hold, under the settings in force (a floor's bound). */
    int64 (*last_unix_us)();
};

extern const SchemeDef SCHEMES[SCHEME_COUNT];

/* The lease line of a scheme with one generator line (all but sno, whose tick chooses). */
inline LeaseLine scheme_lease_line(Scheme scheme)
{
    return SCHEMES[scheme].first_line;
}

/* The lowest of a per-line array (floors, marks) over a scheme's generator lines. */
inline int64 least_of_lines(const SchemeDef &def, const int64 per_line[LEASE_LINES])
{
    int64 least = PG_INT64_MAX;
    for (int i = 0; i < def.lines; i++)
        if (per_line[def.first_line + i] < least)
            least = per_line[def.first_line + i];
    return least;
}

/* The row of SCHEMES a lease line belongs to. */
const SchemeDef &lease_line_scheme(int line);

/* The name of a lease line (its row's line_names). */
const char *lease_line_name(int line);

/* The lease line named `name` (lease_line_name, or with "_" for its blanks), else -1. */
int lease_line_by_name(const char *name, int len);

} // namespace kid::pg

#endif
