// kid from pgJDBC, the way a Java application uses it: ids from DEFAULT and
// RETURNING, a lookup by an id given as a string, a time range with
// java.time values, a list of ids, text and binary COPY, the error a bad id
// gives, and koid as a Java long.
//
// Run by test/server/62-client_jdbc.sh as a single-source program:
//   java -cp /usr/share/java/postgresql.jar KidJdbcTest.java HOST PORT DATABASE USER
// on a database where CREATE EXTENSION kid was run.  Each check prints
// "ok: NAME" or "FAILED: NAME: why", the last line is "end: ..."; the exit
// status is 1 if any check failed.

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.postgresql.util.PGobject;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

public class KidJdbcTest {
    static int failed = 0;
    static int passed = 0;

    static void ok(String name) {
        passed++;
        System.out.println("ok: " + name);
    }

    static void fail(String name, String why) {
        failed++;
        System.out.println("FAILED: " + name + ": " + why.replace('\n', ' '));
    }

    static void expectEq(String name, Object actual, Object expected) {
        if (expected.equals(actual)) ok(name);
        else fail(name, "got '" + actual + "', expected '" + expected + "'");
    }

    static void expectMatch(String name, String actual, String regex) {
        if (actual != null && Pattern.matches(regex, actual)) ok(name);
        else fail(name, "got '" + actual + "', expected to match " + regex);
    }

    interface Body {
        void run() throws Exception;
    }

