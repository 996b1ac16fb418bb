/*
 * shmem.cpp - shared memory set-up, sno slot claiming, and the lease.
 *
 * Follows contrib/pg_stat_statements (PG15): the hooks are installed only
 * while shared_preload_libraries is being processed; the startup hook
 * creates the struct under AddinShmemInitLock and initialises it only when
 * it is new (also after a crash restart, when shared memory is rebuilt).
 *
 * The lease is a small file in the data directory that records, for each
 * lease line, a time that no generated id has reached.  It is written ahead
 * (LEASE_AHEAD_US into the future) with write, fsync and a durable rename,
 * so a restart, a crash or a clock stepped back while the server was down
 * starts every generator above anything it may have handed out.  Each
 * extension is also logged in the WAL (lease_wal.cpp); replaying it raises
 * the "replayed" marks, and the first generation after recovery raises every
 * generator above them (finalize_floors), so a promoted standby repeats
 * nothing its old primary handed out.
 *
 * Written ahead, the lease makes every restart look like a clock that went
 * back by up to LEASE_AHEAD_US.  A clean shutdown avoids that: once every
 * backend has exited and the shutdown checkpoint is written, the postmaster
 * replaces the marks with the exact high-water marks of the generators in
 * shared memory (lease_write_at_shutdown), so the next start-up continues
 * just above the newest id instead of above the lease.  The first id after
 * that start-up is above the exact marks and therefore writes a new lease
 * (file and WAL record) before it is handed out, as the first id after any
 * start-up does once the lease has run out.  A crash, an immediate shutdown
 * or a crash restart after a backend died leaves the lease written ahead.
 */
#include "shmem.h"
#include "uid.h"

#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <sys/stat.h>

extern "C" {
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "catalog/pg_control.h"
#include "port/pg_crc32c.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
}

namespace kid::pg {

KidShared *shared = nullptr;

static shmem_request_hook_type prev_shmem_request_hook = nullptr;
static shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

static const char LEASE_FILE[] = "kid.lease";
static const char LEASE_TEMP_FILE[] = "kid.lease.tmp";

static int my_slot = -1;
SnoGenerator *sno_my_generator = nullptr;
uint32 sno_my_floor_epoch = 1;

static void shmem_request()
{
    if (prev_shmem_request_hook)
        prev_shmem_request_hook();
    RequestAddinShmemSpace(MAXALIGN(sizeof(KidShared)));
    RequestNamedLWLockTranche("kid", 2);
}

const char *const LEASE_LINE_NAMES[LEASE_LINES] = {"sno tick 0", "sno tick 1", "atproto_tid",
                                                    "koid", "uid"};
const char *const COUNTER_SCHEME_NAMES[COUNTER_SCHEMES] = {"atproto_tid", "koid", "uid"};

/*
 * The lease file, one line:
 *   kid lease 3 <own marks, one per line> <replayed marks> <margin pending> <exact>
 *               <koid epoch ms> <uid interval> <replayed uid interval> <uid_global guard>
 *               <uid interval the guard protects>
 * with the lines in LeaseLine order (sno tick 0, sno tick 1, atproto_tid,
 * koid, uid), marks in Unix microseconds.  "Own" marks are floors for what
 * this server handed out (and the floors it applied): every id of a line is
 * at or below its mark, whose time unit counts as used (a mark written
 * ahead lies above every id; an exact mark is the time of the newest one);
 * "replayed" marks came from another server's WAL.  <margin pending> is 1
 * when the replayed marks were written during archive recovery and
 * PROMOTION_MARGIN_US has not been added to them yet.  <exact> is 1 when a
 * clean shutdown wrote the own marks as the generators' exact high-water
 * marks, 0 when they were written ahead.
 *
 * <koid epoch ms> is the kid.koid_epoch_ms both koid marks are expressed
 * under: a koid holds milliseconds since the epoch, so what a koid mark
 * really bounds is mark / 1000 - epoch raw milliseconds.  A server started
 * with another epoch shifts both koid marks by the difference (lease_read),
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
 * Files of another version (kid before this layout) are refused: the
 * server does not start (see lease_read).
 */
constexpr int LEASE_FILE_VERSION = 3;

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

/* A koid mark written under epoch `from` (ms), re-expressed under epoch `to`: same raw milliseconds. */
static int64 koid_mark_under_epoch(int64 mark_us, int64 from_ms, int64 to_ms)
{
    if (mark_us == 0 || from_ms == to_ms)
        return mark_us;
    int64 v = mark_us + (to_ms - from_ms) * 1000;
    return v > 0 ? v : 1;
}

/*
 * Read the lease file; false (and zeros, with this server's settings) when
 * there is none.  A file of another version is refused: FATAL in the
 * postmaster, so the server does not start rather than start without floors.
 */
static bool lease_read(LeaseFile *lf)
{
    memset(lf, 0, sizeof(*lf));
    lf->koid_epoch_ms = koid_epoch_whole_ms();
    lf->uid_interval = uid_interval;
    FILE *f = AllocateFile(LEASE_FILE, "r");
    if (f == nullptr) {
        if (errno != ENOENT)
            ereport(LOG, (errcode_for_file_access(),
                          errmsg("kid: could not read \"%s\": %m", LEASE_FILE)));
        return false;
    }
    long long v[2 * LEASE_LINES + 7];
    memset(v, 0, sizeof(v));
    int version = 0;
    int n = fscanf(f, "kid lease %d", &version);
    if (n == 1 && version == LEASE_FILE_VERSION) {
        for (int i = 0; i < 2 * LEASE_LINES + 7; i++) {
            if (fscanf(f, " %lld", &v[i]) != 1)
                break;
            n++;
        }
    }
    FreeFile(f);
    if (n >= 1 && version != LEASE_FILE_VERSION)
        ereport(FATAL,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("kid: \"%s\" has format version %d; this kid reads version %d only",
                        LEASE_FILE, version, LEASE_FILE_VERSION),
                 errdetail("The file holds the high-water marks of generated ids; starting "
                           "without them could repeat ids."),
                 errhint("Start the server with the kid version that wrote the file, or remove "
                         "the file once the clock is past every id made here (kid then starts "
                         "without floors).")));
    if (n != 1 + 2 * LEASE_LINES + 7) {
        ereport(LOG, (errmsg("kid: ignoring malformed \"%s\"", LEASE_FILE)));
        memset(lf, 0, sizeof(*lf));
        lf->koid_epoch_ms = koid_epoch_whole_ms();
        lf->uid_interval = uid_interval;
        return false;
    }
    for (int i = 0; i < LEASE_LINES; i++) {
        lf->own[i] = v[i];
        lf->replayed[i] = v[LEASE_LINES + i];
    }
    int k = 2 * LEASE_LINES;
    lf->margin_pending = v[k++] != 0;
    lf->exact = v[k++] != 0;
    lf->koid_epoch_ms = v[k++];
    lf->uid_interval = static_cast<int32>(v[k++]);
    lf->uid_replayed_interval = static_cast<int32>(v[k++]);
    lf->uid_global_guard_us = v[k++];
    lf->uid_guard_interval = static_cast<int32>(v[k++]);
    return true;
}

