package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/internal/embed"
)

// call is what the fake server saw in one request.
type call struct {
	n      int // 1-based request number
	body   request
	header http.Header
}

// fakeServer speaks the OpenAI embeddings wire format. handle decides each
// reply; it is called with the 1-based request number.
type fakeServer struct {
	*httptest.Server
	mu    sync.Mutex
	calls []call
}

func newFakeServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, c call)) *fakeServer {
	t.Helper()
	fs := &fakeServer{}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusTeapot)
			return
		}
		var body request
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, "bad request body: "+err.Error(), http.StatusTeapot)
			return
		}
		fs.mu.Lock()
		c := call{n: len(fs.calls) + 1, body: body, header: r.Header.Clone()}
		fs.calls = append(fs.calls, c)
		fs.mu.Unlock()
		handle(w, r, c)
	}))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fakeServer) Calls() []call {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]call(nil), fs.calls...)
}

// vecFor encodes the input into the vector so tests can check which input a
// returned vector belongs to: inputs are decimal numbers, every element is
// that number.
func vecFor(t *testing.T, text string, dim int) []float32 {
	n, err := strconv.Atoi(text)
	if err != nil {
		t.Errorf("fake server: input %q is not a number", text)
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(n)
	}
	return v
}

type datum struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

// writeEmbeddings answers in the OpenAI format, listing entries in the
// order given by perm (nil means input order).
func writeEmbeddings(t *testing.T, w http.ResponseWriter, inputs []string, dim int, perm []int) {
	if perm == nil {
		perm = make([]int, len(inputs))
		for i := range perm {
			perm[i] = i
		}
	}
	data := make([]datum, 0, len(inputs))
	for _, i := range perm {
		data = append(data, datum{Object: "embedding", Index: i, Embedding: vecFor(t, inputs[i], dim)})
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "fake"}); err != nil {
		t.Errorf("fake server: encoding reply: %v", err)
	}
}

func writeAPIError(w http.ResponseWriter, status int, msg, typ string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil}})
}

// sleepRecorder stands in for real waiting so retry tests run instantly and
// can assert the waits chosen.
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleepRecorder) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

func numbers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

func mustNew(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func assertInputOrder(t *testing.T, got [][]float32, n, dim int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("got %d vectors, want %d", len(got), n)
	}
	for i, v := range got {
		if len(v) != dim {
			t.Fatalf("vector %d has %d dims, want %d", i, len(v), dim)
		}
		if v[0] != float32(i) {
			t.Errorf("vector %d belongs to input %v, want input %d", i, v[0], i)
		}
	}
}

func TestEmbedOrdersByIndex(t *testing.T) {
	tests := []struct {
		name string
		perm []int
	}{
		{name: "in order", perm: []int{0, 1, 2, 3, 4}},
		{name: "reversed", perm: []int{4, 3, 2, 1, 0}},
		{name: "shuffled", perm: []int{2, 0, 4, 1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, c call) {
				writeEmbeddings(t, w, c.body.Input, 3, tt.perm)
			})
			cl := mustNew(t, Config{BaseURL: srv.URL, Dim: 3})
			got, err := cl.Embed(t.Context(), numbers(5))
			if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			assertInputOrder(t, got, 5, 3)
		})
	}
}

