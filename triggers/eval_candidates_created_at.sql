-- eval_candidates_10_created_at: the database, never the writer, stamps
-- created_at, and only after the inserting transaction holds its
-- transaction id. So every row's created_at is later than the moment its
-- transaction became visible as running in pg_stat_activity.backend_xid,
-- which is what brain.eval_window_end() relies on to hand out window ends
-- that no still-running transaction can commit a row before. (A DBA can
-- still UPDATE created_at, e.g. to backfill; an UPDATE is not a new capture.)
CREATE OR REPLACE FUNCTION brain.eval_candidates_set_created_at() RETURNS trigger
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	PERFORM pg_current_xact_id();
	NEW.created_at := clock_timestamp();
	RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS eval_candidates_10_created_at ON brain.eval_candidates;
CREATE TRIGGER eval_candidates_10_created_at
	BEFORE INSERT ON brain.eval_candidates
	FOR EACH ROW EXECUTE FUNCTION brain.eval_candidates_set_created_at();
