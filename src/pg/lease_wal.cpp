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
 * as records of a custom resource manager (RegisterCustomRmgr, id
 * kid.wal_rmgr_id, default 128).  It stays registered, for redo only, so
 * that WAL they wrote still replays where this kid is preloaded (a binary
 * upgrade, then a crash before the next checkpoint; a standby or a restore
 * of such WAL).  kid.wal_rmgr_id = 0 registers none and frees the id.
 *
 * The callbacks are PostgreSQL callbacks (CONTRIBUTING.md, "Callbacks"):
 * noexcept functions of kid::pg with internal linkage that hold only
 * trivially destructible locals.
 */
#include "pg/lease.h"

extern "C" {
#include "access/rmgr.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
#include "replication/message.h"
#include "utils/timestamp.h"
}

/*
 * Reviewed for 15, 17, 18 and 19 (docs/lease.md, "Reviewed for each
 * major"): RmgrTable and RmgrData, RM_LOGICALMSG_ID's entry in
 * rmgrlist.h, xl_logical_message, RegisterCustomRmgr, and the redo call
 * site (GetRmgr(...).rm_redo in xlogrecovery.c).  A later major is
 * reviewed the same way before kid builds for it.
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

/*
 * The layout's version, the same in the logical message and in the custom
 * records of 0.2.0 builds before it.  kid 0.1.0 wrote a fixed record of
 * five marks and the settings (LeaseWal010, read by the custom resource
 * manager only).
 */
constexpr uint32 LEASE_WAL_VERSION = 2;

enum class Decoded { ok, other_version, malformed };

/*
 * Decode a payload of this layout into *rec.  other_version: *version says
 * which (UINT32_MAX when it is too short to say); malformed: *why says what
 * is wrong with a payload of this version.
 */
static Decoded decode_payload(const char *data, uint32 len, LeaseWalReplay *rec, uint32 *version,
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

/*
 * Replay a decoded payload, or stop replay: a payload of another layout (a
 * later kid) or naming a line this kid does not know may hold marks this
 * kid would miss, so it is never skipped.  `length` is for the message.
 */
static void replay_decoded(Decoded d, const LeaseWalReplay &rec, uint32 version, const char *why,
                           uint32 length)
{
    switch (d) {
    case Decoded::ok:
        lease_replay(rec);
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
    replay_decoded(d, rec, version, why, len);
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

/* ---------------------------------------------------------------- the legacy resource manager */

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
    replay_decoded(d, rec, version, why, XLogRecGetDataLen(record));
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

/* ---------------------------------------------------------------- start-up */

/* The name of the resource manager whose redo kid wraps (rmgrlist.h in 15 to 19). */
static constexpr char LOGICAL_MESSAGE_RMGR[] = "LogicalMessage";

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
    /* Once per process: wrapping the wrapper would call it forever. */
    if (replaced_message_redo == nullptr) {
        replaced_message_redo = entry->rm_redo;
        entry->rm_redo = pg_callback(kid_message_redo);
    }
    if (wal_rmgr_id != 0)
        RegisterCustomRmgr(static_cast<RmgrId>(wal_rmgr_id), &kid_rmgr);
}

} // namespace kid::pg
