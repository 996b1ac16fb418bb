// node-postgres (npm pg, pinned in package.json) against kid, used as an
// application uses it.  Connects with libpq's environment variables (PGHOST,
// PGPORT, PGUSER, PGDATABASE), which pg reads too and test/server/61-client_node.sh
// sets to a fresh database with kid created; TZ=UTC there, so that the text
// pg makes of a Date is known.  Prints one "ok: NAME" / "FAILED: NAME: why" line
// per check, then "end: ..." (run_client_test in test/lib.sh counts them).
//
// What node-postgres does that matters here: every parameter is sent untyped,
// as text (a Date as "2026-01-10T00:05:00.000+00:00", a BigInt as its decimal
// digits, an array as an array literal), so the server gives it the type the
// query implies: next to a kid column, that kid type.  Results come back as
// strings for kid types (and for bigint).

let count = 0, failed = 0;
function report(name, ok, why) {
    count++;
    if (ok) {
        console.log(`ok: node-postgres: ${name}`);
    } else {
        failed++;
        console.log(`FAILED: node-postgres: ${name}: ${why}`);
    }
}
const show = (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? `${x}n` : x));
function eq(name, actual, expected) {
    report(name, show(actual) === show(expected), `got ${show(actual)}, expected ${show(expected)}`);
}
// gives: the promise resolves to expected; a rejection fails this check only.
async function gives(name, promise, expected) {
    try {
        eq(name, await promise, expected);
    } catch (e) {
        report(name, false, `rejected: ${e.code} ${e.message}`);
    }
}
// error: the promise rejects with this SQLSTATE (err.code), message and a HINT
// (err.hint) containing hintHas, as the application sees them.
async function error(name, promise, code, message, hintHas) {
    try {
        await promise;
        report(name, false, `no error, expected ${code}`);
    } catch (e) {
        const ok = e.code === code && (message === undefined || e.message === message) &&
            (hintHas === undefined || (typeof e.hint === 'string' && e.hint.includes(hintHas)));
        report(name, ok, `got ${show([e.code, e.message, e.hint])}, expected ${code} ${show(message)}` +
            (hintHas === undefined ? '' : ` with a HINT containing ${show(hintHas)}`));
    }
}
// scenario: a step that throws where it should not is a failed check of its own.
async function scenario(name, body) {
    try {
        await body();
    } catch (e) {
        report(`${name} ran to its end`, false, String(e && e.stack).replaceAll('\n', ' | '));
    }
}
function finish() {
    console.log(`end: ${count} checks, ${failed} failed`);
    process.exitCode = failed ? 1 : 0;
}

let pg;
try {
    pg = (await import('pg')).default;
} catch (e) {
    report('import pg (npm package pg, test/clients/node/package.json)', false, String(e));
    finish();
    process.exit();
}

const client = new pg.Client();
await client.connect();
const rows = async (text, values) => (await client.query(text, values)).rows;
const minutes = (n) => new Date(Date.UTC(2026, 0, 10, 0, n));

await client.query('CREATE TABLE event (id sno PRIMARY KEY DEFAULT sno_new(), body text)');
await client.query('CREATE TABLE follower (id koid PRIMARY KEY DEFAULT koid_new(), name text)');
await client.query('CREATE TABLE post (id atproto_tid PRIMARY KEY DEFAULT tid_new(), body text)');
let snoId, koidId, tidId;

await scenario('1. INSERT with DEFAULT ... RETURNING id', async () => {
    snoId = (await rows('INSERT INTO event (body) VALUES ($1) RETURNING id', ['hello']))[0].id;
    eq('1. RETURNING a sno gives a string of 16 characters of 23456789a-x',
        [typeof snoId, /^[2-9a-x]{16}$/.test(snoId)], ['string', true]);
    koidId = (await rows("INSERT INTO follower (name) VALUES ('ann') RETURNING id"))[0].id;
    eq('1. RETURNING a koid gives a string of 16 hex digits',
        [typeof koidId, /^[0-9a-f]{16}$/.test(koidId)], ['string', true]);
    tidId = (await rows("INSERT INTO post (body) VALUES ('first') RETURNING id"))[0].id;
    eq('1. RETURNING an atproto_tid gives a string of 13 base32-sortable characters',
        [typeof tidId, /^[2-7a-j][2-7a-z]{12}$/.test(tidId)], ['string', true]);
});

