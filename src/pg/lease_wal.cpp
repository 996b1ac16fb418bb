/*
 * lease_wal.cpp - the lease in the write-ahead log.
 *
 * Every lease extension on a primary also inserts a small WAL record with
 * the new marks and flushes it before an id under them is handed out (once
 * per lease renewal, never per id).  Replaying the record - on a streaming
 * standby, in archive recovery, and in crash recovery on the primary itself
 * - raises the replayed marks and makes them durable in kid.lease, so a
 * promoted standby starts every generator above everything the old primary
 * may have handed out, even where its own clock is behind.
 *
 * The records belong to a custom WAL resource manager (PostgreSQL 15,
 * RegisterCustomRmgr), registered in _PG_init while kid is preloaded.  Its
 * id is kid.wal_rmgr_id (default 128, RM_EXPERIMENTAL_ID); every server
 * that replays this WAL (standbys, restores) must preload kid with the same
 * id, or replay stops at the first kid record.
 *
 * The callbacks are PostgreSQL callbacks (CONTRIBUTING.md, "Callbacks"):
 * noexcept functions of kid::pg with internal linkage that hold only
 * trivially destructible locals.
 */
#include "pg/lease.h"

extern "C" {
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
#include "utils/timestamp.h"
}

namespace kid::pg {

/* The one record type: xl_info's high nibble belongs to the resource manager. */
constexpr uint32 LEASE_WAL_LINES_MAX = 64;
static constexpr uint8 XLOG_KID_LEASE = 0x10;

/*
 * The record: a header, then one entry per lease line the writer had, each
 * naming its line, so that a line added to kid later is new entries, not a
 * new layout.  Trivially copyable; written and read with memcpy.
 */
struct LeaseWalHeader {
    uint32 version; /* LEASE_WAL_VERSION */
    uint32 lines;   /* the entries that follow */
    int64 written_at_us;
    int32 node_id;
    uint32 pad_;
};

struct LeaseWalLine {
    char name[LEASE_LINE_NAME_MAX + 1]; /* lease_line_name, NUL-padded */
    int64 mark;                         /* in the writer's terms: under setting */
    int64 setting;                      /* the scheme's LeaseSetting::record; 0 without one */
    int64 node_field;                   /* SchemeDef::node_field of the writer */
};

/*
 * The layout's version.  kid 0.1.0 wrote a fixed record of five marks and
 * the settings, with no version up front: read here it shows a version
 * that is not this one (or a line count that does not fit) and stops replay.
 */
constexpr uint32 LEASE_WAL_VERSION = 2;

enum class Decoded { ok, not_lease, other_version, malformed };

/*
 * Decode a lease record into *rec.  other_version: *version says which
 * (UINT32_MAX when the record is too short to say); malformed: *why says
 * what is wrong with a record of this version.
 */
static Decoded decode_record(XLogReaderState *record, LeaseWalReplay *rec, uint32 *version,
                             const char **why)
{
    if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) != XLOG_KID_LEASE)
        return Decoded::not_lease;
    const char *data = XLogRecGetData(record);
    uint32 len = XLogRecGetDataLen(record);
    LeaseWalHeader h;
    *version = UINT32_MAX;
    if (len < sizeof(h))
        return Decoded::other_version;
    memcpy(&h, data, sizeof(h));
    *version = h.version;
    if (h.version != LEASE_WAL_VERSION)
        return Decoded::other_version;
    if (h.lines > LEASE_WAL_LINES_MAX || len != sizeof(h) + h.lines * sizeof(LeaseWalLine)) {
        *why = "its length does not match its number of lines";
        return Decoded::malformed;
    }
    memset(rec, 0, sizeof(*rec));
    rec->written_at_us = h.written_at_us;
    rec->node_id = h.node_id;
    for (uint32 k = 0; k < h.lines; k++) {
        LeaseWalLine e;
        memcpy(&e, data + sizeof(h) + k * sizeof(e), sizeof(e));
        int line = memchr(e.name, '\0', sizeof(e.name)) == nullptr
                       ? -1
                       : lease_line_by_name(e.name, static_cast<int>(strlen(e.name)));
        if (line < 0) {
            *why = "it names a lease line this kid does not know";
            return Decoded::malformed;
        }
        if (rec->has_line[line]) {
            *why = "it names a lease line twice";
            return Decoded::malformed;
        }
        rec->has_line[line] = true;
        rec->marks[line] = e.mark;
        rec->settings[line] = e.setting;
        rec->node_fields[line] = e.node_field;
    }
    return Decoded::ok;
}

static void append_mark(StringInfo buf, const char *label, int64 unix_us)
{
    /* timestamptz_to_str returns a static buffer: one call per append. */
    if (unix_us == 0)
        appendStringInfo(buf, "%s none", label);
    else
        appendStringInfo(buf, "%s %s", label,
                         timestamptz_to_str(timestamptz_from_unix_us(unix_us)));
}

