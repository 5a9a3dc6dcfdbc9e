-- Once, as the superuser (the postgres image runs this on first start): the owner role that
-- migrates and the service role that may only append and read (docs/operations.md, PostgreSQL).
CREATE ROLE citetrace_owner LOGIN PASSWORD 'change-me-owner';
CREATE ROLE citetrace LOGIN PASSWORD 'change-me-service';
CREATE SCHEMA citetrace AUTHORIZATION citetrace_owner;
-- Each role finds the store by its search_path (a URL without options works too).
ALTER ROLE citetrace_owner SET search_path = citetrace;
ALTER ROLE citetrace SET search_path = citetrace;
