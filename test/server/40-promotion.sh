#!/usr/bin/env bash
# Promotion of a streaming standby (runs alone or from run-all.sh).
#
# The primary runs under libfaketime.  A standby is made from a base backup
# while the primary's clock is true; then the primary's clock jumps 60 s
# ahead and it generates every scheme, extending its lease (file and WAL
# record) far past what the backup copied.  The standby, on the true clock:
#   - refuses generation (25006), decodes and queries the replicated ids;
#   - shows the replayed marks (kid_node_info, kid.lease), equal to the
#     primary's lease and to the last of kid's logical messages in the WAL
#     (pg_walinspect; pg_waldump lists them);
#   - with kid.standby_generation = on but the primary's node id, refuses
#     generation (55000): the guard against a shared node id.
# A second standby without kid in shared_preload_libraries replays kid's
# messages like any other logical message: it follows the primary to the
# end and decodes (test/server/44-replay_without_kid.sh does more of this).
# The primary stops (immediate) and the standby is promoted.  Its clock is a
# minute behind the old primary's ids, yet it repeats none of them:
#   tid, uid  continue above the replayed mark + the promotion margin, so every
#             new id sorts above every id of the old primary;
#   sno       its tick-0 timeline is floored above the replayed mark, so it
#             continues on the other timeline (tick 1): unique, and sorted by its
#             own clock (sno's clock-regression policy);
#   koid      refuses (55000) while its clock is behind the replayed mark.
# Then the promoted server crash-restarts and everything is checked again.
# A third standby is promoted and crashes before it generated: the margin,
# pending in its kid.lease, is still added when it first generates.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

PR_P=54360
PR_S=54361
cluster_init promo_p $PR_P "wal_level = replica"
faketime_cluster_start promo_p

ppq() { kpsql $PR_P -d postgres "$@"; }
spq() { kpsql $PR_S -d postgres "$@"; }

ppq -c "CREATE EXTENSION kid" -c "CREATE EXTENSION pg_walinspect" -c "
CREATE TABLE pr_sno (id sno PRIMARY KEY, round int);
CREATE TABLE pr_tid (id atproto_tid PRIMARY KEY, round int);
CREATE TABLE pr_koid (id koid PRIMARY KEY, round int);
CREATE TABLE pr_uid (id uid PRIMARY KEY, round int);"

pr_gen() { # port round schemes...
    local port=$1 round=$2
    shift 2
    for g in "$@"; do
        case $g in
        sno) kpsql "$port" -d postgres -c "INSERT INTO pr_sno SELECT sno_new(), $round FROM generate_series(1, 2000)" ;;
        tid) kpsql "$port" -d postgres -c "INSERT INTO pr_tid SELECT tid_new(), $round FROM generate_series(1, 2000)" ;;
        koid) kpsql "$port" -d postgres -c "INSERT INTO pr_koid SELECT koid_new(), $round FROM generate_series(1, 2000)" ;;
        uid) kpsql "$port" -d postgres -c "INSERT INTO pr_uid SELECT uid_new(), $round FROM generate_series(1, 2000)" ;;
        esac || return 1
    done
}

check "promotion: primary generates every scheme at the true time" pr_gen $PR_P 0 sno tid koid uid

standby_init promo_s $PR_P $PR_S
cluster_start promo_s
# A third standby, promoted and crashed before it generates anything.
standby_init promo_s2 $PR_P 54363
cluster_start promo_s2
# A second standby without kid preloaded.
standby_init promo_np $PR_P 54362 "shared_preload_libraries = ''"
cluster_start promo_np

# The primary's clock jumps a minute ahead: its lease runs far past the backup's.
pr_lsn0=$(ppq -c "SELECT pg_current_wal_lsn()")
faketime_set "$FT_FILE" +60
check "promotion: primary generates every scheme 60 s ahead" pr_gen $PR_P 1 sno tid koid uid
pr_lsn1=$(ppq -c "SELECT pg_current_wal_flush_lsn()")
check "promotion: standby replayed the primary's WAL" wait_replayed $PR_S "$pr_lsn1"
check "promotion: the third standby replayed the primary's WAL" wait_replayed 54363 "$pr_lsn1"
check "promotion: a standby without kid preloaded replays the primary's WAL, kid's messages too" wait_replayed 54362 "$pr_lsn1"
expect_eq "promotion: the standby without kid decodes the replicated ids" \
    "$(kpsql 54362 -d postgres -c "SELECT count(*) FROM pr_tid WHERE round = 1 AND tid_to_timestamp(id) > now() + interval '50 seconds'")" 2000
