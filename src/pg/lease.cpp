/*
 * lease.cpp - the lease: what it holds at start-up, its renewal, its
 * replay from WAL, the floors after recovery, and the exact marks a clean
 * shutdown writes.  (The file format: lease_file.cpp; the marks in the
 * WAL: lease_wal.cpp.)
 *
 * The lease is a small file in the data directory that records, for each
 * lease line, a time that no generated id has reached.  It is written ahead
 * (LEASE_AHEAD_US into the future) with write, fsync and a durable rename,
 * so a restart, a crash or a clock stepped back while the server was down
 * starts every generator above anything it may have handed out.  Each
 * extension is also logged in the WAL (lease_wal.cpp); replaying it raises
 * the "replayed" marks, and the first generation after recovery raises every
 * generator above them (lease_finalize_floors), so a promoted standby repeats
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
#include "pg/lease.h"
#include "pg/horizon.h"
#include "pg/lease_file.h"

#include <sys/stat.h>

extern "C" {
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xlogrecovery.h"
#include "catalog/pg_control.h"
#include "common/controldata_utils.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
}

namespace kid::pg {

/* An LSN's two halves for %X/%X (core's LSN_FORMAT_ARGS asserts its type in C only). */
#define LSN_ARGS(lsn) static_cast<uint32>(static_cast<uint64>(lsn) >> 32), static_cast<uint32>(lsn)

/* The file's contents as shared memory has them; call with lease_lock held. */
static LeaseFile lease_current(KidShared *s)
{
    LeaseFile lf;
    memset(&lf, 0, sizeof(lf));
    for (int i = 0; i < LEASE_LINES; i++) {
        lf.own[i] = static_cast<int64>(pg_atomic_read_u64(&s->lease_us[i]));
        lf.replayed[i] = static_cast<int64>(pg_atomic_read_u64(&s->replayed_us[i]));
        lf.has_line[i] = true;
        /* Marks in shared memory are under this server's settings (translated at start-up and replay). */
        const LeaseSetting *setting = lease_line_scheme(i).setting;
        if (setting != nullptr)
            setting->save(s, static_cast<LeaseLine>(i), lf.words[i]);
    }
    lf.margin_pending = s->archive_recovery && pg_atomic_read_u32(&s->floors_final) == 0;
    lf.exact = s->own_exact;
    lf.wal_state = static_cast<LeaseWalState>(s->wal_state);
    lf.wal_tli = s->wal_tli;
    lf.wal_lsn = s->wal_lsn;
    lf.wal_label = s->wal_label;
    return lf;
}

static bool lease_verified(KidShared *s)
{
    return pg_atomic_read_u32(&s->lease_unverified) == 0;
}

/*
 * A primary writes kid.lease (lease_lock held, out of recovery): every
 * lease message of its WAL up to now is reflected, and it writes each one
 * after the file.  Only on a verified lease: an unverified one stays so
 * until a replayed message or the operator's floors repair it.
 */
static void position_primary(KidShared *s)
{
    if (!lease_verified(s) || RecoveryInProgress())
        return;
    s->wal_state = static_cast<int>(LeaseWalState::primary);
    s->wal_tli = GetWALInsertionTimeLine();
    XLogRecPtr now = GetXLogInsertRecPtr();
    if (now > s->wal_lsn)
        s->wal_lsn = now;
}

/* Raise every scheme's generator above the floors (the scheme table's raise_to_floor). */
static void raise_generators(KidShared *s, const int64 floor_us[LEASE_LINES])
{
    for (const SchemeDef &scheme : SCHEMES)
        scheme.raise_to_floor(s, floor_us);
}

/*
 * Write lf's marks ahead, durably, then publish them (under lease_lock).
 * The file first, then the WAL record: a base backup that copies the file
 * before a record it does not replay cannot miss the record's mark, and a
 * crash between the two leaves the file ahead (safe).  Only then are the
 * marks raised in shared memory, where generators read them.
 */
static void lease_write_ahead(KidShared *s, LeaseFile &lf)
{
    position_primary(s);
    lf.wal_state = static_cast<LeaseWalState>(s->wal_state);
    lf.wal_tli = s->wal_tli;
    lf.wal_lsn = s->wal_lsn;
    lf.exact = false;
    lease_write(lf, ERROR);
    s->own_exact = false;
    if (lease_wal_log(lf.own))
        pg_atomic_fetch_add_u64(&s->lease_records, 1);
    pg_atomic_fetch_add_u64(&s->lease_writes, 1);
    for (int i = 0; i < LEASE_LINES; i++)
        atomic_raise(&s->lease_us[i], static_cast<uint64>(lf.own[i]));
}

