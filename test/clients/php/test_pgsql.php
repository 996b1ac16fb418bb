<?php
// PHP's pgsql extension (Debian php-pgsql, PHP 8.2) against kid, used as an
// application uses it.  Connects with libpq's environment (PGHOST, PGPORT,
// PGUSER, PGDATABASE), which test/server/64-client_ruby_php_perl.sh sets to a
// fresh database with kid created.  Prints one "ok: NAME" or
// "FAILED: NAME: why" line per check, then "end: ..." (run_client_test in
// test/lib.sh counts them).
//
// What pgsql does that matters here: pg_query_params sends every parameter
// untyped as a string (a DateTimeImmutable cannot be converted, an array
// becomes the string "Array"), and returns every value as a string, arrays
// of any type included.

$count = 0;
$failed = 0;
function report(string $name, bool $ok, string $why = ''): void {
    global $count, $failed;
    $count++;
    if ($ok) {
        echo "ok: $name\n";
    } else {
        $failed++;
        echo "FAILED: $name: " . str_replace("\n", ' | ', $why) . "\n";
    }
}
function eq(string $name, $actual, $expected): void {
    report($name, $actual === $expected, 'got ' . var_export($actual, true) . ', expected ' . var_export($expected, true));
}
function finish(): void {
    global $count, $failed;
    echo "end: $count checks, $failed failed\n";
    exit($failed ? 1 : 0);
}
// The statement's error as the application reads it from the result:
// [SQLSTATE, primary message, hint].
function error_of($conn, string $sql, array $params): array {
    pg_send_query_params($conn, $sql, $params);
    $res = pg_get_result($conn);
    while (pg_get_result($conn)) {
    }
    return [pg_result_error_field($res, PGSQL_DIAG_SQLSTATE), pg_result_error_field($res, PGSQL_DIAG_MESSAGE_PRIMARY),
            pg_result_error_field($res, PGSQL_DIAG_MESSAGE_HINT)];
}
function rows($conn, string $sql, array $params = []): array {
    return pg_fetch_all(pg_query_params($conn, $sql, $params), PGSQL_NUM);
}
// A warning is a failure, but where the test silences it with @.
set_error_handler(function ($no, $message) {
    if (!(error_reporting() & $no)) {
        return false;
    }
    throw new ErrorException($message, 0, $no);
});

if (!function_exists('pg_connect')) {
    report('the pgsql extension (Debian package php-pgsql)', false, 'pg_connect is not defined');
    finish();
}
$conn = pg_connect('');
pg_query($conn, 'CREATE TABLE event (id sno PRIMARY KEY DEFAULT sno_new(), body text)');
pg_query($conn, 'CREATE TABLE follower (id koid PRIMARY KEY DEFAULT koid_new(), name text)');
pg_query($conn, 'CREATE TABLE timed (id sno PRIMARY KEY, body text)');
$t0 = new DateTimeImmutable('2026-01-10 00:00:00+00:00');
function minutes(int $n): DateTimeImmutable {
    global $t0;
    return $t0->modify("+$n minutes");
}

