/*
 * sno.h - the sno id: layout, text codec and generator state machine.
 *
 * An sno is 10 bytes, big-endian:
 *   bytes 0-4  units << 1 | tick   (units = 4 ms steps since 2010-01-01 UTC, 39 bits)
 *   byte  5    metabyte            (caller's choice)
 *   bytes 6-7  partition           (fixed per generator)
 *   bytes 8-9  sequence            (restarts every 4 ms unit)
 * so byte order is time order, and so is the 16-character text form.
 *
 * Nothing here touches PostgreSQL: the generator is a plain struct that can
 * live in shared memory, and it never sleeps or reads a clock itself.  The
 * caller passes the current time and, when told to wait, sleeps and calls
 * again; that keeps interrupt handling (which may longjmp) out of C++.
 */
#ifndef KID_CORE_SNO_H
#define KID_CORE_SNO_H

#include <cstddef>
#include <cstdint>

namespace kid {

constexpr size_t SNO_SIZE = 10;
constexpr size_t SNO_TEXT_LEN = 16;

/* 2010-01-01T00:00:00Z in Unix milliseconds. */
constexpr int64_t SNO_EPOCH_MS = INT64_C(1262304000000);
constexpr int64_t SNO_UNIT_MS = 4;
constexpr int64_t SNO_MAX_UNITS = (INT64_C(1) << 39) - 1;
/* Unix microseconds of the first and the last instant an sno can hold. */
constexpr int64_t SNO_MIN_UNIX_US = SNO_EPOCH_MS * 1000;
constexpr int64_t SNO_MAX_UNIX_US = (SNO_EPOCH_MS + (SNO_MAX_UNITS + 1) * SNO_UNIT_MS) * 1000 - 1;

struct Sno {
    uint8_t bytes[SNO_SIZE];
};

struct SnoFields {
    int64_t units; /* 4 ms steps since 2010 */
    unsigned tick; /* tick-tock bit: which timeline after a clock regression */
    uint8_t meta;
    uint16_t partition;
    uint16_t sequence;
};

SnoFields sno_unpack(const Sno &id) noexcept;

/* Inline: it is on sno_new()'s hot path. */
inline Sno sno_pack(const SnoFields &f) noexcept
{
    Sno id;
    uint64_t block = (static_cast<uint64_t>(f.units) << 1) | (f.tick & 1u);
    id.bytes[0] = static_cast<uint8_t>(block >> 32);
    id.bytes[1] = static_cast<uint8_t>(block >> 24);
    id.bytes[2] = static_cast<uint8_t>(block >> 16);
    id.bytes[3] = static_cast<uint8_t>(block >> 8);
    id.bytes[4] = static_cast<uint8_t>(block);
    id.bytes[5] = f.meta;
    id.bytes[6] = static_cast<uint8_t>(f.partition >> 8);
    id.bytes[7] = static_cast<uint8_t>(f.partition);
    id.bytes[8] = static_cast<uint8_t>(f.sequence >> 8);
    id.bytes[9] = static_cast<uint8_t>(f.sequence);
    return id;
}

/* Unix ms of the id's time unit (its first instant). */
inline int64_t sno_unix_ms(const SnoFields &f) noexcept
{
    return SNO_EPOCH_MS + f.units * SNO_UNIT_MS;
}

/* The first and the last Unix microsecond of a time unit. */
inline int64_t sno_unit_start_us(int64_t units) noexcept
{
    return (SNO_EPOCH_MS + units * SNO_UNIT_MS) * 1000;
}
inline int64_t sno_unit_end_us(int64_t units) noexcept
{
    return sno_unit_start_us(units + 1) - 1;
}

/*
 * The unit holding a Unix-microsecond time; false when the time is outside
 * 2010-01-01 .. 2079-09-07T15:47:35.551Z.  Floors, so negative offsets
 * never round toward the epoch.
 */
bool sno_units_from_unix_us(int64_t unix_us, int64_t *units) noexcept;

/* The same from Unix milliseconds, for the generator's clock: a shift, no division. */
inline bool sno_units_from_unix_ms(int64_t unix_ms, int64_t *units) noexcept
{
    int64_t since = unix_ms - SNO_EPOCH_MS;
    if (since < 0 || (since >> 2) > SNO_MAX_UNITS)
        return false;
    *units = since >> 2;
    return true;
}

/* Text: writes exactly SNO_TEXT_LEN characters, no terminator. */
void sno_encode(const Sno &id, char *out) noexcept;
/* Strict: exactly 16 characters of the alphabet, nothing else. */
bool sno_decode(const char *text, size_t len, Sno *out) noexcept;

/* Three-way comparison in byte order (= time order). */
int sno_cmp(const Sno &a, const Sno &b) noexcept;

/*
 * The per-partition generator.  A trivially copyable struct so it can sit
 * in a shared-memory slot and pass from one owner backend to the next: the
 * next owner continues from the highest units its predecessors used and so
 * never repeats a (time, tick, partition, sequence).
 *
 * hi[t] is the highest unit used on timeline t (tick bit t), or -1.  The
 * current timeline is `tick`; `sequence` is the last sequence used in unit
 * hi[tick].  A unit above hi[t] is always fresh on timeline t, which is all
 * the state the regression rules need:
 *   - clock == hi[tick]: next sequence; past seq_max wait for the next unit;
 *   - clock  > hi[tick]: new unit, sequence restarts at seq_min;
 *   - clock  < hi[tick] but > hi[other]: a clock regression; switch timeline;
 *   - clock <= both: a second regression into covered time; wait.
 */
struct SnoGenerator {
    int64_t hi[2];
    uint32_t tick;
    uint32_t sequence;
    uint16_t partition;
    uint16_t seq_min;
    uint16_t seq_max;
    uint16_t pad_;
    /* The highest unit the clock gave this generator (any owner), or -1; floors do not move it. */
    int64_t clock_hi;
    /* What happened, for the statistics view. */
    uint64_t generated;
    uint64_t regressions;    /* ids made while the clock read below clock_hi: it went back */
    uint64_t overflow_waits; /* sequence ran out in a unit */
    uint64_t clock_waits;    /* clock behind both timelines */
};

void sno_generator_init(SnoGenerator *g, uint16_t partition, uint16_t seq_min = 0,
                        uint16_t seq_max = 0xFFFF) noexcept;

enum class GenStatus {
    ok,
    wait, /* nothing fresh at this time: sleep a little, then call again */
};

/*
 * Try to make the next id at `now_units`.  On ok, *out is an id that this
 * generator (and every earlier owner of its state) never produced and that
 * compares greater than every id it produced before on the same timeline.
 * On wait, nothing changed but the wait counters.
 */
GenStatus sno_generate(SnoGenerator *g, int64_t now_units, uint8_t meta, Sno *out) noexcept;

/*
 * Raise timeline `tick`'s floor to `units`, e.g. from a persisted
 * high-water mark at start-up, so that no unit at or below it is used again
 * on that timeline.
 */
void sno_generator_floor(SnoGenerator *g, unsigned tick, int64_t units) noexcept;

} // namespace kid

#endif
