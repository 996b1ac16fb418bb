/*
 * schemes.cpp - the table of generated schemes (see schemes.h): one row
 * per scheme, with the few functions that know where its generator state
 * lives.  The state word's layout is the scheme's core file's business:
 * these functions call its accessors, never shift or mask themselves.
 */
#include "core/koid.h"
#include "core/uuidv7.h"
#include "pg/horizon.h"
#include "pg/lease.h"
#include "pg/shared_state.h"
#include "pg/id_partitions.h"
#include "core/tid.h"
#include "core/uid.h"

namespace kid::pg {

static void raise_mark(int64 *mark, int64 v)
{
    if (v > *mark)
        *mark = v;
}

static int64 node_id_field()
{
    return node_id;
}

/*
 * The sums of the backends' slots (shared_state.h, BackendSlot).  Each
 * count only grows, so a sum read later is never smaller; ids being made
 * while it is read may be in it or not.  Exact once generation stopped.
 */
static GeneratorStats counter_stats(KidShared *s, Scheme c)
{
    uint64 sum[COUNTER_STATS] = {0, 0, 0, 0, 0};
    const BackendSlot *slots = backend_slots(s);
    for (int i = 0; i <= s->backend_slot_count; i++)
        for (int k = 0; k < COUNTER_STATS; k++)
            sum[k] += pg_atomic_read_u64(const_cast<pg_atomic_uint64 *>(&slots[i].counts[c][k]));
    GeneratorStats g;
    g.generated = static_cast<int64>(sum[STAT_GENERATED]);
    g.regressions = static_cast<int64>(sum[STAT_REGRESSIONS]);
    g.overflow_waits = static_cast<int64>(sum[STAT_OVERFLOW_WAITS]);
    g.clock_waits = static_cast<int64>(sum[STAT_CLOCK_WAITS]);
    g.ahead_waits = static_cast<int64>(sum[STAT_AHEAD_WAITS]);
    return g;
}

/* The state word of a counter scheme; 0 when it made no id since start-up (nor was floored). */
static uint64 counter_state(KidShared *s, Scheme c)
{
    return pg_atomic_read_u64(&s->counters[c].state);
}

/* A newest id that made no id since start-up: there is none, whatever the floors put in the state. */
static bool counter_generated(KidShared *s, Scheme c)
{
    return counter_stats(s, c).generated > 0;
}

/* ------------------------------------------------------------------ sno */

/* One generator per slot, two timelines (ticks) each: lines LEASE_SNO_TICK0 and 1. */
static void sno_raise_to_floor(KidShared *s, const int64 floor_us[LEASE_LINES])
{
    sno_raise_free_partitions(s, &floor_us[LEASE_SNO_TICK0]);
}

static void sno_high_water(KidShared *s, int64 marks[LEASE_LINES])
{
    for (const auto &p : s->partitions)
        for (int t = 0; t < 2; t++)
            if (p.sno.hi[t] >= 0)
                raise_mark(&marks[LEASE_SNO_TICK0 + t], kid::sno_unit_start_us(p.sno.hi[t]));
    raise_mark(&marks[LEASE_SNO_HORIZON], horizon_force_us(SCHEME_SNO));
}

static GeneratorStats sno_stats(KidShared *s)
{
    GeneratorStats g = {0, 0, 0, 0, 0};
    for (const auto &p : s->partitions) {
        g.generated += static_cast<int64>(p.sno.generated);
        g.regressions += static_cast<int64>(p.sno.regressions);
        g.overflow_waits += static_cast<int64>(p.sno.overflow_waits);
        g.clock_waits += static_cast<int64>(p.sno.clock_waits);
    }
    return g;
}

/* The newest unit any slot reached; sno ids are made per slot, so there is no one newest id. */
static bool sno_newest(KidShared *s, NewestId *out)
{
    int64 hi = -1;
    for (const auto &p : s->partitions)
        for (int t = 0; t < 2; t++)
            if (p.sno.hi[t] > hi)
                hi = p.sno.hi[t];
    if (sno_stats(s).generated == 0 || hi < 0)
        return false;
    out->end_us = kid::sno_unit_end_us(hi);
    out->has_text = false;
    return true;
}

/* ------------------------------------------------------------------ atproto_tid */

/* The state is the last id's Unix microsecond. */
static void tid_raise_to_floor(KidShared *s, const int64 floor_us[LEASE_LINES])
{
    if (floor_us[LEASE_TID] > 0) {
        atomic_raise(&s->counters[SCHEME_TID].state, static_cast<uint64>(floor_us[LEASE_TID]));
        /* From now on the ids may go past the floor at the pace of real time, not faster. */
        trust_anchor(&s->counters[SCHEME_TID], floor_us[LEASE_TID]);
    }
}

static void tid_high_water(KidShared *s, int64 marks[LEASE_LINES])
{
    uint64 state = counter_state(s, SCHEME_TID);
    if (state != 0)
        raise_mark(&marks[LEASE_TID], static_cast<int64>(state));
}

static GeneratorStats tid_stats(KidShared *s)
{
    return counter_stats(s, SCHEME_TID);
}

static bool tid_newest(KidShared *s, NewestId *out)
{
    if (!counter_generated(s, SCHEME_TID))
        return false;
    out->end_us = static_cast<int64>(counter_state(s, SCHEME_TID));
    out->has_text = true;
    kid::tid_encode(kid::tid_pack(out->end_us, static_cast<unsigned>(node_id)), out->text);
    out->text[kid::TID_TEXT_LEN] = '\0';
    return true;
}

/* ------------------------------------------------------------------ koid */

/* What koid's lease setting keeps, in koid's generator (shared_state.h). */
static KoidLeaseState &koid_state(KidShared *s)
{
    return s->counters[SCHEME_KOID].lease_state.koid;
}

static int64 koid_node_field()
{
    return effective_koid_generator_id();
}

/*
 * The floor is under this server's epoch (the lease shifts marks of
 * another epoch), so its millisecond since the epoch is the raw
 * milliseconds the ids under the mark may hold.  Its floor_word keeps the
 * floor for koid_new's message ("at the floor" or "after a later koid").
 */
static void koid_raise_to_floor(KidShared *s, const int64 floor_us[LEASE_LINES])
{
    int64 floor_ms = floor_us[LEASE_KOID] / 1000 - koid_epoch_whole_ms();
    if (floor_us[LEASE_KOID] > 0 && floor_ms >= 0) {
        uint64 word = kid::koid_state_floor(floor_ms);
        atomic_raise(&s->counters[SCHEME_KOID].state, word);
        atomic_raise(&koid_state(s).floor_word, word);
    }
}

static void koid_high_water(KidShared *s, int64 marks[LEASE_LINES])
{
    uint64 state = counter_state(s, SCHEME_KOID);
    if (state != 0)
        raise_mark(&marks[LEASE_KOID],
                   kid::koid_ms_start_unix_us(kid::koid_state_ms(state), koid_epoch_whole_ms()));
}

static GeneratorStats koid_stats(KidShared *s)
{
    return counter_stats(s, SCHEME_KOID);
}

static bool koid_newest(KidShared *s, NewestId *out)
{
    if (!counter_generated(s, SCHEME_KOID))
        return false;
    uint64 state = counter_state(s, SCHEME_KOID);
    out->end_us = kid::koid_ms_end_unix_us(kid::koid_state_ms(state), koid_epoch_whole_ms());
    out->has_text = true;
    kid::koid_encode(kid::koid_from_state(state,
                                          static_cast<unsigned>(effective_koid_generator_id())),
                     out->text);
    out->text[kid::KOID_TEXT_LEN] = '\0';
    return true;
}

/*
 * koid's lease setting: the kid.koid_epoch_ms its marks are under.  A koid
 * holds milliseconds since the epoch, so what a mark really bounds is
 * mark / 1000 - epoch raw milliseconds; a mark written under another epoch
 * is shifted by the difference, which keeps that bound.  Moving the epoch
 * later puts the floor ahead of the clock by the move (koid_new waits, then
 * refuses naming the setting: koid_lease_epoch_ms), moving it earlier
 * lowers it (harmless: new koids are larger).
 */
constexpr int64 KOID_EPOCH_MS_MAX = INT64CONST(4398046511103);

/* A koid mark written under epoch `from` (ms), re-expressed under epoch `to`: same raw milliseconds. */
static int64 koid_mark_under_epoch(int64 mark_us, int64 from_ms, int64 to_ms)
{
    if (mark_us == 0 || from_ms == to_ms)
        return mark_us;
    int64 v = mark_us + (to_ms - from_ms) * 1000;
    return v > 0 ? v : 1;
}

static void koid_lease_save(KidShared *, LeaseLine, int64 words[])
{
    words[0] = koid_epoch_whole_ms();
}

static const char *koid_lease_check(const int64 words[])
{
    if (words[0] < 0 || words[0] > KOID_EPOCH_MS_MAX)
        return "the koid line's kid.koid_epoch_ms is out of range";
    return nullptr;
}

static void koid_lease_load(KidShared *s, LeaseLine, const int64 *words, int64 *own,
                            int64 *replayed)
{
    koid_state(s).lease_epoch_ms = -1;
    pg_atomic_init_u64(&koid_state(s).floor_word, 0);
    int64 epoch = koid_epoch_whole_ms();
    if (words == nullptr || words[0] == epoch)
        return;
    if (*own != 0 || *replayed != 0) {
        /* Remembered for koid_new's error message. */
        koid_state(s).lease_epoch_ms = words[0];
        ereport(LOG, (errmsg("kid: kid.koid_epoch_ms changed from %lld to %lld since the "
                             "lease was written; koid continues above the same raw "
                             "milliseconds",
                             static_cast<long long>(words[0]), static_cast<long long>(epoch))));
    }
    *own = koid_mark_under_epoch(*own, words[0], epoch);
    *replayed = koid_mark_under_epoch(*replayed, words[0], epoch);
}

static int64 koid_lease_record(LeaseLine)
{
    return koid_epoch_whole_ms();
}

static bool koid_lease_replay(KidShared *, LeaseLine, int64 word, int64 *mark)
{
    *mark = koid_mark_under_epoch(*mark, word, koid_epoch_whole_ms());
    return false;
}

static const LeaseSetting koid_lease_setting = {
    1, koid_lease_save, koid_lease_check, koid_lease_load, koid_lease_record, koid_lease_replay};

/* ------------------------------------------------------------------ uid (and uid_global) */

/* What uid's lease setting keeps, in uid's generator (shared_state.h). */
static UidLeaseState &uid_state(KidShared *s)
{
    return s->counters[SCHEME_UID].lease_state.uid;
}

static int64 uid_node_field()
{
    return static_cast<int64>(uid_node);
}

static void uid_raise_to_floor(KidShared *s, const int64 floor_us[LEASE_LINES])
{
    if (floor_us[LEASE_UID] > 0) {
        atomic_raise(&s->counters[SCHEME_UID].state, kid::uid_word_floor(floor_us[LEASE_UID]));
        /* As for tid: past the floor at the pace of real time, not faster. */
        trust_anchor(&s->counters[SCHEME_UID], floor_us[LEASE_UID]);
    }
}

static void uid_high_water(KidShared *s, int64 marks[LEASE_LINES])
{
    uint64 state = counter_state(s, SCHEME_UID);
    if (state != 0)
        raise_mark(&marks[LEASE_UID], kid::uid_unix_us(kid::uid_fields_from_word(state)));
}

static GeneratorStats uid_stats(KidShared *s)
{
    return counter_stats(s, SCHEME_UID);
}

static bool uid_newest(KidShared *s, NewestId *out)
{
    if (!counter_generated(s, SCHEME_UID))
        return false;
    kid::UidFields f = kid::uid_fields_from_word(counter_state(s, SCHEME_UID));
    out->end_us = kid::uid_step_end_us(f);
    out->has_text = true;
    kid::uid_local_encode(kid::uid_local_pack(f), out->text);
    out->text[kid::UID_LOCAL_TEXT_LEN] = '\0';
    return true;
}

/*
 * uid's lease setting: kid.uid_interval decides where the node fingerprint
 * sits in a uid_global, so after a change a uid_global could equal one
 * made under the old interval (kid::uid_interval_change_guard_us), and
 * uid_global_new() refuses until a guard time (uid.cpp).  The words: the
 * interval of the own mark, that of the replayed mark (0: none), the guard
 * (0: none) and the interval of the ids it protects (for the message).
 */
enum UidLeaseWord {
    UID_WORD_INTERVAL,
    UID_WORD_REPLAYED_INTERVAL,
    UID_WORD_GUARD,
    UID_WORD_GUARD_INTERVAL,
    UID_WORDS
};

/* Raise the uid_global guard for uid marks written under `interval`; true when it rose. */
static bool raise_uid_guard(KidShared *s, int64 mark_us, int interval)
{
    int64 guard = kid::uid_interval_change_guard_us(mark_us, interval, uid_interval);
    if (guard <= static_cast<int64>(pg_atomic_read_u64(&uid_state(s).global_guard_us)))
        return false;
    uid_state(s).guard_interval = interval;
    pg_write_barrier();
    pg_atomic_write_u64(&uid_state(s).global_guard_us, static_cast<uint64>(guard));
    return true;
}

static void uid_lease_save(KidShared *s, LeaseLine, int64 words[])
{
    words[UID_WORD_INTERVAL] = uid_interval;
    words[UID_WORD_REPLAYED_INTERVAL] = uid_state(s).replayed_interval;
    words[UID_WORD_GUARD] = static_cast<int64>(pg_atomic_read_u64(&uid_state(s).global_guard_us));
    words[UID_WORD_GUARD_INTERVAL] = uid_state(s).guard_interval;
}

static bool uid_interval_ok(int64 v, bool zero_ok)
{
    return (zero_ok && v == 0) || (v >= kid::UID_INTERVAL_MIN && v <= kid::UID_INTERVAL_MAX);
}

static const char *uid_lease_check(const int64 words[])
{
    if (!uid_interval_ok(words[UID_WORD_INTERVAL], false) ||
        !uid_interval_ok(words[UID_WORD_REPLAYED_INTERVAL], true) ||
        !uid_interval_ok(words[UID_WORD_GUARD_INTERVAL], true))
        return "the uid line's kid.uid_interval is out of range";
    if (words[UID_WORD_GUARD] < 0 || words[UID_WORD_GUARD] > LEASE_MARK_MAX)
        return "the uid line's uid_global guard is negative or out of range";
    return nullptr;
}

/*
 * The file's guard stays (an earlier change may still be pending); the own
 * mark was written under the file's interval, the replayed one under the
 * replayed interval, plus what a promotion may still add to it.
 */
static void uid_lease_load(KidShared *s, LeaseLine, const int64 *words, int64 *own, int64 *replayed)
{
    int64 no_words[UID_WORDS] = {uid_interval, 0, 0, 0};
    const int64 *w = words != nullptr ? words : no_words;
    pg_atomic_init_u64(&uid_state(s).global_guard_us, static_cast<uint64>(w[UID_WORD_GUARD]));
    uid_state(s).guard_interval = static_cast<int32>(w[UID_WORD_GUARD_INTERVAL]);
    int interval = static_cast<int>(w[UID_WORD_INTERVAL]);
    int replayed_interval = static_cast<int>(w[UID_WORD_REPLAYED_INTERVAL]);
    bool rose = raise_uid_guard(s, *own, interval);
    if (replayed_interval != 0)
        rose |= raise_uid_guard(s, *replayed + LEASE_RENEW_US + PROMOTION_MARGIN_US,
                                replayed_interval);
    uid_state(s).replayed_interval = replayed_interval;
    if (rose)
        ereport(LOG, (errmsg("kid: kid.uid_interval changed from %d to %d since uid ids were "
                             "last made; uid_global_new() refuses until the next %d-second "
                             "boundary above the uid mark",
                             interval, uid_interval,
                             1 << (interval > uid_interval ? interval : uid_interval))));
}

static int64 uid_lease_record(LeaseLine)
{
    return uid_interval;
}

/*
 * uid_global ids the writer made under another kid.uid_interval: the
 * guard covers its mark plus what a promotion may still add (records not
 * received, the margin).
 */
static bool uid_lease_replay(KidShared *s, LeaseLine, int64 word, int64 *mark)
{
    if (*mark <= 0)
        return false;
    int interval = static_cast<int>(word);
    bool changed = raise_uid_guard(s, *mark + LEASE_RENEW_US + PROMOTION_MARGIN_US, interval);
    if (uid_state(s).replayed_interval != interval)
        changed = true;
    uid_state(s).replayed_interval = interval;
    return changed;
}

static const LeaseSetting uid_lease_setting = {UID_WORDS,      uid_lease_save,   uid_lease_check,
                                               uid_lease_load, uid_lease_record, uid_lease_replay};

/* ------------------------------------------------------------------ uuid (uuidv7_new) */

/*
 * One generator per backend, in its process memory, on the backend's id
 * partition (src/pg/uuidv7.cpp); the partition keeps the millisecond of its
 * last id for the next owner.  Free partitions are raised here, owned ones by their
 * owner on its next id (floor_epoch), as for sno.
 */
static void uuidv7_raise_to_floor(KidShared *s, const int64 floor_us[LEASE_LINES])
{
    if (floor_us[LEASE_UUIDV7] <= 0)
        return;
    int64 floor_ms = floor_us[LEASE_UUIDV7] / 1000;
    LWLockAcquire(s->partition_lock, LW_EXCLUSIVE);
    for (auto &p : s->partitions)
        if (p.owner_pid == 0 && p.uuidv7.last_ms < floor_ms)
            p.uuidv7.last_ms = floor_ms;
    LWLockRelease(s->partition_lock);
}

static void uuidv7_high_water(KidShared *s, int64 marks[LEASE_LINES])
{
    for (const auto &p : s->partitions)
        if (p.uuidv7.last_ms >= 0)
            raise_mark(&marks[LEASE_UUIDV7], p.uuidv7.last_ms * 1000);
    raise_mark(&marks[LEASE_UUIDV7_HORIZON], horizon_force_us(SCHEME_UUIDV7));
}

static GeneratorStats uuidv7_stats(KidShared *s)
{
    GeneratorStats g = {0, 0, 0, 0, 0};
    for (const auto &p : s->partitions) {
        g.generated += static_cast<int64>(p.uuidv7.generated);
        g.regressions += static_cast<int64>(p.uuidv7.regressions);
        g.ahead_waits += static_cast<int64>(p.uuidv7.ahead_waits);
    }
    return g;
}

/* The newest millisecond any slot reached; ids are made per backend, so there is no one newest id. */
static bool uuidv7_newest(KidShared *s, NewestId *out)
{
    int64 last = -1;
    for (const auto &p : s->partitions)
        if (p.uuidv7.generated > 0 && p.uuidv7.last_ms > last)
            last = p.uuidv7.last_ms;
    if (last < 0)
        return false;
    out->end_us = last * 1000 + 999;
    out->has_text = false;
    return true;
}

/* ------------------------------------------------------------------ the horizon's keys */

/* tid: the next Unix microsecond (one tid per microsecond per server). */
static uint64 tid_next_key(KidShared *s)
{
    return counter_state(s, SCHEME_TID) + 1;
}

/* koid: the next koid's integer. */
static uint64 koid_next_key(KidShared *s)
{
    return kid::koid_from_state(counter_state(s, SCHEME_KOID),
                                static_cast<unsigned>(effective_koid_generator_id())) +
           1;
}

/* uid (and uid_global): the next state word (1.024 ms step << 14 | sequence). */
static uint64 uid_next_key(KidShared *s)
{
    return counter_state(s, SCHEME_UID) + 1;
}

/* ------------------------------------------------------------------ the last times */

static int64 sno_last_unix_us()
{
    return kid::SNO_MAX_UNIX_US;
}

static int64 tid_last_unix_us()
{
    return kid::TID_MAX_UNIX_US;
}

static int64 koid_last_unix_us()
{
    return kid::koid_ms_end_unix_us(kid::KOID_MAX_MS, koid_epoch_whole_ms());
}

static int64 uid_last_unix_us()
{
    return kid::UID_MAX_UNIX_US;
}

static int64 uuidv7_last_unix_us()
{
    return kid::UUIDV7_MAX_UNIX_US;
}

/* ------------------------------------------------------------------ the table */

/*
 * One row per Scheme, in its order; each field under its name (SchemeDef), so
 * that a row one field short or out of order does not compile quietly
 * (-Wmissing-field-initializers, and the types).
 */
const SchemeDef SCHEMES[SCHEME_COUNT] = {
    {
        /* scheme */ SCHEME_SNO,
        /* name */ "sno",
        /* first_line */ LEASE_SNO_TICK0,
        /* lines */ 2,
        /* line_names */ {"sno tick 0", "sno tick 1"},
        /* horizon_line */ LEASE_SNO_HORIZON,
        /* horizon_line_name */ "sno horizon",
        /* node_field */ node_id_field,
        /* raise_to_floor */ sno_raise_to_floor,
        /* high_water */ sno_high_water,
        /* stats */ sno_stats,
        /* newest */ sno_newest,
        /* setting */ nullptr,
        /* per_backend */ true,
        /* next_key */ nullptr,
        /* last_unix_us */ sno_last_unix_us,
    },
    {
        /* scheme */ SCHEME_TID,
        /* name */ "atproto_tid",
        /* first_line */ LEASE_TID,
        /* lines */ 1,
        /* line_names */ {"atproto_tid"},
        /* horizon_line */ -1,
        /* horizon_line_name */ nullptr,
        /* node_field */ node_id_field,
        /* raise_to_floor */ tid_raise_to_floor,
        /* high_water */ tid_high_water,
        /* stats */ tid_stats,
        /* newest */ tid_newest,
        /* setting */ nullptr,
        /* per_backend */ false,
        /* next_key */ tid_next_key,
        /* last_unix_us */ tid_last_unix_us,
    },
    {
        /* scheme */ SCHEME_KOID,
        /* name */ "koid",
        /* first_line */ LEASE_KOID,
        /* lines */ 1,
        /* line_names */ {"koid"},
        /* horizon_line */ -1,
        /* horizon_line_name */ nullptr,
        /* node_field */ koid_node_field,
        /* raise_to_floor */ koid_raise_to_floor,
        /* high_water */ koid_high_water,
        /* stats */ koid_stats,
        /* newest */ koid_newest,
        /* setting */ &koid_lease_setting,
        /* per_backend */ false,
        /* next_key */ koid_next_key,
        /* last_unix_us */ koid_last_unix_us,
    },
    {
        /* scheme */ SCHEME_UID,
        /* name */ "uid",
        /* first_line */ LEASE_UID,
        /* lines */ 1,
        /* line_names */ {"uid"},
        /* horizon_line */ -1,
        /* horizon_line_name */ nullptr,
        /* node_field */ uid_node_field,
        /* raise_to_floor */ uid_raise_to_floor,
        /* high_water */ uid_high_water,
        /* stats */ uid_stats,
        /* newest */ uid_newest,
        /* setting */ &uid_lease_setting,
        /* per_backend */ false,
        /* next_key */ uid_next_key,
        /* last_unix_us */ uid_last_unix_us,
    },
    {
        /* scheme */ SCHEME_UUIDV7,
        /* name */ "uuid",
        /* first_line */ LEASE_UUIDV7,
        /* lines */ 1,
        /* line_names */ {"uuid"},
        /* horizon_line */ LEASE_UUIDV7_HORIZON,
        /* horizon_line_name */ "uuid horizon",
        /* node_field */ node_id_field,
        /* raise_to_floor */ uuidv7_raise_to_floor,
        /* high_water */ uuidv7_high_water,
        /* stats */ uuidv7_stats,
        /* newest */ uuidv7_newest,
        /* setting */ nullptr,
        /* per_backend */ true,
        /* next_key */ nullptr,
        /* last_unix_us */ uuidv7_last_unix_us,
    },
};

const SchemeDef &lease_line_scheme(int line)
{
    for (const SchemeDef &scheme : SCHEMES)
        if ((line >= scheme.first_line && line < scheme.first_line + scheme.lines) ||
            line == scheme.horizon_line)
            return scheme;
    /* Every line belongs to a row: lease_start checks the table first (check_scheme_table). */
    elog(FATAL, "kid: lease line %d is in no row of the scheme table", line);
    return SCHEMES[0];
}

const char *lease_line_name(int line)
{
    const SchemeDef &scheme = lease_line_scheme(line);
    if (line == scheme.horizon_line)
        return scheme.horizon_line_name;
    return scheme.line_names[line - scheme.first_line];
}

int lease_line_by_name(const char *name, int len)
{
    for (int line = 0; line < LEASE_LINES; line++) {
        const char *n = lease_line_name(line);
        if (static_cast<int>(strlen(n)) != len)
            continue;
        int k = 0;
        while (k < len && (name[k] == n[k] || (name[k] == '_' && n[k] == ' ')))
            k++;
        if (k == len)
            return line;
    }
    return -1;
}

} // namespace kid::pg