func TestEmbedBatching(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		batchSize int
		wantSizes []int
	}{
		{name: "empty input sends nothing", n: 0, batchSize: 3, wantSizes: nil},
		{name: "one text", n: 1, batchSize: 0, wantSizes: []int{1}},
		{name: "default batch holds 64", n: 64, batchSize: 0, wantSizes: []int{64}},
		{name: "default batch splits 65", n: 65, batchSize: 0, wantSizes: []int{64, 1}},
		{name: "exact multiple", n: 6, batchSize: 3, wantSizes: []int{3, 3}},
		{name: "remainder", n: 10, batchSize: 3, wantSizes: []int{3, 3, 3, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, c call) {
				// Reverse each batch so order must come from "index".
				perm := make([]int, len(c.body.Input))
				for i := range perm {
					perm[i] = len(perm) - 1 - i
				}
				writeEmbeddings(t, w, c.body.Input, 2, perm)
			})
			cl := mustNew(t, Config{BaseURL: srv.URL, Dim: 2, BatchSize: tt.batchSize})
			got, err := cl.Embed(t.Context(), numbers(tt.n))
			if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			if got == nil {
				t.Fatalf("Embed returned nil slice, want non-nil")
			}
			assertInputOrder(t, got, tt.n, 2)
			var sizes []int
			next := 0
			for _, c := range srv.Calls() {
				sizes = append(sizes, len(c.body.Input))
				// Batches must be consecutive slices of the input.
				for _, in := range c.body.Input {
					if in != strconv.Itoa(next) {
						t.Errorf("request %d carried %q, want %q", c.n, in, strconv.Itoa(next))
					}
					next++
				}
			}
			if !reflect.DeepEqual(sizes, tt.wantSizes) {
				t.Errorf("batch sizes = %v, want %v", sizes, tt.wantSizes)
			}
		})
	}
}

func TestEmbedRetries(t *testing.T) {
	const base = 100 * time.Millisecond
	type reply struct {
		status     int // 0 means success
		retryAfter string
		msg        string
	}
	tests := []struct {
		name       string
		replies    []reply // the last one repeats
		maxRetries int
		wantCalls  int
		wantWaits  []time.Duration // exact waits; nil means check jitter bounds
		wantErr    []string        // substrings; nil means success
		wantStatus int
	}{
		{
			name:      "500 then success",
			replies:   []reply{{status: 500, msg: "boom"}, {}},
			wantCalls: 2,
		},
		{
			name:      "502 503 504 then success",
			replies:   []reply{{status: 502}, {status: 503}, {status: 504}, {}},
			wantCalls: 4,
		},
		{
			name:      "429 honours Retry-After",
			replies:   []reply{{status: 429, retryAfter: "3", msg: "slow down"}, {status: 429, retryAfter: "1"}, {}},
			wantCalls: 3,
			wantWaits: []time.Duration{3 * time.Second, time.Second},
		},
		{
			name:      "503 honours Retry-After",
			replies:   []reply{{status: 503, retryAfter: "2"}, {}},
			wantCalls: 2,
			wantWaits: []time.Duration{2 * time.Second},
		},
		{
			name:      "Retry-After capped at 20s",
			replies:   []reply{{status: 429, retryAfter: "120"}, {}},
			wantCalls: 2,
			wantWaits: []time.Duration{20 * time.Second},
		},
		{
			name:       "400 is not retried and surfaces the message",
			replies:    []reply{{status: 400, msg: "'input' must not be empty"}},
			wantCalls:  1,
			wantWaits:  []time.Duration{},
			wantErr:    []string{"HTTP 400: 'input' must not be empty (invalid_request_error)", "check model"},
			wantStatus: 400,
		},
		{
			name:       "401 is not retried and names the key",
			replies:    []reply{{status: 401, msg: "Incorrect API key provided"}},
			wantCalls:  1,
			wantWaits:  []time.Duration{},
			wantErr:    []string{"Incorrect API key provided", "set OPENAI_API_KEY"},
			wantStatus: 401,
		},
		{
			name:       "404 is not retried and names the base URL",
			replies:    []reply{{status: 404, msg: "model not found"}},
			wantCalls:  1,
			wantWaits:  []time.Duration{},
			wantErr:    []string{"model not found", "check PGBRAIN_OPENAI_BASE_URL"},
			wantStatus: 404,
		},
		{
			name:       "persistent 500 gives up after MaxRetries",
			replies:    []reply{{status: 500, msg: "down"}},
			maxRetries: 2,
			wantCalls:  3,
			wantErr:    []string{"giving up after 3 attempts", "HTTP 500: down"},
			wantStatus: 500,
		},
		{
			name:       "default MaxRetries is 4",
			replies:    []reply{{status: 500, msg: "down"}},
			wantCalls:  5,
			wantErr:    []string{"giving up after 5 attempts"},
			wantStatus: 500,
		},
		{
			name:       "negative MaxRetries disables retries",
			replies:    []reply{{status: 500, msg: "down"}},
			maxRetries: -1,
			wantCalls:  1,
			wantWaits:  []time.Duration{},
			wantErr:    []string{"giving up after 1 attempt:"},
			wantStatus: 500,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, c call) {
				rep := tt.replies[min(c.n, len(tt.replies))-1]
				if rep.status == 0 {
					writeEmbeddings(t, w, c.body.Input, 2, nil)
					return
				}
				if rep.retryAfter != "" {
					w.Header().Set("Retry-After", rep.retryAfter)
				}
				writeAPIError(w, rep.status, rep.msg, "invalid_request_error")
			})
			sr := &sleepRecorder{}
			cl := mustNew(t, Config{BaseURL: srv.URL, Dim: 2, Patience: Patience{MaxRetries: tt.maxRetries, BackoffBase: base, Sleep: sr.sleep}})
			got, err := cl.Embed(t.Context(), numbers(3))

			if n := len(srv.Calls()); n != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", n, tt.wantCalls)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Embed: %v", err)
				}
				assertInputOrder(t, got, 3, 2)
			} else {
				if err == nil {
					t.Fatalf("Embed succeeded, want error containing %q", tt.wantErr)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				var apiErr *APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.wantStatus {
					t.Errorf("errors.As(*APIError) = %+v, want status %d", apiErr, tt.wantStatus)
				}
			}

			waits := sr.Waits()
			if len(waits) != tt.wantCalls-1 {
				t.Errorf("slept %d times (%v), want %d", len(waits), waits, tt.wantCalls-1)
			}
			if tt.wantWaits != nil {
				if len(waits) != len(tt.wantWaits) || (len(waits) > 0 && !reflect.DeepEqual(waits, tt.wantWaits)) {
					t.Errorf("waits = %v, want %v", waits, tt.wantWaits)
				}
				return
			}
			for i, w := range waits {
				if bound := base << i; w < 0 || w > bound {
					t.Errorf("wait %d = %v, want within [0, %v]", i, w, bound)
				}
			}
		})
	}
}

