#!/usr/bin/env bash
# Each scheme's own high-water mark, in its own terms (runs alone or from
# run-all.sh; its own cluster):
#   - a later session on the same sno partition does not repeat the
#     backfill ids (sno_new_with_time) of an earlier one;
#   - (on a fresh cluster) 15 million fast tid_new() calls do not push tids more than 1 ms ahead
#     of the clock (a committed row is below now() at once), count no clock
#     regression, and after a clean restart koid_new() works at once and
#     uid ids carry the clock's time: tid's volume no longer moves the
#     other schemes' marks;
#   - kid.koid_epoch_ms moved 4 s later after koids were made: koid_new()
#     refuses (55000, naming the setting and both values) until the clock
#     passes the old koids' raw milliseconds, then makes no duplicate;
#   - kid.uid_interval changed after uid_global ids were made:
#     uid_global_new() refuses (55000, naming the setting), uid_new() works.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

SM_P=54390
cluster_init sm $SM_P
cluster_start sm
smq() { kpsql $SM_P -d postgres "$@"; }
smq -c "CREATE EXTENSION kid" -c "
CREATE TABLE sm_backfill (id sno PRIMARY KEY, session int);
CREATE TABLE sm_koid (id koid PRIMARY KEY, round int);"

# 1. Backfill ids of two sessions on the same partition, for the same time and meta.
sm_backfill() { # session: the partition it got
    smq -c "INSERT INTO sm_backfill SELECT sno_new_with_time('2024-01-01 00:00:00+00', 7), $1 FROM generate_series(1, 1000) RETURNING sno_partition(id)" | sort -u
}
sm_part1=$(sm_backfill 1)
sm_second() {
    # New backends claim the slot at their PID modulo 256, or the next free
    # one: the slot session 1 freed comes back to a backend whose PID is
    # that slot modulo 256.  Each failed try says its backend's PID.  As
    # root, the next PID is set through /proc/sys/kernel/ns_last_pid: the
    # first try shows how many PIDs the shell and psql take before the
    # backend, the next ones aim at a PID of the right residue, and a
    # stray process of the machine only costs a retry.  Elsewhere, short
    # processes are started until the next backend's PID should be such a
    # one (PIDs advance by a fixed step per try when the machine is quiet).
    # The session that gets the slot makes ids for the same time and meta.
    local out pid prev= step=3 burn=0 set= offset=3 target pid_max
    pid_max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
    for _ in $(seq 300); do
        out=$(smq <<SQL 2>&1
SELECT sno_partition(sno_new_with_time('2024-01-01', 9)) = $sm_part1 AS same, pg_backend_pid() AS pid \gset
\if :same
INSERT INTO sm_backfill SELECT sno_new_with_time('2024-01-01 00:00:00+00', 7), 2 FROM generate_series(1, 1000);
SELECT 'second session done';
\else
SELECT :pid;
\endif
SQL
        ) || { echo "$out" | head -3; return 1; }
        [ "$out" = 'second session done' ] && return 0
        pid=$out
        [[ "$pid" =~ ^[0-9]+$ ]] || { echo "$out" | head -3; return 1; }
        if [ -w /proc/sys/kernel/ns_last_pid ]; then
            if [ -n "$set" ] && [ $((pid - set)) -ge 1 ] && [ $((pid - set)) -le 16 ]; then
                offset=$((pid - set))
            fi
            target=$((pid + 300))
            [ $((target + 600)) -lt "$pid_max" ] || target=1000
            target=$((target + ((sm_part1 - target) % 256 + 256) % 256))
            set=$((target - offset))
            echo "$set" > /proc/sys/kernel/ns_last_pid && continue
        fi
        # The step: the PIDs the last try took besides the ones burnt.
        if [ -n "$prev" ] && [ $((pid - prev - burn)) -ge 1 ] && [ $((pid - prev - burn)) -le 16 ]; then
            step=$((pid - prev - burn))
        fi
        burn=$(( ((sm_part1 - pid - step) % 256 + 512) % 256 ))
        for _ in $(seq "$burn"); do /bin/true; done
        prev=$pid
    done
    return 1
}
check "backfill: a later session on the first one's partition ($sm_part1) makes 1000 ids for the same time and meta" sm_second
expect_eq "backfill: zero overlap between the two sessions (distinct ids, one partition)" \
    "$(smq -c "SELECT count(DISTINCT id) || ' ' || count(DISTINCT sno_partition(id)) FROM sm_backfill")" "2000 1"

