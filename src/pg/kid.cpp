/*
 * kid.cpp - module entry point: settings, shared-memory hooks, and the
 * server-wide introspection functions.
 */
#include "koid.h"
#include "shmem.h"
#include "sno.h"
#include "tid.h"
#include "uid.h"

extern "C" {
#include "funcapi.h"
#include "access/rmgr.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void _PG_init(void);
}

namespace kid::pg {

int node_id = 0;
bool standby_generation = false;
double koid_epoch_ms = 0;
int koid_generator_id = -1;
bool koid_overflow_error = false;
int koid_max_clock_wait_ms = 1000;
int uid_interval = 8;
int wal_rmgr_id = RM_EXPERIMENTAL_ID;
/* The uid node fingerprint in use: kid.uid_node, or derived from kid.node_id. */
uint32 uid_node = 0;
static char *uid_node_setting = nullptr;

/* kid.uid_node: empty, or exactly 8 hexadecimal digits. */
static bool check_uid_node(char **newval, void **, GucSource)
{
    const char *v = *newval;
    if (v == nullptr || v[0] == '\0')
        return true;
    if (strlen(v) != 8 || strspn(v, "0123456789abcdefABCDEF") != 8) {
        GUC_check_errdetail("kid.uid_node must be empty or exactly 8 hexadecimal digits.");
        return false;
    }
    return true;
}

static void assign_uid_node(const char *newval, void *)
{
    uid_node = (newval && newval[0]) ? static_cast<uint32>(strtoul(newval, nullptr, 16))
                                     : kid::uid_node_fingerprint(static_cast<uint32>(node_id));
}

} // namespace kid::pg

