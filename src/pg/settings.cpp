/*
 * settings.cpp - kid's configuration settings: their definitions, the
 * check, assign and show hooks, and the validation that refuses to run
 * with a setting PostgreSQL would only warn about.
 *
 * The hooks are PostgreSQL callbacks (CONTRIBUTING.md, "Callbacks"): C++
 * functions in kid::pg with internal linkage, noexcept.
 */
#include "pg/settings.h"
#include "core/uid.h"

#include <cmath>

extern "C" {
#include "access/rmgr.h"
#include "miscadmin.h"
#include "storage/fd.h"
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
enum FixedSetting {
    FIX_NODE_ID,
    FIX_KOID_EPOCH,
    FIX_KOID_GENERATOR,
    FIX_UID_INTERVAL,
    FIX_WAL_RMGR,
    FIX_COUNT
};
static const char *const fixed_names[FIX_COUNT] = {"kid.node_id", "kid.koid_epoch_ms",
                                                   "kid.koid_generator_id", "kid.uid_interval",
                                                   "kid.wal_rmgr_id"};
static bool settings_fixed = false;
static double fixed_values[FIX_COUNT];
static char fixed_uid_node[9];

static bool refuse_change(int which) noexcept
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
template <int Which> static bool check_fixed_int(int *newval, void **, GucSource source) noexcept
{
    if (!settings_fixed || source == PGC_S_DEFAULT || *newval == fixed_values[Which])
        return true;
    return refuse_change(Which);
}

/* kid.koid_epoch_ms: a whole number of milliseconds (a fraction would be dropped silently). */
static bool check_koid_epoch(double *newval, void **, GucSource source) noexcept
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
    if (!settings_fixed || source == PGC_S_DEFAULT || strcmp(v, fixed_uid_node) == 0)
        return true;
    GUC_check_errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM);
    GUC_check_errmsg(
        "parameter \"kid.uid_node\" cannot be changed in a session that has loaded kid");
    return false;
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
    {"kid.koid_max_clock_wait_ms", Kind::integer, &koid_max_clock_wait_ms, 0, 3600000, GUC_UNIT_MS,
     "a time from 0 to 3600000 ms"},
    {"kid.uid_interval", Kind::integer, &uid_interval, kid::UID_INTERVAL_MIN, kid::UID_INTERVAL_MAX,
     0, "an integer from 5 to 10"},
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
#if PG_VERSION_NUM >= 160000
    int n = 0;
    struct config_generic **vars = get_guc_variables(&n);
#else
    struct config_generic **vars = get_guc_variables();
    int n = GetNumConfigOptions();
#endif
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

/*
 * Where kid setting `name` got its reset value (the one a session starts
 * with), or PGC_S_DEFAULT when there is no such variable.  Up to PGC_S_ARGV
 * the server configuration (postgresql.conf, postgresql.auto.conf, the
 * server command line); above it a client's connection options or a role's
 * or database's setting (ALTER ROLE/DATABASE ... SET).
 */
static GucSource reset_source_of(const char *name)
{
#if PG_VERSION_NUM >= 160000
    int n = 0;
    struct config_generic **vars = get_guc_variables(&n);
#else
    struct config_generic **vars = get_guc_variables();
    int n = GetNumConfigOptions();
#endif
    for (int i = 0; i < n; i++)
        if (pg_strcasecmp(vars[i]->name, name) == 0)
            return vars[i]->reset_source;
    return PGC_S_DEFAULT;
}

/*
 * The value the server configuration gives setting `name`, for a backend
 * whose placeholder was overwritten by a client, role or database value
 * (the placeholder keeps one reset value).  postgresql.conf (with what it
 * includes), then postgresql.auto.conf, as a reload reads them; NULL when
 * neither sets it.  *unknown is set when the value cannot be known: a file
 * does not parse, or the server command line (postmaster.opts) names the
 * setting, whose value there no backend keeps.
 */
static char *configured_value(const char *name, bool *unknown)
{
    ConfigVariable *head = nullptr, *tail = nullptr;
    char *value = nullptr;
    *unknown = !ParseConfigFile(ConfigFileName, true, nullptr, 0, 0, DEBUG1, &head, &tail) ||
               !ParseConfigFile(PG_AUTOCONF_FILENAME, false, nullptr, 0, 0, DEBUG1, &head, &tail);
    for (ConfigVariable *v = head; v != nullptr; v = v->next)
        if (v->ignore == false && pg_strcasecmp(v->name, name) == 0)
            value = v->value;
    value = value != nullptr ? pstrdup(value) : nullptr;
    FreeConfigVariables(head);
    if (value == nullptr && !*unknown) {
        FILE *opts = AllocateFile("postmaster.opts", "r");
        if (opts != nullptr) {
            char line[4096];
            while (!*unknown && fgets(line, sizeof(line), opts) != nullptr)
                *unknown = strstr(line, name) != nullptr;
            FreeFile(opts);
        }
    }
    return value;
}

/*
 * Without preloading, a kid setting given by a client (connection options),
 * a role or a database that kid cannot take (every setting fixed at server
 * start, kid.standby_generation, and the superuser ones for another role):
 * PostgreSQL has warned and left the variable at its boot value, since the
 * placeholder kept no other.  As with a SET before kid loaded, the session
 * goes on with the server configuration's value, with a WARNING saying so.
 * False when that is done; true when the value in force cannot be known
 * (the caller then reports the setting, failing closed).
 */