/*
 * Before lease_lock is taken: the order is lease_lock, then partition_lock
 * (shared_state.h, "Locks"), since a raise of the floors raises the free
 * partitions while it holds lease_lock.  A path that took them the other
 * way round would deadlock only when it met a raise; it fails here on its
 * first run instead, whatever the timing.  (A list of at most a few held
 * locks to read, on the slow paths that take lease_lock.)
 */
static void check_lock_order(KidShared *s)
{
    if (unlikely(LWLockHeldByMe(s->partition_lock)))
        elog(ERROR, "kid: lease_lock wanted while partition_lock is held (the order is "
                    "lease_lock, then partition_lock)");
}

void lease_extend(KidShared *s, LeaseLine line, int64_t unix_us)
{
    /*
     * An id the current mark still covers only asks for an early renewal:
     * when another backend holds the lock (renewing, most likely), go on
     * instead of queueing behind its fsyncs.  An id past the mark waits.
     */
    check_lock_order(s);
    if (static_cast<int64_t>(pg_atomic_read_u64(&s->lease_us[line])) > unix_us) {
        if (!LWLockConditionalAcquire(s->lease_lock, LW_EXCLUSIVE))
            return;
    } else {
        LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    }
    if (static_cast<int64_t>(pg_atomic_read_u64(&s->lease_us[line])) <= unix_us + LEASE_RENEW_US) {
        LeaseFile lf = lease_current(s);
        lf.own[line] = unix_us + LEASE_AHEAD_US;
        if (s->first_us[line] == 0)
            s->first_us[line] = unix_us;
        lease_write_ahead(s, lf);
    }
    LWLockRelease(s->lease_lock);
}

/* The state a replay writes: a standby's or a restore's, or a primary's own crash recovery. */
static LeaseWalState replaying_state(KidShared *s)
{
    return s->start_signal ? LeaseWalState::replica : LeaseWalState::primary;
}

void lease_replay(const LeaseWalReplay &rec, uint64 end_lsn)
{
    KidShared *s = shared;
    if (s == nullptr)
        return; /* cannot happen: kid's redo is installed only when preloaded */
    check_lock_order(s);
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    bool rose = false;
    for (int i = 0; i < LEASE_LINES; i++) {
        if (!rec.has_line[i])
            continue; /* written by a kid without the line: no ids of it */
        int64 mark = rec.marks[i];
        /* The writer's mark under this server's settings. */
        const LeaseSetting *setting = lease_line_scheme(i).setting;
        if (setting != nullptr &&
            setting->replay(s, static_cast<LeaseLine>(i), rec.settings[i], &mark))
            rose = true;
        if (mark > static_cast<int64>(pg_atomic_read_u64(&s->replayed_us[i]))) {
            pg_atomic_write_u64(&s->replayed_us[i], static_cast<uint64>(mark));
            rose = true;
        }
        s->replayed_writer.node_fields[i] = rec.node_fields[i];
    }
    s->replayed_writer.written_at_us = rec.written_at_us;
    /* node_id last: a reader that sees it set sees the fields above. */
    pg_write_barrier();
    s->replayed_writer.node_id = rec.node_id;
    pg_atomic_fetch_add_u64(&s->replayed_records, 1);
    /*
     * The message carries every line's mark, and marks only rise: it
     * dominates every message before it, those replayed without kid too.
     * An unverified lease is verified again.
     */
    bool moved = rose || end_lsn > s->wal_lsn || !lease_verified(s);
    if (!lease_verified(s)) {
        ereport(LOG, (errmsg("kid: the lease is verified again: replayed a lease message ending at "
                             "%X/%X, which carries every line's mark",
                             LSN_ARGS(end_lsn))));
        s->wal_state = static_cast<int>(replaying_state(s));
        pg_atomic_write_u32(&s->lease_unverified, 0);
    }
    if (end_lsn > s->wal_lsn)
        s->wal_lsn = end_lsn;
    /*
     * Durable before a restartpoint can pass the record: after a restart the
     * standby does not replay it again.
     */
    if (moved)
        lease_write(lease_current(s), ERROR);
    LWLockRelease(s->lease_lock);
}

