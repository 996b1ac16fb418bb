// Unit tests of the Erlang uid core.  There is no JavaScript reference for
// uid: the vectors are derived by hand from the layouts in uid.h, with the
// derivation next to each.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <string>

#include "core/trusted_time.h"
#include "core/uid.h"

using namespace kid;

static std::string local_text(uint64_t v)
{
    char buf[UID_LOCAL_TEXT_LEN];
    uid_local_encode(v, buf);
    return std::string(buf, UID_LOCAL_TEXT_LEN);
}

static std::string global_text(const UidGlobal &g)
{
    char buf[UID_GLOBAL_TEXT_LEN];
    uid_global_encode(g, buf);
    return std::string(buf, UID_GLOBAL_TEXT_LEN);
}

TEST(UidLocal, KnownVectors)
{
    // 1970-01-01T00:00:01Z: A = 0, B = 1, C = 0, seq 0 -> B << 24 = 0x1000000.
    UidFields f;
    ASSERT_TRUE(uid_fields_from_unix_us(1000000, &f));
    EXPECT_EQ(uid_local_pack(f), UINT64_C(0x1000000));
    // d64: the 64 bits and 2 zero tail bits make 66 = 11 x 6; bit 24 moves to
    // bit 26, in the 7th character from the right (bits 24..29) at value 4,
    // and d64[4] = '3' (".0123..." -> '.'=0 '0'=1 '1'=2 '2'=3 '3'=4).
    EXPECT_EQ(local_text(UINT64_C(0x1000000)), "......3....");
    EXPECT_EQ(local_text(0), "...........");
    // All bits: 63 ones then two zero tail bits: last character 111100 = 60 = 'w'.
    EXPECT_EQ(local_text(UINT64_MAX), "zzzzzzzzzzw");
    // 2023-06-30T15:03:01.887007Z = 1688137381887007 us: A = 1688, B = 137381,
    // C = 887007, C >> 10 = 866.
    ASSERT_TRUE(uid_fields_from_unix_us(INT64_C(1688137381887007), &f));
    EXPECT_EQ(f.mega, 1688u);
    EXPECT_EQ(f.sec, 137381u);
    EXPECT_EQ(f.step, 866u);
    f.seq = 5;
    uint64_t id = uid_local_pack(f);
    EXPECT_EQ(id, (UINT64_C(1688) << 44) | (UINT64_C(137381) << 24) | (UINT64_C(866) << 14) | 5);
    EXPECT_EQ(uid_unix_us(uid_local_unpack(id)), INT64_C(1688137381000000) + (866 << 10));
}

TEST(UidLocal, StrictText)
{
    uint64_t v;
    std::mt19937_64 rng(8);
    for (int i = 0; i < 20000; i++) {
        uint64_t a = rng(), b = rng();
        ASSERT_TRUE(uid_local_decode(local_text(a).data(), UID_LOCAL_TEXT_LEN, &v));
        ASSERT_EQ(v, a);
        int c = local_text(a).compare(local_text(b));
        ASSERT_EQ((a > b) - (a < b), (c > 0) - (c < 0)); // d64 sorts like the bits
    }
    // Non-zero tail bits: the last character must be a multiple of 4 in d64.
    EXPECT_FALSE(uid_local_decode("..........0", 11, &v)); // '0' = 1
    EXPECT_TRUE(uid_local_decode("..........3", 11, &v));  // '3' = 4
    const char *bad[] = {"",           "..........", "............", ".........-.", "..........+",
                         "          ."};
    for (const char *s : bad)
        EXPECT_FALSE(uid_local_decode(s, std::strlen(s), &v)) << s;
}

TEST(UidLocal, FieldValidity)
{
    UidFields f{1, 999999, 976, 16383, 0};
    EXPECT_EQ(uid_local_invalid(uid_local_pack(f)), nullptr);
    f.sec = 1000000;
    EXPECT_NE(uid_local_invalid(uid_local_pack(f)), nullptr);
    f.sec = 5;
    f.step = 977;
    EXPECT_NE(uid_local_invalid(uid_local_pack(f)), nullptr);
}

