/*
 * settings.cpp - kid's configuration settings: the table that defines
 * them, their check, assign and show hooks, and the validation that refuses
 * to run with a setting PostgreSQL would only warn about.
 *
 * Adding a setting: its variable here (and in settings.h), its hooks if it
 * needs any (a setting fixed while kid runs, PGC_POSTMASTER, has a check
 * hook that ends in keeps_fixed_value), and its row in the table; the
 * README's and docs/settings.md's tables of settings list it too
 * (test/server/71-readme_facts.sh compares them with pg_settings).  What a
 * session that loads kid without preloading needs besides is in
 * settings_lazy.cpp; the row type is in settings_table.h.
 *
 * The hooks are PostgreSQL callbacks (CONTRIBUTING.md, "Callbacks"): C++
 * functions in kid::pg with internal linkage, noexcept.
 */
#include "pg/settings.h"
#include "pg/settings_table.h"
#include "core/uid.h"

#include <cmath>

extern "C" {
#include "access/rmgr.h"
#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
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
uint32 uid_node = 0;
static char *uid_node_setting = nullptr;
int partition_maintenance_interval = 600;
int partition_maintenance_timeout = 300;

/* A fixed integer setting keeps the value it took at load (settings_lazy.cpp). */
template <int *Variable>
static bool check_fixed_int(int *newval, void **, GucSource source) noexcept
{
    return keeps_fixed_value(Variable, *newval, nullptr, source);
}

/*
 * kid.wal_rmgr_id: 0 (no custom resource manager) or a custom resource
 * manager id; the range 0..255 lets 0 through, this refuses 1..127.
 */
static bool check_wal_rmgr_id(int *newval, void **, GucSource source) noexcept
{
    if (*newval != 0 && (*newval < RM_MIN_CUSTOM_ID || *newval > RM_MAX_CUSTOM_ID)) {
        GUC_check_errdetail("kid.wal_rmgr_id must be 0 or a custom resource manager id from %d "
                            "to %d.",
                            RM_MIN_CUSTOM_ID, RM_MAX_CUSTOM_ID);
        return false;
    }
    return keeps_fixed_value(&wal_rmgr_id, *newval, nullptr, source);
}

/* kid.koid_epoch_ms: a whole number of milliseconds (a fraction would be dropped silently). */
static bool check_koid_epoch(double *newval, void **, GucSource source) noexcept
{
    if (*newval != floor(*newval)) {
        GUC_check_errdetail("kid.koid_epoch_ms must be a whole number of milliseconds.");
        return false;
    }
    return keeps_fixed_value(&koid_epoch_ms, *newval, nullptr, source);
}

/*
 * SHOW kid.koid_epoch_ms: every digit (a real setting shows %g by default,
 * so 1288834974657 would read 1.28883e+12).  The value is a whole number.
 */
static const char *show_koid_epoch() noexcept
{
    static char buf[32];
    snprintf(buf, sizeof(buf), "%.0f", koid_epoch_ms);
    return buf;
}

/* kid.uid_node: empty, or exactly 8 hexadecimal digits. */
static bool check_uid_node(char **newval, void **, GucSource source) noexcept
{
    const char *v = *newval ? *newval : "";
    if (v[0] != '\0' && (strlen(v) != 8 || strspn(v, "0123456789abcdefABCDEF") != 8)) {
        GUC_check_errdetail("kid.uid_node must be empty or exactly 8 hexadecimal digits.");
        return false;
    }
    return keeps_fixed_value(&uid_node_setting, 0, v, source);
}

static void derive_uid_node() noexcept
{
    const char *v = uid_node_setting;
    uid_node = (v && v[0]) ? static_cast<uint32>(strtoul(v, nullptr, 16))
                           : kid::uid_node_fingerprint(static_cast<uint32>(node_id));
}

static void assign_uid_node(const char *newval, void *) noexcept
{
    uid_node_setting = const_cast<char *>(newval);
    derive_uid_node();
}

/* The derived fingerprint follows kid.node_id whichever of the two is assigned last. */
static void assign_node_id(int newval, void *) noexcept
{
    node_id = newval;
    derive_uid_node();
}

/*
 * The settings: one row per setting, which defines it (in this order, with
 * DefineCustom<Kind>Variable's arguments in its order), validates it (the
 * range and the check hook are the rules, see setting_took) and names it in
 * messages.  docs/settings.md and the README list the same settings with
 * the same defaults, contexts and ranges (test/server/71-readme_facts.sh
 * compares them with pg_settings).
 */
constexpr Setting settings[] = {
    int_setting(
        "kid.node_id",
        "Identifies this server among the servers generating ids into one key space.",
        "Part of every generated id but plain uid: the high byte of the sno partition, the "
        "tid clock id, the default koid generator id and the default uid_global node "
        "fingerprint. Servers that generate into the same tables must have distinct node ids; "
        "a local uid has no node field and is unique within one server only.",
        &node_id, 0, 0, NODE_ID_MAX, PGC_POSTMASTER, 0, pg_callback(check_fixed_int<&node_id>),
        pg_callback(assign_node_id)),
    bool_setting("kid.standby_generation",
                 "Allows generating ids while the server is in recovery (a standby).",
                 "A standby normally shares the primary's kid.node_id; enable this only on a "
                 "standby that has a node id of its own.",
                 &standby_generation, false, PGC_SIGHUP),
    real_setting(
        "kid.koid_epoch_ms", "The epoch of koid timestamps, in milliseconds since 1970-01-01 UTC.",
        "Fixed while the server runs; must not be in the future. Decoders and range "
        "comparisons of koid use it too: changing it on a server with koids reinterprets every "
        "stored koid's time and stales expression indexes on koid_to_timestamp, so treat it as "
        "fixed for a database's life.",
        &koid_epoch_ms, 0, 0, 4398046511103.0, PGC_POSTMASTER, 0, pg_callback(check_koid_epoch),
        pg_callback(show_koid_epoch), "a whole number of milliseconds"),
    int_setting("kid.koid_generator_id",
                "The 10-bit generator id (datacenter * 32 + worker) of koids made here; -1 uses "
                "kid.node_id.",
                nullptr, &koid_generator_id, -1, -1, 1023, PGC_POSTMASTER, 0,
                pg_callback(check_fixed_int<&koid_generator_id>), nullptr),
    bool_setting("kid.koid_overflow_error",
                 "Raise an error instead of waiting when 4096 koids were made in one millisecond.",
                 nullptr, &koid_overflow_error, false, PGC_SUSET),
    int_setting("kid.koid_max_clock_wait_ms",
                "How long koid_new() waits for a clock that went back before raising an error.",
                nullptr, &koid_max_clock_wait_ms, 1000, 0, 3600000, PGC_SUSET, GUC_UNIT_MS, nullptr,
                nullptr),
    int_setting("kid.uid_interval",
                "The neighbourhood interval I (5..10) of uid_global ids made and decoded here.",
                "Within a 2^I-second window global ids sort by node first. Decoders without a "
                "neighbourhood argument use it too: changing it on a server with uid_global ids "
                "reinterprets every stored one and stales expression indexes on those decoders, so "
                "treat it as fixed for a database's life.",
                &uid_interval, kid::UID_INTERVAL_DEFAULT, kid::UID_INTERVAL_MIN,
                kid::UID_INTERVAL_MAX, PGC_POSTMASTER, 0,
                pg_callback(check_fixed_int<&uid_interval>), nullptr),
    string_setting("kid.uid_node",
                   "The 32-bit node fingerprint of uid_global ids, as 8 hex digits; empty "
                   "derives it from kid.node_id.",
                   nullptr, &uid_node_setting, "", PGC_POSTMASTER, pg_callback(check_uid_node),
                   pg_callback(assign_uid_node), "empty or exactly 8 hexadecimal digits"),
    int_setting("kid.wal_rmgr_id",
                "The id of the custom WAL resource manager that replays older kids' lease "
                "records; 0 registers none.",
                "kid writes its lease in core logical messages; before, it wrote records of a "
                "custom resource manager, which replay only while it is registered under the "
                "id they were written with. Set 0 once no WAL to be replayed holds such records, "
                "to free the id (128 is PostgreSQL's id for extensions in development).",
                &wal_rmgr_id, RM_EXPERIMENTAL_ID, 0, RM_MAX_CUSTOM_ID, PGC_POSTMASTER, 0,
                pg_callback(check_wal_rmgr_id), nullptr,
                "0 or a custom resource manager id from 128 to 255"),
    int_setting("kid.partition_maintenance_interval",
                "How often kid's background worker maintains the time partitions of every "
                "database; 0 turns it off.",
                "Each round calls kid_partition_maintain() for every table kid_partition_by_time() "
                "configured, in every database (partition_worker.cpp).",
                &partition_maintenance_interval, 600, 0, 604800, PGC_SIGHUP, GUC_UNIT_S, nullptr,
                nullptr),
    int_setting(
        "kid.partition_maintenance_timeout",
        "How long kid's background worker gives the maintenance of one table, and waits "
        "for one database, before it goes on.",
        "A table whose maintenance takes longer (a trigger that sleeps, a backfill to move) "
        "is cancelled as by statement_timeout, recorded as failed and tried again next "
        "round; a database whose worker has not ended by then is left to it, and the "
        "launcher goes on with the others (partition_worker.cpp).",
        &partition_maintenance_timeout, 300, 1, 86400, PGC_SIGHUP, GUC_UNIT_S, nullptr, nullptr),
};
constexpr int SETTING_COUNT = sizeof(settings) / sizeof(settings[0]);

/*
 * Define the settings of the table.  A fixed setting is PGC_SIGHUP when kid
 * is loaded lazily (settings_lazy.cpp says why).
 */
static void define_each_setting(bool preloading)
{
    for (const Setting &s : settings) {
        const GucContext context = s.context == PGC_POSTMASTER && !preloading ? PGC_SIGHUP
                                                                              : s.context;
        switch (s.kind) {
        case Kind::integer:
            DefineCustomIntVariable(s.name, s.short_desc, s.long_desc,
                                    static_cast<int *>(s.variable), static_cast<int>(s.boot),
                                    static_cast<int>(s.min), static_cast<int>(s.max), context,
                                    s.flags, s.check.integer, s.assign.integer, s.show);
            break;
        case Kind::real:
            DefineCustomRealVariable(s.name, s.short_desc, s.long_desc,
                                     static_cast<double *>(s.variable), s.boot, s.min, s.max,
                                     context, s.flags, s.check.real, s.assign.real, s.show);
            break;
        case Kind::boolean:
            DefineCustomBoolVariable(s.name, s.short_desc, s.long_desc,
                                     static_cast<bool *>(s.variable), s.boot != 0, context, s.flags,
                                     s.check.boolean, s.assign.boolean, s.show);
            break;
        case Kind::string:
            DefineCustomStringVariable(s.name, s.short_desc, s.long_desc,
                                       static_cast<char **>(s.variable), s.boot_string, context,
                                       s.flags, s.check.string, s.assign.string, s.show);
            break;
        }
    }
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

/* What a valid value of setting `s` is, for the message: "kid.x must be <this>." */
static void describe_valid(const Setting &s, char *buf, size_t size)
{
    switch (s.kind) {
    case Kind::integer:
        if (s.valid != nullptr)
            snprintf(buf, size, "%s", s.valid);
        else if (s.flags & GUC_UNIT_MS)
            snprintf(buf, size, "a time from %.0f to %.0f ms", s.min, s.max);
        else if (s.flags & GUC_UNIT_S)
            snprintf(buf, size, "a time from %.0f to %.0f s", s.min, s.max);
        else
            snprintf(buf, size, "an integer from %.0f to %.0f", s.min, s.max);
        break;
    case Kind::real:
        snprintf(buf, size, "%s from %.0f to %.0f", s.valid, s.min, s.max);
        break;
    case Kind::boolean:
        snprintf(buf, size, "a boolean");
        break;
    case Kind::string:
        snprintf(buf, size, "%s", s.valid);
        break;
    }
}

/*
 * Whether the defined variable holds exactly the value `raw` stands for.
 * *parsed is false when `raw` is no valid value at all: unparsable, out of
 * range or refused by the check hook (which accepts every valid value
 * while kid defines its settings: no value is fixed yet).
 */
bool setting_took(const Setting &s, const char *raw, bool *parsed)
{
    *parsed = true;
    switch (s.kind) {
    case Kind::integer: {
        int v;
        if (!parse_int(raw, &v, s.flags, nullptr) || v < s.min || v > s.max ||
            (s.check.integer && !s.check.integer(&v, nullptr, PGC_S_FILE)))
            return *parsed = false;
        return v == *static_cast<const int *>(s.variable);
    }
    case Kind::real: {
        double v;
        if (!parse_real(raw, &v, s.flags, nullptr) || !(v >= s.min && v <= s.max) ||
            (s.check.real && !s.check.real(&v, nullptr, PGC_S_FILE)))
            return *parsed = false;
        return v == *static_cast<const double *>(s.variable);
    }
    case Kind::boolean: {
        bool v;
        if (!parse_bool(raw, &v) || (s.check.boolean && !s.check.boolean(&v, nullptr, PGC_S_FILE)))
            return *parsed = false;
        return v == *static_cast<const bool *>(s.variable);
    }
    case Kind::string: {
        char *v = const_cast<char *>(raw);
        if (s.check.string && !s.check.string(&v, nullptr, PGC_S_FILE))
            return *parsed = false;
        const char *current = *static_cast<char *const *>(s.variable);
        return strcmp(raw, current ? current : "") == 0;
    }
    }
    return false;
}

/* The first problem found, kept so that a failed lazy load fails the same way each time. */
static char settings_error[512];
static char settings_detail[512];

void note_invalid_value(const Setting &s, const char *value, bool valid_elsewhere)
{
    snprintf(settings_error, sizeof(settings_error), "invalid value for parameter \"%s\": \"%s\"",
             s.name, value);
    if (valid_elsewhere) {
        snprintf(settings_detail, sizeof(settings_detail),
                 "%s was given where it cannot be set (a client, role or database setting); "
                 "kid takes it only from the server configuration.",
                 s.name);
        return;
    }
    char valid[128];
    describe_valid(s, valid, sizeof(valid));
    snprintf(settings_detail, sizeof(settings_detail), "%s must be %s.", s.name, valid);
}

[[noreturn]] static void report_settings_error()
{
    ereport(ERROR,
            (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s", settings_error),
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
    int n;
    config_generic **vars = all_guc_variables(&n);
    for (int i = 0; i < n; i++) {
        const config_generic *g = vars[i];
        if (!(g->flags & GUC_CUSTOM_PLACEHOLDER) || strncmp(g->name, "kid.", 4) != 0)
            continue;
        if (g->reset_source != PGC_S_FILE && g->reset_source != PGC_S_ARGV)
            continue;
        bool known = false;
        for (const Setting &s : settings)
            known = known || strcmp(g->name, s.name) == 0;
        if (known)
            continue;
        snprintf(settings_error, sizeof(settings_error),
                 "unrecognized configuration parameter \"%s\"", g->name);
        /* "kid defines kid.a, kid.b and kid.c." */
        StringInfoData names;
        initStringInfo(&names);
        for (int j = 0; j < SETTING_COUNT; j++)
            appendStringInfo(&names, "%s%s",
                             j == 0                   ? ""
                             : j == SETTING_COUNT - 1 ? " and "
                                                      : ", ",
                             settings[j].name);
        snprintf(settings_detail, sizeof(settings_detail), "kid defines %s.", names.data);
        pfree(names.data);
        return true;
    }
    return false;
}

bool define_settings()
{
    /*
     * A lazy load whose _PG_init raised an ERROR is retried on the next call
     * of a kid function (the library was not recorded as loaded), but the
     * settings are defined already: fail the same way again.
     */
    static bool defined = false;
    if (defined) {
        if (settings_error[0])
            report_settings_error();
        return false;
    }
    defined = true;

    const bool preloading = process_shared_preload_libraries_in_progress;

    /* The raw values given for the placeholders, copied before defining replaces them. */
    char *raw[SETTING_COUNT];
    bool raw_from_server[SETTING_COUNT];
    for (int i = 0; i < SETTING_COUNT; i++) {
        const char *name = settings[i].name;
        const char *v = GetConfigOption(name, true, false) ? GetConfigOptionResetString(name)
                                                           : nullptr;
        raw[i] = v ? pstrdup(v) : nullptr;
        raw_from_server[i] = v == nullptr || reset_source_of(name) <= PGC_S_ARGV;
    }
    bool unknown = find_unknown_setting();

    define_each_setting(preloading);
    MarkGUCPrefixReserved("kid");

    for (int i = 0; i < SETTING_COUNT && !unknown && !settings_error[0]; i++) {
        bool parsed = true;
        if (raw[i] == nullptr)
            continue;
        if (!raw_from_server[i]) {
            /*
             * A client, role or database value: taken (a superuser's value
             * of a superuser setting), or ignored for the server
             * configuration's; when that cannot be known, reported below.
             */
            if (reset_source_of(settings[i].name) > PGC_S_ARGV ||
                !ignore_session_value(settings[i], raw[i]))
                continue;
        } else if (setting_took(settings[i], raw[i], &parsed))
            continue;
        note_invalid_value(settings[i], raw[i], parsed);
    }
    /* An unknown kid.* name (find_unknown_setting wrote the message) comes first. */
    if (unknown || settings_error[0])
        report_settings_error();

    if (!preloading) {
        fix_settings(); /* from here on the fixed settings keep the values just taken */
        return false;
    }
    return true;
}

} // namespace kid::pg
