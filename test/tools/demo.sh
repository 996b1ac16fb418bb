#!/usr/bin/env bash
# The README's first command ("make demo"): build kid, install it into a copy
# of PostgreSQL 15 (PG_CONFIG's) made for the demo, start a throwaway server
# of that copy with kid preloaded, show it working, stop the server and
# remove the copy.  The machine's PostgreSQL is left as it was: no kid.so
# or extension file of it is written (a packaged kid stays the package's),
# no cluster of it is made or touched (test/server/75-demo.sh checks this).
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh

# The copy: the directories of PG_CONFIG's PostgreSQL that running it needs,
# each at its own path under $KID_TMP/pg, so that their relative places are
# kept (PostgreSQL finds its files relative to its programs); kid goes into
# it by make install with DESTDIR=$KID_TMP/pg.  kid_cleanup removes $KID_TMP.
echo "== copying PostgreSQL $("$PG_CONFIG" --version | sed 's/^PostgreSQL //') into $KID_TMP/pg for the demo (your installation is not changed)"
for dir in "$("$PG_CONFIG" --bindir)" "$("$PG_CONFIG" --pkglibdir)" "$("$PG_CONFIG" --sharedir)"; do
    mkdir -p "$KID_TMP/pg$(dirname "$dir")"
    [ -e "$KID_TMP/pg$dir" ] || cp -a "$dir" "$KID_TMP/pg$dir"
done

echo "== building kid and installing it into that copy"
make -s -j2 PG_CONFIG="$PG_CONFIG" >/dev/null
make -s install PG_CONFIG="$PG_CONFIG" DESTDIR="$KID_TMP/pg" >/dev/null
chmod -R a+rX "$KID_TMP/pg"
PG_BIN=$KID_TMP/pg$("$PG_CONFIG" --bindir)

PORT=54331
cluster_init demo $PORT
cluster_start demo
echo "== throwaway server (pid $(cluster_pid demo)) with shared_preload_libraries = 'kid'"
echo

"$PG_BIN/psql" -h "$KID_TMP" -p $PORT -U postgres -X -v ON_ERROR_STOP=1 -e -d postgres <<'SQL'
CREATE EXTENSION kid;
SET TIME ZONE 'UTC';

-- A table whose primary key is an sno made by the server.
CREATE TABLE events (
    id   sno PRIMARY KEY DEFAULT sno_new(),
    body text
);
-- A month of history (backfilled with given times), then 1000 new rows.
INSERT INTO events
SELECT sno_new_with_time(now() - interval '30 days' + i * interval '25 seconds'), 'old event ' || i
FROM generate_series(1, 100000) i;
INSERT INTO events (body) SELECT 'event ' || i FROM generate_series(1, 1000) i;

-- Ids sort in time order; decode the embedded time and fields in plain SQL.
SELECT id, sno_to_timestamp(id), (sno_info(id)).* FROM events ORDER BY id DESC LIMIT 3;

-- "What arrived in the last minute?" is a range scan of the primary key:
-- an sno compares with a timestamptz as the smallest sno of its 4 ms unit.
ANALYZE events;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM events WHERE id >= now() - interval '1 minute';
SELECT count(*) FROM events WHERE id >= now() - interval '1 minute';
-- One day of last week, through the same index.
SELECT count(*) FROM events
WHERE id >= date_trunc('day', now()) - interval '7 days' AND id < date_trunc('day', now()) - interval '6 days';

-- Text form: 16 sortable characters; bad input is an error, not a wrong id.
SELECT '2222222222222222'::sno AS smallest, 'xxxxxxxxxxxxxxxx'::sno AS largest;
SELECT * FROM kid_generator_stats();

-- The other schemes: one generator and one decoder each.
SELECT tid_new() AS atproto_tid, koid_new() AS koid, uid_new() AS uid, uid_global_new() AS uid_global;
SELECT tid_info('3jzfcijpj2z2a');
SELECT * FROM koid_info(koid_new());

-- codokey: a short date key that counts down, so ascending order is newest first.
SELECT p AS "precision", codokey(timestamptz '2022-12-31 23:59:59.95+00', p) AS key
FROM generate_series(0, 6) p;
SELECT codokey_to_timestamp('yj00'), codokey_precision('yj00');
SQL

cluster_stop demo
echo
echo "== demo done; the throwaway server is stopped, and it and the copy of PostgreSQL are removed."
echo "   To install kid into your PostgreSQL: make && make install (README.md, On your own server)."
