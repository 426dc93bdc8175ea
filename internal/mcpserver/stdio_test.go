package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/mcpserver"
)

// wireAnswer is one line the server wrote.
type wireAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

const (
	initFrame        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`
	initializedFrame = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// stdioServer serves b over a StdioTransport fed by the returned writer;
// answers arrive on the returned channel, one per line, until the server
// stops (then the channel closes and done receives Run's error).
func stdioServer(t *testing.T, b *brain.Brain, tr *mcpserver.StdioTransport, ctx context.Context) (io.WriteCloser, <-chan wireAnswer, <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr.In, tr.Out = inR, outW
	srv, err := mcpserver.New(mcpserver.Config{DB: b.Pool, Pages: b, SessionID: sessionID})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		err := srv.Run(ctx, tr)
		outW.Close()
		done <- err
	}()
	answers := make(chan wireAnswer, 64)
	go func() {
		defer close(answers)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var a wireAnswer
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				t.Errorf("server wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			if a.JSONRPC != "2.0" {
				t.Errorf("server wrote %q without jsonrpc 2.0", sc.Text())
			}
			answers <- a
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return inW, answers, done
}

func next(t *testing.T, answers <-chan wireAnswer) wireAnswer {
	t.Helper()
	select {
	case a, ok := <-answers:
		if !ok {
			t.Fatal("the server stopped writing")
		}
		return a
	case <-time.After(20 * time.Second):
		t.Fatal("no answer within 20s")
	}
	return wireAnswer{}
}

func send(t *testing.T, w io.Writer, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(w, l+"\n"); err != nil {
			t.Fatalf("writing %q: %v", l, err)
		}
	}
}

// TestMalformedFramesAreAnswered: each bad frame gets the error the spec
// prescribes with id null, and the next valid request is still answered.
func TestMalformedFramesAreAnswered(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	const limit = 64 << 10
	w, answers, _ := stdioServer(t, b, &mcpserver.StdioTransport{MaxFrameBytes: limit}, context.Background())
	send(t, w, initFrame, initializedFrame)
	if a := next(t, answers); string(a.ID) != "1" || a.Error != nil {
		t.Fatalf("initialize answered %+v", a)
	}
	cases := []struct {
		name  string
		frame string
		code  int
		id    string
	}{
		{"not JSON", `hello there`, -32700, "null"},
		{"truncated object", `{"jsonrpc":"2.0","id":7,"method":"ping"`, -32700, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":8,"method":"ping"}`, -32600, "8"},
		{"no jsonrpc", `{"id":9,"method":"ping"}`, -32600, "9"},
		{"batch", `[{"jsonrpc":"2.0","id":10,"method":"ping"}]`, -32600, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
		{"null id on a request", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
		{"two messages on one line", `{"jsonrpc":"2.0","id":11,"method":"ping"}{"jsonrpc":"2.0","id":12,"method":"ping"}`, -32700, "null"},
		{"a string", `"ping"`, -32600, "null"},
		{"number method", `{"jsonrpc":"2.0","id":13,"method":5}`, -32600, "13"},
		{"neither request nor response", `{"jsonrpc":"2.0","id":14}`, -32600, "14"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"\xff\"}", -32700, "null"},
		{"over the frame limit", `{"jsonrpc":"2.0","id":16,"method":"ping","params":{"pad":"` + strings.Repeat("x", limit) + `"}}`, -32600, "null"},
		{"CJK and emoji garbage", `数据 🧠 {`, -32700, "null"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			send(t, w, tc.frame)
			a := next(t, answers)
			if a.Error == nil || a.Error.Code != tc.code || string(a.ID) != tc.id {
				t.Fatalf("answer %+v (error %+v), want code %d with id %s", a, a.Error, tc.code, tc.id)
			}
			if a.Error.Message == "" {
				t.Error("error answer without a message")
			}
			ping := fmt.Sprintf(`{"jsonrpc":"2.0","id":"after-%d","method":"ping"}`, i)
			send(t, w, ping)
			if a := next(t, answers); string(a.ID) != fmt.Sprintf(`"after-%d"`, i) || a.Error != nil {
				t.Fatalf("valid request after the bad frame answered %+v", a)
			}
		})
	}
}

// TestPipedRequestsAllAnsweredOnEOF: five requests written at once and
// stdin closed get five answers before the server stops.
func TestPipedRequestsAllAnsweredOnEOF(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	w, answers, done := stdioServer(t, b, &mcpserver.StdioTransport{}, context.Background())
	send(t, w,
		initFrame,
		initializedFrame,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"widget"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"query","arguments":{"query":"who leads the widget project"}}}`,
	)
	w.Close()
	got := map[string]wireAnswer{}
	for a := range answers {
		got[string(a.ID)] = a
	}
	if err := <-done; err != nil {
		t.Fatalf("Run after EOF: %v", err)
	}
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		a, ok := got[id]
		if !ok {
			t.Errorf("request %s was not answered", id)
			continue
		}
		if a.Error != nil || len(a.Result) == 0 {
			t.Errorf("request %s answered %+v", id, a.Error)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d answers, want 5", len(got))
	}
	var call struct {
		StructuredContent struct {
			Status string `json:"status"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(got["3"].Result, &call); err != nil || call.StructuredContent.Status != mcpserver.StatusSuccess {
		t.Errorf("search after EOF: %s (%v)", got["3"].Result, err)
	}
}

