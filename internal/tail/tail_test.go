package tail

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/internal/events"
)

var base = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func ev(i int) events.Event {
	return events.Event{
		Timestamp:       base.Add(time.Duration(i) * time.Second),
		ServerSessionID: "session",
		Kind:            events.KindToolCall,
		ToolName:        "query",
		Status:          events.StatusSuccess,
		Message:         fmt.Sprintf("seq %06d", i),
	}
}

func line(i int) string {
	b, err := ev(i).MarshalJSON()
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

func lines(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		b.WriteString(line(i))
	}
	return b.String()
}

func seqs(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("seq %06d", i))
	}
	return out
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

// collector records what Tail delivers.
type collector struct {
	mu     sync.Mutex
	msgs   []string
	lines  []string
	events []events.Event
}

func (c *collector) fn(line []byte, e events.Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, e.Message)
	c.lines = append(c.lines, string(line))
	c.events = append(c.events, e)
	return nil
}

func (c *collector) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.msgs)
}

func (c *collector) waitFor(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(c.got()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %d events; have %v", n, c.got())
		}
		time.Sleep(time.Millisecond)
	}
}

// follow runs a following Tailer in the background; stop cancels it and
// returns Run's result.
func follow(t *testing.T, path string) (*collector, *Tailer, func() error) {
	c, tl, _, stop := followPolls(t, path)
	return c, tl, stop
}

// polls counts the polls of a following Run, so a test that must show
// something did NOT happen can wait for polls to have run instead of
// sleeping.
type polls struct {
	mu   sync.Mutex
	n    int
	tick chan struct{} // closed and replaced at each poll
}

func newPolls() *polls { return &polls{tick: make(chan struct{})} }

func (p *polls) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	close(p.tick)
	p.tick = make(chan struct{})
}

// waitMore waits until k polls have started after the call and finished.
func (p *polls) waitMore(t *testing.T, k int) {
	t.Helper()
	// The poll running at the call may have read the file before the
	// caller's change: it does not count.
	p.mu.Lock()
	want := p.n + k + 1
	p.mu.Unlock()
	timeout := time.After(10 * time.Second)
	for {
		p.mu.Lock()
		n, tick := p.n, p.tick
		p.mu.Unlock()
		if n >= want {
			return
		}
		select {
		case <-tick:
		case <-timeout:
			t.Fatalf("timed out waiting for %d polls; %d happened", want, n)
		}
	}
}

// followPolls is follow that also counts the Tailer's polls.
func followPolls(t *testing.T, path string) (*collector, *Tailer, *polls, func() error) {
	t.Helper()
	c := &collector{}
	p := newPolls()
	tl := New(Options{Path: path, Follow: true, Poll: 2 * time.Millisecond})
	tl.polled = p.done
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tl.Run(ctx, c.fn) }()
	var once sync.Once
	var result error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case result = <-done:
			case <-time.After(5 * time.Second):
				result = errors.New("Run did not return after cancel")
			}
		})
		return result
	}
	t.Cleanup(func() { stop() })
	return c, tl, p, stop
}

func TestBacklog(t *testing.T) {
	tests := []struct {
		name    string
		rotated string
		active  string
		since   time.Time
		want    []string
	}{
		{name: "everything", active: lines(0, 5), want: seqs(0, 5)},
		{name: "since keeps equal and newer", active: lines(0, 5), since: base.Add(2 * time.Second), want: seqs(2, 5)},
		{name: "since between events", active: lines(0, 5), since: base.Add(2500 * time.Millisecond), want: seqs(3, 5)},
		{name: "since after everything", active: lines(0, 5), since: base.Add(time.Hour), want: nil},
		{name: "kept .1 is read first", rotated: lines(0, 3), active: lines(3, 5), want: seqs(0, 5)},
		{name: "since reaches into .1", rotated: lines(0, 3), active: lines(3, 5), since: base.Add(time.Second), want: seqs(1, 5)},
		{name: "only .1 exists", rotated: lines(0, 2), want: seqs(0, 2)},
		{name: "partial last line not delivered", active: lines(0, 2) + line(2)[:20], want: seqs(0, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "events.jsonl")
			if tt.rotated != "" {
				writeFile(t, events.RotatedPath(path), tt.rotated)
			}
			if tt.active != "" {
				writeFile(t, path, tt.active)
			}
			c := &collector{}
			tl := New(Options{Path: path, Since: tt.since})
			if err := tl.Run(context.Background(), c.fn); err != nil {
				t.Fatal(err)
			}
			if got := c.got(); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if tl.Malformed() != 0 {
				t.Errorf("malformed = %d", tl.Malformed())
			}
		})
	}
}

