-- estimated_rows(query): the planner's estimate of the rows query returns
-- (the first rows= of its EXPLAIN).  Not a test (pg_regress runs
-- test/sql/*.sql): the tests of estimates read it with \i.
CREATE FUNCTION estimated_rows(query text) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN ' || query LOOP
        RETURN (regexp_match(line, 'rows=(\d+)'))[1]::integer;
    END LOOP;
END $$;
