#!/usr/bin/env bash
# pg_partman 5 on a uuid column with kid's functions as its time encoder
# and decoder (runs alone or from run-all.sh; uses the "main" cluster).
#
# pg_partman is Debian 13's postgresql-17-partman (5.2.4), which
# test/tools/pg17.sh installs into the PostgreSQL 17 chroot: this test
# checks it on PostgreSQL 17, and says on the other majors that there is
# nothing to check (Debian 12 has pg_partman 4.7, which has no time encoder,
# and PostgreSQL 18 is built here without it).  docs/partitioning.md says
# what it shows.
#
# Asserts: create_parent(p_time_encoder => 'public.uuidv7_from_timestamp',
# p_time_decoder => 'public.uuidv7_to_timestamp') makes daily partitions whose
# bounds are uuidv7_from_timestamp() of their days; every row lands in its
# day; id >= now() - interval '1 day' removes the older partitions;
# run_maintenance() premakes the days ahead and retires the days beyond its
# retention, which it can only because kid has uuidv7_to_timestamp(text)
# (without it: "function public.uuidv7_to_timestamp(text) does not exist";
# named without kid's schema, pg_partman in a schema of its own does not
# find it either); and pg_partman refuses kid's own id types as control
# columns.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ensure_main_cluster || exit 1
DB=kid_partman
main_db $DB || exit 1
q() { kpsql $PORT -d $DB "$@"; }
available=$(q -c "SELECT default_version FROM pg_available_extensions WHERE name = 'pg_partman'")
major=$(q -c "SELECT current_setting('server_version_num')::int / 10000")
if [ "$major" != 17 ] && [ -z "$available" ]; then
    KID_SKIP="pg_partman is not installed on PostgreSQL $major: it is checked on 17 (Debian 13's postgresql-17-partman in the chroot)"
    kpsql $PORT -d postgres -c "DROP DATABASE $DB" >/dev/null
    kid_finish
    exit 0
fi
need "pg_partman 5 is installed (postgresql-17-partman, test/tools/pg17.sh)" test "${available%%.*}" = 5 || { kid_finish; exit 1; }
echo "(pg_partman $available on PostgreSQL $major)"

q <<'SQL' >/dev/null
CREATE SCHEMA partman;
CREATE EXTENSION pg_partman SCHEMA partman;
CREATE TABLE public.orders (id uuid PRIMARY KEY DEFAULT uuidv7_new(), total integer) PARTITION BY RANGE (id);
SQL
# Daily partitions from 10 days ago, 3 days ahead of now.  The functions
# are named with kid's schema: pg_partman's show_partitions() runs with
# its own schema alone on the search_path.
check "create_parent() on a uuid column with kid's encoder and decoder" \
    q -c "SELECT partman.create_parent(p_parent_table => 'public.orders', p_control => 'id', p_interval => '1 day', p_premake => 3,
              p_start_partition => (current_date - 10)::text,
              p_time_encoder => 'public.uuidv7_from_timestamp', p_time_decoder => 'public.uuidv7_to_timestamp')"
# partitions: name, and whether its bounds are uuidv7_from_timestamp() of its day and the next.
partitions="SELECT string_agg(format('%s %s', c.relname,
        pg_get_expr(c.relpartbound, c.oid) = format('FOR VALUES FROM (%L) TO (%L)',
            uuidv7_from_timestamp(to_date(right(c.relname, 8), 'YYYYMMDD')::timestamptz),
            uuidv7_from_timestamp(to_date(right(c.relname, 8), 'YYYYMMDD')::timestamptz + interval '1 day'))), ' ' ORDER BY c.relname)
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'public.orders'::regclass AND c.relname <> 'orders_default'"
days() { # days FROM TO: the partitions expected, orders_pYYYYMMDD t for days FROM to TO after today
    q -c "SELECT string_agg(format('orders_p%s t', to_char(d, 'YYYYMMDD')), ' ' ORDER BY d) FROM generate_series(current_date + $1, current_date + $2, interval '1 day') d"
}
expect_eq "its partitions: every day from 10 days ago to 3 ahead, bounds uuidv7_from_timestamp() of the day" \
    "$(q -c "$partitions")" "$(days -10 3)"
