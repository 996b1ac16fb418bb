// Knex (npm knex, pinned in package.json, over node-postgres) against kid, as
// a Knex application uses it: the migration of knex_migrations/ run by
// knex.migrate.latest(), then its query builder.  Connects with libpq's
// environment variables (PGHOST, PGPORT, PGUSER, PGDATABASE), which
// test/server/66-client_knex.sh sets to a fresh database with kid created.
// Prints one "ok: NAME" / "FAILED: NAME: why" line per check, then "end: ...".
//
// The recipe (docs/clients.md, Knex): t.specificType('id', 'sno') with
// defaultTo(knex.raw('sno_new()')), .returning('id') on insert, and a Date
// compared with an id as knex.raw('?::timestamptz', [date]) (node-postgres
// sends every parameter untyped: next to an id, a time reads as an id).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

let count = 0, failed = 0;
function report(name, ok, why) {
    count++;
    if (ok) {
        console.log(`ok: Knex: ${name}`);
    } else {
        failed++;
        console.log(`FAILED: Knex: ${name}: ${why}`);
    }
}
const show = (v) => JSON.stringify(v);
function eq(name, actual, expected) {
    report(name, show(actual) === show(expected), `got ${show(actual)}, expected ${show(expected)}`);
}
async function scenario(name, body) {
    try {
        await body();
    } catch (e) {
        report(`${name} ran to its end`, false, String(e && e.stack).replaceAll('\n', ' | '));
    }
}

let knexLib;
try {
    knexLib = createRequire(import.meta.url)('knex');
} catch (e) {
    report('require knex (npm install of test/clients/node/package.json)', false, e.message);
}
const SNO = /^[2-9a-x]{16}$/;
const T0 = Date.UTC(2026, 0, 10);
const minutes = (n) => new Date(T0 + n * 60000);
const ts = (knex, d) => knex.raw('?::timestamptz', [d]);

if (knexLib) {
    // connection: {} lets node-postgres read libpq's environment.
    const knex = knexLib({ client: 'pg', connection: {} });
    await scenario('1. the migration', async () => {
        await knex.migrate.latest({ directory: fileURLToPath(new URL('knex_migrations', import.meta.url)), loadExtensions: ['.cjs'] });
        const cols = await knex.raw(`SELECT a.attrelid::regclass::text AS t, a.attname AS c, format_type(a.atttypid, a.atttypmod) AS type,
                                            pg_get_expr(d.adbin, d.adrelid) AS def
                                     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                                     WHERE (a.attrelid, a.attname) IN (('events'::regclass, 'id'), ('comments'::regclass, 'event_id'))
                                     ORDER BY 1, 2`);
        const cons = await knex.raw(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'events'::regclass AND contype = 'p'
                                     UNION ALL SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'comments'::regclass AND contype = 'f'`);
        eq('1. migrate.latest made events.id sno DEFAULT sno_new(), the primary key, and comments.event_id an sno foreign key to it',
            [cols.rows.map((r) => [r.t, r.c, r.type, r.def]), cons.rows.map((r) => r.def)],
            [[['comments', 'event_id', 'sno', null], ['events', 'id', 'sno', 'sno_new()']],
                ['PRIMARY KEY (id)', 'FOREIGN KEY (event_id) REFERENCES events(id)']]);
    });

    let hello;
    await scenario('2. insert with the database DEFAULT, read back', async () => {
        [{ id: hello }] = await knex('events').insert({ body: 'hello' }).returning('id');
        eq('2. insert().returning("id"): the id the server made, a string of 16 sno characters',
            [typeof hello, SNO.test(hello)], ['string', true]);
        eq('2. where({ id }).first()', (await knex('events').where({ id: hello }).first()).body, 'hello');
        const [{ id: second }] = await knex('events').insert({ body: 'second' }).returning('id');
        eq('2. a later row, a later id', second > hello, true);
    });

    await scenario('3. filter by time', async () => {
        for (const n of [0, 5, 10, 15]) {
            await knex('events').insert({ id: knex.raw('sno_new_with_time(?::timestamptz)', [minutes(n)]), body: `m${n}` });
        }
        eq("3. where('id', '>=', knex.raw('?::timestamptz', [Date])): exactly the rows of [00:05, 00:15)",
            await knex('events').where('id', '>=', ts(knex, minutes(5))).andWhere('id', '<', ts(knex, minutes(15)))
                .orderBy('id').pluck('body'), ['m5', 'm10']);
        eq('3. the rows of the last hour', await knex('events').where('id', '>=', ts(knex, new Date(Date.now() - 3600000)))
            .orderBy('id').pluck('body'), ['hello', 'second']);
        const [{ made }] = await knex('events').select(knex.raw('sno_to_timestamp(id) AS made')).where({ body: 'm5' });
        eq('3. sno_to_timestamp(id): a Date', made.toISOString(), minutes(5).toISOString());
        const ids = await knex('events').whereIn('body', ['m0', 'm15']).pluck('id');
        eq('3. whereIn("id", [strings])', await knex('events').whereIn('id', ids).orderBy('id').pluck('body'), ['m0', 'm15']);
        try {
            await knex('events').where('id', '>=', minutes(5));
            report('3. a bare Date next to an id is read as an id: 22P02', false, 'no error');
        } catch (e) {
            eq('3. a bare Date next to an id is read as an id: 22P02', e.code, '22P02');
        }
    });

    await scenario('4. a foreign key', async () => {
        const m5 = (await knex('events').where({ body: 'm5' }).first()).id;
        await knex('comments').insert([{ event_id: hello, text: 'c1' }, { event_id: hello, text: 'c2' }, { event_id: m5, text: 'c3' }]);
        eq('4. join on the foreign key, a time range on events.id',
            await knex('comments').join('events', 'comments.event_id', 'events.id')
                .where('events.id', '>=', ts(knex, minutes(0))).andWhere('events.id', '<', ts(knex, minutes(10)))
                .pluck('comments.text'), ['c3']);
        eq('4. join: the comments of hello with its body',
            await knex('comments').join('events', 'comments.event_id', 'events.id').where('events.id', hello)
                .orderBy('comments.text').select('comments.text', 'events.body'),
            [{ text: 'c1', body: 'hello' }, { text: 'c2', body: 'hello' }]);
    });

    await scenario('5. a bad id', async () => {
        try {
            await knex('events').where({ id: 'not-an-id' });
            report('5. where({ id: "not-an-id" }): 22P02 naming sno', false, 'no error');
        } catch (e) {
            eq('5. where({ id: "not-an-id" }): 22P02 naming sno', [e.code, e.message.split(' - ').pop()],
                ['22P02', 'invalid input syntax for type sno: "not-an-id"']);
        }
    });
    await knex.destroy();
}
console.log(`end: ${count} checks, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
