
-- ---------------------------------------------------------------------------
-- sno: 10 bytes; 39-bit 4 ms time since 2010 + tick-tock bit, metabyte,
-- 16-bit partition, 16-bit sequence.  Text: 16 characters of
-- 23456789abcdefghijklmnopqrstuvwx.  Byte order = text order = time order.
-- ---------------------------------------------------------------------------

CREATE TYPE sno;

CREATE FUNCTION sno_in(cstring) RETURNS sno
AS 'MODULE_PATHNAME', 'sno_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_out(sno) RETURNS cstring
AS 'MODULE_PATHNAME', 'sno_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_recv(internal) RETURNS sno
AS 'MODULE_PATHNAME', 'sno_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_send(sno) RETURNS bytea
AS 'MODULE_PATHNAME', 'sno_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE sno (
    INPUT = sno_in,
    OUTPUT = sno_out,
    RECEIVE = sno_recv,
    SEND = sno_send,
    INTERNALLENGTH = 10,
    ALIGNMENT = char,
    STORAGE = plain
);

COMMENT ON TYPE sno IS
'k-ordered unique id, 10 bytes: 4 ms time since 2010 (to 2079), tick-tock bit, metabyte, partition, sequence; text is 16 sortable base32 characters';
COMMENT ON FUNCTION sno_in(cstring) IS 'sno text input: exactly 16 characters of 23456789abcdefghijklmnopqrstuvwx';
COMMENT ON FUNCTION sno_out(sno) IS 'sno text output';
COMMENT ON FUNCTION sno_recv(internal) IS 'sno binary input: exactly 10 bytes';
COMMENT ON FUNCTION sno_send(sno) IS 'sno binary output: the 10 bytes';

-- Casts to and from bytea: the 10 big-endian bytes.
CREATE FUNCTION sno_to_bytea(sno) RETURNS bytea
AS 'MODULE_PATHNAME', 'sno_to_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_from_bytea(bytea) RETURNS sno
AS 'MODULE_PATHNAME', 'sno_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (sno AS bytea) WITH FUNCTION sno_to_bytea(sno);
CREATE CAST (bytea AS sno) WITH FUNCTION sno_from_bytea(bytea);
COMMENT ON FUNCTION sno_to_bytea(sno) IS 'the 10 bytes of an sno';
COMMENT ON FUNCTION sno_from_bytea(bytea) IS 'an sno from exactly 10 bytes';

