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
#include "pg/settings.h"
#include "core/uid.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

extern "C" {
#include "port/pg_crc32c.h"
#include "storage/fd.h"
}

namespace kid::pg {

constexpr int LEASE_FILE_VERSION = 4;
/* Written by kid 0.1.0 (no checksum); read once, then rewritten. */
constexpr int LEASE_FILE_V3 = 3;
const char LEASE_FILE[] = "kid.lease";
static const char LEASE_TEMP_FILE[] = "kid.lease.tmp";
/* Numbers after the version: own and replayed marks, then the seven fields after them. */
constexpr int LEASE_FIELDS = 2 * LEASE_LINES + 7;
/* Larger than any file kid writes (about 250 bytes); a longer one is not kid's. */
constexpr int LEASE_FILE_MAX = 1024;
/*
 * The highest mark or guard accepted: far past any real clock (year 148,000),
 * low enough that adding the margins to it cannot overflow.
 */
constexpr int64 LEASE_MARK_MAX = INT64CONST(1) << 62;
constexpr int64 KOID_EPOCH_MS_MAX = INT64CONST(4398046511103);

/* No file: no marks, and this server's settings. */
static void lease_empty(LeaseFile *lf)
{
    memset(lf, 0, sizeof(*lf));
    lf->koid_epoch_ms = koid_epoch_whole_ms();
    lf->uid_interval = uid_interval;
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
 * Parse `n` numbers separated by single spaces from s[0, len) (all of it):
 * decimal, an optional minus sign, no leading "+", no blanks.
 */
static bool parse_numbers(const char *s, int len, long long *v, int n, const char **why)
{
    int pos = 0;
    for (int i = 0; i < n; i++) {
        if (pos >= len || s[pos] != ' ') {
            *why = "it has too few numbers";
            return false;
        }
        pos++;
        char tok[24];
        int tlen = 0;
        while (pos < len && s[pos] != ' ') {
            if (tlen == static_cast<int>(sizeof(tok)) - 1) {
                *why = "a number is too long";
                return false;
            }
            tok[tlen++] = s[pos++];
        }
        tok[tlen] = '\0';
        int d = tok[0] == '-' ? 1 : 0;
        if (tlen == d) {
            *why = "a number is missing";
            return false;
        }
        for (int k = d; k < tlen; k++)
            if (tok[k] < '0' || tok[k] > '9') {
                *why = "it holds something other than a number";
                return false;
            }
        errno = 0;
        v[i] = strtoll(tok, nullptr, 10);
        if (errno != 0) {
            *why = "a number is out of range";
            return false;
        }
    }
    if (pos != len) {
        *why = "it has more numbers than its format";
        return false;
    }
    return true;
}

static bool in_range(long long v, long long lo, long long hi)
{
    return v >= lo && v <= hi;
}

static bool interval_ok(long long v, bool zero_ok)
{
    return (zero_ok && v == 0) || in_range(v, kid::UID_INTERVAL_MIN, kid::UID_INTERVAL_MAX);
}

/* The LEASE_FIELDS numbers of a version 3 or 4 file into *lf, each checked. */
static bool lease_fields(const long long *v, LeaseFile *lf, const char **why)
{
    for (int i = 0; i < 2 * LEASE_LINES; i++)
        if (!in_range(v[i], 0, LEASE_MARK_MAX)) {
            *why = "a mark is negative or out of range";
            return false;
        }
    int k = 2 * LEASE_LINES;
    if (!in_range(v[k], 0, 1) || !in_range(v[k + 1], 0, 1) ||
        !in_range(v[k + 2], 0, KOID_EPOCH_MS_MAX) || !interval_ok(v[k + 3], false) ||
        !interval_ok(v[k + 4], true) || !in_range(v[k + 5], 0, LEASE_MARK_MAX) ||
        !interval_ok(v[k + 6], true)) {
        *why = "a setting or flag is out of range";
        return false;
    }
    for (int i = 0; i < LEASE_LINES; i++) {
        lf->own[i] = v[i];
        lf->replayed[i] = v[LEASE_LINES + i];
    }
    lf->margin_pending = v[k++] != 0;
    lf->exact = v[k++] != 0;
    lf->koid_epoch_ms = v[k++];
    lf->uid_interval = static_cast<int32>(v[k++]);
    lf->uid_replayed_interval = static_cast<int32>(v[k++]);
    lf->uid_global_guard_us = v[k++];
    lf->uid_guard_interval = static_cast<int32>(v[k++]);
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
    long long v[LEASE_FIELDS];
    static const char floor_prefix[] = "kid lease floor";
    static const char prefix[] = "kid lease ";
    if (strncmp(buf, floor_prefix, sizeof(floor_prefix) - 1) == 0) {
        /* Written by hand to recover from a damaged file: one floor for every line. */
        int plen = sizeof(floor_prefix) - 1;
        if (!parse_numbers(buf + plen, len - plen, v, 1, &why))
            lease_refuse(why);
        if (!in_range(v[0], 1, LEASE_MARK_MAX))
            lease_refuse("the floor is not a positive Unix time in microseconds");
        for (int i = 0; i < LEASE_LINES; i++)
            lf->own[i] = v[0];
        ereport(LOG, (errmsg("kid: \"%s\" holds a floor written by hand; every generator starts "
                             "above %lld",
                             LEASE_FILE, v[0])));
    } else {
        if (strncmp(buf, prefix, sizeof(prefix) - 1) != 0)
            lease_refuse("it does not start with \"kid lease\"");
        char *end;
        const char *vs = buf + sizeof(prefix) - 1;
        errno = 0;
        long version = strtol(vs, &end, 10);
        if (*vs < '0' || *vs > '9' || errno != 0)
            lease_refuse("it has no format version");
        if (version != LEASE_FILE_VERSION && version != LEASE_FILE_V3)
            ereport(FATAL,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("kid: \"%s\" has format version %ld; this kid reads versions %d and "
                            "%d only",
                            LEASE_FILE, version, LEASE_FILE_V3, LEASE_FILE_VERSION),
                     errdetail("The file holds the high-water marks of the ids this server "
                               "generated; starting without them could repeat ids."),
                     errhint("Start the server with the kid version that wrote the file, or see "
                             "\"A damaged kid.lease\" in kid's docs/lease.md.")));
        int body = len;
        if (version == LEASE_FILE_VERSION) {
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
        if (!parse_numbers(end, body - static_cast<int>(end - buf), v, LEASE_FIELDS, &why) ||
            !lease_fields(v, lf, &why))
            lease_refuse(why);
        if (version == LEASE_FILE_VERSION)
            return true;
        ereport(LOG, (errmsg("kid: read \"%s\" of format version %d; rewriting it as version %d",
                             LEASE_FILE, LEASE_FILE_V3, LEASE_FILE_VERSION)));
    }
    /* A version 3 or hand-written file: rewritten at once in this version's format. */
    lease_write(*lf, FATAL);
    return true;
}

bool lease_write(const LeaseFile &lf, int elevel)
{
    char buf[512];
    int len = snprintf(buf, sizeof(buf), "kid lease %d", LEASE_FILE_VERSION);
    for (int i = 0; i < LEASE_LINES; i++)
        len += snprintf(buf + len, sizeof(buf) - len, " %lld", static_cast<long long>(lf.own[i]));
    for (int i = 0; i < LEASE_LINES; i++)
        len += snprintf(buf + len, sizeof(buf) - len, " %lld",
                        static_cast<long long>(lf.replayed[i]));
    len += snprintf(buf + len, sizeof(buf) - len, " %d %d %lld %d %d %lld %d",
                    lf.margin_pending ? 1 : 0, lf.exact ? 1 : 0,
                    static_cast<long long>(lf.koid_epoch_ms), lf.uid_interval,
                    lf.uid_replayed_interval, static_cast<long long>(lf.uid_global_guard_us),
                    lf.uid_guard_interval);
    len += snprintf(buf + len, sizeof(buf) - len, " %08x\n",
                    static_cast<unsigned int>(lease_crc(buf, len)));
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
