/*
 * schemes.cpp - the table of generated schemes (see schemes.h): one row
 * per scheme, with the few functions that know where its generator state
 * lives.  The state word's layout is the scheme's core file's business:
 * these functions call its accessors, never shift or mask themselves.
 */
#include "core/koid.h"
#include "pg/shared_state.h"
#include "pg/sno_slots.h"
#include "core/tid.h"
#include "core/uid.h"

namespace kid::pg {

const char *const LEASE_LINE_NAMES[LEASE_LINES] = {"sno tick 0", "sno tick 1", "atproto_tid",
                                                   "koid", "uid"};

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
 * The sums of the backends' slots (shared_state.h, BackendStats).  Each
 * slot only grows, so a sum read later is never smaller; ids being made
 * while it is read may be in it or not.  Exact once generation stopped.
 */
static GeneratorStats counter_stats(KidShared *s, CounterScheme c)
{
    uint64 sum[COUNTER_STATS] = {0, 0, 0, 0, 0};
    const BackendStats *slots = backend_stats(s);
    for (int i = 0; i <= s->backend_stats_count; i++)
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
static uint64 counter_state(KidShared *s, CounterScheme c)
{
    return pg_atomic_read_u64(&s->counters[c].state);
}

/* A newest id that made no id since start-up: there is none, whatever the floors put in the state. */
static bool counter_generated(KidShared *s, CounterScheme c)
{
    return counter_stats(s, c).generated > 0;
}

/* ------------------------------------------------------------------ sno */

/* One generator per slot, two timelines (ticks) each: lines LEASE_SNO_TICK0 and 1. */
static void sno_raise_to_floor(KidShared *s, const int64 floor_us[LEASE_LINES])
{
    sno_raise_free_slots(s, &floor_us[LEASE_SNO_TICK0]);
}

static void sno_high_water(KidShared *s, int64 marks[LEASE_LINES])
{
    for (const auto &slot : s->slots)
        for (int t = 0; t < 2; t++)
            if (slot.gen.hi[t] >= 0)
                raise_mark(&marks[LEASE_SNO_TICK0 + t], kid::sno_unit_start_us(slot.gen.hi[t]));
}

static GeneratorStats sno_stats(KidShared *s)
{
    GeneratorStats g = {0, 0, 0, 0, 0};
    for (const auto &slot : s->slots) {
        g.generated += static_cast<int64>(slot.gen.generated);
        g.regressions += static_cast<int64>(slot.gen.regressions);
        g.overflow_waits += static_cast<int64>(slot.gen.overflow_waits);
        g.clock_waits += static_cast<int64>(slot.gen.clock_waits);
    }
    return g;
}

/* The newest unit any slot reached; sno ids are made per slot, so there is no one newest id. */
static bool sno_newest(KidShared *s, NewestId *out)
{
    int64 hi = -1;
    for (const auto &slot : s->slots)
        for (int t = 0; t < 2; t++)
            if (slot.gen.hi[t] > hi)
                hi = slot.gen.hi[t];
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
        atomic_raise(&s->counters[COUNTER_TID].state, static_cast<uint64>(floor_us[LEASE_TID]));
        /* From now on the ids may go past the floor at the pace of real time, not faster. */
        trust_anchor(&s->counters[COUNTER_TID], floor_us[LEASE_TID]);
    }
}

static void tid_high_water(KidShared *s, int64 marks[LEASE_LINES])
{
    uint64 state = counter_state(s, COUNTER_TID);
    if (state != 0)
        raise_mark(&marks[LEASE_TID], static_cast<int64>(state));
}

static GeneratorStats tid_stats(KidShared *s)
{
    return counter_stats(s, COUNTER_TID);
}

static bool tid_newest(KidShared *s, NewestId *out)
{
    if (!counter_generated(s, COUNTER_TID))
        return false;
    out->end_us = static_cast<int64>(counter_state(s, COUNTER_TID));
    out->has_text = true;
    kid::tid_encode(kid::tid_pack(out->end_us, static_cast<unsigned>(node_id)), out->text);
    out->text[kid::TID_TEXT_LEN] = '\0';
    return true;
}

/* ------------------------------------------------------------------ koid */

static int64 koid_node_field()
{
    return effective_koid_generator_id();
}

/*
 * The floor is under this server's epoch (the lease shifts marks of
 * another epoch), so its millisecond since the epoch is the raw
 * milliseconds the ids under the mark may hold.  koid_floor_word keeps the
 * floor for koid_new's message ("at the floor" or "after a later koid").
 */
static void koid_raise_to_floor(KidShared *s, const int64 floor_us[LEASE_LINES])
{
    int64 floor_ms = floor_us[LEASE_KOID] / 1000 - koid_epoch_whole_ms();
    if (floor_us[LEASE_KOID] > 0 && floor_ms >= 0) {
        uint64 word = kid::koid_state_floor(floor_ms);
        atomic_raise(&s->counters[COUNTER_KOID].state, word);
        atomic_raise(&s->koid_floor_word, word);
    }
}

static void koid_high_water(KidShared *s, int64 marks[LEASE_LINES])
{
    uint64 state = counter_state(s, COUNTER_KOID);
    if (state != 0)
        raise_mark(&marks[LEASE_KOID],
                   kid::koid_ms_start_unix_us(kid::koid_state_ms(state), koid_epoch_whole_ms()));
}

static GeneratorStats koid_stats(KidShared *s)
{
    return counter_stats(s, COUNTER_KOID);
}

static bool koid_newest(KidShared *s, NewestId *out)
{
    if (!counter_generated(s, COUNTER_KOID))
        return false;
    uint64 state = counter_state(s, COUNTER_KOID);
    out->end_us = kid::koid_ms_end_unix_us(kid::koid_state_ms(state), koid_epoch_whole_ms());
    out->has_text = true;
    kid::koid_encode(kid::koid_from_state(state,
                                          static_cast<unsigned>(effective_koid_generator_id())),
                     out->text);
    out->text[kid::KOID_TEXT_LEN] = '\0';
    return true;
}

/* ------------------------------------------------------------------ uid (and uid_global) */

static int64 uid_node_field()
{
    return static_cast<int64>(uid_node);
}

static void uid_raise_to_floor(KidShared *s, const int64 floor_us[LEASE_LINES])
{
    if (floor_us[LEASE_UID] > 0) {
        atomic_raise(&s->counters[COUNTER_UID].state, kid::uid_word_floor(floor_us[LEASE_UID]));
        /* As for tid: past the floor at the pace of real time, not faster. */
        trust_anchor(&s->counters[COUNTER_UID], floor_us[LEASE_UID]);
    }
}

static void uid_high_water(KidShared *s, int64 marks[LEASE_LINES])
{
    uint64 state = counter_state(s, COUNTER_UID);
    if (state != 0)
        raise_mark(&marks[LEASE_UID], kid::uid_unix_us(kid::uid_fields_from_word(state)));
}

static GeneratorStats uid_stats(KidShared *s)
{
    return counter_stats(s, COUNTER_UID);
}

static bool uid_newest(KidShared *s, NewestId *out)
{
    if (!counter_generated(s, COUNTER_UID))
        return false;
    kid::UidFields f = kid::uid_fields_from_word(counter_state(s, COUNTER_UID));
    out->end_us = kid::uid_step_end_us(f);
    out->has_text = true;
    kid::uid_local_encode(kid::uid_local_pack(f), out->text);
    out->text[kid::UID_LOCAL_TEXT_LEN] = '\0';
    return true;
}

/* ------------------------------------------------------------------ the table */

const SchemeDef SCHEMES[SCHEME_COUNT] = {
    {"sno", LEASE_SNO_TICK0, 2, node_id_field, sno_raise_to_floor, sno_high_water, sno_stats,
     sno_newest},
    {"atproto_tid", LEASE_TID, 1, node_id_field, tid_raise_to_floor, tid_high_water, tid_stats,
     tid_newest},
    {"koid", LEASE_KOID, 1, koid_node_field, koid_raise_to_floor, koid_high_water, koid_stats,
     koid_newest},
    {"uid", LEASE_UID, 1, uid_node_field, uid_raise_to_floor, uid_high_water, uid_stats,
     uid_newest},
};

} // namespace kid::pg
