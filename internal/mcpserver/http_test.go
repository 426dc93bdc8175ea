package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/mcpserver"
	"github.com/pgbrain/pgbrain/internal/refusal"
	"github.com/pgbrain/pgbrain/internal/tokens"
)

// dbTokens checks tokens against the test database, as serve does.
type dbTokens struct{ db tokens.DB }

func (d dbTokens) VerifyToken(ctx context.Context, secret string) (string, bool, error) {
	t, err := tokens.Verify(ctx, d.db, secret)
	if errors.Is(err, tokens.ErrUnknown) {
		return "", false, nil
	}
	return t.Name, err == nil, err
}

type httpHarness struct {
	url        string
	eventsPath string
	stderr     *syncBuffer
	cancel     context.CancelFunc
	done       chan error
	capture    *capture.Recorder
}

// startHTTP serves b over HTTP on a loopback port with audit, events and
// capture, as serve --http does.
func startHTTP(t *testing.T, b *brain.Brain, opts mcpserver.HTTPOptions, edit func(*mcpserver.Config)) *httpHarness {
	t.Helper()
	h := &httpHarness{eventsPath: filepath.Join(t.TempDir(), "events.jsonl"), stderr: &syncBuffer{}}
	ew, err := events.Open(h.eventsPath, events.Options{Errors: h.stderr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ew.Close() })
	policy, err := refusal.FromFlag("", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.capture = capture.New(b.Pool, evalconfig.Settings{Capture: true, ScrubPII: true}, t.TempDir(), h.stderr)
	cfg := mcpserver.Config{
		DB: b.Pool, Pages: b, Policy: policy, Audit: asyncAudit(t, b.Pool, h.stderr),
		Events: ew, Capture: h.capture, SessionID: sessionID, Errors: h.stderr,
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := mcpserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.url = "http://" + ln.Addr().String() + "/mcp"
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	go func() { h.done <- srv.ServeHTTP(ctx, ln, opts) }()
	t.Cleanup(func() { h.stop(t) })
	return h
}

func (h *httpHarness) stop(t *testing.T) {
	t.Helper()
	if h.cancel == nil {
		return
	}
	h.cancel()
	h.cancel = nil
	select {
	case err := <-h.done:
		if err != nil {
			t.Errorf("ServeHTTP after cancel: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("HTTP server did not stop")
	}
}

// bearer adds a token to every request.
type bearer struct {
	token  string
	origin string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	if b.origin != "" {
		r.Header.Set("Origin", b.origin)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connectHTTP(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "http-agent", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token: token}}}, nil)
	if err != nil {
		t.Fatalf("connecting over HTTP: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

const pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

func post(t *testing.T, url string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	return postBody(t, url, pingBody, hdr)
}

// postBody posts body, one JSON-RPC message, with the headers hdr.
func postBody(t *testing.T, url, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(answer)
}

func TestHTTPAuthOriginAndRate(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	ctx := context.Background()
	good, err := tokens.Create(ctx, b.Pool, "agent-a", "")
	if err != nil {
		t.Fatal(err)
	}
	revoked, err := tokens.Create(ctx, b.Pool, "agent-old", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := tokens.Revoke(ctx, b.Pool, "agent-old"); err != nil {
		t.Fatal(err)
	}
	h := startHTTP(t, b, mcpserver.HTTPOptions{
		Tokens: dbTokens{b.Pool}, AllowedOrigins: []string{"https://app.example"}, Rate: 1, Burst: 4,
	}, nil)
	cases := []struct {
		name string
		hdr  map[string]string
		code int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"not bearer", map[string]string{"Authorization": "Basic " + good}, http.StatusUnauthorized},
		{"unknown token", map[string]string{"Authorization": "Bearer pgb_nope"}, http.StatusUnauthorized},
		{"revoked token", map[string]string{"Authorization": "Bearer " + revoked}, http.StatusUnauthorized},
		{"bad origin with a good token", map[string]string{"Authorization": "Bearer " + good, "Origin": "https://evil.example"}, http.StatusForbidden},
		// (with credentials in it, which the answer must not repeat)
		{"bad origin without a token", map[string]string{"Origin": "http://admin:OriginPw_77@localhost.evil"}, http.StatusForbidden},
		{"rebinding host", map[string]string{"Authorization": "Bearer " + good, "Host": "evil.example"}, http.StatusForbidden},
		{"own loopback origin", map[string]string{"Authorization": "Bearer " + good, "Origin": "http://" + strings.TrimSuffix(strings.TrimPrefix(h.url, "http://"), "/mcp")}, http.StatusOK},
		{"other loopback port", map[string]string{"Authorization": "Bearer " + good, "Origin": "http://127.0.0.1:1"}, http.StatusForbidden},
		{"allowed origin", map[string]string{"Authorization": "Bearer " + good, "Origin": "https://app.example"}, http.StatusOK},
		{"no origin", map[string]string{"Authorization": "Bearer " + good}, http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := map[string]string{}
			for k, v := range tc.hdr {
				req[k] = v
			}
			code, hdr, body := postHost(t, h.url, req)
			if code != tc.code {
				t.Fatalf("status %d (%s), want %d", code, body, tc.code)
			}
			if strings.Contains(body, "OriginPw_77") {
				t.Errorf("the answer repeats the origin's password: %s", body)
			}
			if code == http.StatusUnauthorized && !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer challenge: %v", hdr)
			}
			if code == http.StatusOK && !strings.Contains(body, `"result"`) {
				t.Errorf("ping answered %q", body)
			}
		})
	}
	// Burst 4, all used above: the bucket runs dry within a few more.
	var limited bool
	for range 5 {
		code, hdr, _ := post(t, h.url, map[string]string{"Authorization": "Bearer " + good})
		if code == http.StatusTooManyRequests {
			limited = hdr.Get("Retry-After") != ""
			break
		}
	}
	if !limited {
		t.Error("no 429 with Retry-After past the burst")
	}
}

// postHost is post with the Host header taken from hdr["Host"].
func postHost(t *testing.T, url string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	host, ok := hdr["Host"]
	if !ok {
		return post(t, url, hdr)
	}
	delete(hdr, "Host")
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(pingBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

// TestHTTPConcurrentClientsAreAllRecorded: several clients calling at once
// over HTTP get every answer, and every call has its audit row, event and
// (for searches) capture, exactly as over stdio.
func TestHTTPConcurrentClientsAreAllRecorded(t *testing.T) {
	t.Parallel()
	const clients, calls = 4, 40
	b := dbtest.Open(t)
	seed(t, b)
	ctx := context.Background()
	var secrets []string
	for i := range clients {
		s, err := tokens.Create(ctx, b.Pool, fmt.Sprintf("agent-%d", i), "")
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, s)
	}
	h := startHTTP(t, b, mcpserver.HTTPOptions{Tokens: dbTokens{b.Pool}, Rate: -1}, nil)
	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for i := range clients {
		cs := connectHTTP(t, h.url, secrets[i])
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range calls {
				name, args := "search", map[string]any{"query": "widget project"}
				if j%2 == 1 {
					name, args = "get_page", map[string]any{"slug": "notes/widgets"}
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				if err == nil && res.IsError {
					err = fmt.Errorf("%s answered an error: %v", name, res.StructuredContent)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	h.stop(t)
	if err := h.capture.Close(ctx); err != nil {
		t.Fatalf("draining captures: %v", err)
	}
	rows := auditRows(t, b)
	if len(rows) != clients*calls {
		t.Fatalf("%d audit rows, want %d", len(rows), clients*calls)
	}
	callers := map[string]int{}
	for _, r := range rows {
		callers[r.Caller]++
		if r.Session != sessionID {
			t.Fatalf("audit row of session %q", r.Session)
		}
	}
	for i := range clients {
		if n := callers[fmt.Sprintf("token:agent-%d", i)]; n != calls {
			t.Errorf("caller token:agent-%d has %d rows, want %d (%v)", i, n, calls, callers)
		}
	}
	var toolEvents int
	evs := readEvents(t, h.eventsPath)
	for _, ev := range evs {
		if ev.Kind == events.KindToolCall {
			toolEvents++
		}
	}
	if toolEvents != clients*calls {
		t.Errorf("%d tool-call events, want %d", toolEvents, clients*calls)
	}
	if evs[0].EventSubtype != events.SubtypeServerStart || evs[len(evs)-1].EventSubtype != events.SubtypeServerStop {
		t.Errorf("lifecycle events %s ... %s", evs[0].EventSubtype, evs[len(evs)-1].EventSubtype)
	}
	var captured, remote int
	if err := b.Pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE remote) FROM brain.eval_candidates`).Scan(&captured, &remote); err != nil {
		t.Fatal(err)
	}
	if captured != clients*calls/2 || remote != captured {
		t.Errorf("%d captures (%d remote), want %d, all remote", captured, remote, clients*calls/2)
	}
}

// TestHTTPShutdownDeliversCallsInFlight: cancelling ServeHTTP while a call
// runs still delivers its answer.
func TestHTTPShutdownDeliversCallsInFlight(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	pages := newSlowPages(b, 700*time.Millisecond)
	h := startHTTP(t, b, mcpserver.HTTPOptions{Rate: -1}, func(c *mcpserver.Config) {
		c.Pages = pages
		c.DrainTimeout = 10 * time.Second
	})
	cs := connectHTTP(t, h.url, "")
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	got := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_sources"})
		got <- result{res, err}
	}()
	pages.waitStarted(t)
	h.stop(t)
	r := <-got
	if r.err != nil || r.res.IsError {
		t.Fatalf("call in flight during shutdown: %v %+v", r.err, r.res)
	}
}

// Guessing tokens from one address is cut off with 429 before any token
// is looked up; a valid token from another address still gets in.
func TestHTTPFailedAuthenticationsAreLimited(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	h := startHTTP(t, b, mcpserver.HTTPOptions{Tokens: dbTokens{b.Pool}}, nil)
	guess := func(i int) int {
		req, err := http.NewRequest(http.MethodPost, h.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Error(err)
			return 0
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", fmt.Sprintf("Bearer pgb_guess%d", i))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// Guesses go out from several goroutines until one is cut off, so the
	// allowance's refill (FailRate a second) cannot keep up however slowly
	// a loaded machine answers each; the bound below counts that refill.
	const workers = 8
	var (
		mu                    sync.Mutex
		unauthorized, limited int
		next                  int
		wg                    sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(time.Minute)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if limited > 0 || time.Now().After(deadline) {
					mu.Unlock()
					return
				}
				next++
				i := next
				mu.Unlock()
				code := guess(i)
				mu.Lock()
				switch code {
				case http.StatusUnauthorized:
					unauthorized++
				case http.StatusTooManyRequests:
					limited++
				default:
					t.Errorf("guess %d: status %d", i, code)
					limited++ // stop
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	allowed := mcpserver.FailBurst + int(mcpserver.FailRate*elapsed.Seconds()) + workers
	if limited == 0 || unauthorized < mcpserver.FailBurst || unauthorized > allowed {
		t.Fatalf("%d guesses answered 401 and %d 429 in %v; want 429 after %d to %d (a burst of %d, %d a second, %d in flight)",
			unauthorized, limited, elapsed.Round(time.Millisecond), mcpserver.FailBurst, allowed, mcpserver.FailBurst, mcpserver.FailRate, workers)
	}
}

// postJSON posts one JSON-RPC message with a bearer token and returns the
// status and body of the answer.
func postJSON(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	code, _, answer := postBody(t, url, body, map[string]string{"Authorization": "Bearer " + token})
	return code, answer
}

// The SDK's HTTP refusals quote what the client sent ("JSON RPC not
// handled: <method>"): their bodies are scrubbed; a good answer is not
// touched.
func TestHTTPRefusalsAreScrubbed(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	ctx := context.Background()
	good, err := tokens.Create(ctx, b.Pool, "agent-a", "")
	if err != nil {
		t.Fatal(err)
	}
	h := startHTTP(t, b, mcpserver.HTTPOptions{Tokens: dbTokens{b.Pool}}, nil)
	const token = "ghp_MeThOd7kQ2mZx9LwP4vB8nT3yH6jD1sF5aG0c"
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"password=MethodPw_22 ` + token + `"}`,
		`{"jsonrpc":"2.0","method":"password=MethodPw_22 ` + token + `"}`,
	} {
		code, answer := postJSON(t, h.url, good, body)
		if strings.Contains(answer, token) || strings.Contains(answer, "MethodPw_22") {
			t.Errorf("status %d, body %q repeats the secrets", code, answer)
		}
	}
	if code, _, answer := post(t, h.url, map[string]string{"Authorization": "Bearer " + good}); code != http.StatusOK || !strings.Contains(answer, `"result"`) {
		t.Errorf("ping: %d %q", code, answer)
	}
}

// A JSON refusal stays valid JSON when scrubbed, control characters and
// all; a text one is scrubbed as text.
func TestScrubBodyKeepsJSONValid(t *testing.T) {
	body := []byte(`{"error":"bad method \"x\u0001y ghp_MeThOd7kQ2mZx9LwP4vB8nT3yH6jD1sF5aG0c\"","code":-32601}`)
	out := mcpserver.ScrubBody("application/json", body)
	if !json.Valid(out) || strings.Contains(string(out), "ghp_MeThOd") {
		t.Errorf("scrubbed JSON body %s: valid %v", out, json.Valid(out))
	}
	if out := mcpserver.ScrubBody("text/plain; charset=utf-8", []byte("JSON RPC not handled: \"password=x1y2z3\"")); strings.Contains(string(out), "x1y2z3") {
		t.Errorf("scrubbed text body %s", out)
	}
}

// The SDK's own JSON-RPC error answers (status 200) quote what the client
// sent ("unknown tool %q"): their message and data are scrubbed, on an SSE
// stream and as a JSON answer alike, and a good answer is left as it was.
func TestHTTPErrorAnswersAreScrubbed(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	ctx := context.Background()
	good, err := tokens.Create(ctx, b.Pool, "agent-a", "")
	if err != nil {
		t.Fatal(err)
	}
	const token = "ghp_ToOlNaMe7kQ2mZx9LwP4vB8nT3yH6jD1sF5aG0c"
	for _, jsonAnswer := range []bool{false, true} {
		h := startHTTP(t, b, mcpserver.HTTPOptions{Tokens: dbTokens{b.Pool}, JSONResponse: jsonAnswer}, nil)
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"password=ToolPw_22 ` + token + `","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"pgbrain://page/password=ToolPw_22 ` + token + `"}}`,
		} {
			code, answer := postJSON(t, h.url, good, body)
			if code != http.StatusOK || !strings.Contains(answer, `"error"`) {
				t.Errorf("json %v: status %d, body %q: want an error answer", jsonAnswer, code, answer)
			}
			if strings.Contains(answer, token) || strings.Contains(answer, "ToolPw_22") {
				t.Errorf("json %v: body %q repeats the secrets", jsonAnswer, answer)
			}
		}
		if code, _, answer := post(t, h.url, map[string]string{"Authorization": "Bearer " + good}); code != http.StatusOK || !strings.Contains(answer, `"result"`) {
			t.Errorf("json %v: ping: %d %q", jsonAnswer, code, answer)
		}
	}
}

// An SSE stream written in pieces that split its lines is scrubbed line
// by line: an error's secrets go, a result's text stays as written, and
// nothing is lost or reordered.
func TestScrubbedStreamKeepsItsLines(t *testing.T) {
	const secret = "ghp_SpLiT7kQ2mZx9LwP4vB8nT3yH6jD1sF5aG0cXy"
	stream := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"password: kept as a page says\"}]}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"unknown tool \\\"" + secret + "\\\"\"}}\n\n"
	for _, piece := range []int{1, 7, 64, len(stream)} {
		h := mcpserver.ScrubRefusals(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for s := stream; s != ""; {
				n := min(piece, len(s))
				w.Write([]byte(s[:n]))
				w.(http.Flusher).Flush()
				s = s[n:]
			}
		}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
		got := rec.Body.String()
		if strings.Contains(got, secret) {
			t.Errorf("pieces of %d: the error's secret is still there: %q", piece, got)
		}
		wantKept := stream[:strings.Index(stream, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":4")]
		if !strings.HasPrefix(got, wantKept) || !strings.HasSuffix(got, "\"jsonrpc\":\"2.0\"}\n\n") || strings.Count(got, "event: message\n") != 3 {
			t.Errorf("pieces of %d: stream %q; want the first two events as written and three in all", piece, got)
		}
	}
}
