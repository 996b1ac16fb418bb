# ruby-pg (Debian ruby-pg, 1.4) against kid, used as an application uses it.
# Connects with libpq's environment (PGHOST, PGPORT, PGUSER, PGDATABASE),
# which test/server/64-client_ruby_php_perl.sh sets to a fresh database with kid
# created.  Prints one "ok: NAME" or "FAILED: NAME: why" line per check, then
# "end: ..." (run_client_test in test/lib.sh counts them).
#
# What ruby-pg does that matters here: without a type map every parameter is
# sent untyped as its to_s (a Time as "2026-01-10 00:05:00 UTC", without its
# fraction of a second) and every result is a String.  PG::BasicTypeMapForQueries
# sends a Time with its fraction; PG::BasicTypeMapForResults decodes the types
# it knows and warns once per other type (kid's) unless its default type map
# is told to give strings.  Arrays of kid ids come back as one String.
require 'stringio'

require_relative 'checks'

# The block must raise a PG::Error with this SQLSTATE (and primary message,
# and a HINT containing hint_has).
def error(name, sqlstate, message = nil, hint_has = nil)
  yield
  report(name, false, "no error, expected #{sqlstate}")
rescue PG::Error => e
  r = e.result
  got = r && [r.error_field(PG::PG_DIAG_SQLSTATE), r.error_field(PG::PG_DIAG_MESSAGE_PRIMARY),
              r.error_field(PG::PG_DIAG_MESSAGE_HINT)]
  ok = got && got[0] == sqlstate && (message.nil? || got[1] == message) &&
       (hint_has.nil? || got[2].to_s.include?(hint_has))
  report(name, ok, "got #{e.class} #{got.inspect}, expected #{sqlstate} #{message.inspect} #{hint_has.inspect}")
end

begin
  require 'pg'
rescue LoadError => e
  report('require pg (Debian package ruby-pg)', false, e.message)
  finish
end

T0 = Time.utc(2026, 1, 10)
def minutes(n) = T0 + n * 60

conn = PG.connect
conn.exec("SET client_min_messages = warning")
conn.exec("CREATE TABLE event (id sno PRIMARY KEY DEFAULT sno_new(), body text)")
conn.exec("CREATE TABLE follower (id koid PRIMARY KEY DEFAULT koid_new(), name text)")
conn.exec("CREATE TABLE timed (id sno PRIMARY KEY, body text)")
sno_id = nil

scenario('1. INSERT with DEFAULT ... RETURNING id, and a lookup') do
  sno_id = conn.exec_params("INSERT INTO event (id, body) VALUES (DEFAULT, $1) RETURNING id", ['hello']).getvalue(0, 0)
  eq('1. RETURNING a sno gives a String of 16 characters of 23456789a-x',
     [sno_id.class, sno_id.match?(/\A[2-9a-x]{16}\z/)], [String, true])
  eq('1. WHERE id = $1 with a String (no cast)',
     conn.exec_params("SELECT body FROM event WHERE id = $1", [sno_id]).values, [['hello']])
end

scenario('2. a time range with Time parameters') do
  [0, 5, 10, 15].each do |n|
    conn.exec_params("INSERT INTO timed VALUES (sno_new_with_time($1::timestamptz), $2)", [minutes(n), "m#{n}"])
  end
  eq('2. id >= $1::timestamptz AND id < $2::timestamptz with Times: exactly the rows of [00:05, 00:15)',
     conn.exec_params("SELECT body FROM timed WHERE id >= $1::timestamptz AND id < $2::timestamptz ORDER BY id",
                      [minutes(5), minutes(15)]).values, [['m5'], ['m10']])
  error('2. a Time without the cast: 22P02, the sno message and a HINT to write ::timestamptz', '22P02',
        'invalid input syntax for type sno: "2026-01-10 00:05:00 UTC"', '::timestamptz') do
    conn.exec_params("SELECT body FROM timed WHERE id >= $1", [minutes(5)])
  end
  half = minutes(5) + 0.5
  eq('2. without a type map a Time loses its fraction of a second (sent as Time#to_s)',
     conn.exec_params("SELECT $1::timestamptz::text", [half]).getvalue(0, 0), '2026-01-10 00:05:00+00')
  typed = PG.connect
  typed.type_map_for_queries = PG::BasicTypeMapForQueries.new(typed)
  eq('2. with PG::BasicTypeMapForQueries the fraction is sent',
     typed.exec_params("SELECT $1::timestamptz::text", [half]).getvalue(0, 0), '2026-01-10 00:05:00.5+00')
  ids = conn.exec("SELECT id FROM timed WHERE body IN ('m0', 'm15') ORDER BY id").column_values(0)
  eq('2. with PG::BasicTypeMapForQueries an Array of Strings for id = ANY($1)',
     typed.exec_params("SELECT body FROM timed WHERE id = ANY($1) ORDER BY id", [ids]).values, [['m0'], ['m15']])
  typed.close