cluster_stop promo_np

# kid's messages: LogicalMessage records, prefix "kid", database 0, the
# lease payload: layout 2, its 24-byte header and 40 bytes per lease line
# (as many as kid_lease() lists); the record adds PostgreSQL's 24-byte
# header, a 5-byte data block header, the 24-byte message header and the
# 4-byte prefix.
pr_lines=$(ppq -c "SELECT count(*) FROM kid_lease()")
pr_payload=$((24 + 40 * pr_lines))
pr_msgs="FROM pg_get_wal_records_info('$pr_lsn0', '$pr_lsn1') WHERE resource_manager = 'LogicalMessage' AND description LIKE 'non-transactional, prefix \"kid\"; payload ($pr_payload bytes): 02 00 00 00 $(printf '%02x' "$pr_lines") 00 00 00 %'"
expect_eq "promotion: pg_walinspect shows kid's lease messages, $((57 + pr_payload)) bytes each ($pr_lines lines)" \
    "$(ppq -c "SELECT count(*) > 0, string_agg(DISTINCT record_type || ' ' || record_length, ',') $pr_msgs")" "t|MESSAGE $((57 + pr_payload))"
# The atproto_tid entry of the last message: its name, then its mark (int64, little-endian).
pr_last_tid_mark=$(ppq -c "WITH m AS (SELECT decode(replace(split_part(description, ': ', 2), ' ', ''), 'hex') AS b $pr_msgs ORDER BY start_lsn DESC LIMIT 1),
    e AS (SELECT substr(b, position('\\x617470726f746f5f74696400'::bytea in b) + 16, 8) AS mark FROM m)
    SELECT sum(get_byte(mark, i)::numeric * 256 ^ i)::bigint FROM e, generate_series(0, 7) i")
expect_eq "promotion: pg_waldump lists them (LogicalMessage, prefix \"kid\")" \
    "$(as_postgres "$PG_BIN/pg_waldump" -p "$KID_TMP/promo_p/data/pg_wal" -s "$pr_lsn0" -e "$pr_lsn1" 2>/dev/null | grep -c "^rmgr: LogicalMessage .*desc: MESSAGE non-transactional, prefix \"kid\"; payload ($pr_payload bytes)" | awk '{print ($1 > 0)}')" 1

# What the standby replayed equals what the primary wrote.
pr_marks="SELECT string_agg(scheme || '=' || (extract(epoch FROM %s) * 1000000)::bigint, ' ' ORDER BY scheme) FROM kid_node_info()"
pr_primary_marks=$(ppq -c "$(printf "$pr_marks" covered_until)")
expect_eq "promotion: the standby's replayed marks equal the primary's lease marks" \
    "$(spq -c "$(printf "$pr_marks" replayed_until)")" "$pr_primary_marks"
expect_eq "promotion: the standby names the primary's node id and counts the replayed records" \
    "$(spq -c "SELECT bool_and(replayed_node_id = 0 AND replayed_records > 0 AND generation LIKE 'in recovery%') FROM kid_node_info()")" t
pr_counters_us=$(ppq -c "SELECT (extract(epoch FROM covered_until) * 1000000)::bigint FROM kid_node_info() WHERE scheme = 'atproto_tid'")
expect_eq "promotion: the last of kid's messages holds the primary's atproto_tid mark" "$pr_last_tid_mark" "$pr_counters_us"
expect_eq "promotion: the standby's kid.lease holds the replayed atproto_tid mark" \
    "$(awk '{for (i = 6; i < NF; i++) if ($i == "atproto_tid") print $1, $2, $3, $(i + 2)}' "$KID_TMP/promo_s/data/kid.lease")" "kid lease 5 $pr_counters_us"

pr_refusals=0
for f in "sno_new()" "tid_new()" "koid_new()" "uid_new()"; do
    out=$(spq -v VERBOSITY=verbose -c "SELECT $f" 2>&1)
    grep -q 'ERROR:  25006' <<<"$out" && pr_refusals=$((pr_refusals + 1))
done
expect_eq "promotion: the standby refuses every generator with 25006" "$pr_refusals" 4
expect_eq "promotion: the standby decodes the replicated ids (made a minute ahead of its clock)" \
    "$(spq -c "SELECT count(*) FROM pr_tid WHERE round = 1 AND tid_to_timestamp(id) > now() + interval '50 seconds'")" 2000

