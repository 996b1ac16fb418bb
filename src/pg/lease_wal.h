/*
 * lease_wal.h - what lease_wal.cpp (the logical message that carries the
 * marks) and lease_wal_legacy.cpp (the custom resource manager of older
 * kids' records) share: the payload's layout version, its decoding and its
 * replay.  Nothing else includes it: the rest of kid sees the WAL through
 * lease.h.
 */
#ifndef KID_PG_LEASE_WAL_H
#define KID_PG_LEASE_WAL_H

#include "pg/lease.h"

namespace kid::pg {

/*
 * The layout's version, the same in the logical message and in the custom
 * records of 0.2.0 builds before it.  kid 0.1.0 wrote a fixed record of
 * five marks and the settings (LeaseWal010, read by the custom resource
 * manager only), with this version at its end.
 */
constexpr uint32 LEASE_WAL_VERSION = 2;

enum class Decoded { ok, other_version, malformed };

/*
 * Decode a payload of this layout into *rec.  other_version: *version says
 * which (UINT32_MAX when it is too short to say); malformed: *why says what
 * is wrong with a payload of this version.
 */
Decoded decode_payload(const char *data, uint32 len, LeaseWalReplay *rec, uint32 *version,
                       const char **why);

/*
 * Replay a decoded payload, or stop replay: a payload of another layout (a
 * later kid) or naming a line this kid does not know may hold marks this
 * kid would miss, so it is never skipped.  `length` is for the message.
 */
void replay_decoded(Decoded d, const LeaseWalReplay &rec, uint32 version, const char *why,
                    uint32 length, uint64 end_lsn);

/* Register the custom resource manager unless kid.wal_rmgr_id is 0 (lease_wal_legacy.cpp). */
void lease_wal_legacy_register();

} // namespace kid::pg

#endif