/*
 * Write the lease durably (write, fsync, rename, fsync the directory);
 * called with lease_lock held, or by the postmaster before anything runs.
 * A failure is reported at `elevel`; false when it was below ERROR.
 */
static bool lease_write(const LeaseFile &lf, int elevel)
{
    char buf[512];
    int len = snprintf(buf, sizeof(buf), "kid lease %d", LEASE_FILE_VERSION);
    for (int i = 0; i < LEASE_LINES; i++)
        len += snprintf(buf + len, sizeof(buf) - len, " %lld", static_cast<long long>(lf.own[i]));
    for (int i = 0; i < LEASE_LINES; i++)
        len += snprintf(buf + len, sizeof(buf) - len, " %lld",
                        static_cast<long long>(lf.replayed[i]));
    len += snprintf(buf + len, sizeof(buf) - len, " %d %d %lld %d %d %lld %d\n",
                    lf.margin_pending ? 1 : 0, lf.exact ? 1 : 0,
                    static_cast<long long>(lf.koid_epoch_ms), lf.uid_interval,
                    lf.uid_replayed_interval, static_cast<long long>(lf.uid_global_guard_us),
                    lf.uid_guard_interval);
    int fd = OpenTransientFile(LEASE_TEMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
    if (fd < 0) {
        ereport(elevel, (errcode_for_file_access(),
                         errmsg("kid: could not create \"%s\": %m", LEASE_TEMP_FILE)));
        return false;
    }
    errno = 0;
    if (write(fd, buf, len) != len) {
        if (errno == 0)
            errno = ENOSPC;
        int save = errno;
        CloseTransientFile(fd);
        errno = save;
        ereport(elevel, (errcode_for_file_access(),
                         errmsg("kid: could not write \"%s\": %m", LEASE_TEMP_FILE)));
        return false;
    }
    if (CloseTransientFile(fd) != 0) {
        ereport(elevel, (errcode_for_file_access(),
                         errmsg("kid: could not close \"%s\": %m", LEASE_TEMP_FILE)));
        return false;
    }
    /* fsyncs the file, renames, fsyncs the directory. */
    return durable_rename(LEASE_TEMP_FILE, LEASE_FILE, elevel) == 0;
}

/* The file's contents as shared memory has them; call with lease_lock held. */
static LeaseFile lease_current(KidShared *s)
{
    LeaseFile lf;
    for (int i = 0; i < LEASE_LINES; i++) {
        lf.own[i] = static_cast<int64>(pg_atomic_read_u64(&s->lease_us[i]));
        lf.replayed[i] = static_cast<int64>(pg_atomic_read_u64(&s->replayed_us[i]));
    }
    lf.margin_pending = s->archive_recovery && pg_atomic_read_u32(&s->floors_final) == 0;
    lf.exact = s->own_exact;
    /* Marks in shared memory are under this server's settings (shifted at start-up and replay). */
    lf.koid_epoch_ms = koid_epoch_whole_ms();
    lf.uid_interval = uid_interval;
    lf.uid_replayed_interval = s->uid_replayed_interval;
    lf.uid_global_guard_us = static_cast<int64>(pg_atomic_read_u64(&s->uid_global_guard_us));
    lf.uid_guard_interval = s->uid_guard_interval;
    return lf;
}

/* Raise an atomic mark to at least `v` (compare-and-swap; never lowers it). */
static void atomic_raise(pg_atomic_uint64 *word, uint64 v)
{
    uint64 cur = pg_atomic_read_u64(word);
    while (cur < v && !pg_atomic_compare_exchange_u64(word, &cur, v)) {
    }
}

/*
 * Raise the server-wide generators above their lines' floors: a time at or
 * below a floor may have been handed out.  tid counts microseconds; koid's
 * millisecond and uid's step holding the floor count as used up.  The koid
 * floor is under this server's epoch (lease_read and lease_replay shift
 * marks of another epoch), so koid_floor_ms is the raw milliseconds the
 * ids under the mark may hold.  node id, koid generator id and uid node
 * fingerprint need no floor of their own: a change gives new ids another
 * node field, and they cannot equal any id made before.
 */
static void raise_counter_floors(KidShared *s, const int64 floor_us[LEASE_LINES])
{
    if (floor_us[LEASE_TID] > 0)
        atomic_raise(&s->counters[COUNTER_TID].state, static_cast<uint64>(floor_us[LEASE_TID]));
    int64 koid_floor_ms = floor_us[LEASE_KOID] / 1000 - koid_epoch_whole_ms();
    if (floor_us[LEASE_KOID] > 0 && koid_floor_ms >= 0) {
        uint64 word = (static_cast<uint64>(koid_floor_ms) << 12) | 4095;
        atomic_raise(&s->counters[COUNTER_KOID].state, word);
        atomic_raise(&s->koid_floor_word, word);
    }
    if (floor_us[LEASE_UID] > 0)
        atomic_raise(&s->counters[COUNTER_UID].state,
                     kid::uid_word_from_unix_us(floor_us[LEASE_UID]) | kid::UID_SEQ_MAX);
}

/* Raise the uid_global guard for uid marks written under `interval` (see uid_interval_change_guard_us). */
static void raise_uid_guard(KidShared *s, int64 mark_us, int interval)
{
    int64 guard = kid::uid_interval_change_guard_us(mark_us, interval, uid_interval);
    if (guard > static_cast<int64>(pg_atomic_read_u64(&s->uid_global_guard_us))) {
        s->uid_guard_interval = interval;
        pg_write_barrier();
        pg_atomic_write_u64(&s->uid_global_guard_us, static_cast<uint64>(guard));
    }
}

/* Raise one sno generator above the sno floors (no-op where it already is). */
static void raise_sno_floor(SnoGenerator *g, const int64 floor_us[2])
{
    for (unsigned t = 0; t < 2; t++) {
        int64_t units;
        if (floor_us[t] > 0 && sno_units_from_unix_us(floor_us[t], &units))
            sno_generator_floor(g, t, units);
    }
}

void lease_extend(KidShared *s, LeaseLine line, int64_t unix_us)
{
    /*
     * An id the current mark still covers only asks for an early renewal:
     * when another backend holds the lock (renewing, most likely), go on
     * instead of queueing behind its fsyncs.  An id past the mark waits.
     */
    if (static_cast<int64_t>(pg_atomic_read_u64(&s->lease_us[line])) > unix_us) {
        if (!LWLockConditionalAcquire(s->lease_lock, LW_EXCLUSIVE))
            return;
    } else {
        LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    }
    if (static_cast<int64_t>(pg_atomic_read_u64(&s->lease_us[line])) <= unix_us + LEASE_RENEW_US) {
        LeaseFile lf = lease_current(s);
        lf.own[line] = unix_us + LEASE_AHEAD_US;
        lf.exact = false;
        /*
         * The file first, then the WAL record: a base backup that copies the
         * file before a record it does not replay cannot miss the record's
         * mark, and a crash between the two leaves the file ahead (safe).
         */
        lease_write(lf, ERROR);
        s->own_exact = false;
        if (lease_wal_log(lf.own))
            pg_atomic_fetch_add_u64(&s->lease_records, 1);
        if (s->first_us[line] == 0)
            s->first_us[line] = unix_us;
        /* Publish only after the file and the WAL record are durable. */
        pg_atomic_write_u64(&s->lease_us[line], static_cast<uint64>(lf.own[line]));
        pg_atomic_fetch_add_u64(&s->lease_writes, 1);
    }
    LWLockRelease(s->lease_lock);
}

void lease_replay(const LeaseWalRecord &rec)
{
    KidShared *s = shared;
    if (s == nullptr)
        return; /* cannot happen: the resource manager exists only when preloaded */
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    bool rose = false;
    int64 marks[LEASE_LINES];
    for (int i = 0; i < LEASE_LINES; i++)
        marks[i] = rec.marks[i];
    /* The writer's koid mark under this server's epoch: the same raw milliseconds. */
    marks[LEASE_KOID] = koid_mark_under_epoch(marks[LEASE_KOID], rec.koid_epoch_ms,
                                              koid_epoch_whole_ms());
    for (int i = 0; i < LEASE_LINES; i++) {
        if (marks[i] > static_cast<int64>(pg_atomic_read_u64(&s->replayed_us[i]))) {
            pg_atomic_write_u64(&s->replayed_us[i], static_cast<uint64>(marks[i]));
            rose = true;
        }
    }
    /*
     * uid_global ids the writer made under another kid.uid_interval: the
     * guard covers its mark plus what a promotion may still add (records
     * not received, the margin).
     */
    if (marks[LEASE_UID] > 0) {
        uint64 guard_before = pg_atomic_read_u64(&s->uid_global_guard_us);
        raise_uid_guard(s, marks[LEASE_UID] + LEASE_RENEW_US + PROMOTION_MARGIN_US,
                        rec.uid_interval);
        if (s->uid_replayed_interval != rec.uid_interval ||
            pg_atomic_read_u64(&s->uid_global_guard_us) != guard_before)
            rose = true;
        s->uid_replayed_interval = rec.uid_interval;
    }
    s->replayed_writer.written_at_us = rec.written_at_us;
    s->replayed_writer.koid_generator_id = rec.koid_generator_id;
    s->replayed_writer.uid_node = rec.uid_node;
    s->replayed_writer.uid_interval = rec.uid_interval;
    s->replayed_writer.koid_epoch_ms = rec.koid_epoch_ms;
    /* node_id last: a reader that sees it set sees the fields above. */
    pg_write_barrier();
    s->replayed_writer.node_id = rec.node_id;
    pg_atomic_fetch_add_u64(&s->replayed_records, 1);
    /*
     * Durable before a restartpoint can pass the record: after a restart the
     * standby does not replay it again.
     */
    if (rose)
        lease_write(lease_current(s), ERROR);
    LWLockRelease(s->lease_lock);
}

/*
 * Once generation starts after recovery (or after a plain start), raise
 * every generator above what recovery replayed: the marks of the server
 * whose WAL this one replayed, plus PROMOTION_MARGIN_US after archive
 * recovery, whose last records may not have arrived.  The new floors are
 * made durable (file and WAL) before any id above them is handed out.
 */
static void finalize_floors(KidShared *s)
{
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    if (pg_atomic_read_u32(&s->floors_final) == 0) {
        LeaseFile lf = lease_current(s);
        int64 want[LEASE_LINES];
        bool rose = false;
        for (int i = 0; i < LEASE_LINES; i++) {
            int64 own = lf.own[i];
            int64 w = own > lf.replayed[i] ? own : lf.replayed[i];
            if (w > 0 && s->archive_recovery)
                w += PROMOTION_MARGIN_US;
            want[i] = w;
            if (w > own) {
                lf.own[i] = w;
                rose = true;
            }
        }
        if (rose) {
            lf.margin_pending = false;
            lf.exact = false;
            lease_write(lf, ERROR);
            s->own_exact = false;
            if (lease_wal_log(lf.own))
                pg_atomic_fetch_add_u64(&s->lease_records, 1);
            pg_atomic_fetch_add_u64(&s->lease_writes, 1);
            for (int i = 0; i < LEASE_LINES; i++) {
                atomic_raise(&s->lease_us[i], static_cast<uint64>(lf.own[i]));
                atomic_raise(&s->floor_us[i], static_cast<uint64>(want[i]));
            }
            raise_counter_floors(s, want);
            /* sno slots: free ones now, owned ones by their owner on its next id. */
            int64 sno_floor[2] = {want[LEASE_SNO_TICK0], want[LEASE_SNO_TICK1]};
            LWLockAcquire(s->slot_lock, LW_EXCLUSIVE);
            for (auto &slot : s->slots)
                if (slot.owner_pid == 0)
                    raise_sno_floor(&slot.gen, sno_floor);
            LWLockRelease(s->slot_lock);
            pg_atomic_fetch_add_u32(&s->floor_epoch, 2);
        }
        /* A full barrier: everything above is visible before the flag. */
        pg_atomic_fetch_add_u32(&s->floors_final, 1);
    }
    LWLockRelease(s->lease_lock);
}

static bool lease_has_marks(const LeaseFile &lf)
{
    for (int i = 0; i < LEASE_LINES; i++)
        if (lf.own[i] != 0 || lf.replayed[i] != 0)
            return true;
    return false;
}

static bool file_exists(const char *name)
{
    struct stat st;
    return stat(name, &st) == 0;
}

static void raise_mark(int64 *mark, int64 v)
{
    if (v > *mark)
        *mark = v;
}

/*
 * The exact high-water marks of the generators now: per lease line, the
 * time of the newest id the line's generator(s) in shared memory made, or
 * the line's floor when higher; 0 for a line with neither.  Each is the
 * start of the time unit of the newest id: flooring at a time counts that
 * time's whole unit as used, so this is the lowest mark that puts the
 * generator back where it is.
 */
static void generator_high_water(KidShared *s, int64 marks[LEASE_LINES])
{
    for (int i = 0; i < LEASE_LINES; i++)
        marks[i] = static_cast<int64>(pg_atomic_read_u64(&s->floor_us[i]));
    for (const auto &slot : s->slots)
        for (int t = 0; t < 2; t++)
            if (slot.gen.hi[t] >= 0)
                raise_mark(&marks[LEASE_SNO_TICK0 + t],
                           (kid::SNO_EPOCH_MS + slot.gen.hi[t] * kid::SNO_UNIT_MS) * 1000);
    uint64 tid = pg_atomic_read_u64(&s->counters[COUNTER_TID].state);
    if (tid != 0)
        raise_mark(&marks[LEASE_TID], static_cast<int64>(tid));
    uint64 koid = pg_atomic_read_u64(&s->counters[COUNTER_KOID].state);
    if (koid != 0)
        raise_mark(&marks[LEASE_KOID],
                   (static_cast<int64>(koid >> 12) + koid_epoch_whole_ms()) * 1000);
    uint64 uid = pg_atomic_read_u64(&s->counters[COUNTER_UID].state);
    if (uid != 0)
        raise_mark(&marks[LEASE_UID], kid::uid_unix_us(kid::uid_fields_from_word(uid)));
}

/*
 * Whether pg_control says the server shut down cleanly: the shutdown
 * checkpoint (or, on a standby, restartpoint) is written, so the next
 * start-up replays no WAL this server wrote.  False when it cannot tell.
 */
static bool shutdown_checkpoint_written()
{
    ControlFileData cf;
    int fd = OpenTransientFile(XLOG_CONTROL_FILE, O_RDONLY | PG_BINARY);
    if (fd < 0)
        return false;
    ssize_t got = read(fd, &cf, sizeof(cf));
    CloseTransientFile(fd);
    if (got != static_cast<ssize_t>(sizeof(cf)))
        return false;
    pg_crc32c crc;
    INIT_CRC32C(crc);
    COMP_CRC32C(crc, reinterpret_cast<char *>(&cf), offsetof(ControlFileData, crc));
    FIN_CRC32C(crc);
    if (!EQ_CRC32C(crc, cf.crc))
        return false;
    return cf.state == DB_SHUTDOWNED || cf.state == DB_SHUTDOWNED_IN_RECOVERY;
}

/*
 * on_shmem_exit callback of the postmaster (of a single-user backend too):
 * at a clean shutdown, replace the marks written ahead with the exact
 * high-water marks.
 *
 * Exact is safe here: every backend has exited (the postmaster exits only
 * when it has no children left), and a generator advances its state in
 * shared memory before its id leaves the backend, so the states are at or
 * above every id handed out.  The floors (startup lease, replayed marks
 * already applied) are kept under the marks; replayed marks not applied
 * yet stay in the file's replayed marks, and a pending promotion margin
 * stays pending.
 *
 * Only after a shutdown checkpoint: a crash restart after a backend died
 * calls this with code 1 (shmem_exit(1) before reinitialising) and a
 * postmaster killed by SIGKILL not at all, while an immediate shutdown
 * (pg_ctl stop -m immediate) exits with code 0 but writes no shutdown
 * checkpoint.  The exact marks would be safe even then (its backends were
 * killed, but all had exited, and no id leaves a backend before its
 * generator's state holds it), yet PostgreSQL treats an immediate shutdown
 * as a crash: the next start-up runs crash recovery, which replays this
 * server's lease records since the last checkpoint and raises the floors to
 * their marks written ahead whenever there are any.  Keeping the lease makes
 * every start-up after crash recovery behave alike.
 */
static void lease_write_at_shutdown(int code, Datum)
{
    KidShared *s = shared;
    if (code != 0 || s == nullptr)
        return;
    if (!shutdown_checkpoint_written()) {
        ereport(LOG, (errmsg("kid: \"%s\" keeps the marks written ahead: no shutdown checkpoint",
                             LEASE_FILE)));
        return;
    }
    LeaseFile lf = lease_current(s);
    generator_high_water(s, lf.own);
    lf.exact = true;
    if (lease_write(lf, LOG))
        ereport(LOG, (errmsg("kid: wrote the exact high-water marks of generated time to \"%s\"",
                             LEASE_FILE)));
}

static void shmem_startup()
{
    if (prev_shmem_startup_hook)
        prev_shmem_startup_hook();

    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found;
    shared = static_cast<KidShared *>(ShmemInitStruct("kid", sizeof(KidShared), &found));
    if (!found) {
        memset(shared, 0, sizeof(KidShared));
        LWLockPadded *locks = GetNamedLWLockTranche("kid");
        shared->slot_lock = &locks[0].lock;
        shared->lease_lock = &locks[1].lock;

        LeaseFile lf;
        shared->startup_found = lease_read(&lf);
        /*
         * koid marks written under another kid.koid_epoch_ms: re-express them
         * under this one (same raw milliseconds), remembering the old epoch
         * for koid_new's error message.
         */
        shared->koid_lease_epoch_ms = -1;
        if (lf.koid_epoch_ms != koid_epoch_whole_ms()) {
            if (lf.own[LEASE_KOID] != 0 || lf.replayed[LEASE_KOID] != 0) {
                shared->koid_lease_epoch_ms = lf.koid_epoch_ms;
                ereport(LOG, (errmsg("kid: kid.koid_epoch_ms changed from %lld to %lld since the "
                                     "lease was written; koid continues above the same raw "
                                     "milliseconds",
                                     static_cast<long long>(lf.koid_epoch_ms),
                                     static_cast<long long>(koid_epoch_whole_ms()))));
            }
            lf.own[LEASE_KOID] = koid_mark_under_epoch(lf.own[LEASE_KOID], lf.koid_epoch_ms,
                                                       koid_epoch_whole_ms());
            lf.replayed[LEASE_KOID] = koid_mark_under_epoch(
                lf.replayed[LEASE_KOID], lf.koid_epoch_ms, koid_epoch_whole_ms());
            lf.koid_epoch_ms = koid_epoch_whole_ms();
        }
        /* Exact marks: a clean shutdown; the generators continue just above them. */
        shared->startup_exact = shared->startup_found && lf.exact;
        shared->own_exact = shared->startup_exact;
        if (shared->startup_exact)
            ereport(LOG, (errmsg("kid: starting above the exact high-water marks of the last "
                                 "clean shutdown")));
        /*
         * Archive recovery (a standby, a point-in-time restore) ends in a
         * promotion; the margin is added then.  The file remembers that it
         * is pending, in case the promoted server stops before it generated.
         */
        shared->archive_recovery = lf.margin_pending || file_exists(STANDBY_SIGNAL_FILE) ||
                                   file_exists(RECOVERY_SIGNAL_FILE);
        for (int i = 0; i < LEASE_LINES; i++) {
            shared->startup_floor_us[i] = lf.own[i];
            /* The file already covers everything below its marks. */
            pg_atomic_init_u64(&shared->lease_us[i], static_cast<uint64>(lf.own[i]));
            pg_atomic_init_u64(&shared->replayed_us[i], static_cast<uint64>(lf.replayed[i]));
            pg_atomic_init_u64(&shared->floor_us[i], static_cast<uint64>(lf.own[i]));
            shared->first_us[i] = 0;
        }
        /*
         * uid_global after a kid.uid_interval change: refused until the
         * guard.  The file's guard stays (an earlier change may still be
         * pending); the own uid mark was written under the file's interval,
         * the replayed one under the replayed interval (plus what a
         * promotion may still add).
         */
        pg_atomic_init_u64(&shared->uid_global_guard_us,
                           static_cast<uint64>(lf.uid_global_guard_us > 0 ? lf.uid_global_guard_us : 0));
        shared->uid_guard_interval = lf.uid_guard_interval;
        raise_uid_guard(shared, lf.own[LEASE_UID], lf.uid_interval);
        if (lf.uid_replayed_interval != 0)
            raise_uid_guard(shared, lf.replayed[LEASE_UID] + LEASE_RENEW_US + PROMOTION_MARGIN_US,
                            lf.uid_replayed_interval);
        shared->uid_replayed_interval = lf.uid_replayed_interval;
        if (static_cast<int64>(pg_atomic_read_u64(&shared->uid_global_guard_us)) >
            lf.uid_global_guard_us)
            ereport(LOG, (errmsg("kid: kid.uid_interval changed from %d to %d since uid ids were "
                                 "last made; uid_global_new() refuses until the next %d-second "
                                 "boundary above the uid mark",
                                 lf.uid_interval, uid_interval,
                                 1 << (lf.uid_interval > uid_interval ? lf.uid_interval : uid_interval))));
        pg_atomic_init_u32(&shared->floor_epoch, 2);
        pg_atomic_init_u32(&shared->floors_final, 0);
        shared->replayed_writer.node_id = -1;
        pg_atomic_init_u64(&shared->lease_writes, 0);
        pg_atomic_init_u64(&shared->lease_records, 0);
        pg_atomic_init_u64(&shared->replayed_records, 0);
        if (shared->archive_recovery && !lf.margin_pending &&
            lease_has_marks(lf)) {
            lf.margin_pending = true;
            /*
             * The pending margin must be durable: after a promotion and a
             * crash before the first id, standby.signal is gone and only the
             * file remembers the margin.  ERROR is FATAL in the postmaster:
             * no standby starts without it.
             */
            lease_write(lf, ERROR);
        }

        /*
         * Every slot starts above the persisted mark of its timeline: a unit
         * at or below it may have been handed out before the restart.
         */
        for (int i = 0; i < SNO_SLOTS; i++) {
            SnoSlot *slot = &shared->slots[i];
            slot->owner_pid = 0;
            uint16 start = 0;
            if (!pg_strong_random(&start, sizeof(start)))
                start = static_cast<uint16>(random());
            slot->backfill_sequence = start;
            sno_generator_init(&slot->gen, static_cast<uint16_t>(node_id << 8 | i));
            raise_sno_floor(&slot->gen, lf.own);
        }
        /* The counters continue above the persisted marks of their lines. */
        for (auto &c : shared->counters) {
            pg_atomic_init_u64(&c.state, 0);
            pg_atomic_init_u64(&c.clock_high_us, 0);
            pg_atomic_init_u64(&c.stats.generated, 0);
            pg_atomic_init_u64(&c.stats.regressions, 0);
            pg_atomic_init_u64(&c.stats.overflow_waits, 0);
            pg_atomic_init_u64(&c.stats.clock_waits, 0);
            pg_atomic_init_u64(&c.stats.ahead_waits, 0);
        }
        pg_atomic_init_u64(&shared->koid_floor_word, 0);
        raise_counter_floors(shared, lf.own);
    }
    LWLockRelease(AddinShmemInitLock);

    /*
     * As contrib/pg_stat_statements does: the postmaster (or a single-user
     * backend) writes the exact marks when it exits.  After a crash restart
     * this registers again: shmem_exit ran the old callbacks and cleared
     * them before shared memory was rebuilt.
     */
    if (!IsUnderPostmaster)
        on_shmem_exit(lease_write_at_shutdown, 0);
}

void install_shmem_hooks()
{
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = shmem_request;
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = shmem_startup;
}

/* Whether this standby generates under an identity of the server whose WAL it replays. */
static bool shares_primary_identity(const KidShared *s)
{
    const ReplayedWriter &w = s->replayed_writer;
    return w.node_id >= 0 && (w.node_id == node_id ||
                              w.koid_generator_id == effective_koid_generator_id() ||
                              w.uid_node == uid_node);
}

const char *generation_refusal()
{
    if (shared == nullptr)
        return "kid is not in shared_preload_libraries";
    if (RecoveryInProgress()) {
        if (!standby_generation)
            return "in recovery (a standby), and kid.standby_generation is off";
        if (shares_primary_identity(shared))
            return "in recovery, and the replayed primary generates with this server's node id";
    }
    return nullptr;
}

KidShared *shared_for_generation(const char *type_name)
{
    KidShared *s = shared;
    if (s == nullptr)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("kid must be loaded at server start to generate %s ids", type_name),
                 errhint("Add kid to shared_preload_libraries in postgresql.conf, e.g. "
                         "shared_preload_libraries = 'kid', and restart the server.")));
    if (likely(pg_atomic_read_u32(&s->floors_final) != 0)) {
        /*
         * Pairs with the full barrier finalize_floors puts before setting the
         * flag: the floors, the raised free slots and floor_epoch it wrote
         * are read after this.  (A compiler barrier only on x86.)
         */
        pg_read_barrier();
        return s;
    }
    if (RecoveryInProgress()) {
        if (!standby_generation)
            ereport(ERROR,
                    (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                     errmsg("cannot generate %s ids during recovery", type_name),
                     errdetail("A standby shares the primary's kid.node_id, so its ids could "
                               "repeat the primary's."),
                     errhint("Generate ids on the primary, or give this server its own "
                             "kid.node_id and set kid.standby_generation = on.")));
        if (shares_primary_identity(s))
            ereport(ERROR,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("cannot generate %s ids on this standby: the primary generates "
                            "with the same node identity",
                            type_name),
                     errdetail("The primary's last lease record names node id %d, koid "
                               "generator id %d and uid node %08x; this server has %d, %d and "
                               "%08x.",
                               s->replayed_writer.node_id, s->replayed_writer.koid_generator_id,
                               s->replayed_writer.uid_node, node_id,
                               effective_koid_generator_id(), uid_node),
                     errhint("Give this standby its own kid.node_id (and kid.koid_generator_id "
                             "and kid.uid_node if set), or set kid.standby_generation = off.")));
        return s;
    }
    /* The first generation after start-up or recovery. */
    finalize_floors(s);
    return s;
}

