-- page_pii_10_agent_visible: agent_visible is what row security reads:
-- true only for a current classification free of blocked categories.
CREATE OR REPLACE FUNCTION brain.page_pii_agent_visible() RETURNS trigger
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	NEW.agent_visible := NOT NEW.stale AND NOT (NEW.categories && brain.pii_blocked());
	RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS page_pii_10_agent_visible ON brain.page_pii;
CREATE TRIGGER page_pii_10_agent_visible
	BEFORE INSERT OR UPDATE ON brain.page_pii
	FOR EACH ROW EXECUTE FUNCTION brain.page_pii_agent_visible();