TEST(UidGlobal, KnownVectorAndRoundTrip)
{
    // A = 0, B = 1, C>>10 = 0, seq 0, node 0x01020304, I = 8:
    // A:20 | B>>8 (=0):12 | node:32 | B&255 (=1):8 | step:10 | seq:14
    // = bytes 00 00 00 00 | 01 02 03 04 | 01 00 00 00.
    UidFields f{0, 1, 0, 0, 0x01020304};
    UidGlobal g = uid_global_pack(f, 8);
    const uint8_t expect[12] = {0, 0, 0, 0, 1, 2, 3, 4, 1, 0, 0, 0};
    EXPECT_EQ(std::memcmp(g.bytes, expect, 12), 0);
    std::mt19937_64 rng(21);
    for (int i = 0; i < 20000; i++) {
        UidFields r{static_cast<uint32_t>(rng() % 0x100000), static_cast<uint32_t>(rng() % 1000000),
                    static_cast<uint32_t>(rng() % 977), static_cast<uint32_t>(rng() % 16384),
                    static_cast<uint32_t>(rng())};
        int interval = 5 + static_cast<int>(rng() % 6);
        UidGlobal h = uid_global_pack(r, interval);
        UidFields back = uid_global_unpack(h, interval);
        ASSERT_EQ(back.mega, r.mega);
        ASSERT_EQ(back.sec, r.sec);
        ASSERT_EQ(back.step, r.step);
        ASSERT_EQ(back.seq, r.seq);
        ASSERT_EQ(back.node, r.node);
        UidGlobal t;
        ASSERT_TRUE(uid_global_decode(global_text(h).data(), UID_GLOBAL_TEXT_LEN, &t));
        ASSERT_EQ(std::memcmp(t.bytes, h.bytes, 12), 0);
        ASSERT_EQ(uid_global_invalid(h), nullptr);
    }
}

TEST(UidGlobal, SecondsFieldValidity)
{
    // Bytes 00 00 0f ff | 00 00 00 00 | ff 00 00 00 put 0x3ff in the
    // top 10 bits of B (the 10 bits after A, bits 75..66), above 976 =
    // 999999 >> 10 under every interval: rejected.
    UidGlobal g{{0x00, 0x00, 0x0f, 0xff, 0, 0, 0, 0, 0xff, 0, 0, 0}};
    EXPECT_STREQ(uid_global_invalid(g), "The seconds field is above 999999.");
    // Top 10 bits 977 (0x3d1 << 66 = bytes 00 00 0f 44 ...), the rest zero: rejected.
    UidGlobal h{{0x00, 0x00, 0x0f, 0x44, 0, 0, 0, 0, 0, 0, 0, 0}};
    EXPECT_NE(uid_global_invalid(h), nullptr);
    // Top 10 bits 976 is taken: whether B <= 999999 depends on the interval.
    // B = 976 * 1024 + 1023 packed with I = 8 reads 1000447 with I = 8,
    // 999679 with I = 10.
    UidGlobal k = uid_global_pack(UidFields{0, 976 * 1024 + 1023, 0, 0, 0}, 8);
    EXPECT_EQ(uid_global_invalid(k), nullptr);
    EXPECT_FALSE(uid_global_seconds_valid(uid_global_unpack(k, 8)));
    EXPECT_EQ(uid_global_unpack(k, 10).sec, 999679u);
    EXPECT_TRUE(uid_global_seconds_valid(uid_global_unpack(k, 10)));
    // The largest fields pass under every interval.
    for (int i = UID_INTERVAL_MIN; i <= UID_INTERVAL_MAX; i++) {
        UidGlobal m = uid_global_pack(UidFields{0xFFFFF, 999999, 976, 16383, 0xFFFFFFFF}, i);
        EXPECT_EQ(uid_global_invalid(m), nullptr) << i;
        EXPECT_TRUE(uid_global_seconds_valid(uid_global_unpack(m, i))) << i;
    }
}

TEST(UidGlobal, NeighbourhoodOrdering)
{
    // Within one 2^I-second window, node decides; across windows, time does.
    UidFields early{1, 256, 0, 0, 9}; // window 1 (B >> 8 = 1), node 9
    UidFields late{1, 300, 0, 0, 2};  // same window, later, node 2
    UidFields next{1, 512, 0, 0, 1};  // next window
    auto cmp = [](const UidGlobal &a, const UidGlobal &b) {
        return std::memcmp(a.bytes, b.bytes, 12);
    };
    EXPECT_GT(cmp(uid_global_pack(early, 8), uid_global_pack(late, 8)), 0);
    EXPECT_LT(cmp(uid_global_pack(late, 8), uid_global_pack(next, 8)), 0);
    EXPECT_LT(cmp(uid_global_pack(early, 8), uid_global_pack(next, 8)), 0);
}

