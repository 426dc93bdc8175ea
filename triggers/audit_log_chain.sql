-- audit_log_10_chain: every audit row is linked into one hash chain by the
-- database, whoever inserts it. Under a transaction-scoped advisory lock
-- (key pair 1885823602 = 'pgbr', 1), which serialises writers until commit,
-- the trigger reads the newest committed row and sets
--   id          = previous id + 1 (1 for the first row: no gaps)
--   prev_hash   = previous chain_hash (genesis: 32 zero bytes)
--   occurred_at = clock_timestamp() (writers cannot back-date a row)
--   fingerprint = brain.audit_fingerprint(...), fingerprint_version = 1
--   chain_hash  = sha256(prev_hash || brain.audit_canonical_row(row))
-- overriding whatever the writer supplied. The lock is released only after
-- the commit is visible, so the next writer (READ COMMITTED, the default)
-- sees this row; a writer with an older snapshot (REPEATABLE READ) computes a
-- taken id and fails on the primary key instead of forking the chain.
-- SECURITY DEFINER: writers need no SELECT privilege to extend the chain.
-- ENABLE ALWAYS: it fires under session_replication_role = replica as well.
CREATE OR REPLACE FUNCTION brain.audit_log_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
	last_id   bigint;
	last_hash bytea;
BEGIN
	PERFORM pg_advisory_xact_lock(1885823602, 1);
	SELECT a.id, a.chain_hash INTO last_id, last_hash
	FROM brain.audit_log a ORDER BY a.id DESC LIMIT 1;
	NEW.id := coalesce(last_id, 0) + 1;
	NEW.prev_hash := coalesce(last_hash, decode(repeat('00', 32), 'hex'));
	NEW.occurred_at := clock_timestamp();
	NEW.pii_categories := brain.pii_normalize(NEW.pii_categories);
	NEW.fingerprint_version := 1;
	NEW.fingerprint := brain.audit_fingerprint(
		NEW.tool_name, NEW.status, NEW.refusal_reason, NEW.pii_categories, NEW.cost_class);
	NEW.chain_hash := sha256(NEW.prev_hash || brain.audit_canonical_row(NEW));
	RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS audit_log_10_chain ON brain.audit_log;
CREATE TRIGGER audit_log_10_chain
	BEFORE INSERT ON brain.audit_log
	FOR EACH ROW EXECUTE FUNCTION brain.audit_log_chain();
ALTER TABLE brain.audit_log ENABLE ALWAYS TRIGGER audit_log_10_chain;
