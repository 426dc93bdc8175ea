package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/pii"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestServeOverStdio starts the command and talks MCP to it over stdio.
func TestServeOverStdio(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	if _, errOut, code := pgbrain(t, url, "# Widgets\n\nThe widget project ships blue widgets.\n", "put", "notes/widgets"); code != 0 {
		t.Fatalf("put: %d %s", code, errOut)
	}
	dir := t.TempDir()
	bin := pgbrainBinary(t)
	eventsPath := filepath.Join(dir, "events.jsonl")
	cmd := exec.Command(bin, "--database-url", url, "--home", filepath.Join(dir, "home"), "serve", "--events-path", eventsPath)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=", "PGBRAIN_CONTRIBUTOR_MODE=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("initialize: %v (stderr %s)", err, stderr.String())
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "pgbrain" {
		t.Errorf("server name %q", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Fatalf("tools/list: %v, %d tools", err, len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "widget"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var ans struct {
		Status  string `json:"status"`
		Results []struct{ Slug string }
	}
	if err := json.Unmarshal(raw, &ans); err != nil || ans.Status != "success" || len(ans.Results) != 1 || ans.Results[0].Slug != "notes/widgets" {
		t.Fatalf("tools/call search = %s (%v)", raw, err)
	}
	// Audit rows are written in the background: exiting must drain them.
	const more = 20
	for i := 0; i < more; i++ {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_sources"}); err != nil {
			t.Fatal(err)
		}
	}
	// Closing the session closes the server's stdin: EOF must stop it cleanly.
	if err := cs.Close(); err != nil {
		t.Fatalf("closing: %v (stderr %s)", err, stderr.String())
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("server exit state %v (stderr %s)", cmd.ProcessState, stderr.String())
	}

	data, err := os.ReadFile(eventsPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var subtypes []string
	for _, l := range lines {
		ev, err := events.Parse([]byte(l))
		if err != nil {
			t.Fatalf("event %q: %v", l, err)
		}
		subtypes = append(subtypes, ev.EventSubtype+ev.ToolName)
	}
	if want := "server_start,search," + strings.Repeat("list_sources,", more) + "server_stop"; strings.Join(subtypes, ",") != want {
		t.Errorf("events %v, want %s", subtypes, want)
	}

	// SIGTERM while the client is still connected is a clean stop too.
	sigEvents := filepath.Join(dir, "sig.jsonl")
	sig := exec.Command(bin, "--database-url", url, "--home", filepath.Join(dir, "home"), "serve", "--events-path", sigEvents)
	stdin, err := sig.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	sig.Env = cmd.Env
	if err := sig.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(sigEvents); bytes.Contains(b, []byte("server_start")) {
			break
		}
	}
	if err := sig.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := sig.Wait(); err != nil {
		t.Fatalf("server after SIGTERM: %v", err)
	}
	if b, _ := os.ReadFile(sigEvents); !bytes.Contains(b, []byte(`"event_subtype":"server_stop","message":"stopped`)) {
		t.Errorf("no server_stop after SIGTERM: %s", b)
	}

	conn := connect(t, url)
	var caller, tool, status string
	if err := conn.QueryRow(ctx, `SELECT caller, tool_name, status FROM brain.audit_log ORDER BY id LIMIT 1`).Scan(&caller, &tool, &status); err != nil {
		t.Fatalf("audit row: %v", err)
	}
	if caller != "e2e-agent" || tool != "search" || status != "success" {
		t.Errorf("audit row %s %s %s", caller, tool, status)
	}
	var rows, problems int
	if err := conn.QueryRow(ctx, `SELECT count(*), (SELECT count(*) FROM brain.audit_verify(true)) FROM brain.audit_log`).Scan(&rows, &problems); err != nil {
		t.Fatal(err)
	}
	if rows != 1+more || problems != 0 {
		t.Errorf("%d audit rows with %d chain problems after exit, want %d rows and none", rows, problems, 1+more)
	}
}

func TestServeFlags(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	home := t.TempDir()
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"unknown category", []string{"serve", "--pii-block", "health,emails"}, 2, append([]string{`"emails"`}, pii.Categories()...)},
		{"no events with a path", []string{"serve", "--no-events", "--events-path", "x"}, 2, []string{"--no-events"}},
		{"refusal off", []string{"serve", "--pii-block", "", "--no-events"}, 0, []string{"PII refusal is off"}},
		{"no audit", []string{"serve", "--no-audit", "--no-events"}, 0, []string{"--no-audit", "not be recorded"}},
		{"no audit with a policy", []string{"serve", "--no-audit", "--pii-block", "health", "--no-events"}, 0,
			[]string{"refusals are enforced but will not be recorded"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Empty stdin: the server starts, reads EOF and stops.
			_, errOut, code := pgbrain(t, url, "", append([]string{"--home", home}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, errOut)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr %q lacks %q", errOut, s)
				}
			}
		})
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w, err := events.Open(path, events.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	w.Write(events.Event{Timestamp: now.Add(-time.Hour), ServerSessionID: "s", Kind: events.KindServerEvent, EventSubtype: events.SubtypeServerStart})
	w.Write(events.Event{Timestamp: now, ServerSessionID: "s", Kind: events.KindToolCall, ToolName: "search",
		ArgsSummary: map[string]any{"query": "widgets"}, Status: events.StatusEmpty, ResultSummary: map[string]int64{"results": 0}})
	w.Close()
	data, _ := os.ReadFile(path)
	rawLines := strings.SplitAfter(string(data), "\n")

	cases := []struct {
		name string
		args []string
		code int
		want func(out string) bool
	}{
		{"json prints raw lines", []string{"--json", "--no-follow"}, 0, func(out string) bool { return out == string(data) }},
		{"since skips older events", []string{"--json", "--no-follow", "--since", "5m"}, 0, func(out string) bool { return out == rawLines[1] }},
		{"pretty output without colour", []string{"--no-follow"}, 0, func(out string) bool {
			return strings.Count(out, "\n") == 2 && strings.Contains(out, "server_start") &&
				strings.Contains(out, "search") && strings.Contains(out, "widgets") && !strings.Contains(out, "\x1b[")
		}},
		{"bad since", []string{"--since", "yesterday"}, 2, func(out string) bool { return out == "" }},
		{"contradicting follow flags", []string{"--follow", "--no-follow"}, 2, func(out string) bool { return out == "" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), append([]string{"pgbrain", "tail", "--events-path", path}, tc.args...),
				strings.NewReader(""), &out, &errOut)
			if code != tc.code || !tc.want(out.String()) {
				t.Errorf("exit %d (want %d), stdout %q, stderr %q", code, tc.code, out.String(), errOut.String())
			}
		})
	}

	// Following is the default: the tail keeps running until cancelled and
	// prints events written meanwhile.
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuf
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"pgbrain", "tail", "--json", "--events-path", path}, strings.NewReader(""), &out, &bytes.Buffer{})
	}()
	w2, err := events.Open(path, events.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w2.Write(events.Event{ServerSessionID: "s", Kind: events.KindServerEvent, EventSubtype: events.SubtypeServerStop})
	w2.Close()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "server_stop") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 || !strings.Contains(out.String(), "server_stop") {
		t.Errorf("follow: exit %d, output %q", code, out.String())
	}

	// Following a file that is not there yet says it waits, once.
	missing := filepath.Join(t.TempDir(), "later.jsonl")
	wctx, wcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer wcancel()
	var werr bytes.Buffer
	if code := run(wctx, []string{"pgbrain", "tail", "--events-path", missing}, strings.NewReader(""), &bytes.Buffer{}, &werr); code != 0 ||
		strings.Count(werr.String(), "no events file at "+missing+" yet; waiting for it") != 1 {
		t.Errorf("follow of a missing file: exit %d, stderr %q; want one note that it waits", code, werr.String())
	}
}

