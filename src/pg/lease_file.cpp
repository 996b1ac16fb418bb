/*
 * lease_file.cpp - reading and writing kid.lease (format: lease_file.h).
 *
 * The file is the only record of the ids this server made before its last
 * checkpoint, so every state of it kid cannot read and trust stops the
 * server (FATAL in the postmaster) instead of starting without floors: a
 * file that cannot be opened or read, one that is empty, truncated, too long
 * or not kid's, one whose checksum is wrong, one with a number out of range
 * or of an unknown version.  Only a missing file means "no floors".
 */
#include "pg/lease_file.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

extern "C" {
#include "port/pg_crc32c.h"
#include "storage/fd.h"
}

namespace kid::pg {

constexpr int LEASE_FILE_VERSION = 5;
/* Written by kid 0.2.0 before the WAL position; read, then rewritten. */
constexpr int LEASE_FILE_V4 = 4;
/* Written by kid 0.1.0 (no checksum); read once, then rewritten. */
constexpr int LEASE_FILE_V3 = 3;
const char LEASE_FILE[] = "kid.lease";
static const char LEASE_TEMP_FILE[] = "kid.lease.tmp";
/* Larger than any file kid writes (about 300 bytes); a longer one is not kid's. */
constexpr int LEASE_FILE_MAX = 1024;

/*
 * Version 3, kid 0.1.0's layout, frozen: the own marks of these lines, their
 * replayed marks, the two flags, then the setting words of koid (one) and
 * uid (four), as their schemes read them today.
 */
static const char *const V3_LINES[] = {"sno tick 0", "sno tick 1", "atproto_tid", "koid", "uid"};
constexpr int V3_LINE_COUNT = sizeof(V3_LINES) / sizeof(V3_LINES[0]);
struct V3Words {
    const char *line;
    int count;
};
static const V3Words V3_WORDS[] = {{"koid", 1}, {"uid", 4}};
constexpr int V3_FIELDS = 2 * V3_LINE_COUNT + 2 + 1 + 4;

/* No file: no marks, no line. */
static void lease_empty(LeaseFile *lf)
{
    memset(lf, 0, sizeof(*lf));
}

/* How many setting words `line` carries in the file. */
static int line_words(int line)
{
    const LeaseSetting *setting = lease_line_scheme(line).setting;
    return setting != nullptr ? setting->words : 0;
}

/*
 * The file exists but cannot be trusted: refuse to start.  `why` says what
 * is wrong with it.
 */
static void lease_refuse(const char *why)
{
    ereport(FATAL,
            (errcode(ERRCODE_DATA_CORRUPTED),
             errmsg("kid: \"%s\" in the data directory is damaged: %s", LEASE_FILE, why),
             errdetail("The file holds the high-water marks of the ids this server generated; "
                       "starting without them could repeat ids."),
             errhint("Replace the file's contents by the line \"kid lease floor U\", where U "
                     "is a Unix time in microseconds at or after every id this server made "
                     "(kid then starts every generator above U); see \"A damaged kid.lease\" "
                     "in kid's docs/lease.md.")));
}

/* Could not open or read the file (errno set). */
static void lease_unreadable(const char *what)
{
    ereport(FATAL, (errcode_for_file_access(),
                    errmsg("kid: could not %s \"%s\" in the data directory: %m", what, LEASE_FILE),
                    errdetail("The file holds the high-water marks of the ids this server "
                              "generated; starting without them could repeat ids."),
                    errhint("Make the file readable by the server's user, or see \"A damaged "
                            "kid.lease\" in kid's docs/lease.md.")));
}

/*
 * The next blank-separated word of s[0, len) from *pos (which is at its
 * blank), in *word and *wlen; false at the end.  Exactly one blank before
 * each word: an empty one is reported as a missing number.
 */
static bool next_word(const char *s, int len, int *pos, const char **word, int *wlen,
                      const char **why)
{
    if (*pos >= len)
        return false;
    /* The blank: every word ends at one or at the end, and the version at one. */
    if (s[*pos] != ' ') {
        *why = "it holds something other than a number";
        return false;
    }
    (*pos)++;
    *word = s + *pos;
    while (*pos < len && s[*pos] != ' ')
        (*pos)++;
    *wlen = static_cast<int>(s + *pos - *word);
    if (*wlen == 0) {
        *why = "a number is missing";
        return false;
    }
    return true;
}

/* A decimal number, an optional minus sign, no leading "+". */
static bool parse_number(const char *word, int wlen, long long *v, const char **why)
{
    char tok[24];
    if (wlen >= static_cast<int>(sizeof(tok))) {
        *why = "a number is too long";
        return false;
    }
    memcpy(tok, word, wlen);
    tok[wlen] = '\0';
    int d = tok[0] == '-' ? 1 : 0;
    if (wlen == d) {
        *why = "a number is missing";
        return false;
    }
    for (int k = d; k < wlen; k++)
        if (tok[k] < '0' || tok[k] > '9') {
            *why = "it holds something other than a number";
            return false;
        }
    errno = 0;
    *v = strtoll(tok, nullptr, 10);
    if (errno != 0) {
        *why = "a number is out of range";
        return false;
    }
    return true;
}

/* The next word of s[0, len), as a number; "too few numbers" at the end. */
static bool next_number(const char *s, int len, int *pos, long long *v, const char **why)
{
    const char *word;
    int wlen;
    if (!next_word(s, len, pos, &word, &wlen, why)) {
        if (*why == nullptr)
            *why = "it has too few numbers";
        return false;
    }
    return parse_number(word, wlen, v, why);
}

/* Exactly `n` numbers in s[0, len), each after one blank. */
static bool parse_numbers(const char *s, int len, long long *v, int n, const char **why)
{
    int pos = 0;
    for (int i = 0; i < n; i++)
        if (!next_number(s, len, &pos, &v[i], why))
            return false;
    if (pos != len) {
        *why = "it has more numbers than its format";
        return false;
    }
    return true;
}

/*
 * A version 5 body (after "kid lease 5", before the checksum) into *lf, or
 * a version 4 one (`with_position` false: no WAL position).
 */
static bool parse_v4(const char *s, int len, LeaseFile *lf, bool with_position, const char **why)
{
    int pos = 0;
    long long flags[2];
    for (long long &flag : flags)
        if (!next_number(s, len, &pos, &flag, why))
            return false;
    if (flags[0] < 0 || flags[0] > 1 || flags[1] < 0 || flags[1] > 1) {
        *why = "a setting or flag is out of range";
        return false;
    }
    lf->margin_pending = flags[0] != 0;
    lf->exact = flags[1] != 0;
    lf->wal_state = LeaseWalState::unknown;
    if (with_position) {
        long long w[4];
        for (long long &v : w)
            if (!next_number(s, len, &pos, &v, why))
                return false;
        if (w[0] < static_cast<int>(LeaseWalState::unverified) ||
            w[0] > static_cast<int>(LeaseWalState::replica) || w[1] < 0 || w[1] > PG_UINT32_MAX ||
            w[2] < 0 || w[3] < 0) {
            *why = "a setting or flag is out of range";
            return false;
        }
        lf->wal_state = static_cast<LeaseWalState>(w[0]);
        lf->wal_tli = static_cast<uint32>(w[1]);
        lf->wal_lsn = static_cast<uint64>(w[2]);
        lf->wal_label = static_cast<uint64>(w[3]);
    }
    const char *word;
    int wlen;
    while (next_word(s, len, &pos, &word, &wlen, why)) {
        if (!((word[0] >= 'a' && word[0] <= 'z') || word[0] == '_')) {
            *why = "it has more numbers than its format";
            return false;
        }
        int line = lease_line_by_name(word, wlen);
        if (line < 0) {
            *why = psprintf("it holds a lease line this kid does not know (\"%.*s\")", wlen, word);
            return false;
        }
        if (lf->has_line[line]) {
            *why = psprintf("it holds the lease line \"%.*s\" twice", wlen, word);
            return false;
        }
        lf->has_line[line] = true;
        long long v;
        if (!next_number(s, len, &pos, &v, why))
            return false;
        lf->own[line] = v;
        if (!next_number(s, len, &pos, &v, why))
            return false;
        lf->replayed[line] = v;
        for (int k = 0; k < line_words(line); k++) {
            if (!next_number(s, len, &pos, &v, why))
                return false;
            lf->words[line][k] = v;
        }
    }
    return *why == nullptr;
}

/* A version 3 file's numbers into *lf (kid 0.1.0's layout: V3_LINES, V3_WORDS). */
static bool parse_v3(const char *s, int len, LeaseFile *lf, const char **why)
{
    long long v[V3_FIELDS];
    if (!parse_numbers(s, len, v, V3_FIELDS, why))
        return false;
    for (int i = 0; i < V3_LINE_COUNT; i++) {
        int line = lease_line_by_name(V3_LINES[i], static_cast<int>(strlen(V3_LINES[i])));
        lf->has_line[line] = true;
        lf->own[line] = v[i];
        lf->replayed[line] = v[V3_LINE_COUNT + i];
    }
    int k = 2 * V3_LINE_COUNT;
    if (v[k] < 0 || v[k] > 1 || v[k + 1] < 0 || v[k + 1] > 1) {
        *why = "a setting or flag is out of range";
        return false;
    }
    lf->margin_pending = v[k++] != 0;
    lf->exact = v[k++] != 0;
    lf->wal_state = LeaseWalState::unknown;
    for (const V3Words &w : V3_WORDS) {
        int line = lease_line_by_name(w.line, static_cast<int>(strlen(w.line)));
        Assert(line_words(line) == w.count);
        for (int i = 0; i < w.count; i++)
            lf->words[line][i] = v[k++];
    }
    return true;
}

/*
 * Check what either version held, by the same rules: the marks in range,
 * each line's setting words as its scheme checks them.  A line the file
 * lacks starts at its highest marks.
 */
static bool lease_check(LeaseFile *lf, const char **why)
{
    int64 top_own = 0, top_replayed = 0;
    bool any = false;
    for (int line = 0; line < LEASE_LINES; line++) {
        if (!lf->has_line[line])
            continue;
        any = true;
        if (lf->own[line] < 0 || lf->own[line] > LEASE_MARK_MAX || lf->replayed[line] < 0 ||
            lf->replayed[line] > LEASE_MARK_MAX) {
            *why = "a mark is negative or out of range";
            return false;
        }
        const LeaseSetting *setting = lease_line_scheme(line).setting;
        if (setting != nullptr && (*why = setting->check(lf->words[line])) != nullptr)
            return false;
        top_own = Max(top_own, lf->own[line]);
        top_replayed = Max(top_replayed, lf->replayed[line]);
    }
    if (!any) {
        *why = "it holds no lease line";
        return false;
    }
    for (int line = 0; line < LEASE_LINES; line++) {
        if (lf->has_line[line])
            continue;
        /*
         * A commit horizon's line holds no id: a kid without the line read
         * no horizon kid.lease must remember, and its start must not move
         * with another line's floor (one scheme's floor never moves
         * another's).
         */
        bool horizon = line == lease_line_scheme(line).horizon_line;
        lf->own[line] = horizon ? 0 : top_own;
        lf->replayed[line] = horizon ? 0 : top_replayed;
        ereport(LOG, (errmsg("kid: \"%s\" has no line \"%s\" (written before kid had it); the "
                             "line starts %s",
                             LEASE_FILE, lease_line_name(line),
                             horizon ? "empty (a commit horizon's line holds no id)"
                                     : "at the file's highest marks")));
    }
    return true;
}

static pg_crc32c lease_crc(const char *data, size_t len)
{
    pg_crc32c crc;
    INIT_CRC32C(crc);
    COMP_CRC32C(crc, data, len);
    FIN_CRC32C(crc);
    return crc;
}

/* The whole file into buf (at most LEASE_FILE_MAX bytes); its length, or -1 when there is none. */
static int lease_slurp(char *buf)
{
    int fd = OpenTransientFile(LEASE_FILE, O_RDONLY | PG_BINARY);
    if (fd < 0) {
        if (errno == ENOENT)
            return -1;
        lease_unreadable("open");
    }
    int len = 0;
    for (;;) {
        ssize_t r = read(fd, buf + len, LEASE_FILE_MAX + 1 - len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int save = errno;
            CloseTransientFile(fd);
            errno = save;
            lease_unreadable("read");
        }
        if (r == 0)
            break;
        len += static_cast<int>(r);
        if (len > LEASE_FILE_MAX) {
            CloseTransientFile(fd);
            lease_refuse("it is longer than any file kid writes");
        }
    }
    CloseTransientFile(fd);
    return len;
}

bool lease_read(LeaseFile *lf)
{
    lease_empty(lf);
    char buf[LEASE_FILE_MAX + 2];
    int len = lease_slurp(buf);
    if (len < 0)
        return false;
    buf[len] = '\0';
    if (len == 0)
        lease_refuse("it is empty");
    if (memchr(buf, '\0', len) != nullptr)
        lease_refuse("it holds a zero byte");
    /* Every form ends with its one newline: a file without it was cut short. */
    if (buf[len - 1] != '\n')
        lease_refuse("it does not end with a newline (truncated)");
    len--;
    if (memchr(buf, '\n', len) != nullptr)
        lease_refuse("it has more than one line");

    const char *why = nullptr;
    static const char floor_prefix[] = "kid lease floor";
    static const char prefix[] = "kid lease ";
    if (strncmp(buf, floor_prefix, sizeof(floor_prefix) - 1) == 0) {
        /* Written by hand to recover from a damaged file: one floor for every line. */
        int plen = sizeof(floor_prefix) - 1;
        long long floor;
        if (!parse_numbers(buf + plen, len - plen, &floor, 1, &why))
            lease_refuse(why);
        if (floor < 1 || floor > LEASE_MARK_MAX)
            lease_refuse("the floor is not a positive Unix time in microseconds");
        for (int i = 0; i < LEASE_LINES; i++)
            lf->own[i] = floor;
        /* The operator vouches for the floor: no position to check. */
        lf->wal_state = LeaseWalState::unknown;
        ereport(LOG, (errmsg("kid: \"%s\" holds a floor written by hand; every generator starts "
                             "above %lld",
                             LEASE_FILE, floor)));
    } else {
        if (strncmp(buf, prefix, sizeof(prefix) - 1) != 0)
            lease_refuse("it does not start with \"kid lease\"");
        char *end;
        const char *vs = buf + sizeof(prefix) - 1;
        errno = 0;
        long version = strtol(vs, &end, 10);
        if (*vs < '0' || *vs > '9' || errno != 0)
            lease_refuse("it has no format version");
        if (version != LEASE_FILE_VERSION && version != LEASE_FILE_V4 && version != LEASE_FILE_V3)
            ereport(FATAL,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("kid: \"%s\" has format version %ld; this kid reads versions %d to "
                            "%d only",
                            LEASE_FILE, version, LEASE_FILE_V3, LEASE_FILE_VERSION),
                     errdetail("The file holds the high-water marks of the ids this server "
                               "generated; starting without them could repeat ids."),
                     errhint("Start the server with the kid version that wrote the file, or see "
                             "\"A damaged kid.lease\" in kid's docs/lease.md.")));
        int body = len;
        if (version != LEASE_FILE_V3) {
            /* The last field is the CRC-32C of everything before the blank ahead of it. */
            const char *sp = static_cast<const char *>(memrchr(buf, ' ', len));
            if (sp == nullptr || len - (sp + 1 - buf) != 8)
                lease_refuse("its checksum is missing (truncated)");
            unsigned int crc = 0;
            for (const char *c = sp + 1; c < buf + len; c++) {
                int d = (*c >= '0' && *c <= '9')   ? *c - '0'
                        : (*c >= 'a' && *c <= 'f') ? *c - 'a' + 10
                                                   : -1;
                if (d < 0)
                    lease_refuse("its checksum is not eight hexadecimal digits");
                crc = crc << 4 | static_cast<unsigned int>(d);
            }
            body = static_cast<int>(sp - buf);
            if (lease_crc(buf, body) != crc)
                lease_refuse("its checksum does not match its contents");
        }
        int rest = body - static_cast<int>(end - buf);
        bool ok = version == LEASE_FILE_V3
                      ? parse_v3(end, rest, lf, &why)
                      : parse_v4(end, rest, lf, version == LEASE_FILE_VERSION, &why);
        if (!ok || !lease_check(lf, &why))
            lease_refuse(why);
        if (version == LEASE_FILE_VERSION)
            return true;
        ereport(LOG, (errmsg("kid: read \"%s\" of format version %ld; rewriting it as version %d",
                             LEASE_FILE, version, LEASE_FILE_VERSION)));
    }
    /*
     * An older version or a hand-written file: lease_start rewrites it in
     * this version's format, with the WAL position it finds, before
     * anything runs.
     */
    return true;
}