static void kid_rm_redo(XLogReaderState *record) noexcept
{
    LeaseWalReplay rec;
    uint32 version;
    const char *why = nullptr;
    switch (decode_record(record, &rec, &version, &why)) {
    case Decoded::ok:
        lease_replay(rec);
        return;
    case Decoded::not_lease:
        elog(PANIC, "kid: unknown WAL record (info %u, length %u)",
             static_cast<unsigned>(XLogRecGetInfo(record)),
             static_cast<unsigned>(XLogRecGetDataLen(record)));
        break;
    case Decoded::other_version:
        /* A record of another layout (another kid version) stops replay instead of being misread. */
        ereport(PANIC, (errmsg("kid: cannot replay a lease WAL record of another kid version "
                               "(length %u, layout version %s; this kid reads version %u)",
                               static_cast<unsigned>(XLogRecGetDataLen(record)),
                               version == UINT32_MAX ? "unknown" : psprintf("%u", version),
                               LEASE_WAL_VERSION),
                        errhint("Replay this WAL with the kid version that wrote it.")));
        break;
    case Decoded::malformed:
        /* A line this kid does not know may hold ids it would repeat: stop, never skip it. */
        ereport(PANIC, (errmsg("kid: cannot replay a lease WAL record: %s (length %u)", why,
                               static_cast<unsigned>(XLogRecGetDataLen(record))),
                        errhint("Replay this WAL with the kid version that wrote it.")));
        break;
    }
}

static void kid_rm_desc(StringInfo buf, XLogReaderState *record) noexcept
{
    LeaseWalReplay rec;
    uint32 version;
    const char *why = nullptr;
    if (decode_record(record, &rec, &version, &why) != Decoded::ok) {
        appendStringInfoString(buf, why != nullptr ? why
                                                   : "unknown kid record (another layout version)");
        return;
    }
    appendStringInfo(buf, "node %d", rec.node_id);
    for (int i = 0; i < LEASE_LINES; i++) {
        if (!rec.has_line[i])
            continue;
        char label[64];
        snprintf(label, sizeof(label), "; %s until", lease_line_name(i));
        append_mark(buf, label, rec.marks[i]);
        appendStringInfo(buf, ", node field %lld", static_cast<long long>(rec.node_fields[i]));
        if (lease_line_scheme(i).setting != nullptr)
            appendStringInfo(buf, ", setting %lld", static_cast<long long>(rec.settings[i]));
    }
    append_mark(buf, "; written at", rec.written_at_us);
}

static const char *kid_rm_identify(uint8 info) noexcept
{
    if ((info & ~XLR_INFO_MASK) == XLOG_KID_LEASE)
        return "LEASE";
    return nullptr;
}

/* PostgreSQL keeps the pointer: static storage. */
static RmgrData kid_rmgr = {
    "kid",                        /* rm_name */
    pg_callback(kid_rm_redo),     /* rm_redo */
    pg_callback(kid_rm_desc),     /* rm_desc */
    pg_callback(kid_rm_identify), /* rm_identify */
    nullptr,                      /* rm_startup */
    nullptr,                      /* rm_cleanup */
    nullptr,                      /* rm_mask */
    nullptr,                      /* rm_decode: nothing for logical decoding */
};

void lease_wal_register()
{
    RegisterCustomRmgr(static_cast<RmgrId>(wal_rmgr_id), &kid_rmgr);
}

bool lease_wal_log(const int64 marks[LEASE_LINES])
{
    if (RecoveryInProgress())
        return false; /* kid.standby_generation: the file alone covers a standby's own ids */
    char data[sizeof(LeaseWalHeader) + LEASE_LINES * sizeof(LeaseWalLine)];
    LeaseWalHeader h;
    memset(&h, 0, sizeof(h));
    h.version = LEASE_WAL_VERSION;
    h.lines = LEASE_LINES;
    h.written_at_us = now_unix_us();
    h.node_id = node_id;
    memcpy(data, &h, sizeof(h));
    for (int i = 0; i < LEASE_LINES; i++) {
        const SchemeDef &scheme = lease_line_scheme(i);
        LeaseWalLine e;
        memset(&e, 0, sizeof(e));
        strlcpy(e.name, lease_line_name(i), sizeof(e.name));
        e.mark = marks[i];
        e.setting = scheme.setting != nullptr ? scheme.setting->record(static_cast<LeaseLine>(i))
                                              : 0;
        e.node_field = scheme.node_field();
        memcpy(data + sizeof(h) + i * sizeof(e), &e, sizeof(e));
    }
    XLogBeginInsert();
    XLogRegisterData(data, sizeof(data));
    XLogRecPtr lsn = XLogInsert(static_cast<RmgrId>(wal_rmgr_id), XLOG_KID_LEASE);
    /* Durable locally before any id under the new marks exists. */
    XLogFlush(lsn);
    return true;
}

} // namespace kid::pg
