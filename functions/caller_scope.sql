-- brain.caller_role(): the role a SECURITY DEFINER function acts for,
-- inside which current_user is the function's owner: the role set by SET
-- ROLE (current_setting('role')), else the session's login (session_user).
-- SET ROLE and login are the only ways a role reaches those functions
-- (`serve` and a DBA's psql login). Used by brain.caller_scope and
-- brain.settle_text_indexes.
CREATE OR REPLACE FUNCTION brain.caller_role() RETURNS name
LANGUAGE sql STABLE
BEGIN ATOMIC
	SELECT CASE WHEN coalesce(current_setting('role', true), 'none') = 'none' THEN session_user
	            ELSE current_setting('role', true)::name END;
END;

-- brain.caller_scope(): which pages and chunks row security lets the
-- calling role read, for the SECURITY DEFINER functions (brain.keyword_scan,
-- brain.vector_arm, brain.page_access), inside which current_user is the
-- functions' owner and sees every row.
--
-- Guarantees:
-- * The caller is brain.caller_role(): the role set by SET ROLE, else the
--   session's login.
-- * 'all': brain.chunks has no row security, or the caller is a
--   superuser, has BYPASSRLS, has the privileges of the tables' owner, or
--   of a role of the chunks_trusted policy (owner, writer, reader).
--   'agent': it has the privileges of a role of the chunks_agent policy:
--   only pages whose brain.page_pii row has agent_visible. 'none': row
--   security shows it no row (so nothing may be reported to it).
-- * A caller without SELECT on brain.chunks gets insufficient_privilege,
--   as a query of the table would give it.
-- Roles are compared with pg_has_role(.., 'USAGE') only after the
-- superuser test: it is true of every role for a superuser.
CREATE OR REPLACE FUNCTION brain.caller_scope() RETURNS text
LANGUAGE plpgsql STABLE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	who name := brain.caller_role();
	r oid;
	bypass boolean;
BEGIN
	SELECT a.oid, a.rolsuper OR a.rolbypassrls INTO r, bypass FROM pg_catalog.pg_roles a WHERE a.rolname = who;
	IF r IS NULL THEN
		RETURN 'none';
	END IF;
	IF bypass OR NOT (SELECT c.relrowsecurity FROM pg_catalog.pg_class c WHERE c.oid = 'brain.chunks'::regclass)
	   OR pg_has_role(r, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = 'brain.chunks'::regclass), 'USAGE') THEN
		RETURN 'all';
	END IF;
	IF NOT has_table_privilege(r, 'brain.chunks'::regclass, 'SELECT') THEN
		RAISE EXCEPTION 'permission denied for table chunks (role %)', who
			USING ERRCODE = '42501', HINT = 'grant the role pgbrain_agent or pgbrain_reader';
	END IF;
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_policy p, unnest(p.polroles) pr
	           WHERE p.polrelid = 'brain.chunks'::regclass AND p.polname = 'chunks_trusted'
	             AND (pr = 0 OR pg_has_role(r, pr, 'USAGE'))) THEN
		RETURN 'all';
	END IF;
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_policy p, unnest(p.polroles) pr
	           WHERE p.polrelid = 'brain.chunks'::regclass AND p.polname = 'chunks_agent'
	             AND (pr = 0 OR pg_has_role(r, pr, 'USAGE'))) THEN
		RETURN 'agent';
	END IF;
	RETURN 'none';
END
$fn$;

-- brain.withheld_of(page_ids): what brain.search reports of pages hidden
-- from the caller: {pages (distinct ids), unclassified (no current
-- classification), categories (their blocked categories, sorted)}. An
-- aggregate: it names no page. Called by the SECURITY DEFINER arms, which
-- read brain.page_pii past row security.
CREATE OR REPLACE FUNCTION brain.withheld_of(page_ids bigint[]) RETURNS jsonb
LANGUAGE sql STABLE
BEGIN ATOMIC
	SELECT jsonb_build_object(
		'pages', count(DISTINCT u.pid),
		'unclassified', count(DISTINCT u.pid) FILTER (WHERE NOT EXISTS (
			SELECT 1 FROM brain.page_pii t WHERE t.page_id = u.pid AND NOT t.stale)),
		'categories', to_jsonb(ARRAY(
			SELECT DISTINCT c COLLATE "C" FROM brain.page_pii t, unnest(t.categories) c
			WHERE t.page_id = ANY (page_ids) AND c = ANY (brain.pii_blocked()) ORDER BY 1)))
	FROM unnest(coalesce(page_ids, '{}')) AS u (pid);
END;