void lease_replay_position(uint64 at)
{
    KidShared *s = shared;
    if (s == nullptr || !lease_verified(s))
        return;
    check_lock_order(s);
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    if (lease_verified(s) && at > s->wal_lsn) {
        uint64 before = s->wal_lsn;
        s->wal_lsn = at;
        /*
         * Before core's redo: a restartpoint at this record finds the file
         * ahead of it.  A write that fails (a full disk) is a WARNING, not
         * an ERROR, which in the startup process would stop the standby at
         * this record at every start: the position stays where the file
         * has it, and the next start, if the gap matters then, refuses
         * generation (fails closed) instead.
         */
        if (!lease_write(lease_current(s), WARNING))
            s->wal_lsn = before;
    }
    LWLockRelease(s->lease_lock);
}

void lease_recovery_finished()
{
    KidShared *s = shared;
    if (s == nullptr || !lease_verified(s) || RecoveryInProgress())
        return;
    check_lock_order(s);
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    if (s->wal_state != static_cast<int>(LeaseWalState::primary) ||
        s->wal_tli != GetWALInsertionTimeLine()) {
        position_primary(s);
        lease_write(lease_current(s), WARNING);
    }
    LWLockRelease(s->lease_lock);
}

void lease_refuse_unverified(KidShared *s, const char *type_name)
{
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("cannot generate %s ids: kid.lease may miss lease messages this server "
                    "replayed without kid",
                    type_name),
             errdetail("The WAL from %X/%X to %X/%X was replayed while kid was not in "
                       "shared_preload_libraries (a standby, a restore or a recovery without "
                       "it): the marks of the server that wrote it are not in kid.lease, and "
                       "ids generated now could repeat its ids.",
                       LSN_ARGS(s->gap_from), LSN_ARGS(s->gap_to)),
             errhint("As a superuser, run SELECT kid_adopt_database(floor => T) in a database "
                     "with kid, T a time at or after the last id that server may have made; see "
                     "\"Servers that replayed without kid\" in kid's docs/lease.md.")));
}

/*
 * Once generation starts after recovery (or after a plain start), raise
 * every generator above what recovery replayed: the marks of the server
 * whose WAL this one replayed, plus PROMOTION_MARGIN_US after archive
 * recovery, whose last records may not have arrived.  The new floors are
 * made durable (file and WAL) before any id above them is handed out.
 */
void lease_finalize_floors(KidShared *s)
{
    check_lock_order(s);
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    if (pg_atomic_read_u32(&s->floors_final) == 0) {
        LeaseFile lf = lease_current(s);
        int64 want[LEASE_LINES];
        bool rose = false;
        for (int i = 0; i < LEASE_LINES; i++) {
            int64 w = lf.own[i] > lf.replayed[i] ? lf.own[i] : lf.replayed[i];
            if (w > 0 && s->archive_recovery)
                w += PROMOTION_MARGIN_US;
            want[i] = w;
        }
        /*
         * A clocked scheme's commit horizon starts at least at the lowest
         * floor of its id lines: every id made from now on is above that
         * floor.  Lower, its ids would be carried up from the horizon's
         * floor at half pace, and sno, both of whose timelines may be above
         * it (ids made after the last horizon reading, on both sides of a
         * step back), would wait twice the gap for the carry to reach them.
         * Only where a horizon was read (its line above 0): elsewhere no
         * carry starts, and the generators meet their floors as without
         * horizons (docs/lease.md).
         */
        for (const SchemeDef &def : SCHEMES) {
            if (!def.per_backend || want[def.horizon_line] <= 0)
                continue;
            int64 least = least_of_lines(def, want);
            if (least > want[def.horizon_line])
                want[def.horizon_line] = least;
        }
        for (int i = 0; i < LEASE_LINES; i++) {
            if (want[i] > lf.own[i]) {
                lf.own[i] = want[i];
                rose = true;
            }
        }
        if (rose) {
            lf.margin_pending = false;
            lease_write_ahead(s, lf);
            for (int i = 0; i < LEASE_LINES; i++)
                atomic_raise(&s->floor_us[i], static_cast<uint64>(want[i]));
            /* sno: free slots now, owned ones by their owner on its next id (floor_epoch). */
            raise_generators(s, want);
            pg_atomic_fetch_add_u32(&s->floor_epoch, 2);
        }
        for (int i = 0; i < LEASE_LINES; i++)
            s->generation_floor_us[i] = static_cast<int64>(pg_atomic_read_u64(&s->floor_us[i]));
        /* The commit horizons start from their lines' floors. */
        horizon_generation_began(s);
        /* A full barrier: everything above is visible before the flag. */
        pg_atomic_fetch_add_u32(&s->floors_final, 1);
    }
    LWLockRelease(s->lease_lock);
}

