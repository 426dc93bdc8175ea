package audit_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/audit"
	"github.com/pgbrain/pgbrain/testdb"
)

func pool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// held passes Execs to a real database once the test releases it, and
// records how many rows each statement carried.
type held struct {
	db      audit.Execer
	entered chan struct{} // one send per Exec that reached the hold, if room
	release chan struct{}
	once    sync.Once

	mu   sync.Mutex
	rows []int
}

func newHeld(db audit.Execer) *held {
	return &held{db: db, entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (h *held) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	n := 1
	if len(args) > 0 {
		if s, ok := args[0].([]string); ok {
			n = len(s)
		}
	}
	h.mu.Lock()
	h.rows = append(h.rows, n)
	h.mu.Unlock()
	select {
	case h.entered <- struct{}{}:
	default:
	}
	select {
	case <-h.release:
	case <-ctx.Done():
		return pgconn.CommandTag{}, ctx.Err()
	}
	return h.db.Exec(ctx, sql, args...)
}

func (h *held) open() { h.once.Do(func() { close(h.release) }) }

func (h *held) statements() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.rows)
}

func closeWithin(t *testing.T, a *audit.Async, d time.Duration) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return a.Close(ctx)
}

// (a) Many goroutines, one background writer (or, when the queue
// overflows, the callers themselves): one contiguous, valid chain holding
// every entry exactly once.
func TestAsyncConcurrentRecordsFormOneChain(t *testing.T) {
	t.Parallel()
	const goroutines, perGoroutine = 16, 40
	cases := []struct {
		name string
		opts audit.AsyncOptions
	}{
		{"defaults", audit.AsyncOptions{}},
		{"small batches", audit.AsyncOptions{MaxBatch: 3}},
		{"overflowing queue", audit.AsyncOptions{QueueSize: 4, MaxBatch: 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url := testdb.New(t)
			var stderr syncBuffer
			a := audit.NewAsync(audit.NewWriter(pool(t, url), &stderr), tc.opts)
			var wg sync.WaitGroup
			for g := 0; g < goroutines; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := 0; j < perGoroutine; j++ {
						e := entry(j)
						e.SessionID = fmt.Sprintf("g%d-%d", g, j)
						if fp, err := a.Record(ctx, e); err != nil || fp != audit.Fingerprint(e) {
							t.Errorf("record %s: fingerprint %s, %v", e.SessionID, fp, err)
						}
					}
				}()
			}
			wg.Wait()
			if err := closeWithin(t, a, 30*time.Second); err != nil {
				t.Fatalf("close: %v", err)
			}
			if stderr.String() != "" {
				t.Errorf("reports for valid entries: %s", stderr.String())
			}
			conn := connect(t, url)
			rows, err := audit.List(ctx, conn, audit.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for i, r := range rows {
				if r.ID != int64(i+1) {
					t.Fatalf("row %d has id %d: the chain has a gap", i+1, r.ID)
				}
				seen[r.SessionID]++
			}
			for g := 0; g < goroutines; g++ {
				for j := 0; j < perGoroutine; j++ {
					if id := fmt.Sprintf("g%d-%d", g, j); seen[id] != 1 {
						t.Errorf("%s recorded %d times, want once", id, seen[id])
					}
				}
			}
			if len(rows) != goroutines*perGoroutine {
				t.Errorf("%d rows, want %d", len(rows), goroutines*perGoroutine)
			}
			if p := verify(t, conn, audit.Scope{Full: true}); len(p) != 0 {
				t.Fatalf("brain.audit_verify(true): %v", p[:min(len(p), 5)])
			}
		})
	}
}

// (b) Entries queued while a write is in progress go out together, in one
// INSERT per MaxBatch, and the chain holds them in call order. A row the
// database rejects costs only itself.
func TestAsyncBatchKeepsCallOrder(t *testing.T) {
	t.Parallel()
	const n = 30 // queued behind the first, held, entry
	cases := []struct {
		name     string
		maxBatch int
		bad      int // index of an entry with an invalid status; -1: none
		want     []int
	}{
		{"one batch", 0, -1, []int{1, n}},
		{"batches of seven", 7, -1, []int{1, 7, 7, 7, 7, 2}},
		{"no batching", 1, -1, slices.Repeat([]int{1}, n+1)},
		{"a rejected row", 0, 12, append([]int{1, n}, slices.Repeat([]int{1}, n)...)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url := testdb.New(t)
			h := newHeld(pool(t, url))
			t.Cleanup(h.open)
			var stderr syncBuffer
			a := audit.NewAsync(audit.NewWriter(h, &stderr), audit.AsyncOptions{MaxBatch: tc.maxBatch})
			var want []string
			for i := 0; i <= n; i++ {
				e := entry(i)
				e.SessionID = fmt.Sprintf("call-%d", i)
				if i == tc.bad {
					e.Status = "ok"
				} else {
					want = append(want, e.SessionID)
				}
				if _, err := a.Record(ctx, e); err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					<-h.entered // the writer holds entry 0; the rest queue up
				}
			}
			h.open()
			fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if err := a.Flush(fctx); err != nil {
				t.Fatalf("flush: %v", err)
			}
			conn := connect(t, url)
			rows, err := audit.List(ctx, conn, audit.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rows {
				got = append(got, r.SessionID)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("chain order %v, want call order %v", got, want)
			}
			if p := verify(t, conn, audit.Scope{Full: true}); len(p) != 0 {
				t.Fatalf("brain.audit_verify(true): %v", p)
			}
			if err := closeWithin(t, a, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			if s := h.statements(); !slices.Equal(s, tc.want) {
				t.Errorf("rows per statement %v, want %v", s, tc.want)
			}
			lines := strings.Count(stderr.String(), "\n")
			if wantLines := map[bool]int{true: 0, false: 1}[tc.bad < 0]; lines != wantLines {
				t.Errorf("%d report lines, want %d: %s", lines, wantLines, stderr.String())
			}
		})
	}
}