/* Append to buf (of LEASE_FILE_MAX bytes); the file never gets near that. */
static void append(char *buf, int *len, const char *fmt, ...) pg_attribute_printf(3, 4);
static void append(char *buf, int *len, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(buf + *len, LEASE_FILE_MAX - *len, fmt, args);
    va_end(args);
    if (n < 0 || n >= LEASE_FILE_MAX - *len)
        elog(PANIC, "kid: the lease file grew past %d bytes", LEASE_FILE_MAX);
    *len += n;
}

bool lease_write(const LeaseFile &lf, int elevel)
{
    /* Never a file the next start would refuse as damaged. */
    for (int line = 0; line < LEASE_LINES; line++)
        if (lf.own[line] < 0 || lf.own[line] > LEASE_MARK_MAX || lf.replayed[line] < 0 ||
            lf.replayed[line] > LEASE_MARK_MAX) {
            ereport(elevel, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                             errmsg("kid: a mark of lease line \"%s\" is out of range",
                                    lease_line_name(line)),
                             errdetail("kid.lease holds marks from 0 to 2^62 microseconds.")));
            return false;
        }
    char buf[LEASE_FILE_MAX];
    int len = 0;
    /* A file without a position is never written: such a state is unverified. */
    LeaseWalState state = lf.wal_state == LeaseWalState::unknown ? LeaseWalState::unverified
                                                                 : lf.wal_state;
    append(buf, &len, "kid lease %d %d %d %d %u %llu %llu", LEASE_FILE_VERSION,
           lf.margin_pending ? 1 : 0, lf.exact ? 1 : 0, static_cast<int>(state), lf.wal_tli,
           static_cast<unsigned long long>(lf.wal_lsn),
           static_cast<unsigned long long>(lf.wal_label));
    for (int line = 0; line < LEASE_LINES; line++) {
        append(buf, &len, " ");
        for (const char *c = lease_line_name(line); *c != '\0'; c++)
            append(buf, &len, "%c", *c == ' ' ? '_' : *c);
        append(buf, &len, " %lld %lld", static_cast<long long>(lf.own[line]),
               static_cast<long long>(lf.replayed[line]));
        for (int k = 0; k < line_words(line); k++)
            append(buf, &len, " %lld", static_cast<long long>(lf.words[line][k]));
    }
    append(buf, &len, " %08x\n", static_cast<unsigned int>(lease_crc(buf, len)));
    int fd = OpenTransientFile(LEASE_TEMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
    if (fd < 0) {
        ereport(elevel, (errcode_for_file_access(),
                         errmsg("kid: could not create \"%s\": %m", LEASE_TEMP_FILE)));
        return false;
    }
    errno = 0;
    if (write(fd, buf, len) != len) {
        if (errno == 0)
            errno = ENOSPC;
        int save = errno;
        CloseTransientFile(fd);
        errno = save;
        ereport(elevel, (errcode_for_file_access(),
                         errmsg("kid: could not write \"%s\": %m", LEASE_TEMP_FILE)));
        return false;
    }
    if (CloseTransientFile(fd) != 0) {
        ereport(elevel, (errcode_for_file_access(),
                         errmsg("kid: could not close \"%s\": %m", LEASE_TEMP_FILE)));
        return false;
    }
    /* fsyncs the file, renames, fsyncs the directory. */
    return durable_rename(LEASE_TEMP_FILE, LEASE_FILE, elevel) == 0;
}

bool lease_has_marks(const LeaseFile &lf)
{
    for (int i = 0; i < LEASE_LINES; i++)
        if (lf.own[i] != 0 || lf.replayed[i] != 0)
            return true;
    return false;
}

} // namespace kid::pg
