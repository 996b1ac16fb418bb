// seeds OUTDIR: writes a seed corpus for every fuzz target, OUTDIR/<target>/NNN,
// made of valid ids encoded by src/core itself (plus their binary forms), so
// that the fuzzers start from inputs every decoder accepts.  Deterministic.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <sys/stat.h>

#include "core/codokey.h"
#include "core/koid.h"
#include "core/radix.h"
#include "core/sno.h"
#include "core/tid.h"
#include "core/uid.h"
#include "core/ulid.h"

using namespace kid;

static std::string outdir;
static int written;

static void make_dir(const std::string &path)
{
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
        std::perror(path.c_str());
        std::exit(1);
    }
}

static void put(const char *target, const std::string &bytes)
{
    static int n;
    std::string dir = outdir + "/" + target;
    make_dir(dir);
    char name[32];
    std::snprintf(name, sizeof name, "/seed-%04d", n++);
    FILE *f = std::fopen((dir + name).c_str(), "wb");
    if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
        std::fclose(f) != 0) {
        std::perror((dir + name).c_str());
        std::exit(1);
    }
    written++;
}

static std::string be64(uint64_t v)
{
    std::string s(8, '\0');
    for (int i = 7; i >= 0; i--, v >>= 8)
        s[i] = static_cast<char>(v);
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    make_dir(outdir);
    std::mt19937_64 rng(20261123);
    /* 2026-11-23 and a few other instants, in Unix microseconds. */
    const int64_t times[] = {INT64_C(1795392000000000),
                             INT64_C(1262304000000000),
                             INT64_C(946684800000000),
                             INT64_C(4102444800000000),
                             0,
                             1};

    // sno: ids from the generator at a few times, text and binary.
    SnoGenerator g;
    sno_generator_init(&g, 0x1234);
    for (int64_t us : times) {
        int64_t units;
        if (!sno_units_from_unix_us(us, &units))
            continue;
        Sno a, b;
        if (sno_generate(&g, units, 0x2a, &a) != GenStatus::ok ||
            sno_generate(&g, units, 0, &b) != GenStatus::ok)
            return 1;
        char text[SNO_TEXT_LEN];
        sno_encode(a, text);
        put("sno", std::string(text, SNO_TEXT_LEN));
        put("sno", std::string(reinterpret_cast<char *>(a.bytes), SNO_SIZE) +
                       std::string(reinterpret_cast<char *>(b.bytes), SNO_SIZE));
    }

    // tid and koid: packed from times, text and 64-bit forms; a few record keys.
    for (int64_t us : times) {
        uint64_t tid = tid_pack(us, static_cast<unsigned>(rng() & TID_CLOCK_MAX));
        char text[TID_TEXT_LEN];
        tid_encode(tid, text);
        put("tid", std::string(text, TID_TEXT_LEN));
        put("tid", be64(tid));
        uint64_t koid = koid_pack(us / 1000 % (KOID_MAX_MS + 1),
                                  static_cast<unsigned>(rng() % 1024),
                                  static_cast<unsigned>(rng() % 4096));
        char hex[KOID_TEXT_LEN];
        koid_encode(koid, hex);
        put("koid", std::string(hex, KOID_TEXT_LEN));
        put("koid", be64(koid));
    }
    put("tid", "self");
    put("tid", "app.bsky.feed.post:3jzfcijpj2z2a~x_y-z");

    // uid: local and global ids of real times, d64 and base64url, and binary.
    for (int64_t us : times) {
        UidFields f;
        if (!uid_fields_from_unix_us(us, &f))
            continue;
        f.seq = static_cast<uint32_t>(rng() % (UID_SEQ_MAX + 1));
        f.node = uid_node_fingerprint(static_cast<uint32_t>(rng()));
        uint64_t local = uid_local_pack(f);
        UidGlobal global = uid_global_pack(f, UID_INTERVAL_DEFAULT);
        char l[UID_LOCAL_TEXT_LEN], gl[UID_GLOBAL_TEXT_LEN];
        uid_local_encode(local, l);
        uid_global_encode(global, gl);
        put("uid", std::string(l, UID_LOCAL_TEXT_LEN));
        put("uid", std::string(gl, UID_GLOBAL_TEXT_LEN));
        put("uid", std::string(reinterpret_cast<char *>(global.bytes), UID_GLOBAL_SIZE));
        uid_local_encode_base64url(local, l);
        uid_global_encode_base64url(global, gl);
        put("base64url", std::string(l, UID_LOCAL_TEXT_LEN));
        put("base64url", std::string(gl, UID_GLOBAL_TEXT_LEN));
    }

    // codokey: keys of every precision under the target's fixed contexts
    // (selector 0..5), in decode mode, and times in encode mode.
    const CodokeyContext contexts[] = {
        {1970, 3265, 9},  {2000, 2099, 999},   {CODOKEY_YEAR_MIN, CODOKEY_YEAR_MAX, 999999},
        {2024, 2024, 99}, {-1000, 1000, 9999}, {0, 0, 999999}};
    for (int c = 0; c < 6; c++) {
        for (int p = 0; p <= CODOKEY_PRECISION_SPLIT; p++) {
            for (int64_t us : times) {
                char key[CODOKEY_MAX_LEN];
                size_t len;
                if (codokey_encode(contexts[c], us, p, key, &len) != CodokeyStatus::ok)
                    continue;
                put("codokey", std::string(1, static_cast<char>(c)) + std::string(key, len));
                break;
            }
        }
        put("codokey", std::string(1, static_cast<char>(0x80 | c)) + std::string(1, '\6') +
                           be64(static_cast<uint64_t>(times[0])));
    }

    // ulid: random 16 bytes, their text in capitals and in small letters.
    for (int i = 0; i < 8; i++) {
        uint8_t bytes[ULID_BYTES];
        for (uint8_t &b : bytes)
            b = static_cast<uint8_t>(rng());
        char text[ULID_TEXT_LEN];
        ulid_encode(bytes, text);
        put("ulid", std::string(text, ULID_TEXT_LEN));
        std::string lower(text, ULID_TEXT_LEN);
        for (char &c : lower)
            c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        put("ulid", lower);
        put("ulid", std::string(reinterpret_cast<char *>(bytes), ULID_BYTES));
    }

    // radix: the same bit strings under each alphabet and pad.
    for (int sel = 0; sel < 10; sel++) {
        uint8_t bytes[16];
        for (uint8_t &b : bytes)
            b = static_cast<uint8_t>(rng());
        put("radix", std::string(1, static_cast<char>((sel % 5) | (sel >= 5 ? 0x80 : 0))) +
                         std::string(1, static_cast<char>(sel + 3)) +
                         std::string(reinterpret_cast<char *>(bytes), 16));
        // And valid text under the alphabets radix.h exports (selectors 0..2).
        const Alphabet *a[] = {&sno_alphabet, &tid_alphabet, &d64_alphabet};
        size_t nbytes = 1 + (sel + 3) % 16;
        size_t ndigits = (nbytes * 8 + a[sel % 3]->bits - 1) / a[sel % 3]->bits;
        Pad pad = sel >= 5 ? Pad::trailing : Pad::leading;
        char text[128];
        radix_encode(*a[sel % 3], pad, bytes, nbytes, text, ndigits);
        put("radix", std::string(1, static_cast<char>((sel % 3) | (sel >= 5 ? 0x80 : 0))) +
                         std::string(1, static_cast<char>(sel + 3)) + std::string(text, ndigits));
    }

    std::printf("%d seeds in %s\n", written, outdir.c_str());
    return 0;
}
