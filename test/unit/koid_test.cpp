// Unit tests of the koid core.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "core/koid.h"

using namespace kid;

static std::string text_of(uint64_t v)
{
    char buf[KOID_TEXT_LEN];
    koid_encode(v, buf);
    return std::string(buf, KOID_TEXT_LEN);
}

// Vectors from the layout, and rows of the koid npm package's README table
// (timestamp 0x8c20c0335, datacenter 3, worker 1, counter 1 = 0x02308300cd461001).
TEST(KoidLayout, KnownVectors)
{
    EXPECT_EQ(text_of(koid_pack(1, 0, 0)), "0000000000400000");
    EXPECT_EQ(text_of(koid_pack(0, 1023, 4095)), "00000000003fffff");
    EXPECT_EQ(koid_pack(INT64_C(0x8c20543b0), 0, 0), UINT64_C(0x02308150ec000000));
    EXPECT_EQ(koid_pack(INT64_C(0x8c20543b1), 0, 3), UINT64_C(0x02308150ec400003));
    uint64_t k = koid_pack(INT64_C(0x8c20c0335), (3 << 5) | 1, 1);
    EXPECT_EQ(k, UINT64_C(0x02308300cd461001));
    EXPECT_EQ(koid_datacenter(k), 3u);
    EXPECT_EQ(koid_worker(k), 1u);
    EXPECT_EQ(koid_generator_id(k), 97u);
    EXPECT_EQ(koid_counter(k), 1u);
    EXPECT_EQ(koid_ms(k), INT64_C(0x8c20c0335));
}

TEST(KoidCodec, StrictHex)
{
    uint64_t v;
    std::string ok = "02308300cd461001";
    ASSERT_TRUE(koid_decode(ok.data(), ok.size(), &v));
    EXPECT_EQ(v, UINT64_C(0x02308300cd461001));
    const char *bad[] = {"",
                         "02308300cd46100",
                         "02308300cd4610011",
                         "02308300CD461001",
                         "0x308300cd461001",
                         "02308300cd46100g",
                         " 2308300cd461001"};
    for (const char *s : bad)
        EXPECT_FALSE(koid_decode(s, std::string(s).size(), &v)) << s;
    std::mt19937_64 rng(3);
    for (int i = 0; i < 20000; i++) {
        uint64_t a = rng(), b = rng();
        ASSERT_TRUE(koid_decode(text_of(a).data(), 16, &v));
        ASSERT_EQ(v, a);
        int c = text_of(a).compare(text_of(b));
        ASSERT_EQ((a > b) - (a < b), (c > 0) - (c < 0));
    }
}

TEST(KoidGenerator, Paths)
{
    uint64_t last = 0, next = 0;
    ASSERT_EQ(koid_step(last, 100, &next), KoidStep::ok);
    EXPECT_EQ(next, UINT64_C(100) << 12);
    last = next;
    ASSERT_EQ(koid_step(last, 100, &next), KoidStep::ok); // same ms: counter 1
    EXPECT_EQ(next & 4095, 1u);
    last = (UINT64_C(100) << 12) | 4095; // 4096 ids in ms 100 so far
    EXPECT_EQ(koid_step(last, 100, &next), KoidStep::overflow);
    EXPECT_EQ(koid_step(last, 99, &next), KoidStep::clock_behind);
    EXPECT_EQ(koid_step(UINT64_C(4000000) << 12, 4000000 - 3600000, &next), KoidStep::clock_behind);
    ASSERT_EQ(koid_step(last, 101, &next), KoidStep::ok);
    EXPECT_EQ(next, UINT64_C(101) << 12);
    EXPECT_EQ(koid_step(last, -1, &next), KoidStep::out_of_range);
    EXPECT_EQ(koid_step(last, KOID_MAX_MS + 1, &next), KoidStep::out_of_range);
    // Time zero: the counter-0 id of ms 0 is never handed out twice.
    ASSERT_EQ(koid_step(0, 0, &next), KoidStep::ok);
    EXPECT_EQ(next, 1u);
}

