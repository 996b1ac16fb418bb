// libFuzzer target: uid's RFC 4648 base64url text (no padding), local and global.
#include "fuzz.h"
#include "core/uid.h"

using namespace kid;

static const char B64URL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = reinterpret_cast<const char *>(data);
    bool alphabet = true;
    for (size_t i = 0; alphabet && i < size; i++)
        alphabet = text[i] != '\0' && std::strchr(B64URL, text[i]) != nullptr;

    uint64_t local;
    bool ok = uid_local_decode_base64url(text, size, &local);
    if (ok) {
        FUZZ_CHECK(size == UID_LOCAL_TEXT_LEN && alphabet);
        char again[UID_LOCAL_TEXT_LEN];
        uid_local_encode_base64url(local, again);
        FUZZ_CHECK(same_text(again, data, UID_LOCAL_TEXT_LEN));
        // The same bits in d64.
        char d64[UID_LOCAL_TEXT_LEN];
        uid_local_encode(local, d64);
        uint64_t back;
        FUZZ_CHECK(uid_local_decode(d64, UID_LOCAL_TEXT_LEN, &back) && back == local);
    } else if (size == UID_LOCAL_TEXT_LEN && alphabet) {
        FUZZ_CHECK((std::strchr(B64URL, text[size - 1]) - B64URL) & 3);
    }

    UidGlobal global;
    ok = uid_global_decode_base64url(text, size, &global);
    FUZZ_CHECK(ok == (size == UID_GLOBAL_TEXT_LEN && alphabet));
    if (ok) {
        char again[UID_GLOBAL_TEXT_LEN];
        uid_global_encode_base64url(global, again);
        FUZZ_CHECK(same_text(again, data, UID_GLOBAL_TEXT_LEN));
    }

    if (size >= UID_GLOBAL_SIZE) {
        FuzzReader r{data, size};
        uint64_t v = r.u64();
        char out[UID_GLOBAL_TEXT_LEN];
        uid_local_encode_base64url(v, out);
        uint64_t back;
        FUZZ_CHECK(uid_local_decode_base64url(out, UID_LOCAL_TEXT_LEN, &back) && back == v);

        UidGlobal g;
        std::memcpy(g.bytes, data, UID_GLOBAL_SIZE);
        uid_global_encode_base64url(g, out);
        UidGlobal gb;
        FUZZ_CHECK(uid_global_decode_base64url(out, UID_GLOBAL_TEXT_LEN, &gb));
        FUZZ_CHECK(std::memcmp(gb.bytes, g.bytes, UID_GLOBAL_SIZE) == 0);
    }
    return 0;
}
