/*
 * lease_file.cpp - reading and writing kid.lease (format: lease_file.h).
 */
#include "lease_file.h"
#include "settings.h"

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

extern "C" {
#include "storage/fd.h"
}

namespace kid::pg {

constexpr int LEASE_FILE_VERSION = 3;
const char LEASE_FILE[] = "kid.lease";
static const char LEASE_TEMP_FILE[] = "kid.lease.tmp";
/* Numbers after the version: own and replayed marks, then the seven fields after them. */
constexpr int LEASE_FIELDS = 2 * LEASE_LINES + 7;

/* No file: no marks, and this server's settings. */
static void lease_empty(LeaseFile *lf)
{
    memset(lf, 0, sizeof(*lf));
    lf->koid_epoch_ms = koid_epoch_whole_ms();
    lf->uid_interval = uid_interval;
}

bool lease_read(LeaseFile *lf)
{
    lease_empty(lf);
    FILE *f = AllocateFile(LEASE_FILE, "r");
    if (f == nullptr) {
        if (errno != ENOENT)
            ereport(LOG, (errcode_for_file_access(),
                          errmsg("kid: could not read \"%s\": %m", LEASE_FILE)));
        return false;
    }
    long long v[LEASE_FIELDS];
    memset(v, 0, sizeof(v));
    int version = 0;
    int n = fscanf(f, "kid lease %d", &version);
    if (n == 1 && version == LEASE_FILE_VERSION) {
        for (int i = 0; i < LEASE_FIELDS; i++) {
            if (fscanf(f, " %lld", &v[i]) != 1)
                break;
            n++;
        }
    }
    FreeFile(f);
    if (n >= 1 && version != LEASE_FILE_VERSION)
        ereport(FATAL,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("kid: \"%s\" has format version %d; this kid reads version %d only",
                        LEASE_FILE, version, LEASE_FILE_VERSION),
                 errdetail("The file holds the high-water marks of generated ids; starting "
                           "without them could repeat ids."),
                 errhint("Start the server with the kid version that wrote the file, or remove "
                         "the file once the clock is past every id made here (kid then starts "
                         "without floors).")));
    if (n != 1 + LEASE_FIELDS) {
        ereport(LOG, (errmsg("kid: ignoring malformed \"%s\"", LEASE_FILE)));
        lease_empty(lf);
        return false;
    }
    for (int i = 0; i < LEASE_LINES; i++) {
        lf->own[i] = v[i];
        lf->replayed[i] = v[LEASE_LINES + i];
    }
    int k = 2 * LEASE_LINES;
    lf->margin_pending = v[k++] != 0;
    lf->exact = v[k++] != 0;
    lf->koid_epoch_ms = v[k++];
    lf->uid_interval = static_cast<int32>(v[k++]);
    lf->uid_replayed_interval = static_cast<int32>(v[k++]);
    lf->uid_global_guard_us = v[k++];
    lf->uid_guard_interval = static_cast<int32>(v[k++]);
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
    len += snprintf(buf + len, sizeof(buf) - len, " %d %d %lld %d %d %lld %d\n",
                    lf.margin_pending ? 1 : 0, lf.exact ? 1 : 0,
                    static_cast<long long>(lf.koid_epoch_ms), lf.uid_interval,
                    lf.uid_replayed_interval, static_cast<long long>(lf.uid_global_guard_us),
                    lf.uid_guard_interval);
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
