/*
 * lease_wal.cpp - the lease in the write-ahead log.
 *
 * Every lease extension on a primary also writes the new marks to the WAL
 * and flushes them before an id under them is handed out (once per lease
 * renewal, never per id).  Replaying them - on a streaming standby, in
 * archive recovery, and in crash recovery on the primary itself - raises
 * the replayed marks and makes them durable in kid.lease, so a promoted
 * standby starts every generator above everything the old primary may have
 * handed out, even where its own clock is behind.
 *
 * The carrier is a core logical message (resource manager LogicalMessage),
 * which every PostgreSQL replays, as a no-op, whether kid is installed and
 * preloaded or not: a standby, a restore or a server whose kid was taken
 * out of shared_preload_libraries replays kid's WAL to the end and starts.
 * kid writes the message itself, non-transactional, with the prefix "kid"
 * and database 0.  No SQL caller can make such a message
 * (pg_logical_emit_message stamps the caller's database), and logical
 * decoding passes over it (a slot decodes only the messages of its own
 * database).  docs/lease.md, "Standbys and promotion", weighs the other
 * carriers.
 *
 * Core gives redo no hook, so a server with kid preloaded learns the marks
 * through a wrapper of that resource manager's redo function in RmgrTable,
 * installed in _PG_init (the table is filled the same way by
 * RegisterCustomRmgr, and recovery calls redo through it: xlogrecovery.c,
 * GetRmgr(...).rm_redo).  The wrapper calls the function it replaced first,
 * then reads the message if kid wrote it: anything else (another
 * extension's message, a forged one from SQL) is left alone.  Patching a
 * core table is not an API: the entry is checked by name at start-up, and
 * each new major must be reviewed (the #error below).
 *
 * kid 0.1.0, and 0.2.0 builds before the logical message, wrote the marks
 * as records of a custom resource manager; its redo, kept only to replay
 * WAL they wrote, is lease_wal_legacy.cpp.  The payload's layout and its
 * replay (lease_wal.h) are the same in both.
 *
 * The callbacks are PostgreSQL callbacks (CONTRIBUTING.md, "Callbacks"):
 * noexcept functions of kid::pg with internal linkage that hold only
 * trivially destructible locals.
 */
#include "pg/lease_wal.h"

extern "C" {
#include "access/rmgr.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "catalog/pg_control.h"
#include "replication/message.h"
}

/*
 * Reviewed for 15, 17, 18 and 19 (docs/lease.md, "Reviewed for each
 * major"): RmgrTable and RmgrData, RM_LOGICALMSG_ID's and RM_XLOG_ID's
 * entries in rmgrlist.h, xl_logical_message, the checkpoint records'
 * info bits (XLOG_CHECKPOINT_SHUTDOWN, XLOG_CHECKPOINT_ONLINE), RegisterCustomRmgr (which
 * lease_wal_legacy.cpp calls), and the redo call site
 * (GetRmgr(...).rm_redo in xlogrecovery.c).  A later major is reviewed the
 * same way before kid builds for it.
 */
#if PG_VERSION_NUM >= 200000
#error "kid wraps the LogicalMessage redo: review this major as docs/lease.md says"
#endif

namespace kid::pg {

/* ---------------------------------------------------------------- the payload */

constexpr uint32 LEASE_WAL_LINES_MAX = 64;

/*
 * The payload: a header, then one entry per lease line the writer had,
 * each naming its line, so that a line added to kid later is new entries,
 * not a new layout.  Trivially copyable; written and read with memcpy.
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

Decoded decode_payload(const char *data, uint32 len, LeaseWalReplay *rec, uint32 *version,
                       const char **why)
{
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

/* The payload of the marks now; returns its length (LEASE_LINES entries). */
static uint32 encode_payload(const int64 marks[LEASE_LINES], char *data)
{
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
    return sizeof(h) + LEASE_LINES * sizeof(LeaseWalLine);
}

void replay_decoded(Decoded d, const LeaseWalReplay &rec, uint32 version, const char *why,
                    uint32 length, uint64 end_lsn)
{
    switch (d) {
    case Decoded::ok:
        lease_replay(rec, end_lsn);
        return;
    case Decoded::other_version:
        ereport(PANIC, (errmsg("kid: cannot replay a lease WAL record of another kid version "
                               "(length %u, layout version %s; this kid reads version %u)",
                               length, version == UINT32_MAX ? "unknown" : psprintf("%u", version),
                               LEASE_WAL_VERSION),
                        errhint("Replay this WAL with the kid version that wrote it.")));
        break;
    case Decoded::malformed:
        ereport(PANIC,
                (errmsg("kid: cannot replay a lease WAL record: %s (length %u)", why, length),
                 errhint("Replay this WAL with the kid version that wrote it.")));
        break;
    }
}

/* ---------------------------------------------------------------- the logical message */

/* The message's prefix, with its NUL (prefix_size counts it, as LogLogicalMessage does). */
static constexpr char KID_MESSAGE_PREFIX[] = "kid";

/*
 * The payload of `record`, a LogicalMessage record, when kid wrote it:
 * XLOG_LOGICAL_MESSAGE, database 0 (no SQL caller can write that),
 * non-transactional, the prefix "kid", and lengths that add up to the
 * record's.  nullptr for every other message, whoever wrote it.
 */
static const char *kid_message_payload(XLogReaderState *record, uint32 *len)
{
    if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) != XLOG_LOGICAL_MESSAGE)
        return nullptr;
    const char *data = XLogRecGetData(record);
    uint32 total = XLogRecGetDataLen(record);
    xl_logical_message h;
    if (total < SizeOfLogicalMessage)
        return nullptr;
    memcpy(&h, data, SizeOfLogicalMessage);
    if (h.dbId != InvalidOid || h.transactional || h.prefix_size != sizeof(KID_MESSAGE_PREFIX))
        return nullptr;
    if (total - SizeOfLogicalMessage < h.prefix_size ||
        h.message_size != total - SizeOfLogicalMessage - h.prefix_size)
        return nullptr;
    if (memcmp(data + SizeOfLogicalMessage, KID_MESSAGE_PREFIX, sizeof(KID_MESSAGE_PREFIX)) != 0)
        return nullptr;
    *len = static_cast<uint32>(h.message_size);
    return data + SizeOfLogicalMessage + h.prefix_size;
}