# 2. kid.koid_epoch_ms moved 4 s later after 5 s of koids.
sm_koids() { # round seconds
    smq -c "DO \$\$ BEGIN
        WHILE clock_timestamp() < statement_timestamp() + interval '$2 seconds' LOOP
            INSERT INTO sm_koid SELECT koid_new(), $1 FROM generate_series(1, 2000);
        END LOOP; END \$\$"
}
check "koid epoch: 5 s of koids under kid.koid_epoch_ms = 0" sm_koids 0 5
cluster_stop sm fast
echo "kid.koid_epoch_ms = 4000" >> "$KID_TMP/sm/data/postgresql.conf"
cluster_start sm
sm_out=$(smq -v VERBOSITY=verbose -c "SET kid.koid_max_clock_wait_ms = 0" -c "SELECT koid_new()" 2>&1)
echo "$sm_out" | sed 's/^/  /' | head -4
expect_eq "koid epoch moved 4 s later: koid_new() refuses with 55000 naming kid.koid_epoch_ms and both values" \
    "$(grep -c 'ERROR:  55000: cannot generate koid ids: kid.koid_epoch_ms moved from 0 to 4000' <<<"$sm_out")" 1
check "koid epoch moved 4 s later: koids again once the clock is past the old ones (waiting up to 8 s)" \
    smq -c "SET kid.koid_max_clock_wait_ms = 8000" -c "INSERT INTO sm_koid SELECT koid_new(), 1 FROM generate_series(1, 1000)"
check "koid epoch moved 4 s later: 2 s more of koids" sm_koids 1 2
expect_eq "koid epoch moved 4 s later: zero duplicates, and every new koid is above every old one" \
    "$(smq -c "SELECT count(*) = count(DISTINCT id) AND (SELECT min(id) FROM sm_koid WHERE round = 1) > (SELECT max(id) FROM sm_koid WHERE round = 0) FROM sm_koid")" t

# 3. kid.uid_interval changed from 8 to 5 after uid_global ids were made.
smq -c "SELECT count(uid_global_new()) FROM generate_series(1, 1000)" >/dev/null
cluster_stop sm fast
echo "kid.uid_interval = 5" >> "$KID_TMP/sm/data/postgresql.conf"
cluster_start sm
sm_out=$(smq -v VERBOSITY=verbose -c "SELECT uid_global_new()" 2>&1)
echo "$sm_out" | sed 's/^/  /' | head -2
expect_eq "uid interval 8 -> 5: uid_global_new() refuses with 55000 naming kid.uid_interval" \
    "$(grep -c 'ERROR:  55000: cannot generate uid_global ids until .*: kid.uid_interval changed from 8 to 5' <<<"$sm_out")" 1
expect_eq "uid interval 8 -> 5: uid_new() is not affected" "$(smq -c "SELECT uid_new() IS NOT NULL")" t
# 4. Volume: 15 million tids as fast as one backend can ask, on a fresh
#    cluster where no koid or uid was ever made (the issue's case: tid's
#    volume used to move koid's floor, and koid_new() failed with "the last
#    koid was made at ..." although no koid existed).
cluster_stop sm
SM_P=54391
cluster_init sm2 $SM_P
cluster_start sm2
smq -c "CREATE EXTENSION kid" -c "CREATE TABLE sm_tid (id atproto_tid PRIMARY KEY)"
sm_t0=$SECONDS
smq -c "SELECT count(tid_new()) FROM generate_series(1, 15000000)" >/dev/null
echo "  15,000,000 tid_new() calls: $((SECONDS - sm_t0)) s"
expect_eq "tid volume: the last tid is at most 1 ms ahead of clock_timestamp()" \
    "$(smq -c "SELECT tid_to_timestamp(tid_new()) <= clock_timestamp() + interval '1 ms'")" t
smq -c "INSERT INTO sm_tid SELECT tid_new() FROM generate_series(1, 300000)"
expect_eq "tid volume: every committed tid is below now() of the next statement" \
    "$(sleep 0.01; smq -c "SELECT count(*) FILTER (WHERE id < now()) || ' ' || count(*) FROM sm_tid")" "300000 300000"
smq -c "SELECT scheme, generated, regressions, overflow_waits, clock_waits, ahead_waits FROM kid_generator_stats()" | sed 's/^/  stats: /'
expect_eq "tid volume: no clock regression counted for 15 million calls on a healthy clock" \
    "$(smq -c "SELECT regressions FROM kid_generator_stats() WHERE scheme = 'atproto_tid'")" 0
cluster_stop sm2 fast
cluster_start sm2
expect_eq "tid volume, clean restart: koid_new() works at once (kid.koid_max_clock_wait_ms = 0), no koid was made before" \
    "$(smq -c "SET kid.koid_max_clock_wait_ms = 0" -c "SELECT koid_new() IS NOT NULL" 2>&1)" t
expect_eq "tid volume, clean restart: uid ids carry the clock's time (not ahead of clock_timestamp())" \
    "$(smq -c "SELECT uid_to_timestamp(uid_new()) <= clock_timestamp()")" t
expect_eq "tid volume, clean restart: only tid's lease line has a startup floor (koid and uid made nothing)" \
    "$(smq -c "SELECT string_agg(line || '=' || (startup_floor IS NOT NULL), ' ' ORDER BY line) FROM kid_lease() WHERE line IN ('atproto_tid', 'koid', 'uid')")" \
    "atproto_tid=true koid=false uid=false"

cluster_stop sm2

kid_finish