static bool file_exists(const char *name)
{
    struct stat st;
    return stat(name, &st) == 0;
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
    for (const SchemeDef &scheme : SCHEMES)
        scheme.high_water(s, marks);
}

void lease_raise_floors(KidShared *s, const int64 want_us[LEASE_LINES])
{
    /*
     * An unverified lease: the floors after recovery would be the marks
     * kid.lease may lack.  A call that raises nothing only reads; one that
     * raises every id line to a time the operator gives vouches for what
     * the WAL replayed without kid held, and verifies the lease once done.
     */
    bool verifies = false;
    if (!lease_verified(s)) {
        bool any = false, all = true;
        for (int i = 0; i < LEASE_LINES; i++) {
            if (i == lease_line_scheme(i).horizon_line)
                continue;
            if (want_us[i] > 0)
                any = true;
            else
                all = false;
        }
        if (!any)
            return;
        if (!all)
            ereport(ERROR,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("kid_raise_floors() must raise every id line while kid.lease may "
                            "miss lease messages this server replayed without kid"),
                     errhint("Give every lease line but the commit horizons' a floor, or run "
                             "kid_adopt_database(floor => T).")));
        verifies = true;
    }
    /* The floors after recovery first: they are never applied on top of these. */
    if (pg_atomic_read_u32(&s->floors_final) == 0)
        lease_finalize_floors(s);
    check_lock_order(s);
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    LeaseFile lf = lease_current(s);
    /*
     * A line whose generators are already past the wanted floor's time unit
     * (ids this server made itself, before its newest) keeps its floor: the floor stays what start-up,
     * recovery or an earlier raise set.  A generator advancing meanwhile
     * only makes this read low, which raises a floor it did not need.
     */
    int64 high[LEASE_LINES];
    generator_high_water(s, high);
    int64 floors[LEASE_LINES];
    bool covered = true, rose = false;
    for (int i = 0; i < LEASE_LINES; i++) {
        floors[i] = static_cast<int64>(pg_atomic_read_u64(&s->floor_us[i]));
        if (want_us[i] < high[i])
            continue;
        if (want_us[i] > floors[i]) {
            floors[i] = want_us[i];
            rose = true;
        }
        /* The lease must reach the floor, or a crash would start below it. */
        if (want_us[i] > lf.own[i]) {
            lf.own[i] = want_us[i];
            covered = false;
        }
    }
    if (!covered)
        lease_write_ahead(s, lf);
    if (rose) {
        for (int i = 0; i < LEASE_LINES; i++)
            atomic_raise(&s->floor_us[i], static_cast<uint64>(floors[i]));
        raise_generators(s, floors);
        /* A full barrier: owned id partitions see the floors with the new epoch. */
        pg_atomic_fetch_add_u32(&s->floor_epoch, 2);
    }
    if (verifies && !lease_verified(s)) {
        pg_atomic_write_u32(&s->lease_unverified, 0);
        if (RecoveryInProgress()) {
            s->wal_state = static_cast<int>(LeaseWalState::replica);
            XLogRecPtr replayed = GetXLogReplayRecPtr(nullptr);
            if (replayed > s->wal_lsn)
                s->wal_lsn = replayed;
        } else {
            position_primary(s);
        }
        lease_write(lease_current(s), ERROR);
        ereport(LOG, (errmsg("kid: the lease is verified again: every id line's floor was "
                             "raised by hand")));
    }
    LWLockRelease(s->lease_lock);
}

/*
 * Whether pg_control says the server shut down cleanly: the shutdown
 * checkpoint (or, on a standby, restartpoint) is written, so the next
 * start-up replays no WAL this server wrote.  False when its CRC is wrong.
 *
 * get_controlfile() pallocs (in the postmaster's current context, which
 * is about to go away with the process) and raises ERROR when it cannot
 * read the file.  In this callback proc_exit is in progress, so elog.c
 * turns that ERROR into FATAL: the postmaster then finishes exiting with
 * status 1 (the remaining exit callbacks still run) and kid.lease keeps
 * the marks written ahead, which is the safe outcome.  The file was just
 * written by the shutdown checkpoint, so that is not expected to happen.
 */