func TestEmbedRetriesNetworkError(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, c call) {
		if c.n == 1 {
			// Drop the connection without a reply.
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Errorf("hijack: %v", err)
				return
			}
			conn.Close()
			return
		}
		writeEmbeddings(t, w, c.body.Input, 2, nil)
	})
	sr := &sleepRecorder{}
	cl := mustNew(t, Config{BaseURL: srv.URL, Dim: 2, Patience: Patience{Sleep: sr.sleep}})
	got, err := cl.Embed(t.Context(), numbers(2))
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	assertInputOrder(t, got, 2, 2)
	if n := len(srv.Calls()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
	if n := len(sr.Waits()); n != 1 {
		t.Errorf("slept %d times, want 1", n)
	}
}

func TestEmbedUnreachableServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more

	sr := &sleepRecorder{}
	cl := mustNew(t, Config{BaseURL: url, Dim: 2, Patience: Patience{MaxRetries: 2, Sleep: sr.sleep}})
	_, err := cl.Embed(t.Context(), numbers(1))
	if err == nil {
		t.Fatal("Embed succeeded against a closed server")
	}
	for _, s := range []string{"giving up after 3 attempts", "check that the server is running"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
	if n := len(sr.Waits()); n != 2 {
		t.Errorf("slept %d times, want 2", n)
	}
}

