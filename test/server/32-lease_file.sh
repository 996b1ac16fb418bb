#!/usr/bin/env bash
# A damaged kid.lease (runs alone or from run-all.sh; its own cluster).
#
# kid.lease holds the floors of every generator; a server that started
# without them, its clock behind the old ids, would repeat ids.  So every
# state of the file kid cannot read and trust stops the server with a FATAL
# naming the file and what is wrong, and leaves the file as it was: cut
# short at every length, empty, garbage, a wrong checksum, trailing junk, an
# unknown version, a number out of range (with a right checksum), unreadable
# by the server's user, a directory in its place.  What kid writes is
# version 5 with a CRC-32C this script recomputes on its own; a version 3
# file (kid 0.1.0, no checksum) is read once and rewritten as
# version 5 (as is a version 4 file of kid 0.2.0); the documented recovery, a line "kid lease floor U" written by
# hand, starts every generator above U.  Only a missing file starts without
# floors.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

LF_P=54395
LF_DATA=$KID_TMP/lf/data
LF_FILE=$LF_DATA/kid.lease
cluster_init lf $LF_P || exit 1
cluster_start lf || exit 1
lfq() { kpsql $LF_P -d postgres "$@"; }
# One id of every generator kid_id_types lists, and sno's and uuidv7's
# horizons read: each lease line but sno's tick 1 then holds a mark.
lfq -c "CREATE EXTENSION kid" >/dev/null
lfq -c "SELECT 'SELECT ' || string_agg(g.fn || '()', ', ') || ';' FROM kid_id_types t, unnest(t.generators) AS g(fn)" \
    -c "SELECT 'SELECT ' || string_agg(t.safe_horizon || '()', ', ') || ';' FROM kid_id_types t" | lfq >/dev/null
# The lease lines as kid.lease names them: kid_lease()'s, "_" for each blank.
lf_lines=$(lfq -c "SELECT string_agg(replace(line, ' ', '_'), ' ' ORDER BY ord) FROM kid_lease() WITH ORDINALITY AS l(line, covered_until, startup_floor, ord)")
cluster_stop lf fast

# The CRC-32C (Castagnoli) of stdin, as eight lower-case hex digits.
crc32c() {
    python3 -c '
import sys
crc = 0xFFFFFFFF
for b in sys.stdin.buffer.read():
    crc ^= b
    for _ in range(8):
        crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
print("%08x" % (crc ^ 0xFFFFFFFF))'
}
# A version 5 line with the right checksum: "kid lease 5 <words>" + " <crc>".
with_crc() { printf '%s %s\n' "$1" "$(printf '%s' "$1" | crc32c)"; }
# The version and the names of the lines a version 5 file holds, in order.
lf_shape() { awk '{n = $3; for (i = 6; i < NF; i++) if ($i ~ /^[a-z_]/) n = n " " $i; print n}' "$@"; }
# A version 5 body with word K after line LINE's name set to V (1: own mark, 2: replayed, 3...: settings).
lf_set() { awk -v line="$1" -v k="$2" -v v="$3" '{for (i = 6; i <= NF; i++) if ($i == line) {$(i + k) = v; break} print}'; }
# The same marks in kid 0.1.0's version 3 layout: five own marks, five
# replayed, the two flags, koid's setting word and uid's four.
lf_v3() {
    awk '{for (i = 6; i <= NF; i++) if ($i ~ /^[a-z_]/) p[$i] = i
        split("sno_tick_0 sno_tick_1 atproto_tid koid uid", L, " "); o = ""; r = ""
        for (k = 1; k <= 5; k++) { o = o " " $(p[L[k]] + 1); r = r " " $(p[L[k]] + 2) }
        print "kid lease 3" o r " " $4 " " $5 " " $(p["koid"] + 3) " " $(p["uid"] + 3) " " $(p["uid"] + 4) " " $(p["uid"] + 5) " " $(p["uid"] + 6)}'
}