static bool shutdown_checkpoint_written(ControlFileData *out)
{
    bool crc_ok = false;
    ControlFileData *cf = get_controlfile(DataDir, &crc_ok);
    bool clean = crc_ok && (cf->state == DB_SHUTDOWNED || cf->state == DB_SHUTDOWNED_IN_RECOVERY);
    *out = *cf;
    pfree(cf);
    return clean;
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
static void lease_write_at_shutdown(int code, Datum) noexcept
{
    KidShared *s = shared;
    if (code != 0 || s == nullptr)
        return;
    ControlFileData cf;
    if (!shutdown_checkpoint_written(&cf)) {
        ereport(LOG, (errmsg("kid: \"%s\" keeps the marks written ahead: no shutdown checkpoint",
                             LEASE_FILE)));
        return;
    }
    /*
     * A verified lease reflects every lease message before the shutdown
     * checkpoint (a primary's) or restartpoint (a standby's), where the
     * next start replays from.
     */
    if (lease_verified(s)) {
        bool primary = cf.state == DB_SHUTDOWNED;
        XLogRecPtr at = primary ? cf.checkPoint : cf.checkPointCopy.redo;
        s->wal_state = static_cast<int>(primary ? LeaseWalState::primary : LeaseWalState::replica);
        if (primary)
            s->wal_tli = cf.checkPointCopy.ThisTimeLineID;
        if (at > s->wal_lsn)
            s->wal_lsn = at;
    }
    LeaseFile lf = lease_current(s);
    generator_high_water(s, lf.own);
    lf.exact = true;
    if (lease_write(lf, LOG))
        ereport(LOG, (errmsg("kid: wrote the exact high-water marks of generated time to \"%s\"",
                             LEASE_FILE)));
}

void lease_register_shutdown_write()
{
    on_shmem_exit(pg_callback(lease_write_at_shutdown), 0);
}

/* Whether `name` is a lease line name kid.lease and the WAL record can carry. */
static bool line_name_ok(const char *name)
{
    if (name == nullptr || !(name[0] >= 'a' && name[0] <= 'z') ||
        strlen(name) > static_cast<size_t>(LEASE_LINE_NAME_MAX))
        return false;
    for (const char *c = name; *c != '\0'; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == ' ' || *c == '_'))
            return false;
    return true;
}

/*
 * Every lease line belongs to exactly one row of the scheme table, has a
 * name of its own and a setting that fits the file: else kid was built
 * wrong, and no lease it writes could be read back.
 */
static void check_scheme_table()
{
    int rows[LEASE_LINES] = {0};
    for (int i = 0; i < SCHEME_COUNT; i++)
        if (SCHEMES[i].scheme != i)
            elog(FATAL, "kid: row %d of the scheme table is scheme %d's", i,
                 static_cast<int>(SCHEMES[i].scheme));
    for (const SchemeDef &scheme : SCHEMES) {
        if ((scheme.next_key == nullptr) != scheme.per_backend)
            elog(FATAL,
                 "kid: scheme %s must have a horizon key exactly when it has a server-wide "
                 "generator",
                 scheme.name);
        if (scheme.lines < 1 || scheme.lines > SCHEME_LINES_MAX)
            elog(FATAL, "kid: scheme %s has %d lease lines", scheme.name, scheme.lines);
        for (int line = scheme.first_line; line < scheme.first_line + scheme.lines; line++)
            if (line >= 0 && line < LEASE_LINES)
                rows[line]++;
        if (scheme.horizon_line >= 0 && scheme.horizon_line < LEASE_LINES)
            rows[scheme.horizon_line]++;
        if ((scheme.horizon_line >= 0) != scheme.per_backend)
            elog(FATAL,
                 "kid: scheme %s must have a horizon lease line exactly when its generators "
                 "are per backend",
                 scheme.name);
        if (scheme.setting != nullptr &&
            (scheme.setting->words < 1 || scheme.setting->words > LEASE_WORDS_MAX))
            elog(FATAL, "kid: scheme %s has %d lease setting words", scheme.name,
                 scheme.setting->words);
    }
    for (int line = 0; line < LEASE_LINES; line++)
        if (rows[line] != 1)
            elog(FATAL, "kid: lease line %d is in %d rows of the scheme table", line, rows[line]);
    /* Now every line has its row, and a name. */
    for (int line = 0; line < LEASE_LINES; line++) {
        const char *name = lease_line_name(line);
        if (!line_name_ok(name) || lease_line_by_name(name, static_cast<int>(strlen(name))) != line)
            elog(FATAL, "kid: lease line %d has a name kid.lease cannot carry: \"%s\"", line,
                 name != nullptr ? name : "(none)");
    }
}