// syncBuf is a bytes.Buffer safe to read while another goroutine writes.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServePipedRequestsAllAnswered: requests piped into serve, then EOF,
// are all answered before it exits (printf '...' | pgbrain serve).
func TestServePipedRequestsAllAnswered(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	if _, errOut, code := pgbrain(t, url, "# Widgets\n\nThe widget project ships blue widgets.\n", "put", "notes/widgets"); code != 0 {
		t.Fatalf("put: %d %s", code, errOut)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"printf","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"widgets"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_sources"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
	}, "\n") + "\n"
	out, errOut, code := pgbrain(t, url, in, "--home", t.TempDir(), "serve", "--no-events")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var a struct {
			ID     json.RawMessage `json:"id"`
			Error  any             `json:"error"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		if a.Error != nil || len(a.Result) == 0 {
			t.Errorf("answer %s", line)
		}
		ids = append(ids, string(a.ID))
	}
	slices.Sort(ids)
	if strings.Join(ids, ",") != "1,2,3,4,5" {
		t.Errorf("answered ids %v, want 1 to 5", ids)
	}
}

// TestServeRefusesToGuessTheBrain: with no database and no embedded brain,
// serve names what to set instead of creating an empty brain.
func TestServeRefusesToGuessTheBrain(t *testing.T) {
	t.Parallel()
	// TestMain unsets DATABASE_URL and PGBRAIN_DATABASE_URL.
	home := filepath.Join(t.TempDir(), "home")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"pgbrain", "--home", home, "serve", "--no-events"}, strings.NewReader(""), &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, errOut.String())
	}
	for _, want := range []string{"PGBRAIN_HOME", "DATABASE_URL", `"env"`, "pgbrain init", "never creates"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr %q lacks %q", errOut.String(), want)
		}
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q, want nothing", out.String())
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("serve created %s (%v): it must not initialise anything", home, err)
	}
}

func TestTokenCommands(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	secret, errOut, code := pgbrain(t, url, "", "token", "create", "laptop", "--role", "pgbrain_reader")
	if code != 0 || !strings.HasPrefix(secret, "pgb_") || !strings.Contains(errOut, "shown only now") {
		t.Fatalf("create: %d %q %q", code, secret, errOut)
	}
	out, _, code := pgbrain(t, url, "", "token", "list", "--json")
	var list []struct {
		Name, Role string
		RevokedAt  *time.Time `json:"revoked_at"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 || len(list) != 1 || list[0].Name != "laptop" || list[0].Role != "pgbrain_reader" {
		t.Fatalf("list: %d %q (%v)", code, out, err)
	}
	if strings.Contains(out, strings.TrimSpace(secret)) {
		t.Error("token list shows the secret")
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"token", "create", "Bad Name"}, 2, "token name"},
		{[]string{"token", "create"}, 2, "one token NAME"},
		{[]string{"token", "create", "laptop"}, 1, "exists already"},
		{[]string{"token", "revoke", "nobody"}, 1, "no such token"},
		{[]string{"token", "revoke", "laptop"}, 0, "revoked"},
	} {
		_, errOut, code := pgbrain(t, url, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

func TestServeHTTPFlags(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--tls-cert", "c.pem"}, "only with --http"},
		{[]string{"serve", "--no-auth"}, "only with --http"},
		{[]string{"serve", "--http", "8080"}, "host:port"},
		{[]string{"serve", "--http", "0.0.0.0:0", "--no-auth"}, "loopback"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--tls-cert", "c.pem"}, "go together"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--rate", "0"}, "--rate"},
	} {
		_, errOut, code := pgbrain(t, url, "", append([]string{"--home", t.TempDir()}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestServeRefusesSymlinkedEventsPath is issue 14's finding: the events path
// followed a link and changed its target's mode. serve now says why and runs
// without events; the target is untouched.
func TestServeRefusesSymlinkedEventsPath(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	home := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "events.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := pgbrain(t, url, "", "--home", home, "serve", "--events-path", link)
	if code != 0 || !strings.Contains(errOut, "no events will be written") || !strings.Contains(errOut, "symbolic link") {
		t.Fatalf("exit %d, stderr %q; want serve to run without events and say the path is a link", code, errOut)
	}
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("target mode changed to %v", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("target content changed to %q", b)
	}
}
