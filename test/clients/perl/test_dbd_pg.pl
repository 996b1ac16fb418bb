# DBD::Pg (Debian libdbd-pg-perl, 3.16) against kid, used as an application
# uses it.  Connects with libpq's environment (PGHOST, PGPORT, PGUSER,
# PGDATABASE), which test/server/64-client_ruby_php_perl.sh sets to a fresh
# database with kid created.  Prints one "ok: NAME" or "FAILED: NAME: why"
# line per check, then "end: ..." (run_client_test in test/lib.sh counts them).
#
# What DBD::Pg does that matters here: a placeholder is sent untyped unless
# bind_param gives it a type ({pg_type => PG_TIMESTAMPTZ}); an array
# reference is sent as an array literal; values come back as strings, arrays
# of types it knows (text[]) as array references, of kid's types as one string.
use strict;
use warnings;

my ($count, $failed) = (0, 0);
sub report {
    my ($name, $ok, $why) = @_;
    $count++;
    if ($ok) {
        print "ok: $name\n";
    } else {
        $failed++;
        $why =~ s/\n/ | /g;
        print "FAILED: $name: $why\n";
    }
}
sub show { join('|', map { ref $_ eq 'ARRAY' ? '[' . show(@$_) . ']' : defined $_ ? $_ : 'undef' } @_) }
sub eq_ {
    my ($name, $actual, $expected) = @_;
    report($name, show(@$actual) eq show(@$expected), 'got ' . show(@$actual) . ', expected ' . show(@$expected));
}
sub finish {
    print "end: $count checks, $failed failed\n";
    exit($failed ? 1 : 0);
}
$| = 1;

unless (eval { require DBI; require DBD::Pg; DBD::Pg->import(':pg_types'); 1 }) {
    report('DBI and DBD::Pg (Debian package libdbd-pg-perl)', 0, $@);
    finish();
}
my $dbh = DBI->connect('dbi:Pg:', undef, undef, { AutoCommit => 1, RaiseError => 1, PrintError => 0 });
$dbh->do($_) for ('CREATE TABLE event (id sno PRIMARY KEY DEFAULT sno_new(), body text)',
                  'CREATE TABLE follower (id koid PRIMARY KEY DEFAULT koid_new(), name text)',
                  'CREATE TABLE timed (id sno PRIMARY KEY, body text)');
sub minutes { sprintf('2026-01-10 00:%02d:00+00', $_[0]) }
# The statement's error: [SQLSTATE, the message's first line, whether a
# line of it is a HINT containing $hint_has].
sub error_of {
    my ($sql, $hint_has, @params) = @_;
    return ['no error'] if eval { $dbh->selectall_arrayref($sql, undef, @params); 1 };
    my ($first) = split /\n/, $dbh->errstr;
    return [$dbh->state, $first, ($hint_has && $dbh->errstr =~ /^HINT:.*\Q$hint_has\E/m) ? 1 : 0];
}

