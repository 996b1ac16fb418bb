// libFuzzer target: the generic radix codec under every alphabet kid uses,
// both padding sides and any byte length from 1 to 16.
//
// Input: byte 0 picks alphabet and pad, byte 1 the byte length; the rest
// is the text to decode and, read as bytes, a bit string to encode.
#include "fuzz.h"
#include "core/radix.h"

using namespace kid;

static constexpr Alphabet hex_alphabet("0123456789abcdef", 4);
static constexpr Alphabet
    base64url_alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", 6);
static const Alphabet *const ALPHABETS[] = {&sno_alphabet, &tid_alphabet, &d64_alphabet,
                                            &hex_alphabet, &base64url_alphabet};

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const Alphabet &a = *ALPHABETS[(data[0] & 0x7f) % 5];
    Pad pad = data[0] & 0x80 ? Pad::trailing : Pad::leading;
    size_t nbytes = 1 + data[1] % 16;
    size_t ndigits = (nbytes * 8 + a.bits - 1) / a.bits;
    const char *text = reinterpret_cast<const char *>(data + 2);
    size_t len = size - 2;

    uint8_t out[16];
    if (radix_decode(a, pad, text, len, out, nbytes, ndigits)) {
        FUZZ_CHECK(len == ndigits);
        char again[128];
        radix_encode(a, pad, out, nbytes, again, ndigits);
        FUZZ_CHECK(same_text(again, data + 2, ndigits));
    } else if (len == ndigits) {
        // Rejected: a character outside the alphabet or a spare bit set.
        bool alphabet = true;
        for (size_t i = 0; i < len; i++)
            alphabet = alphabet && a.value[static_cast<unsigned char>(text[i])] >= 0;
        size_t spare = ndigits * a.bits - nbytes * 8;
        if (alphabet) {
            FUZZ_CHECK(spare > 0);
            unsigned v =
                a.value[static_cast<unsigned char>(pad == Pad::leading ? text[0] : text[len - 1])];
            unsigned mask = pad == Pad::leading ? ((1u << spare) - 1) << (a.bits - spare)
                                                : (1u << spare) - 1;
            FUZZ_CHECK(v & mask);
        }
    }

    // Encode the bytes, decode the text: the same bytes.
    if (len >= nbytes) {
        char txt[128];
        radix_encode(a, pad, data + 2, nbytes, txt, ndigits);
        for (size_t i = 0; i < ndigits; i++)
            FUZZ_CHECK(a.value[static_cast<unsigned char>(txt[i])] >= 0);
        uint8_t back[16];
        FUZZ_CHECK(radix_decode(a, pad, txt, ndigits, back, nbytes, ndigits));
        FUZZ_CHECK(std::memcmp(back, data + 2, nbytes) == 0);
    }
    return 0;
}
