/*
 * fuzz.h - what every libFuzzer target of kid shares.
 *
 * A target gets arbitrary bytes, feeds them to a decoder of src/core and,
 * when the decoder accepts them, checks that encoding the result gives the
 * input back (every kid text codec is strict, hence one-to-one) and that
 * the decoded value survives encode -> decode.  A broken property aborts
 * with a message, which libFuzzer reports as a crash and saves the input.
 */
#ifndef KID_FUZZ_H
#define KID_FUZZ_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "round-trip mismatch: %s (%s:%d)\n", #cond, __FILE__, __LINE__);  \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)

/* Reads bytes from the front of the input, zero once it runs out. */
struct FuzzReader {
    const uint8_t *data;
    size_t size;

    uint8_t byte() noexcept
    {
        if (size == 0)
            return 0;
        size--;
        return *data++;
    }
    uint64_t u64() noexcept
    {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = (v << 8) | byte();
        return v;
    }
    uint32_t u32() noexcept
    {
        uint32_t v = 0;
        for (int i = 0; i < 4; i++)
            v = (v << 8) | byte();
        return v;
    }
};

static inline bool same_text(const char *a, const uint8_t *b, size_t len) noexcept
{
    return std::memcmp(a, b, len) == 0;
}

#endif
