-- estimated_rows(query): the planner's estimate of the rows query returns
-- (the first rows= of its EXPLAIN).
CREATE FUNCTION estimated_rows(query text) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN ' || query LOOP
        RETURN (regexp_match(line, 'rows=(\d+)'))[1]::integer;
    END LOOP;
END $$;