await scenario('2. look up by an id given as a string', async () => {
    eq('2. WHERE id = $1 with a string (no cast)',
        await rows('SELECT body FROM event WHERE id = $1', [snoId]), [{ body: 'hello' }]);
    eq('2. atproto_tid: WHERE id = $1 with a string (no cast)',
        await rows('SELECT body FROM post WHERE id = $1', [tidId]), [{ body: 'first' }]);
});

await scenario('3. a time range with Date parameters', async () => {
    await client.query('CREATE TABLE timed (id sno PRIMARY KEY, body text)');
    for (const n of [0, 5, 10, 15]) {
        await client.query('INSERT INTO timed VALUES (sno_new_with_time($1), $2)', [minutes(n), `m${n}`]);
    }
    eq('3. id >= $1::timestamptz AND id < $2::timestamptz with Dates: exactly the rows of [00:05, 00:15)',
        await rows('SELECT body FROM timed WHERE id >= $1::timestamptz AND id < $2::timestamptz ORDER BY id',
            [minutes(5), minutes(15)]), [{ body: 'm5' }, { body: 'm10' }]);
    // The Date is sent untyped, so without the cast the server reads it as a sno.
    await error('3. id >= $1 with a Date (no cast): 22P02, the sno message and a HINT to write ::timestamptz',
        client.query('SELECT body FROM timed WHERE id >= $1', [minutes(5)]),
        '22P02', 'invalid input syntax for type sno: "2026-01-10T00:05:00.000+00:00"', '::timestamptz');
    eq('3. id::timestamptz comes back as the Date the id was made for',
        (await rows("SELECT id::timestamptz AS t FROM timed WHERE body = 'm5'"))[0].t.toISOString(),
        minutes(5).toISOString());
});

await scenario('4. a list of ids', async () => {
    const ids = (await rows("SELECT id FROM timed WHERE body IN ('m0', 'm15')")).map((r) => r.id);
    eq('4. id = ANY($1) with an array of strings (no cast)',
        await rows('SELECT body FROM timed WHERE id = ANY($1) ORDER BY id', [ids]), [{ body: 'm0' }, { body: 'm15' }]);
    eq('4. id = ANY($1::sno[]) with an array of strings',
        await rows('SELECT body FROM timed WHERE id = ANY($1::sno[]) ORDER BY id', [ids]),
        [{ body: 'm0' }, { body: 'm15' }]);
});

// 5. COPY: pg alone has no COPY API (streaming COPY is the separate package
// pg-copy-streams, which this test does not pull in): COPY TO STDOUT through
// client.query drops the data, COPY FROM STDIN is refused.  What kid does in
// text and binary COPY is tested through psycopg (client_python.sh) and psql.
await scenario('5. COPY with pg alone', async () => {
    const out = await client.query('COPY timed TO STDOUT');
    eq('5. COPY TO STDOUT through client.query: the rows are not delivered', [out.rows.length, out.rowCount], [0, 4]);
    await error('5. COPY FROM STDIN through client.query: 57014, no source stream',
        client.query('COPY timed FROM STDIN'), '57014', 'COPY from stdin failed: No source stream defined');
});

await scenario('6. a bad id', async () => {
    await error("6. WHERE id = $1 with 'not-an-id': 22P02 and the sno message",
        client.query('SELECT body FROM event WHERE id = $1', ['not-an-id']),
        '22P02', 'invalid input syntax for type sno: "not-an-id"');
    await error('6. INSERT of a bad id: 22P02 and the sno message',
        client.query("INSERT INTO event (id, body) VALUES ($1, 'x')", ['zzzzzzzzzzzzzzzz']),
        '22P02', 'invalid input syntax for type sno: "zzzzzzzzzzzzzzzz"');
});

