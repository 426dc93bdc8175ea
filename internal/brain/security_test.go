package brain_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/classify"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/pii"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// asRole runs sql as role in a transaction that is rolled back, and
// returns its error.
func asRole(t *testing.T, conn *pgx.Conn, role, sql string) error {
	t.Helper()
	tx, err := conn.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx(t))
	if _, err := tx.Exec(ctx(t), `SET LOCAL ROLE `+pgx.Identifier{role}.Sanitize()); err != nil {
		t.Fatalf("SET ROLE %s: %v", role, err)
	}
	rows, err := tx.Query(ctx(t), sql)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}

// denied reports whether err is PostgreSQL refusing a privilege (42501) or
// a row-security check (42501 too, "new row violates row-level security").
func denied(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42501"
}

// Every role can do what docs/security.md says and nothing more. That each
// command runs as its role is TestRolesLeastPrivilegeOfEachCommand
// (cmd/pgbrain), which runs them end to end.
func TestRolesLeastPrivilege(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	conn, err := pgx.Connect(ctx(t), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx(t))
	if _, err := conn.Exec(ctx(t), `
		INSERT INTO brain.pages (slug, title, body, content_hash) VALUES ('notes/a', 'A', '# A', repeat('a', 64));
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT id, 0, 'compiled_truth', 'alpha text' FROM brain.pages WHERE slug = 'notes/a';
		SELECT brain.page_pii_record(ARRAY[(SELECT id FROM brain.pages WHERE slug = 'notes/a')], ARRAY['']);`); err != nil {
		t.Fatal(err)
	}
	const (
		owner, writer, reader, agent, auditor = brain.RoleOwner, brain.RoleWriter, brain.RoleReader, brain.RoleAgent, brain.RoleAuditor
	)
	all := []string{owner, writer, reader, agent, auditor}
	tests := []struct {
		op      string
		sql     string
		allowed []string
	}{
		{"read pages", `SELECT slug, title FROM brain.pages`, []string{owner, writer, reader, agent}},
		{"read chunks", `SELECT text FROM brain.chunks`, []string{owner, writer, reader, agent}},
		{"search", `SELECT * FROM brain.search('alpha')`, []string{owner, writer, reader, agent}},
		{"keyword_search", `SELECT * FROM brain.keyword_search('alpha')`, []string{owner, writer, reader, agent}},
		{"insert a page", `INSERT INTO brain.pages (slug, title, body, content_hash) VALUES ('x/y', 'Y', 'y', repeat('b', 64))`, []string{owner, writer}},
		{"change a page", `UPDATE brain.pages SET body = 'changed' WHERE slug = 'notes/a'`, []string{owner, writer}},
		{"delete a page", `DELETE FROM brain.pages WHERE slug = 'notes/a'`, []string{owner, writer}},
		{"classify a page", `UPDATE brain.page_pii SET categories = '{}'`, []string{owner, writer}},
		{"widen the PII policy", `INSERT INTO brain.pii_policy (category) VALUES ('health')`, []string{owner}},
		{"read term statistics", `SELECT lexeme FROM brain.term_stats`, []string{owner, writer, reader}},
		{"read captured queries", `SELECT query FROM brain.eval_candidates`, []string{owner, reader}},
		{"delete captured queries", `DELETE FROM brain.eval_candidates`, []string{owner}},
		{"export captured queries (brain.eval_export)", `SELECT row_json FROM brain.eval_export`, []string{owner, reader}},
		{"read the audit log", `SELECT * FROM brain.audit_log`, []string{owner, auditor}},
		{"verify the audit chain", `SELECT * FROM brain.audit_verify(true)`, []string{owner, auditor}},
		{"append an audit row", `INSERT INTO brain.audit_log (session_id, tool_name, status, cost_class) VALUES ('s', 'search', 'success', 'cheap')`, []string{owner, agent}},
		{"read bearer tokens", `SELECT name FROM brain.mcp_tokens`, []string{owner, agent}},
		{"revoke a bearer token", `UPDATE brain.mcp_tokens SET revoked_at = now()`, []string{owner}},
		{"change the schema", `ALTER TABLE brain.pages ADD COLUMN x int`, nil},
		{"change search settings", `UPDATE brain.config SET value = 'openai' WHERE key = 'embedder'`, []string{owner}},
		// query --expand (reader) and the MCP query tool's expand (agent)
		// read and fill the expansion cache (014).
		{"search expanded", `SELECT * FROM brain.search_expanded('alpha', ARRAY['alpha text'], embed => false)`, []string{owner, writer, reader, agent}},
		{"read and fill the expansion cache", `INSERT INTO brain.query_expansions (model, prompt_version, query_sha256, variants)
			SELECT 'm', 1, sha256('q'), ARRAY['v'] FROM brain.query_expansions
			UNION ALL SELECT 'm', 1, sha256('q'), ARRAY['v']
			ON CONFLICT (model, prompt_version, query_sha256) DO UPDATE SET variants = EXCLUDED.variants`, []string{owner, reader, agent}},
		// The model-judged probes (013) run as the owner only.
		{"read contradiction verdicts", `SELECT * FROM brain.eval_contradictions_cache`, []string{owner}},
		{"dismiss a contradiction", `SELECT brain.contradiction_dismiss(repeat('a', 64), repeat('b', 64))`, []string{owner}},
		{"record a nightly run", `INSERT INTO brain.eval_nightly_runs (started_at, finished_at, outcome, fixture_sha256) VALUES (now(), now(), 'pass', repeat('a', 64))`, []string{owner}},
	}
	for _, tt := range tests {
		for _, role := range all {
			err := asRole(t, conn, role, tt.sql)
			want := slices.Contains(tt.allowed, role)
			switch {
			case want && err != nil:
				t.Errorf("%s as %s: want allowed, got %v", tt.op, role, err)
			case !want && err == nil:
				t.Errorf("%s as %s: want denied, it ran", tt.op, role)
			case !want && !denied(err):
				t.Errorf("%s as %s: want a privilege error (42501), got %v", tt.op, role, err)
			}
		}
	}
}

