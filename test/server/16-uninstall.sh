#!/usr/bin/env bash
# Uninstalling kid as README.md's "Uninstalling" says (runs alone or from
# run-all.sh; a server of its own).
#   1. After a clean stop: DROP EXTENSION kid refuses while a column or a
#      default uses kid, and names it; once they are converted it drops
#      kid; with kid out of shared_preload_libraries the server restarts and
#      reads the converted ids.
#   2. After an unclean stop: kid's lease messages in the WAL to replay are
#      core logical messages, so the server without kid runs crash recovery
#      through them and starts, and reads the ids.  (WAL of kid 0.1.0, whose
#      records need kid's resource manager: test/server/45-lease_wal_legacy.sh.)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

UN_P=54354
need "a server with kid preloaded" eval 'cluster_init un $UN_P && cluster_start un' || { kid_finish; exit; }
unq() { kpsql $UN_P -d postgres "$@"; }
un_log=$KID_TMP/un/server.log
# un_preload LIST: shared_preload_libraries for the next start (the last line wins).
un_preload() { echo "shared_preload_libraries = '$1'" >>"$KID_TMP/un/data/postgresql.conf"; }

unq -c "CREATE EXTENSION kid" \
    -c "CREATE TABLE events (id sno PRIMARY KEY DEFAULT sno_new(), body text)" \
    -c "CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT uuidv7_new(), total int)" \
    -c "INSERT INTO events (body) SELECT 'e' || i FROM generate_series(1, 100) i" \
    -c "INSERT INTO orders (total) SELECT i FROM generate_series(1, 100) i"

# 1. The clean path.
un_refused=$(unq -c "DROP EXTENSION kid" 2>&1)
expect_eq "DROP EXTENSION kid refuses while columns and defaults use kid, naming them (2BP01)" \
    "$(grep -c -e '^ERROR:  cannot drop extension kid because other objects depend on it' <<<"$un_refused"), $(grep -c -e 'column id of table events depends on type sno' -e 'default value for column id of table orders depends on function uuidv7_new()' <<<"$un_refused")" \
    "1, 2"
un_first=$(unq -c "SELECT min(id)::text FROM events")
check "the README's conversion (sno to text, uuid default to gen_random_uuid()), then DROP EXTENSION kid" \
    unq -c "ALTER TABLE events ALTER id DROP DEFAULT, ALTER id TYPE text USING id::text" \
        -c "ALTER TABLE orders ALTER id SET DEFAULT gen_random_uuid()" \
        -c "DROP EXTENSION kid"
cluster_stop un
un_preload ""
need "the server restarts without kid in shared_preload_libraries" cluster_start un
expect_eq "without kid: the converted ids read as they were, and a uuid row goes in" \
    "$(unq -c "SELECT count(*), min(id) FROM events" -c "INSERT INTO orders (total) VALUES (0) RETURNING total" | tr '\n' ' ')" \
    "100|$un_first 0 "

# 2. An unclean stop with kid's records in the WAL to replay.
cluster_stop un
un_preload kid
need "the server restarts with kid preloaded" cluster_start un
unq -c "CREATE EXTENSION kid" -c "CREATE TABLE later (id sno PRIMARY KEY DEFAULT sno_new())" \
    -c "INSERT INTO later SELECT FROM generate_series(1, 10)" >/dev/null
cluster_stop un immediate
un_preload ""
offset=$(log_size "$un_log")
check "after an unclean stop, the server starts without kid" cluster_start un
expect_eq "... it ran crash recovery through kid's lease messages" \
    "$(tail -c +$((offset + 1)) "$un_log" | grep -c 'database system was not properly shut down; automatic recovery in progress')" 1
expect_eq "... and reads and decodes kid's ids (the types need no preload)" \
    "$(unq -c "SELECT count(*), count(DISTINCT sno_to_timestamp(id) > now() - interval '1 hour') FROM later" 2>&1)" "10|1"
unq -c "DROP TABLE later" -c "DROP EXTENSION kid"
cluster_stop un
kid_finish
