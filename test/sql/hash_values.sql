-- hash_values: the hash support functions of every kid type, pinned to
-- exact numbers.  They are an on-disk contract: Citus places a row on the
-- shard its distribution column's TYPE_hash value falls in, and PostgreSQL's
-- hash partitioning places it by TYPE_hash_extended (a hash index stores
-- them too).  A changed hash would misplace the rows of every existing
-- cluster and partitioned table, so these numbers never change.
SET TIME ZONE 'UTC';

CREATE TEMP TABLE fixed_ids (type text, id text, hash integer, hash_0 bigint, hash_42 bigint);
INSERT INTO fixed_ids
SELECT 'sno', x::text, sno_hash(x), sno_hash_extended(x, 0), sno_hash_extended(x, 42)
FROM (VALUES (sno_from_timestamp('2024-01-02 03:04:05.678+00')), ('\x0123456789abcdef0123'::bytea::sno)) v(x)
UNION ALL
SELECT 'atproto_tid', x::text, atproto_tid_hash(x), atproto_tid_hash_extended(x, 0), atproto_tid_hash_extended(x, 42)
FROM (VALUES (tid_from_timestamp('2024-01-02 03:04:05.678+00')), ('3jzfcijpj2z2a'::atproto_tid)) v(x)
UNION ALL
SELECT 'koid', x::text, koid_hash(x), koid_hash_extended(x, 0), koid_hash_extended(x, 42)
FROM (VALUES (koid_from_timestamp('2024-01-02 03:04:05.678+00')), (koid_from_bigint(1541815603606036480))) v(x)
UNION ALL
SELECT 'uid', x::text, uid_hash(x), uid_hash_extended(x, 0), uid_hash_extended(x, 42)
FROM (VALUES (uid_from_timestamp('2024-01-02 03:04:05.678+00')), (uid_from_bigint(123456789012345678))) v(x)
UNION ALL
SELECT 'uid_global', x::text, uid_global_hash(x), uid_global_hash_extended(x, 0), uid_global_hash_extended(x, 42)
FROM (VALUES (uid_global_from_timestamp('2024-01-02 03:04:05.678+00')), (uid_to_global(uid_from_bigint(123456789012345678), 305419896, 8))) v(x)
UNION ALL
SELECT 'codokey', x::text, codokey_hash(x), codokey_hash_extended(x, 0), codokey_hash_extended(x, 42)
FROM (VALUES (codokey('2024-01-02 03:04:05+00', 6)), ('yf17'::codokey)) v(x);
SELECT * FROM fixed_ids;

-- The same numbers through the operator classes, as Citus and hash
-- partitioning reach them (support function 1 and 2 of the default hash
-- operator class of each type).
SELECT t.typname AS type, p1.amproc AS hash, p2.amproc AS hash_extended
FROM pg_opclass c
JOIN pg_type t ON t.oid = c.opcintype
JOIN pg_am a ON a.oid = c.opcmethod AND a.amname = 'hash'
JOIN pg_amproc p1 ON p1.amprocfamily = c.opcfamily AND p1.amprocnum = 1 AND p1.amproclefttype = t.oid
JOIN pg_amproc p2 ON p2.amprocfamily = c.opcfamily AND p2.amprocnum = 2 AND p2.amproclefttype = t.oid
WHERE c.opcdefault AND t.typname IN ('sno', 'atproto_tid', 'koid', 'uid', 'uid_global', 'codokey')
ORDER BY 1;

-- Why they are what they are: the 8-byte types hash their value as
-- PostgreSQL hashes a bigint (for values below 2^63), and codokey hashes
-- its text as PostgreSQL hashes text; sno and uid_global hash their bytes.
SELECT type, id, bool_and(hash = hashint8(v) AND hash_0 = hashint8extended(v, 0)
                          AND hash_42 = hashint8extended(v, 42)) AS as_bigint
FROM (SELECT f.*, CASE type WHEN 'atproto_tid' THEN atproto_tid_to_bigint(id::atproto_tid)
                            WHEN 'koid' THEN koid_to_bigint(id::koid)
                            WHEN 'uid' THEN uid_to_bigint(id::uid) END AS v
      FROM fixed_ids f WHERE type IN ('atproto_tid', 'koid', 'uid')) s
GROUP BY type, id ORDER BY type, id;
SELECT id, hash = hashtext(id) AND hash_0 = hashtextextended(id, 0) AND hash_42 = hashtextextended(id, 42) AS as_text
FROM fixed_ids WHERE type = 'codokey' ORDER BY id;

-- Hash partitioning by each type: the partition (of 4) each fixed id lands in.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['sno', 'atproto_tid', 'koid', 'uid', 'uid_global', 'codokey'] LOOP
        EXECUTE format('CREATE TEMP TABLE hashed_%1$s (id %1$s) PARTITION BY HASH (id)', t);
        FOR r IN 0..3 LOOP
            EXECUTE format('CREATE TEMP TABLE hashed_%1$s_%2$s PARTITION OF hashed_%1$s FOR VALUES WITH (MODULUS 4, REMAINDER %2$s)', t, r);
        END LOOP;
        EXECUTE format('INSERT INTO hashed_%1$s SELECT id::%1$s FROM fixed_ids WHERE type = %1$L', t);
    END LOOP;
END $$;
SELECT tableoid::regclass AS partition, id::text FROM hashed_sno
UNION ALL SELECT tableoid::regclass, id::text FROM hashed_atproto_tid
UNION ALL SELECT tableoid::regclass, id::text FROM hashed_koid
UNION ALL SELECT tableoid::regclass, id::text FROM hashed_uid
UNION ALL SELECT tableoid::regclass, id::text FROM hashed_uid_global
UNION ALL SELECT tableoid::regclass, id::text FROM hashed_codokey
ORDER BY 1, 2;
