// Unit tests of the version 7 uuid core: the time order's first 48 bits,
// the range bound, kid's layout, SipHash-2-4 and the per-backend step.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/uuidv7.h"

using namespace kid;

static std::string hex(const unsigned char *u)
{
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (int i = 0; i < UUID_LEN; i++) {
        s += digits[u[i] >> 4];
        s += digits[u[i] & 15];
    }
    return s;
}

TEST(Uuidv7Order, Top48AndVersion)
{
    // RFC 9562 appendix A.6: 017F22E2-79B0-7CC3-98C4-DC0C0C07398F, 2022-02-22 14:22:22 -05:00.
    const unsigned char rfc[16] = {0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3,
                                   0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f};
    EXPECT_EQ(uuid_top48(rfc), INT64_C(1645557742000));
    EXPECT_TRUE(uuid_is_v7(rfc));
    unsigned char v4[16];
    memcpy(v4, rfc, 16);
    v4[6] = 0x4c; // version 4
    EXPECT_FALSE(uuid_is_v7(v4));
    unsigned char other_variant[16];
    memcpy(other_variant, rfc, 16);
    other_variant[8] = 0xc4; // variant 110 (Microsoft)
    EXPECT_FALSE(uuid_is_v7(other_variant));
    // A time sorts just below the uuids of its millisecond.
    EXPECT_EQ(uuid_cmp_unix_ms(rfc, INT64_C(1645557742000)), 1);
    EXPECT_EQ(uuid_cmp_unix_ms(rfc, INT64_C(1645557742001)), -1);
    EXPECT_EQ(uuid_cmp_unix_ms(rfc, 0), 1);
}

TEST(Uuidv7Order, BoundIsSmallestOfItsMillisecond)
{
    unsigned char b[16];
    uuidv7_bound(INT64_C(1645557742000), b);
    EXPECT_EQ(hex(b), "017f22e279b070008000000000000000");
    EXPECT_TRUE(uuid_is_v7(b));
    // Every packed id of that millisecond is above the bound, byte-wise.
    unsigned char id[16];
    uuidv7_pack(INT64_C(1645557742000), 0, 0, 0, 0, id);
    EXPECT_EQ(memcmp(b, id, 16), 0);
    uuidv7_pack(INT64_C(1645557742000), 0, 0, 0, 1, id);
    EXPECT_LT(memcmp(b, id, 16), 0);
    uuidv7_bound(UUIDV7_MAX_UNIX_MS, b);
    EXPECT_EQ(hex(b), "ffffffffffff70008000000000000000");
}

TEST(Uuidv7Layout, FieldsRoundTrip)
{
    unsigned char id[16];
    uuidv7_pack(INT64_C(0x0123456789ab), 0xabc, 1023, 255, UINT64_MAX, id);
    EXPECT_EQ(hex(id), "0123456789ab7abcbfffffffffffffff");
    EXPECT_TRUE(uuid_is_v7(id));
    EXPECT_EQ(uuid_top48(id), INT64_C(0x0123456789ab));
    EXPECT_EQ(uuidv7_counter(id), 0xabcu);
    EXPECT_EQ(uuidv7_node(id), 1023u);
    EXPECT_EQ(uuidv7_partition(id), 255u);
    uuidv7_pack(INT64_C(1), 1, 0x155, 0xa5, 0, id);
    EXPECT_EQ(hex(id), "0000000000017001955a500000000000");
    EXPECT_EQ(uuidv7_node(id), 0x155u);
    EXPECT_EQ(uuidv7_partition(id), 0xa5u);
    EXPECT_EQ(uuidv7_counter(id), 1u);
}

// The reference vectors of SipHash-2-4 (key 00..0f, message 00..n-1).
TEST(Uuidv7Random, SipHashVectors)
{
    unsigned char m[15];
    for (int i = 0; i < 15; i++)
        m[i] = static_cast<unsigned char>(i);
    const uint64_t k0 = UINT64_C(0x0706050403020100), k1 = UINT64_C(0x0f0e0d0c0b0a0908);
    EXPECT_EQ(siphash24(k0, k1, m, 0), UINT64_C(0x726fdb47dd0e0e31));
    EXPECT_EQ(siphash24(k0, k1, m, 1), UINT64_C(0x74f839c593dc67fd));
    EXPECT_EQ(siphash24(k0, k1, m, 8), UINT64_C(0x93f5f5799a932462));
    EXPECT_EQ(siphash24(k0, k1, m, 15), UINT64_C(0xa129ca6149be45e5));
}

TEST(Uuidv7Random, KeyedAndDistinct)
{
    Uuidv7Generator a{-1, 0, 0, 1, 2}, b{-1, 0, 0, 1, 3};
    std::set<uint64_t> seen;
    for (int i = 0; i < 10000; i++) {
        uint64_t ra = uuidv7_random(&a), rb = uuidv7_random(&b);
        EXPECT_LT(ra, UINT64_C(1) << UUIDV7_RANDOM_BITS);
        EXPECT_NE(ra, rb);
        seen.insert(ra);
    }
    EXPECT_EQ(a.calls, 10000u);
    // 10,000 draws of 44 bits: a repeat has probability 3e-6; SipHash's is none here.
    EXPECT_EQ(seen.size(), 10000u);
}

