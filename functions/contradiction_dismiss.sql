-- brain.contradiction_dismiss(hash_1, hash_2, note): marks the pair of chunk
-- texts with these sha256 hashes (either order) as not a contradiction, so
-- the suspected-contradictions probe never flags or asks about it again.
--
-- Guarantees:
-- * The pair is stored smaller hash first; marking it again keeps the first
--   mark and returns false. Returns true when the mark is new.
-- * A hash that is not 64 lower-case hex digits is refused naming it.
CREATE OR REPLACE FUNCTION brain.contradiction_dismiss(hash_1 text, hash_2 text, note text DEFAULT '')
RETURNS boolean
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE n int;
BEGIN
	IF hash_1 IS NULL OR hash_1 !~ '^[0-9a-f]{64}$' OR hash_2 IS NULL OR hash_2 !~ '^[0-9a-f]{64}$' THEN
		RAISE EXCEPTION 'contradiction_dismiss: % and % must both be sha256 hashes (64 lower-case hex digits) as printed by pgbrain doctor', hash_1, hash_2
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	INSERT INTO brain.eval_contradictions_dismissed (hash_a, hash_b, note)
	VALUES (least(hash_1, hash_2), greatest(hash_1, hash_2), coalesce(note, ''))
	ON CONFLICT DO NOTHING;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n > 0;
END
$fn$;
