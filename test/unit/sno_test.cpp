// Unit tests of the sno core: layout, codec, generator with a fake clock.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <string>

#include "core/sno.h"

using namespace kid;

static std::string text_of(const Sno &id)
{
    char buf[SNO_TEXT_LEN];
    sno_encode(id, buf);
    return std::string(buf, SNO_TEXT_LEN);
}

static Sno from_bytes(std::initializer_list<uint8_t> bytes)
{
    Sno id{};
    size_t i = 0;
    for (uint8_t b : bytes)
        id.bytes[i++] = b;
    return id;
}

// Vectors derived by hand from the layout: the 80 bits are read five at a
// time, most significant first, and digit v is "23456789abcdefghijklmnopqrstuvwx"[v].
TEST(SnoCodec, KnownVectors)
{
    EXPECT_EQ(text_of(from_bytes({0, 0, 0, 0, 0, 0, 0, 0, 0, 0})), "2222222222222222");
    EXPECT_EQ(text_of(from_bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})),
              "xxxxxxxxxxxxxxxx");
    // Lowest bit set: last digit is value 1 = '3'.
    EXPECT_EQ(text_of(from_bytes({0, 0, 0, 0, 0, 0, 0, 0, 0, 1})), "2222222222222223");
    // Top bit set: first digit is 10000b = 16 = 'i'.
    EXPECT_EQ(text_of(from_bytes({0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0})), "i222222222222222");
    // 00 00 00 00 03 ab 01 02 03 04: bits 0..39 = ...0000 0011, digits 6,7 = 00000 00011 ->
    // "25"; meta 0xab..: bits 40.. = 10101011 00000001 00000010 00000011 00000100 ->
    // 10101 01100 00000 10000 00100 00000 11000 00100 -> n e 2 i 6 2 q 6.
    EXPECT_EQ(text_of(from_bytes({0, 0, 0, 0, 0x03, 0xab, 1, 2, 3, 4})), "22222225ne2i62q6");
}

TEST(SnoCodec, RoundTripRandom)
{
    std::mt19937_64 rng(42);
    for (int i = 0; i < 100000; i++) {
        Sno id;
        for (auto &b : id.bytes)
            b = static_cast<uint8_t>(rng());
        std::string t = text_of(id);
        Sno back;
        ASSERT_TRUE(sno_decode(t.data(), t.size(), &back));
        ASSERT_EQ(std::memcmp(id.bytes, back.bytes, SNO_SIZE), 0);
    }
}

TEST(SnoCodec, TextOrderIsByteOrder)
{
    std::mt19937_64 rng(7);
    for (int i = 0; i < 20000; i++) {
        Sno a, b;
        for (size_t k = 0; k < SNO_SIZE; k++) {
            a.bytes[k] = static_cast<uint8_t>(rng());
            b.bytes[k] = k < 4 ? a.bytes[k] : static_cast<uint8_t>(rng());
        }
        int byte_order = sno_cmp(a, b);
        int text_order = text_of(a).compare(text_of(b));
        ASSERT_EQ(byte_order, (text_order > 0) - (text_order < 0));
    }
}

TEST(SnoCodec, RejectsEverythingElse)
{
    Sno id;
    const char *bad[] = {"",
                         "222222222222222",
                         "22222222222222222",
                         "222222222222222y",
                         "222222222222222z",
                         "2222222222222220",
                         "2222222222222221",
                         "222222222222222A",
                         "X222222222222222",
                         " 222222222222222",
                         "222222222222222\n",
                         "22222222-2222222"};
    for (const char *s : bad)
        EXPECT_FALSE(sno_decode(s, std::strlen(s), &id)) << s;
    // An embedded NUL is not a digit either.
    const char nul[16] = {'2', '2', '2', '2', '2', '2', '2', '\0',
                          '2', '2', '2', '2', '2', '2', '2', '2'};
    EXPECT_FALSE(sno_decode(nul, 16, &id));
    // Every single non-alphabet byte in every position.
    std::string ok(16, '2');
    for (int c = 0; c < 256; c++) {
        bool digit = (c >= '2' && c <= '9') || (c >= 'a' && c <= 'x');
        for (size_t pos = 0; pos < 16; pos += 5) {
            std::string s = ok;
            s[pos] = static_cast<char>(c);
            EXPECT_EQ(sno_decode(s.data(), s.size(), &id), digit) << c << " at " << pos;
        }
    }
}

TEST(SnoLayout, PackUnpack)
{
    SnoFields f{(INT64_C(1) << 39) - 1, 1, 0xab, 0x0102, 0xfffe};
    SnoFields g = sno_unpack(sno_pack(f));
    EXPECT_EQ(g.units, f.units);
    EXPECT_EQ(g.tick, 1u);
    EXPECT_EQ(g.meta, 0xab);
    EXPECT_EQ(g.partition, 0x0102);
    EXPECT_EQ(g.sequence, 0xfffe);
    EXPECT_EQ(sno_unix_ms(g), SNO_EPOCH_MS + f.units * 4);
}

