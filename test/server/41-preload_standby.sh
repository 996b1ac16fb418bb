#!/usr/bin/env bash
# Generation needs preloading and a primary (runs alone or from run-all.sh).
#
# 1. A server without kid in shared_preload_libraries: types, casts and
#    decoders work; sno_new() fails with SQLSTATE 55000 and a hint that says
#    what to add to postgresql.conf.
# 2. A streaming standby of the "main" cluster: decoding and queries work;
#    sno_new() fails with SQLSTATE 25006.
# 3. A streaming standby of "main" without kid preloaded replays kid's
#    lease messages with the rest of the WAL and decodes; sno_new() fails
#    with 55000 (not preloaded), as on any server without preloading.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

cluster_init nopreload 54340
sed -i "s/^shared_preload_libraries = 'kid'/shared_preload_libraries = 'pg_stat_statements'/" "$KID_TMP/nopreload/data/postgresql.conf"
cluster_start nopreload
kpsql 54340 -d postgres -c "CREATE EXTENSION kid" >/dev/null
expect_eq "not preloaded: types and decoders work" \
    "$(kpsql 54340 -d postgres -c "SELECT sno_to_timestamp(sno_from_timestamp('2026-01-01 00:00:00+00')) = '2026-01-01 00:00:00+00'")" t
out=$(kpsql 54340 -d postgres -v VERBOSITY=verbose -c "SELECT sno_new()" 2>&1)
expect_eq "not preloaded: sno_new() fails with 55000" "$(grep -c 'ERROR:  55000' <<<"$out")" 1
# The hint shows the server's own list with kid appended: a list of kid
# alone would unload the libraries the server had (the README's warning).
# Only to those who may read the setting (GUC_SUPERUSER_ONLY): anyone else
# gets an example.
expect_eq "not preloaded: the hint gives the server's own list with kid appended" \
    "$(grep "HINT:" <<<"$out")" \
    "HINT:  Set shared_preload_libraries = 'pg_stat_statements, kid' in postgresql.conf (it is 'pg_stat_statements' now: keep the libraries already there) and restart the server."
kpsql 54340 -d postgres -c "CREATE ROLE np_user LOGIN; CREATE ROLE np_reader LOGIN IN ROLE pg_read_all_settings" >/dev/null
expect_eq "not preloaded: a role that may not read shared_preload_libraries gets an example, not the list" \
    "$(kpsql 54340 -d postgres -U np_user -c "SELECT sno_new()" 2>&1 | grep "HINT:")" \
    "HINT:  Append kid to the list in shared_preload_libraries in postgresql.conf, keeping the libraries already there (e.g. shared_preload_libraries = 'pg_stat_statements,kid'), and restart the server."
expect_eq "not preloaded: a member of pg_read_all_settings gets the list" \
    "$(kpsql 54340 -d postgres -U np_reader -c "SELECT sno_new()" 2>&1 | grep -c "HINT:  Set shared_preload_libraries = 'pg_stat_statements, kid'")" 1
expect_eq "not preloaded: kid_node_info says why generation is refused" \
    "$(kpsql 54340 -d postgres -c "SELECT string_agg(DISTINCT generation, ',') || ' ' || bool_and(node_id IS NULL AND system_identifier IS NOT NULL) FROM kid_node_info()")" \
    "kid is not in shared_preload_libraries true"
cluster_stop nopreload

# A standby of "main": a base backup with a recovery configuration; its
# socket goes into this script's directory.
ensure_main_cluster || exit 1
main_db kid_standby || exit 1
standby_init standby $PORT 54341
cluster_start standby
standby_init standby_np $PORT 54342 "shared_preload_libraries = ''"
cluster_start standby_np
kpsql $PORT -d kid_standby -c "CREATE TABLE standby_check AS SELECT sno_new() AS id FROM generate_series(1, 100)"
need "standby: replayed the table" wait_replayed 54341 "$(kpsql $PORT -d postgres -c "SELECT pg_current_wal_lsn()")"
expect_eq "standby: is in recovery" "$(kpsql 54341 -d kid_standby -c 'SELECT pg_is_in_recovery()')" t
expect_eq "standby: decodes and queries replicated ids" \
    "$(kpsql 54341 -d kid_standby -c "SELECT count(*) FROM standby_check WHERE id >= now() - interval '1 hour' AND sno_to_timestamp(id) <= now()")" 100
out=$(kpsql 54341 -d kid_standby -v VERBOSITY=verbose -c "SELECT sno_new()" 2>&1)
expect_eq "standby: kid_node_info says generation is refused in recovery" \
    "$(kpsql 54341 -d kid_standby -c "SELECT string_agg(DISTINCT generation, ',') FROM kid_node_info()")" \
    "in recovery (a standby), and kid.standby_generation is off"
expect_eq "standby: sno_new() is refused with 25006" "$(grep -c 'ERROR:  25006: cannot generate sno ids during recovery' <<<"$out")" 1
cluster_stop standby

# Without kid preloaded: the same WAL, kid's messages included.
check "standby without kid preloaded: replayed the WAL that made the table" \
    wait_replayed 54342 "$(kpsql $PORT -d postgres -c "SELECT pg_current_wal_lsn()")"
expect_eq "standby without kid preloaded: decodes and queries replicated ids" \
    "$(kpsql 54342 -d kid_standby -c "SELECT count(*) FROM standby_check WHERE id >= now() - interval '1 hour' AND sno_to_timestamp(id) <= now()")" 100
out=$(kpsql 54342 -d kid_standby -v VERBOSITY=verbose -c "SELECT sno_new()" 2>&1)
expect_eq "standby without kid preloaded: sno_new() is refused with 55000 (not preloaded)" "$(grep -c 'ERROR:  55000' <<<"$out")" 1
cluster_stop standby_np
kpsql $PORT -d postgres -c "DROP DATABASE kid_standby"

kid_finish
