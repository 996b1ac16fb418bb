
-- ---------------------------------------------------------------------------
-- The time order every id type's btree operator family shares (first: the
-- range scans of every id type's part need it)
-- ---------------------------------------------------------------------------

-- An id btree family holds the id type and timestamptz, and a btree family
-- must be one total order over all its types, with a comparison for every
-- pair of them: (id, id), (id, timestamptz), (timestamptz, id) and
-- (timestamptz, timestamptz).  Index scans need the last pair too: for
-- id = ANY(times) btree sorts and de-duplicates the array, and for
-- id >= ANY(times) it picks the smallest time, with the family's
-- (timestamptz, timestamptz) members.
--
-- In kid's order a time sorts just below the smallest id of its unit and
-- no id equals a time (src/sql/id_type.sql.in), so times compare among
-- themselves exactly as timestamptz does.  These operators are that
-- comparison, under names of kid's own: timestamptz's built-in < and its
-- friends must not join kid's families, because the planner takes the
-- sort order of ORDER BY created_at from whichever btree family holds its
-- < operator, and a kid family would no longer match timestamptz indexes.
-- ~=~ is MERGES, as every equality member of a btree family must be (and the
-- id = timestamptz members are); it is timestamptz's own equality, so an
-- equality the planner derives with it holds exactly when timestamptz's =
-- does.  Not HASHES: no hash family holds it.
CREATE OPERATOR ~<~ (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = pg_catalog.timestamptz_lt,
    COMMUTATOR = ~>~, NEGATOR = ~>=~, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR ~<=~ (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = pg_catalog.timestamptz_le,
    COMMUTATOR = ~>=~, NEGATOR = ~>~, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR ~=~ (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = pg_catalog.timestamptz_eq,
    COMMUTATOR = ~=~, RESTRICT = eqsel, JOIN = eqjoinsel, MERGES);
CREATE OPERATOR ~>=~ (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = pg_catalog.timestamptz_ge,
    COMMUTATOR = ~<=~, NEGATOR = ~<~, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR ~>~ (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = pg_catalog.timestamptz_gt,
    COMMUTATOR = ~<~, NEGATOR = ~<=~, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);

COMMENT ON OPERATOR ~<~ (timestamptz, timestamptz) IS 'timestamptz < in the btree order of kid''s id types (operator family members)';
COMMENT ON OPERATOR ~<=~ (timestamptz, timestamptz) IS 'timestamptz <= in the btree order of kid''s id types (operator family members)';
COMMENT ON OPERATOR ~=~ (timestamptz, timestamptz) IS 'timestamptz = in the btree order of kid''s id types (operator family members)';
COMMENT ON OPERATOR ~>=~ (timestamptz, timestamptz) IS 'timestamptz >= in the btree order of kid''s id types (operator family members)';
COMMENT ON OPERATOR ~>~ (timestamptz, timestamptz) IS 'timestamptz > in the btree order of kid''s id types (operator family members)';