good=$(cat "$LF_FILE")
good_body=${good% *}
# Every line of it but sno's tick 1 (which only a clock step back uses) has
# an own mark, each scheme having made an id and sno's and uuidv7's
# horizons read: a line dropped or damaged below is one that held a floor.
expect_eq "every line of the file kid wrote but sno_tick_1 has an own mark" \
    "$(awk '{s = ""; for (i = 6; i < NF; i++) if ($i ~ /^[a-z_]/ && $(i + 1) + 0 == 0) s = s $i; print s}' <<<"$good_body")" sno_tick_1
expect_eq "kid writes version 5, one named line per lease line (kid_lease()'s), and a checksum" \
    "$(lf_shape "$LF_FILE")" "5 $lf_lines"
expect_eq "kid's checksum is the CRC-32C of the line before it" "$(with_crc "$good_body")" "$good"
cp -p "$LF_FILE" "$KID_TMP/lease.good"

# refuses LABEL PATTERN: the postmaster, started on the file as it is now,
# exits with a FATAL matching PATTERN, and leaves the file unchanged.
lf_try=0
refuses() {
    local label=$1 pattern=$2 out rc before
    lf_try=$((lf_try + 1))
    before=$(md5sum <"$LF_FILE" 2>/dev/null || echo none)
    out="$KID_TMP/try.$lf_try.log"
    # The postmaster in the background: it must exit at start-up; one that
    # gets as far as accepting connections failed the check and is stopped.
    as_postgres "$PG_BIN/postgres" -D "$LF_DATA" >"$out" 2>&1 &
    local pm=$! started=""
    # Polled every 10 ms (3,000 polls): each of the ~280 tries ends in a
    # few ms, and a 0.1 s poll made the waits most of the test's time.
    for _ in $(seq 3000); do
        kill -0 $pm 2>/dev/null || break
        if sed -n 8p "$LF_DATA/postmaster.pid" 2>/dev/null | grep -q "^ready"; then
            started=yes
            head -1 "$LF_DATA/postmaster.pid" >>"$KID_PIDS"
            as_postgres "$PG_BIN/pg_ctl" -D "$LF_DATA" -m fast -w stop >/dev/null 2>&1
            break
        fi
        sleep 0.01
    done
    wait $pm
    rc=$?
    if [ -z "$started" ] && [ $rc -ne 0 ] && grep -q "FATAL:  $pattern" "$out" &&
        [ "$(md5sum <"$LF_FILE" 2>/dev/null || echo none)" = "$before" ]; then
        return 0
    fi
    echo "  $label: exit $rc, started: ${started:-no}, file changed: $([ "$(md5sum <"$LF_FILE" 2>/dev/null || echo none)" = "$before" ] && echo no || echo yes)"
    sed 's/^/    /' "$out" | head -5
    return 1
}
put() { printf '%s' "$1" >"$LF_FILE"; }
damaged='kid: "kid.lease" in the data directory is damaged'

