-- pii_policy_changed: a change of the blocked set recomputes agent_visible
-- of every classified page in the same transaction.
CREATE OR REPLACE FUNCTION brain.pii_policy_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	blocked text[] := brain.pii_blocked();
BEGIN
	UPDATE brain.page_pii t SET agent_visible = NOT t.stale AND NOT (t.categories && blocked)
	WHERE t.agent_visible IS DISTINCT FROM (NOT t.stale AND NOT (t.categories && blocked));
	RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS pii_policy_changed ON brain.pii_policy;
CREATE TRIGGER pii_policy_changed
	AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON brain.pii_policy
	FOR EACH STATEMENT EXECUTE FUNCTION brain.pii_policy_changed();