func TestEmbedDimensionMismatch(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, c call) {
		writeEmbeddings(t, w, c.body.Input, 4, nil)
	})
	sr := &sleepRecorder{}
	cl := mustNew(t, Config{BaseURL: srv.URL, Model: "nomic-embed-text", Dim: 3, Patience: Patience{Sleep: sr.sleep}})
	_, err := cl.Embed(t.Context(), numbers(2))

	want := `embedder "openai" model "nomic-embed-text" returned 4-dimensional vectors but this brain stores 3; ` +
		`re-run 'pgbrain init --dim 4' on a new brain or pick a model with 3 dimensions`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant %s", err, want)
	}
	if !errors.Is(err, embed.ErrDimensionMismatch) {
		t.Error("errors.Is(err, embed.ErrDimensionMismatch) = false")
	}
	var de *embed.DimensionError
	if !errors.As(err, &de) || *de != (embed.DimensionError{Embedder: "openai", Model: "nomic-embed-text", Want: 3, Got: 4}) {
		t.Errorf("DimensionError = %+v", de)
	}
	if n := len(srv.Calls()); n != 1 {
		t.Errorf("server saw %d requests, want 1 (a mismatch is not retried)", n)
	}
}

func TestEmbedBadResponses(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantErr string
	}{
		{name: "malformed JSON", body: `{"data":[{"index":0,"embedding":[1,2`, wantErr: "decoding response"},
		{name: "not JSON", body: `<html>gateway</html>`, wantErr: "did not answer in the OpenAI embeddings format"},
		{name: "base64 instead of floats", body: `{"data":[{"index":0,"embedding":"AAAA"},{"index":1,"embedding":"AAAA"}]}`, wantErr: "decoding response"},
		{name: "too few embeddings", body: `{"data":[{"index":0,"embedding":[1,2]}]}`, wantErr: "returned 1 embeddings for 2 inputs"},
		{name: "too many embeddings", body: `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1,2]},{"index":2,"embedding":[1,2]}]}`, wantErr: "returned 3 embeddings for 2 inputs"},
		{name: "index out of range", body: `{"data":[{"index":0,"embedding":[1,2]},{"index":2,"embedding":[1,2]}]}`, wantErr: "returned index 2 for 2 inputs"},
		{name: "negative index", body: `{"data":[{"index":-1,"embedding":[1,2]},{"index":0,"embedding":[1,2]}]}`, wantErr: "returned index -1 for 2 inputs"},
		{name: "duplicate index", body: `{"data":[{"index":0,"embedding":[1,2]},{"index":0,"embedding":[1,2]}]}`, wantErr: "returned index 0 twice"},
		{name: "missing embedding", body: `{"data":[{"index":0,"embedding":[1,2]},{"index":1}]}`, wantErr: "empty embedding for input 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, c call) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(tt.body))
			})
			sr := &sleepRecorder{}
			cl := mustNew(t, Config{BaseURL: srv.URL, Dim: 2, Patience: Patience{Sleep: sr.sleep}})
			got, err := cl.Embed(t.Context(), numbers(2))
			if err == nil {
				t.Fatalf("Embed = %v, want error containing %q", got, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if n := len(srv.Calls()); n != 1 {
				t.Errorf("server saw %d requests, want 1 (a bad reply is not retried)", n)
			}
		})
	}
}

func TestEmbedTimeout(t *testing.T) {
	tests := []struct {
		name       string
		maxRetries int
		wantCalls  int
	}{
		{name: "no retries", maxRetries: -1, wantCalls: 1},
		{name: "timeouts are retried", maxRetries: 2, wantCalls: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, c call) {
				select { // hang until the client gives up
				case <-r.Context().Done():
				case <-release:
				}
			})
			t.Cleanup(func() { close(release) }) // runs before srv.Close

			sr := &sleepRecorder{}
			cl := mustNew(t, Config{BaseURL: srv.URL, Dim: 2, Patience: Patience{Timeout: 50 * time.Millisecond, MaxRetries: tt.maxRetries, Sleep: sr.sleep}})
			start := time.Now()
			_, err := cl.Embed(t.Context(), numbers(1))
			elapsed := time.Since(start)

			if err == nil {
				t.Fatal("Embed succeeded against a hanging server")
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("errors.Is(err, context.DeadlineExceeded) = false; err = %v", err)
			}
			if !strings.Contains(err.Error(), "no response within 50ms") {
				t.Errorf("error %q does not name the timeout", err)
			}
			if n := len(srv.Calls()); n != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", n, tt.wantCalls)
			}
			// Generous bound: only proves the per-request timeout fired
			// rather than the 30s default.
			if elapsed > 10*time.Second {
				t.Errorf("Embed took %v, want the 50ms timeout to end each attempt", elapsed)
			}
		})
	}
}

