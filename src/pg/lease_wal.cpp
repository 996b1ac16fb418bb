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
static constexpr uint8 XLOG_KID_LEASE = 0x10;

/*
 * The record's layout version: LEASE_WAL_VERSION, 0 when the record is not
 * a lease record at all, or the version a record of another size or
 * version says it has (UINT32_MAX when it cannot say).  Only
 * LEASE_WAL_VERSION is replayed: this kid reads no other layout.
 */
static uint32 read_record(XLogReaderState *record, LeaseWalRecord *rec)
{
    if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) != XLOG_KID_LEASE)
        return 0;
    if (XLogRecGetDataLen(record) != sizeof(LeaseWalRecord))
        return UINT32_MAX;
    memcpy(rec, XLogRecGetData(record), sizeof(LeaseWalRecord));
    return rec->version;
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
    LeaseWalRecord rec;
    uint32 version = read_record(record, &rec);
    if (version == 0)
        elog(PANIC, "kid: unknown WAL record (info %u, length %u)",
             static_cast<unsigned>(XLogRecGetInfo(record)),
             static_cast<unsigned>(XLogRecGetDataLen(record)));
    /* A record of another layout (another kid version) stops replay instead of being misread. */
    if (version != LEASE_WAL_VERSION)
        ereport(PANIC,
                (errmsg("kid: cannot replay a lease WAL record of another kid version "
                        "(length %u, layout version %s; this kid reads version %u, %u bytes)",
                        static_cast<unsigned>(XLogRecGetDataLen(record)),
                        version == UINT32_MAX ? "unknown" : psprintf("%u", version),
                        LEASE_WAL_VERSION, static_cast<unsigned>(sizeof(LeaseWalRecord))),
                 errhint("Replay this WAL with the kid version that wrote it.")));
    lease_replay(rec);
}

static void kid_rm_desc(StringInfo buf, XLogReaderState *record) noexcept
{
    LeaseWalRecord rec;
    if (read_record(record, &rec) != LEASE_WAL_VERSION) {
        appendStringInfoString(buf, "unknown kid record (another layout version)");
        return;
    }
    appendStringInfo(buf, "node %d, koid generator %d, uid node %08x; ", rec.node_id,
                     rec.koid_generator_id, rec.uid_node);
    for (int i = 0; i < LEASE_LINES; i++) {
        char label[64];
        snprintf(label, sizeof(label), "%s%s until", i == 0 ? "" : ", ", LEASE_LINE_NAMES[i]);
        append_mark(buf, label, rec.marks[i]);
    }
    appendStringInfo(buf, "; koid epoch %lld ms, uid interval %d",
                     static_cast<long long>(rec.koid_epoch_ms), rec.uid_interval);
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
    LeaseWalRecord rec;
    memset(&rec, 0, sizeof(rec));
    for (int i = 0; i < LEASE_LINES; i++)
        rec.marks[i] = marks[i];
    rec.written_at_us = now_unix_us();
    rec.node_id = node_id;
    rec.koid_generator_id = effective_koid_generator_id();
    rec.uid_node = uid_node;
    rec.koid_epoch_ms = koid_epoch_whole_ms();
    rec.uid_interval = uid_interval;
    rec.version = LEASE_WAL_VERSION;
    XLogBeginInsert();
    XLogRegisterData(reinterpret_cast<char *>(&rec), sizeof(rec));
    XLogRecPtr lsn = XLogInsert(static_cast<RmgrId>(wal_rmgr_id), XLOG_KID_LEASE);
    /* Durable locally before any id under the new marks exists. */
    XLogFlush(lsn);
    return true;
}

} // namespace kid::pg
