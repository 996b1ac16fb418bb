// libFuzzer target: the sno text codec (16 characters) and the 10-byte binary layout.
#include "fuzz.h"
#include "core/sno.h"

using namespace kid;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = reinterpret_cast<const char *>(data);

    // Text: strict, so an accepted string is the only spelling of its id.
    Sno id;
    if (sno_decode(text, size, &id)) {
        FUZZ_CHECK(size == SNO_TEXT_LEN);
        char again[SNO_TEXT_LEN];
        sno_encode(id, again);
        FUZZ_CHECK(same_text(again, data, SNO_TEXT_LEN));
    }

    // Binary: every 10-byte string is an sno (the type's receive takes any).
    if (size >= SNO_SIZE) {
        Sno bin;
        std::memcpy(bin.bytes, data, SNO_SIZE);
        char out[SNO_TEXT_LEN];
        sno_encode(bin, out);
        Sno back;
        FUZZ_CHECK(sno_decode(out, SNO_TEXT_LEN, &back));
        FUZZ_CHECK(sno_cmp(back, bin) == 0);

        // Fields: unpack and pack are inverse.
        SnoFields f = sno_unpack(bin);
        FUZZ_CHECK(f.units >= 0 && f.units <= SNO_MAX_UNITS && f.tick <= 1);
        Sno packed = sno_pack(f);
        FUZZ_CHECK(std::memcmp(packed.bytes, bin.bytes, SNO_SIZE) == 0);

        // Time: the unit's first instant maps back to the same unit.
        int64_t units = -1;
        FUZZ_CHECK(sno_units_from_unix_us(sno_unix_ms(f) * 1000, &units));
        FUZZ_CHECK(units == f.units);
        FUZZ_CHECK(sno_units_from_unix_ms(sno_unix_ms(f), &units) && units == f.units);

        // Byte order is text order.
        if (size >= 2 * SNO_SIZE) {
            Sno other;
            std::memcpy(other.bytes, data + SNO_SIZE, SNO_SIZE);
            char out2[SNO_TEXT_LEN];
            sno_encode(other, out2);
            int c = std::memcmp(out, out2, SNO_TEXT_LEN);
            FUZZ_CHECK(((c > 0) - (c < 0)) == sno_cmp(bin, other));
        }
    }
    return 0;
}
