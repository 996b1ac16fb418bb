// kid from Go's pgx v4, the way a Go application uses it: ids from DEFAULT
// and RETURNING, a lookup by an id given as a string, a time range with
// time.Time, a list of ids, text and binary COPY (pgx's CopyFrom is binary),
// the error a bad id gives, and koid as an int64.
//
// Built offline in GOPATH mode against Debian's golang-github-jackc-pgx-v4-dev
// by test/server/63-client_pgx.sh, and run on a database where CREATE EXTENSION
// kid was run, named by libpq's environment variables (PGHOST, PGPORT,
// PGUSER, PGDATABASE), which pgx reads.  Each check prints "ok: NAME" or
// "FAILED: NAME: why", the last line is "end: ..."; the exit status is 1 if
// any check failed.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgtype"
	"github.com/jackc/pgx/v4"
)

var passed, failed int

func ok(name string) {
	passed++
	fmt.Println("ok: " + name)
}

func fail(name, why string) {
	failed++
	fmt.Println("FAILED: " + name + ": " + strings.ReplaceAll(why, "\n", " "))
}

func expectEq(name string, actual, expected interface{}) {
	if reflect.DeepEqual(actual, expected) {
		ok(name)
	} else {
		fail(name, fmt.Sprintf("got %#v, expected %#v", actual, expected))
	}
}

func expectMatch(name, actual, pattern string) {
	if regexp.MustCompile("^(?:" + pattern + ")$").MatchString(actual) {
		ok(name)
	} else {
		fail(name, fmt.Sprintf("got %q, expected to match %s", actual, pattern))
	}
}

// expectNoError fails the check when err is set and says whether it passed.
func expectNoError(name string, err error) bool {
	if err != nil {
		fail(name, err.Error())
		return false
	}
	return true
}

// expectPgError: err is the server's error with this SQLSTATE, a message
// matching the pattern and, when hint is not empty, a HINT containing it.
func expectPgError(name string, err error, code, pattern, hint string) {
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		fail(name, "no error, expected SQLSTATE "+code)
	case !errors.As(err, &pgErr):
		fail(name, fmt.Sprintf("error %T %v, expected a *pgconn.PgError", err, err))
	case pgErr.Code != code:
		fail(name, fmt.Sprintf("SQLSTATE %s (%s), expected %s", pgErr.Code, pgErr.Message, code))
	case !regexp.MustCompile("^(?:" + pattern + ")$").MatchString(pgErr.Message):
		fail(name, fmt.Sprintf("message %q, expected to match %s", pgErr.Message, pattern))
	case hint != "" && !strings.Contains(pgErr.Hint, hint):
		fail(name, fmt.Sprintf("hint %q, expected one containing %q", pgErr.Hint, hint))
	default:
		ok(name)
	}
}

var ctx = context.Background()

// column: the first column of every row, as strings.
func column(conn *pgx.Conn, sql string, args ...interface{}) ([]string, error) {
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func one(conn *pgx.Conn, sql string, args ...interface{}) string {
	var s string
	if err := conn.QueryRow(ctx, sql, args...).Scan(&s); err != nil {
		fmt.Println("query failed: " + sql + ": " + err.Error())
		os.Exit(1)
	}
	return s
}

func must(conn *pgx.Conn, sql string, args ...interface{}) {
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		fmt.Println("statement failed: " + sql + ": " + err.Error())
		os.Exit(1)
	}
}

const snoText = "[23456789a-x]{16}"

var t10 = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

