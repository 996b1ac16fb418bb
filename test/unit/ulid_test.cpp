// Unit tests of the ULID core: the text of 16 bytes both ways, its
// alphabet, case and length rules, and the time in the first 48 bits.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "core/ulid.h"

using namespace kid;

static std::string encode(const uint8_t *u)
{
    char out[ULID_TEXT_LEN];
    ulid_encode(u, out);
    return std::string(out, ULID_TEXT_LEN);
}

static bool decode(const std::string &s, uint8_t *out)
{
    return ulid_decode(s.data(), s.size(), out);
}

TEST(Ulid, ReferenceExample)
{
    // npm ulid's README: ulid(1469918176385) starts 01ARYZ6S41 (the time),
    // and the rest is its 80 random bits.
    uint8_t u[ULID_BYTES];
    ASSERT_TRUE(decode("01ARYZ6S41TSV4RRFFQ69G5FAV", u));
    EXPECT_EQ(ulid_unix_ms(u), INT64_C(1469918176385));
    EXPECT_EQ(encode(u), "01ARYZ6S41TSV4RRFFQ69G5FAV");
}

TEST(Ulid, Ends)
{
    uint8_t zero[ULID_BYTES] = {};
    EXPECT_EQ(encode(zero), "00000000000000000000000000");
    uint8_t ones[ULID_BYTES];
    memset(ones, 0xff, sizeof(ones));
    EXPECT_EQ(encode(ones), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
    EXPECT_EQ(ulid_unix_ms(ones), (INT64_C(1) << 48) - 1);
    uint8_t u[ULID_BYTES];
    ASSERT_TRUE(decode("7ZZZZZZZZZZZZZZZZZZZZZZZZZ", u));
    EXPECT_EQ(memcmp(u, ones, ULID_BYTES), 0);
    // One more would need 129 bits: the first digit is at most 7.
    EXPECT_FALSE(decode("80000000000000000000000000", u));
    EXPECT_FALSE(decode("ZZZZZZZZZZZZZZZZZZZZZZZZZZ", u));
}

TEST(Ulid, EitherCaseInCapitalsOut)
{
    uint8_t upper[ULID_BYTES], lower[ULID_BYTES];
    ASSERT_TRUE(decode("01ARYZ6S41TSV4RRFFQ69G5FAV", upper));
    ASSERT_TRUE(decode("01aryz6s41tsv4rrffq69g5fav", lower));
    EXPECT_EQ(memcmp(upper, lower, ULID_BYTES), 0);
    ASSERT_TRUE(decode("01aRyZ6s41TsV4rRfFq69G5fAv", lower));
    EXPECT_EQ(memcmp(upper, lower, ULID_BYTES), 0);
}

TEST(Ulid, RefusesWhatIsNotOne)
{
    uint8_t u[ULID_BYTES];
    const std::string good = "01ARYZ6S41TSV4RRFFQ69G5FAV";
    EXPECT_FALSE(decode("", u));
    EXPECT_FALSE(decode(good.substr(0, 25), u));
    EXPECT_FALSE(decode(good + "0", u));
    // Crockford leaves out I, L, O and U (and the ULID spec does not read
    // them as 1, 1, 0): refused in either case, at any place.
    for (char c : std::string("ILOUilou-_ .@[`{\x7f")) {
        for (size_t at : {size_t(1), size_t(12), size_t(25)}) {
            std::string bad = good;
            bad[at] = c;
            EXPECT_FALSE(decode(bad, u)) << bad;
        }
    }
    std::string with_nul = good;
    with_nul[10] = '\0';
    EXPECT_FALSE(decode(with_nul, u));
    std::string high = good;
    high[5] = static_cast<char>(0xc3);
    EXPECT_FALSE(decode(high, u));
}

TEST(Ulid, EveryDigitBothWays)
{
    const char alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    // Each digit at each place after the first decodes and encodes back.
    for (size_t at = 1; at < ULID_TEXT_LEN; at++)
        for (int d = 0; d < 32; d++) {
            std::string s(ULID_TEXT_LEN, '0');
            s[at] = alphabet[d];
            uint8_t u[ULID_BYTES];
            ASSERT_TRUE(decode(s, u)) << s;
            EXPECT_EQ(encode(u), s);
        }
}

TEST(Ulid, RandomBytesRoundTripAndSort)
{
    std::mt19937_64 rng(20261129);
    uint8_t a[ULID_BYTES], b[ULID_BYTES], back[ULID_BYTES];
    for (int i = 0; i < 20000; i++) {
        for (auto &x : a)
            x = static_cast<uint8_t>(rng());
        for (auto &x : b)
            x = static_cast<uint8_t>(rng());
        std::string ta = encode(a), tb = encode(b);
        ASSERT_TRUE(decode(ta, back));
        EXPECT_EQ(memcmp(a, back, ULID_BYTES), 0);
        // The text sorts as the bytes sort (both big endian).
        int bytes = memcmp(a, b, ULID_BYTES), text = ta.compare(tb);
        EXPECT_EQ(bytes < 0, text < 0);
        EXPECT_EQ(bytes == 0, text == 0);
    }
}

TEST(Ulid, TimeIsTheFirst48Bits)
{
    uint8_t u[ULID_BYTES] = {0x01, 0x56, 0x3d, 0xf7, 0xf8, 0x81, 0xff, 0xff};
    EXPECT_EQ(ulid_unix_ms(u), INT64_C(0x01563df7f881));
}