void _PG_init(void)
{
    /*
     * Loaded on first use instead of at server start: the types and decoders
     * work, generation reports how to preload.  The settings only matter to
     * generation, and a PGC_POSTMASTER setting cannot be created after
     * start-up, so define nothing (as contrib/pg_stat_statements does).
     */
    if (!process_shared_preload_libraries_in_progress)
        return;

    DefineCustomIntVariable(
        "kid.node_id",
        "Identifies this server among the servers generating ids into one key space.",
        "Part of every generated id but plain uid: the high byte of the sno partition, the "
        "tid clock id, the default koid generator id and the default uid_global node "
        "fingerprint. Servers that generate into the same tables must have distinct node ids; "
        "a local uid has no node field and is unique within one server only.",
        &kid::pg::node_id, 0, 0, kid::pg::NODE_ID_MAX, PGC_POSTMASTER, 0, nullptr, nullptr,
        nullptr);

    DefineCustomBoolVariable(
        "kid.standby_generation",
        "Allows generating ids while the server is in recovery (a standby).",
        "A standby normally shares the primary's kid.node_id; enable this only on a standby "
        "that has a node id of its own.",
        &kid::pg::standby_generation, false, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);

    DefineCustomRealVariable(
        "kid.koid_epoch_ms",
        "The epoch of koid timestamps, in milliseconds since 1970-01-01 UTC.",
        "Fixed while the server runs; must not be in the future. Decoders and range "
        "comparisons of koid use it too.",
        &kid::pg::koid_epoch_ms, 0, 0, 4398046511103.0, PGC_POSTMASTER, 0, nullptr, nullptr,
        nullptr);
    DefineCustomIntVariable(
        "kid.koid_generator_id",
        "The 10-bit generator id (datacenter * 32 + worker) of koids made here; -1 uses kid.node_id.",
        nullptr, &kid::pg::koid_generator_id, -1, -1, 1023, PGC_POSTMASTER, 0, nullptr, nullptr,
        nullptr);
    DefineCustomBoolVariable(
        "kid.koid_overflow_error",
        "Raise an error instead of waiting when 4096 koids were made in one millisecond.",
        nullptr, &kid::pg::koid_overflow_error, false, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "kid.koid_max_clock_wait_ms",
        "How long koid_new() waits for a clock that went back before raising an error.",
        nullptr, &kid::pg::koid_max_clock_wait_ms, 1000, 0, 3600000, PGC_SUSET, GUC_UNIT_MS,
        nullptr, nullptr, nullptr);

    DefineCustomIntVariable(
        "kid.uid_interval",
        "The neighbourhood interval I (5..10) of uid_global ids made and decoded here.",
        "Within a 2^I-second window global ids sort by node first.",
        &kid::pg::uid_interval, kid::UID_INTERVAL_DEFAULT, kid::UID_INTERVAL_MIN,
        kid::UID_INTERVAL_MAX, PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
    /* Defined after kid.node_id, from which the default fingerprint is derived. */
    DefineCustomStringVariable(
        "kid.uid_node",
        "The 32-bit node fingerprint of uid_global ids, as 8 hex digits; empty derives it from kid.node_id.",
        nullptr, &kid::pg::uid_node_setting, "", PGC_POSTMASTER, 0, kid::pg::check_uid_node,
        kid::pg::assign_uid_node, nullptr);

    DefineCustomIntVariable(
        "kid.wal_rmgr_id",
        "The id of kid's custom WAL resource manager (lease records).",
        "Must be the same on a primary and every server that replays its WAL, and must not be "
        "used by another extension. 128 is PostgreSQL's id for extensions in development.",
        &kid::pg::wal_rmgr_id, RM_EXPERIMENTAL_ID, RM_MIN_CUSTOM_ID, RM_MAX_CUSTOM_ID,
        PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);

    MarkGUCPrefixReserved("kid");
    kid::pg::install_shmem_hooks();
    kid::pg::lease_wal_register();
}

/*
 * kid_generator_stats(): one row per scheme (SQL type names; uid counts
 * uid and uid_global, which share one generator) with what it did since
 * the server started: ids generated; regressions, the ids (koid: calls)
 * made while the clock read below a reading seen before (a clock that went
 * back, nothing else); overflow_waits, waits because the ids of the current
 * time unit ran out (sno, koid, uid); clock_waits, waits for a clock behind
 * the generator (sno, koid); ahead_waits, waits because the next tid would
 * be more than kid::TID_MAX_AHEAD_US ahead of the clock.
 */
enum StatsColumn {
    STATS_SCHEME,
    STATS_GENERATED,
    STATS_REGRESSIONS,
    STATS_OVERFLOW_WAITS,
    STATS_CLOCK_WAITS,
    STATS_AHEAD_WAITS,
    STATS_COLUMNS
};

KID_FUNCTION(kid_generator_stats)
{
    ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    InitMaterializedSRF(fcinfo, 0);
    kid::pg::KidShared *s = kid::pg::shared;
    if (s == nullptr)
        PG_RETURN_VOID();

    Datum values[STATS_COLUMNS];
    bool nulls[STATS_COLUMNS];
    for (bool &n : nulls)
        n = false;
    uint64 generated = 0, regressions = 0, overflow_waits = 0, clock_waits = 0;
    for (const auto &slot : s->slots) {
        generated += slot.gen.generated;
        regressions += slot.gen.regressions;
        overflow_waits += slot.gen.overflow_waits;
        clock_waits += slot.gen.clock_waits;
    }
    values[STATS_SCHEME] = CStringGetTextDatum("sno");
    values[STATS_GENERATED] = Int64GetDatum(static_cast<int64>(generated));
    values[STATS_REGRESSIONS] = Int64GetDatum(static_cast<int64>(regressions));
    values[STATS_OVERFLOW_WAITS] = Int64GetDatum(static_cast<int64>(overflow_waits));
    values[STATS_CLOCK_WAITS] = Int64GetDatum(static_cast<int64>(clock_waits));
    values[STATS_AHEAD_WAITS] = Int64GetDatum(0);
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);

    for (int k = 0; k < kid::pg::COUNTER_SCHEMES; k++) {
        kid::pg::CounterStats &st = s->counters[k].stats;
        values[STATS_SCHEME] = CStringGetTextDatum(kid::pg::COUNTER_SCHEME_NAMES[k]);
        values[STATS_GENERATED] = Int64GetDatum(static_cast<int64>(pg_atomic_read_u64(&st.generated)));
        values[STATS_REGRESSIONS] = Int64GetDatum(static_cast<int64>(pg_atomic_read_u64(&st.regressions)));
        values[STATS_OVERFLOW_WAITS] =
            Int64GetDatum(static_cast<int64>(pg_atomic_read_u64(&st.overflow_waits)));
        values[STATS_CLOCK_WAITS] = Int64GetDatum(static_cast<int64>(pg_atomic_read_u64(&st.clock_waits)));
        values[STATS_AHEAD_WAITS] = Int64GetDatum(static_cast<int64>(pg_atomic_read_u64(&st.ahead_waits)));
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    PG_RETURN_VOID();
}

/* kid_lease(): the persisted high-water marks, one row per lease line, for monitoring and the fault tests. */
KID_FUNCTION(kid_lease)
{
    ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    InitMaterializedSRF(fcinfo, 0);
    kid::pg::KidShared *s = kid::pg::shared;
    if (s == nullptr)
        PG_RETURN_VOID();
    for (int i = 0; i < kid::pg::LEASE_LINES; i++) {
        Datum values[3];
        bool nulls[3] = {false, false, false};
        values[0] = CStringGetTextDatum(kid::pg::LEASE_LINE_NAMES[i]);
        int64 lease = static_cast<int64>(pg_atomic_read_u64(&s->lease_us[i]));
        int64 floor = s->startup_floor_us[i];
        nulls[1] = lease == 0;
        nulls[2] = floor == 0;
        values[1] = TimestampTzGetDatum(kid::pg::timestamptz_from_unix_us(lease));
        values[2] = TimestampTzGetDatum(kid::pg::timestamptz_from_unix_us(floor));
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    PG_RETURN_VOID();
}

/* NULL for a zero mark ("none"), else the mark as a timestamptz. */
static void put_mark(Datum *value, bool *null, int64 unix_us)
{
    *null = unix_us == 0;
    *value = TimestampTzGetDatum(kid::pg::timestamptz_from_unix_us(unix_us));
}

static int64 max_of(int64 a, int64 b)
{
    return a > b ? a : b;
}

/* The smaller non-zero value, or 0. */
static int64 min_nonzero(int64 a, int64 b)
{
    if (a == 0)
        return b;
    if (b == 0)
        return a;
    return a < b ? a : b;
}

/*
 * kid_node_info(): one row per scheme with what identifies this server's
 * ids and what it generated since start-up, for spotting two servers that
 * generate with the same node id, and the lease marks written and
 * replayed.  startup_mark says whether the startup floor is the exact
 * high-water mark a clean shutdown wrote ("exact") or a lease written ahead
 * ("ahead": after a crash or an immediate shutdown).  Times are those the
 * lease uses: the end of an id's time unit (4 ms for sno, 1 ms for koid,
 * 1.024 ms for uid, 1 us for tid); each scheme has its own lease line (sno
 * two, shown together).
 */
KID_FUNCTION(kid_node_info)
{
    using namespace kid::pg;
    ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    InitMaterializedSRF(fcinfo, 0);
    KidShared *s = shared;
    const char *refusal = generation_refusal();
    static const char *const schemes[4] = {"sno", "atproto_tid", "koid", "uid"};
    constexpr int NCOLS = 18;

    for (int k = 0; k < 4; k++) {
        Datum values[NCOLS];
        bool nulls[NCOLS];
        for (int i = 0; i < NCOLS; i++) {
            values[i] = 0;
            nulls[i] = true;
        }
        values[0] = CStringGetTextDatum(schemes[k]);
        nulls[0] = false;
        values[4] = CStringGetTextDatum(refusal ? refusal : "allowed");
        nulls[4] = false;
        /* The system identifier is known with or without preloading. */
        values[3] = Int64GetDatum(static_cast<int64>(GetSystemIdentifier()));
        nulls[3] = false;
        if (s == nullptr) {
            tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
            continue;
        }
        values[1] = Int32GetDatum(node_id);
        nulls[1] = false;
        /* The node field the scheme puts in each id. */
        int64 field = k == 2 ? effective_koid_generator_id() : k == 3 ? static_cast<int64>(uid_node) : node_id;
        values[2] = Int64GetDatum(field);
        nulls[2] = false;

        int64 generated = 0, last_us = 0, first_us = 0, startup = 0, floor = 0, covered = 0, replayed = 0;
        char last_id[32];
        bool have_last_id = false;
        if (k == 0) {
            int64 hi = -1;
            for (const auto &slot : s->slots) {
                generated += static_cast<int64>(slot.gen.generated);
                hi = max_of(hi, max_of(slot.gen.hi[0], slot.gen.hi[1]));
            }
            /* Like the lease: the end of the id's 4 ms unit. */
            if (generated > 0 && hi >= 0)
                last_us = (kid::SNO_EPOCH_MS + (hi + 1) * kid::SNO_UNIT_MS) * 1000 - 1;
            first_us = min_nonzero(s->first_us[LEASE_SNO_TICK0], s->first_us[LEASE_SNO_TICK1]);
            for (int line = LEASE_SNO_TICK0; line <= LEASE_SNO_TICK1; line++) {
                startup = max_of(startup, s->startup_floor_us[line]);
                floor = max_of(floor, static_cast<int64>(pg_atomic_read_u64(&s->floor_us[line])));
                covered = max_of(covered, static_cast<int64>(pg_atomic_read_u64(&s->lease_us[line])));
                replayed = max_of(replayed, static_cast<int64>(pg_atomic_read_u64(&s->replayed_us[line])));
            }
        } else {
            /* Rows 1..3: atproto_tid, koid, uid, each with its own generator and lease line. */
            static const CounterScheme counter_of_row[4] = {COUNTER_SCHEMES, COUNTER_TID,
                                                            COUNTER_KOID, COUNTER_UID};
            static const LeaseLine line_of_row[4] = {LEASE_LINES, LEASE_TID, LEASE_KOID, LEASE_UID};
            CounterScheme scheme = counter_of_row[k];
            LeaseLine line = line_of_row[k];
            generated = static_cast<int64>(pg_atomic_read_u64(&s->counters[scheme].stats.generated));
            first_us = s->first_us[line];
            startup = s->startup_floor_us[line];
            floor = static_cast<int64>(pg_atomic_read_u64(&s->floor_us[line]));
            covered = static_cast<int64>(pg_atomic_read_u64(&s->lease_us[line]));
            replayed = static_cast<int64>(pg_atomic_read_u64(&s->replayed_us[line]));
            if (generated > 0) {
                have_last_id = true;
                uint64 state = pg_atomic_read_u64(&s->counters[scheme].state);
                if (scheme == COUNTER_TID) {
                    last_us = static_cast<int64>(state);
                    kid::tid_encode(kid::tid_pack(last_us, static_cast<unsigned>(node_id)), last_id);
                    last_id[kid::TID_TEXT_LEN] = '\0';
                } else if (scheme == COUNTER_KOID) {
                    int64 ms = static_cast<int64>(state >> 12);
                    last_us = (ms + 1 + koid_epoch_whole_ms()) * 1000 - 1;
                    kid::koid_encode(kid::koid_pack(ms, static_cast<unsigned>(effective_koid_generator_id()),
                                                    static_cast<unsigned>(state & 4095)),
                                     last_id);
                    last_id[kid::KOID_TEXT_LEN] = '\0';
                } else {
                    kid::UidFields f = kid::uid_fields_from_word(state);
                    last_us = kid::uid_unix_us(f) + 1023;
                    kid::uid_local_encode(kid::uid_local_pack(f), last_id);
                    last_id[kid::UID_LOCAL_TEXT_LEN] = '\0';
                }
            }
        }
        values[5] = Int64GetDatum(generated);
        nulls[5] = false;
        put_mark(&values[6], &nulls[6], generated > 0 ? first_us : 0);
        put_mark(&values[7], &nulls[7], last_us);
        if (have_last_id) {
            values[8] = CStringGetTextDatum(last_id);
            nulls[8] = false;
        }
        put_mark(&values[9], &nulls[9], startup);
        /* What kind of mark the startup floor is; NULL when there was no kid.lease. */
        if (s->startup_found) {
            values[10] = CStringGetTextDatum(s->startup_exact ? "exact" : "ahead");
            nulls[10] = false;
        }
        put_mark(&values[11], &nulls[11], floor);
        put_mark(&values[12], &nulls[12], covered);
        put_mark(&values[13], &nulls[13], replayed);
        if (s->replayed_writer.node_id >= 0) {
            values[14] = Int32GetDatum(s->replayed_writer.node_id);
            nulls[14] = false;
        }
        values[15] = Int64GetDatum(static_cast<int64>(pg_atomic_read_u64(&s->lease_writes)));
        values[16] = Int64GetDatum(static_cast<int64>(pg_atomic_read_u64(&s->lease_records)));
        values[17] = Int64GetDatum(static_cast<int64>(pg_atomic_read_u64(&s->replayed_records)));
        nulls[15] = nulls[16] = nulls[17] = false;
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    PG_RETURN_VOID();
}