/* ---------------------------------------------------------------- where the marks stand in the WAL */

/*
 * Where the marks stand in the WAL.  A server without kid preloaded
 * replays kid's lease messages as core's no-op: its kid.lease learns
 * nothing, and once kid is back, generating above the file's marks could
 * repeat ids of the server that wrote that WAL (docs/lease.md, "Servers
 * that replayed without kid").  Every message carries every line's mark
 * and marks only rise, so the latest message of a WAL history dominates
 * the earlier ones: the file is safe when it reflects the latest message
 * before the point this start replays from.  kid.lease records how far it
 * does (lease_file.h):
 *  - primary: a primary wrote it, on <timeline>, in a data directory
 *    restored from <label> (0: never restored).  A primary writes the
 *    file before each message, so it reflects all of its own WAL; what a
 *    copy of the directory replays later (a standby, a restore) is not in
 *    it.  Written at each lease write, at a clean shutdown and once
 *    recovery ended (the partition launcher).
 *  - replica: every message before <lsn> is reflected.  The startup
 *    process with kid writes it at each lease message it replays and at
 *    each checkpoint record, before core's redo, so the restartpoint made
 *    from that record starts the next replay at or before <lsn>.
 *  - unverified: the file may miss messages; every generator refuses
 *    (55000) until a lease message replayed with kid, or the operator's
 *    floors (kid_raise_floors() naming every id line, as
 *    kid_adopt_database(floor => T) does), repair it.  Persistent: a copy of
 *    the directory inherits it.
 * At start-up, before recovery, lease_start compares the file with the
 * point the replay starts at, Z: backup_label's START WAL LOCATION when
 * there is one (a restore begins), else pg_control's redo pointer.  The
 * file is trusted when it holds a position at or after Z (everything
 * before Z is in it; what follows is replayed now, with kid), or when it
 * is a primary's on the timeline the replay starts on, of the same restore
 * (backup_label.old, when there is one, names the backup the file was
 * written under), and either a restore begins (the file was copied after
 * the backup started) or pg_control says the server ran as a primary
 * since (not a standby, not archive recovery): a primary's crash or clean
 * restart, however long it was idle.  A server without kid that replayed
 * another's WAL fails every one of these: a standby or archive recovery
 * (pg_control in recovery, restartpoints past the copied file), a
 * promotion (a new timeline), a restore by crash recovery (backup_label.old
 * names another backup than the copied file).
 */

/* What this start replays from, read before recovery. */
struct StartPoint {
    bool control_ok;         /* pg_control read, its CRC right */
    bool have_label;         /* backup_label: a restore begins */
    bool label_from_standby; /* its BACKUP FROM: standby */
    XLogRecPtr from;         /* Z: where the replay starts */
    TimeLineID tli;          /* the timeline it starts on */
    bool in_recovery;        /* pg_control: a standby, or archive recovery, ran last */
    bool have_old_label;     /* backup_label.old: the restore this directory came from */
    uint64 old_label;        /* its START WAL LOCATION */
    uint64 label;            /* what kid.lease records as its label from now on */
};

/*
 * START WAL LOCATION (and START TIMELINE) of a backup label file: 1 when
 * read, 0 when the file says neither (not a backup label kid can read),
 * -1 when there is none.
 */
static int read_backup_label(const char *name, uint64 *start, TimeLineID *tli,
                             bool *from_standby = nullptr)
{
    FILE *f = AllocateFile(name, "r");
    if (f == nullptr) {
        if (errno == ENOENT)
            return -1;
        ereport(FATAL, (errcode_for_file_access(),
                        errmsg("kid: could not read \"%s\" to check kid.lease: %m", name)));
    }
    char line[MAXPGPATH + 128];
    int found = 0;
    while (fgets(line, sizeof(line), f) != nullptr) {
        unsigned int hi, lo, t;
        if (sscanf(line, "START WAL LOCATION: %X/%X", &hi, &lo) == 2) {
            *start = static_cast<uint64>(hi) << 32 | lo;
            found = 1;
        } else if (from_standby != nullptr && strncmp(line, "BACKUP FROM: standby", 20) == 0) {
            *from_standby = true;
        } else if (tli != nullptr && sscanf(line, "START TIMELINE: %u", &t) == 1) {
            *tli = t;
        }
    }
    FreeFile(f);
    return found;
}