TEST(SnoLayout, TimeRange)
{
    int64_t units;
    EXPECT_TRUE(sno_units_from_unix_us(SNO_MIN_UNIX_US, &units));
    EXPECT_EQ(units, 0);
    EXPECT_TRUE(sno_units_from_unix_us(SNO_MIN_UNIX_US + 3999, &units));
    EXPECT_EQ(units, 0);
    EXPECT_TRUE(sno_units_from_unix_us(SNO_MIN_UNIX_US + 4000, &units));
    EXPECT_EQ(units, 1);
    EXPECT_FALSE(sno_units_from_unix_us(SNO_MIN_UNIX_US - 1, &units));
    EXPECT_TRUE(sno_units_from_unix_us(SNO_MAX_UNIX_US, &units));
    EXPECT_EQ(units, SNO_MAX_UNITS);
    EXPECT_FALSE(sno_units_from_unix_us(SNO_MAX_UNIX_US + 1, &units));
    // 2079-09-07T15:47:35.551999Z is the last instant.
    EXPECT_EQ(SNO_MAX_UNIX_US, INT64_C(3461327255551999));
}

// ---------------------------------------------------------------- generator

static SnoFields gen(SnoGenerator *g, int64_t now, GenStatus expect = GenStatus::ok)
{
    Sno id{};
    GenStatus st = sno_generate(g, now, 0, &id);
    EXPECT_EQ(st, expect);
    return sno_unpack(id);
}

TEST(SnoGenerator, SameUnitCountsUp)
{
    SnoGenerator g;
    sno_generator_init(&g, 0x0305);
    SnoFields a = gen(&g, 1000), b = gen(&g, 1000), c = gen(&g, 1001);
    EXPECT_EQ(a.sequence, 0);
    EXPECT_EQ(b.sequence, 1);
    EXPECT_EQ(c.sequence, 0);
    EXPECT_EQ(c.units, 1001);
    EXPECT_EQ(a.partition, 0x0305);
    EXPECT_EQ(a.tick, 0u);
    EXPECT_EQ(g.generated, 3u);
}

TEST(SnoGenerator, OverflowWaitsForNextUnit)
{
    SnoGenerator g;
    sno_generator_init(&g, 1, 0, 3); // four sequences a unit
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(gen(&g, 50).sequence, i);
    gen(&g, 50, GenStatus::wait);
    gen(&g, 50, GenStatus::wait);
    EXPECT_EQ(g.overflow_waits, 2u);
    SnoFields next = gen(&g, 51);
    EXPECT_EQ(next.units, 51);
    EXPECT_EQ(next.sequence, 0);
}

TEST(SnoGenerator, FullSixteenBitSequenceThenWait)
{
    SnoGenerator g;
    sno_generator_init(&g, 1);
    for (int i = 0; i < 65536; i++)
        ASSERT_EQ(gen(&g, 9).sequence, i);
    gen(&g, 9, GenStatus::wait);
}

TEST(SnoGenerator, RegressionFlipsTickOnce)
{
    SnoGenerator g;
    sno_generator_init(&g, 1);
    gen(&g, 100);
    gen(&g, 101);
    SnoFields back = gen(&g, 90); // clock went back 11 units
    EXPECT_EQ(back.tick, 1u);
    EXPECT_EQ(back.units, 90);
    EXPECT_EQ(back.sequence, 0);
    EXPECT_EQ(g.regressions, 1u);
    // Carries on along the new timeline, even through the old one's range.
    for (int64_t u = 91; u <= 105; u++)
        EXPECT_EQ(gen(&g, u).tick, 1u);
}

TEST(SnoGenerator, SecondRegressionIntoCoveredRangeWaits)
{
    SnoGenerator g;
    sno_generator_init(&g, 1);
    gen(&g, 100);
    gen(&g, 90);                  // first regression: tick 1, timeline 0 used up to 100
    gen(&g, 95);                  // tick 1 up to 95
    gen(&g, 93, GenStatus::wait); // behind tick 1 (95) and tick 0 (100)
    EXPECT_EQ(g.clock_waits, 1u);
    // Unit 100 is taken on timeline 0 but fresh on timeline 1.
    SnoFields f = gen(&g, 100);
    EXPECT_EQ(f.tick, 1u);
    EXPECT_EQ(f.units, 100);
}

