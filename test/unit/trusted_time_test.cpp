// Unit tests of the trusted time's and the horizon carry's arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "core/trusted_time.h"

using namespace kid;

// The highest key over readings, as horizon.cpp keeps it in a shared word.
static int64_t raise_key(int64_t key, int64_t unix_us, int64_t monotonic_us)
{
    return std::max(key, carry_key(unix_us, monotonic_us));
}

TEST(TrustedTime, OffsetWordsKeepTheOrder)
{
    const int64_t values[] = {INT64_MIN, -5, -1, 0, 1, 5, INT64_MAX};
    for (int64_t a : values)
        for (int64_t b : values)
            EXPECT_EQ(a < b, trusted_offset_word(a) < trusted_offset_word(b)) << a << " " << b;
    EXPECT_EQ(trusted_offset_of_word(trusted_offset_word(-123)), -123);
    EXPECT_EQ(trusted_offset_of_word(0), INT64_MIN);
}

// A reading R at monotonic M: carried at half pace, R + (now - M) / 2.
TEST(HorizonCarry, HalfThePaceOfRealTime)
{
    const int64_t R = 1'800'000'000'000'000, M = 5'000'000;
    int64_t key = carry_key(R, M);
    EXPECT_EQ(carried_time(key, M), R);
    EXPECT_EQ(carried_time(key, M + 2'000'000), R + 1'000'000);
    // A clock stepped back 1 s at M catches up with the carry after 2 s.
    int64_t step = 1'000'000;
    for (int64_t t = 0; t <= 4'000'000; t += 1000) {
        int64_t clock = R - step + t;
        EXPECT_EQ(clock >= carried_time(key, M + t), t >= 2 * step) << t;
    }
}

// A reading while the clock is below the carry leaves the carry in place.
TEST(HorizonCarry, ReadingsBelowTheCarryDoNotRestartIt)
{
    const int64_t R = 1'800'000'000'000'000, M = 5'000'000, step = 1'000'000;
    int64_t key = carry_key(R, M);
    for (int64_t t = 1000; t < 2 * step; t += 1000) {
        int64_t clock = R - step + t;
        int64_t raised = raise_key(key, clock, M + t);
        EXPECT_EQ(raised, key) << t;
        EXPECT_GE(carried_time(raised, M + t), R) << "never below the reading";
    }
}

// A restart's carry, 7 s ahead, caught up: a later reading at the clock
// replaces it, and a small step later is carried by its own size only,
// not by half of the restart's gap (the anchor of one reading paired with
// another's time).
TEST(HorizonCarry, EachCarryIsItsOwnSteps)
{
    const int64_t start_mono = 1'000'000, gap = 7'000'000;
    const int64_t clock_at_start = 1'800'000'000'000'000;
    int64_t key = carry_key(clock_at_start + gap, start_mono); // the floor, ahead
    // 30 s later the clock is well past the carry (caught up after 14 s).
    int64_t mono = start_mono + 30'000'000;
    int64_t reading = clock_at_start + 30'000'000;
    EXPECT_LT(carried_time(key, mono), reading);
    key = raise_key(key, reading, mono);
    EXPECT_EQ(carried_time(key, mono), reading);
    // A writer whose clock read 10 us before that reading: carried to the
    // reading, not seconds ahead; after 20 us (twice its step) it is back.
    EXPECT_LE(carried_time(key, mono + 5) - (reading - 10 + 5), 10);
    EXPECT_GE(reading - 10 + 20, carried_time(key, mono + 20));
}

// Every reading's carry is at or below the carried time, whatever the order.
TEST(HorizonCarry, NeverBelowAnyReading)
{
    int64_t key = INT64_MIN;
    int64_t clock = 1'800'000'000'000'000, mono = 0, highest = INT64_MIN;
    const int64_t moves[] = {+100, +2000, -3'000'000, +500, +1'000'000, +4'000'000, -10, +50};
    for (int64_t move : moves) {
        mono += 1000;
        clock += 1000 + move;
        key = raise_key(key, clock, mono);
        highest = std::max(highest, clock);
        EXPECT_GE(carried_time(key, mono), highest);
    }
}
