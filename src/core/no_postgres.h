/*
 * no_postgres.h - compile-time guard for the PostgreSQL-free core.
 *
 * Every .cpp file under src/core/ includes this header after all others
 * (headers do not: the boundary layer includes them next to PostgreSQL's,
 * in any order).  The core must stay
 * plain C++17 so it can be unit-tested without a server and so that no
 * PostgreSQL macro (elog, palloc, setjmp-based PG_TRY) can sneak into code
 * that relies on destructors.  If a PostgreSQL header was included before
 * this one, its include guard is defined and compilation stops here.
 */
#ifndef KID_CORE_NO_POSTGRES_H
#define KID_CORE_NO_POSTGRES_H

#if defined(POSTGRES_H) || defined(C_H) || defined(FMGR_H) || defined(PG_CONFIG_H)
#error "src/core must not include PostgreSQL headers"
#endif

#endif
