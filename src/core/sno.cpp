/*
 * sno.cpp - sno layout, codec and generator.
 */
#include "core/sno.h"

#include <cstring>

#include "core/radix.h"
#include "core/no_postgres.h"

namespace kid {

SnoFields sno_unpack(const Sno &id) noexcept
{
    SnoFields f;
    uint64_t block = load_be(id.bytes, 5);
    f.units = static_cast<int64_t>(block >> 1);
    f.tick = static_cast<unsigned>(block & 1u);
    f.meta = id.bytes[5];
    f.partition = static_cast<uint16_t>(load_be(id.bytes + 6, 2));
    f.sequence = static_cast<uint16_t>(load_be(id.bytes + 8, 2));
    return f;
}

bool sno_units_from_unix_us(int64_t unix_us, int64_t *units) noexcept
{
    if (unix_us < SNO_MIN_UNIX_US || unix_us > SNO_MAX_UNIX_US)
        return false;
    /* Both operands are non-negative here, so division floors. */
    *units = (unix_us - SNO_MIN_UNIX_US) / (SNO_UNIT_MS * 1000);
    return true;
}

void sno_encode(const Sno &id, char *out) noexcept
{
    radix_encode(sno_alphabet, Pad::leading, id.bytes, SNO_SIZE, out, SNO_TEXT_LEN);
}

bool sno_decode(const char *text, size_t len, Sno *out) noexcept
{
    return radix_decode(sno_alphabet, Pad::leading, text, len, out->bytes, SNO_SIZE, SNO_TEXT_LEN);
}

int sno_cmp(const Sno &a, const Sno &b) noexcept
{
    int r = std::memcmp(a.bytes, b.bytes, SNO_SIZE);
    return (r > 0) - (r < 0);
}

void sno_generator_init(SnoGenerator *g, uint16_t partition, uint16_t seq_min,
                        uint16_t seq_max) noexcept
{
    std::memset(g, 0, sizeof(*g));
    g->hi[0] = g->hi[1] = -1;
    g->clock_hi = -1;
    g->partition = partition;
    g->seq_min = seq_min;
    g->seq_max = seq_max < seq_min ? seq_min : seq_max;
    g->sequence = seq_min;
}

void sno_generator_floor(SnoGenerator *g, unsigned tick, int64_t units) noexcept
{
    tick &= 1u;
    if (g->hi[tick] >= units)
        return;
    g->hi[tick] = units;
    /* The floor unit itself counts as used up: part of it may have been handed out. */
    if (tick == g->tick)
        g->sequence = g->seq_max;
}

static Sno make(const SnoGenerator *g, int64_t units, uint8_t meta) noexcept
{
    SnoFields f;
    f.units = units;
    f.tick = g->tick;
    f.meta = meta;
    f.partition = g->partition;
    f.sequence = static_cast<uint16_t>(g->sequence);
    return sno_pack(f);
}

/*
 * A timeline switch is not always a clock regression: a floor (a restart's
 * lease written ahead) puts hi[tick] above the clock too.  So regressions
 * count ids made while the clock reads below the highest unit it gave this
 * generator before (clock_hi), which only a clock that went back does.
 */
static GenStatus made(SnoGenerator *g, bool clock_went_back, int64_t units, uint8_t meta,
                      Sno *out) noexcept
{
    g->generated++;
    if (clock_went_back)
        g->regressions++;
    *out = make(g, units, meta);
    return GenStatus::ok;
}

GenStatus sno_generate(SnoGenerator *g, int64_t now_units, uint8_t meta, Sno *out) noexcept
{
    const uint32_t other = g->tick ^ 1u;
    const bool clock_went_back = now_units < g->clock_hi;
    if (!clock_went_back)
        g->clock_hi = now_units;

    if (now_units == g->hi[g->tick]) {
        if (g->sequence < g->seq_max) {
            g->sequence++;
            return made(g, clock_went_back, now_units, meta, out);
        }
        g->overflow_waits++;
        return GenStatus::wait;
    }
    if (now_units > g->hi[g->tick]) {
        g->hi[g->tick] = now_units;
        g->sequence = g->seq_min;
        return made(g, clock_went_back, now_units, meta, out);
    }
    /* The clock is behind this timeline: continue on the other one if it is fresh there. */
    if (now_units > g->hi[other]) {
        g->tick = other;
        g->hi[other] = now_units;
        g->sequence = g->seq_min;
        return made(g, clock_went_back, now_units, meta, out);
    }
    g->clock_waits++;
    return GenStatus::wait;
}

} // namespace kid
