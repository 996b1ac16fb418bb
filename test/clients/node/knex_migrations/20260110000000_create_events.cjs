// The tables of test_knex.mjs, as a Knex project's migrations directory has
// them: events keyed by an sno the database makes, comments referring to them.
exports.up = async (knex) => {
    await knex.schema.createTable('events', (t) => {
        t.specificType('id', 'sno').primary().defaultTo(knex.raw('sno_new()'));
        t.text('body').notNullable();
    });
    await knex.schema.createTable('comments', (t) => {
        t.increments('id');
        t.specificType('event_id', 'sno').notNullable().references('id').inTable('events');
        t.text('text').notNullable();
    });
};

exports.down = async (knex) => {
    await knex.schema.dropTable('comments');
    await knex.schema.dropTable('events');
};
