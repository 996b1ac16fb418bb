/*
 * settings_lazy.cpp - kid's settings in a session that loads kid without
 * shared_preload_libraries.
 *
 * Why this is a case of its own: on a server that does not preload kid, the
 * types and decoders still work, and the first session that uses one loads
 * kid then, in its own backend (generation refuses there).  That backend
 * defines kid's settings long after the server read its configuration, so
 * two things a preloaded kid never meets have to be handled here:
 *
 * - It cannot define PGC_POSTMASTER settings (guc.c's init_custom_variable
 *   raises FATAL), so the settings fixed while kid runs are PGC_SIGHUP there
 *   (settings.cpp's define_each_setting): define_custom_variable then
 *   applies the value postgresql.conf (or the server command line) gave the
 *   placeholder, and neither SET nor ALTER ROLE/DATABASE can change them.
 *   Once _PG_init has finished, their check hooks refuse any other value (a
 *   reload with a changed file, ALTER SYSTEM in that session, or a parallel
 *   worker whose leader read another one: ERROR there rather than other
 *   answers), so IMMUTABLE decoders keep giving the same answer in a
 *   session.  Sessions started after a reload read the new file, hence
 *   "change them with a restart".
 *
 * - A client (connection options), a role or a database may have given a
 *   kid.* name a value before kid was loaded, and the placeholder keeps
 *   only that one reset value.  For a setting kid takes only from the
 *   server configuration, the session goes on with the configuration's
 *   value, with a WARNING; to find it, this file reads postgresql.conf and
 *   postgresql.auto.conf again, as a reload would, and postmaster.opts to
 *   know when the server command line gave it (whose value no backend
 *   keeps: then kid fails closed).
 */
#include "pg/settings_table.h"

extern "C" {
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/memutils.h"
}

namespace kid::pg {

/* The value a fixed setting took at load. */
struct FixedValue {
    double number;    /* integer, real and boolean */
    const char *text; /* string */
};

/*
 * The values the fixed settings took at load, by place in settings[];
 * nullptr until fix_settings ran (while kid defines its settings, and
 * always in a preloaded kid, whose fixed settings PostgreSQL itself keeps).
 */
static FixedValue *fixed_values = nullptr;

/*
 * A boot value (GUC initialisation, parallel workers resetting) or the
 * value taken at load is kept; any other value is refused, with the
 * message.
 */
bool keeps_fixed_value(const void *variable, double number, const char *text,
                       GucSource source) noexcept
{
    if (fixed_values == nullptr || source == PGC_S_DEFAULT)
        return true;
    int i = 0;
    while (i < SETTING_COUNT - 1 && settings[i].variable != variable)
        i++;
    Assert(settings[i].variable == variable);
    const FixedValue &kept = fixed_values[i];
    if (text ? strcmp(text, kept.text ? kept.text : "") == 0 : number == kept.number)
        return true;
    GUC_check_errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM);
    GUC_check_errmsg("parameter \"%s\" cannot be changed in a session that has loaded kid",
                     settings[i].name);
    GUC_check_errdetail("Without shared_preload_libraries, kid reads its settings from the "
                        "server configuration once, when a session first uses it; restart the "
                        "server after changing them.");
    return false;
}

void fix_settings()
{
    FixedValue *values = static_cast<FixedValue *>(
        MemoryContextAllocZero(TopMemoryContext, SETTING_COUNT * sizeof(FixedValue)));
    for (int i = 0; i < SETTING_COUNT; i++) {
        const Setting &s = settings[i];
        if (s.context != PGC_POSTMASTER)
            continue;
        switch (s.kind) {
        case Kind::integer:
            values[i].number = *static_cast<const int *>(s.variable);
            break;
        case Kind::real:
            values[i].number = *static_cast<const double *>(s.variable);
            break;
        case Kind::boolean:
            values[i].number = *static_cast<const bool *>(s.variable);
            break;
        case Kind::string: {
            const char *v = *static_cast<char *const *>(s.variable);
            values[i].text = MemoryContextStrdup(TopMemoryContext, v ? v : "");
            break;
        }
        }
    }
    fixed_values = values;
}

/*
 * Where kid setting `name` got its reset value (the one a session starts
 * with), or PGC_S_DEFAULT when there is no such variable.  Up to PGC_S_ARGV
 * the server configuration (postgresql.conf, postgresql.auto.conf, the
 * server command line); above it a client's connection options or a role's
 * or database's setting (ALTER ROLE/DATABASE ... SET).
 */
GucSource reset_source_of(const char *name)
{
    int n;
    config_generic **vars = all_guc_variables(&n);
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
 * A kid setting given by a client, a role or a database that kid cannot
 * take (every setting fixed at server start, kid.standby_generation, and
 * the superuser ones for another role): PostgreSQL has warned and left the
 * variable at its boot value, since the placeholder kept no other.  As with
 * a SET before kid loaded, the session goes on with the server
 * configuration's value, with a WARNING saying so.  False when that is done
 * (or when that value is invalid: note_invalid_value has recorded it); true
 * when the value in force cannot be known (the caller then reports the
 * setting, failing closed).
 */
bool ignore_session_value(const Setting &spec, const char *raw)
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
            note_invalid_value(spec, conf, false);
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

} // namespace kid::pg
