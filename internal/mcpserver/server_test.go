package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/audit"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/mcpserver"
	"github.com/pgbrain/pgbrain/internal/refusal"
	"github.com/pgbrain/pgbrain/internal/telemetry"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

const sessionID = "test-session-1"

// seed stores three pages: one without personal data, one with an email
// (contact, not blocked by the floor) and one with a card number
// (payment_card, blocked by the floor).
func seed(t *testing.T, b *brain.Brain) {
	t.Helper()
	for slug, body := range map[string]string{
		"notes/widgets": "# Widgets\n\nThe widget project ships blue widgets every spring.\n",
		"people/alice":  "# Alice\n\nAlice leads the widget project. Write to alice@widgetworks.io.\n",
		"finance/card":  "# Card\n\nThe widget project card is 4111 1111 1111 1111.\n",
	} {
		if _, err := ingest.PutPage(context.Background(), b, slug, []byte(body), ingest.Options{}); err != nil {
			t.Fatal(err)
		}
	}
}

// spanLog keeps the calls a tracer would have turned into spans.
type spanLog struct {
	mu    sync.Mutex
	calls []telemetry.Call
}

func (s *spanLog) ToolCall(_ context.Context, c telemetry.Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

func (s *spanLog) all() []telemetry.Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

type harness struct {
	b          *brain.Brain
	cs         *mcp.ClientSession
	eventsPath string
	stderr     *syncBuffer
	spans      *spanLog
	cancel     context.CancelFunc
	done       chan error
	closed     bool
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// asyncAudit is the audit writer serve uses, closed when the test ends.
func asyncAudit(t *testing.T, db audit.Execer, stderr *syncBuffer) *audit.Async {
	t.Helper()
	var errs io.Writer
	if stderr != nil {
		errs = stderr
	}
	a := audit.NewAsync(audit.NewWriter(db, errs), audit.AsyncOptions{})
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	return a
}

// start serves b over an in-memory transport with the floor policy, audit
// (in the background, as serve does), events and a span log; edit adjusts
// the config first.
func start(t *testing.T, b *brain.Brain, edit func(*mcpserver.Config)) *harness {
	t.Helper()
	return startWith(t, b, edit, nil)
}

// startWith is start with client options.
func startWith(t *testing.T, b *brain.Brain, edit func(*mcpserver.Config), copts *mcp.ClientOptions) *harness {
	t.Helper()
	return startAs(t, b, "test-agent", edit, copts)
}

// startAs is startWith for a client that names itself name.
func startAs(t *testing.T, b *brain.Brain, name string, edit func(*mcpserver.Config), copts *mcp.ClientOptions) *harness {
	t.Helper()
	h := &harness{b: b, eventsPath: filepath.Join(t.TempDir(), "events.jsonl"), stderr: &syncBuffer{}, spans: &spanLog{}}
	ew, err := events.Open(h.eventsPath, events.Options{Errors: h.stderr})
	if err != nil {
		t.Fatal(err)
	}
	policy, err := refusal.FromFlag("", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcpserver.Config{
		DB: b.Pool, Pages: b, Policy: policy,
		Audit:  asyncAudit(t, b.Pool, h.stderr),
		Events: ew, Spans: h.spans, SessionID: sessionID, Errors: h.stderr,
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := mcpserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	st, ct := mcp.NewInMemoryTransports()
	h.done = make(chan error, 1)
	go func() { h.done <- srv.Run(ctx, st) }()
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, copts)
	h.cs, err = client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.stop(t)
		ew.Close()
		cancel()
	})
	return h
}

// stop closes the client side and waits for the server to finish.
func (h *harness) stop(t *testing.T) {
	t.Helper()
	if h.closed {
		return
	}
	h.closed = true
	h.cs.Close()
	select {
	case err := <-h.done:
		if err != nil {
			t.Errorf("Run after the client hung up: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop after the client hung up")
	}
}

type answer struct {
	Status string         `json:"status"`
	Meta   map[string]any `json:"meta"`
	Error  *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
	Withheld *struct {
		Count      int      `json:"count"`
		Categories []string `json:"categories"`
	} `json:"withheld"`
	Results []struct {
		Slug string `json:"slug"`
	} `json:"results"`
	Page *struct {
		Slug string `json:"slug"`
		Body string `json:"body"`
	} `json:"page"`
	Pages   []struct{ Slug string } `json:"pages"`
	Sources []struct {
		ID    string `json:"id"`
		Pages int    `json:"pages"`
	} `json:"sources"`
}

// callTool calls a tool and checks the answer's invariants: structured
// content, a text copy equal to it, and isError exactly for error/refused.
func (h *harness) callTool(t *testing.T, name string, args any) answer {
	t.Helper()
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, raw, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1 text copy", name, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T, want text", name, res.Content[0])
	}
	var fromText, fromStruct any
	json.Unmarshal([]byte(text.Text), &fromText)
	json.Unmarshal(raw, &fromStruct)
	if !jsonEqual(fromText, fromStruct) {
		t.Errorf("%s: text copy %s differs from structured content %s", name, text.Text, raw)
	}
	wantErr := a.Status == mcpserver.StatusError || a.Status == mcpserver.StatusRefused
	if res.IsError != wantErr {
		t.Errorf("%s: isError = %v with status %q", name, res.IsError, a.Status)
	}
	if wantErr != (a.Error != nil) {
		t.Errorf("%s: status %q with error %+v", name, a.Status, a.Error)
	}
	return a
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func slugs(a answer) []string {
	var out []string
	for _, r := range a.Results {
		out = append(out, r.Slug)
	}
	for _, p := range a.Pages {
		out = append(out, p.Slug)
	}
	slices.Sort(out)
	return out
}

func TestToolsListed(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	h := start(t, b, nil)
	res, err := h.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	schemas := map[string]map[string]any{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tool.Name)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
		raw, _ := json.Marshal(tool.InputSchema)
		var m map[string]any
		json.Unmarshal(raw, &m)
		schemas[tool.Name] = m
	}
	slices.Sort(names)
	if want := []string{"get_page", "list_pages", "list_sources", "query", "search"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	prop := func(tool, name, key string) any {
		p, _ := schemas[tool]["properties"].(map[string]any)[name].(map[string]any)
		return p[key]
	}
	cases := []struct {
		tool, prop, key string
		want            any
	}{
		{"query", "query", "maxLength", 51200.0},
		{"query", "limit", "maximum", 100.0},
		{"query", "limit", "minimum", 1.0},
		{"query", "detail", "enum", []any{"low", "medium", "high"}},
		{"search", "query", "minLength", 1.0},
		{"list_pages", "limit", "maximum", 100.0},
	}
	for _, tc := range cases {
		if got := prop(tc.tool, tc.prop, tc.key); !jsonEqual(got, tc.want) {
			t.Errorf("%s.%s %s = %v, want %v", tc.tool, tc.prop, tc.key, got, tc.want)
		}
	}
	// The advertised slug pattern admits slugs in every script, as import
	// derives them, and still refuses paths and spaces.
	pat, _ := prop("get_page", "slug", "pattern").(string)
	re, err := regexp.Compile(pat)
	if err != nil {
		t.Fatalf("get_page.slug pattern %q: %v", pat, err)
	}
	for s, want := range map[string]bool{"people/alice": true, "東京/café": true, "c++": true, "🎉-party": true, "हिन्दी": true, "../etc/passwd": false, "a b": false, "/a": false, "a//b": false, "-a": false} {
		if re.MatchString(s) != want {
			t.Errorf("get_page.slug pattern %q matches %q = %v, want %v", pat, s, !want, want)
		}
	}
	if req, _ := schemas["get_page"]["required"].([]any); !jsonEqual(req, []any{"slug"}) {
		t.Errorf("get_page required = %v", req)
	}
}

func TestToolCalls(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	h := start(t, b, nil)
	long := strings.Repeat("a", 51201)
	cases := []struct {
		name     string
		tool     string
		args     map[string]any
		status   string
		kind     string
		slugs    []string // expected result/page slugs, when not nil
		withheld int
	}{
		{"search withholds the card page", "search", map[string]any{"query": "widget project"}, "partial", "",
			[]string{"notes/widgets", "people/alice"}, 1},
		{"query withholds the card page", "query", map[string]any{"query": "widget project", "limit": 5}, "partial", "", nil, 1},
		{"search without blocked hits", "search", map[string]any{"query": "alice", "sources": []string{"default"}}, "success", "",
			[]string{"people/alice"}, 0},
		{"search finds nothing", "search", map[string]any{"query": "zzyzzx"}, "empty", "", []string{}, 0},
		{"limit zero", "search", map[string]any{"query": "widget", "limit": 0}, "error", "invalid_argument", nil, 0},
		{"limit over 100", "query", map[string]any{"query": "widget", "limit": 101}, "error", "invalid_argument", nil, 0},
		{"limit not a number", "search", map[string]any{"query": "widget", "limit": "ten"}, "error", "invalid_argument", nil, 0},
		{"oversized query", "search", map[string]any{"query": long}, "error", "invalid_argument", nil, 0},
		{"NUL in query", "query", map[string]any{"query": "wid\x00get"}, "error", "invalid_argument", nil, 0},
		{"empty query", "query", map[string]any{"query": "  "}, "error", "invalid_argument", nil, 0},
		{"missing query", "search", map[string]any{}, "error", "invalid_argument", nil, 0},
		{"bad detail", "query", map[string]any{"query": "widget", "detail": "extreme"}, "error", "invalid_argument", nil, 0},
		{"unknown argument", "search", map[string]any{"query": "widget", "sql": "drop table"}, "error", "invalid_argument", nil, 0},
		{"bad source id", "search", map[string]any{"query": "widget", "sources": []string{"Bad Id"}}, "error", "invalid_argument", nil, 0},
		{"query text with a card number", "query", map[string]any{"query": "who owns 4111 1111 1111 1111"}, "refused", "pii_blocked", nil, 0},
		{"get a page", "get_page", map[string]any{"slug": "people/alice"}, "success", "", nil, 0},
		{"get a blocked page", "get_page", map[string]any{"slug": "finance/card", "source": "default"}, "refused", "pii_blocked", nil, 0},
		{"unknown slug", "get_page", map[string]any{"slug": "people/nobody"}, "error", "not_found", nil, 0},
		{"malformed slug", "get_page", map[string]any{"slug": "../etc/passwd"}, "error", "invalid_argument", nil, 0},
		{"list pages", "list_pages", nil, "success", "", []string{"finance/card", "notes/widgets", "people/alice"}, 0},
		{"list pages of a missing type", "list_pages", map[string]any{"type": "nosuch"}, "empty", "", []string{}, 0},
		{"list pages limit", "list_pages", map[string]any{"limit": 1}, "success", "", []string{"finance/card"}, 0},
		{"list sources", "list_sources", map[string]any{}, "success", "", nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := h.callTool(t, tc.tool, tc.args)
			if a.Status != tc.status {
				t.Fatalf("status %q (%+v), want %q", a.Status, a.Error, tc.status)
			}
			if tc.kind != "" && (a.Error == nil || a.Error.Kind != tc.kind || a.Error.Message == "") {
				t.Fatalf("error %+v, want kind %q with a message", a.Error, tc.kind)
			}
			if tc.slugs != nil {
				if got := slugs(a); !slices.Equal(got, tc.slugs) && !(len(got) == 0 && len(tc.slugs) == 0) {
					t.Errorf("slugs %v, want %v", got, tc.slugs)
				}
			}
			if tc.withheld > 0 {
				if a.Withheld == nil || a.Withheld.Count != tc.withheld || !slices.Equal(a.Withheld.Categories, []string{"payment_card"}) {
					t.Errorf("withheld %+v, want %d payment_card", a.Withheld, tc.withheld)
				}
				if slices.Contains(slugs(a), "finance/card") {
					t.Errorf("blocked page returned: %v", slugs(a))
				}
			} else if a.Withheld != nil {
				t.Errorf("withheld %+v on a %s answer", a.Withheld, a.Status)
			}
		})
	}
	a := h.callTool(t, "get_page", map[string]any{"slug": "people/alice"})
	if a.Page == nil || !strings.Contains(a.Page.Body, "Alice leads") {
		t.Errorf("get_page body %+v", a.Page)
	}
	// A slug in another script, sent as stored (NFC) or decomposed (NFD).
	if _, err := ingest.PutPage(context.Background(), b, "東京/café", []byte("# Tokyo café\n\nA café in Tokyo.\n"), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"東京/café", "東京/cafe\u0301"} {
		if a := h.callTool(t, "get_page", map[string]any{"slug": slug}); a.Page == nil || !strings.Contains(a.Page.Body, "A café in Tokyo") {
			t.Errorf("get_page %q = %+v", slug, a)
		}
	}
	if _, err := b.Pool.Exec(context.Background(), `DELETE FROM brain.pages WHERE slug = '東京/café'`); err != nil {
		t.Fatal(err)
	}
	if a := h.callTool(t, "list_sources", nil); len(a.Sources) != 1 || a.Sources[0].ID != "default" || a.Sources[0].Pages != 3 {
		t.Errorf("list_sources = %+v", a.Sources)
	}
	if a := h.callTool(t, "get_page", map[string]any{"slug": "finance/card"}); a.Page != nil || strings.Contains(a.Error.Message, "4111") {
		t.Errorf("refused get_page leaked content: %+v", a)
	}
	// An error quoting what the agent sent quotes it scrubbed.
	const token = "ghp_R7kQ2mZx9LwP4vB8nT3yH6jD1sF5aG0cE2uK"
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "widget", "why " + token: 1}},
		{"search", map[string]any{"query": "widget", "detail": "AKIAIOSFODNN7EXAMPLE " + token}},
		// (a value is cut to 80 characters in the message: scrubbed first)
		{"get_page", map[string]any{"slug": strings.Repeat("x", 44) + " " + token}},
	} {
		args := call.args
		a := h.callTool(t, call.tool, args)
		if a.Error == nil || a.Error.Kind != "invalid_argument" || strings.Contains(a.Error.Message, token[:12]) || strings.Contains(a.Error.Message, "AKIAIOSFODNN7EXAMPLE") {
			t.Errorf("%s %v: error %+v, want invalid_argument without the secrets", call.tool, args, a.Error)
		}
	}
}

