package mcpserver_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/mcpserver"
	"github.com/pgbrain/pgbrain/internal/tail"
)

// TestQuerySecretsReachNoSink is issue 14's finding about the events file,
// tail, serve's stderr and captured queries, against a real brain: what an
// agent puts in a query, refused or answered, is scrubbed by the same
// detector set everywhere it is written.
func TestQuerySecretsReachNoSink(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	var capErr bytes.Buffer
	rec := capture.New(b.Pool, evalconfig.Settings{Capture: true, ScrubPII: true}, t.TempDir(), &capErr)
	h := start(t, b, func(c *mcpserver.Config) { c.Capture = rec })

	queries := []struct{ tool, query, status string }{
		// Refused: a card and credentials are in the floor.
		{"search", "who paid with 4111 1111 1111 1111 for widget", "refused"},
		{"query", "widget password: hunter2 key AKIAIOSFODNN7EXAMPLE", "refused"},
		{"search", "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY widget", "refused"},
		// Answered: contact and financial data are not refused, but are not
		// kept either; the email sits inside the query, not alone.
		{"search", "what did carol@example.org say about the widget project", ""},
		{"query", "widget refund to GB82 WEST 1234 5698 7654 32 or call (415) 555-0132", ""},
	}
	secrets := []string{"4111 1111 1111 1111", "hunter2", "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"carol@example.org", "GB82 WEST", "1234 5698 7654 32", "555-0132"}
	for _, q := range queries {
		a := h.callTool(t, q.tool, map[string]any{"query": q.query})
		if q.status != "" && a.Status != q.status {
			t.Errorf("%s %q: status %s, want %s", q.tool, q.query, a.Status, q.status)
		}
	}
	h.stop(t)
	if err := rec.Close(context.Background()); err != nil {
		t.Fatalf("draining captures: %v (%s)", err, capErr.String())
	}

	check := func(sink, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds %q:\n%s", sink, s, text)
			}
		}
	}
	file, err := os.ReadFile(h.eventsPath)
	if err != nil {
		t.Fatal(err)
	}
	check("the events file", string(file))
	// The ordinary words of the queries are still there to read.
	if !strings.Contains(string(file), "who paid with [REDACTED] for widget") ||
		!strings.Contains(string(file), "what did [REDACTED] say about the widget project") {
		t.Errorf("the events file lost the queries' ordinary words:\n%s", file)
	}
	var shown strings.Builder
	err = tail.Tail(context.Background(), tail.Options{Path: h.eventsPath}, func(line []byte, ev events.Event) error {
		shown.WriteString(tail.Format(ev, false) + "\n")
		shown.Write(line)
		shown.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check("pgbrain tail", shown.String())
	check("serve's stderr", h.stderr.String())
	check("the capture stderr", capErr.String())
	for _, c := range h.spans.all() {
		check("a span", strings.Join([]string{c.Tool, c.CallID, c.SessionID, c.Status, c.ErrorKind}, " "))
	}
	rows, err := b.Pool.Query(context.Background(), `SELECT query FROM brain.eval_candidates ORDER BY created_at`)
	if err != nil {
		t.Fatal(err)
	}
	var captured []string
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			t.Fatal(err)
		}
		captured = append(captured, q)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(captured) != 2 {
		t.Fatalf("captured %q, want the two answered queries", captured)
	}
	check("captured queries (what eval export writes)", strings.Join(captured, "\n"))
}