TEST(UidText, Base64urlConversion)
{
    // The same bits in RFC 4648 base64url: 0x1000000 -> digit value 4 = 'E'.
    char buf[UID_LOCAL_TEXT_LEN];
    uid_local_encode_base64url(UINT64_C(0x1000000), buf);
    EXPECT_EQ(std::string(buf, 11), "AAAAAAEAAAA");
    uint64_t v;
    ASSERT_TRUE(uid_local_decode_base64url("AAAAAAEAAAA", 11, &v));
    EXPECT_EQ(v, UINT64_C(0x1000000));
    EXPECT_FALSE(uid_local_decode_base64url("AAAAAAEAAA.", 11, &v));
    UidGlobal g = uid_global_pack(UidFields{0, 1, 0, 0, 0x01020304}, 8), h;
    char gbuf[UID_GLOBAL_TEXT_LEN];
    uid_global_encode_base64url(g, gbuf);
    ASSERT_TRUE(uid_global_decode_base64url(gbuf, 16, &h));
    EXPECT_EQ(std::memcmp(g.bytes, h.bytes, 12), 0);
}

TEST(UidNode, FingerprintsAreDistinct)
{
    std::set<uint32_t> seen;
    for (uint32_t n = 0; n < 1024; n++)
        ASSERT_TRUE(seen.insert(uid_node_fingerprint(n)).second);
}

TEST(UidGenerator, Paths)
{
    uint64_t last = 0, next;
    int64_t t = INT64_C(1700000000000000); // a step boundary? 1700000000 s exactly: C = 0
    ASSERT_EQ(uid_step(last, t, 0, &next), UidStep::ok);
    EXPECT_EQ(next & UID_SEQ_MAX, 0u);
    last = next;
    ASSERT_EQ(uid_step(last, t + 1000, t, &next), UidStep::same_step); // 1 ms: same 1.024 ms step
    EXPECT_EQ(next, last + 1);
    last = next;
    ASSERT_EQ(uid_step(last, t - 3600000000, t + 1000, &next), UidStep::ahead); // 1 h back
    EXPECT_EQ(next, last + 1);
    // Exhaust the sequence: the next step follows (one step ahead of the clock at most).
    last = (last & ~static_cast<uint64_t>(UID_SEQ_MAX)) | UID_SEQ_MAX;
    ASSERT_EQ(uid_step(last, t, t, &next), UidStep::next_step);
    EXPECT_EQ(next >> 14, (last >> 14) + 1);
    EXPECT_EQ(next & UID_SEQ_MAX, 0u);
    // Exhausted again one step ahead of the clock: wait for the clock...
    uint64_t ahead = next | UID_SEQ_MAX;
    ASSERT_EQ(uid_step(ahead, t, t, &next), UidStep::wait);
    // ...unless the clock is behind the trusted time (went back, or below a
    // floor) and the trusted time's step is not behind it: move on...
    ASSERT_EQ(uid_step(ahead, t, t + 5000, &next), UidStep::next_step);
    EXPECT_EQ(next >> 14, (ahead >> 14) + 1);
    // ...but never more than one step past the trusted time's: a floor ahead of
    // the clock does not carry the ids further ahead.
    uint64_t far = uid_word_floor(t + 5000) + (UINT64_C(1) << 14);
    ASSERT_EQ(uid_step(far, t, t + 5000, &next), UidStep::wait);
    // Step 976 rolls over to the next second.
    uint64_t w = uid_word_from_unix_us(INT64_C(1700000000999999)) | UID_SEQ_MAX;
    EXPECT_EQ(uid_fields_from_word(w).step, 976u);
    ASSERT_EQ(uid_step(w, INT64_C(1700000000999999), 0, &next), UidStep::next_step);
    UidFields f = uid_fields_from_word(next);
    EXPECT_EQ(f.sec, 1u + 1700000000u % 1000000u);
    EXPECT_EQ(f.step, 0u);
}

// kid.uid_interval moves the node fingerprint inside a
// uid_global.  With fingerprint 0x92492492 an id made under 8 at second 64
// of a megasecond equals one made under 5 at second 128; the guard after a
// change 8 -> 5 with a mark at second 64 lies past every such second, and
// for every pair of intervals no id at or after the guard equals an id at
// or before the mark.
static UidGlobal global_at(uint32_t mega, uint32_t sec, uint32_t node, int interval)
{
    UidFields f{mega, sec, 5, 7, node};
    return uid_global_pack(f, interval);
}

static bool same(const UidGlobal &a, const UidGlobal &b)
{
    return std::memcmp(a.bytes, b.bytes, UID_GLOBAL_SIZE) == 0;
}