func TestPolicyOffReturnsEverything(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	h := start(t, b, func(c *mcpserver.Config) { c.Policy = refusal.Policy{} })
	if a := h.callTool(t, "search", map[string]any{"query": "widget project"}); a.Status != "success" ||
		!slices.Equal(slugs(a), []string{"finance/card", "notes/widgets", "people/alice"}) {
		t.Errorf("search with no policy: %s %v", a.Status, slugs(a))
	}
	if a := h.callTool(t, "get_page", map[string]any{"slug": "finance/card"}); a.Status != "success" {
		t.Errorf("get_page with no policy: %s", a.Status)
	}
	widened, err := refusal.FromFlag("contact", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	h2 := start(t, b, func(c *mcpserver.Config) { c.Policy = widened })
	if a := h2.callTool(t, "search", map[string]any{"query": "widget project"}); a.Status != "partial" ||
		a.Withheld.Count != 2 || !slices.Equal(a.Withheld.Categories, []string{"contact", "payment_card"}) {
		t.Errorf("search with contact blocked: %s %+v", a.Status, a.Withheld)
	}
}

type auditRow struct {
	Session, Caller, Tool, Status, Reason, Cost, Fingerprint string
	Categories                                               []string
}

func auditRows(t *testing.T, b *brain.Brain) []auditRow {
	t.Helper()
	rows, err := b.Pool.Query(context.Background(), `
		SELECT session_id, caller, tool_name, status, coalesce(refusal_reason, ''), cost_class, fingerprint, pii_categories
		FROM brain.audit_log ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []auditRow
	for rows.Next() {
		var r auditRow
		if err := rows.Scan(&r.Session, &r.Caller, &r.Tool, &r.Status, &r.Reason, &r.Cost, &r.Fingerprint, &r.Categories); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func readEvents(t *testing.T, path string) []events.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []events.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		ev, err := events.Parse([]byte(line))
		if err != nil {
			t.Fatalf("event line %q: %v", line, err)
		}
		out = append(out, ev)
	}
	return out
}

// The client's name is its own claim, and it is stored as the caller of
// every audit row and event: scrubbed like any text an agent sends.
func TestCallerNameIsScrubbed(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	const email, token = "carol.dunne@example.org", "ghp_Cl9CkR7qZ2mX9wLp4vB8nT3yH6jD1sF5aG0c"
	h := startAs(t, b, "agent "+email+" "+token, nil, nil)
	h.callTool(t, "search", map[string]any{"query": "widget project"})
	h.stop(t)
	rows := auditRows(t, b)
	if len(rows) != 1 {
		t.Fatalf("audit rows = %+v, want one", rows)
	}
	if c := rows[0].Caller; strings.Contains(c, email) || strings.Contains(c, token) || !strings.HasPrefix(c, "agent ") {
		t.Errorf("audit caller = %q, want the name with its email and token redacted", c)
	}
	data, err := os.ReadFile(h.eventsPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), email) || strings.Contains(string(data), token) {
		t.Errorf("events file holds the caller's email or token: %s", data)
	}
}

func TestAuditEventsAndSpans(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	h := start(t, b, nil)
	h.callTool(t, "search", map[string]any{"query": "widget project", "limit": 10})
	h.callTool(t, "get_page", map[string]any{"slug": "finance/card"})
	h.callTool(t, "search", map[string]any{"query": "bob@widgetworks.io"})
	h.callTool(t, "search", map[string]any{"query": "widget", "limit": 0})
	h.stop(t)

	rows := auditRows(t, b)
	want := []auditRow{
		{sessionID, "test-agent", "search", "partial", "", "search", "", []string{"contact", "payment_card"}},
		{sessionID, "test-agent", "get_page", "refused", "pii_blocked", "refused", "", []string{"payment_card"}},
		{sessionID, "test-agent", "search", "empty", "", "search", "", []string{"contact"}},
		{sessionID, "test-agent", "search", "error", "", "search", "", []string{}},
	}
	if len(rows) != len(want) {
		t.Fatalf("audit rows %+v, want %d", rows, len(want))
	}
	spans := h.spans.all()
	if len(spans) != len(want) {
		t.Fatalf("%d spans, want %d", len(spans), len(want))
	}
	for i, w := range want {
		r := rows[i]
		w.Fingerprint = audit.Fingerprint(audit.Entry{Tool: w.Tool, Status: w.Status, RefusalReason: w.Reason,
			PIICategories: w.Categories, CostClass: w.Cost})
		if r.Categories == nil {
			r.Categories = []string{}
		}
		if !jsonEqual(r, w) {
			t.Errorf("audit row %d = %+v, want %+v", i, r, w)
		}
		if spans[i].CallID != r.Fingerprint || spans[i].SessionID != sessionID || spans[i].Status != w.Status || spans[i].Tool != w.Tool {
			t.Errorf("span %d = %+v, want call id %s", i, spans[i], r.Fingerprint)
		}
	}
	if spans[1].ErrorKind != "pii_blocked" || spans[3].ErrorKind != "invalid_argument" || spans[0].Result["withheld"] != 1 {
		t.Errorf("span details: %+v", spans)
	}

	evs := readEvents(t, h.eventsPath)
	if len(evs) != 6 {
		t.Fatalf("%d events, want start, 4 calls, stop: %+v", len(evs), evs)
	}
	if evs[0].EventSubtype != events.SubtypeServerStart || evs[5].EventSubtype != events.SubtypeServerStop {
		t.Errorf("lifecycle events: %+v ... %+v", evs[0], evs[5])
	}
	for _, ev := range evs {
		if ev.ServerSessionID != sessionID {
			t.Errorf("event session %q", ev.ServerSessionID)
		}
	}
	calls := evs[1:5]
	if calls[0].Kind != events.KindToolCall || calls[0].ToolName != "search" || calls[0].Status != "partial" ||
		calls[0].ResultSummary["results"] != 2 || calls[0].ResultSummary["withheld"] != 1 ||
		calls[0].ArgsSummary["query"] != "widget project" {
		t.Errorf("partial search event: %+v", calls[0])
	}
	if calls[1].Status != "refused" || calls[1].ErrorKind != "pii_blocked" {
		t.Errorf("refused event: %+v", calls[1])
	}
	if calls[2].ArgsSummary["query"] != "<email>" {
		t.Errorf("email argument not redacted: %+v", calls[2].ArgsSummary)
	}
	if calls[3].Status != "error" || calls[3].ErrorKind != "invalid_argument" {
		t.Errorf("error event: %+v", calls[3])
	}
	data, _ := os.ReadFile(h.eventsPath)
	// The card's digits in full: "4111" alone also turns up by chance in
	// timestamps, latencies and ids.
	for _, secret := range []string{"bob@widgetworks.io", "4111 1111", "4111111111111111", "Alice leads"} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("events file contains %q", secret)
		}
	}
}

func TestBrokenSinksNeverFailACall(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	// An audit writer on a closed pool fails every insert.
	closed, err := brain.Open(context.Background(), testdb.New(t))
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	h := start(t, b, func(c *mcpserver.Config) { c.Audit = asyncAudit(t, closed.Pool, nil) })
	// Replacing the events file with a directory makes every write fail.
	if err := os.Remove(h.eventsPath); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(h.eventsPath, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if a := h.callTool(t, "search", map[string]any{"query": "alice"}); a.Status != "success" {
			t.Fatalf("call %d: status %s", i, a.Status)
		}
	}
	h.stop(t)
	if n := strings.Count(h.stderr.String(), "pgbrain: events:"); n != 1 {
		t.Errorf("events failures reported %d times, want once: %q", n, h.stderr.String())
	}
	if spans := h.spans.all(); len(spans) != 3 || spans[0].CallID == "" {
		t.Errorf("spans without audit: %+v", spans)
	}
	if rows := auditRows(t, b); len(rows) != 0 {
		t.Errorf("audit rows in the served brain: %+v", rows)
	}
}

func TestNoAuditStillIdentifiesCalls(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	h := start(t, b, func(c *mcpserver.Config) { c.Audit = nil })
	h.callTool(t, "list_sources", nil)
	h.stop(t)
	if rows := auditRows(t, b); len(rows) != 0 {
		t.Fatalf("audit rows with audit off: %+v", rows)
	}
	want := audit.Fingerprint(audit.Entry{Tool: "list_sources", Status: "success", CostClass: "read"})
	if spans := h.spans.all(); len(spans) != 1 || spans[0].CallID != want {
		t.Errorf("span call id %+v, want %s", spans, want)
	}
}

func TestCaptureIsRemote(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	var stderr bytes.Buffer
	rec := capture.New(b.Pool, evalconfig.Settings{Capture: true, ScrubPII: true}, t.TempDir(), &stderr)
	h := start(t, b, func(c *mcpserver.Config) { c.Capture = rec })
	h.callTool(t, "search", map[string]any{"query": "widget project"})
	h.callTool(t, "query", map[string]any{"query": "alice"})
	h.callTool(t, "get_page", map[string]any{"slug": "people/alice"}) // not a search: not captured
	h.stop(t)
	if err := rec.Close(context.Background()); err != nil {
		t.Fatalf("draining captures: %v (%s)", err, stderr.String())
	}
	rows, err := b.Pool.Query(context.Background(),
		`SELECT tool_name, remote, retrieved_slugs FROM brain.eval_candidates ORDER BY tool_name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var tool string
		var remote bool
		var slugs []string
		if err := rows.Scan(&tool, &remote, &slugs); err != nil {
			t.Fatal(err)
		}
		if !remote {
			t.Errorf("%s captured with remote=false", tool)
		}
		if slices.Contains(slugs, "finance/card") {
			t.Errorf("%s capture holds a withheld slug: %v", tool, slugs)
		}
		got = append(got, tool)
	}
	if !slices.Equal(got, []string{"query", "search"}) {
		t.Errorf("captured tools %v, want query and search", got)
	}
}

func TestCancelStopsServer(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	h := start(t, b, nil)
	h.callTool(t, "list_sources", nil)
	h.cancel()
	select {
	case err := <-h.done:
		if err != nil {
			t.Fatalf("Run after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop on cancel")
	}
	h.closed = true
	evs := readEvents(t, h.eventsPath)
	last := evs[len(evs)-1]
	if last.EventSubtype != events.SubtypeServerStop || !strings.Contains(last.Message, "stopped") {
		t.Errorf("last event %+v, want server_stop after cancel", last)
	}
}

// gate is a real database handle whose Exec waits until the test opens the
// gate: an INSERT that has not finished yet.
type gate struct {
	db      audit.Execer
	entered chan struct{} // receives once per Exec that reached the gate
	open    chan struct{}
}

func (g *gate) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	select {
	case <-g.open:
	case <-ctx.Done():
		return pgconn.CommandTag{}, ctx.Err()
	}
	return g.db.Exec(ctx, sql, args...)
}

// TestAnswerDoesNotWaitForAudit fails if handle waited for the audit
// INSERT: the INSERT is held until every answer has arrived.
func TestAnswerDoesNotWaitForAudit(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	g := &gate{db: b.Pool, entered: make(chan struct{}, 1), open: make(chan struct{})}
	// A timeout far beyond the test's own bound: a synchronous write would
	// hold each answer until the gate opens.
	aw := audit.NewAsync(audit.NewWriter(g, nil).WithTimeout(time.Minute), audit.AsyncOptions{})
	t.Cleanup(func() { _ = aw.Close(context.Background()) })
	var once sync.Once
	release := func() { once.Do(func() { close(g.open) }) }
	t.Cleanup(release) // runs before the Close above
	h := start(t, b, func(c *mcpserver.Config) { c.Audit = aw })
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"list_sources", nil},
		{"search", map[string]any{"query": "widget project"}},
		{"get_page", map[string]any{"slug": "finance/card"}},
	}
	for _, c := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		cancel()
		if err != nil || res == nil {
			t.Fatalf("%s while its audit INSERT is blocked: %v", c.tool, err)
		}
	}
	select {
	case <-g.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the audit writer never started an INSERT")
	}
	if rows := auditRows(t, b); len(rows) != 0 {
		t.Fatalf("%d audit rows while the INSERT is blocked", len(rows))
	}
	if spans := h.spans.all(); len(spans) != len(calls) || spans[0].CallID == "" {
		t.Fatalf("spans before the audit write: %+v", spans)
	}
	release()
	h.stop(t) // Run flushes the audit writer before returning
	rows := auditRows(t, b)
	if len(rows) != len(calls) {
		t.Fatalf("%d audit rows after stop, want %d", len(rows), len(calls))
	}
	for i, r := range rows {
		if r.Tool != calls[i].tool || r.Fingerprint != h.spans.all()[i].CallID {
			t.Errorf("audit row %d = %+v, want tool %s with the span's call id", i, r, calls[i].tool)
		}
	}
}

