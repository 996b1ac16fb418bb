/*
 * kid.cpp - module entry point: settings, shared-memory hooks, and the
 * server-wide introspection functions.
 */
#include "koid.h"
#include "shmem.h"
#include "sno.h"
#include "tid.h"
#include "uid.h"

#include <cmath>

extern "C" {
#include "funcapi.h"
#include "access/rmgr.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"

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

/*
 * The settings that are fixed while kid runs (PGC_POSTMASTER when kid is
 * preloaded).  A backend that loads kid lazily cannot define PGC_POSTMASTER
 * settings (guc.c's init_custom_variable raises FATAL), so there they are
 * PGC_SIGHUP: define_custom_variable then applies the value postgresql.conf
 * (or the server command line) gave the placeholder, and neither SET nor
 * ALTER ROLE/DATABASE can change them.  Once _PG_init has finished, the
 * check hooks below refuse any other value (a reload with a changed file,
 * ALTER SYSTEM in that session, or a parallel worker whose leader read
 * another one: ERROR there rather than other answers), so IMMUTABLE
 * decoders keep giving the same answer in a session.  Sessions started
 * after a reload read the new file, hence "change them with a restart".
 * The values taken at load are kept in fixed_values[], in this order.
 */
enum FixedSetting { FIX_NODE_ID, FIX_KOID_EPOCH, FIX_KOID_GENERATOR, FIX_UID_INTERVAL, FIX_WAL_RMGR, FIX_COUNT };
static const char *const fixed_names[FIX_COUNT] = {"kid.node_id", "kid.koid_epoch_ms",
                                                   "kid.koid_generator_id", "kid.uid_interval",
                                                   "kid.wal_rmgr_id"};
static bool settings_fixed = false;
static double fixed_values[FIX_COUNT];
static char fixed_uid_node[9];

static bool refuse_change(int which)
{
    GUC_check_errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM);
    GUC_check_errmsg("parameter \"%s\" cannot be changed in a session that has loaded kid",
                     fixed_names[which]);
    GUC_check_errdetail("Without shared_preload_libraries, kid reads its settings from the "
                        "server configuration once, when a session first uses it; restart the "
                        "server after changing them.");
    return false;
}

/* Accepts boot values (GUC initialisation, parallel workers resetting) and the value taken at load. */
template <int Which> static bool check_fixed_int(int *newval, void **, GucSource source)
{
    if (!settings_fixed || source == PGC_S_DEFAULT || *newval == fixed_values[Which])
        return true;
    return refuse_change(Which);
}

/* kid.koid_epoch_ms: a whole number of milliseconds (a fraction would be dropped silently). */
static bool check_koid_epoch(double *newval, void **, GucSource source)
{
    if (*newval != floor(*newval)) {
        GUC_check_errdetail("kid.koid_epoch_ms must be a whole number of milliseconds.");
        return false;
    }
    if (!settings_fixed || source == PGC_S_DEFAULT || *newval == fixed_values[FIX_KOID_EPOCH])
        return true;
    return refuse_change(FIX_KOID_EPOCH);
}

/*
 * SHOW kid.koid_epoch_ms: every digit (a real setting shows %g by default,
 * so 1288834974657 would read 1.28883e+12).  The value is a whole number.
 */
static const char *show_koid_epoch()
{
    static char buf[32];
    snprintf(buf, sizeof(buf), "%.0f", koid_epoch_ms);
    return buf;
}

/* kid.uid_node: empty, or exactly 8 hexadecimal digits. */
static bool check_uid_node(char **newval, void **, GucSource source)
{
    const char *v = *newval ? *newval : "";
    if (v[0] != '\0' && (strlen(v) != 8 || strspn(v, "0123456789abcdefABCDEF") != 8)) {
        GUC_check_errdetail("kid.uid_node must be empty or exactly 8 hexadecimal digits.");
        return false;
    }
    if (!settings_fixed || source == PGC_S_DEFAULT || strcmp(v, fixed_uid_node) == 0)
        return true;
    GUC_check_errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM);
    GUC_check_errmsg("parameter \"kid.uid_node\" cannot be changed in a session that has loaded kid");
    return false;
}

