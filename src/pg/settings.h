/*
 * settings.h - kid's configuration settings (kid.*), as the rest of the
 * boundary reads them.  Defined and validated in settings.cpp.
 */
#ifndef KID_PG_SETTINGS_H
#define KID_PG_SETTINGS_H

#include "pg/kid_pg.h"

namespace kid::pg {

/*
 * sno's 16-bit partition is node id (high byte) | backend slot (low byte),
 * so a server has 256 slots and a key space has 256 nodes.
 */
constexpr int NODE_ID_MAX = 255;

extern int node_id;
extern bool standby_generation;
extern double koid_epoch_ms;
extern int koid_generator_id;
extern bool koid_overflow_error;
extern int koid_max_clock_wait_ms;
extern int uid_interval;
/* The uid node fingerprint in use: kid.uid_node, or derived from kid.node_id. */
extern uint32 uid_node;
extern int wal_rmgr_id;
/* kid.partition_maintenance_interval, in seconds; 0: no partition maintenance (partition_worker.cpp). */
extern int partition_maintenance_interval;
/*
 * kid.partition_maintenance_timeout, in seconds: the worker's time for one
 * table, and the launcher's wait for one database (partition_worker.cpp).
 */
extern int partition_maintenance_timeout;

/* kid.koid_epoch_ms as whole milliseconds. */
inline int64 koid_epoch_whole_ms()
{
    return static_cast<int64>(koid_epoch_ms);
}

/* The koid generator id in use: kid.koid_generator_id, or kid.node_id. */
inline int effective_koid_generator_id()
{
    return koid_generator_id >= 0 ? koid_generator_id : node_id;
}

/*
 * Define and validate the settings (from _PG_init).  ERROR naming the
 * setting when one is invalid, misspelt or set where kid cannot take it;
 * a lazy load that failed fails the same way on every later call.  True
 * when kid is being preloaded for the first time, i.e. when the caller
 * goes on to install the shared-memory hooks.
 */
bool define_settings();

} // namespace kid::pg

#endif
