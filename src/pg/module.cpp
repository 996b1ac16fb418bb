/*
 * module.cpp - the module's start: PG_MODULE_MAGIC and _PG_init, which
 * defines the settings and, while kid is preloaded, installs the
 * shared-memory hooks and the redo of the lease in the WAL.
 *
 * _PG_init is a PostgreSQL callback found by name, so it has C linkage;
 * like every callback its body is noexcept (CONTRIBUTING.md, "Callbacks").
 * PostgreSQL 16+ declares _PG_init in fmgr.h, without noexcept, so there
 * _PG_init only calls the noexcept kid_init.
 *
 * On PostgreSQL 18+ the magic block also names the module and its version
 * (KID_VERSION, the control file's default_version, passed by the Makefile),
 * which pg_get_loaded_modules() shows.
 */
#include "pg/horizon.h"
#include "pg/lease.h"
#include "pg/settings.h"
#include "pg/shared_state.h"

extern "C" {
#ifdef PG_MODULE_MAGIC_EXT
PG_MODULE_MAGIC_EXT(.name = "kid", .version = KID_VERSION);
#else
PG_MODULE_MAGIC;
#endif

#if PG_VERSION_NUM < 160000
void _PG_init(void);
#endif
}

static void kid_init() noexcept
{
    if (!kid::pg::define_settings())
        return; /* loaded lazily, or a failed lazy load retried: no shared memory */
    kid::pg::install_shmem_hooks();
    kid::pg::horizon_register_callbacks();
    kid::pg::lease_wal_register();
}

void _PG_init(void)
{
    kid_init();
}
