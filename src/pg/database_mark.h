/*
 * database_mark.h - the mark a database carries of the clusters whose ids
 * it holds (the table kid_database_origin), read before a backend's first
 * id: a database that pg_upgrade, pg_dump/pg_restore or any other copy of
 * its rows brought from another cluster is refused until
 * kid_adopt_database() has raised this server's floors above its ids.
 */
#ifndef KID_PG_DATABASE_MARK_H
#define KID_PG_DATABASE_MARK_H

#include "pg/kid_pg.h"

namespace kid::pg {

/* True once this backend found its database's ids to be this cluster's to continue. */
extern bool database_mark_ok;

/* Read kid_database_origin; ERROR 55000 when the database came from another cluster. */
void database_mark_verify(const char *type_name);

/* Why the mark refuses generation in this database, or nullptr (for kid_node_info). */
const char *database_mark_refusal();

/*
 * Called by shared_for_generation, on every id of the counter schemes (sno
 * checks database_mark_ok on every id): a load and a branch once the
 * database is known to be this cluster's.  The table is read once per
 * backend, again after any change to it (a statement trigger invalidates
 * its relcache entry, and a callback here clears database_mark_ok), and on
 * every call while it refuses, so an adoption by another session is seen.
 */
inline void database_mark_check(const char *type_name)
{
    if (likely(database_mark_ok))
        return;
    database_mark_verify(type_name);
}

} // namespace kid::pg

#endif
