-- The view the harness reads what each request cost the database from
-- (harness/runner/dbcounts.go), as TFB's verifier reads it. The seed's
-- server has not loaded the library yet (postgresql.conf loads it on the
-- server that starts after the seed); creating the extension does not
-- need it loaded, reading its view does.
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