/* on_shmem_exit callback: free the slot, keep its generator state for the next owner. */
static void sno_release_slot(int, Datum)
{
    if (my_slot < 0 || shared == nullptr)
        return;
    LWLockAcquire(shared->slot_lock, LW_EXCLUSIVE);
    if (shared->slots[my_slot].owner_pid == MyProcPid)
        shared->slots[my_slot].owner_pid = 0;
    LWLockRelease(shared->slot_lock);
    my_slot = -1;
    sno_my_generator = nullptr;
    sno_my_floor_epoch = 1;
}

SnoGenerator *sno_claim_generator()
{
    KidShared *s = shared_for_generation("sno");
    /* Read the epoch before the floors: a rise after this is seen on the next id. */
    uint32 epoch = pg_atomic_read_u32(&s->floor_epoch);
    pg_read_barrier();
    if (sno_my_generator != nullptr) {
        /* Already claimed: the floors rose, or we are a standby checking every id. */
        int64 sno_floor[2] = {static_cast<int64>(pg_atomic_read_u64(&s->floor_us[0])),
                              static_cast<int64>(pg_atomic_read_u64(&s->floor_us[1]))};
        raise_sno_floor(sno_my_generator, sno_floor);
        sno_my_floor_epoch = RecoveryInProgress() ? 1 : epoch;
        return sno_my_generator;
    }
    static bool exit_callback_registered = false;
    if (!exit_callback_registered) {
        on_shmem_exit(sno_release_slot, 0);
        exit_callback_registered = true;
    }

    /* Start at the PID so that concurrent claimers mostly probe different slots. */
    int start = MyProcPid % SNO_SLOTS;
    LWLockAcquire(s->slot_lock, LW_EXCLUSIVE);
    for (int i = 0; i < SNO_SLOTS; i++) {
        int candidate = (start + i) % SNO_SLOTS;
        if (s->slots[candidate].owner_pid == 0) {
            s->slots[candidate].owner_pid = MyProcPid;
            my_slot = candidate;
            break;
        }
    }
    LWLockRelease(s->slot_lock);

    if (my_slot < 0)
        ereport(ERROR,
                (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                 errmsg("all %d sno partitions of node %d are in use", SNO_SLOTS, node_id),
                 errdetail("Each backend that generates sno ids holds one partition until it "
                           "exits."),
                 errhint("Use fewer concurrent connections that generate sno ids, e.g. "
                         "through a connection pooler.")));
    sno_my_generator = &s->slots[my_slot].gen;
    int64 sno_floor[2] = {static_cast<int64>(pg_atomic_read_u64(&s->floor_us[0])),
                          static_cast<int64>(pg_atomic_read_u64(&s->floor_us[1]))};
    raise_sno_floor(sno_my_generator, sno_floor);
    /* During recovery (kid.standby_generation) every id takes the checks again. */
    sno_my_floor_epoch = RecoveryInProgress() ? 1 : epoch;
    return sno_my_generator;
}

int sno_backend_slot()
{
    return my_slot;
}

} // namespace kid::pg