TEST(UidIntervalGuard, TheCollisionItPrevents)
{
    const uint32_t mega = 1700, node = 0x92492492u;
    EXPECT_TRUE(same(global_at(mega, 64, node, 8), global_at(mega, 128, node, 5)));
    int64_t mark = (INT64_C(1700) * 1000000 + 64) * 1000000 + 123;
    int64_t guard = uid_interval_change_guard_us(mark, 8, 5);
    EXPECT_EQ(guard, (INT64_C(1700) * 1000000 + 256) * 1000000);
    EXPECT_GT(guard, (INT64_C(1700) * 1000000 + 128) * 1000000);
    EXPECT_EQ(uid_interval_change_guard_us(mark, 8, 8), 0);
    EXPECT_EQ(uid_interval_change_guard_us(0, 8, 5), 0);
    // The block would pass the megasecond: the next megasecond.
    int64_t late = (INT64_C(1700) * 1000000 + 999990) * 1000000;
    EXPECT_EQ(uid_interval_change_guard_us(late, 10, 5), INT64_C(1701) * 1000000 * 1000000);
}

TEST(UidIntervalGuard, NoIdAfterTheGuardRepeatsOneBeforeTheMark)
{
    std::mt19937_64 rng(10);
    const uint32_t nodes[] = {0x92492492u, 0x00000000u, 0x24924924u, static_cast<uint32_t>(rng())};
    const uint32_t mega = 1700;
    int collisions_before_guard = 0;
    for (int from = UID_INTERVAL_MIN; from <= UID_INTERVAL_MAX; from++) {
        for (int to = UID_INTERVAL_MIN; to <= UID_INTERVAL_MAX; to++) {
            if (from == to)
                continue;
            for (uint32_t node : nodes) {
                uint32_t mark_sec = 1000 + static_cast<uint32_t>(rng() % 2000);
                int64_t mark = (static_cast<int64_t>(mega) * 1000000 + mark_sec) * 1000000 + 999999;
                int64_t guard = uid_interval_change_guard_us(mark, from, to);
                ASSERT_GT(guard, mark);
                uint32_t guard_sec = static_cast<uint32_t>(guard / 1000000 -
                                                           INT64_C(1700) * 1000000);
                for (uint32_t s1 = mark_sec - 1023; s1 <= mark_sec; s1 += 11) {
                    UidGlobal old_id = global_at(mega, s1, node, from);
                    for (uint32_t s2 = mark_sec + 1; s2 < guard_sec + 300; s2++) {
                        bool eq = same(old_id, global_at(mega, s2, node, to));
                        if (s2 >= guard_sec)
                            ASSERT_FALSE(eq) << from << "->" << to << " node " << node << " s1 "
                                             << s1 << " s2 " << s2;
                        else if (eq)
                            collisions_before_guard++;
                    }
                }
            }
        }
    }
    // The guard is not vacuous: some ids between the mark and it would repeat.
    EXPECT_GT(collisions_before_guard, 0);
}

TEST(UidGenerator, JitteryClockStrictlyIncreasing)
{
    std::mt19937_64 rng(77);
    uint64_t last = 0, next;
    int64_t base = INT64_C(1700000000000000);
    uint64_t prev_local = 0;
    for (int i = 0; i < 200000; i++) {
        int64_t now = base + static_cast<int64_t>(rng() % 5000) - 2500;
        base += 3;
        if (uid_step(last, now, 0, &next) == UidStep::wait)
            continue;
        ASSERT_GT(next, last);
        UidFields f = uid_fields_from_word(next);
        uint64_t local = uid_local_pack(f);
        ASSERT_EQ(uid_local_invalid(local), nullptr);
        if (i > 0) {
            ASSERT_GT(local, prev_local); // the local layout keeps the word's order
        }
        prev_local = local;
        last = next;
    }
}

// The allowance docs/lease.md promises, pinned: an exhausted step moves on to
// the next one only while that is at most UID_MAX_AHEAD_STEPS (one) above the
// step of the clock, or of the trusted time when the clock reads below it.
TEST(UidGenerator, AllowanceIsOneStep)
{
    EXPECT_EQ(UID_MAX_AHEAD_STEPS, 1);
    int64_t now = INT64_C(1700000000000000);
    for (int64_t trusted : {now, now + INT64_C(3600000000)}) {
        uint64_t step = uid_word_from_unix_us(trusted) >> 14;
        uint64_t next = 0;
        // The trusted (or clock's) step used up: the next step is taken.
        EXPECT_EQ(uid_step(step << 14 | UID_SEQ_MAX, now, trusted, &next), UidStep::next_step);
        EXPECT_EQ(next, (step + 1) << 14);
        // The step above it used up too: one more would be two steps ahead.
        EXPECT_EQ(uid_step((step + 1) << 14 | UID_SEQ_MAX, now, trusted, &next), UidStep::wait);
    }
}