// blackhole accepts connections and never answers, like a database host
// that went away behind a firewall dropping packets.
func blackhole(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "postgres://nobody@" + ln.Addr().String() + "/nowhere?sslmode=disable&connect_timeout=5"
}

// refused is an address where nothing listens: connections fail at once.
func refused(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "postgres://nobody@" + addr + "/nowhere?sslmode=disable"
}

// (c) With the database unreachable, Record never blocks longer than the
// Writer's timeout (queued: not at all), Close returns within its own
// bound, and failures are reported once per kind.
func TestAsyncUnreachableDatabase(t *testing.T) {
	cases := []struct {
		name          string
		url           func(*testing.T) string
		writerTimeout time.Duration
		queue         int
		calls         int
		closeTimeout  time.Duration
		wantLost      bool // Close must give up and say rows were not recorded
	}{
		{"connection refused", refused, 300 * time.Millisecond, 4, 12, time.Second, false},
		{"no answer, queue overflowing", blackhole, 300 * time.Millisecond, 2, 6, 400 * time.Millisecond, false},
		{"no answer, close gives up", blackhole, time.Minute, 64, 10, 300 * time.Millisecond, true},
	}
	// The bounds tell a call that honoured its timeout from one that waited
	// on the silent server (until the 5 s connect_timeout of blackhole's
	// URL, or the one-minute writer timeout of the last case): they are not
	// speed budgets, so a loaded machine (or -race) gets all the margin
	// below those 5 s.
	const slack = 3 * time.Second
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var stderr syncBuffer
			w := audit.NewWriter(pool(t, tc.url(t)), &stderr).WithTimeout(tc.writerTimeout)
			a := audit.NewAsync(w, audit.AsyncOptions{QueueSize: tc.queue, MaxBatch: 2})
			// Queued calls do not wait at all; an overflowing call writes its
			// own row and waits at most the Writer's timeout.
			bound := tc.writerTimeout + slack
			for i := 0; i < tc.calls; i++ {
				start := time.Now()
				fp, _ := a.Record(ctx, entry(i))
				if d := time.Since(start); d > bound {
					t.Errorf("record %d blocked the call for %v, bound %v", i, d, bound)
				}
				if fp != audit.Fingerprint(entry(i)) {
					t.Errorf("record %d: fingerprint %q", i, fp)
				}
			}
			start := time.Now()
			err := closeWithin(t, a, tc.closeTimeout)
			// Close may wait its timeout, then up to 500 ms for the
			// cancelled INSERT to return.
			if d := time.Since(start); d > tc.closeTimeout+500*time.Millisecond+slack {
				t.Errorf("close took %v, bound %v", d, tc.closeTimeout)
			}
			if tc.wantLost && (err == nil || !strings.Contains(stderr.String(), "not recorded")) {
				t.Errorf("close: %v, stderr %q; want the lost rows reported", err, stderr.String())
			}
			if stderr.String() == "" {
				t.Error("no failure reported")
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			for i, l := range lines {
				if slices.Contains(lines[:i], l) {
					t.Errorf("reported twice: %s", l)
				}
			}
			if tc.writerTimeout > 5*time.Second {
				return // a late call would wait the whole timeout
			}
			// After Close a late call still gets its fingerprint, within the bound.
			start = time.Now()
			if fp, _ := a.Record(ctx, entry(1)); fp != audit.Fingerprint(entry(1)) || time.Since(start) > bound {
				t.Errorf("record after close: %q in %v", fp, time.Since(start))
			}
		})
	}
}

// The writer role needs nothing more for a batch than for one row.
func TestAsyncBatchAsAuditWriterRole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, testdb.New(t))
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL ROLE pgbrain_audit_writer"); err != nil {
		t.Fatal(err)
	}
	h := newHeld(tx)
	t.Cleanup(h.open)
	var stderr syncBuffer
	a := audit.NewAsync(audit.NewWriter(h, &stderr), audit.AsyncOptions{})
	for i := 0; i < 5; i++ {
		if _, err := a.Record(ctx, entry(i)); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			<-h.entered
		}
	}
	h.open()
	if err := closeWithin(t, a, 10*time.Second); err != nil || stderr.String() != "" {
		t.Fatalf("close: %v; reports: %s", err, stderr.String())
	}
	if s := h.statements(); !slices.Equal(s, []int{1, 4}) {
		t.Fatalf("rows per statement %v, want [1 4]", s)
	}
	if _, err := tx.Exec(ctx, "RESET ROLE"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM brain.audit_log`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("%d rows (%v), want 5", n, err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
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