func TestLineHandedOverVerbatim(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	writeFile(t, path, lines(0, 2))
	c := &collector{}
	if err := Tail(context.Background(), Options{Path: path}, c.fn); err != nil {
		t.Fatal(err)
	}
	want := []string{strings.TrimSuffix(line(0), "\n"), strings.TrimSuffix(line(1), "\n")}
	if !slices.Equal(c.lines, want) {
		t.Errorf("lines = %q, want %q", c.lines, want)
	}
}

func TestMalformedLinesSkippedAndCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	writeFile(t, path, line(0)+
		"not json\n"+
		`{"kind":"tool_call"}`+"\n"+
		"\n"+
		`{"timestamp":"later","server_session_id":"s","kind":"tool_call"}`+"\n"+
		line(1)+
		`{"timestamp":"2026-11-21T12:00:00Z","server_session_id":"s","kind":"tool_call"`+line(2))
	c := &collector{}
	tl := New(Options{Path: path})
	if err := tl.Run(context.Background(), c.fn); err != nil {
		t.Fatal(err)
	}
	if got := c.got(); !slices.Equal(got, seqs(0, 2)) {
		t.Errorf("got %v", got)
	}
	if tl.Malformed() != 5 {
		t.Errorf("malformed = %d, want 5", tl.Malformed())
	}
}

func TestMissingFileWithoutFollow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	err := Tail(context.Background(), Options{Path: path}, (&collector{}).fn)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want ErrNotExist naming %s", err, path)
	}
}

func TestFnErrorStopsTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	writeFile(t, path, lines(0, 5))
	stop := errors.New("enough")
	calls := 0
	err := Tail(context.Background(), Options{Path: path, Follow: true}, func([]byte, events.Event) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 2 {
		t.Fatalf("err = %v after %d calls, want the callback's error after 2", err, calls)
	}
}

func TestFollowHoldsPartialLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	second := line(1)
	writeFile(t, path, line(0)+second[:25])
	c, tl, p, stop := followPolls(t, path)
	c.waitFor(t, 1)
	p.waitMore(t, 5) // polls with the partial line pending
	if got := c.got(); !slices.Equal(got, seqs(0, 1)) {
		t.Fatalf("partial line delivered early: %v", got)
	}
	appendFile(t, path, second[25:len(second)-1])
	p.waitMore(t, 2) // polls that saw the whole line but no newline
	if got := c.got(); len(got) != 1 {
		t.Fatalf("line without newline delivered: %v", got)
	}
	appendFile(t, path, "\n"+line(2))
	c.waitFor(t, 3)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if got := c.got(); !slices.Equal(got, seqs(0, 3)) {
		t.Errorf("got %v", got)
	}
	if tl.Malformed() != 0 {
		t.Errorf("malformed = %d", tl.Malformed())
	}
}

func TestFollowWaitsForMissingFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not-yet")
	path := filepath.Join(dir, "events.jsonl")
	c, _, p, stop := followPolls(t, path)
	p.waitMore(t, 2) // polls found no file and Run kept going
	w, err := events.Open(path, events.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Write(ev(0))
	w.Write(ev(1))
	c.waitFor(t, 2)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if got := c.got(); !slices.Equal(got, seqs(0, 2)) {
		t.Errorf("got %v", got)
	}
}

func TestFollowAcrossWriterRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	lineLen := int64(len(line(0)))
	var errs strings.Builder
	// Room for two lines: every second write rotates.
	w, err := events.Open(path, events.Options{MaxBytes: 2*lineLen + lineLen/2, Errors: &errs})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c, tl, stop := follow(t, path)

	const batches = 25
	for b := 0; b < batches; b++ {
		// Two writes per batch rotate exactly once, sometimes leaving an
		// unread line behind in the file that becomes .1.
		w.Write(ev(2 * b))
		w.Write(ev(2*b + 1))
		c.waitFor(t, 2*b+2)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if got, want := c.got(), seqs(0, 2*batches); !slices.Equal(got, want) {
		t.Errorf("events out of order or repeated:\n got %v\nwant %v", got, want)
	}
	if tl.Malformed() != 0 || errs.Len() != 0 {
		t.Errorf("malformed = %d, writer reports %q", tl.Malformed(), errs.String())
	}
	if _, err := os.Stat(events.RotatedPath(path)); err != nil {
		t.Errorf("writer never rotated: %v", err)
	}
}

func TestCancelReturnsPromptly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	writeFile(t, path, lines(0, 1))
	tests := []struct {
		name string
		poll time.Duration
	}{
		{"long poll interval", time.Hour},
		{"short poll interval", time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			seen := make(chan struct{}, 1)
			done := make(chan error, 1)
			go func() {
				done <- Tail(ctx, Options{Path: path, Follow: true, Poll: tt.poll}, func([]byte, events.Event) error {
					seen <- struct{}{}
					return nil
				})
			}()
			<-seen
			start := time.Now()
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run returned %v, want nil", err)
				}
				if d := time.Since(start); d > time.Second {
					t.Errorf("took %v to stop", d)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return after cancel")
			}
		})
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	err := Tail(ctx, Options{Path: filepath.Join(t.TempDir(), "missing")}, func([]byte, events.Event) error {
		called = true
		return nil
	})
	if err != nil || called {
		t.Fatalf("err = %v, called = %v", err, called)
	}
}

