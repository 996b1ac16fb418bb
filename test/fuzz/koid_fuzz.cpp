// libFuzzer target: the koid hex text codec and its 64-bit layout.
#include "fuzz.h"
#include "core/koid.h"

using namespace kid;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = reinterpret_cast<const char *>(data);

    bool syntax = size == KOID_TEXT_LEN;
    for (size_t i = 0; syntax && i < size; i++)
        syntax = (text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f');
    uint64_t koid;
    bool ok = koid_decode(text, size, &koid);
    FUZZ_CHECK(ok == syntax);
    if (ok) {
        char again[KOID_TEXT_LEN];
        koid_encode(koid, again);
        FUZZ_CHECK(same_text(again, data, KOID_TEXT_LEN));
    }

    if (size >= 8) {
        FuzzReader r{data, size};
        uint64_t v = r.u64();
        char out[KOID_TEXT_LEN];
        koid_encode(v, out);
        uint64_t back;
        FUZZ_CHECK(koid_decode(out, KOID_TEXT_LEN, &back) && back == v);
        FUZZ_CHECK(koid_pack(koid_ms(v), koid_generator_id(v), koid_counter(v)) == v);
        FUZZ_CHECK(koid_generator_id(v) == (koid_datacenter(v) << 5 | koid_worker(v)));
        FUZZ_CHECK(koid_ms(v) >= 0 && koid_ms(v) <= KOID_MAX_MS);
    }
    return 0;
}
