#!/usr/bin/env bash
# Cross-check of kid's ULID functions against the npm package ulid (the
# ULID spec's reference implementation), pinned in
# test/xcheck/package.json (runs alone or from run-all.sh; uses the "main"
# cluster; npm installs the packages once into test/xcheck/node_modules).
#   1. 3,000 uuids (random version 4, kid's version 7, and the two ends)
#      written as ULIDs by kid: the package reads the same time, finds them
#      valid, and converts the uuid and the text into each other as kid does.
#   2. 2,000 ULIDs the package made at seed times across the whole 48-bit
#      range (from 1 ms to the last): kid reads the seed time, the package's uuid, and writes the
#      same text back.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

if xcheck_begin kid_xcheck_ulid; then
    xcheck_kid "ulid xcheck: 3000 uuids written as ULIDs by kid read the same by the ulid package" ulid.mjs ulids 3000 \
        "SELECT uuid_to_ulid(u) || E'\t' || (extract(epoch FROM ulid_to_timestamp(u)) * 1000)::bigint || E'\t' || u::text
         FROM (SELECT gen_random_uuid() AS u FROM generate_series(1, 1499)
               UNION ALL SELECT uuidv7_new() FROM generate_series(1, 1499)
               UNION ALL VALUES ('00000000-0000-0000-0000-000000000000'::uuid), ('ffffffff-ffff-ffff-ffff-ffffffffffff')) s"

    xcheck_ref "ulid xcheck: 2000 ULIDs of the ulid package read the same by kid" 2000 ulid.mjs make 2000 <<SQL
CREATE TEMP TABLE ref_ulid (text text, ms bigint, uuid uuid);
\copy ref_ulid FROM '$XC/ref.tsv'
SELECT * FROM ref_ulid r
WHERE ulid_to_uuid(r.text) <> r.uuid OR uuid_to_ulid(r.uuid) <> r.text
   OR (extract(epoch FROM ulid_to_timestamp(r.uuid)) * 1000)::bigint <> r.ms
   OR ulid_to_uuid(lower(r.text)) <> r.uuid;
SQL
fi
xcheck_end

kid_finish
