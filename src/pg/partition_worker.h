/*
 * partition_worker.h - kid's background worker that maintains the time
 * partitions of every database (partition_worker.cpp; the maintenance
 * itself is kid_partition_maintain(), src/sql/partition.sql).
 */
#ifndef KID_PG_PARTITION_WORKER_H
#define KID_PG_PARTITION_WORKER_H

#include "pg/kid_pg.h"

namespace kid::pg {

/* Register the launcher (from _PG_init, while kid is preloaded). */
void partition_worker_register();

/*
 * Whether this process is kid's partition worker, and the table it
 * maintains now (InvalidOid between tables): kid_partition_history records
 * as the worker's its own run of that table, and its forget of a table
 * that is gone, nothing else (partition_maintenance.cpp).
 */
extern bool partition_worker_running;
extern Oid partition_worker_table;

} // namespace kid::pg

#endif