try {
    $snoId = pg_fetch_result(pg_query_params($conn, 'INSERT INTO event (id, body) VALUES (DEFAULT, $1) RETURNING id', ['hello']), 0, 0);
    eq('1. RETURNING a sno gives a string of 16 characters of 23456789a-x', preg_match('/^[2-9a-x]{16}$/', $snoId), 1);
    eq('1. WHERE id = $1 with a string (no cast)', rows($conn, 'SELECT body FROM event WHERE id = $1', [$snoId]), [['hello']]);

    foreach ([0, 5, 10, 15] as $n) {
        pg_query_params($conn, 'INSERT INTO timed VALUES (sno_new_with_time($1::timestamptz), $2)',
            [minutes($n)->format('Y-m-d H:i:s.uP'), "m$n"]);
    }
    try {
        pg_query_params($conn, 'SELECT body FROM timed WHERE id >= $1::timestamptz', [minutes(5)]);
        report('2. a DateTimeImmutable parameter: an Error (not converted to a string)', false, 'no error');
    } catch (Error $e) {
        eq('2. a DateTimeImmutable parameter: an Error (not converted to a string)',
            $e->getMessage(), 'Object of class DateTimeImmutable could not be converted to string');
    }
    eq("2. id >= \$1::timestamptz AND id < \$2::timestamptz with ->format('Y-m-d H:i:s.uP'): exactly the rows of [00:05, 00:15)",
        rows($conn, 'SELECT body FROM timed WHERE id >= $1::timestamptz AND id < $2::timestamptz ORDER BY id',
            [minutes(5)->format('Y-m-d H:i:s.uP'), minutes(15)->format('Y-m-d H:i:s.uP')]), [['m5'], ['m10']]);
    $err = error_of($conn, 'SELECT body FROM timed WHERE id >= $1', ['2026-01-10 00:05:00+00']);
    eq('2. a time string without the cast: 22P02, the sno message and a HINT to write ::timestamptz',
        [$err[0], $err[1], str_contains((string) $err[2], '::timestamptz')],
        ['22P02', 'invalid input syntax for type sno: "2026-01-10 00:05:00+00"', true]);
    eq('2. id::timestamptz comes back as a string DateTimeImmutable reads',
        new DateTimeImmutable(rows($conn, "SELECT id::timestamptz FROM timed WHERE body = 'm5'")[0][0]) == minutes(5), true);

    $ids = array_column(rows($conn, "SELECT id FROM timed WHERE body IN ('m0', 'm15') ORDER BY id"), 0);
    try {
        pg_query_params($conn, 'SELECT body FROM timed WHERE id = ANY($1)', [$ids]);
        report('3. a PHP array parameter: the warning "Array to string conversion"', false, 'no warning');
    } catch (ErrorException $e) {
        eq('3. a PHP array parameter: the warning "Array to string conversion"', $e->getMessage(), 'Array to string conversion');
    }
    eq('3. and the server gets the string "Array": 22P02, malformed array literal',
        array_slice(@error_of($conn, 'SELECT body FROM timed WHERE id = ANY($1)', [$ids]), 0, 2),
        ['22P02', 'malformed array literal: "Array"']);
    eq("3. id = ANY(\$1) with '{' . implode(',', \$ids) . '}'",
        rows($conn, 'SELECT body FROM timed WHERE id = ANY($1) ORDER BY id', ['{' . implode(',', $ids) . '}']), [['m0'], ['m15']]);
    $agg = rows($conn, "SELECT array_agg(id ORDER BY id), array_agg(id ORDER BY id)::text[], json_agg(id ORDER BY id) FROM timed WHERE body IN ('m0', 'm15')")[0];
    eq('3. array_agg(id) and array_agg(id)::text[] come back as one string; json_agg(id) decodes to an array',
        [$agg[0], $agg[1], json_decode($agg[2])], ['{' . implode(',', $ids) . '}', '{' . implode(',', $ids) . '}', $ids]);

    eq('4. WHERE id = $1 with "not-an-id": 22P02 and the sno message',
        array_slice(error_of($conn, 'SELECT body FROM event WHERE id = $1', ['not-an-id']), 0, 2),
        ['22P02', 'invalid input syntax for type sno: "not-an-id"']);
    pg_query_params($conn, "INSERT INTO follower (id, name) VALUES (\$1::bigint::koid, 'ann')", [1234567890123456]);
    eq('4. a koid as an int: $1::bigint::koid stores that number',
        rows($conn, 'SELECT id, id::bigint FROM follower WHERE id = $1::bigint::koid', [1234567890123456]),
        [['000462d53c8abac0', '1234567890123456']]);
    pg_query($conn, 'CREATE TABLE uuid_timed (id uuid PRIMARY KEY DEFAULT uuidv7_new(), body text)');
    foreach ([0, 5, 10, 15] as $n) {
        pg_query_params($conn, 'INSERT INTO uuid_timed VALUES (uuidv7_new_with_time($1::timestamptz), $2)',
            [minutes($n)->format('Y-m-d H:i:s.uP'), "m$n"]);
    }
    $made = pg_fetch_result(pg_query($conn, "INSERT INTO uuid_timed (body) VALUES ('now') RETURNING id"), 0, 0);
    eq('5. RETURNING a uuidv7_new() id gives the text of a version 7 uuid',
        preg_match('/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/', $made), 1);
    eq('5. WHERE id = $1 with that string', rows($conn, 'SELECT body FROM uuid_timed WHERE id = $1', [$made]), [['now']]);
    eq("5. uuid: id >= \$1::timestamptz AND id < \$2::timestamptz with ->format('Y-m-d H:i:s.uP'): exactly the rows of [00:05, 00:15)",
        rows($conn, 'SELECT body FROM uuid_timed WHERE id >= $1::timestamptz AND id < $2::timestamptz ORDER BY id',
            [minutes(5)->format('Y-m-d H:i:s.uP'), minutes(15)->format('Y-m-d H:i:s.uP')]), [['m5'], ['m10']]);

} catch (Throwable $e) {
    report('the scenarios ran to their end', false, get_class($e) . ': ' . $e->getMessage());
}
pg_close($conn);
finish();