static void derive_uid_node()
{
    const char *v = uid_node_setting;
    uid_node = (v && v[0]) ? static_cast<uint32>(strtoul(v, nullptr, 16))
                           : kid::uid_node_fingerprint(static_cast<uint32>(node_id));
}

static void assign_uid_node(const char *newval, void *)
{
    uid_node_setting = const_cast<char *>(newval);
    derive_uid_node();
}

/* The derived fingerprint follows kid.node_id whichever of the two is assigned last. */
static void assign_node_id(int newval, void *)
{
    node_id = newval;
    derive_uid_node();
}

/*
 * An invalid value of a kid setting must not leave kid running with the
 * default: PostgreSQL's define_custom_variable only logs a WARNING and keeps
 * the default when the value it finds for a placeholder is out of range,
 * unparsable, refused by the check hook or set from a source the context
 * does not allow.  So _PG_init reads each setting's raw value before
 * defining it and afterwards checks that the variable holds exactly that
 * value, parsed with the same rules; otherwise it raises an ERROR naming the
 * setting.  While preloading, an ERROR in the postmaster is FATAL: the
 * server does not start.  In a backend that loads kid lazily the ERROR
 * fails the statement, and every later use of kid in the session fails with
 * the same message (see _PG_init).
 */
enum class Kind { integer, real, boolean, string };
struct SettingSpec {
    const char *name;
    Kind kind;
    const void *variable;
    double min, max;
    int flags;
    const char *expected; /* what a valid value is, for the message */
};

static const SettingSpec setting_specs[] = {
    {"kid.node_id", Kind::integer, &node_id, 0, NODE_ID_MAX, 0, "an integer from 0 to 255"},
    {"kid.standby_generation", Kind::boolean, &standby_generation, 0, 0, 0, "a boolean"},
    {"kid.koid_epoch_ms", Kind::real, &koid_epoch_ms, 0, 4398046511103.0, 0,
     "a whole number of milliseconds from 0 to 4398046511103"},
    {"kid.koid_generator_id", Kind::integer, &koid_generator_id, -1, 1023, 0,
     "an integer from -1 to 1023"},
    {"kid.koid_overflow_error", Kind::boolean, &koid_overflow_error, 0, 0, 0, "a boolean"},
    {"kid.koid_max_clock_wait_ms", Kind::integer, &koid_max_clock_wait_ms, 0, 3600000,
     GUC_UNIT_MS, "a time from 0 to 3600000 ms"},
    {"kid.uid_interval", Kind::integer, &uid_interval, kid::UID_INTERVAL_MIN,
     kid::UID_INTERVAL_MAX, 0, "an integer from 5 to 10"},
    {"kid.uid_node", Kind::string, &uid_node_setting, 0, 0, 0,
     "empty or exactly 8 hexadecimal digits"},
    {"kid.wal_rmgr_id", Kind::integer, &wal_rmgr_id, RM_MIN_CUSTOM_ID, RM_MAX_CUSTOM_ID, 0,
     "an integer from 128 to 255"},
};
constexpr int SETTING_COUNT = sizeof(setting_specs) / sizeof(setting_specs[0]);

/* Whether the defined variable holds exactly the value `raw` stands for. */
static bool setting_took(const SettingSpec &spec, const char *raw, bool *parsed)
{
    *parsed = true;
    switch (spec.kind) {
    case Kind::integer: {
        int v;
        if (!parse_int(raw, &v, spec.flags, nullptr) || v < spec.min || v > spec.max)
            return *parsed = false;
        return v == *static_cast<const int *>(spec.variable);
    }
    case Kind::real: {
        double v;
        if (!parse_real(raw, &v, spec.flags, nullptr) || !(v >= spec.min && v <= spec.max) ||
            v != floor(v))
            return *parsed = false;
        return v == *static_cast<const double *>(spec.variable);
    }
    case Kind::boolean: {
        bool v;
        if (!parse_bool(raw, &v))
            return *parsed = false;
        return v == *static_cast<const bool *>(spec.variable);
    }
    case Kind::string: {
        const char *v = *static_cast<char *const *>(spec.variable);
        if (raw[0] != '\0' && (strlen(raw) != 8 || strspn(raw, "0123456789abcdefABCDEF") != 8))
            return *parsed = false;
        return strcmp(raw, v ? v : "") == 0;
    }
    }
    return false;
}