eval {
    my ($sno_id) = $dbh->selectrow_array('INSERT INTO event (id, body) VALUES (DEFAULT, ?) RETURNING id', undef, 'hello');
    eq_('1. RETURNING a sno gives a string of 16 characters of 23456789a-x', [$sno_id =~ /^[2-9a-x]{16}$/ ? 1 : 0], [1]);
    eq_('1. WHERE id = ? with a string (no cast)',
        $dbh->selectall_arrayref('SELECT body FROM event WHERE id = ?', undef, $sno_id), [['hello']]);

    $dbh->do('INSERT INTO timed VALUES (sno_new_with_time(?::timestamptz), ?)', undef, minutes($_), "m$_") for (0, 5, 10, 15);
    my $sth = $dbh->prepare('SELECT body FROM timed WHERE id >= ? AND id < ? ORDER BY id');
    $sth->bind_param(1, minutes(5), { pg_type => PG_TIMESTAMPTZ() });
    $sth->bind_param(2, minutes(15), { pg_type => PG_TIMESTAMPTZ() });
    $sth->execute;
    eq_('2. id >= ? AND id < ? bound with {pg_type => PG_TIMESTAMPTZ} (no cast): exactly the rows of [00:05, 00:15)',
        $sth->fetchall_arrayref, [['m5'], ['m10']]);
    eq_('2. a time string bound without a type: 22P02, the sno message and a HINT to write ::timestamptz',
        error_of('SELECT body FROM timed WHERE id >= ?', '::timestamptz', minutes(5)),
        ['22P02', 'ERROR:  invalid input syntax for type sno: "2026-01-10 00:05:00+00"', 1]);
    eq_('2. id::timestamptz comes back as its text',
        [$dbh->selectrow_array("SELECT id::timestamptz FROM timed WHERE body = 'm5'")], ['2026-01-10 00:05:00+00']);

    my @ids = map { $_->[0] } @{ $dbh->selectall_arrayref("SELECT id FROM timed WHERE body IN ('m0', 'm15') ORDER BY id") };
    eq_('3. id = ANY(?) with an array reference of strings',
        $dbh->selectall_arrayref('SELECT body FROM timed WHERE id = ANY(?) ORDER BY id', undef, \@ids), [['m0'], ['m15']]);
    my $agg = $dbh->selectrow_arrayref(
        "SELECT array_agg(id ORDER BY id), array_agg(id ORDER BY id)::text[] FROM timed WHERE body IN ('m0', 'm15')");
    eq_('3. array_agg(id) comes back as one string, array_agg(id)::text[] as an array reference',
        [$agg->[0], ref $agg->[1], $agg->[1]], ['{' . join(',', @ids) . '}', 'ARRAY', \@ids]);

    eq_('4. WHERE id = ? with "not-an-id": 22P02 and the sno message',
        error_of('SELECT body FROM event WHERE id = ?', undef, 'not-an-id'),
        ['22P02', 'ERROR:  invalid input syntax for type sno: "not-an-id"', 0]);
    $dbh->do("INSERT INTO follower (id, name) VALUES (?::bigint::koid, 'ann')", undef, 1234567890123456);
    eq_('4. a koid as a number: ?::bigint::koid stores that number',
        $dbh->selectall_arrayref('SELECT id, id::bigint FROM follower WHERE id = ?::bigint::koid', undef, 1234567890123456),
        [['000462d53c8abac0', '1234567890123456']]);

    $dbh->do('CREATE TABLE uuid_timed (id uuid PRIMARY KEY DEFAULT uuidv7_new(), body text)');
    $dbh->do('INSERT INTO uuid_timed VALUES (uuidv7_new_with_time(?::timestamptz), ?)', undef, minutes($_), "m$_") for (0, 5, 10, 15);
    my ($made) = $dbh->selectrow_array("INSERT INTO uuid_timed (body) VALUES ('now') RETURNING id");
    eq_('5. RETURNING a uuidv7_new() id gives the text of a version 7 uuid',
        [$made =~ /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/ ? 1 : 0], [1]);
    eq_('5. WHERE id = ? with that string', $dbh->selectall_arrayref('SELECT body FROM uuid_timed WHERE id = ?', undef, $made), [['now']]);
    my $usth = $dbh->prepare('SELECT body FROM uuid_timed WHERE id >= ? AND id < ? ORDER BY id');
    $usth->bind_param(1, minutes(5), { pg_type => PG_TIMESTAMPTZ() });
    $usth->bind_param(2, minutes(15), { pg_type => PG_TIMESTAMPTZ() });
    $usth->execute;
    eq_('5. uuid: id >= ? AND id < ? bound with {pg_type => PG_TIMESTAMPTZ} (no cast): exactly the rows of [00:05, 00:15)',
        $usth->fetchall_arrayref, [['m5'], ['m10']]);
    1;
} or report('the scenarios ran to their end', 0, $@);
$dbh->disconnect;
finish();