end

scenario('3. results through PG::BasicTypeMapForResults') do
  mapped = PG.connect
  map = PG::BasicTypeMapForResults.new(mapped)
  mapped.type_map_for_results = map
  captured = StringIO.new
  $stderr = captured
  begin
    mapped.exec("SELECT id FROM timed LIMIT 1").values
  ensure
    $stderr = STDERR
  end
  eq('3. the first result of a kid type prints a warning (no type cast defined for type "sno")',
     captured.string.include?('no type cast defined for type "sno"'), true)
  map.default_type_map = PG::TypeMapAllStrings.new
  captured = StringIO.new
  $stderr = captured
  begin
    row = mapped.exec("SELECT id, id::timestamptz AS t FROM timed WHERE body = 'm5'").values[0]
    agg = mapped.exec("SELECT array_agg(id ORDER BY id), array_agg(id ORDER BY id)::text[] FROM timed " \
                      "WHERE body IN ('m0', 'm15')").values[0]
  ensure
    $stderr = STDERR
  end
  eq('3. with map.default_type_map = PG::TypeMapAllStrings.new: no warning for sno or _sno', captured.string, '')
  eq('3. an id comes back as a String, id::timestamptz as a Time', [row[0].class, row[1]], [String, minutes(5)])
  ids = conn.exec("SELECT id FROM timed WHERE body IN ('m0', 'm15') ORDER BY id").column_values(0)
  eq('3. array_agg(id) comes back as one String; array_agg(id)::text[] as an Array',
     agg, ["{#{ids.join(',')}}", ids])
  mapped.close
end

scenario('4. a bad id, and a koid as an Integer') do
  error('4. WHERE id = $1 with "not-an-id": 22P02 and the sno message', '22P02',
        'invalid input syntax for type sno: "not-an-id"') do
    conn.exec_params("SELECT body FROM event WHERE id = $1", ['not-an-id'])
  end
  conn.exec_params("INSERT INTO follower (id, name) VALUES ($1::bigint::koid, 'ann')", [1234567890123456])
  eq('4. a koid as an Integer: $1::bigint::koid stores that number',
     conn.exec_params("SELECT id, id::bigint FROM follower WHERE id = $1::bigint::koid", [1234567890123456]).values,
     [['000462d53c8abac0', '1234567890123456']])
end

scenario('5. a uuid column: uuidv7_new(), a time range with Time parameters') do
  conn.exec("CREATE TABLE uuid_timed (id uuid PRIMARY KEY DEFAULT uuidv7_new(), body text)")
  [0, 5, 10, 15].each do |n|
    conn.exec_params("INSERT INTO uuid_timed VALUES (uuidv7_new_with_time($1::timestamptz), $2)", [minutes(n), "m#{n}"])
  end
  made = conn.exec("INSERT INTO uuid_timed (body) VALUES ('now') RETURNING id").getvalue(0, 0)
  eq('5. RETURNING a uuidv7_new() id gives the text of a version 7 uuid',
     made.match?(/\A\h{8}-\h{4}-7\h{3}-[89ab]\h{3}-\h{12}\z/), true)
  eq('5. WHERE id = $1 with that string', conn.exec_params("SELECT body FROM uuid_timed WHERE id = $1", [made]).values, [['now']])
  eq('5. id >= $1::timestamptz AND id < $2::timestamptz with Times: exactly the rows of [00:05, 00:15)',
     conn.exec_params("SELECT body FROM uuid_timed WHERE id >= $1::timestamptz AND id < $2::timestamptz ORDER BY id",
                      [minutes(5), minutes(15)]).values, [['m5'], ['m10']])
end

conn.close
finish