// slowPages makes list_sources wait (for delay, or, with delay 0, for a
// value on permit), so that a call is running when the test acts; started
// says when a call has begun, so the test need not sleep and hope.
type slowPages struct {
	*brain.Brain
	delay   time.Duration
	permit  chan struct{}
	started chan struct{}
}

func newSlowPages(b *brain.Brain, delay time.Duration) *slowPages {
	return &slowPages{Brain: b, delay: delay, permit: make(chan struct{}), started: make(chan struct{}, 16)}
}

func (s *slowPages) Sources(ctx context.Context) ([]brain.Source, error) {
	s.started <- struct{}{}
	var permit <-chan struct{} = s.permit
	var elapsed <-chan time.Time
	if s.delay > 0 {
		timer := time.NewTimer(s.delay)
		defer timer.Stop()
		permit, elapsed = nil, timer.C
	}
	select {
	case <-permit:
	case <-elapsed:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Brain.Sources(ctx)
}

// waitStarted waits until a list_sources call is running.
func (s *slowPages) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-s.started:
	case <-time.After(30 * time.Second):
		t.Fatal("list_sources was never called")
	}
}

// TestStopAnswersCallsInFlight: a signal (Run's context cancelled) while a
// call runs still delivers its answer; a call that outlives the grace
// period gets an error answer instead of none.
func TestStopAnswersCallsInFlight(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	for _, tc := range []struct {
		name    string
		delay   time.Duration
		grace   time.Duration
		wantErr bool
	}{
		{"finishes within grace", 300 * time.Millisecond, 10 * time.Second, false},
		{"outlives grace", 10 * time.Second, 200 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			pages := newSlowPages(b, tc.delay)
			srv, err := mcpserver.New(mcpserver.Config{DB: b.Pool, Pages: pages, SessionID: sessionID, DrainTimeout: tc.grace})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				err := srv.Run(ctx, &mcpserver.StdioTransport{In: inR, Out: outW, Grace: tc.grace})
				outW.Close()
				done <- err
			}()
			defer inW.Close()
			sc := bufio.NewScanner(outR)
			send(t, inW, initFrame, initializedFrame)
			if !sc.Scan() {
				t.Fatal("no initialize answer")
			}
			send(t, inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sources"}}`)
			pages.waitStarted(t)
			cancel()
			var lines []wireAnswer
			for sc.Scan() {
				var a wireAnswer
				if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
					t.Fatalf("line %q: %v", sc.Text(), err)
				}
				lines = append(lines, a)
			}
			if err := <-done; err != nil {
				t.Fatalf("Run after stop: %v", err)
			}
			if len(lines) != 1 || string(lines[0].ID) != "2" {
				t.Fatalf("answers after stop %+v, want exactly one for id 2", lines)
			}
			if gotErr := lines[0].Error != nil; gotErr != tc.wantErr {
				t.Errorf("answer error %+v, want error %v", lines[0].Error, tc.wantErr)
			}
			if tc.wantErr && !strings.Contains(lines[0].Error.Message, "grace period") {
				t.Errorf("shutdown error %q does not say why", lines[0].Error.Message)
			}
		})
	}
}

// The SDK's own error answers quote what the client sent (a method or
// tool name, a resource's uri): scrubbed on the way out like every other
// answer's error.
func TestSDKErrorAnswersAreScrubbed(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	w, answers, _ := stdioServer(t, b, &mcpserver.StdioTransport{}, context.Background())
	send(t, w, initFrame, initializedFrame)
	next(t, answers)
	const token = "ghp_St7kQ2mZx9LwP4vB8nT3yH6jD1sF5aG0cE2uK"
	for i, frame := range []string{
		`{"jsonrpc":"2.0","id":101,"method":"password=StdioMeth_1 ` + token + `"}`,
		`{"jsonrpc":"2.0","id":102,"method":"tools/call","params":{"name":"x ` + token + `","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":103,"method":"resources/read","params":{"uri":"pgbrain://default/rotate ` + token + `"}}`,
	} {
		send(t, w, frame)
		a := next(t, answers)
		raw, _ := json.Marshal(a)
		if a.Error == nil || strings.Contains(string(raw), token) || strings.Contains(string(raw), "StdioMeth_1") {
			t.Errorf("frame %d answered %s; want an error without the secrets", i, raw)
		}
	}
}
