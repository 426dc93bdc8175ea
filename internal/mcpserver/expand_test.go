package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/mcpserver"
	"github.com/pgbrain/pgbrain/internal/openai"
)

func TestQueryToolExpands(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	if _, err := ingest.PutPage(context.Background(), b, "notes/gadgets", []byte("# Gadgets\n\nSprockets and gears for the gadget line.\n"), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"role": "assistant", "content": `["sprockets and gears"]`}}}})
	}))
	defer srv.Close()
	chat, err := openai.NewChat(openai.ChatConfig{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	h := start(t, b, func(c *mcpserver.Config) {
		c.Expander = &expand.Expander{DB: b.Pool, Model: chat}
	})
	plain := h.callTool(t, mcpserver.ToolQuery, map[string]any{"query": "widget project"})
	if plain.Meta["expansion_applied"] != false || plain.Meta["expansion"] != nil || calls.Load() != 0 {
		t.Fatalf("without expand: meta %v, %d model calls", plain.Meta, calls.Load())
	}
	a := h.callTool(t, mcpserver.ToolQuery, map[string]any{"query": "widget project", "expand": true})
	x, _ := a.Meta["expansion"].(map[string]any)
	if a.Status != mcpserver.StatusPartial || a.Meta["expansion_applied"] != true || a.Meta["expand_enabled"] != true || x == nil || calls.Load() != 1 {
		t.Fatalf("with expand: status %s, meta %v, %d model calls", a.Status, a.Meta, calls.Load())
	}
	if !strings.Contains(strings.Join(slugs(a), ","), "notes/gadgets") {
		t.Fatalf("the variant's page is missing: %v", slugs(a))
	}
	// The card page stays withheld (status partial) whatever found it.
	for _, s := range slugs(a) {
		if s == "finance/card" {
			t.Fatal("a blocked page was returned through a variant")
		}
	}
	// A server without an expander answers unexpanded, with the note.
	h2 := start(t, b, nil)
	a = h2.callTool(t, mcpserver.ToolQuery, map[string]any{"query": "widget project", "expand": true})
	x, _ = a.Meta["expansion"].(map[string]any)
	if a.Status != mcpserver.StatusPartial || a.Meta["expansion_applied"] != false || x == nil || !strings.Contains(x["note"].(string), "not available") {
		t.Fatalf("no expander: %v", a.Meta)
	}
}