func TestEmbedContextCancelStopsRetries(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, c call) {
		cancel() // the caller gives up while the server is failing
		writeAPIError(w, 500, "down", "server_error")
	})
	// Real sleep with a long backoff: only cancellation can end it quickly.
	cl := mustNew(t, Config{BaseURL: srv.URL, Dim: 2, Patience: Patience{BackoffBase: time.Hour, BackoffMax: time.Hour}})
	start := time.Now()
	_, err := cl.Embed(ctx, numbers(1))
	if err == nil {
		t.Fatal("Embed succeeded, want cancellation error")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(err, context.Canceled) = false; err = %v", err)
	}
	if n := len(srv.Calls()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("Embed took %v after cancellation", elapsed)
	}
}

func TestEmbedCanceledBeforeStart(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, c call) {
		writeEmbeddings(t, w, c.body.Input, 2, nil)
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	sr := &sleepRecorder{}
	cl := mustNew(t, Config{BaseURL: srv.URL, Dim: 2, Patience: Patience{Sleep: sr.sleep}})
	_, err := cl.Embed(ctx, numbers(1))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if n := len(srv.Calls()); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
	if n := len(sr.Waits()); n != 0 {
		t.Errorf("slept %d times, want 0", n)
	}
}

func TestEmbedAuthHeader(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want string // "" means the header must be absent
	}{
		{name: "key set", key: "sk-test-123", want: "Bearer sk-test-123"},
		{name: "no key (Ollama)", key: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, c call) {
				writeEmbeddings(t, w, c.body.Input, 2, nil)
			})
			cl := mustNew(t, Config{BaseURL: srv.URL, Dim: 2, APIKey: tt.key})
			if _, err := cl.Embed(t.Context(), numbers(1)); err != nil {
				t.Fatalf("Embed: %v", err)
			}
			h := srv.Calls()[0].header
			vals, present := h["Authorization"]
			switch {
			case tt.want == "" && present:
				t.Errorf("Authorization = %q, want absent", vals)
			case tt.want != "" && h.Get("Authorization") != tt.want:
				t.Errorf("Authorization = %q, want %q", h.Get("Authorization"), tt.want)
			}
			if ct := h.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
		})
	}
}

func TestEmbedRequestBody(t *testing.T) {
	tests := []struct {
		name           string
		cfg            Config
		wantModel      string
		wantDimensions any // nil means the field must be absent
	}{
		{name: "defaults", cfg: Config{Dim: 2}, wantModel: "text-embedding-3-small"},
		{name: "send dimensions", cfg: Config{Dim: 2, Model: "text-embedding-3-large", SendDimensions: true}, wantModel: "text-embedding-3-large", wantDimensions: float64(2)},
		{name: "custom model without dimensions", cfg: Config{Dim: 2, Model: "nomic-embed-text"}, wantModel: "nomic-embed-text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
					t.Errorf("decoding request: %v", err)
				}
				writeEmbeddings(t, w, []string{"7", "8"}, 2, nil)
			}))
			defer srv.Close()
			cfg := tt.cfg
			cfg.BaseURL = srv.URL
			cl := mustNew(t, cfg)
			if _, err := cl.Embed(t.Context(), []string{"7", "8"}); err != nil {
				t.Fatalf("Embed: %v", err)
			}
			if raw["model"] != tt.wantModel {
				t.Errorf("model = %v, want %q", raw["model"], tt.wantModel)
			}
			if raw["encoding_format"] != "float" {
				t.Errorf("encoding_format = %v, want \"float\"", raw["encoding_format"])
			}
			if got := fmt.Sprint(raw["input"]); got != "[7 8]" {
				t.Errorf("input = %s, want [7 8]", got)
			}
			got, present := raw["dimensions"]
			if tt.wantDimensions == nil && present {
				t.Errorf("dimensions = %v, want absent", got)
			}
			if tt.wantDimensions != nil && got != tt.wantDimensions {
				t.Errorf("dimensions = %v, want %v", got, tt.wantDimensions)
			}
		})
	}
}