# Rows: one an hour over those days (backfilled), and live ones.
q -c "INSERT INTO orders (id, total) SELECT uuidv7_new_with_time(current_date - 10 + h * interval '1 hour'), h FROM generate_series(0, 24 * 13 + 23) h" \
  -c "INSERT INTO orders (total) SELECT -n FROM generate_series(1, 5) n" >/dev/null
expect_eq "every row in the partition of its day, none in the default one" \
    "$(q -c "SELECT count(*) FILTER (WHERE tableoid::regclass::text <> 'orders_p' || to_char(uuidv7_to_timestamp(id), 'YYYYMMDD')), count(*) FROM orders")" \
    "0|341"
plan=$(q -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM orders WHERE id >= now() - interval '1 day'")
expect_eq "id >= now() - interval '1 day' removes the older partitions (10 of them)" \
    "$(grep -o 'Subplans Removed: [0-9]*' <<<"$plan")" "Subplans Removed: $(q -c "SELECT count(*) FROM generate_series(current_date - 10, now() - interval '2 days', interval '1 day')")"

# run_maintenance with a retention of 3 days and 5 days premade.
q -c "UPDATE partman.part_config SET retention = '3 days', retention_keep_table = false, premake = 5 WHERE parent_table = 'public.orders'" >/dev/null
# Without kid's uuidv7_to_timestamp(text), pg_partman's decoder call fails.
fails_without=$(q -v ON_ERROR_STOP=0 -c "BEGIN" -c "ALTER EXTENSION kid DROP FUNCTION uuidv7_to_timestamp(text)" \
    -c "DROP FUNCTION uuidv7_to_timestamp(text)" -c "SELECT partman.run_maintenance('public.orders')" -c "ROLLBACK" 2>&1 | grep -o 'function public.uuidv7_to_timestamp(text) does not exist' | head -1)
expect_eq "without uuidv7_to_timestamp(text), run_maintenance() fails (pg_partman calls the decoder with text)" \
    "$fails_without" "function public.uuidv7_to_timestamp(text) does not exist"
# Named without its schema, the decoder is not found where pg_partman has
# its own schema alone on the search_path.
unqualified=$(q -v ON_ERROR_STOP=0 -c "BEGIN" -c "UPDATE partman.part_config SET time_decoder = 'uuidv7_to_timestamp' WHERE parent_table = 'public.orders'" \
    -c "SELECT partman.run_maintenance('public.orders')" -c "ROLLBACK" 2>&1 | grep -o 'function uuidv7_to_timestamp(text) does not exist' | head -1)
expect_eq "with the decoder named without its schema, run_maintenance() does not find it" \
    "$unqualified" "function uuidv7_to_timestamp(text) does not exist"
check "with it, run_maintenance() succeeds" q -c "SELECT partman.run_maintenance('public.orders')"
# (pg_partman premakes from the newest partition holding rows: 3 days ahead.)
expect_eq "... it retired the days beyond the retention and premade 5 days after the newest rows" "$(q -c "$partitions")" "$(days -3 8)"
expect_eq "... and the rows of the days kept are all there" \
    "$(q -c "SELECT count(*) FROM orders")" \
    "$(q -c "SELECT count(*) + 5 FROM generate_series(current_date - 10, current_date + 3 + interval '23 hours', interval '1 hour') t WHERE t >= current_date - 3")"
check "run_maintenance_proc() too" q -c "CALL partman.run_maintenance_proc()"

# pg_partman refuses kid's own types as control columns.
q -c "CREATE TABLE public.events (id sno PRIMARY KEY) PARTITION BY RANGE (id)" >/dev/null
refused=$(q -v ON_ERROR_STOP=0 -c "SELECT partman.create_parent(p_parent_table => 'public.events', p_control => 'id', p_interval => '1 day')" 2>&1 | head -1)
echo "(pg_partman on sno: $refused)"
check "pg_partman refuses an sno control column" grep -q "^ERROR: " <<<"$refused"

kpsql $PORT -d postgres -c "DROP DATABASE $DB" >/dev/null
kid_finish
