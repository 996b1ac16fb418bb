#!/usr/bin/env bash
# Change data capture (runs alone or from run-all.sh; a server of its own with
# wal_level = logical): what a consumer receives for each kid type and for
# uuid from the decoders Debian ships (test/clients/python/test_cdc.py:
# pgoutput through psycopg2's logical replication connection, text and
# binary; test_decoding; wal2json where it is installed, as
# postgresql-15-wal2json and, in the PostgreSQL 17 chroot,
# postgresql-17-wal2json), and the commit horizon carried by the stream;
# then docs/cdc.md's examples (<!-- examples: cdc -->) on this server.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1
source test/server/lib/doc_run.sh || exit 1

CDC_P=54357
# PostgreSQL accepts as output plugins only the libraries of
# output_plugin_libraries (default: pgoutput, test_decoding).
wal2json=0
plugins="pgoutput, test_decoding"
if [ -f "$("$PG_CONFIG" --pkglibdir)/wal2json.so" ]; then
    wal2json=1
    plugins="$plugins, wal2json"
else
    note "wal2json: not installed for PostgreSQL $("$PG_CONFIG" --version | sed 's/^PostgreSQL //') (Debian packages it for 15 and 17; no package or vendored source for 18): not tested here"
fi
# (A minor release before the setting, such as 15.18, takes any plugin installed.)
plugin_setting="output_plugin_libraries = '$plugins'"
grep -q '^#output_plugin_libraries' "$("$PG_CONFIG" --sharedir)/postgresql.conf.sample" ||
    plugin_setting="# no output_plugin_libraries in PostgreSQL $("$PG_CONFIG" --version | sed 's/^PostgreSQL //'): every plugin is accepted"
need "a server with wal_level = logical, replication connections, $plugin_setting" eval '
    cluster_init cdc $CDC_P "wal_level = logical" "max_replication_slots = 10" "max_wal_senders = 10" \
        "$plugin_setting" &&
    echo "local replication all trust" >>"$KID_TMP/cdc/data/pg_hba.conf" && cluster_start cdc' || { kid_finish; exit; }
need "a database with kid" eval 'kpsql $CDC_P -d postgres -c "CREATE DATABASE cdc" && kpsql $CDC_P -d cdc -c "CREATE EXTENSION kid"'

PGHOST=$KID_TMP PGPORT=$CDC_P PGUSER=postgres PGDATABASE=cdc WAL2JSON=$wal2json \
    /usr/bin/python3 -B test/clients/python/test_cdc.py >"$KID_TMP/cdc.out" 2>&1
count_program_checks "CDC" "$KID_TMP/cdc.out" $?

DOC=docs/cdc.md
expect_eq "$DOC says its examples run here" "$(head -1 $DOC)" "<!-- examples: cdc -->"
exec 4>"$KID_TMP/doc.count"
doc_run "$DOC" "$KID_TMP" $CDC_P 3>&4
rc=$?
exec 4>&-
expect_eq "$DOC: its $(cat "$KID_TMP/doc.count") SQL examples run and print what it shows" "$rc" 0

cluster_stop cdc
kid_finish
