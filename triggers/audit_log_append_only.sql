-- audit_log_00_append_only: brain.audit_log only ever grows. UPDATE
-- (including INSERT ... ON CONFLICT DO UPDATE), DELETE and TRUNCATE are
-- refused for every role, superusers included, and even when no row would
-- be affected. ENABLE ALWAYS keeps it firing under
-- session_replication_role = replica; only the table owner or a superuser
-- can switch it off (ALTER TABLE ... DISABLE TRIGGER), and what they then
-- change is caught by brain.audit_verify.
CREATE OR REPLACE FUNCTION brain.audit_log_refuse_change() RETURNS trigger
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	RAISE EXCEPTION 'brain.audit_log is append-only: % is refused', TG_OP
		USING ERRCODE = 'insufficient_privilege',
		      HINT = 'audit rows are never changed or removed; check the chain with SELECT * FROM brain.audit_verify(true)';
END
$fn$;

DROP TRIGGER IF EXISTS audit_log_00_append_only ON brain.audit_log;
CREATE TRIGGER audit_log_00_append_only
	BEFORE UPDATE OR DELETE OR TRUNCATE ON brain.audit_log
	FOR EACH STATEMENT EXECUTE FUNCTION brain.audit_log_refuse_change();
ALTER TABLE brain.audit_log ENABLE ALWAYS TRIGGER audit_log_00_append_only;
