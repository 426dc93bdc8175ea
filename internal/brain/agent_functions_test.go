package brain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/classify"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/pii"
	"github.com/pgbrain/pgbrain/testdb"
)

// A psql login granted only pgbrain_agent calls every brain.* function it
// may execute (listed from pg_proc, not by hand) with a query that matches
// only a blocked page, and learns nothing identifying it: no id, slug,
// title, text or score, in any row or error; nor does any table or view it
// may read. The same calls made by the owner do find the page, so the
// probe reaches it.
func TestAgentLoginLearnsNothingOfBlockedPagesFromAnyFunction(t *testing.T) {
	t.Parallel()
	admin := testdb.New(t)
	b, err := brain.Open(ctx(t), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	conn, err := pgx.Connect(ctx(t), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx(t))
	const (
		hiddenSlug = "finance/quokka-ledger"
		query      = "vendor portal corporate card"
	)
	if _, err := conn.Exec(ctx(t), `
		INSERT INTO brain.pages (slug, title, body, content_hash) VALUES
		($1, 'Wombat ledger',
		 E'# Wombat ledger\n\nThe vendor portal corporate card is 4111 1111 1111 1111.\n\n[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n', repeat('a', 64)),
		('notes/garden', 'Garden notes', E'# Garden notes\n\nTomatoes need sun and water every morning.\n', repeat('b', 64))`,
		hiddenSlug); err != nil {
		t.Fatal(err)
	}
	if res, err := ingest.ChunkPending(ctx(t), b, ingest.Options{NoClassify: true}); err != nil || res.Pages != 2 {
		t.Fatalf("ChunkPending = %+v, %v; want 2 pages", res, err)
	}
	if _, _, err := classify.All(ctx(t), b.Pool, pii.Classify, true); err != nil {
		t.Fatal(err)
	}
	var hiddenIDs, visibleIDs []int64
	var hiddenVec string
	if err := conn.QueryRow(ctx(t), `
		SELECT ARRAY[p.id] || array_agg(c.id), (array_agg(c.embedding::text ORDER BY c.id))[1]
		FROM brain.pages p JOIN brain.chunks c ON c.page_id = p.id WHERE p.slug = $1 GROUP BY p.id`, hiddenSlug).Scan(&hiddenIDs, &hiddenVec); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx(t), `
		SELECT ARRAY[p.id] || array_agg(c.id) FROM brain.pages p JOIN brain.chunks c ON c.page_id = p.id
		WHERE p.slug = 'notes/garden' GROUP BY p.id`).Scan(&visibleIDs); err != nil {
		t.Fatal(err)
	}
	var state string
	if err := conn.QueryRow(ctx(t), `SELECT state FROM brain.page_access('default', $1)`, hiddenSlug).Scan(&state); err != nil || state != "blocked" {
		t.Fatalf("the hidden page is %q (%v), want blocked", state, err)
	}

	// The login: granted pgbrain_agent and nothing else.
	role := "pgbrain_probe_" + strings.TrimPrefix(conn.Config().Database, "pgbrain_test_")
	for _, stmt := range []string{
		`CREATE ROLE ` + role + ` LOGIN NOSUPERUSER NOCREATEROLE`,
		`GRANT pgbrain_agent TO ` + role,
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
		c.Exec(bg, `DROP OWNED BY `+role)
		c.Exec(bg, `DROP ROLE IF EXISTS `+role)
	})
	cfg := conn.Config().Copy()
	cfg.User = role
	agent, err := pgx.ConnectConfig(ctx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close(ctx(t))

	// Every brain function the login may execute, but trigger functions.
	rows, err := conn.Query(ctx(t), `
		SELECT p.oid::regprocedure::text, p.proname, pg_get_function_identity_arguments(p.oid)
		FROM pg_proc p
		WHERE p.pronamespace = 'brain'::regnamespace AND p.prokind = 'f'
		  AND p.prorettype <> 'trigger'::regtype
		  AND has_function_privilege($1, p.oid, 'EXECUTE')
		ORDER BY 1`, role)
	if err != nil {
		t.Fatal(err)
	}
	type fn struct{ Sig, Name, Args string }
	fns, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fn])
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) < 20 {
		t.Fatalf("the agent may execute %d brain functions, want the search, page and helper functions (%v)", len(fns), fns)
	}

	lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	ints := func(ids []int64) string {
		s := make([]string, len(ids))
		for i, id := range ids {
			s[i] = strconv.FormatInt(id, 10)
		}
		return "ARRAY[" + strings.Join(s, ",") + "]::bigint[]"
	}
	// An argument for each parameter, by name and type: the query for
	// text, the hidden page's slug where a slug is asked for, the visible
	// page's ids where ids are (an agent does not know the hidden ones),
	// and the hidden chunk's own embedding where a vector is.
	argFor := func(name, typ string) string {
		switch {
		case name == "detail":
			return "NULL::text"
		case strings.Contains(name, "slug"):
			return lit(hiddenSlug)
		case strings.Contains(name, "source") && typ == "text":
			return lit("default")
		case strings.Contains(name, "source") && typ == "text[]":
			return "NULL::text[]"
		}
		switch typ {
		case "text":
			return lit(query)
		case "text[]":
			return "string_to_array(" + lit(query) + ", ' ')"
		case "bigint":
			return strconv.FormatInt(visibleIDs[0], 10)
		case "bigint[]":
			return ints(visibleIDs)
		case "integer":
			return "10"
		case "boolean":
			return "false"
		case "double precision":
			return "0.5"
		case "double precision[]":
			return "ARRAY[1.0, 1.0, 1.0, 1.0]::float8[]"
		case "tsquery":
			return "brain.words_tsquery(" + lit(query) + ")"
		case "interval":
			return "'1 day'::interval"
		case "jsonb":
			return "'{}'::jsonb"
		}
		if strings.HasSuffix(typ, "vector[]") {
			return "ARRAY[" + lit(hiddenVec) + "::" + strings.TrimSuffix(typ, "[]") + "]"
		}
		if strings.HasSuffix(typ, "vector") {
			return lit(hiddenVec) + "::" + typ
		}
		return "NULL::" + typ
	}
	call := func(f fn) string {
		var args []string
		if f.Args != "" {
			for _, a := range strings.Split(f.Args, ", ") {
				if strings.HasPrefix(a, "OUT ") {
					continue
				}
				name, typ, _ := strings.Cut(a, " ")
				args = append(args, argFor(name, strings.TrimPrefix(typ, "public.")))
			}
		}
		return fmt.Sprintf(`SELECT coalesce(jsonb_agg(to_jsonb(x)), '[]')::text FROM brain.%s(%s) AS x`,
			pgx.Identifier{f.Name}.Sanitize(), strings.Join(args, ", "))
	}
	// run calls sql in a transaction that is rolled back, and returns its
	// rows as JSON, or the error's text.
	run := func(c *pgx.Conn, sql string) string {
		tx, err := c.Begin(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx(t))
		var out string
		if err := tx.QueryRow(ctx(t), sql).Scan(&out); err != nil {
			return "error: " + err.Error()
		}
		return out
	}

	// The slug counts when the call did not pass it (an error may echo
	// the caller's own argument).
	secretText := regexp.MustCompile(`(?i)wombat|4111|EXAMPLEKEY`)
	slugText := regexp.MustCompile(`(?i)quokka`)
	idKey := regexp.MustCompile(`(^|_)ids?($|_)`)
	scoreKey := regexp.MustCompile(`score|rank|distance|affinity|bm25`)
	// leaks lists what out says of the hidden page.
	leaks := func(sql, out string) []string {
		var found []string
		if m := secretText.FindString(out); m != "" {
			found = append(found, "text "+m)
		}
		if m := slugText.FindString(out); m != "" && !strings.Contains(sql, hiddenSlug) {
			found = append(found, "slug "+m)
		}
		var rowsOut []any
		if json.Unmarshal([]byte(out), &rowsOut) != nil {
			return found
		}
		for _, r := range rowsOut {
			obj, ok := r.(map[string]any)
			if !ok {
				continue
			}
			visibleRow := false
			for k, v := range obj {
				n, isNum := v.(float64)
				if !isNum || !idKey.MatchString(k) {
					continue
				}
				if slices.Contains(hiddenIDs, int64(n)) {
					found = append(found, fmt.Sprintf("%s %v", k, n))
				}
				if slices.Contains(visibleIDs, int64(n)) {
					visibleRow = true
				}
			}
			for k, v := range obj {
				if _, isNum := v.(float64); isNum && scoreKey.MatchString(k) && !visibleRow {
					found = append(found, fmt.Sprintf("%s %v of no visible page", k, v))
				}
			}
		}
		return found
	}

	ownerFound := map[string]bool{}
	for _, f := range fns {
		if f.Name == "search_settings" {
			// The tuning knobs ({"bm25_k1": 1.2, ...}), read from
			// brain.config, which every role reads: about no page.
			continue
		}
		sql := call(f)
		if l := leaks(sql, run(agent, sql)); len(l) > 0 {
			t.Errorf("as the agent login, %s tells of the blocked page: %v\n%s", f.Sig, l, sql)
		}
		if len(leaks(sql, run(conn, sql))) > 0 {
			ownerFound[f.Name] = true
		}
	}
	// And every table or view of the brain it may read.
	rows, err = conn.Query(ctx(t), `
		SELECT c.relname FROM pg_class c
		WHERE c.relnamespace = 'brain'::regnamespace AND c.relkind IN ('r', 'v', 'm')
		  AND has_table_privilege($1, c.oid, 'SELECT')
		ORDER BY 1`, role)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		sql := `SELECT coalesce(jsonb_agg(to_jsonb(x)), '[]')::text FROM brain.` + pgx.Identifier{table}.Sanitize() + ` AS x`
		if l := leaks(sql, run(agent, sql)); len(l) > 0 {
			t.Errorf("as the agent login, table brain.%s tells of the blocked page: %v", table, l)
		}
		if len(leaks(sql, run(conn, sql))) > 0 {
			ownerFound[table] = true
		}
	}
	// The probe reaches the hidden page: the owner, through the same
	// calls, finds it by every search path and by name.
	for _, name := range []string{"keyword_scan", "keyword_search", "vector_arm", "vector_search", "search", "search_expanded", "query", "hybrid_search", "page_access",
		"pages", "chunks", "page_pii"} {
		if !ownerFound[name] {
			t.Errorf("as the owner, brain.%s with the same arguments does not find the hidden page: the probe proves nothing for it", name)
		}
	}
}
