-- 022_import_folders: the folders each source was imported from, where
-- agents cannot read them; and the pages whose type migration 021 changed.
--
-- Guarantees:
-- * brain.import_folders holds, per source, the absolute path (symbolic
--   links resolved) of every folder `pgbrain import` read into it, so an
--   import of a folder inside or around one of them can be refused
--   (internal/ingest/roots.go: its files would be stored again under new
--   slugs). A path can name a person (/home/alice/notes): the table is
--   granted to the owner and writer roles only (functions/setup_roles.sql),
--   never to readers or agents. Removing a source removes its folders.
-- * The folder hashes an earlier build kept in brain.sources.config
--   ('import_roots', readable by every role) are dropped.
-- * Pages an import wrote whose first folder holds a non-ASCII character
--   get a content hash no file has, so the next import of their folder
--   rewrites them with the type migration 021 allows ("Café/menu.md" had
--   the type "caf", "東京/会議.md" had "page"), instead of skipping them as
--   unchanged. A type from frontmatter cannot be told apart here: such a
--   page gets its new type when its file changes.

CREATE TABLE brain.import_folders (
	source_id   text NOT NULL REFERENCES brain.sources (id) ON DELETE CASCADE,
	path        text NOT NULL CHECK (length(path) BETWEEN 1 AND 4096),
	imported_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (source_id, path)
);

UPDATE brain.sources SET config = config - 'import_roots' WHERE config ? 'import_roots';

UPDATE brain.pages SET content_hash = repeat('0', 64)
WHERE origin = 'file' AND strpos(slug, '/') > 0 AND split_part(slug, '/', 1) ~ '[^\u0001-\u007f]';

-- brain.setup_roles() as of this version: it also grants
-- brain.import_folders to pgbrain_writer.
CREATE OR REPLACE FUNCTION brain.setup_roles() RETURNS text
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	r text;
	missing text[] := '{}';
	may_create boolean;
	t text;