static bool ignore_session_value(const SettingSpec &spec, const char *raw)
{
    bool unknown;
    char *conf = configured_value(spec.name, &unknown);
    if (unknown)
        return true;
    if (conf != nullptr) {
        bool parsed;
        (void)set_config_option(spec.name, conf, PGC_SIGHUP, PGC_S_FILE, GUC_ACTION_SET, true,
                                WARNING, false);
        if (!setting_took(spec, conf, &parsed)) {
            snprintf(settings_error, sizeof(settings_error),
                     "invalid value for parameter \"%s\": \"%s\"", spec.name, conf);
            snprintf(settings_detail, sizeof(settings_detail), "%s must be %s.", spec.name,
                     spec.expected);
            return false;
        }
    }
    ereport(WARNING,
            (errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM),
             errmsg("kid ignores %s = '%s' from a client, role or database setting", spec.name,
                    raw),
             errdetail("kid takes %s only from the server configuration; this session has "
                       "%s = '%s' from there.",
                       spec.name, spec.name, GetConfigOptionByName(spec.name, nullptr, false))));
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
    const GucContext fixed = preloading ? PGC_POSTMASTER : PGC_SIGHUP;

    /* The raw values given for the placeholders, copied before defining replaces them. */
    char *raw[SETTING_COUNT];
    bool raw_from_server[SETTING_COUNT];
    for (int i = 0; i < SETTING_COUNT; i++) {
        const char *name = setting_specs[i].name;
        const char *v = GetConfigOption(name, true, false) ? GetConfigOptionResetString(name)
                                                           : nullptr;
        raw[i] = v ? pstrdup(v) : nullptr;
        raw_from_server[i] = v == nullptr || reset_source_of(name) <= PGC_S_ARGV;
    }
    bool unknown = find_unknown_setting();

    DefineCustomIntVariable(
        "kid.node_id",
        "Identifies this server among the servers generating ids into one key space.",
        "Part of every generated id but plain uid: the high byte of the sno partition, the "
        "tid clock id, the default koid generator id and the default uid_global node "
        "fingerprint. Servers that generate into the same tables must have distinct node ids; "
        "a local uid has no node field and is unique within one server only.",
        &node_id, 0, 0, NODE_ID_MAX, fixed, 0, pg_callback(check_fixed_int<FIX_NODE_ID>),
        pg_callback(assign_node_id), nullptr);

    DefineCustomBoolVariable(
        "kid.standby_generation",
        "Allows generating ids while the server is in recovery (a standby).",
        "A standby normally shares the primary's kid.node_id; enable this only on a standby "
        "that has a node id of its own.",
        &standby_generation, false, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);

    DefineCustomRealVariable(
        "kid.koid_epoch_ms", "The epoch of koid timestamps, in milliseconds since 1970-01-01 UTC.",
        "Fixed while the server runs; must not be in the future. Decoders and range "
        "comparisons of koid use it too: changing it on a server with koids reinterprets every "
        "stored koid's time and stales expression indexes on koid_to_timestamp, so treat it as "
        "fixed for a database's life.",
        &koid_epoch_ms, 0, 0, 4398046511103.0, fixed, 0, pg_callback(check_koid_epoch), nullptr,
        pg_callback(show_koid_epoch));
    DefineCustomIntVariable("kid.koid_generator_id",
                            "The 10-bit generator id (datacenter * 32 + worker) of koids made "
                            "here; -1 uses kid.node_id.",
                            nullptr, &koid_generator_id, -1, -1, 1023, fixed, 0,
                            pg_callback(check_fixed_int<FIX_KOID_GENERATOR>), nullptr, nullptr);
    DefineCustomBoolVariable(
        "kid.koid_overflow_error",
        "Raise an error instead of waiting when 4096 koids were made in one millisecond.", nullptr,
        &koid_overflow_error, false, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "kid.koid_max_clock_wait_ms",
        "How long koid_new() waits for a clock that went back before raising an error.", nullptr,
        &koid_max_clock_wait_ms, 1000, 0, 3600000, PGC_SUSET, GUC_UNIT_MS, nullptr, nullptr,
        nullptr);

    DefineCustomIntVariable(
        "kid.uid_interval",
        "The neighbourhood interval I (5..10) of uid_global ids made and decoded here.",
        "Within a 2^I-second window global ids sort by node first. Decoders without a "
        "neighbourhood argument use it too: changing it on a server with uid_global ids "
        "reinterprets every stored one and stales expression indexes on those decoders, so treat "
        "it as fixed for a database's life.",
        &uid_interval, kid::UID_INTERVAL_DEFAULT, kid::UID_INTERVAL_MIN, kid::UID_INTERVAL_MAX,
        fixed, 0, pg_callback(check_fixed_int<FIX_UID_INTERVAL>), nullptr, nullptr);
    DefineCustomStringVariable("kid.uid_node",
                               "The 32-bit node fingerprint of uid_global ids, as 8 hex digits; "
                               "empty derives it from kid.node_id.",
                               nullptr, &uid_node_setting, "", fixed, 0,
                               pg_callback(check_uid_node), pg_callback(assign_uid_node), nullptr);

    DefineCustomIntVariable(
        "kid.wal_rmgr_id", "The id of kid's custom WAL resource manager (lease records).",
        "Must be the same on a primary and every server that replays its WAL, and must not be "
        "used by another extension. 128 is PostgreSQL's id for extensions in development.",
        &wal_rmgr_id, RM_EXPERIMENTAL_ID, RM_MIN_CUSTOM_ID, RM_MAX_CUSTOM_ID, fixed, 0,
        pg_callback(check_fixed_int<FIX_WAL_RMGR>), nullptr, nullptr);

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
            if (reset_source_of(setting_specs[i].name) > PGC_S_ARGV ||
                !ignore_session_value(setting_specs[i], raw[i]))
                continue;
        } else if (setting_took(setting_specs[i], raw[i], &parsed))
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
        return false;
    }
    return true;
}

} // namespace kid::pg