# The guard: standby generation allowed, but under the primary's node id.
echo "kid.standby_generation = on" >> "$KID_TMP/promo_s/data/postgresql.conf"
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/promo_s/data" reload >/dev/null
for _ in $(seq 100); do [ "$(spq -c "SHOW kid.standby_generation")" = on ] && break; sleep 0.1; done
out=$(spq -v VERBOSITY=verbose -c "SELECT tid_new()" 2>&1)
expect_eq "promotion: a standby generating with the primary's node id is refused (55000)" \
    "$(grep -c 'ERROR:  55000: cannot generate atproto_tid ids on this standby: the primary generates with the same node identity' <<<"$out")" 1
sed -i '/^kid.standby_generation = on$/d' "$KID_TMP/promo_s/data/postgresql.conf"
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/promo_s/data" reload >/dev/null

# The primary dies; the standby takes over.
cluster_stop promo_p immediate
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/promo_s/data" -w -t 60 promote >/dev/null
expect_eq "promotion: the promoted server allows generation" \
    "$(spq -c "SELECT pg_is_in_recovery() || ' ' || string_agg(DISTINCT generation, ',') FROM kid_node_info()")" "false allowed"

pr_after() { # round: the checks after a round on the promoted server
    local round=$1 what=$2
    expect_eq "promotion: $what: tid and uid ids sort above every earlier id" \
        "$(spq -c "SELECT (SELECT min(id) FROM pr_tid WHERE round = $round) > (SELECT max(id) FROM pr_tid WHERE round < $round) AND (SELECT min(id) FROM pr_uid WHERE round = $round) > (SELECT max(id) FROM pr_uid WHERE round < $round)")" t
    out=$(spq -v VERBOSITY=verbose -c "SET kid.koid_max_clock_wait_ms = 200" -c "SELECT koid_new()" 2>&1)
    expect_eq "promotion: $what: koid refuses (55000) while the clock is behind the old primary's ids" \
        "$(grep -c 'ERROR:  55000' <<<"$out")" 1
    expect_eq "promotion: $what: zero duplicates (every insert went into a primary key; rows per scheme)" \
        "$(spq -c "SELECT (SELECT count(DISTINCT id) FROM pr_sno) || ' ' || (SELECT count(DISTINCT id) FROM pr_tid) || ' ' || (SELECT count(DISTINCT id) FROM pr_koid) || ' ' || (SELECT count(DISTINCT id) FROM pr_uid)")" \
        "$(( (round + 1) * 2000 )) $(( (round + 1) * 2000 )) 4000 $(( (round + 1) * 2000 ))"
}

check "promotion: the promoted server generates sno, tid and uid" pr_gen $PR_S 2 sno tid uid
expect_eq "promotion: the floors are the replayed marks plus the 10 s promotion margin" \
    "$(spq -c "SELECT bool_and(generator_floor - replayed_until = interval '10 seconds') FROM kid_node_info() WHERE scheme IN ('atproto_tid', 'sno')")" t
expect_eq "promotion: new sno ids are on the other timeline (tick 1), the old primary's on tick 0" \
    "$(spq -c "SELECT count(*) FILTER (WHERE sno_tick(id) = 1 AND round = 2) || ' ' || count(*) FILTER (WHERE sno_tick(id) = 0 AND round < 2) FROM pr_sno")" "2000 4000"
pr_after 2 "after promotion"

# The third standby is promoted too (as a server of its own: nothing is
# compared with the other one) and crashes before generating: the margin is
# still applied when it first generates.
as_postgres "$PG_BIN/pg_ctl" -D "$KID_TMP/promo_s2/data" -w -t 60 promote >/dev/null
cluster_stop promo_s2 immediate
cluster_start promo_s2
expect_eq "promotion: a promoted server that crashed before generating still adds the margin" \
    "$(kpsql 54363 -d postgres -c "SELECT tid_new() IS NOT NULL" -c "SELECT bool_and(generator_floor - replayed_until = interval '10 seconds') FROM kid_node_info() WHERE scheme IN ('atproto_tid', 'sno')")" "t
t"
cluster_stop promo_s2

# Crash restart of the promoted server: the floors come back from its kid.lease.
cluster_stop promo_s immediate
cluster_start promo_s
check "promotion: after a crash restart the promoted server generates sno, tid and uid" pr_gen $PR_S 3 sno tid uid
pr_after 3 "after a crash restart"
cluster_stop promo_s

kid_finish
