/*
 * real_select.c - select() straight to the kernel, preloaded ahead of
 * libfaketime by test/lib.sh (faketime_cluster_start).
 *
 * libfaketime (0.9.10) runs the real select() with a flag of its own set,
 * per thread, that makes every clock call meanwhile return the true time.
 * PostgreSQL 15's postmaster waits in select() and starts background
 * workers from its SIGUSR1 handler, which runs there when the signal comes
 * during the wait: a worker forked then keeps the flag for life and never
 * sees the faked clock (kid's partition worker in
 * test/server/28-partition_worker.sh, with the clock 31 days ahead, ran at
 * the true time whenever its launcher asked for it while the postmaster
 * was idle).  From 16 on the postmaster forks outside its signal handlers.
 * The tests give libfaketime no rate, so select() needs nothing from it.
 * x86_64 (SYS_select), as test/lib.sh's FT_LIB.
 */
#define _GNU_SOURCE
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>

int select(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds, struct timeval *timeout)
{
    return (int)syscall(SYS_select, nfds, readfds, writefds, exceptfds, timeout);
}