TEST(SnoGenerator, SecondRegressionResolves)
{
    SnoGenerator g;
    sno_generator_init(&g, 1);
    gen(&g, 100);
    gen(&g, 90); // tick 1
    gen(&g, 95);
    gen(&g, 93, GenStatus::wait);
    EXPECT_EQ(g.clock_waits, 1u);
    // Clock passes tick 1's last unit: continue on tick 1.
    SnoFields f = gen(&g, 96);
    EXPECT_EQ(f.tick, 1u);
    EXPECT_EQ(f.units, 96);
    // Below both timelines again: wait.
    gen(&g, 94, GenStatus::wait);
    // Ahead on the current timeline: no flip needed.
    EXPECT_EQ(gen(&g, 101).tick, 1u);
    // Back to 100: behind tick 1 (101), and tick 0 already used 100: wait.
    gen(&g, 100, GenStatus::wait);
    // Far ahead, then back to 101..: tick 0 is fresh above 100, so flip back to it.
    EXPECT_EQ(gen(&g, 110).tick, 1u);
    SnoFields f0 = gen(&g, 102);
    EXPECT_EQ(f0.tick, 0u);
    EXPECT_EQ(f0.units, 102);
    // Ids made while the clock read below its highest reading (100, then 110): 90, 95, 96, 102.
    EXPECT_EQ(g.regressions, 4u);
}

// A floor (a lease written ahead before a crash) moves the
// generator to the other timeline, but the clock did not go back: no
// regression is counted.  A real one afterwards is.
TEST(SnoGenerator, FloorSwitchIsNotARegression)
{
    SnoGenerator g;
    sno_generator_init(&g, 1);
    sno_generator_floor(&g, 0, 120);
    SnoFields f = gen(&g, 100);
    EXPECT_EQ(f.tick, 1u);
    for (int64_t u = 101; u < 150; u++)
        gen(&g, u);
    EXPECT_EQ(g.regressions, 0u);
    EXPECT_EQ(g.generated, 50u);
    EXPECT_EQ(gen(&g, 130).tick, 0u); // back 19 units: a real regression, back to timeline 0
    EXPECT_EQ(g.regressions, 1u);
}

TEST(SnoGenerator, NeverRepeatsUnderJitteryClock)
{
    // A clock that jumps back and forth: every id must be fresh.
    SnoGenerator g;
    sno_generator_init(&g, 7, 0, 15);
    std::mt19937_64 rng(1234);
    std::set<std::string> seen;
    int64_t base = 100000;
    int made = 0;
    for (int i = 0; i < 200000 && made < 50000; i++) {
        int64_t now = base + static_cast<int64_t>(rng() % 40) - 20;
        if (rng() % 100 == 0)
            base += 3;
        Sno id;
        if (sno_generate(&g, now, 0, &id) == GenStatus::ok) {
            ASSERT_TRUE(
                seen.insert(std::string(reinterpret_cast<char *>(id.bytes), SNO_SIZE)).second)
                << "duplicate at step " << i;
            made++;
        }
    }
    EXPECT_GT(made, 1000);
    EXPECT_GT(g.regressions, 0u);
}

TEST(SnoGenerator, StrictlyIncreasingWithoutRegression)
{
    SnoGenerator g;
    sno_generator_init(&g, 2);
    Sno prev{};
    int64_t now = 5;
    for (int i = 0; i < 300000; i++) {
        if (i % 1000 == 0)
            now++;
        Sno id;
        GenStatus st = sno_generate(&g, now, 0, &id);
        if (st == GenStatus::wait) {
            now++;
            ASSERT_EQ(sno_generate(&g, now, 0, &id), GenStatus::ok);
        }
        if (i > 0) {
            ASSERT_LT(sno_cmp(prev, id), 0);
        }
        prev = id;
    }
}

TEST(SnoGenerator, FloorFromLease)
{
    SnoGenerator g;
    sno_generator_init(&g, 1);
    sno_generator_floor(&g, 0, 500);
    // The floor unit itself is used up; a clock below it moves to timeline 1.
    gen(&g, 500, GenStatus::wait);
    SnoFields f = gen(&g, 400);
    EXPECT_EQ(f.tick, 1u);
    // With both timelines floored, a clock below both waits.
    SnoGenerator h;
    sno_generator_init(&h, 1);
    sno_generator_floor(&h, 0, 500);
    sno_generator_floor(&h, 1, 450);
    gen(&h, 440, GenStatus::wait);
    EXPECT_EQ(gen(&h, 451).tick, 1u);
    EXPECT_EQ(gen(&h, 501).tick, 1u);
    // A floor below what was already used changes nothing.
    sno_generator_floor(&h, 1, 10);
    EXPECT_EQ(h.hi[1], 501);
}

TEST(SnoLayout, UnitBounds)
{
    EXPECT_EQ(kid::sno_unit_start_us(0), kid::SNO_MIN_UNIX_US);
    EXPECT_EQ(kid::sno_unit_end_us(kid::SNO_MAX_UNITS), kid::SNO_MAX_UNIX_US);
    int64_t units = 0;
    ASSERT_TRUE(kid::sno_units_from_unix_us(kid::sno_unit_end_us(777), &units));
    EXPECT_EQ(units, 777);
    ASSERT_TRUE(kid::sno_units_from_unix_us(kid::sno_unit_start_us(778), &units));
    EXPECT_EQ(units, 778);
}
