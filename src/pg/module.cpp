/*
 * module.cpp - the module's start: PG_MODULE_MAGIC and _PG_init, which
 * defines the settings and, while kid is preloaded, installs the
 * shared-memory hooks and registers the WAL resource manager.
 *
 * _PG_init is a PostgreSQL callback found by name, so it has C linkage;
 * like every callback it is noexcept (CONTRIBUTING.md, "Callbacks").
 */
#include "lease.h"
#include "settings.h"
#include "shared_state.h"

extern "C" {
PG_MODULE_MAGIC;

void _PG_init(void) noexcept;
}

void _PG_init(void) noexcept
{
    if (!kid::pg::define_settings())
        return; /* loaded lazily, or a failed lazy load retried: no shared memory */
    kid::pg::install_shmem_hooks();
    kid::pg::lease_wal_register();
}