TEST(KoidGenerator, NeverRepeatsWithOverflowAndJitter)
{
    std::mt19937_64 rng(17);
    uint64_t last = 0, next;
    int64_t now = 1000;
    std::set<uint64_t> seen;
    int waits = 0;
    for (int i = 0; i < 100000; i++) {
        int64_t clock = now + static_cast<int64_t>(rng() % 3) - 1;
        KoidStep st = koid_step(last, clock, &next);
        if (st == KoidStep::ok) {
            ASSERT_GT(next, last);
            ASSERT_TRUE(seen.insert(next).second);
            last = next;
        } else {
            waits++;
            now++;
        }
    }
    EXPECT_GT(waits, 0);
}

TEST(KoidGenerator, StateWordAccessors)
{
    uint64_t w = kid::koid_state(1234567, 89);
    EXPECT_EQ(kid::koid_state_ms(w), 1234567);
    EXPECT_EQ(kid::koid_state_counter(w), 89u);
    EXPECT_EQ(kid::koid_from_state(w, 513), kid::koid_pack(1234567, 513, 89));
    /* The floor counts its millisecond as used: the next id is in a later one. */
    uint64_t next = 0;
    uint64_t floor = kid::koid_state_floor(1000);
    EXPECT_EQ(kid::koid_step(floor, 1000, &next), kid::KoidStep::overflow);
    ASSERT_EQ(kid::koid_step(floor, 1001, &next), kid::KoidStep::ok);
    EXPECT_EQ(next, kid::koid_state(1001, 0));
    EXPECT_EQ(kid::koid_ms_start_unix_us(5, 1000), 1005000);
    EXPECT_EQ(kid::koid_ms_end_unix_us(5, 1000), 1005999);
}

// koid_new_with_time: the millisecond since the epoch, the generator given,
// the sequence's low 12 bits as the counter.
TEST(KoidWithTime, FieldsAndRepeatAfter4096)
{
    const int64_t epoch_ms = INT64_C(1288834974657); // Twitter's
    const int64_t us = INT64_C(1763900000123456);
    std::set<uint64_t> ids;
    for (uint64_t i = 0; i < 4096; i++) {
        uint64_t id;
        ASSERT_TRUE(koid_with_time(us, epoch_ms, 37, UINT64_C(0xFFFFFFF800) + i, &id));
        EXPECT_EQ(koid_ms(id), (us / 1000) - epoch_ms);
        EXPECT_EQ(koid_generator_id(id), 37u);
        ids.insert(id);
    }
    EXPECT_EQ(ids.size(), 4096u);
    uint64_t a, b;
    ASSERT_TRUE(koid_with_time(us, epoch_ms, 37, 9, &a));
    ASSERT_TRUE(koid_with_time(us, epoch_ms, 37, 9 + 4096, &b));
    EXPECT_EQ(a, b);
}

TEST(KoidWithTime, Range)
{
    const int64_t epoch_ms = 1000;
    uint64_t id = 77;
    EXPECT_TRUE(koid_with_time(epoch_ms * 1000, epoch_ms, 1, 0, &id));
    EXPECT_EQ(koid_ms(id), 0);
    int64_t last_us = (KOID_MAX_MS + epoch_ms) * 1000 + 999;
    EXPECT_TRUE(koid_with_time(last_us, epoch_ms, 1, 0, &id));
    EXPECT_EQ(koid_ms(id), KOID_MAX_MS);
    id = 77;
    EXPECT_FALSE(koid_with_time(epoch_ms * 1000 - 1, epoch_ms, 1, 0, &id));
    EXPECT_FALSE(koid_with_time(last_us + 1, epoch_ms, 1, 0, &id));
    EXPECT_EQ(id, 77u);
}
