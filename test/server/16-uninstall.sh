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

# The README's commands, as it prints them: the loop that lists the
# databases with kid, the copy of a table partitioned by a kid key, the
# query of the kid settings ALTER SYSTEM made.
un_readme() { perl -ne 'print "$1\n" while /`([^`]*\Q'"$1"'\E[^`]*)`/g' README.md | head -1; }
un_list=$(un_readme 'FROM pg_extension WHERE extname')
un_copy=$(un_readme 'CREATE TABLE audit_plain')
un_settings=$(un_readme "LIKE '%postgresql.auto.conf'")
need "README's Uninstalling has the list of databases, the copy of a partitioned table and the settings query" \
    test -n "$un_list" -a -n "$un_copy" -a -n "$un_settings"
unq -c "CREATE DATABASE un_other" -c "CREATE DATABASE un_plain" -c "ALTER SYSTEM SET kid.node_id = 7" -c "SELECT pg_reload_conf()" >/dev/null
kpsql $UN_P -d un_other -c "CREATE EXTENSION kid"
expect_eq "README: its loop lists the databases with kid" \
    "$(PGHOST=$KID_TMP PGPORT=$UN_P PGUSER=postgres PGDATABASE=postgres PATH="$PG_BIN:$PATH" bash -c "$un_list" 2>&1 | sort | tr '\n' ' ')" \
    "postgres un_other "
# A table partitioned by its sno key, with kid making its partitions.
unq -c "CREATE TABLE audit (id sno NOT NULL DEFAULT sno_new(), body text, PRIMARY KEY (id)) PARTITION BY RANGE (id)" \
    -c "SELECT count(*) FROM kid_partition_by_time('audit', '1 day', premake => 2)" \
    -c "INSERT INTO audit (body) SELECT 'a' || i FROM generate_series(1, 50) i" >/dev/null
expect_eq "a table partitioned by its sno key: its type cannot change in place (the README's message)" \
    "$(unq -c "ALTER TABLE audit ALTER id TYPE text USING id::text" 2>&1 | grep -c 'cannot alter column "id" because it is part of the partition key')" 1
un_audit=$(unq -c "SELECT count(*), min(id)::text, max(id)::text FROM audit")
check "README: the copy of the partitioned table into one with a text key, in one transaction" \
    unq -1 -c "$un_copy"
expect_eq "... the copy holds every row, as text, and kid no longer partitions it" \
    "$(unq -c "SELECT count(*), min(id), max(id), pg_typeof(min(id)) FROM audit" -c "SELECT count(*) FROM kid_partition_config")" \
    "$un_audit|text
0"
expect_eq "README: its query names the kid settings ALTER SYSTEM made" \
    "$(unq -c "$un_settings")" "kid.node_id"
unq -c "ALTER SYSTEM RESET kid.node_id" >/dev/null
expect_eq "... ALTER SYSTEM RESET takes them out of postgresql.auto.conf" \
    "$(grep -c '^kid\.' "$KID_TMP/un/data/postgresql.auto.conf")" 0
kpsql $UN_P -d un_other -c "DROP EXTENSION kid"
unq -c "DROP DATABASE un_other" -c "DROP DATABASE un_plain" >/dev/null

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