static StartPoint start_point()
{
    StartPoint sp;
    memset(&sp, 0, sizeof(sp));
    ControlFileData *cf = get_controlfile(DataDir, &sp.control_ok);
    sp.from = cf->checkPointCopy.redo;
    sp.tli = cf->checkPointCopy.ThisTimeLineID;
    sp.in_recovery = cf->state == DB_IN_ARCHIVE_RECOVERY || cf->state == DB_SHUTDOWNED_IN_RECOVERY;
    pfree(cf);
    uint64 start = 0;
    TimeLineID label_tli = 0;
    int r = read_backup_label(BACKUP_LABEL_FILE, &start, &label_tli, &sp.label_from_standby);
    if (r >= 0) {
        sp.have_label = true;
        /* One kid cannot read: no position is at or after it. */
        sp.from = r > 0 ? start : PG_UINT64_MAX;
        sp.tli = label_tli;
    }
    sp.have_old_label = read_backup_label(BACKUP_LABEL_OLD, &sp.old_label, nullptr) >= 0;
    /* backup_label becomes backup_label.old once recovery starts. */
    sp.label = sp.have_label ? start : sp.have_old_label ? sp.old_label : 0;
    return sp;
}

/*
 * Whether pg_wal has timeline tli's history file: a promotion (or the end
 * of an archive recovery) made it, branching from an earlier timeline.
 * pg_upgrade's pg_resetwal starts a timeline without one.
 */
static bool timeline_has_history(TimeLineID tli)
{
    if (tli <= 1)
        return false;
    char path[MAXPGPATH];
    TLHistoryFilePath(path, tli);
    struct stat st;
    return stat(path, &st) == 0;
}

/*
 * Whether kid.lease (read as lf; found: there was one) reflects every
 * lease message before sp.from.  `why` says why not.
 */
static bool position_trusted(const LeaseFile &lf, bool found, const StartPoint &sp,
                             const char **why)
{
    /* No file: no lease was ever written here, or copied (a copy made before the first). */
    if (!found || lf.wal_state == LeaseWalState::unknown)
        return true;
    if (lf.wal_state == LeaseWalState::unverified) {
        *why = "kid.lease says it was not verified (it was copied from, or is, a data "
               "directory that replayed lease messages without kid)";
        return false;
    }
    if (!sp.control_ok) {
        *why = "pg_control could not be read";
        return false;
    }
    if (lf.wal_lsn >= sp.from)
        return true;
    if (lf.wal_state == LeaseWalState::primary) {
        /* A file a primary wrote under another restore than this directory's: a copy. */
        bool other_restore = sp.have_old_label && sp.old_label != lf.wal_label;
        /*
         * A file without marks has nothing to miss of its own timeline
         * (pg_upgrade's new cluster, whose pg_resetwal may set another):
         * but not across a promotion, after which another primary's ids
         * may have been replayed without kid (a review).
         */
        bool same_timeline = lf.wal_tli == sp.tli ||
                             (!lease_has_marks(lf) && !timeline_has_history(sp.tli));
        if (!other_restore && same_timeline &&
            ((sp.have_label && !sp.label_from_standby) || (!sp.have_label && !sp.in_recovery)))
            return true;
        *why = other_restore    ? "a primary wrote kid.lease under another backup than the one "
                                  "this data directory was restored from"
               : !same_timeline ? "a primary wrote kid.lease on another timeline"
                                : "kid.lease is a primary's, and this server replayed as a "
                                  "standby or in archive recovery since";
        return false;
    }
    *why = "kid.lease reflects the lease messages before an earlier position only";
    return false;
}

/*
 * At start-up (see lease.h).  Each scheme with a lease setting brings the
 * marks of its lines to this server's settings (koid: the epoch; uid: the
 * interval, and the uid_global guard); after archive recovery the
 * promotion margin is made durable as pending.
 */