// newFollower drives single polls by hand so file changes can be placed
// exactly between them.
func newFollower(path string) (*follower, *Tailer, *collector) {
	tl := New(Options{Path: path, Follow: true})
	c := &collector{}
	return &follower{t: tl, path: path, fn: c.fn, split: splitter{max: maxLineBytes}}, tl, c
}

func TestStepFileChanges(t *testing.T) {
	tests := []struct {
		name          string
		between       func(t *testing.T, path string)
		want          []string
		wantMalformed int64
	}{
		{
			name: "rotation leaves unread lines in the old file",
			between: func(t *testing.T, path string) {
				appendFile(t, path, lines(2, 4))
				must(t, os.Rename(path, events.RotatedPath(path)))
				writeFile(t, path, lines(4, 6))
			},
			want: seqs(0, 6),
		},
		{
			name: "two rotations between polls",
			between: func(t *testing.T, path string) {
				appendFile(t, path, lines(2, 3))
				must(t, os.Rename(path, events.RotatedPath(path)))
				writeFile(t, path, lines(3, 5))
				must(t, os.Rename(path, events.RotatedPath(path)))
				writeFile(t, path, lines(5, 6))
			},
			want: seqs(0, 6),
		},
		{
			name: "rotated and no new file yet",
			between: func(t *testing.T, path string) {
				appendFile(t, path, lines(2, 3))
				must(t, os.Rename(path, events.RotatedPath(path)))
			},
			want: seqs(0, 3),
		},
		{
			name: "torn line at the end of a rotated file",
			between: func(t *testing.T, path string) {
				appendFile(t, path, line(2)[:30])
				must(t, os.Rename(path, events.RotatedPath(path)))
				writeFile(t, path, lines(3, 4))
			},
			want:          append(seqs(0, 2), seqs(3, 4)...),
			wantMalformed: 1,
		},
		{
			name: "truncated in place",
			between: func(t *testing.T, path string) {
				writeFile(t, path, lines(7, 8))
			},
			want: append(seqs(0, 2), seqs(7, 8)...),
		},
		{
			name: "removed and not replaced",
			between: func(t *testing.T, path string) {
				appendFile(t, path, lines(2, 3))
				must(t, os.Remove(path))
			},
			want: seqs(0, 3),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "events.jsonl")
			writeFile(t, path, lines(0, 2))
			f, tl, c := newFollower(path)
			defer f.close()
			ctx := context.Background()
			must(t, f.step(ctx))
			if got := c.got(); !slices.Equal(got, seqs(0, 2)) {
				t.Fatalf("first poll got %v", got)
			}
			tt.between(t, path)
			for i := 0; i < 3; i++ {
				must(t, f.step(ctx))
			}
			if got := c.got(); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if tl.Malformed() != tt.wantMalformed {
				t.Errorf("malformed = %d, want %d", tl.Malformed(), tt.wantMalformed)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOldLinesShownScrubbed: a line written before the events writer
// scrubbed query text (or by hand) reaches neither the formatted output
// nor the JSON line with its secrets.
func TestOldLinesShownScrubbed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	raw := `{"timestamp":"2026-11-21T12:00:00Z","server_session_id":"s","kind":"tool_call","tool_name":"search",` +
		`"args_summary":{"query":"card 4111 1111 1111 1111 for bob@example.com password: hunter2","limit":5},` +
		`"status":"refused","error_kind":"pii_blocked","duration_ms":1,"extra":"kept"}` + "\n"
	writeFile(t, path, raw+line(1))
	c := &collector{}
	if err := Tail(context.Background(), Options{Path: path}, c.fn); err != nil {
		t.Fatal(err)
	}
	if len(c.lines) != 2 || len(c.events) != 2 {
		t.Fatalf("got %d lines, %d events, want 2 of each", len(c.lines), len(c.events))
	}
	shown := c.lines[0] + "\n" + Format(c.events[0], false)
	for _, secret := range []string{"4111 1111 1111 1111", "bob@example.com", "hunter2"} {
		if strings.Contains(shown, secret) {
			t.Errorf("tail shows %q:\n%s", secret, shown)
		}
	}
	if !strings.Contains(shown, "card [REDACTED] for [REDACTED]") {
		t.Errorf("the query's words were lost:\n%s", shown)
	}
	// A clean line is still handed over byte for byte.
	if c.lines[1] != strings.TrimSuffix(line(1), "\n") {
		t.Errorf("clean line changed: %q", c.lines[1])
	}
}