    // A check whose body asserts by returning normally; an exception fails it.
    static void attempt(String name, Body body) {
        try {
            body.run();
        } catch (Exception e) {
            fail(name, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    // The SQLException an action must raise, with its SQLSTATE, its message
    // (a regular expression) and, when hint is not null, a HINT containing it.
    static void expectError(String name, Body body, String sqlstate, String messageRegex, String hint) {
        try {
            body.run();
            fail(name, "no error, expected SQLSTATE " + sqlstate);
        } catch (SQLException e) {
            ServerErrorMessage server = e instanceof PSQLException ? ((PSQLException) e).getServerErrorMessage() : null;
            String message = server == null ? e.getMessage() : server.getMessage();
            String gotHint = server == null ? null : server.getHint();
            if (!sqlstate.equals(e.getSQLState()))
                fail(name, "SQLSTATE " + e.getSQLState() + " (" + e.getMessage() + "), expected " + sqlstate);
            else if (message == null || !Pattern.matches(messageRegex, message))
                fail(name, "message '" + message + "', expected to match " + messageRegex);
            else if (hint != null && (gotHint == null || !gotHint.contains(hint)))
                fail(name, "hint '" + gotHint + "', expected one containing '" + hint + "'");
            else
                ok(name);
        } catch (Exception e) {
            fail(name, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    static List<String> strings(PreparedStatement ps) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) out.add(rs.getString(1));
        }
        return out;
    }

    static String one(Connection conn, String sql) throws SQLException {
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    static final String SNO = "[23456789a-x]{16}";
    static final OffsetDateTime T10 = OffsetDateTime.of(2026, 11, 1, 10, 0, 0, 0, ZoneOffset.UTC);

    public static void main(String[] args) throws Exception {
        String base = "jdbc:postgresql://" + args[0] + ":" + args[1] + "/" + args[2] + "?user=" + args[3];
        try (Connection conn = DriverManager.getConnection(base);
                Connection unspecified = DriverManager.getConnection(base + "&stringtype=unspecified")) {
            run(conn, unspecified);
        }
        System.out.println("end: " + passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    static void run(Connection conn, Connection unspecified) throws Exception {
        try (Statement st = conn.createStatement()) {
            st.execute("CREATE TABLE event (id sno PRIMARY KEY DEFAULT sno_new(), body text)");
            st.execute("CREATE TABLE event_copy (id sno PRIMARY KEY, body text)");
            st.execute("CREATE TABLE event_binary (id sno PRIMARY KEY, body text)");
            st.execute("CREATE TABLE post (id atproto_tid PRIMARY KEY DEFAULT tid_new(), body text)");
            st.execute("CREATE TABLE account (id koid PRIMARY KEY DEFAULT koid_new(), name text)");
        }

        // 1. INSERT with DEFAULT ... RETURNING id.
        String id;
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO event (id, body) VALUES (DEFAULT, ?) RETURNING id")) {
            ps.setString(1, "first");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                id = rs.getString(1);
                expectMatch("RETURNING id: getString is the id's text", id, SNO);
                expectEq("RETURNING id: column type name", rs.getMetaData().getColumnTypeName(1), "sno");
                Object o = rs.getObject(1);
                if (o instanceof PGobject) {
                    PGobject pg = (PGobject) o;
                    expectEq("RETURNING id: getObject is a PGobject of type sno holding the text",
                            pg.getType() + " " + pg.getValue(), "sno " + id);
                } else {
                    fail("RETURNING id: getObject is a PGobject of type sno holding the text", "got " + o);
                }
            }
        }
        expectEq("RETURNING id: the server has that id", one(conn, "SELECT id::text FROM event WHERE body = 'first'"), id);
        attempt("getGeneratedKeys on INSERT with a DEFAULT id", () -> {
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO event (body) VALUES (?)", new String[] {"id"})) {
                ps.setString(1, "second");
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    expectEq("getGeneratedKeys on INSERT with a DEFAULT id", keys.getString("id"),
                            one(conn, "SELECT id::text FROM event WHERE body = 'second'"));
                }
            }
        });
        attempt("RETURNING id of atproto_tid", () -> {
            try (Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("INSERT INTO post (body) VALUES ('hello') RETURNING id")) {
                rs.next();
                expectMatch("RETURNING id of atproto_tid", rs.getString(1), "[2-7a-j][2-7a-z]{12}");
            }
        });

        // 2. Look up by an id given as a string.  pgJDBC sends setString and
        // setObject(String) typed varchar, which casts to an id implicitly.
        attempt("setString id, default URL: WHERE id = ?", () -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT body FROM event WHERE id = ?")) {
                ps.setString(1, id);
                expectEq("setString id, default URL: WHERE id = ?", strings(ps), List.of("first"));
            }
        });
        attempt("setObject(String) id, default URL: WHERE id = ?", () -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT body FROM event WHERE id = ?")) {
                ps.setObject(1, id);
                expectEq("setObject(String) id, default URL: WHERE id = ?", strings(ps), List.of("first"));
            }
        });
        attempt("setObject(String, Types.OTHER) id, default URL: WHERE id = ?", () -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT body FROM event WHERE id = ?")) {
                ps.setObject(1, id, Types.OTHER);
                expectEq("setObject(String, Types.OTHER) id, default URL: WHERE id = ?", strings(ps), List.of("first"));
            }
        });
        attempt("setString id, stringtype=unspecified: WHERE id = ?", () -> {
            try (PreparedStatement ps = unspecified.prepareStatement("SELECT body FROM event WHERE id = ?")) {
                ps.setString(1, id);
                expectEq("setString id, stringtype=unspecified: WHERE id = ?", strings(ps), List.of("first"));
            }
        });
        attempt("setString id, default URL: INSERT VALUES (?, ?)", () -> {
            String fresh = one(conn, "SELECT sno_new()::text");
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO event (id, body) VALUES (?, ?)")) {
                ps.setString(1, fresh);
                ps.setString(2, "given");
                ps.executeUpdate();
            }
            expectEq("setString id, default URL: INSERT VALUES (?, ?)",
                    one(conn, "SELECT body FROM event WHERE id = '" + fresh + "'"), "given");
        });

        // 3. A time range with java.time values.  Rows placed at known times
        // (backfill: sno_new_with_time, whose parameter is a timestamptz).
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO event (id, body) VALUES (sno_new_with_time(?), ?)")) {
            for (int h = 0; h < 4; h++) {
                ps.setObject(1, T10.plusHours(h));
                ps.setString(2, "at " + (10 + h));
                ps.executeUpdate();
            }
        }
        String range = "SELECT body FROM event WHERE id >= ?::timestamptz AND id < ?::timestamptz ORDER BY id";
        attempt("setTimestamp range with ?::timestamptz", () -> {
            try (PreparedStatement ps = conn.prepareStatement(range)) {
                ps.setTimestamp(1, Timestamp.from(T10.plusMinutes(30).toInstant()));
                ps.setTimestamp(2, Timestamp.from(T10.plusMinutes(150).toInstant()));
                expectEq("setTimestamp range with ?::timestamptz", strings(ps), List.of("at 11", "at 12"));
            }
        });
        attempt("setObject(OffsetDateTime) range with ?::timestamptz, half-open", () -> {
            try (PreparedStatement ps = conn.prepareStatement(range)) {
                ps.setObject(1, T10.plusHours(1));
                ps.setObject(2, T10.plusHours(2));
                expectEq("setObject(OffsetDateTime) range with ?::timestamptz, half-open", strings(ps), List.of("at 11"));
            }
        });
        String uncast = "SELECT body FROM event WHERE id >= ? AND id < ?";
        String timeAsSno = "invalid input syntax for type sno: \"2026-11-01 [0-9:.]+[+-][0-9:]+\"";
        expectError("setTimestamp range without a cast: 22P02 with a HINT", () -> {
            try (PreparedStatement ps = conn.prepareStatement(uncast)) {
                ps.setTimestamp(1, Timestamp.from(T10.toInstant()));
                ps.setTimestamp(2, Timestamp.from(T10.plusHours(1).toInstant()));
                strings(ps);
            }
        }, "22P02", timeAsSno, "::timestamptz");
        // pgJDBC sends an OffsetDateTime typed as timestamptz (a Timestamp
        // untyped), so kid's (sno, timestamptz) operators take it as it is.
        attempt("setObject(OffsetDateTime) range without a cast", () -> {
            try (PreparedStatement ps = conn.prepareStatement(uncast + " ORDER BY id")) {
                ps.setObject(1, T10);
                ps.setObject(2, T10.plusHours(1));
                expectEq("setObject(OffsetDateTime) range without a cast", strings(ps), List.of("at 10"));
            }
        });
        // A uuid column: kid's operators on PostgreSQL's uuid; the id is a java.util.UUID.
        try (Statement st = conn.createStatement()) {
            st.execute("CREATE TABLE uuid_timed (id uuid PRIMARY KEY DEFAULT uuidv7_new(), body text)");
        }
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO uuid_timed (id, body) VALUES (uuidv7_new_with_time(?), ?)")) {
            for (int h = 0; h < 4; h++) {
                ps.setObject(1, T10.plusHours(h));
                ps.setString(2, "at " + (10 + h));
                ps.executeUpdate();
            }
        }
        attempt("uuid: setObject(OffsetDateTime) range, no cast", () -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT body FROM uuid_timed WHERE id >= ? AND id < ? ORDER BY id")) {
                ps.setObject(1, T10.plusMinutes(30));
                ps.setObject(2, T10.plusMinutes(150));
                expectEq("uuid: setObject(OffsetDateTime) range, no cast", strings(ps), List.of("at 11", "at 12"));
            }
        });
        attempt("uuid: setTimestamp range with ?::timestamptz", () -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT body FROM uuid_timed WHERE id >= ?::timestamptz AND id < ?::timestamptz ORDER BY id")) {
                ps.setTimestamp(1, Timestamp.from(T10.plusMinutes(30).toInstant()));
                ps.setTimestamp(2, Timestamp.from(T10.plusMinutes(150).toInstant()));
                expectEq("uuid: setTimestamp range with ?::timestamptz", strings(ps), List.of("at 11", "at 12"));
            }
        });
        attempt("uuid: uuidv7_new() read as java.util.UUID, version 7, looked up with setObject", () -> {
            java.util.UUID made;
            try (Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("INSERT INTO uuid_timed (body) VALUES ('now') RETURNING id")) {
                rs.next();
                made = rs.getObject(1, java.util.UUID.class);
            }
            expectEq("uuid: uuidv7_new() read as java.util.UUID of version 7", made.version(), 7);
            try (PreparedStatement ps = conn.prepareStatement("SELECT body FROM uuid_timed WHERE id = ?")) {
                ps.setObject(1, made);
                expectEq("uuid: WHERE id = ? with setObject(UUID)", strings(ps), List.of("now"));
            }
        });
        attempt("id::timestamptz read as OffsetDateTime", () -> {
            try (Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT id::timestamptz FROM event WHERE body = 'at 11'")) {
                rs.next();
                expectEq("id::timestamptz read as OffsetDateTime",
                        rs.getObject(1, OffsetDateTime.class).toInstant(), T10.plusHours(1).toInstant());
            }
        });

        // The same for koid and atproto_tid, backfilled with their own
        // *_new_with_time.
        for (String[] t : new String[][] {{"account", "name", "koid_new_with_time"}, {"post", "body", "tid_new_with_time"}}) {
            String name = t[0] + ": setObject(OffsetDateTime) range with ?::timestamptz";
            attempt(name, () -> {
                try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + t[0] + " (id, " + t[1] + ") VALUES (" + t[2] + "(?), ?)")) {
                    for (int h = 0; h < 3; h++) {
                        ps.setObject(1, T10.plusHours(h));
                        ps.setString(2, "at " + (10 + h));
                        ps.executeUpdate();
                    }
                }
                try (PreparedStatement ps = conn.prepareStatement("SELECT " + t[1] + " FROM " + t[0]
                        + " WHERE id >= ?::timestamptz AND id < ?::timestamptz ORDER BY id")) {
                    ps.setObject(1, T10.plusHours(1));
                    ps.setObject(2, T10.plusHours(3));
                    expectEq(name, strings(ps), List.of("at 11", "at 12"));
                }
            });
        }

        // 4. A list of ids.
        List<String> someIds = List.of(id, one(conn, "SELECT id::text FROM event WHERE body = 'at 12'"));
        String[] idArray = someIds.toArray(new String[0]);
        List<String> someBodies = List.of("first", "at 12");
        for (String elementType : List.of("varchar", "text")) {
            attempt("= ANY(?) with createArrayOf(\"" + elementType + "\")", () -> {
                try (PreparedStatement ps = conn.prepareStatement("SELECT body FROM event WHERE id = ANY(?) ORDER BY body DESC")) {
                    ps.setArray(1, conn.createArrayOf(elementType, idArray));
                    expectEq("= ANY(?) with createArrayOf(\"" + elementType + "\")", strings(ps), someBodies);
                }
            });
            attempt("= ANY(?::sno[]) with createArrayOf(\"" + elementType + "\")", () -> {
                try (PreparedStatement ps = conn.prepareStatement("SELECT body FROM event WHERE id = ANY(?::sno[]) ORDER BY body DESC")) {
                    ps.setArray(1, conn.createArrayOf(elementType, idArray));
                    expectEq("= ANY(?::sno[]) with createArrayOf(\"" + elementType + "\")", strings(ps), someBodies);
                }
            });
        }
        attempt("an sno[] result read with getArray as strings", () -> {
            try (Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT array_agg(id ORDER BY body DESC) FROM event WHERE body IN ('first', 'at 12')")) {
                rs.next();
                Array a = rs.getArray(1);
                expectEq("an sno[] result read with getArray as strings",
                        Arrays.asList((Object[]) a.getArray()).toString(), someIds.toString());
            }
        });

        // 5. COPY, text and binary.
        CopyManager copy = conn.unwrap(PGConnection.class).getCopyAPI();
        attempt("text COPY out and in", () -> {
            StringWriter out = new StringWriter();
            long n = copy.copyOut("COPY event (id, body) TO STDOUT", out);
            String text = out.toString();
            expectEq("text COPY out: row count", n, Long.parseLong(one(conn, "SELECT count(*) FROM event")));
            check("text COPY out: the id's text and the body, tab-separated", text.contains(id + "\tfirst\n"),
                    "no line '" + id + "\\tfirst' in " + text);
            long in = copy.copyIn("COPY event_copy (id, body) FROM STDIN", new StringReader(text));
            expectEq("text COPY in: row count", in, n);
            expectEq("text COPY round trip: same rows",
                    one(conn, "SELECT count(*) FROM (SELECT * FROM event EXCEPT SELECT * FROM event_copy"
                            + " UNION ALL SELECT * FROM event_copy EXCEPT SELECT * FROM event) d"), "0");
        });
        attempt("binary COPY out and in", () -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            copy.copyOut("COPY (SELECT id, body FROM event ORDER BY id) TO STDOUT (FORMAT binary)", out);
            List<byte[][]> rows = readBinaryCopy(out.toByteArray());
            List<String> fromCopy = new ArrayList<>();
            for (byte[][] row : rows) fromCopy.add(HexFormat.of().formatHex(row[0]));
            List<String> fromServer = new ArrayList<>();
            try (Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT id::bytea FROM event ORDER BY id")) {
                while (rs.next()) fromServer.add(HexFormat.of().formatHex(rs.getBytes(1)));
            }
            expectEq("binary COPY out: each id is its 10 raw bytes (= id::bytea)", fromCopy, fromServer);
            long in = copy.copyIn("COPY event_binary (id, body) FROM STDIN (FORMAT binary)",
                    new ByteArrayInputStream(writeBinaryCopy(rows)));
            expectEq("binary COPY in: row count", in, (long) rows.size());
            expectEq("binary COPY round trip: same rows",
                    one(conn, "SELECT count(*) FROM (SELECT * FROM event EXCEPT SELECT * FROM event_binary"
                            + " UNION ALL SELECT * FROM event_binary EXCEPT SELECT * FROM event) d"), "0");
        });

        // 6. A bad id: the application sees 22P02 and the type and value.
        String badSno = "invalid input syntax for type sno: \"not-an-id\"";
        expectError("bad id with setString, default URL: 22P02", () -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT body FROM event WHERE id = ?")) {
                ps.setString(1, "not-an-id");
                strings(ps);
            }
        }, "22P02", badSno, null);
        expectError("bad id with setString, stringtype=unspecified: 22P02", () -> {
            try (PreparedStatement ps = unspecified.prepareStatement("SELECT body FROM event WHERE id = ?")) {
                ps.setString(1, "not-an-id");
                strings(ps);
            }
        }, "22P02", badSno, null);
        expectError("bad id in INSERT with setString, default URL: 22P02", () -> {
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO event (id, body) VALUES (?, 'bad')")) {
                ps.setString(1, "not-an-id");
                ps.executeUpdate();
            }
        }, "22P02", badSno, null);

        // 7. koid as a Java long and as a string.  bigint casts to koid by
        // assignment only: INSERT takes setLong, a comparison needs ?::koid.
        long koidLong;
        String koidText;
        try (Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("INSERT INTO account (name) VALUES ('ann') RETURNING id, id::bigint")) {
            rs.next();
            koidText = rs.getString(1);
            koidLong = rs.getLong(2);
        }
        expectEq("koid: text is the long in 16 hex digits", koidText, String.format("%016x", koidLong));
        attempt("koid: setLong with WHERE id = ?::koid", () -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT name FROM account WHERE id = ?::koid")) {
                ps.setLong(1, koidLong);
                expectEq("koid: setLong with WHERE id = ?::koid", strings(ps), List.of("ann"));
            }
        });
        expectError("koid: setLong with WHERE id = ? has no operator", () -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT name FROM account WHERE id = ?")) {
                ps.setLong(1, koidLong);
                strings(ps);
            }
        }, "42883", "operator does not exist: koid = bigint", null);
        attempt("koid: setString with WHERE id = ?", () -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT name FROM account WHERE id = ?")) {
                ps.setString(1, koidText);
                expectEq("koid: setString with WHERE id = ?", strings(ps), List.of("ann"));
            }
        });
        attempt("koid: setLong in INSERT VALUES (?, ?)", () -> {
            long fresh = Long.parseLong(one(conn, "SELECT koid_new()::bigint"));
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO account (id, name) VALUES (?, ?)")) {
                ps.setLong(1, fresh);
                ps.setString(2, "bob");
                ps.executeUpdate();
            }
            expectEq("koid: setLong in INSERT VALUES (?, ?)",
                    one(conn, "SELECT id::bigint FROM account WHERE name = 'bob'"), Long.toString(fresh));
        });
        // getLong reads the column's text, the koid's 16 hex digits, as a
        // decimal number: it fails when a digit is a letter, and silently
        // gives another number when none is (select id::bigint instead).
        // Fixed ids, since a generated koid may have either form.
        attempt("koid: getLong on the koid column itself", () -> {
            try (Statement st = conn.createStatement()) {
                st.executeUpdate("INSERT INTO account (id, name) VALUES ('00000000000000ab', 'hex'), ('0000000000000123', 'digits')");
            }
        });
        expectError("koid: getLong on a koid whose hex text has a letter fails", () -> {
            try (Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT id FROM account WHERE name = 'hex'")) {
                rs.next();
                rs.getLong(1);
            }
        }, "22003", "Bad value for type long : 00000000000000ab", null);
        attempt("koid: getLong on a koid whose hex text is all digits gives another number", () -> {
            try (Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT id, id::bigint FROM account WHERE name = 'digits'")) {
                rs.next();
                expectEq("koid: getLong on a koid whose hex text is all digits gives another number",
                        List.of(rs.getLong(1), rs.getLong(2)), List.of(123L, 0x123L));
            }
        });
    }

    static void check(String name, boolean good, String why) {
        if (good) ok(name);
        else fail(name, why);
    }

    // PostgreSQL's binary COPY format: a signature, flags, a header
    // extension, then per row a field count and per field a length and bytes.
    static final byte[] SIGNATURE = "PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1);

    static List<byte[][]> readBinaryCopy(byte[] data) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
        byte[] signature = new byte[SIGNATURE.length];
        in.readFully(signature);
        if (!Arrays.equals(signature, SIGNATURE)) throw new IOException("not a binary COPY stream");
        in.readInt();
        in.skipBytes(in.readInt());
        List<byte[][]> rows = new ArrayList<>();
        for (short fields; (fields = in.readShort()) != -1;) {
            byte[][] row = new byte[fields][];
            for (int i = 0; i < fields; i++) {
                int length = in.readInt();
                if (length < 0) continue;
                row[i] = new byte[length];
                in.readFully(row[i]);
            }
            rows.add(row);
        }
        return rows;
    }

    static byte[] writeBinaryCopy(List<byte[][]> rows) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.write(SIGNATURE);
        out.writeInt(0);
        out.writeInt(0);
        for (byte[][] row : rows) {
            out.writeShort(row.length);
            for (byte[] field : row) {
                if (field == null) {
                    out.writeInt(-1);
                } else {
                    out.writeInt(field.length);
                    out.write(field);
                }
            }
        }
        out.writeShort(-1);
        return bytes.toByteArray();
    }
}
