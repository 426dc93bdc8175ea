-- brain.eval_prune(older_than, dry_run): deletes (or, with dry_run, only
-- counts) the captured candidates created more than older_than ago and
-- returns how many. An interval of zero removes every candidate, including
-- rows stamped a moment after this statement began.
CREATE OR REPLACE FUNCTION brain.eval_prune(older_than interval, dry_run boolean DEFAULT false) RETURNS bigint
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE n bigint;
BEGIN
	IF older_than < interval '0' THEN
		RAISE EXCEPTION 'eval_prune: older_than must not be negative (got %)', older_than
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF dry_run THEN
		SELECT count(*) INTO n FROM brain.eval_candidates
		 WHERE older_than = interval '0' OR created_at < now() - older_than;
	ELSE
		DELETE FROM brain.eval_candidates
		 WHERE older_than = interval '0' OR created_at < now() - older_than;
		GET DIAGNOSTICS n = ROW_COUNT;
	END IF;
	RETURN n;
END
$fn$;