/* The first problem found, kept so that a failed lazy load fails the same way each time. */
static char settings_error[512];
static char settings_detail[512];

[[noreturn]] static void report_settings_error()
{
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s", settings_error),
                    errdetail("%s", settings_detail),
                    errhint("kid reads its settings from postgresql.conf (or the server command line) "
                            "when the server starts; fix them there and restart.")));
    pg_unreachable();
}

/*
 * A kid.* name kid does not define, given in the server configuration (a
 * misspelt setting would otherwise leave the default in force with only a
 * WARNING from MarkGUCPrefixReserved).  Names set in a session, by a role
 * or by a client are left to MarkGUCPrefixReserved, which removes them.
 */
static bool find_unknown_setting()
{
    struct config_generic **vars = get_guc_variables();
    int n = GetNumConfigOptions();
    for (int i = 0; i < n; i++) {
        const config_generic *g = vars[i];
        if (!(g->flags & GUC_CUSTOM_PLACEHOLDER) || strncmp(g->name, "kid.", 4) != 0)
            continue;
        if (g->reset_source != PGC_S_FILE && g->reset_source != PGC_S_ARGV)
            continue;
        bool known = false;
        for (const SettingSpec &spec : setting_specs)
            known = known || strcmp(g->name, spec.name) == 0;
        if (known)
            continue;
        snprintf(settings_error, sizeof(settings_error),
                 "unrecognized configuration parameter \"%s\"", g->name);
        snprintf(settings_detail, sizeof(settings_detail),
                 "kid defines kid.node_id, kid.standby_generation, kid.koid_epoch_ms, "
                 "kid.koid_generator_id, kid.koid_overflow_error, kid.koid_max_clock_wait_ms, "
                 "kid.uid_interval, kid.uid_node and kid.wal_rmgr_id.");
        return true;
    }
    return false;
}

} // namespace kid::pg

