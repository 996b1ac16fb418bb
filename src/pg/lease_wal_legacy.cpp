/*
 * lease_wal_legacy.cpp - the custom WAL resource manager of kid 0.1.0's
 * lease records, for redo only.
 *
 * Why it exists.  kid 0.1.0, and 0.2.0 builds before the logical message
 * (lease_wal.cpp), wrote the marks as records of a custom resource manager
 * (RegisterCustomRmgr, id kid.wal_rmgr_id, default 128).  A server replays
 * such a record only while a resource manager of that id is registered,
 * and stops at the first one otherwise (core's FATAL: it never skips one).
 * So this kid writes none, but registers the resource manager, under the
 * same id, so that WAL they wrote still replays where it is preloaded: the
 * binaries upgraded, then a crash before the next checkpoint; a standby or
 * a restore of such WAL.  It reads both layouts, 0.1.0's fixed 80-byte
 * record and the payload of layout 2 (lease_wal.h), and replays them as
 * the logical message is replayed.  kid.wal_rmgr_id = 0 registers none and
 * frees the id.
 *
 * When it goes.  A server needs it until no WAL it may still replay holds
 * such records: docs/lease.md, "WAL of older kids: the custom resource
 * manager", says when that is for a primary, its standbys and its backups.
 * The code goes, with kid.wal_rmgr_id and test/server/45-lease_wal_legacy.sh,
 * in the first release that no longer supports running on WAL written by
 * kid 0.1.0 (an upgrade from 0.1.0 then passes through a release that has
 * this file, and a checkpoint there).  Nothing else in kid depends on it:
 * lease_wal.cpp calls lease_wal_legacy_register() and nothing more, and
 * lease_wal.h, there only for this file, goes too (its decoding and replay
 * go back to being static in lease_wal.cpp).
 *
 * The callbacks are PostgreSQL callbacks (CONTRIBUTING.md, "Callbacks"):
 * noexcept functions of kid::pg with internal linkage that hold only
 * trivially destructible locals.
 */
#include "pg/lease_wal.h"

extern "C" {
#include "access/xlog_internal.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
#include "utils/timestamp.h"
}

namespace kid::pg {

/* The one record type of the custom resource manager: xl_info's high nibble is the rmgr's. */
static constexpr uint8 XLOG_KID_LEASE = 0x10;

/*
 * kid 0.1.0's record (src/pg/lease.h of v0.1.0): five marks in the order
 * of these names, the writer's settings, its layout version (2) at the
 * end; 80 bytes, a length no payload of this layout has (24 + 40n).
 */
struct LeaseWal010 {
    int64 marks[5];
    int64 written_at_us;
    int64 koid_epoch_ms;
    int32 node_id;
    int32 koid_generator_id;
    uint32 uid_node;
    int32 uid_interval;
    uint32 version;
    uint32 pad_;
};
static_assert(sizeof(LeaseWal010) == 80, "kid 0.1.0's lease record is 80 bytes");
static const char *const LEASE_WAL_010_LINES[5] = {"sno tick 0", "sno tick 1", "atproto_tid",
                                                   "koid", "uid"};

/* A 0.1.0 record as a replay of today's lines: the settings and node fields by scheme. */
static Decoded decode_010(const char *data, LeaseWalReplay *rec, uint32 *version)
{
    LeaseWal010 r;
    memcpy(&r, data, sizeof(r));
    *version = r.version;
    if (r.version != LEASE_WAL_VERSION)
        return Decoded::other_version;
    memset(rec, 0, sizeof(*rec));
    rec->written_at_us = r.written_at_us;
    rec->node_id = r.node_id;
    for (int k = 0; k < 5; k++) {
        const char *name = LEASE_WAL_010_LINES[k];
        int line = lease_line_by_name(name, static_cast<int>(strlen(name)));
        if (line < 0)
            return Decoded::malformed; /* a kid without one of 0.1.0's lines: cannot be built */
        rec->has_line[line] = true;
        rec->marks[line] = r.marks[k];
        rec->node_fields[line] = r.node_id;
    }
    rec->settings[LEASE_KOID] = r.koid_epoch_ms;
    rec->node_fields[LEASE_KOID] = r.koid_generator_id;
    rec->settings[LEASE_UID] = r.uid_interval;
    rec->node_fields[LEASE_UID] = r.uid_node;
    return Decoded::ok;
}

/* Decode a custom record: 0.1.0's layout by its length, else the payload's. */
static Decoded decode_legacy(XLogReaderState *record, LeaseWalReplay *rec, uint32 *version,
                             const char **why)
{
    const char *data = XLogRecGetData(record);
    uint32 len = XLogRecGetDataLen(record);
    if (len == sizeof(LeaseWal010)) {
        Decoded d = decode_010(data, rec, version);
        if (d == Decoded::malformed)
            *why = "this kid lacks a lease line of kid 0.1.0";
        return d;
    }
    return decode_payload(data, len, rec, version, why);
}

static void kid_rm_redo(XLogReaderState *record) noexcept
{
    if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) != XLOG_KID_LEASE)
        elog(PANIC, "kid: unknown WAL record (info %u, length %u)",
             static_cast<unsigned>(XLogRecGetInfo(record)),
             static_cast<unsigned>(XLogRecGetDataLen(record)));
    LeaseWalReplay rec;
    uint32 version;
    const char *why = nullptr;
    Decoded d = decode_legacy(record, &rec, &version, &why);
    replay_decoded(d, rec, version, why, XLogRecGetDataLen(record), record->EndRecPtr);
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

static void kid_rm_desc(StringInfo buf, XLogReaderState *record) noexcept
{
    LeaseWalReplay rec;
    uint32 version;
    const char *why = nullptr;
    if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) != XLOG_KID_LEASE ||
        decode_legacy(record, &rec, &version, &why) != Decoded::ok) {
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

void lease_wal_legacy_register()
{
    if (wal_rmgr_id != 0)
        RegisterCustomRmgr(static_cast<RmgrId>(wal_rmgr_id), &kid_rmgr);
}

} // namespace kid::pg