// TestMetaIsBrainSearchMeta: what the query and search tools report about
// how a search ran is brain.search's meta for the same call in SQL.
func TestMetaIsBrainSearchMeta(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	h := start(t, b, nil)
	for _, tc := range []struct{ tool, q, sql string }{
		{"query", "widget project", `SELECT meta FROM brain.search($1) LIMIT 1`},
		{"query", "when did the widget project start", `SELECT meta FROM brain.search($1) LIMIT 1`},
		{"query", "zzyzzx", `SELECT meta FROM brain.search($1) LIMIT 1`},
		{"search", "widget project", `SELECT meta FROM brain.search($1, detail => 'medium', vector_weight => 0, embed => false) LIMIT 1`},
	} {
		var raw []byte
		if err := b.Pool.QueryRow(context.Background(), tc.sql, tc.q).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		a := h.callTool(t, tc.tool, map[string]any{"query": tc.q})
		for _, k := range []string{"detail_resolved", "vector_enabled", "vector_ran", "vector_skipped", "parser", "keyword_scan"} {
			if !jsonEqual(a.Meta[k], want[k]) {
				t.Errorf("%s %q: meta %s = %v over MCP, %v from SQL", tc.tool, tc.q, k, a.Meta[k], want[k])
			}
		}
	}
}
