// libFuzzer target: uid (64-bit local) and uid_global (96-bit) d64 text,
// their binary forms and the field checks the types apply on input.
#include "fuzz.h"
#include "core/uid.h"

using namespace kid;

static const char D64[] = ".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";

static bool same_fields(const UidFields &a, const UidFields &b, bool node)
{
    return a.mega == b.mega && a.sec == b.sec && a.step == b.step && a.seq == b.seq &&
           (!node || a.node == b.node);
}

/* Field checks: an id that passes names a real instant, and its fields survive pack. */
static void check_local(uint64_t id)
{
    UidFields f = uid_local_unpack(id);
    FUZZ_CHECK(uid_local_pack(f) == id);
    bool valid = f.sec <= 999999 && f.step < UID_STEPS_PER_SECOND;
    FUZZ_CHECK((uid_local_invalid(id) == nullptr) == valid);
    if (valid) {
        UidFields t;
        FUZZ_CHECK(uid_fields_from_unix_us(uid_unix_us(f), &t));
        FUZZ_CHECK(t.mega == f.mega && t.sec == f.sec && t.step == f.step);
    }
}

static void check_global(const UidGlobal &id)
{
    bool step_ok = true, seconds_ok = true;
    for (int interval = UID_INTERVAL_MIN; interval <= UID_INTERVAL_MAX; interval++) {
        UidFields f = uid_global_unpack(id, interval);
        UidGlobal again = uid_global_pack(f, interval);
        FUZZ_CHECK(std::memcmp(again.bytes, id.bytes, UID_GLOBAL_SIZE) == 0);
        UidFields f2 = uid_global_unpack(again, interval);
        FUZZ_CHECK(same_fields(f, f2, true));
        step_ok = f.step < UID_STEPS_PER_SECOND;
        // The top 10 bits of the seconds are the same under every interval.
        seconds_ok = (f.sec >> 10) <= (999999 >> 10);
        FUZZ_CHECK(uid_global_seconds_valid(f) == (f.sec <= 999999));
    }
    FUZZ_CHECK((uid_global_invalid(id) == nullptr) == (step_ok && seconds_ok));
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = reinterpret_cast<const char *>(data);
    bool alphabet = true;
    for (size_t i = 0; alphabet && i < size; i++)
        alphabet = text[i] != '\0' && std::strchr(D64, text[i]) != nullptr;

    // Local text: 11 digits, 66 bits, the 2 tail bits zero.
    uint64_t local;
    bool ok = uid_local_decode(text, size, &local);
    if (ok) {
        FUZZ_CHECK(size == UID_LOCAL_TEXT_LEN && alphabet);
        char again[UID_LOCAL_TEXT_LEN];
        uid_local_encode(local, again);
        FUZZ_CHECK(same_text(again, data, UID_LOCAL_TEXT_LEN));
        check_local(local);
    } else if (size == UID_LOCAL_TEXT_LEN && alphabet) {
        // Only the spare tail bits may reject a well-formed string.
        FUZZ_CHECK((std::strchr(D64, text[size - 1]) - D64) & 3);
    }

    // Global text: 16 digits, 96 bits exactly.
    UidGlobal global;
    ok = uid_global_decode(text, size, &global);
    FUZZ_CHECK(ok == (size == UID_GLOBAL_TEXT_LEN && alphabet));
    if (ok) {
        char again[UID_GLOBAL_TEXT_LEN];
        uid_global_encode(global, again);
        FUZZ_CHECK(same_text(again, data, UID_GLOBAL_TEXT_LEN));
        check_global(global);
    }

    // Binary forms: any 8 or 12 bytes.
    if (size >= 8) {
        FuzzReader r{data, size};
        uint64_t v = r.u64();
        char out[UID_LOCAL_TEXT_LEN];
        uid_local_encode(v, out);
        uint64_t back;
        FUZZ_CHECK(uid_local_decode(out, UID_LOCAL_TEXT_LEN, &back) && back == v);
        check_local(v);
    }
    if (size >= UID_GLOBAL_SIZE) {
        UidGlobal g;
        std::memcpy(g.bytes, data, UID_GLOBAL_SIZE);
        char out[UID_GLOBAL_TEXT_LEN];
        uid_global_encode(g, out);
        UidGlobal back;
        FUZZ_CHECK(uid_global_decode(out, UID_GLOBAL_TEXT_LEN, &back));
        FUZZ_CHECK(std::memcmp(back.bytes, g.bytes, UID_GLOBAL_SIZE) == 0);
        check_global(g);
    }

    // Generator words: a word's fields name the step it was made from.
    if (size >= 8) {
        FuzzReader r{data, size};
        int64_t us = static_cast<int64_t>(r.u64() >> 1); /* any non-negative time */
        UidFields f;
        if (uid_fields_from_unix_us(us, &f)) {
            UidFields w = uid_fields_from_word(uid_word_from_unix_us(us));
            FUZZ_CHECK(same_fields(f, w, false));
            FUZZ_CHECK(uid_unix_us(f) <= us && us - uid_unix_us(f) < 1024);
        }
    }
    return 0;
}
