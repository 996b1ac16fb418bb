/*
 * 44-logical_message_tool.c - a helper of test/server/44-replay_without_kid.sh,
 * built there with PGXS and loaded by its path (never installed):
 *
 *   logical_message_write(dbid oid, transactional bool, prefix bytea,
 *                         payload bytea, trailing bytea) RETURNS pg_lsn
 *       writes and flushes a LogicalMessage record with exactly these
 *       fields (the prefix as given: the caller adds its NUL), then the
 *       trailing bytes, which no message has; what no SQL caller of
 *       pg_logical_emit_message can write (it stamps the caller's database
 *       and a prefix with its NUL), to show what kid's redo accepts;
 *
 *   in shared_preload_libraries before kid: wraps the redo of the
 *       LogicalMessage resource manager as another extension may, and logs
 *       each message it replays, so that the test sees whether kid's
 *       wrapper calls the redo it replaced.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "replication/message.h"
#include "utils/pg_lsn.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

PG_MODULE_MAGIC;

#if PG_VERSION_NUM < 160000
void _PG_init(void);
#endif

PG_FUNCTION_INFO_V1(logical_message_write);

Datum
logical_message_write(PG_FUNCTION_ARGS)
{
	bytea	   *prefix = PG_GETARG_BYTEA_PP(2);
	bytea	   *payload = PG_GETARG_BYTEA_PP(3);
	bytea	   *trailing = PG_GETARG_BYTEA_PP(4);
	xl_logical_message xlrec;
	XLogRecPtr	lsn;

	memset(&xlrec, 0, sizeof(xlrec));
	xlrec.dbId = PG_GETARG_OID(0);
	xlrec.transactional = PG_GETARG_BOOL(1);
	xlrec.prefix_size = VARSIZE_ANY_EXHDR(prefix);
	xlrec.message_size = VARSIZE_ANY_EXHDR(payload);
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfLogicalMessage);
	if (VARSIZE_ANY_EXHDR(prefix) > 0)
		XLogRegisterData(VARDATA_ANY(prefix), VARSIZE_ANY_EXHDR(prefix));
	if (VARSIZE_ANY_EXHDR(payload) > 0)
		XLogRegisterData(VARDATA_ANY(payload), VARSIZE_ANY_EXHDR(payload));
	if (VARSIZE_ANY_EXHDR(trailing) > 0)
		XLogRegisterData(VARDATA_ANY(trailing), VARSIZE_ANY_EXHDR(trailing));
	lsn = XLogInsert(RM_LOGICALMSG_ID, XLOG_LOGICAL_MESSAGE);
	XLogFlush(lsn);
	PG_RETURN_LSN(lsn);
}

static void (*replaced_redo) (XLogReaderState *record) = NULL;

static void
tool_redo(XLogReaderState *record)
{
	const char *data = XLogRecGetData(record);
	uint32		len = XLogRecGetDataLen(record);
	xl_logical_message xlrec;
	char		prefix[32];

	if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) == XLOG_LOGICAL_MESSAGE &&
		len >= SizeOfLogicalMessage)
	{
		memcpy(&xlrec, data, SizeOfLogicalMessage);
		memset(prefix, 0, sizeof(prefix));
		memcpy(prefix, data + SizeOfLogicalMessage,
			   Min(Min(xlrec.prefix_size, sizeof(prefix) - 1), len - SizeOfLogicalMessage));
		elog(LOG, "logical_message_tool: redo of a logical message (database %u, prefix \"%s\")",
			 xlrec.dbId, prefix);
	}
	replaced_redo(record);
}

void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	replaced_redo = RmgrTable[RM_LOGICALMSG_ID].rm_redo;
	RmgrTable[RM_LOGICALMSG_ID].rm_redo = tool_redo;
}