# Cut short at every length from 0 to one byte short of the whole file.
len=${#good}
len=$((len + 1)) # the newline
bad_cut=""
for n in $(seq 0 $((len - 1))); do
    head -c "$n" "$KID_TMP/lease.good" >"$LF_FILE"
    refuses "cut at $n" "$damaged" >/dev/null || bad_cut="$bad_cut $n"
done
expect_eq "cut short at each of its $len lengths (0 to $((len - 1)) bytes): FATAL, every time" "$bad_cut" ""

put ""
check "empty: FATAL (it is empty)" refuses empty "$damaged: it is empty"
put $'\n'
check "a lone newline: FATAL" refuses newline "$damaged: it does not start with \"kid lease\""
head -c 200 /dev/urandom | tr -d '\n' >"$LF_FILE"
echo >>"$LF_FILE"
check "garbage: FATAL" refuses garbage "$damaged"
put "${good:0:40}X${good:41}"$'\n'
check "one character changed: FATAL (checksum)" refuses flip "$damaged: its checksum does not match its contents"
# A mark lowered by one digit kept the old checksum: the dangerous case.
put "$(sed 's/ sno_tick_0 \([0-9]*\)[0-9] / sno_tick_0 \1 /' <<<"$good")"$'\n'
check "a mark lowered (a digit dropped), old checksum: FATAL (checksum)" \
    refuses lowered "$damaged: its checksum does not match its contents"
put "${good% *} 00000000"$'\n'
check "a wrong checksum: FATAL" refuses crc "$damaged: its checksum does not match its contents"
put "${good% *} xyz"$'\n'
check "a checksum that is not 8 hex digits: FATAL" refuses crc-form "$damaged: its checksum is missing"
put "$good_body"$'\n'
check "no checksum: FATAL" refuses no-crc "$damaged: its checksum is missing"
put "$good"$'\n'"junk"$'\n'
check "trailing junk after the line: FATAL" refuses trailing "$damaged: it has more than one line"
put "$good junk"$'\n'
check "trailing junk on the line: FATAL" refuses trailing-line "$damaged: its checksum is"
put "$(with_crc "$good_body 7")"$'\n'
check "an extra number, right checksum: FATAL" refuses extra "$damaged: it has more numbers than its format"
put "$(with_crc "${good_body% *}")"$'\n'
check "a number missing, right checksum: FATAL" refuses missing "$damaged: it has too few numbers"
put "$(with_crc "$(lf_set sno_tick_0 1 -5 <<<"$good_body")")"$'\n'
check "a negative mark, right checksum: FATAL" refuses negative "$damaged: a mark is negative or out of range"
put "$(with_crc "$(lf_set sno_tick_0 1 99999999999999999999 <<<"$good_body")")"$'\n'
check "a mark past int64, right checksum: FATAL" refuses huge "$damaged: a number is out of range"
put "$(with_crc "$(lf_set koid 2 4611686018427387905 <<<"$good_body")")"$'\n'
check "a replayed mark past 2^62, right checksum: FATAL" refuses above "$damaged: a mark is negative or out of range"
put "$(with_crc "$(awk '{$5 = 2; print}' <<<"$good_body")")"$'\n'
check "the exact flag 2, right checksum: FATAL" refuses flag "$damaged: a setting or flag is out of range"
put "$(with_crc "$(lf_set uid 3 99 <<<"$good_body")")"$'\n'
check "uid's setting kid.uid_interval 99, right checksum: FATAL (uid's check)" refuses interval "$damaged: the uid line's kid.uid_interval is out of range"
put "$(with_crc "$(lf_set koid 3 -1 <<<"$good_body")")"$'\n'
check "koid's setting kid.koid_epoch_ms -1, right checksum: FATAL (koid's check)" refuses epoch "$damaged: the koid line's kid.koid_epoch_ms is out of range"
# Lines are named: one this kid does not know (a later kid's) or one
# given twice is damage, never skipped; a file naming no line has no floors.
put "$(with_crc "$good_body uuidv9 1 0")"$'\n'
check "a line this kid does not know, right checksum: FATAL naming it" refuses unknown-line "$damaged: it holds a lease line this kid does not know (\"uuidv9\")"
put "$(with_crc "$good_body koid 1 0 0")"$'\n'
check "a line given twice, right checksum: FATAL" refuses twice "$damaged: it holds the lease line \"koid\" twice"
put "$(with_crc "kid lease 4 0 1")"$'\n'
check "no line at all, right checksum: FATAL" refuses no-line "$damaged: it holds no lease line"
put "$(with_crc "$(sed 's/ koid / Koid /' <<<"$good_body")")"$'\n'
check "a line name in capitals, right checksum: FATAL" refuses caps "$damaged: it has more numbers than its format"
put "$(with_crc "$(sed 's/^kid lease 5 /kid lease 5  /' <<<"$good_body")")"$'\n'
check "two blanks between numbers, right checksum: FATAL" refuses blanks "$damaged: a number is missing"
put "$(with_crc "$(sed 's/^kid lease 5 /kid lease 5 +/' <<<"$good_body")")"$'\n'
check "a number with a plus sign, right checksum: FATAL" refuses plus "$damaged: it holds something other than a number"
put "${good/kid lease 5/kid lease 6}"$'\n'
check "version 6: FATAL" refuses v6 'kid: "kid.lease" has format version 6; this kid reads versions 3 to 5 only'
put "${good/kid lease 5/kid lease 2}"$'\n'
check "version 2: FATAL" refuses v2 'kid: "kid.lease" has format version 2'
put "kid lease x"$'\n'
check "no version: FATAL" refuses noversion "$damaged: it has no format version"
put "$(with_crc "$(sed 's/^kid lease 5 /kid lease 5x /' <<<"$good_body")")"$'\n'
check "a version followed by a letter, right checksum: FATAL" refuses version-x "$damaged: it holds something other than a number"
# The WAL position's four words (state, timeline, position, label).
put "$(with_crc "$(awk '{$6 = 3; print}' <<<"$good_body")")"$'\n'
check "a WAL state of 3 (0 to 2 are written), right checksum: FATAL" refuses walstate "$damaged: a setting or flag is out of range"
put "$(with_crc "$(awk '{$8 = -1; print}' <<<"$good_body")")"$'\n'
check "a negative WAL position, right checksum: FATAL" refuses walneg "$damaged: a setting or flag is out of range"
put "$(with_crc "$(awk '{NF = 8; print}' <<<"$good_body")")"$'\n'
check "version 5 without its label nor lines, right checksum: FATAL" refuses walshort "$damaged: it has too few numbers"
head -c 2000 /dev/zero | tr '\0' 7 >"$LF_FILE"
check "2,000 bytes: FATAL (longer than any file kid writes)" refuses long "$damaged: it is longer than any file kid writes"
printf 'kid lease 4 1\0 2\n' >"$LF_FILE"
check "a zero byte: FATAL" refuses nul "$damaged: it holds a zero byte"
v3=$(lf_v3 <<<"$good_body")
put "${good/kid lease 5/kid lease 3}"$'\n'
check "version 5's words as version 3: FATAL" refuses v3named "$damaged: it holds something other than a number"
put "$v3 0"$'\n'
check "version 3 with a number too many: FATAL" refuses v3extra "$damaged: it has more numbers than its format"
put "$(sed 's/^kid lease 3 [0-9]* /kid lease 3 -1 /' <<<"$v3")"$'\n'
check "version 3, a negative mark: FATAL" refuses v3neg "$damaged: a mark is negative or out of range"
put "$(awk '{$17 = 99; print}' <<<"$v3")"$'\n'
check "version 3, kid.uid_interval 99: FATAL (uid's check)" refuses v3interval "$damaged: the uid line's kid.uid_interval is out of range"
put "$v3"
check "version 3 cut short (no newline): FATAL" refuses v3cut "$damaged: it does not end with a newline"
put "kid lease floor -3"$'\n'
check "a hand-written floor that is negative: FATAL" refuses floorneg "$damaged: the floor is not a positive"
put "kid lease floor 12 13"$'\n'
check "a hand-written floor with two numbers: FATAL" refuses floor2 "$damaged: it has more numbers than its format"

# Unreadable: the server runs as postgres (the tests as root).
cp -p "$KID_TMP/lease.good" "$LF_FILE"
chmod 000 "$LF_FILE"
check "unreadable by the server (chmod 000): FATAL naming the error" \
    refuses eacces 'kid: could not open "kid.lease" in the data directory: Permission denied'
chmod 600 "$LF_FILE"
rm -f "$LF_FILE"
as_postgres mkdir "$LF_FILE"
check "a directory in its place: FATAL naming the error" \
    refuses dir 'kid: could not read "kid.lease" in the data directory: Is a directory'
rmdir "$LF_FILE"

# The server never started: no pid left behind by any try.
expect_eq "no try left a postmaster running" "$(test -f "$LF_DATA/postmaster.pid" && echo running)" ""

# The recovery the FATAL's hint gives: a floor written by hand, above
# every mark the damaged file held.  Every line starts at it, and the
# file is rewritten as version 5.
floor=$(awk '{m = 0; for (i = 6; i < NF; i++) if ($i ~ /^[0-9]+$/ && $i + 0 > m) m = $i + 0; printf "%.0f", m + 60000000}' "$KID_TMP/lease.good")
put "kid lease floor $floor"$'\n'
chown postgres: "$LF_FILE"
cluster_start lf || exit 1
lf_count=$(wc -w <<<"$lf_lines")
expect_eq "recovery: a hand-written floor starts every line's generator at it" \
    "$(lfq -c "SELECT count(*) FILTER (WHERE (extract(epoch FROM startup_floor) * 1000000)::bigint = $floor) || '/' || count(*) FROM kid_lease()")" "$lf_count/$lf_count"
expect_eq "recovery: the file is rewritten as version 5 at once (logged)" \
    "$(lf_shape "$LF_FILE"), $(grep -c 'holds a floor written by hand' "$KID_TMP/lf/server.log")" "5 $lf_lines, 1"
expect_eq "recovery: the first ids of every scheme are above the floor" \
    "$(lfq -c "SELECT sno_to_timestamp(sno_new()) >= to_timestamp($floor / 1e6) AND tid_to_timestamp(tid_new()) >= to_timestamp($floor / 1e6)
        AND uid_to_timestamp(uid_new()) >= to_timestamp($floor / 1e6) AND uid_global_to_timestamp(uid_global_new(), current_setting('kid.uid_interval')::int) >= to_timestamp($floor / 1e6)")" t
cluster_stop lf fast

# A version 3 file (kid 0.1.0, no checksum): read once, rewritten as 5.
put "$v3"$'\n'
chown postgres: "$LF_FILE"
cluster_start lf || exit 1
expect_eq "version 3: read, rewritten as version 5 (logged)" \
    "$(lf_shape "$LF_FILE"), $(grep -c 'of format version 3; rewriting it as version 5' "$KID_TMP/lf/server.log")" "5 $lf_lines, 1"
# (The lines version 3 has not start at its highest own mark, uuid's; the
# commit horizons' lines, which hold no id, start empty.)
expect_eq "version 3: its marks are the startup floors" \
    "$(lfq -c "SELECT string_agg((extract(epoch FROM coalesce(startup_floor, 'epoch')) * 1000000)::bigint::text, ' ' ORDER BY ord) FROM kid_lease() WITH ORDINALITY AS l(line, covered_until, startup_floor, ord)")" \
    "$(awk -v names="$lf_lines" '{m = 0; for (i = 4; i <= 8; i++) if ($i + 0 > m) m = $i + 0; printf "%s %s %s %s %s", $4, $5, $6, $7, $8
        n = split(names, L, " "); for (k = 6; k <= n; k++) printf " %.0f", (L[k] ~ /_horizon$/ ? 0 : m)}' <<<"$v3")"