TEST(Uuidv7Step, NewMillisecondSameMillisecondAndCounterOverflow)
{
    Uuidv7Generator g{-1, 0, 0, 0, 0};
    int64_t ms;
    uint32_t c;
    EXPECT_EQ(uuidv7_step(&g, 1000, 1000, &ms, &c), Uuidv7Step::ok);
    EXPECT_EQ(ms, 1000);
    EXPECT_EQ(c, 0u);
    EXPECT_EQ(uuidv7_step(&g, 1000, 1000, &ms, &c), Uuidv7Step::same);
    EXPECT_EQ(ms, 1000);
    EXPECT_EQ(c, 1u);
    g.counter = UUIDV7_COUNTER_MAX;
    // The counter is full and the clock has not moved: the next millisecond
    // would be ahead of the clock and of the trusted time: wait.
    EXPECT_EQ(uuidv7_step(&g, 1000, 1000, &ms, &c), Uuidv7Step::wait);
    EXPECT_EQ(g.last_ms, 1000);
    // With the clock at the next millisecond: a new one, counter 0.
    EXPECT_EQ(uuidv7_step(&g, 1001, 1001, &ms, &c), Uuidv7Step::ok);
    EXPECT_EQ(ms, 1001);
    EXPECT_EQ(c, 0u);
}

// A clock step back: the ids continue above the last one, at the rate the
// trusted time allows, and never go below it.
TEST(Uuidv7Step, ClockStepBack)
{
    Uuidv7Generator g{-1, 0, 0, 0, 0};
    int64_t ms;
    uint32_t c;
    ASSERT_EQ(uuidv7_step(&g, 50000, 50000, &ms, &c), Uuidv7Step::ok);
    // The clock is 10 s behind; trusted time is 50000 (no time passed).
    std::vector<std::pair<int64_t, uint32_t>> ids;
    for (int i = 0; i < 5000; i++) {
        Uuidv7Step s = uuidv7_step(&g, 40000, 50000, &ms, &c);
        if (s == Uuidv7Step::wait)
            break;
        ids.emplace_back(ms, c);
    }
    // The rest of millisecond 50000 (4095 more), then a wait.
    EXPECT_EQ(ids.size(), UUIDV7_COUNTER_MAX);
    EXPECT_EQ(ids.back().first, 50000);
    // Trusted time moves on by 1 ms: one more millisecond is allowed.
    EXPECT_EQ(uuidv7_step(&g, 40001, 50001, &ms, &c), Uuidv7Step::ahead);
    EXPECT_EQ(ms, 50001);
    EXPECT_EQ(c, 0u);
    EXPECT_EQ(uuidv7_step(&g, 40001, 50001, &ms, &c), Uuidv7Step::same);
}

// Packed ids of one generator strictly increase as bytes, whatever the
// random bits, and ids of two partitions never collide.
TEST(Uuidv7Step, StrictlyIncreasingAndUnique)
{
    Uuidv7Generator g1{-1, 0, 0, 11, 12}, g2{-1, 0, 0, 11, 12}; // even the same key
    std::set<std::string> all;
    unsigned char prev[16] = {};
    int64_t now = 1700000000000;
    for (int i = 0; i < 20000; i++) {
        if (i % 3000 == 0)
            now++;
        int64_t ms;
        uint32_t c;
        unsigned char id[16];
        Uuidv7Step s = uuidv7_step(&g1, now, now, &ms, &c);
        if (s == Uuidv7Step::wait) {
            now++;
            s = uuidv7_step(&g1, now, now, &ms, &c);
        }
        ASSERT_NE(s, Uuidv7Step::wait);
        uuidv7_pack(ms, c, 5, 1, uuidv7_random(&g1), id);
        if (i > 0) {
            EXPECT_LT(memcmp(prev, id, 16), 0);
        }
        memcpy(prev, id, 16);
        all.insert(hex(id));
        ASSERT_NE(uuidv7_step(&g2, ms, ms, &ms, &c), Uuidv7Step::wait);
        uuidv7_pack(ms, c, 5, 2, uuidv7_random(&g2), id);
        all.insert(hex(id));
    }
    EXPECT_EQ(all.size(), 40000u);
}

TEST(Uuidv7Step, LastMillisecond)
{
    Uuidv7Generator g{UUIDV7_MAX_UNIX_MS, UUIDV7_COUNTER_MAX, 0, 0, 0};
    int64_t ms;
    uint32_t c;
    EXPECT_EQ(uuidv7_step(&g, UUIDV7_MAX_UNIX_MS + 5, UUIDV7_MAX_UNIX_MS + 5, &ms, &c),
              Uuidv7Step::too_late);
}
