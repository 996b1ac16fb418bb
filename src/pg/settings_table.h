/*
 * settings_table.h - kid's table of settings as the two files that read it
 * see it: the row type, the table (defined in settings.cpp, beside the hooks
 * its rows name) and what each of the two files gives the other.
 * settings.cpp defines and validates the settings on every load;
 * settings_lazy.cpp does what a session that loads kid without preloading
 * needs besides.  The rest of the boundary reads the settings through
 * settings.h.
 */
#ifndef KID_PG_SETTINGS_TABLE_H
#define KID_PG_SETTINGS_TABLE_H

#include "pg/settings.h"

extern "C" {
#include "utils/guc.h"
#include "utils/guc_tables.h"
}

namespace kid::pg {

/* Which DefineCustom<Kind>Variable defines a setting. */
enum class Kind { integer, real, boolean, string };

/* (Not clang-formatted: it would give every constructor and every argument a line.) */
// clang-format off
/*
 * A hook of the setting's kind (a union, so that the table can hold every
 * kind): Hook<GucIntCheckHook, ...> for the check hooks, and for the assign
 * hooks the same with their types.
 */
template <class Int, class Real, class Bool, class String> union Hook {
    Int integer;
    Real real;
    Bool boolean;
    String string;
    constexpr Hook(Int f = nullptr) : integer(f) {}
    constexpr Hook(Real f) : real(f) {}
    constexpr Hook(Bool f) : boolean(f) {}
    constexpr Hook(String f) : string(f) {}
};
using CheckHook = Hook<GucIntCheckHook, GucRealCheckHook, GucBoolCheckHook, GucStringCheckHook>;
using AssignHook = Hook<GucIntAssignHook, GucRealAssignHook, GucBoolAssignHook, GucStringAssignHook>;

struct Setting {
    const char *name;
    const char *short_desc;
    const char *long_desc;
    Kind kind;
    void *variable;
    double boot, min, max;   /* integer, real and boolean */
    const char *boot_string; /* string */
    GucContext context;      /* PGC_POSTMASTER: fixed, PGC_SIGHUP when loaded lazily */
    int flags;
    CheckHook check;
    AssignHook assign;
    GucShowHook show;
    const char *valid; /* what a valid value is, for messages (real, string; an integer's range otherwise) */
};

/* The rows of the table, built from DefineCustom<Kind>Variable's arguments in its order. */
constexpr Setting int_setting(const char *name, const char *short_desc, const char *long_desc,
                              int *variable, int boot, int min, int max, GucContext context,
                              int flags, GucIntCheckHook check, GucIntAssignHook assign,
                              const char *valid = nullptr)
{
    return {name, short_desc, long_desc, Kind::integer, variable, double(boot), double(min),
            double(max), nullptr, context, flags, check, assign, nullptr, valid};
}

constexpr Setting real_setting(const char *name, const char *short_desc, const char *long_desc,
                               double *variable, double boot, double min, double max,
                               GucContext context, int flags, GucRealCheckHook check,
                               GucShowHook show, const char *valid)
{
    return {name, short_desc, long_desc, Kind::real, variable, boot, min, max, nullptr, context,
            flags, check, GucRealAssignHook(nullptr), show, valid};
}

constexpr Setting bool_setting(const char *name, const char *short_desc, const char *long_desc,
                               bool *variable, bool boot, GucContext context)
{
    return {name, short_desc, long_desc, Kind::boolean, variable, double(boot), 0, 0, nullptr,
            context, 0, GucBoolCheckHook(nullptr), GucBoolAssignHook(nullptr), nullptr, nullptr};
}

constexpr Setting string_setting(const char *name, const char *short_desc, const char *long_desc,
                                 char **variable, const char *boot, GucContext context,
                                 GucStringCheckHook check, GucStringAssignHook assign,
                                 const char *valid)
{
    return {name, short_desc, long_desc, Kind::string, variable, 0, 0, 0, boot, context, 0,
            check, assign, nullptr, valid};
}
// clang-format on

/* The table (settings.cpp) and its number of rows. */
extern const Setting settings[];
extern const int SETTING_COUNT;

/* Every variable the server knows (kid's, other modules', placeholders), and their number. */
inline config_generic **all_guc_variables(int *n)
{
#if PG_VERSION_NUM >= 160000
    return get_guc_variables(n);
#else
    *n = GetNumConfigOptions();
    return get_guc_variables();
#endif
}

/* settings.cpp: the validation every load runs. */

/*
 * Whether the defined variable of setting `s` holds exactly the value `raw`
 * stands for; *parsed is false when `raw` is no valid value at all.
 */
bool setting_took(const Setting &s, const char *raw, bool *parsed);

/*
 * Record the error that stops kid loading: `value` of setting `s` is
 * invalid, either in itself (valid_elsewhere false: the detail says what a
 * valid value is) or where it was given (a client, role or database value).
 */
void note_invalid_value(const Setting &s, const char *value, bool valid_elsewhere);

/* settings_lazy.cpp: a session that loads kid without preloading. */

/*
 * Whether the fixed setting whose variable is `variable` may take the value
 * `number` (or `text`, for a string) now; for the check hooks of the fixed
 * settings.  Otherwise false, with the message.
 */
bool keeps_fixed_value(const void *variable, double number, const char *text,
                       GucSource source) noexcept;

/* Remember the values of the fixed settings, which from now on they keep. */
void fix_settings();

/*
 * Where kid setting `name` got its reset value: up to PGC_S_ARGV the server
 * configuration, above it a client, role or database.
 */
GucSource reset_source_of(const char *name);

/*
 * A client, role or database value `raw` of setting `spec` that kid cannot
 * take: replaced by the server configuration's value, with a WARNING.  True
 * when the value in force cannot be known (the caller reports the setting).
 */
bool ignore_session_value(const Setting &spec, const char *raw);

} // namespace kid::pg

#endif
