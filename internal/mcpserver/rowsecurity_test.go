package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/classify"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/mcpserver"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/internal/pii"
	"github.com/pgbrain/pgbrain/internal/search"
	"github.com/pgbrain/pgbrain/testdb"
)

// serve runs as pgbrain_agent: a page a DBA inserts from psql, with a card
// number in its slug, title and body and an AWS secret key in its body, is
// never shown to an MCP agent: withheld (unclassified) before it is
// classified, refused for what it holds after; list_pages never shows its
// slug or title.
func TestAgentNeverSeesPsqlPagesWithSecrets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testdb.New(t)
	owner, err := brain.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	agent, err := brain.OpenAs(ctx, url, brain.Access{Role: brain.RoleAgent, StatementTimeout: "30s"})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	if _, err := ingest.PutPage(ctx, owner, "notes/widgets", []byte("# Widgets\n\nThe widget vendor ships blue widgets.\n"), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	const secretSlug = "ops/card-4111111111111111"
	if _, err := owner.Pool.Exec(ctx, `
		INSERT INTO brain.pages (slug, title, body, content_hash) VALUES ($1, 'Widget card 4111 1111 1111 1111',
		 E'# Widget vendor payroll\n\nThe widget vendor card is 4111 1111 1111 1111.\n\nexport AWS_SECRET_ACCESS_KEY=Zq8v+3Jk0pW2rT9yLm4nB7xC1dF6gH5sA0eR2uI8\n', repeat('a', 64))`,
		secretSlug); err != nil {
		t.Fatal(err)
	}
	// Chunked (so its words are searchable) but not classified.
	if _, err := ingest.ChunkPending(ctx, owner, ingest.Options{NoClassify: true}); err != nil {
		t.Fatal(err)
	}

	h := start(t, agent, nil)
	leaks := func(stage string, a answer) {
		t.Helper()
		for _, s := range slugs(a) {
			if s == secretSlug {
				t.Errorf("%s: the agent got the secret page's slug", stage)
			}
		}
	}
	check := func(stage, reason string, cats []string) {
		t.Helper()
		for _, tool := range []string{"search", "query"} {
			a := h.callTool(t, tool, map[string]any{"query": "widget vendor"})
			leaks(stage+" "+tool, a)
			if a.Status != "partial" || a.Withheld == nil || a.Withheld.Count != 1 || !slices.Equal(a.Withheld.Categories, cats) {
				t.Errorf("%s %s: %s withheld %+v, want partial with 1 page withheld, categories %v", stage, tool, a.Status, a.Withheld, cats)
			}
			if !slices.Equal(slugs(a), []string{"notes/widgets"}) {
				t.Errorf("%s %s: results %v, want notes/widgets", stage, tool, slugs(a))
			}
		}
		a := h.callTool(t, "get_page", map[string]any{"slug": secretSlug})
		if a.Status != "refused" || a.Page != nil || a.Error == nil || !strings.Contains(a.Error.Message, reason) {
			t.Errorf("%s get_page: %s %+v, want refused saying %q", stage, a.Status, a.Error, reason)
		}
		a = h.callTool(t, "list_pages", map[string]any{})
		leaks(stage+" list_pages", a)
		if !slices.Equal(slugs(a), []string{"notes/widgets"}) {
			t.Errorf("%s list_pages: %v, want notes/widgets only", stage, slugs(a))
		}
	}
	check("unclassified", "has not been classified", []string{})

	if _, _, err := classify.All(ctx, owner.Pool, pii.Classify, true); err != nil {
		t.Fatal(err)
	}
	check("classified", "holds credential, payment_card data", []string{"credential", "payment_card"})
	h.stop(t)

	// An expanded query: brain.search_expanded and the expansion cache as
	// pgbrain_agent. A rephrasing aimed at the hidden page's own words
	// finds it no more than the question does.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"role": "assistant", "content": `["widget vendor payroll card", "AWS secret access key"]`}}}})
	}))
	defer srv.Close()
	chat, err := openai.NewChat(openai.ChatConfig{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	// The owner, past row security, does find the page by those words.
	own, err := search.Expanded(ctx, owner.Pool, "widget vendor", nil, []string{"widget vendor payroll card", "AWS secret access key"}, nil, search.Options{Limit: 10}, search.Tuning{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range own.Results {
		found = found || r.Slug == secretSlug
	}
	if !found {
		t.Fatalf("the rephrasings do not reach the hidden page even as its owner; the check below would prove nothing")
	}
	hx := start(t, agent, func(c *mcpserver.Config) { c.Expander = &expand.Expander{DB: agent.Pool, Model: chat} })
	for i := 0; i < 2; i++ { // the second answer comes from the cache the agent filled
		a := hx.callTool(t, "query", map[string]any{"query": "widget vendor", "expand": true})
		leaks("expanded", a)
		x, _ := a.Meta["expansion"].(map[string]any)
		if a.Meta["expansion_applied"] != true || x == nil || x["cached"] != (i == 1) {
			t.Fatalf("expanded query %d: meta %v", i, a.Meta)
		}
		if !slices.Equal(slugs(a), []string{"notes/widgets"}) {
			t.Errorf("expanded query %d: results %v, want notes/widgets", i, slugs(a))
		}
	}
	hx.stop(t)

	// The agent role wrote the audit rows (pgbrain_audit_writer), and the
	// refusals name the categories, never the text.
	rows, err := owner.Pool.Query(ctx, `SELECT status, pii_categories FROM brain.audit_log WHERE tool_name = 'get_page' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Status string
		Cats   []string
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Status != "refused" || got[1].Status != "refused" ||
		!slices.Equal(got[1].Cats, []string{"credential", "payment_card"}) {
		t.Errorf("get_page audit rows = %+v, want two refusals, the second with credential and payment_card", got)
	}
}
