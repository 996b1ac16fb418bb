#!/usr/bin/env bash
# Cross-check of koid against the npm packages koid and flake-idgen, pinned
# in test/xcheck/package.json (runs alone or from run-all.sh; uses the
# "main" cluster; npm installs the packages once into test/xcheck/node_modules).
#   1. 2,000 koids made by koid_new() under several generator ids: koid's
#      retrieveFromId reads the same time, datacenter, worker and counter.
#   2. 1,000 ids made by koid and flake-idgen with random datacenter/worker:
#      kid reads the same fields and text.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

if xcheck_begin kid_xcheck_koid; then
    xcheck_kid "koid xcheck: 2000 kid koids read the same by the koid package" koid.mjs koids 2000 \
        "SELECT id::text || E'\t' || i.ms_since_epoch || E'\t' || i.datacenter || E'\t' || i.worker || E'\t' || i.counter FROM (SELECT koid_new() AS id FROM generate_series(1, 2000)) s, koid_info(id) i"

    xcheck_ref "koid xcheck: 1000 ids of koid and flake-idgen read the same by kid" 1000 koid.mjs make 1000 <<SQL
CREATE TEMP TABLE ref_koid (hex text, ms bigint, datacenter int, worker int, counter int);
\copy ref_koid FROM '$XC/ref.tsv'
SELECT * FROM ref_koid r, koid_info(r.hex::koid) i
WHERE i.ms_since_epoch <> r.ms OR i.datacenter <> r.datacenter OR i.worker <> r.worker
   OR i.counter <> r.counter OR i.generator_id <> r.datacenter * 32 + r.worker OR r.hex::koid::text <> r.hex
   OR r.hex::koid::bigint <> ('x' || r.hex)::bit(64)::bigint;
SQL
fi
xcheck_end

kid_finish