lf_now=$(cat "$LF_FILE")
expect_eq "version 3: rewritten with the same marks, flags and setting words, each on its line" \
    "$(lf_v3 <<<"${lf_now% *}")" "$v3"
cluster_stop lf fast

# A version 4 file (0.2.0 builds before the WAL position): the same words
# without the position's four; read, taken as it is (no refusal), rewritten
# as version 5, a primary's (state 1), with the same marks.
v4_body=$(awk '{o = $1 " " $2 " 4 " $4 " " $5; for (i = 10; i <= NF; i++) o = o " " $i; print o}' <<<"$good_body")
put "$(with_crc "$v4_body")"$'\n'
chown postgres: "$LF_FILE"
cluster_start lf || exit 1
lf_now=$(cat "$LF_FILE")
expect_eq "version 4: read, rewritten as version 5, a primary's (logged)" \
    "$(lf_shape "$LF_FILE") $(awk '{print $6}' "$LF_FILE"), $(grep -c 'of format version 4; rewriting it as version 5' "$KID_TMP/lf/server.log")" "5 $lf_lines 1, 1"
expect_eq "version 4: rewritten with the same marks and words, each on its line" \
    "$(awk '{o = $1 " " $2 " 4 " $4 " " $5; for (i = 10; i <= NF; i++) o = o " " $i; print o}' <<<"${lf_now% *}")" "$v4_body"
