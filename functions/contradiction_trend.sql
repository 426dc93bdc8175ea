-- brain.contradiction_trend(days): pairs flagged by the
-- suspected-contradictions probe per UTC day, for the last `days` days
-- ending today.
--
-- Guarantees:
-- * One row per day, oldest first, zero for days without a run (ran tells
--   them apart), so a chart has no gaps.
-- * flagged counts distinct pairs (by their two text hashes) flagged by
--   any run of that day, so re-running the probe the same day does not
--   count a pair twice; pairs since marked not a contradiction are left
--   out. by_severity counts the same pairs by their worst severity.
CREATE OR REPLACE FUNCTION brain.contradiction_trend(days int)
RETURNS TABLE (day date, ran boolean, flagged bigint, high bigint, medium bigint, low bigint)
LANGUAGE sql STABLE
BEGIN ATOMIC
	WITH span AS (
		SELECT g::date AS day
		  FROM generate_series((now() AT TIME ZONE 'UTC')::date - (greatest(days, 1) - 1),
		                       (now() AT TIME ZONE 'UTC')::date, interval '1 day') g
	), runs AS (
		SELECT DISTINCT (r.started_at AT TIME ZONE 'UTC')::date AS day
		  FROM brain.eval_contradiction_runs r
	), pairs AS (
		SELECT (r.started_at AT TIME ZONE 'UTC')::date AS day, f.hash_a, f.hash_b,
			max(CASE f.severity WHEN 'high' THEN 3 WHEN 'medium' THEN 2 ELSE 1 END) AS worst
		  FROM brain.eval_contradiction_findings f
		  JOIN brain.eval_contradiction_runs r ON r.id = f.run_id
		 WHERE NOT EXISTS (SELECT 1 FROM brain.eval_contradictions_dismissed d
		                    WHERE d.hash_a = f.hash_a AND d.hash_b = f.hash_b)
		 GROUP BY 1, 2, 3
	)
	SELECT s.day, EXISTS (SELECT 1 FROM runs WHERE runs.day = s.day),
		count(p.hash_a), count(p.hash_a) FILTER (WHERE p.worst = 3),
		count(p.hash_a) FILTER (WHERE p.worst = 2), count(p.hash_a) FILTER (WHERE p.worst = 1)
	  FROM span s LEFT JOIN pairs p ON p.day = s.day
	 GROUP BY s.day
	 ORDER BY s.day;
END;
