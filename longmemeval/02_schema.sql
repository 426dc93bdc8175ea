-- The scratch brain's helpers live in schema longmemeval, outside schema
-- brain, so a reset (06_reset.sql) never counts them as brain tables.

CREATE SCHEMA longmemeval;