expect_eq "version 4: generation is not refused" "$(lfq -c "SELECT tid_new() IS NOT NULL")" t
cluster_stop lf fast

# A line this kid knows that the file lacks (a file written before kid
# had the line): the line starts at the file's highest own mark, logged.
lf_no_tid=$(sed 's/ atproto_tid [0-9]* [0-9]* / /' <<<"$good_body")
lf_top=$(awk '{m = 0; for (i = 6; i <= NF; i++) if ($(i - 1) ~ /^[a-z_]/ && $i + 0 > m) m = $i + 0; printf "%.0f", m}' <<<"$lf_no_tid")
put "$(with_crc "$lf_no_tid")"$'\n'
chown postgres: "$LF_FILE"
cluster_start lf || exit 1
expect_eq "a line missing from the file: it starts at the file's highest own mark (logged)" \
    "$(lfq -c "SELECT (extract(epoch FROM startup_floor) * 1000000)::bigint FROM kid_lease() WHERE line = 'atproto_tid'") $(grep -c 'has no line "atproto_tid"' "$KID_TMP/lf/server.log")" \
    "$lf_top 1"
expect_eq "a line missing from the file: the first tid is above that mark" \
    "$(lfq -c "SELECT tid_to_timestamp(tid_new()) > to_timestamp($lf_top / 1e6)")" t
