# Rails' ActiveRecord (Debian ruby-activerecord: 6.1 on Debian 12, 7.x on
# Debian 13) against kid, as a Rails application uses it: the migration of
# activerecord/migrate run by ActiveRecord's MigrationContext, models with
# an sno primary key made by the database and a foreign key to it.
# Connects with libpq's environment (PGHOST, PGPORT, PGUSER, PGDATABASE),
# which test/server/65-client_orm.sh sets to a fresh database with kid
# created.  Prints one "ok: NAME" or "FAILED: NAME: why" line per check, then
# "end: ...".
#
# The recipe (docs/clients.md): activerecord/kid_types.rb (kid's types are
# strings), create_table ... id: :sno, default: -> { 'sno_new()' }, and
# times compared with an id written id >= ?::timestamptz (ActiveRecord
# quotes a Time as an untyped literal, which next to an id reads as an id).

require_relative 'checks'
$check_prefix = 'ActiveRecord: '

begin
  require 'active_record'
rescue LoadError => e
  report('require active_record (Debian package ruby-activerecord)', false, e.message)
  finish
end

# Every warning ActiveRecord prints (an unknown OID) goes to $stderr: kept, and
# checked at the end (and printed if the program stops before).
require 'stringio'
$stderr = StringIO.new
at_exit { STDERR.print($stderr.string) if $stderr.is_a?(StringIO) }
require_relative 'activerecord/kid_types'
ActiveRecord::Base.establish_connection(adapter: 'postgresql', host: ENV['PGHOST'], port: ENV['PGPORT'],
                                        username: ENV['PGUSER'], database: ENV['PGDATABASE'])
ActiveRecord::Migration.verbose = false

class Event < ActiveRecord::Base
  has_many :comments
end

class Comment < ActiveRecord::Base
  belongs_to :event
end

SNO = /\A[2-9a-x]{16}\z/
T0 = Time.utc(2026, 1, 10)
def minutes(n) = T0 + n * 60

def sql(query)
  ActiveRecord::Base.connection.select_rows(query)
end

scenario('1. the migration') do
  dir = File.join(__dir__, 'activerecord', 'migrate')
  context = if ActiveRecord.version >= Gem::Version.new('7.1')
              ActiveRecord::MigrationContext.new(dir)
            else
              ActiveRecord::MigrationContext.new(dir, ActiveRecord::SchemaMigration)
            end
  context.migrate
  eq('1. the migration made events.id sno DEFAULT sno_new(), the primary key, and comments.event_id an sno foreign key to it',
     sql("SELECT a.attrelid::regclass::text, a.attname, format_type(a.atttypid, a.atttypmod), pg_get_expr(d.adbin, d.adrelid)
          FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE (a.attrelid, a.attname) IN (('events'::regclass, 'id'), ('comments'::regclass, 'event_id')) ORDER BY 1, 2") +
     sql("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'events'::regclass AND contype = 'p'
          UNION ALL SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'comments'::regclass AND contype = 'f'"),
     [['comments', 'event_id', 'sno', nil], ['events', 'id', 'sno', 'sno_new()'],
      ['PRIMARY KEY (id)'], ['FOREIGN KEY (event_id) REFERENCES events(id)']])
  eq('1. the models see the id columns as strings', [Event.type_for_attribute('id').type, Comment.type_for_attribute('event_id').type],
     [:string, :string])
end

hello = nil
scenario('2. insert with the database DEFAULT, read back') do
  hello = Event.create!(body: 'hello')
  eq('2. create!: the record has the id the server made, a String of 16 sno characters',
     [hello.id.class, SNO.match?(hello.id.to_s)], [String, true])
  eq('2. the INSERT left the id to the DEFAULT (the row has the id read back)',
     sql("SELECT id::text FROM events WHERE body = 'hello'"), [[hello.id]])
  eq('2. Event.find(id)', Event.find(hello.id).body, 'hello')
  second = Event.create!(body: 'second')
  eq('2. a later record, a later id', second.id > hello.id, true)
end

scenario('3. filter by time') do
  [0, 5, 10, 15].each do |n|
    id = Event.connection.select_value(Event.sanitize_sql(['SELECT sno_new_with_time(?::timestamptz)', minutes(n)]))
    Event.create!(id: id, body: "m#{n}")
  end
  eq("3. where('id >= ?::timestamptz AND id < ?::timestamptz', Time, Time): exactly the rows of [00:05, 00:15)",
     Event.where('id >= ?::timestamptz AND id < ?::timestamptz', minutes(5), minutes(15)).order(:id).pluck(:body),
     %w[m5 m10])
  eq("3. where('id >= ?::timestamptz', 1.hour.ago): the two rows made now",
     Event.where('id >= ?::timestamptz', Time.now - 3600).order(:id).pluck(:body), %w[hello second])
  eq('3. pluck(Arel.sql("sno_to_timestamp(id)")): a Time',
     Event.where(body: 'm5').pluck(Arel.sql('sno_to_timestamp(id)')), [minutes(5)])
  ids = Event.where(body: %w[m0 m15]).pluck(:id)
  eq('3. where(id: [ids]): = ANY / IN with strings', Event.where(id: ids).order(:id).pluck(:body), %w[m0 m15])
  begin
    Event.where(id: minutes(5)...minutes(15)).to_a
    report('3. where(id: Time...Time) fails: the times are quoted untyped and read as ids (22P02)', false, 'no error')
  rescue ActiveRecord::StatementInvalid => e
    eq('3. where(id: Time...Time) fails: the times are quoted untyped and read as ids (22P02)',
       e.cause.result.error_field(PG::PG_DIAG_SQLSTATE), '22P02')
  end
end

scenario('4. a foreign key') do
  hello.comments.create!(text: 'c1')
  Comment.create!(event_id: hello.id, text: 'c2')
  Comment.create!(event: Event.find_by!(body: 'm5'), text: 'c3')
  eq('4. joins(:event) with a time range on events.id',
     Comment.joins(:event).where('events.id >= ?::timestamptz AND events.id < ?::timestamptz', minutes(0), minutes(10))
            .pluck(:text), ['c3'])
  eq("4. includes(:event): each comment's event",
     Comment.includes(:event).where(events: { body: 'hello' }).order(:text).map { |c| [c.text, c.event.body, c.event.id == hello.id] },
     [['c1', 'hello', true], ['c2', 'hello', true]])
  eq('4. has_many: hello.comments', hello.comments.order(:text).pluck(:text), %w[c1 c2])
end

scenario('5. a bad id') do
  Event.find('not-an-id')
  report('5. find("not-an-id"): 22P02 naming sno', false, 'no error')
rescue ActiveRecord::StatementInvalid => e
  r = e.cause.result
  eq('5. find("not-an-id"): 22P02 naming sno',
     [r.error_field(PG::PG_DIAG_SQLSTATE), r.error_field(PG::PG_DIAG_MESSAGE_PRIMARY)],
     ['22P02', 'invalid input syntax for type sno: "not-an-id"'])
end

warnings = $stderr.string
$stderr = STDERR
eq('no warning from ActiveRecord (no "unknown OID" for kid\'s types)', warnings, '')
finish