void lease_start(KidShared *s)
{
    check_scheme_table();
    LeaseFile lf;
    s->startup_found = lease_read(&lf);
    StartPoint sp = start_point();
    const char *why = nullptr;
    bool trusted = position_trusted(lf, s->startup_found, sp, &why);
    for (int i = 0; i < LEASE_LINES; i++) {
        const LeaseSetting *setting = lease_line_scheme(i).setting;
        if (setting != nullptr)
            setting->load(s, static_cast<LeaseLine>(i), lf.has_line[i] ? lf.words[i] : nullptr,
                          &lf.own[i], &lf.replayed[i]);
    }
    /* Exact marks: a clean shutdown; the generators continue just above them. */
    s->startup_exact = s->startup_found && lf.exact;
    s->own_exact = s->startup_exact;
    if (s->startup_exact)
        ereport(LOG, (errmsg("kid: starting above the exact high-water marks of the last "
                             "clean shutdown")));
    /*
     * Archive recovery (a standby, a point-in-time restore) ends in a
     * promotion; the margin is added then.  The file remembers that it
     * is pending, in case the promoted server stops before it generated.
     */
    s->start_signal = file_exists(STANDBY_SIGNAL_FILE) || file_exists(RECOVERY_SIGNAL_FILE);
    s->archive_recovery = lf.margin_pending || s->start_signal;
    for (int i = 0; i < LEASE_LINES; i++) {
        s->startup_floor_us[i] = lf.own[i];
        /* The file already covers everything below its marks. */
        pg_atomic_init_u64(&s->lease_us[i], static_cast<uint64>(lf.own[i]));
        pg_atomic_init_u64(&s->replayed_us[i], static_cast<uint64>(lf.replayed[i]));
        pg_atomic_init_u64(&s->floor_us[i], static_cast<uint64>(lf.own[i]));
        s->first_us[i] = 0;
        s->replayed_writer.node_fields[i] = -1;
    }
    pg_atomic_init_u32(&s->floor_epoch, 2);
    pg_atomic_init_u32(&s->floors_final, 0);
    s->replayed_writer.node_id = -1;
    pg_atomic_init_u64(&s->lease_writes, 0);
    pg_atomic_init_u64(&s->lease_records, 0);
    pg_atomic_init_u64(&s->replayed_records, 0);
    /*
     * Where the marks stand from here on, durable before recovery starts:
     * trusted, everything before the replay's start is in the file (and the
     * replay, with kid, does the rest); not, the file says so, for this
     * server and any copy of it.
     */
    pg_atomic_init_u32(&s->lease_unverified, trusted ? 0 : 1);
    s->wal_tli = trusted ? sp.tli : lf.wal_tli;
    s->wal_label = sp.label;
    s->wal_lsn = lf.wal_state == LeaseWalState::unknown ? 0 : lf.wal_lsn;
    s->gap_from = s->wal_lsn;
    s->gap_to = sp.from;
    if (trusted) {
        s->wal_state = static_cast<int>(s->start_signal ? LeaseWalState::replica
                                                        : LeaseWalState::primary);
        if (sp.control_ok && sp.from != PG_UINT64_MAX && sp.from > s->wal_lsn)
            s->wal_lsn = sp.from;
    } else {
        s->wal_state = static_cast<int>(LeaseWalState::unverified);
        ereport(WARNING,
                (errmsg("kid: generation is refused: \"%s\" may miss lease messages replayed "
                        "without kid",
                        LEASE_FILE),
                 errdetail("%s; the WAL from %X/%X to %X/%X was replayed without kid.", why,
                           LSN_ARGS(s->gap_from), LSN_ARGS(s->gap_to)),
                 errhint("A lease message replayed with kid repairs it; else, as a superuser, run "
                         "SELECT kid_adopt_database(floor => T), T a time at or after the last "
                         "id the server that wrote that WAL may have made (kid's docs/lease.md, "
                         "\"Servers that replayed without kid\").")));
    }
    if (s->startup_found || !trusted)
        lease_write(lease_current(s), ERROR);
    if (s->archive_recovery && !lf.margin_pending && lease_has_marks(lf)) {
        /*
         * The pending margin must be durable: after a promotion and a
         * crash before the first id, standby.signal is gone and only the
         * file remembers the margin.  ERROR is FATAL in the postmaster:
         * no standby starts without it.  The file as shared memory has it
         * now: marks and settings translated.
         */
        LeaseFile now = lease_current(s);
        now.margin_pending = true;
        lease_write(now, ERROR);
    }

    /* Every generator starts above the persisted mark of its lines. */
    raise_generators(s, lf.own);
}

} // namespace kid::pg