-- Comparison: byte order.
CREATE FUNCTION sno_lt(sno, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_lt' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_le(sno, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_le' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_eq(sno, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_eq' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_ne(sno, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_ne' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_ge(sno, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_ge' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_gt(sno, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_gt' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_cmp(sno, sno) RETURNS integer
AS 'MODULE_PATHNAME', 'sno_cmp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_sortsupport(internal) RETURNS void
AS 'MODULE_PATHNAME', 'sno_sortsupport' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_hash(sno) RETURNS integer
AS 'MODULE_PATHNAME', 'sno_hash' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_hash_extended(sno, bigint) RETURNS bigint
AS 'MODULE_PATHNAME', 'sno_hash_extended' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;

COMMENT ON FUNCTION sno_lt(sno, sno) IS 'implementation of < for sno';
COMMENT ON FUNCTION sno_le(sno, sno) IS 'implementation of <= for sno';
COMMENT ON FUNCTION sno_eq(sno, sno) IS 'implementation of = for sno';
COMMENT ON FUNCTION sno_ne(sno, sno) IS 'implementation of <> for sno';
COMMENT ON FUNCTION sno_ge(sno, sno) IS 'implementation of >= for sno';
COMMENT ON FUNCTION sno_gt(sno, sno) IS 'implementation of > for sno';
COMMENT ON FUNCTION sno_cmp(sno, sno) IS 'btree comparison of sno: -1, 0 or 1';
COMMENT ON FUNCTION sno_sortsupport(internal) IS 'btree sort support for sno, with abbreviated keys';
COMMENT ON FUNCTION sno_hash(sno) IS 'hash of an sno';
COMMENT ON FUNCTION sno_hash_extended(sno, bigint) IS 'seeded 64-bit hash of an sno (hash partitioning)';

CREATE OPERATOR < (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);

COMMENT ON OPERATOR < (sno, sno) IS 'sno is earlier (byte order)';
COMMENT ON OPERATOR <= (sno, sno) IS 'sno is earlier or equal';
COMMENT ON OPERATOR = (sno, sno) IS 'sno equality';
COMMENT ON OPERATOR <> (sno, sno) IS 'sno inequality';
COMMENT ON OPERATOR >= (sno, sno) IS 'sno is later or equal';
COMMENT ON OPERATOR > (sno, sno) IS 'sno is later (byte order)';

CREATE OPERATOR CLASS sno_ops DEFAULT FOR TYPE sno USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 sno_cmp(sno, sno),
    FUNCTION 2 sno_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS sno_hash_ops DEFAULT FOR TYPE sno USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 sno_hash(sno),
    FUNCTION 2 sno_hash_extended(sno, bigint);

COMMENT ON OPERATOR CLASS sno_ops USING btree IS 'btree order of sno: time order';
COMMENT ON OPERATOR CLASS sno_hash_ops USING hash IS 'hash support for sno';

-- min() and max(); with SORTOP the planner answers them from a btree index.
CREATE FUNCTION sno_smaller(sno, sno) RETURNS sno
AS 'MODULE_PATHNAME', 'sno_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_larger(sno, sno) RETURNS sno
AS 'MODULE_PATHNAME', 'sno_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(sno) (SFUNC = sno_smaller, STYPE = sno, SORTOP = <, COMBINEFUNC = sno_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(sno) (SFUNC = sno_larger, STYPE = sno, SORTOP = >, COMBINEFUNC = sno_larger, PARALLEL = SAFE);
COMMENT ON FUNCTION sno_smaller(sno, sno) IS 'the smaller of two sno ids';
COMMENT ON FUNCTION sno_larger(sno, sno) IS 'the larger of two sno ids';
COMMENT ON AGGREGATE min(sno) IS 'the earliest sno';
COMMENT ON AGGREGATE max(sno) IS 'the latest sno';

-- Generation.  VOLATILE so that DEFAULT sno_new() gives every row its own id;
-- PARALLEL RESTRICTED so it runs in the leader, which holds the partition.
CREATE FUNCTION sno_new(meta integer DEFAULT 0) RETURNS sno
AS 'MODULE_PATHNAME', 'sno_new' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION sno_new(integer) IS
'a new unique sno with the given metabyte (0..255), from this backend''s partition; needs kid in shared_preload_libraries';

CREATE FUNCTION sno_new_with_time(at timestamptz, meta integer DEFAULT 0) RETURNS sno
AS 'MODULE_PATHNAME', 'sno_new_with_time' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION sno_new_with_time(timestamptz, integer) IS
'an sno carrying a given time (backfills): tick 0, this backend''s partition, a per-backend sequence; NOT guaranteed unique';

-- Decoding.
CREATE FUNCTION sno_to_timestamp(sno) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'sno_to_timestamp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_meta(sno) RETURNS integer
AS 'MODULE_PATHNAME', 'sno_meta' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_partition(sno) RETURNS integer
AS 'MODULE_PATHNAME', 'sno_partition' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_sequence(sno) RETURNS integer
AS 'MODULE_PATHNAME', 'sno_sequence' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_tick(sno) RETURNS integer
AS 'MODULE_PATHNAME', 'sno_tick' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_info(id sno,
    OUT "time" timestamptz, OUT tick integer, OUT meta integer,
    OUT partition integer, OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'sno_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION sno_to_timestamp(sno) IS 'the start of the 4 ms unit an sno was made in';
COMMENT ON FUNCTION sno_meta(sno) IS 'the metabyte of an sno (0..255)';
COMMENT ON FUNCTION sno_partition(sno) IS 'the partition of an sno: node id * 256 + backend slot for generated ids';
COMMENT ON FUNCTION sno_sequence(sno) IS 'the sequence of an sno within its 4 ms unit and partition';
COMMENT ON FUNCTION sno_tick(sno) IS 'the tick-tock bit of an sno: 1 on the timeline taken after a clock regression';
COMMENT ON FUNCTION sno_info(sno) IS 'every field of an sno';

-- Range-scan boundary.
CREATE FUNCTION sno_from_timestamp(timestamptz) RETURNS sno
AS 'MODULE_PATHNAME', 'sno_from_timestamp' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION sno_from_timestamp(timestamptz) IS
'the smallest sno of the 4 ms unit holding a time: WHERE id >= sno_from_timestamp(t) is an index range scan';

-- Range scans by time.  Comparison operators between sno and timestamptz,
-- in sno's btree operator family, so that WHERE id >= now() - interval '1 hour'
-- is an index range scan (and prunes range partitions).  A timestamptz t
-- compares exactly like sno_from_timestamp(t), the smallest sno of t's 4 ms
-- unit; times before 2010 compare below every sno, times after 2079 above.
-- Hence id >= t and id < t split ids at t's unit exactly, while id = t holds
-- only for that smallest id and id <= t includes no other id of t's unit.
CREATE FUNCTION sno_lt_timestamptz(sno, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_lt_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_le_timestamptz(sno, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_le_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_eq_timestamptz(sno, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_eq_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_ne_timestamptz(sno, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_ne_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_ge_timestamptz(sno, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_ge_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_gt_timestamptz(sno, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'sno_gt_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION sno_cmp_timestamptz(sno, timestamptz) RETURNS integer
AS 'MODULE_PATHNAME', 'sno_cmp_timestamptz' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_lt_sno(timestamptz, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_lt_sno' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_le_sno(timestamptz, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_le_sno' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_eq_sno(timestamptz, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_eq_sno' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_ne_sno(timestamptz, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_ne_sno' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_ge_sno(timestamptz, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_ge_sno' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_gt_sno(timestamptz, sno) RETURNS boolean
AS 'MODULE_PATHNAME', 'timestamptz_gt_sno' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION timestamptz_cmp_sno(timestamptz, sno) RETURNS integer
AS 'MODULE_PATHNAME', 'timestamptz_cmp_sno' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;

COMMENT ON FUNCTION sno_lt_timestamptz(sno, timestamptz) IS 'implementation of sno < timestamptz';
COMMENT ON FUNCTION sno_le_timestamptz(sno, timestamptz) IS 'implementation of sno <= timestamptz';
COMMENT ON FUNCTION sno_eq_timestamptz(sno, timestamptz) IS 'implementation of sno = timestamptz';
COMMENT ON FUNCTION sno_ne_timestamptz(sno, timestamptz) IS 'implementation of sno <> timestamptz';
COMMENT ON FUNCTION sno_ge_timestamptz(sno, timestamptz) IS 'implementation of sno >= timestamptz';
COMMENT ON FUNCTION sno_gt_timestamptz(sno, timestamptz) IS 'implementation of sno > timestamptz';
COMMENT ON FUNCTION sno_cmp_timestamptz(sno, timestamptz) IS 'btree comparison of an sno with the smallest sno of a time';
COMMENT ON FUNCTION timestamptz_lt_sno(timestamptz, sno) IS 'implementation of timestamptz < sno';
COMMENT ON FUNCTION timestamptz_le_sno(timestamptz, sno) IS 'implementation of timestamptz <= sno';
COMMENT ON FUNCTION timestamptz_eq_sno(timestamptz, sno) IS 'implementation of timestamptz = sno';
COMMENT ON FUNCTION timestamptz_ne_sno(timestamptz, sno) IS 'implementation of timestamptz <> sno';
COMMENT ON FUNCTION timestamptz_ge_sno(timestamptz, sno) IS 'implementation of timestamptz >= sno';
COMMENT ON FUNCTION timestamptz_gt_sno(timestamptz, sno) IS 'implementation of timestamptz > sno';
COMMENT ON FUNCTION timestamptz_cmp_sno(timestamptz, sno) IS 'btree comparison of the smallest sno of a time with an sno';

CREATE OPERATOR < (LEFTARG = sno, RIGHTARG = timestamptz, FUNCTION = sno_lt_timestamptz,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = sno, RIGHTARG = timestamptz, FUNCTION = sno_le_timestamptz,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = sno, RIGHTARG = timestamptz, FUNCTION = sno_eq_timestamptz,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (LEFTARG = sno, RIGHTARG = timestamptz, FUNCTION = sno_ne_timestamptz,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = sno, RIGHTARG = timestamptz, FUNCTION = sno_ge_timestamptz,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = sno, RIGHTARG = timestamptz, FUNCTION = sno_gt_timestamptz,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR < (LEFTARG = timestamptz, RIGHTARG = sno, FUNCTION = timestamptz_lt_sno,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = timestamptz, RIGHTARG = sno, FUNCTION = timestamptz_le_sno,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = timestamptz, RIGHTARG = sno, FUNCTION = timestamptz_eq_sno,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (LEFTARG = timestamptz, RIGHTARG = sno, FUNCTION = timestamptz_ne_sno,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = timestamptz, RIGHTARG = sno, FUNCTION = timestamptz_ge_sno,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = timestamptz, RIGHTARG = sno, FUNCTION = timestamptz_gt_sno,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);

COMMENT ON OPERATOR < (sno, timestamptz) IS 'sno is before the time''s 4 ms unit';
COMMENT ON OPERATOR <= (sno, timestamptz) IS 'sno is at most the smallest sno of the time''s unit';
COMMENT ON OPERATOR = (sno, timestamptz) IS 'sno is the smallest sno of the time''s unit';
COMMENT ON OPERATOR <> (sno, timestamptz) IS 'sno is not the smallest sno of the time''s unit';
COMMENT ON OPERATOR >= (sno, timestamptz) IS 'sno is in or after the time''s 4 ms unit';
COMMENT ON OPERATOR > (sno, timestamptz) IS 'sno is above the smallest sno of the time''s unit';
COMMENT ON OPERATOR < (timestamptz, sno) IS 'the smallest sno of the time''s unit is below the sno';
COMMENT ON OPERATOR <= (timestamptz, sno) IS 'sno is in or after the time''s 4 ms unit';
COMMENT ON OPERATOR = (timestamptz, sno) IS 'sno is the smallest sno of the time''s unit';
COMMENT ON OPERATOR <> (timestamptz, sno) IS 'sno is not the smallest sno of the time''s unit';
COMMENT ON OPERATOR >= (timestamptz, sno) IS 'sno is at most the smallest sno of the time''s unit';
COMMENT ON OPERATOR > (timestamptz, sno) IS 'sno is before the time''s 4 ms unit';

ALTER OPERATOR FAMILY sno_ops USING btree ADD
    OPERATOR 1 < (sno, timestamptz),
    OPERATOR 2 <= (sno, timestamptz),
    OPERATOR 3 = (sno, timestamptz),
    OPERATOR 4 >= (sno, timestamptz),
    OPERATOR 5 > (sno, timestamptz),
    FUNCTION 1 (sno, timestamptz) sno_cmp_timestamptz(sno, timestamptz),
    OPERATOR 1 < (timestamptz, sno),
    OPERATOR 2 <= (timestamptz, sno),
    OPERATOR 3 = (timestamptz, sno),
    OPERATOR 4 >= (timestamptz, sno),
    OPERATOR 5 > (timestamptz, sno),
    FUNCTION 1 (timestamptz, sno) timestamptz_cmp_sno(timestamptz, sno);

-- BRIN: min/max summaries for append-only tables ordered by sno, with the
-- same cross-type operators so that id >= t can skip block ranges.
CREATE OPERATOR CLASS sno_minmax_ops DEFAULT FOR TYPE sno USING brin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);
ALTER OPERATOR FAMILY sno_minmax_ops USING brin ADD
    OPERATOR 1 < (sno, timestamptz),
    OPERATOR 2 <= (sno, timestamptz),
    OPERATOR 3 = (sno, timestamptz),
    OPERATOR 4 >= (sno, timestamptz),
    OPERATOR 5 > (sno, timestamptz);
COMMENT ON OPERATOR CLASS sno_minmax_ops USING brin IS 'BRIN min/max summaries of sno, usable with sno and timestamptz bounds';