// After a crash the floor (the lease) is 8 s ahead of the
// clock.  A burst of 4 million uids at 20 a microsecond (above the 16 per
// microsecond a step holds) stays within one step of the trusted time
// (floor + elapsed monotonic time) instead of running ahead of it; and when
// the clock has passed the floor, no call waits longer than a step.
TEST(UidGenerator, BelowAFloorBoundedByTrustedTimeWithoutLaterStall)
{
    int64_t wall = INT64_C(1700000000000000), mono = INT64_C(5000000);
    int64_t floor = wall + 8000000;
    uint64_t offset_word = trusted_offset_word(trusted_offset(floor, mono));
    uint64_t last = uid_word_floor(floor), next;
    int64_t sub = 0, longest_wait = 0, over = 0, not_rising = 0;
    auto call = [&](int64_t cost_us_x20) {
        int64_t waited = 0;
        for (;;) {
            uint64_t w = trusted_offset_word(trusted_offset(wall, mono));
            if (w > offset_word)
                offset_word = w;
            int64_t trusted = trusted_time(trusted_offset_of_word(offset_word), mono);
            if (uid_step(last, wall, trusted, &next) != UidStep::wait) {
                if ((next >> 14) > (uid_word_from_unix_us(trusted) >> 14) + UID_MAX_AHEAD_STEPS)
                    over++;
                break;
            }
            wall += 100, mono += 100, waited += 100;
        }
        if (next <= last)
            not_rising++;
        last = next;
        longest_wait = waited > longest_wait ? waited : longest_wait;
        sub += cost_us_x20;
        wall += sub / 20, mono += sub / 20;
        sub %= 20;
    };
    call(1);
    EXPECT_EQ(next, uid_word_floor(floor) + 1); // the first id: in the step after the floor's
    EXPECT_LT(wall, floor);                     // with the clock behind the floor
    for (int i = 0; i < 4000000; i++)
        call(1);
    EXPECT_EQ(over, 0);
    EXPECT_LE(longest_wait, 1100); // at most one 1.024 ms step (and one sleep)
    while (wall < floor + 4000000)
        call(20000);
    EXPECT_EQ(over, 0);
    EXPECT_EQ(not_rising, 0);
    EXPECT_LE(longest_wait, 1100); // at most one 1.024 ms step (and one sleep)
}

TEST(UidGenerator, WordFloorAndStepEnd)
{
    int64_t t = INT64_C(1700000000123456);
    uint64_t floor = kid::uid_word_floor(t);
    kid::UidFields f = kid::uid_fields_from_word(floor);
    EXPECT_EQ(f.seq, kid::UID_SEQ_MAX);
    EXPECT_LE(kid::uid_unix_us(f), t);
    EXPECT_GE(kid::uid_step_end_us(f), t);
    EXPECT_EQ(kid::uid_step_end_us(f) - kid::uid_unix_us(f), 1023);
}

// uid_new_with_time and uid_global_new_with_time: the step of the time, the
// sequence's low 14 bits.
TEST(UidWithTime, FieldsAndRepeatAfter16384)
{
    const int64_t us = INT64_C(1763900000123456);
    UidFields bound;
    ASSERT_TRUE(uid_fields_from_unix_us(us, &bound));
    std::set<uint64_t> ids;
    for (uint64_t i = 0; i < 16384; i++) {
        UidFields f;
        ASSERT_TRUE(uid_fields_with_time(us, UINT64_C(0xFFFFFFF000) + i, &f));
        EXPECT_EQ(f.mega, bound.mega);
        EXPECT_EQ(f.sec, bound.sec);
        EXPECT_EQ(f.step, bound.step);
        EXPECT_EQ(f.node, 0u);
        ids.insert(uid_local_pack(f));
    }
    EXPECT_EQ(ids.size(), 16384u);
    UidFields a, b;
    ASSERT_TRUE(uid_fields_with_time(us, 3, &a));
    ASSERT_TRUE(uid_fields_with_time(us, 3 + 16384, &b));
    EXPECT_EQ(uid_local_pack(a), uid_local_pack(b));
    EXPECT_EQ(a.seq, 3u);
}

TEST(UidWithTime, Range)
{
    UidFields f{1, 2, 3, 4, 5};
    EXPECT_FALSE(uid_fields_with_time(-1, 0, &f));
    int64_t last_us = (INT64_C(0xFFFFF) * 1000000 + 999999) * 1000000 + 999999;
    EXPECT_FALSE(uid_fields_with_time(last_us + 1, 0, &f));
    EXPECT_TRUE(uid_fields_with_time(last_us, 1, &f));
    EXPECT_EQ(f.mega, 0xFFFFFu);
    EXPECT_EQ(f.seq, 1u);
}