BEGIN
	-- Two commands migrating one database at once would deadlock on the
	-- grants: one at a time (key pair 'pgbr', 13).
	PERFORM pg_advisory_xact_lock(1885823602, 13);
	SELECT rolsuper OR rolcreaterole INTO may_create FROM pg_roles WHERE rolname = current_user;
	FOREACH r IN ARRAY ARRAY['pgbrain_owner', 'pgbrain_writer', 'pgbrain_reader', 'pgbrain_agent',
	                         'pgbrain_auditor', 'pgbrain_audit_writer'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			IF may_create THEN
				BEGIN
					EXECUTE format('CREATE ROLE %I NOLOGIN', r);
				EXCEPTION WHEN duplicate_object OR unique_violation THEN
					NULL; -- created meanwhile by a migration of another database
				END;
			ELSE
				missing := missing || r;
			END IF;
		END IF;
	END LOOP;
	IF cardinality(missing) > 0 THEN
		RAISE WARNING 'pgbrain roles % do not exist and role % may not create them', array_to_string(missing, ', '), current_user
			USING HINT = 'the brain works, but every pgbrain command runs as ' || current_user
			          || ', serve refuses to start, and no other role sees pages or chunks; have a superuser run: '
			          || 'CREATE ROLE ' || array_to_string(missing, ' NOLOGIN; CREATE ROLE ') || ' NOLOGIN; '
			          || 'GRANT ' || array_to_string(missing, ', ') || ' TO ' || quote_ident(current_user)
			          || ' WITH ADMIN OPTION; then run pgbrain migrate (or SELECT brain.setup_roles()) again';
		RETURN 'missing: ' || array_to_string(missing, ', ');
	END IF;

	-- The migrating role may act as each of them (SET ROLE), which is how
	-- the CLI drops to the least role a command needs.
	FOREACH r IN ARRAY ARRAY['pgbrain_owner', 'pgbrain_writer', 'pgbrain_reader', 'pgbrain_agent', 'pgbrain_auditor'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_auth_members m
		               WHERE m.roleid = to_regrole(r) AND m.member = to_regrole(current_user::text)) THEN
			BEGIN
				EXECUTE format('GRANT %I TO %I', r, current_user);
			EXCEPTION WHEN insufficient_privilege OR invalid_grant_operation THEN
				RAISE WARNING 'role % cannot be granted % (SET ROLE % will fail): %', current_user, r, r, SQLERRM;
			END;
		END IF;
	END LOOP;
	IF NOT EXISTS (SELECT 1 FROM pg_auth_members m
	               WHERE m.roleid = 'pgbrain_audit_writer'::regrole AND m.member = 'pgbrain_agent'::regrole) THEN
		BEGIN
			GRANT pgbrain_audit_writer TO pgbrain_agent;
		EXCEPTION WHEN insufficient_privilege OR invalid_grant_operation THEN
			RAISE WARNING 'role % cannot grant pgbrain_audit_writer to pgbrain_agent, so serve cannot write audit rows: %', current_user, SQLERRM;
		END;
	END IF;

	GRANT USAGE ON SCHEMA brain TO pgbrain_owner, pgbrain_writer, pgbrain_reader, pgbrain_agent, pgbrain_auditor;
	IF to_regclass('public.pgbrain_schema_version') IS NOT NULL THEN
		GRANT SELECT ON public.pgbrain_schema_version TO pgbrain_owner, pgbrain_writer, pgbrain_reader, pgbrain_agent, pgbrain_auditor;
	END IF;
	GRANT SELECT ON brain.config TO pgbrain_owner, pgbrain_writer, pgbrain_reader, pgbrain_agent, pgbrain_auditor;

	-- owner: everything (the audit log stays append-only through its triggers).
	GRANT ALL ON ALL TABLES IN SCHEMA brain TO pgbrain_owner;
	GRANT ALL ON ALL SEQUENCES IN SCHEMA brain TO pgbrain_owner;
	REVOKE UPDATE, DELETE, TRUNCATE ON brain.audit_log FROM pgbrain_owner;

	-- writer: pages, chunks, sources and their derived rows.
	GRANT SELECT, INSERT, UPDATE, DELETE ON brain.pages, brain.chunks, brain.sources, brain.page_pii,
		brain.term_stats, brain.corpus_stats, brain.page_chunks_pending, brain.vector_index_state,
		brain.embed_runs TO pgbrain_writer;
	GRANT SELECT ON brain.source_boosts, brain.pii_policy TO pgbrain_writer;
	GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA brain TO pgbrain_writer;
	-- the folders imports read (local paths, which can name a person): the
	-- writer that imports, no reader, no agent
	GRANT SELECT, INSERT, UPDATE, DELETE ON brain.import_folders TO pgbrain_writer;

	-- reader: read the brain, capture its own queries, export captures.
	GRANT SELECT ON brain.pages, brain.chunks, brain.sources, brain.page_pii, brain.term_stats,
		brain.corpus_stats, brain.page_chunks_pending, brain.vector_index_state, brain.embed_runs,
		brain.source_boosts, brain.pii_policy, brain.eval_candidates, brain.eval_capture_failures TO pgbrain_reader;
	GRANT INSERT ON brain.eval_candidates, brain.eval_capture_failures TO pgbrain_reader;
	-- Views of the repeatable tier (functions/): a change of its columns
	-- drops and re-creates one, losing its grants, and migrate applies
	-- that tier before calling this again, so they are granted here.
	IF to_regclass('brain.eval_export') IS NOT NULL THEN
		GRANT SELECT ON brain.eval_export TO pgbrain_reader;
	END IF;

	-- agent: pages and chunks through row security, no term statistics
	-- (their lexemes would spell out blocked pages), capture, audit,
	-- bearer tokens of serve --http.
	GRANT SELECT ON brain.pages, brain.chunks, brain.sources, brain.page_pii, brain.source_boosts,
		brain.vector_index_state, brain.pii_policy TO pgbrain_agent;
	GRANT INSERT ON brain.eval_candidates, brain.eval_capture_failures TO pgbrain_agent;
	GRANT SELECT ON brain.mcp_tokens TO pgbrain_agent;

	-- reader and agent: the query-expansion cache (014) that query --expand,
	-- eval replay and the MCP query tool's expand read and fill.
	GRANT SELECT, INSERT, UPDATE ON brain.query_expansions TO pgbrain_reader, pgbrain_agent;

	FOR t IN SELECT c.relname FROM pg_class c
	         WHERE c.relnamespace = 'brain'::regnamespace AND c.relkind = 'S'
	           AND c.relname IN ('eval_candidates_id_seq', 'eval_capture_failures_id_seq') LOOP
		EXECUTE format('GRANT USAGE ON SEQUENCE brain.%I TO pgbrain_reader, pgbrain_agent', t);
	END LOOP;

	-- auditor: the audit log (004) and the classification it refers to.
	GRANT SELECT ON brain.audit_log, brain.page_pii TO pgbrain_auditor;

	-- Policies are written once (a later change is a new migration):
	-- rewriting them would lock both tables on every migrate.
	IF NOT EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = 'brain' AND policyname = 'pages_agent') THEN
		CREATE POLICY pages_trusted ON brain.pages TO pgbrain_owner, pgbrain_writer, pgbrain_reader
			USING (true) WITH CHECK (true);
		CREATE POLICY chunks_trusted ON brain.chunks TO pgbrain_owner, pgbrain_writer, pgbrain_reader
			USING (true) WITH CHECK (true);
		CREATE POLICY pages_agent ON brain.pages FOR SELECT TO pgbrain_agent
			USING (EXISTS (SELECT 1 FROM brain.page_pii t WHERE t.page_id = pages.id AND t.agent_visible));
		CREATE POLICY chunks_agent ON brain.chunks FOR SELECT TO pgbrain_agent
			USING (EXISTS (SELECT 1 FROM brain.page_pii t WHERE t.page_id = chunks.page_id AND t.agent_visible));
	END IF;
	-- The classifications: an agent reads (through the policies above)
	-- only the rows of pages it may see, so that the ids and categories
	-- of hidden pages are not listed to it.
	IF NOT EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = 'brain' AND policyname = 'page_pii_agent') THEN
		CREATE POLICY page_pii_trusted ON brain.page_pii TO pgbrain_owner, pgbrain_writer, pgbrain_reader, pgbrain_auditor
			USING (true) WITH CHECK (true);
		CREATE POLICY page_pii_agent ON brain.page_pii FOR SELECT TO pgbrain_agent
			USING (agent_visible);
	END IF;

	-- Role settings are shared by every database of the cluster: written
	-- once, and never changed if an operator set their own.
	FOREACH r IN ARRAY ARRAY['pgbrain_agent', 'pgbrain_reader'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_db_role_setting s
		               WHERE s.setrole = r::regrole AND s.setdatabase = 0
		                 AND EXISTS (SELECT 1 FROM unnest(s.setconfig) c WHERE c LIKE 'statement\_timeout=%')) THEN
			BEGIN
				EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', r, '30s');
			EXCEPTION WHEN insufficient_privilege OR object_not_in_prerequisite_state THEN
				NULL; -- may not alter them; the CLI sets its own anyway
			END;
		END IF;
	END LOOP;
	RETURN 'ready';
END
$fn$;

SELECT brain.setup_roles();

UPDATE brain.config SET value = '22' WHERE key = 'schema_version';