// agentSees lists what pgbrain_agent gets from every path that exposes
// page text, titles or slugs in plain SQL.
type agentView struct {
	pages, chunks, query, keyword []string
	withheld                      map[string]any
}

func agentSees(t *testing.T, conn *pgx.Conn, q string) agentView {
	t.Helper()
	tx, err := conn.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx(t))
	if _, err := tx.Exec(ctx(t), `SET LOCAL ROLE pgbrain_agent`); err != nil {
		t.Fatal(err)
	}
	col := func(sql string, args ...any) []string {
		rows, err := tx.Query(ctx(t), sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	var v agentView
	v.pages = col(`SELECT slug || ' ' || title FROM brain.pages`)
	v.chunks = col(`SELECT p.slug FROM brain.chunks c JOIN brain.page_pii t ON t.page_id = c.page_id
		JOIN LATERAL (SELECT slug FROM brain.pages WHERE id = c.page_id) p ON true`)
	v.chunks = append(v.chunks, col(`SELECT c.text FROM brain.chunks c WHERE c.text LIKE '%4111%' OR c.text LIKE '%EXAMPLEKEY%'`)...)
	v.query = col(`SELECT slug || ' ' || title || ' ' || coalesce(snippet, '') FROM brain.query($1, 20)`, q)
	v.keyword = col(`SELECT k.page_id::text FROM brain.keyword_search($1, 20) k`, q)
	if err := tx.QueryRow(ctx(t), `SELECT meta -> 'withheld' FROM brain.search($1, lim => 20) LIMIT 1`, q).Scan(&v.withheld); err != nil {
		t.Fatal(err)
	}
	return v
}

// A page a DBA inserts from psql, holding a card number and an AWS secret
// key, is invisible to pgbrain_agent in every SQL path until it is
// classified, and then stays hidden because of what it holds; a clean page
// becomes visible once classified and hidden again when psql changes it.
func TestPsqlPagesAreHiddenFromAgentsUntilClassified(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	b, err := brain.Open(ctx(t), url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	conn, err := pgx.Connect(ctx(t), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx(t))
	if _, err := conn.Exec(ctx(t), `
		INSERT INTO brain.pages (slug, title, body, content_hash) VALUES
		('ops/card-4111111111111111', 'Zebra card 4111 1111 1111 1111',
		 E'# Zebra payroll\n\nThe zebra vendor card is 4111 1111 1111 1111.\n\n[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n', repeat('a', 64)),
		('ops/zebra-notes', 'Zebra notes', E'# Zebra notes\n\nThe zebra vendor ships on Mondays.\n', repeat('b', 64))`); err != nil {
		t.Fatal(err)
	}
	// Chunk them as put would, so that the text is searchable at all.
	if res, err := ingest.ChunkPending(ctx(t), b, ingest.Options{NoClassify: true}); err != nil || res.Pages != 2 || len(res.Failures) != 0 {
		t.Fatalf("ChunkPending = %+v, %v; want 2 pages rechunked", res, err)
	}
	var owners int
	if err := conn.QueryRow(ctx(t), `SELECT count(*) FROM brain.query('zebra vendor', 20)`).Scan(&owners); err != nil || owners != 2 {
		t.Fatalf("the owner finds %d pages (%v), want both", owners, err)
	}

	v := agentSees(t, conn, "zebra vendor")
	if len(v.pages)+len(v.chunks)+len(v.query)+len(v.keyword) != 0 {
		t.Fatalf("before classification the agent sees %+v, want nothing", v)
	}
	if v.withheld["pages"] != float64(2) || v.withheld["unclassified"] != float64(2) {
		t.Errorf("withheld before classification = %v, want 2 unclassified pages", v.withheld)
	}

	if _, _, err := classify.All(ctx(t), b.Pool, pii.Classify, true); err != nil {
		t.Fatal(err)
	}
	v = agentSees(t, conn, "zebra vendor")
	if !slices.Equal(v.pages, []string{"ops/zebra-notes Zebra notes"}) || len(v.chunks) != 1 || v.chunks[0] != "ops/zebra-notes" {
		t.Errorf("after classification the agent sees pages %v, chunks %v; want only ops/zebra-notes", v.pages, v.chunks)
	}
	if len(v.query) != 1 || !strings.HasPrefix(v.query[0], "ops/zebra-notes ") || len(v.keyword) != 1 {
		t.Errorf("after classification brain.query gives %v and keyword_search %v; want only ops/zebra-notes", v.query, v.keyword)
	}
	if v.withheld["pages"] != float64(1) || v.withheld["unclassified"] != float64(0) ||
		!slices.Equal(toStrings(v.withheld["categories"]), []string{"credential", "payment_card"}) {
		t.Errorf("withheld after classification = %v, want 1 page, credential and payment_card", v.withheld)
	}
	var state string
	var blocked []string
	if err := conn.QueryRow(ctx(t), `SELECT state, blocked FROM brain.page_access('default', 'ops/card-4111111111111111')`).Scan(&state, &blocked); err != nil ||
		state != "blocked" || !slices.Equal(blocked, []string{"credential", "payment_card"}) {
		t.Errorf("page_access = %s %v (%v), want blocked [credential payment_card]", state, blocked, err)
	}

	// psql changes the clean page: stale, hidden, until classified again.
	if _, err := conn.Exec(ctx(t), `UPDATE brain.pages SET body = body || E'\nAlso on Fridays.\n' WHERE slug = 'ops/zebra-notes'`); err != nil {
		t.Fatal(err)
	}
	if v = agentSees(t, conn, "zebra vendor"); len(v.pages)+len(v.query) != 0 || v.withheld["unclassified"] != float64(1) {
		t.Errorf("after a psql edit the agent sees %v / %v (withheld %v), want nothing and 1 unclassified", v.pages, v.query, v.withheld)
	}
	if err := conn.QueryRow(ctx(t), `SELECT state FROM brain.page_access('default', 'ops/zebra-notes')`).Scan(&state); err != nil || state != "stale" {
		t.Errorf("page_access after the edit = %s (%v), want stale", state, err)
	}
	if _, _, err := classify.All(ctx(t), b.Pool, pii.Classify, true); err != nil {
		t.Fatal(err)
	}
	if v = agentSees(t, conn, "zebra vendor"); !slices.Equal(v.pages, []string{"ops/zebra-notes Zebra notes"}) {
		t.Errorf("after reclassification the agent sees %v", v.pages)
	}

	// The owner widens the blocked set: a contact page disappears, and
	// comes back when the category is removed. Nobody else may widen it.
	if _, err := conn.Exec(ctx(t), `
		INSERT INTO brain.pages (slug, title, body, content_hash) VALUES ('people/bob', 'Bob', E'# Bob\n\nWrite to bob@zebraworks.io about the zebra vendor.\n', repeat('c', 64))`); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.ChunkPending(ctx(t), b, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if v = agentSees(t, conn, "zebra vendor"); !slices.Contains(v.pages, "people/bob Bob") {
		t.Fatalf("a contact page is not blocked by the floor; the agent sees %v", v.pages)
	}
	if _, err := conn.Exec(ctx(t), `INSERT INTO brain.pii_policy (category) VALUES ('contact')`); err != nil {
		t.Fatal(err)
	}
	if v = agentSees(t, conn, "zebra vendor"); slices.Contains(v.pages, "people/bob Bob") {
		t.Errorf("with contact blocked the agent still sees %v", v.pages)
	}
	if _, err := conn.Exec(ctx(t), `DELETE FROM brain.pii_policy`); err != nil {
		t.Fatal(err)
	}
	if v = agentSees(t, conn, "zebra vendor"); !slices.Contains(v.pages, "people/bob Bob") {
		t.Errorf("with the policy back to the floor the agent sees %v", v.pages)
	}
}

func toStrings(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		for _, x := range a {
			s, _ := x.(string)
			out = append(out, s)
		}
	}
	return out
}

// Pages chunked by the CLI and never changed since keep their state; a page
// written from psql is pending until `embed --stale` rechunks it.
func TestChunkPendingFollowsPsqlWrites(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	if _, err := ingest.PutPage(ctx(t), b, "notes/put", []byte("# Put\n\nWritten by put.\n"), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	pending := func() []string {
		rows, err := b.Pool.Query(ctx(t), `SELECT p.slug FROM brain.page_chunks_pending d JOIN brain.pages p ON p.id = d.page_id ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := pending(); len(got) != 0 {
		t.Fatalf("after put, pending = %v", got)
	}
	if _, err := b.Pool.Exec(ctx(t), `UPDATE brain.pages SET body = E'# Put\n\nRewritten from psql with the word quokka.\n' WHERE slug = 'notes/put'`); err != nil {
		t.Fatal(err)
	}
	if got := pending(); !slices.Equal(got, []string{"notes/put"}) {
		t.Fatalf("after a psql body change, pending = %v", got)
	}
	var n int
	if err := b.Pool.QueryRow(ctx(t), `SELECT count(*) FROM brain.keyword_search('quokka')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("before rechunking the new word is found %d times (%v): the test shows nothing", n, err)
	}
	if res, err := ingest.ChunkPending(ctx(t), b, ingest.Options{}); err != nil || res.Pages != 1 {
		t.Fatalf("ChunkPending = %+v, %v", res, err)
	}
	if got := pending(); len(got) != 0 {
		t.Errorf("after ChunkPending, pending = %v", got)
	}
	if err := b.Pool.QueryRow(ctx(t), `SELECT count(*) FROM brain.keyword_search('quokka')`).Scan(&n); err != nil || n != 1 {
		t.Errorf("after rechunking 'quokka' finds %d pages (%v), want 1", n, err)
	}
	// A body that does not parse stays pending and is named.
	if _, err := b.Pool.Exec(ctx(t), `INSERT INTO brain.pages (slug, title, body, content_hash) VALUES ('notes/bad', 'Bad', E'---\ntitle: [unclosed\n---\nbody\n', repeat('d', 64))`); err != nil {
		t.Fatal(err)
	}
	res, err := ingest.ChunkPending(ctx(t), b, ingest.Options{})
	if err != nil || len(res.Failures) != 1 || res.Failures[0].Path != "default:notes/bad" {
		t.Fatalf("ChunkPending of a bad body = %+v, %v; want one failure naming default:notes/bad", res, err)
	}
	if got := pending(); !slices.Equal(got, []string{"notes/bad"}) {
		t.Errorf("a page that failed to rechunk must stay pending; pending = %v", got)
	}
}

// OpenAs drops to the role and sets the timeout; a brain without the agent
// role refuses to open as the agent.
func TestOpenAsSetsRoleAndTimeout(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	b, err := brain.OpenAs(ctx(t), url, brain.Access{Role: brain.RoleAgent, StatementTimeout: "1500ms"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var role, timeout string
	if err := b.Pool.QueryRow(ctx(t), `SELECT current_user, current_setting('statement_timeout')`).Scan(&role, &timeout); err != nil {
		t.Fatal(err)
	}
	if role != brain.RoleAgent || timeout != "1500ms" {
		t.Errorf("connection runs as %s with statement_timeout %s, want pgbrain_agent and 1500ms", role, timeout)
	}
	_, err = b.Pool.Exec(ctx(t), `SELECT pg_sleep(3)`)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57014" {
		t.Errorf("a 3 s statement under a 1.5 s timeout: %v, want query_canceled (57014)", err)
	}
}

// A brain migrated by an owner that may not create or grant roles (a
// managed database): the migration succeeds, commands run as that owner,
// and serve's agent role refuses to open rather than run unrestricted.
func TestOwnerWithoutCreateRole(t *testing.T) {
	t.Parallel()
	admin := testdb.New(t)
	conn, err := pgx.Connect(ctx(t), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx(t))
	suffix := strings.TrimPrefix(conn.Config().Database, "pgbrain_test_")
	role, db := "pgbrain_plain_"+suffix, "pgbrain_plain_"+suffix
	for _, stmt := range []string{
		`CREATE ROLE ` + role + ` LOGIN NOCREATEROLE NOSUPERUSER`,
		`CREATE DATABASE ` + db + ` OWNER ` + role,
	} {
		if _, err := conn.Exec(ctx(t), stmt); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		bg := context.Background()
		c, err := pgx.Connect(bg, admin)
		if err != nil {
			return
		}
		defer c.Close(bg)
		c.Exec(bg, `DROP DATABASE IF EXISTS `+db+` WITH (FORCE)`)
		c.Exec(bg, `DROP OWNED BY `+role)
		c.Exec(bg, `DROP ROLE IF EXISTS `+role)
	})
	cfg := conn.Config().Copy()
	cfg.Database = db
	// The extension needs a superuser, as on any managed database.
	su, err := pgx.ConnectConfig(ctx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := su.Exec(ctx(t), `CREATE EXTENSION vector`); err != nil {
		t.Fatal(err)
	}
	su.Close(ctx(t))
	cfg.User = role
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	if u.User != nil {
		u.User = url.User(role)
	}
	q := u.Query()
	if u.User == nil {
		q.Set("user", role)
	}
	u.RawQuery = q.Encode()
	plainURL := u.String()

	var warnings []string
	mc := cfg.Copy()
	mc.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if n.Severity == "WARNING" {
			warnings = append(warnings, n.Message)
		}
	}
	mconn, err := pgx.ConnectConfig(ctx(t), mc)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate.Up(ctx(t), mconn, migrate.Options{}); err != nil {
		t.Fatalf("migrating as a role without CREATEROLE: %v", err)
	}
	mconn.Close(ctx(t))
	if len(warnings) == 0 || !strings.Contains(strings.Join(warnings, "\n"), "cannot be granted") {
		t.Errorf("warnings %q, want one saying the roles cannot be granted", warnings)
	}

	b, err := brain.OpenAs(ctx(t), plainURL, brain.Access{Role: brain.RoleReader})
	if err != nil {
		t.Fatalf("a reader command of this owner: %v", err)
	}
	var who string
	if err := b.Pool.QueryRow(ctx(t), `SELECT current_user`).Scan(&who); err != nil || who != role {
		t.Errorf("the reader command runs as %s (%v), want the owner %s", who, err, role)
	}
	b.Close()
	if _, err := brain.OpenAs(ctx(t), plainURL, brain.Access{Role: brain.RoleAgent}); err == nil ||
		!strings.Contains(err.Error(), "serve never runs unrestricted") {
		t.Errorf("opening as the agent: %v, want a refusal naming the GRANT to run", err)
	}
}

// A view of the repeatable tier that migrate drops and re-creates (a
// change of its columns does) comes back with its grants: migrate applies
// functions/ and then brain.setup_roles(), which grants the views too.
func TestViewGrantsSurviveRecreationByMigrate(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	conn, err := pgx.Connect(ctx(t), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx(t))
	const read = `SELECT row_json FROM brain.eval_export`
	if err := asRole(t, conn, brain.RoleReader, read); err != nil {
		t.Fatalf("the reader reads brain.eval_export after a fresh migrate: %v", err)
	}
	// Dropped and the repeatable tier marked stale, as an edited view file
	// leaves a brain before the next migrate.
	if _, err := conn.Exec(ctx(t), `DROP VIEW brain.eval_export;
		UPDATE brain.config SET value = 'stale' WHERE key = '`+migrate.ChecksumKey+`'`); err != nil {
		t.Fatal(err)
	}
	if err := migrate.Migrate(ctx(t), url, migrate.Options{}); err != nil {
		t.Fatal(err)
	}
	var recreated bool
	if err := conn.QueryRow(ctx(t), `SELECT to_regclass('brain.eval_export') IS NOT NULL`).Scan(&recreated); err != nil || !recreated {
		t.Fatalf("migrate did not re-create brain.eval_export (%v)", err)
	}
	if err := asRole(t, conn, brain.RoleReader, read); err != nil {
		t.Errorf("the reader reads brain.eval_export after migrate re-created it: %v", err)
	}
	if err := asRole(t, conn, brain.RoleAgent, read); !denied(err) {
		t.Errorf("the agent reads brain.eval_export after migrate re-created it: want a privilege error, got %v", err)
	}
}