await scenario('7. koid as BigInt and as string', async () => {
    const asBigint = (await rows('SELECT id::bigint AS n FROM follower WHERE id = $1', [koidId]))[0].n;
    eq('7. id::bigint comes back as a string of the decimal digits (int8 is not parsed)',
        [typeof asBigint, BigInt(asBigint)], ['string', BigInt(`0x${koidId}`)]);
    const n = BigInt(asBigint);
    eq('7. WHERE id = $1::bigint::koid with a BigInt',
        await rows('SELECT name FROM follower WHERE id = $1::bigint::koid', [n]), [{ name: 'ann' }]);
    // Sent untyped, a BigInt's decimal digits are read as a koid's text (hex).
    await error('7. WHERE id = $1 with a BigInt (no cast): 22P02, its digits are not a koid text',
        client.query('SELECT name FROM follower WHERE id = $1', [n]),
        '22P02', `invalid input syntax for type koid: "${n}"`);
    await error('7. INSERT of a BigInt into a koid column (no cast): 22P02 likewise',
        client.query("INSERT INTO follower (id, name) VALUES ($1, 'bob')", [n + 1n]),
        '22P02', `invalid input syntax for type koid: "${n + 1n}"`);
    // Silently when the decimal digits happen to be 16 or fewer: they are
    // taken as hex, and another koid is stored.
    await client.query("INSERT INTO follower (id, name) VALUES ($1, 'dan')", [1234567890123456n]);
    eq('7. INSERT of a 16-digit BigInt (no cast): stored as the koid its digits spell in hex, no error',
        await rows("SELECT id, id::bigint AS n FROM follower WHERE name = 'dan'"),
        [{ id: '1234567890123456', n: '1311768467284833366' }]);
    await client.query("INSERT INTO follower (id, name) VALUES ($1::bigint::koid, 'bob')", [n + 1n]);
    eq('7. INSERT of a BigInt as $1::bigint::koid: stored as that koid',
        await rows("SELECT id, id::bigint AS n FROM follower WHERE name = 'bob'"),
        [{ id: (n + 1n).toString(16).padStart(16, '0'), n: (n + 1n).toString() }]);
    eq('7. a koid does not fit a Number exactly: use BigInt', Number.isSafeInteger(Number(n)), false);
    eq('7. WHERE id = $1 with the koid as a hex string (no cast)',
        await rows('SELECT name FROM follower WHERE id = $1', [koidId]), [{ name: 'ann' }]);
});

await scenario('8. a uuid column: uuidv7_new(), a time range with Date parameters', async () => {
    await client.query('CREATE TABLE uuid_timed (id uuid PRIMARY KEY DEFAULT uuidv7_new(), body text)');
    for (const n of [0, 5, 10, 15]) {
        await client.query('INSERT INTO uuid_timed VALUES (uuidv7_new_with_time($1), $2)', [minutes(n), `m${n}`]);
    }
    const newId = (await rows("INSERT INTO uuid_timed (body) VALUES ('now') RETURNING id"))[0].id;
    eq('8. RETURNING a uuidv7_new() id gives a string of a version 7 uuid',
        /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(newId), true);
    eq('8. WHERE id = $1 with that string (no cast)',
        await rows('SELECT body FROM uuid_timed WHERE id = $1', [newId]), [{ body: 'now' }]);
    eq('8. id >= $1::timestamptz AND id < $2::timestamptz with Dates: exactly the rows of [00:05, 00:15)',
        await rows('SELECT body FROM uuid_timed WHERE id >= $1::timestamptz AND id < $2::timestamptz ORDER BY id',
            [minutes(5), minutes(15)]), [{ body: 'm5' }, { body: 'm10' }]);
    // The Date is sent untyped: without the cast the server reads it as a uuid.
    await error('8. id >= $1 with a Date (no cast): 22P02, PostgreSQL\'s uuid message',
        client.query('SELECT body FROM uuid_timed WHERE id >= $1', [minutes(5)]),
        '22P02', 'invalid input syntax for type uuid: "2026-01-10T00:05:00.000+00:00"');
    eq('8. uuidv7_to_timestamp(id) comes back as the Date the id was made for',
        (await rows("SELECT uuidv7_to_timestamp(id) AS t FROM uuid_timed WHERE body = 'm5'"))[0].t.toISOString(),
        minutes(5).toISOString());
});

await client.end();
finish();
