-- kid_id_types: the list of kid's id types that kid's SQL reads instead of
-- naming them (src/sql/id_types.sql).  Each row is checked against the
-- catalog: a row naming a function that does not exist, or of the wrong
-- signature, or a lease line this server does not have, or a type missing
-- from the list, shows here.
SET TIME ZONE 'UTC';

SELECT type, prefix, id_noun, lease_lines, to_timestamp, from_timestamp, generators, safe_horizon
FROM kid_id_types ORDER BY type::oid;

-- The functions are named after the prefix, which kid's partition
-- maintenance builds their names from (kid_partition_key()).
SELECT t.type AS "named otherwise than its prefix" FROM kid_id_types t
WHERE t.to_timestamp <> t.prefix || '_to_timestamp' OR t.from_timestamp <> t.prefix || '_from_timestamp'
   OR t.safe_horizon <> t.prefix || '_safe_horizon';

-- Every function a row names is a function of kid's schema with the
-- signature its column means.
CREATE TEMP VIEW named(type, role, fn, args, result) AS
SELECT t.type, 'to_timestamp', t.to_timestamp, ARRAY[t.type::oid]::oidvector::text, 'timestamptz'::regtype FROM kid_id_types t
UNION ALL SELECT t.type, 'from_timestamp', t.from_timestamp, ARRAY['timestamptz'::regtype::oid]::oidvector::text, t.type FROM kid_id_types t
UNION ALL SELECT t.type, 'generator', g, CASE WHEN t.type = 'sno'::regtype THEN '23' ELSE '' END, t.type FROM kid_id_types t, unnest(t.generators) g
UNION ALL SELECT t.type, 'safe_horizon', t.safe_horizon, '', t.type FROM kid_id_types t;
SELECT n.type, n.role, n.fn AS "no such function"
FROM named n
WHERE NOT EXISTS (SELECT FROM pg_proc p
                  WHERE p.proname = n.fn AND p.pronamespace = (SELECT e.extnamespace FROM pg_extension e WHERE e.extname = 'kid')
                    AND p.proargtypes::text = n.args AND p.prorettype = n.result);

-- Every lease line a row names is one of this server's (kid_lease()), and
-- every line of kid_lease() that is not a commit horizon's is some type's.
SELECT t.type, l AS "no such lease line"
FROM kid_id_types t, unnest(t.lease_lines) l
WHERE l NOT IN (SELECT k.line FROM kid_lease() k);
SELECT k.line AS "lease line of no id type"
FROM kid_lease() k
WHERE k.line NOT LIKE '% horizon' AND NOT EXISTS (SELECT FROM kid_id_types t WHERE k.line = ANY (t.lease_lines));

-- Every type of kid's with a commit horizon (a generator under the lease)
-- is listed: a new scheme that forgot its row shows here.
SELECT p.prorettype::regtype AS "type missing from kid_id_types"
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'kid'
WHERE p.proname LIKE '%\_safe\_horizon' AND p.pronargs = 0
  AND p.prorettype NOT IN (SELECT t.type FROM kid_id_types t);

-- Read by everyone, written by no one but kid's scripts.
SET ROLE pg_monitor;
SELECT count(*) > 0 AS readable FROM kid_id_types;
INSERT INTO kid_id_types VALUES ('int8', 'x', 'x', '{x}', 'x', 'x', '{x}', 'x');
UPDATE kid_id_types SET id_noun = 'x';
DELETE FROM kid_id_types;
RESET ROLE;