func main() {
	conn, err := pgx.Connect(ctx, "")
	if err != nil {
		fmt.Println("connect: " + err.Error())
		os.Exit(1)
	}
	defer conn.Close(ctx)
	run(conn)
	fmt.Printf("end: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

func run(conn *pgx.Conn) {
	must(conn, "CREATE TABLE event (id sno PRIMARY KEY DEFAULT sno_new(), body text)")
	must(conn, "CREATE TABLE event_copy (id sno PRIMARY KEY, body text)")
	must(conn, "CREATE TABLE event_binary (id sno PRIMARY KEY, body text)")
	must(conn, "CREATE TABLE post (id atproto_tid PRIMARY KEY DEFAULT tid_new(), body text)")
	must(conn, "CREATE TABLE account (id koid PRIMARY KEY DEFAULT koid_new(), name text)")

	// 1. INSERT with DEFAULT ... RETURNING id.  pgx knows no kid type, so it
	// asks for them in text format: a string gets the id's text.
	var id string
	if expectNoError("RETURNING id into a string",
		conn.QueryRow(ctx, "INSERT INTO event (id, body) VALUES (DEFAULT, $1) RETURNING id", "first").Scan(&id)) {
		expectMatch("RETURNING id into a string", id, snoText)
	}
	expectEq("RETURNING id: the server has that id", one(conn, "SELECT id::text FROM event WHERE body = 'first'"), id)
	var asBytes []byte
	if expectNoError("an id scanned into []byte is its text",
		conn.QueryRow(ctx, "SELECT id FROM event WHERE body = 'first'").Scan(&asBytes)) {
		expectEq("an id scanned into []byte is its text", string(asBytes), id)
	}
	var raw []byte
	if expectNoError("an id in binary result format is its 10 raw bytes (= id::bytea)",
		conn.QueryRow(ctx, "SELECT id FROM event WHERE body = 'first'",
			pgx.QueryResultFormats{pgx.BinaryFormatCode}).Scan(&raw)) {
		expectEq("an id in binary result format is its 10 raw bytes (= id::bytea)",
			hex.EncodeToString(raw), one(conn, "SELECT encode(id::bytea, 'hex') FROM event WHERE body = 'first'"))
	}
	var tid string
	if expectNoError("RETURNING id of atproto_tid",
		conn.QueryRow(ctx, "INSERT INTO post (body) VALUES ('hello') RETURNING id").Scan(&tid)) {
		expectMatch("RETURNING id of atproto_tid", tid, "[2-7a-j][2-7a-z]{12}")
	}

	// 2. Look up by an id given as a string: the parameter's type is the
	// column's, and pgx sends a string as text.
	got, err := column(conn, "SELECT body FROM event WHERE id = $1", id)
	if expectNoError("string id: WHERE id = $1", err) {
		expectEq("string id: WHERE id = $1", got, []string{"first"})
	}
	fresh := one(conn, "SELECT sno_new()::text")
	if _, err := conn.Exec(ctx, "INSERT INTO event (id, body) VALUES ($1, $2)", fresh, "given"); expectNoError("string id: INSERT VALUES ($1, $2)", err) {
		expectEq("string id: INSERT VALUES ($1, $2)", one(conn, "SELECT body FROM event WHERE id = $1", fresh), "given")
	}

	// 3. A time range with time.Time.  Rows placed at known times
	// (backfill: sno_new_with_time, whose parameter is a timestamptz).
	for h := 0; h < 4; h++ {
		must(conn, "INSERT INTO event (id, body) VALUES (sno_new_with_time($1), $2)", t10.Add(time.Duration(h)*time.Hour), fmt.Sprintf("at %d", 10+h))
	}
	rangeSQL := "SELECT body FROM event WHERE id >= $1::timestamptz AND id < $2::timestamptz ORDER BY id"
	got, err = column(conn, rangeSQL, t10.Add(30*time.Minute), t10.Add(150*time.Minute))
	if expectNoError("time.Time range with $1::timestamptz", err) {
		expectEq("time.Time range with $1::timestamptz", got, []string{"at 11", "at 12"})
	}
	got, err = column(conn, rangeSQL, t10.Add(time.Hour).In(time.FixedZone("UTC+2", 7200)), t10.Add(2*time.Hour))
	if expectNoError("time.Time range with $1::timestamptz, half-open, another zone", err) {
		expectEq("time.Time range with $1::timestamptz, half-open, another zone", got, []string{"at 11"})
	}
	_, err = column(conn, "SELECT body FROM event WHERE id >= $1 AND id < $2", t10, t10.Add(time.Hour))
	expectPgError("time.Time range without a cast: 22P02 with a HINT", err, "22P02",
		`invalid input syntax for type sno: "2026-11-01 1[01]:00:00Z"`, "::timestamptz")
	var at time.Time
	if expectNoError("id::timestamptz into time.Time",
		conn.QueryRow(ctx, "SELECT id::timestamptz FROM event WHERE body = 'at 11'").Scan(&at)) {
		expectEq("id::timestamptz into time.Time", at.UTC(), t10.Add(time.Hour))
	}

	// A uuid column: kid's operators on PostgreSQL's uuid, the time range
	// with time.Time and $1::timestamptz; the id read as its text.
	must(conn, "CREATE TABLE uuid_timed (id uuid PRIMARY KEY DEFAULT uuidv7_new(), body text)")
	for h := 0; h < 4; h++ {
		must(conn, "INSERT INTO uuid_timed (id, body) VALUES (uuidv7_new_with_time($1), $2)", t10.Add(time.Duration(h)*time.Hour), fmt.Sprintf("at %d", 10+h))
	}
	got, err = column(conn, "SELECT body FROM uuid_timed WHERE id >= $1::timestamptz AND id < $2::timestamptz ORDER BY id", t10.Add(30*time.Minute), t10.Add(150*time.Minute))
	if expectNoError("uuid: time.Time range with $1::timestamptz", err) {
		expectEq("uuid: time.Time range with $1::timestamptz", got, []string{"at 11", "at 12"})
	}
	uuidText := one(conn, "INSERT INTO uuid_timed (body) VALUES ('now') RETURNING id::text")
	expectMatch("uuid: uuidv7_new() is a version 7 uuid", uuidText, "^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
	expectEq("uuid: WHERE id = $1 with its text", one(conn, "SELECT body FROM uuid_timed WHERE id = $1", uuidText), "now")
	if expectNoError("uuid: uuidv7_to_timestamp(id) into time.Time",
		conn.QueryRow(ctx, "SELECT uuidv7_to_timestamp(id) FROM uuid_timed WHERE body = 'at 11'").Scan(&at)) {
		expectEq("uuid: uuidv7_to_timestamp(id) into time.Time", at.UTC(), t10.Add(time.Hour))
	}

	// The same for koid and atproto_tid, backfilled with their own
	// *_new_with_time.
	for _, t := range [][3]string{{"account", "name", "koid_new_with_time"}, {"post", "body", "tid_new_with_time"}} {
		for h := 0; h < 3; h++ {
			must(conn, "INSERT INTO "+t[0]+" (id, "+t[1]+") VALUES ("+t[2]+"($1), $2)", t10.Add(time.Duration(h)*time.Hour), fmt.Sprintf("at %d", 10+h))
		}
		name := t[0] + ": time.Time range with $1::timestamptz"
		got, err = column(conn, "SELECT "+t[1]+" FROM "+t[0]+" WHERE id >= $1::timestamptz AND id < $2::timestamptz ORDER BY id",
			t10.Add(time.Hour), t10.Add(3*time.Hour))
		if expectNoError(name, err) {
			expectEq(name, got, []string{"at 11", "at 12"})
		}
	}

	// 4. A list of ids.
	ids := []string{id, one(conn, "SELECT id::text FROM event WHERE body = 'at 12'")}
	for _, form := range []string{"$1", "$1::sno[]", "$1::text[]"} {
		name := "[]string with = ANY(" + form + ")"
		got, err = column(conn, "SELECT body FROM event WHERE id = ANY("+form+") ORDER BY body DESC", ids)
		if expectNoError(name, err) {
			expectEq(name, got, []string{"first", "at 12"})
		}
	}
	// pgx cannot scan an array of a type it does not know: cast to text[].
	var idList []string
	err = conn.QueryRow(ctx, "SELECT array_agg(id ORDER BY body DESC) FROM event WHERE body IN ('first', 'at 12')").Scan(&idList)
	if err != nil && strings.Contains(err.Error(), "cannot be scanned into *[]string") {
		ok("an sno[] result cannot be scanned into []string")
	} else {
		fail("an sno[] result cannot be scanned into []string", fmt.Sprintf("got %v, %v", idList, err))
	}
	if expectNoError("an sno[] result cast to text[] into []string",
		conn.QueryRow(ctx, "SELECT array_agg(id ORDER BY body DESC)::text[] FROM event WHERE body IN ('first', 'at 12')").Scan(&idList)) {
		expectEq("an sno[] result cast to text[] into []string", idList, ids)
	}

	// 5. COPY.  Text COPY through the connection's PgConn; pgx's CopyFrom
	// writes binary COPY, where an id is its raw bytes.
	copyText(conn, id)
	copyBinary(conn)

	// 6. A bad id: the application sees 22P02 and the type and value.
	_, err = column(conn, "SELECT body FROM event WHERE id = $1", "not-an-id")
	expectPgError("bad id: 22P02 naming the type and the value", err, "22P02", `invalid input syntax for type sno: "not-an-id"`, "")
	_, err = conn.Exec(ctx, "INSERT INTO event (id, body) VALUES ($1, 'bad')", "not-an-id")
	expectPgError("bad id in INSERT: 22P02", err, "22P02", `invalid input syntax for type sno: "not-an-id"`, "")

	// 7. koid as an int64 and as a string.
	var koidText string
	var koidInt int64
	if !expectNoError("koid: RETURNING id, id::bigint",
		conn.QueryRow(ctx, "INSERT INTO account (name) VALUES ('ann') RETURNING id, id::bigint").Scan(&koidText, &koidInt)) {
		return
	}
	expectEq("koid: text is the int64 in 16 hex digits", koidText, fmt.Sprintf("%016x", uint64(koidInt)))
	got, err = column(conn, "SELECT name FROM account WHERE id = $1::bigint::koid", koidInt)
	if expectNoError("koid: int64 with WHERE id = $1::bigint::koid", err) {
		expectEq("koid: int64 with WHERE id = $1::bigint::koid", got, []string{"ann"})
	}
	// Without a cast the parameter is a koid, and pgx writes an int64 for a
	// type it does not know in decimal text, which is not a koid's text.
	_, err = column(conn, "SELECT name FROM account WHERE id = $1", koidInt)
	expectPgError("koid: int64 with WHERE id = $1 is read as koid text: 22P02", err, "22P02",
		fmt.Sprintf(`invalid input syntax for type koid: "%d"`, koidInt), "")
	// Worse, an int64 of exactly 16 decimal digits is a valid koid text,
	// read as hexadecimal: another id, silently.  Hence $1::bigint.
	var misread string
	if expectNoError("koid: a 16-digit int64 as $1::koid is read as hexadecimal",
		conn.QueryRow(ctx, "SELECT $1::koid::bigint::text", int64(1234567890123456)).Scan(&misread)) {
		expectEq("koid: a 16-digit int64 as $1::koid is read as hexadecimal", misread, fmt.Sprint(0x1234567890123456))
	}
	got, err = column(conn, "SELECT name FROM account WHERE id = $1", koidText)
	if expectNoError("koid: string with WHERE id = $1", err) {
		expectEq("koid: string with WHERE id = $1", got, []string{"ann"})
	}
	freshKoid := one(conn, "SELECT koid_new()::bigint::text")
	var freshInt int64
	fmt.Sscan(freshKoid, &freshInt)
	// INSERT: bigint casts to koid by assignment, so $1::bigint is enough.
	name := "koid: int64 in INSERT VALUES ($1::bigint, $2)"
	if _, err := conn.Exec(ctx, "INSERT INTO account (id, name) VALUES ($1::bigint, $2)", freshInt, "bob"); expectNoError(name, err) {
		expectEq(name, one(conn, "SELECT id::bigint::text FROM account WHERE name = 'bob'"), freshKoid)
	}
	_, err = conn.Exec(ctx, "INSERT INTO account (id, name) VALUES ($1, 'carl')", freshInt+1)
	expectPgError("koid: int64 in INSERT VALUES ($1, ...) is read as koid text: 22P02", err, "22P02",
		fmt.Sprintf(`invalid input syntax for type koid: "%d"`, freshInt+1), "")
	// pgx scans no type it does not know (koid) into an int64, whatever
	// the id's digits.
	var wrong int64
	err = conn.QueryRow(ctx, "SELECT '0000000000000123'::koid").Scan(&wrong)
	// pgx's own scan error, not any error such as a lost connection.
	if err == nil {
		fail("koid: scanning the koid column into int64 fails (scan id::bigint)", fmt.Sprintf("no error, got %d", wrong))
	} else if !strings.Contains(err.Error(), "can't scan into dest[0]") {
		fail("koid: scanning the koid column into int64 fails (scan id::bigint)", "another error: "+err.Error())
	} else {
		ok("koid: scanning the koid column into int64 fails (scan id::bigint)")
	}
	// Nor into an interface{}: pgx has no Go type for an oid it does not
	// know.  Scan into a string.
	var anything interface{}
	err = conn.QueryRow(ctx, "SELECT '0000000000000123'::koid").Scan(&anything)
	if err == nil {
		fail("koid: scanning an id into interface{} fails (unknown oid)", fmt.Sprintf("no error, got %#v", anything))
	} else if !strings.Contains(err.Error(), "unknown oid") {
		fail("koid: scanning an id into interface{} fails (unknown oid)", "another error: "+err.Error())
	} else {
		ok("koid: scanning an id into interface{} fails (unknown oid)")
	}
}

// sameRows: the two tables hold the same rows.
func sameRows(conn *pgx.Conn, a, b string) string {
	return one(conn, "SELECT count(*)::text FROM (SELECT * FROM "+a+" EXCEPT SELECT * FROM "+b+
		" UNION ALL SELECT * FROM "+b+" EXCEPT SELECT * FROM "+a+") d")
}

func copyText(conn *pgx.Conn, id string) {
	var out bytes.Buffer
	tag, err := conn.PgConn().CopyTo(ctx, &out, "COPY event (id, body) TO STDOUT")
	if !expectNoError("text COPY out", err) {
		return
	}
	expectEq("text COPY out: row count", fmt.Sprint(tag.RowsAffected()), one(conn, "SELECT count(*)::text FROM event"))
	if strings.Contains(out.String(), id+"\tfirst\n") {
		ok("text COPY out: the id's text and the body, tab-separated")
	} else {
		fail("text COPY out: the id's text and the body, tab-separated", "no line "+id+"\\tfirst in "+out.String())
	}
	tagIn, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(out.Bytes()), "COPY event_copy (id, body) FROM STDIN")
	if expectNoError("text COPY in", err) {
		expectEq("text COPY in: row count", tagIn.RowsAffected(), tag.RowsAffected())
		expectEq("text COPY round trip: same rows", sameRows(conn, "event", "event_copy"), "0")
	}
}

func copyBinary(conn *pgx.Conn) {
	var out bytes.Buffer
	_, err := conn.PgConn().CopyTo(ctx, &out, "COPY (SELECT id, body FROM event ORDER BY id) TO STDOUT (FORMAT binary)")
	if !expectNoError("binary COPY out", err) {
		return
	}
	rows, err := readBinaryCopy(out.Bytes())
	if !expectNoError("binary COPY out: parsed", err) {
		return
	}
	fromCopy := []string{}
	for _, row := range rows {
		fromCopy = append(fromCopy, hex.EncodeToString(row[0]))
	}
	fromServer, err := column(conn, "SELECT encode(id::bytea, 'hex') FROM event ORDER BY id")
	if expectNoError("binary COPY out: each id is its 10 raw bytes (= id::bytea)", err) {
		expectEq("binary COPY out: each id is its 10 raw bytes (= id::bytea)", fromCopy, fromServer)
	}

	// pgx.CopyFrom: a plain []byte or a string cannot go into a column of a
	// type pgx does not know; a pgtype.Bytea holding the raw id can.
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"event_binary"}, []string{"id", "body"},
		pgx.CopyFromRows([][]interface{}{{rows[0][0], string(rows[0][1])}}))
	if err != nil && strings.Contains(err.Error(), "Cannot encode []uint8") {
		ok("pgx.CopyFrom: a []byte id is refused by pgx")
	} else {
		fail("pgx.CopyFrom: a []byte id is refused by pgx", fmt.Sprintf("got %v", err))
	}
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"event_binary"}, []string{"id", "body"},
		pgx.CopyFromRows([][]interface{}{{one(conn, "SELECT sno_new()::text"), "text id"}}))
	expectPgError("pgx.CopyFrom: a string id is sent as its bytes and refused: 22P03", err, "22P03",
		"invalid binary value for type sno", "")
	values := [][]interface{}{}
	for _, row := range rows {
		values = append(values, []interface{}{pgtype.Bytea{Bytes: row[0], Status: pgtype.Present}, string(row[1])})
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"event_binary"}, []string{"id", "body"}, pgx.CopyFromRows(values))
	if expectNoError("pgx.CopyFrom with pgtype.Bytea ids", err) {
		expectEq("pgx.CopyFrom with pgtype.Bytea ids: row count", n, int64(len(rows)))
		expectEq("pgx.CopyFrom round trip: same rows", sameRows(conn, "event", "event_binary"), "0")
	}
}

// readBinaryCopy: the fields of PostgreSQL's binary COPY format (signature,
// flags, header extension, then per row a field count and per field a
// length and its bytes).
func readBinaryCopy(data []byte) ([][][]byte, error) {
	r := bytes.NewReader(data)
	signature := make([]byte, 11)
	if _, err := io.ReadFull(r, signature); err != nil || string(signature) != "PGCOPY\n\377\r\n\000" {
		return nil, errors.New("not a binary COPY stream")
	}
	var flags, extension int32
	binary.Read(r, binary.BigEndian, &flags)
	binary.Read(r, binary.BigEndian, &extension)
	r.Seek(int64(extension), io.SeekCurrent)
	rows := [][][]byte{}
	for {
		var fields int16
		if err := binary.Read(r, binary.BigEndian, &fields); err != nil {
			return nil, err
		}
		if fields == -1 {
			return rows, nil
		}
		row := make([][]byte, fields)
		for i := range row {
			var length int32
			if err := binary.Read(r, binary.BigEndian, &length); err != nil {
				return nil, err
			}
			if length >= 0 {
				row[i] = make([]byte, length)
				if _, err := io.ReadFull(r, row[i]); err != nil {
					return nil, err
				}
			}
		}
		rows = append(rows, row)
	}
}