cluster_stop lf fast
# The same where the other lines' highest mark is a replayed one (a
# standby's file), an hour above every own mark: the missing line starts at
# it too, and its first id (the floors after recovery) is above it.
lf_replayed=$((lf_top + 3600000000))
lf_ahead=$(awk -v r=$lf_replayed '{for (i = 6; i <= NF; i++) if ($(i - 1) ~ /^[a-z_]/) $(i + 1) = r; print}' <<<"$lf_no_tid")
put "$(with_crc "$lf_ahead")"$'\n'
chown postgres: "$LF_FILE"
cluster_start lf || exit 1
expect_eq "a line missing, the others' replayed marks an hour ahead: its first tid is above the highest replayed mark" \
    "$(lfq -c "SELECT tid_to_timestamp(tid_new()) > to_timestamp($lf_replayed / 1e6) AND clock_timestamp() < to_timestamp($lf_replayed / 1e6) - interval '50 minutes'")" t
cluster_stop lf fast

# The commit horizons' lines missing (a file of a kid without them), the
# tid line a day ahead: they start empty, not at another scheme's mark, so
# sno's and uuidv7's ids stay at the clock.
lf_day=$(( ($(date +%s) + 86400) * 1000000 ))
lf_no_hz=$(sed -e 's/ sno_horizon [0-9]* [0-9]* / /' -e 's/ uuid_horizon [0-9]* [0-9]*$//' <<<"$good_body" | lf_set atproto_tid 1 "$lf_day")
put "$(with_crc "$lf_no_hz")"$'\n'
chown postgres: "$LF_FILE"
lf_offset=$(log_size "$KID_TMP/lf/server.log")
cluster_start lf || exit 1
expect_eq "the horizons' lines missing: they start empty (logged), not at the tid line's mark a day ahead" \
    "$(lfq -c "SELECT string_agg(line || ' ' || coalesce(startup_floor::text, 'empty'), ', ' ORDER BY line) FROM kid_lease() WHERE line LIKE '% horizon'") $(tail -c +$((lf_offset + 1)) "$KID_TMP/lf/server.log" | grep -c 'has no line "[a-z]* horizon" (written before kid had it); the line starts empty')" \
    "sno horizon empty, uuid horizon empty 2"
expect_eq "... and the first sno and uuidv7 ids are at the clock, not a day ahead" \
    "$(lfq -c "SELECT sno_to_timestamp(sno_new()) < clock_timestamp() + interval '1 minute' AND uuidv7_to_timestamp(uuidv7_new()) < clock_timestamp() + interval '1 minute'")" t
cluster_stop lf fast

# A missing file is the one state that starts without floors.
rm -f "$LF_FILE"
cluster_start lf || exit 1
expect_eq "missing: the server starts, without floors" \
    "$(lfq -c "SELECT count(*) FILTER (WHERE startup_floor IS NULL) FROM kid_lease()")" "$lf_count"
cluster_stop lf fast

kid_finish