/* The redo function the wrapper replaced (core's logicalmsg_redo, or another wrapper of it). */
static void (*replaced_message_redo)(XLogReaderState *record) = nullptr;

static void kid_message_redo(XLogReaderState *record) noexcept
{
    replaced_message_redo(record);
    uint32 len;
    const char *payload = kid_message_payload(record, &len);
    if (payload == nullptr)
        return;
    LeaseWalReplay rec;
    uint32 version;
    const char *why = nullptr;
    Decoded d = decode_payload(payload, len, &rec, &version, &why);
    replay_decoded(d, rec, version, why, len, record->EndRecPtr);
}

/* ---------------------------------------------------------------- checkpoint records */

/* The redo function of the XLOG resource manager the wrapper replaced (core's xlog_redo). */
static void (*replaced_xlog_redo)(XLogReaderState *record) = nullptr;

/*
 * Every checkpoint record replayed with kid moves kid.lease's position to
 * it (lease.cpp, "Where the marks stand in the WAL"), before core's redo:
 * the restartpoint core may make from the record then starts the next
 * replay at or before the file's position, however long the WAL carried no
 * lease message.
 */
static void kid_xlog_redo(XLogReaderState *record) noexcept
{
    uint8 info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
    if (info == XLOG_CHECKPOINT_SHUTDOWN || info == XLOG_CHECKPOINT_ONLINE)
        lease_replay_position(record->ReadRecPtr);
    replaced_xlog_redo(record);
}

bool lease_wal_log(const int64 marks[LEASE_LINES])
{
    if (RecoveryInProgress())
        return false; /* kid.standby_generation: the file alone covers a standby's own ids */
    char payload[sizeof(LeaseWalHeader) + LEASE_LINES * sizeof(LeaseWalLine)];
    uint32 len = encode_payload(marks, payload);
    /* LogLogicalMessage would stamp MyDatabaseId: the record is written here, with database 0. */
    xl_logical_message h;
    memset(&h, 0, sizeof(h));
    h.dbId = InvalidOid;
    h.transactional = false;
    h.prefix_size = sizeof(KID_MESSAGE_PREFIX);
    h.message_size = len;
    XLogBeginInsert();
    XLogRegisterData(reinterpret_cast<char *>(&h), SizeOfLogicalMessage);
    XLogRegisterData(const_cast<char *>(KID_MESSAGE_PREFIX), sizeof(KID_MESSAGE_PREFIX));
    XLogRegisterData(payload, len);
    XLogRecPtr lsn = XLogInsert(RM_LOGICALMSG_ID, XLOG_LOGICAL_MESSAGE);
    /* Durable locally before any id under the new marks exists. */
    XLogFlush(lsn);
    return true;
}

/* ---------------------------------------------------------------- start-up */

/* The name of the resource manager whose redo kid wraps (rmgrlist.h in 15 to 19). */
static constexpr char LOGICAL_MESSAGE_RMGR[] = "LogicalMessage";
/* The name of the resource manager of checkpoint records (rmgrlist.h in 15 to 19). */
static constexpr char XLOG_RMGR[] = "XLOG";

void lease_wal_register()
{
    RmgrData *entry = &RmgrTable[RM_LOGICALMSG_ID];
    if (entry->rm_name == nullptr || strcmp(entry->rm_name, LOGICAL_MESSAGE_RMGR) != 0 ||
        entry->rm_redo == nullptr)
        ereport(FATAL,
                (errmsg("kid: resource manager %d is \"%s\", not \"%s\" with a redo function",
                        RM_LOGICALMSG_ID, entry->rm_name != nullptr ? entry->rm_name : "(none)",
                        LOGICAL_MESSAGE_RMGR),
                 errdetail("kid carries its lease in core logical messages and reads them back "
                           "by wrapping that resource manager's redo; this server's table of "
                           "resource managers is not the one kid was built for.")));
    RmgrData *xlog = &RmgrTable[RM_XLOG_ID];
    if (xlog->rm_name == nullptr || strcmp(xlog->rm_name, XLOG_RMGR) != 0 ||
        xlog->rm_redo == nullptr)
        ereport(FATAL,
                (errmsg("kid: resource manager %d is \"%s\", not \"%s\" with a redo function",
                        RM_XLOG_ID, xlog->rm_name != nullptr ? xlog->rm_name : "(none)", XLOG_RMGR),
                 errdetail("kid follows the checkpoint records replayed by wrapping that "
                           "resource manager's redo; this server's table of resource managers "
                           "is not the one kid was built for.")));
    /* Once per process: wrapping the wrapper would call it forever. */
    if (replaced_message_redo == nullptr) {
        replaced_message_redo = entry->rm_redo;
        entry->rm_redo = pg_callback(kid_message_redo);
    }
    if (replaced_xlog_redo == nullptr) {
        replaced_xlog_redo = xlog->rm_redo;
        xlog->rm_redo = pg_callback(kid_xlog_redo);
    }
    lease_wal_legacy_register();
}

} // namespace kid::pg
