-- scan_nodes(query): the scan nodes of query's plan (EXPLAIN (COSTS OFF)),
-- without the lines around them, which differ between PostgreSQL versions.
CREATE FUNCTION scan_nodes(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        IF line ~ 'Scan' THEN RETURN NEXT btrim(line); END IF;
    END LOOP;
END $$;