void _PG_init(void)
{
    using namespace kid::pg;
    /*
     * A lazy load whose _PG_init raised an ERROR is retried on the next call
     * of a kid function (the library was not recorded as loaded), but the
     * settings are defined already: fail the same way again.
     */
    static bool defined = false;
    if (defined) {
        if (settings_error[0])
            report_settings_error();
        return;
    }
    defined = true;

    const bool preloading = process_shared_preload_libraries_in_progress;
    const GucContext fixed = preloading ? PGC_POSTMASTER : PGC_SIGHUP;

    /* The raw values given for the placeholders, copied before defining replaces them. */
    char *raw[SETTING_COUNT];
    for (int i = 0; i < SETTING_COUNT; i++) {
        const char *name = setting_specs[i].name;
        const char *v = GetConfigOption(name, true, false) ? GetConfigOptionResetString(name) : nullptr;
        raw[i] = v ? pstrdup(v) : nullptr;
    }
    bool unknown = find_unknown_setting();

    DefineCustomIntVariable(
        "kid.node_id",
        "Identifies this server among the servers generating ids into one key space.",
        "Part of every generated id but plain uid: the high byte of the sno partition, the "
        "tid clock id, the default koid generator id and the default uid_global node "
        "fingerprint. Servers that generate into the same tables must have distinct node ids; "
        "a local uid has no node field and is unique within one server only.",
        &node_id, 0, 0, NODE_ID_MAX, fixed, 0, check_fixed_int<FIX_NODE_ID>, assign_node_id,
        nullptr);

    DefineCustomBoolVariable(
        "kid.standby_generation",
        "Allows generating ids while the server is in recovery (a standby).",
        "A standby normally shares the primary's kid.node_id; enable this only on a standby "
        "that has a node id of its own.",
        &standby_generation, false, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);

    DefineCustomRealVariable(
        "kid.koid_epoch_ms",
        "The epoch of koid timestamps, in milliseconds since 1970-01-01 UTC.",
        "Fixed while the server runs; must not be in the future. Decoders and range "
        "comparisons of koid use it too.",
        &koid_epoch_ms, 0, 0, 4398046511103.0, fixed, 0, check_koid_epoch, nullptr,
        show_koid_epoch);
    DefineCustomIntVariable(
        "kid.koid_generator_id",
        "The 10-bit generator id (datacenter * 32 + worker) of koids made here; -1 uses kid.node_id.",
        nullptr, &koid_generator_id, -1, -1, 1023, fixed, 0, check_fixed_int<FIX_KOID_GENERATOR>,
        nullptr, nullptr);
    DefineCustomBoolVariable(
        "kid.koid_overflow_error",
        "Raise an error instead of waiting when 4096 koids were made in one millisecond.",
        nullptr, &koid_overflow_error, false, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "kid.koid_max_clock_wait_ms",
        "How long koid_new() waits for a clock that went back before raising an error.",
        nullptr, &koid_max_clock_wait_ms, 1000, 0, 3600000, PGC_SUSET, GUC_UNIT_MS,
        nullptr, nullptr, nullptr);

    DefineCustomIntVariable(
        "kid.uid_interval",
        "The neighbourhood interval I (5..10) of uid_global ids made and decoded here.",
        "Within a 2^I-second window global ids sort by node first.",
        &uid_interval, kid::UID_INTERVAL_DEFAULT, kid::UID_INTERVAL_MIN, kid::UID_INTERVAL_MAX,
        fixed, 0, check_fixed_int<FIX_UID_INTERVAL>, nullptr, nullptr);
    DefineCustomStringVariable(
        "kid.uid_node",
        "The 32-bit node fingerprint of uid_global ids, as 8 hex digits; empty derives it from kid.node_id.",
        nullptr, &uid_node_setting, "", fixed, 0, check_uid_node, assign_uid_node, nullptr);

    DefineCustomIntVariable(
        "kid.wal_rmgr_id",
        "The id of kid's custom WAL resource manager (lease records).",
        "Must be the same on a primary and every server that replays its WAL, and must not be "
        "used by another extension. 128 is PostgreSQL's id for extensions in development.",
        &wal_rmgr_id, RM_EXPERIMENTAL_ID, RM_MIN_CUSTOM_ID, RM_MAX_CUSTOM_ID, fixed, 0,
        check_fixed_int<FIX_WAL_RMGR>, nullptr, nullptr);

    MarkGUCPrefixReserved("kid");

    for (int i = 0; i < SETTING_COUNT && !unknown && !settings_error[0]; i++) {
        bool parsed;
        if (raw[i] == nullptr || setting_took(setting_specs[i], raw[i], &parsed))
            continue;
        snprintf(settings_error, sizeof(settings_error),
                 "invalid value for parameter \"%s\": \"%s\"", setting_specs[i].name, raw[i]);
        if (parsed)
            snprintf(settings_detail, sizeof(settings_detail),
                     "%s was given where it cannot be set (a client, role or database setting); "
                     "kid takes it only from the server configuration.",
                     setting_specs[i].name);
        else
            snprintf(settings_detail, sizeof(settings_detail), "%s must be %s.",
                     setting_specs[i].name, setting_specs[i].expected);
    }
    /* An unknown kid.* name (find_unknown_setting wrote the message) comes first. */
    if (unknown || settings_error[0])
        report_settings_error();

    if (!preloading) {
        /* From here on the fixed settings keep the values just taken (see fixed_values). */
        fixed_values[FIX_NODE_ID] = node_id;
        fixed_values[FIX_KOID_EPOCH] = koid_epoch_ms;
        fixed_values[FIX_KOID_GENERATOR] = koid_generator_id;
        fixed_values[FIX_UID_INTERVAL] = uid_interval;
        fixed_values[FIX_WAL_RMGR] = wal_rmgr_id;
        strlcpy(fixed_uid_node, uid_node_setting ? uid_node_setting : "", sizeof(fixed_uid_node));
        settings_fixed = true;
        return;
    }
    install_shmem_hooks();
    lease_wal_register();
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