func TestNewResolvesEndpoint(t *testing.T) {
	tests := []struct {
		base    string
		want    string
		wantErr string
	}{
		{base: "", want: "https://api.openai.com/v1/embeddings"},
		{base: "https://api.openai.com", want: "https://api.openai.com/v1/embeddings"},
		{base: "https://api.openai.com/", want: "https://api.openai.com/v1/embeddings"},
		{base: "https://api.openai.com/v1", want: "https://api.openai.com/v1/embeddings"},
		{base: "https://api.openai.com/v1/", want: "https://api.openai.com/v1/embeddings"},
		{base: "http://localhost:11434/v1", want: "http://localhost:11434/v1/embeddings"},
		{base: "http://gpu-box:8000/proxy/vllm", want: "http://gpu-box:8000/proxy/vllm/v1/embeddings"},
		{base: "localhost:11434", wantErr: "needs an http:// or https:// scheme"},
		{base: "ftp://example.com", wantErr: "needs an http:// or https:// scheme"},
		{base: "http://", wantErr: "and a host"},
		{base: "http://bad host\x7f", wantErr: "parsing base URL"},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			c, err := New(Config{BaseURL: tt.base, Dim: 8})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New error = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if c.URL() != tt.want {
				t.Errorf("URL() = %q, want %q", c.URL(), tt.want)
			}
		})
	}
}

func TestNewDefaultsAndValidation(t *testing.T) {
	c, err := New(Config{Dim: 1536})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if c.Name() != "openai" || c.Model() != DefaultModel || c.Dim() != 1536 {
		t.Errorf("Name/Model/Dim = %q/%q/%d", c.Name(), c.Model(), c.Dim())
	}
	got := c.cfg
	want := []struct {
		field string
		got   any
		want  any
	}{
		{"BatchSize", got.BatchSize, DefaultBatchSize},
		{"Timeout", got.Timeout, DefaultTimeout},
		{"MaxRetries", got.MaxRetries, DefaultMaxRetries},
		{"BackoffBase", got.BackoffBase, DefaultBackoffBase},
		{"BackoffMax", got.BackoffMax, DefaultBackoffMax},
		{"SendDimensions", got.SendDimensions, false},
	}
	for _, w := range want {
		if w.got != w.want {
			t.Errorf("%s = %v, want %v", w.field, w.got, w.want)
		}
	}

	for _, dim := range []int{0, -3} {
		if _, err := New(Config{Dim: dim}); err == nil || !strings.Contains(err.Error(), "pgbrain init --dim") {
			t.Errorf("New(Dim: %d) error = %v, want one naming pgbrain init --dim", dim, err)
		}
	}
}

func TestHint(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		status int
		want   string
	}{
		{name: "401 without key", cfg: Config{Dim: 2}, status: 401, want: "set OPENAI_API_KEY"},
		{name: "403 with key", cfg: Config{Dim: 2, APIKey: "k"}, status: 403, want: "check OPENAI_API_KEY"},
		{name: "404", cfg: Config{Dim: 2, Model: "m"}, status: 404, want: `check PGBRAIN_OPENAI_BASE_URL and that model "m" is served there`},
		{name: "429", cfg: Config{Dim: 2}, status: 429, want: "the server is rate limiting; retry later or lower BatchSize"},
		{name: "500", cfg: Config{Dim: 2}, status: 500, want: "the server failed; check its logs or retry later"},
		{name: "400 with dimensions", cfg: Config{Dim: 2, Model: "m", SendDimensions: true}, status: 400, want: `check model "m" exists and accepts "dimensions": 2`},
		{name: "400", cfg: Config{Dim: 2, Model: "m"}, status: 400, want: `check model "m" exists and the input texts are non-empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustNew(t, tt.cfg).hint(&APIError{StatusCode: tt.status}); got != tt.want {
				t.Errorf("hint(%d) = %q, want %q", tt.status, got, tt.want)
			}
		})
	}
}
