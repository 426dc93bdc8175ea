package nice

import (
	"context"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// backendNice is the nice value of conn's server process, read from /proc.
func backendNice(t *testing.T, conn *pgx.Conn) (int, int) {
	t.Helper()
	var pid int
	if err := conn.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	n, err := Nice(pid)
	if err != nil {
		t.Fatalf("reading the nice value of backend %d: %v", pid, err)
	}
	return pid, n
}

// TestLower lowers a real backend of the test cluster (which runs on this
// machine, over a unix socket), and checks that a refusal by the system
// leaves the priority and the connection as they were.
func TestLower(t *testing.T) {
	ctx := context.Background()
	eperm := func(pid, n int) error { return syscall.EPERM }
	for _, tc := range []struct {
		name     string
		set      func(pid, n int) error // nil: the real system call
		wantErr  error
		wantNice int
	}{
		{"lowered", nil, nil, Level},
		{"refused", eperm, syscall.EPERM, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := dbtest.Open(t)
			conn, err := b.Pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Release()
			// A pool's connection is never put back at a lower priority, so
			// close this one at the end rather than handing it on.
			defer conn.Conn().Close(ctx)
			if _, n := backendNice(t, conn.Conn()); n != 0 {
				t.Fatalf("a fresh backend runs at nice %d, want 0", n)
			}
			calls := 0
			set := func(pid, n int) error {
				calls++
				if tc.set != nil {
					return tc.set(pid, n)
				}
				return setpriority(pid, n)
			}
			err = lower(ctx, conn.Conn(), Level, set)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("lower: %v, want %v", err, tc.wantErr)
			}
			if calls != 1 {
				t.Fatalf("setpriority called %d times, want 1", calls)
			}
			pid, n := backendNice(t, conn.Conn())
			if n != tc.wantNice {
				t.Fatalf("backend %d runs at nice %d after lower, want %d", pid, n, tc.wantNice)
			}
			// A backend leads a session of its own, so with autogroups its
			// autogroup is lowered too, or nice orders nothing against
			// other backends.
			if st, err := readStat(pid); err == nil {
				if ag, ok := autogroupNice(pid, st); ok && ag != tc.wantNice {
					t.Fatalf("backend %d's autogroup runs at nice %d after lower, want %d", pid, ag, tc.wantNice)
				}
			}
			// The connection still works, in or out of a transaction.
			var got int
			if err := pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
				return tx.QueryRow(ctx, `SELECT count(*) FROM brain.pages`).Scan(&got)
			}); err != nil {
				t.Fatalf("the connection after lower: %v", err)
			}
			// A second call finds the backend already low and leaves it.
			if tc.set == nil {
				if err := lower(ctx, conn.Conn(), Level, set); err != nil || calls != 1 {
					t.Fatalf("lowering again: %v, setpriority called %d times, want 1", err, calls)
				}
			}
		})
	}
}

// TestBrainLowersOnlyItsOwnPool opens a low-priority pool beside a brain's
// own: every connection of the former runs at Level, the latter's at 0, and
// a refusing hook leaves the pool working at the usual priority.
func TestBrainLowersOnlyItsOwnPool(t *testing.T) {
	ctx := context.Background()
	b := dbtest.Open(t)
	for _, tc := range []struct {
		name  string
		lower func(context.Context, *pgx.Conn) error
		want  int
	}{
		{"lowered", nil, Level},
		{"refused", func(context.Context, *pgx.Conn) error { return syscall.EPERM }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			low, err := Brain(ctx, b, tc.lower)
			if err != nil {
				t.Fatal(err)
			}
			defer low.Pool.Close()
			var conns []*pgx.Conn
			for i := 0; i < 3; i++ {
				c, err := low.Pool.Acquire(ctx)
				if err != nil {
					t.Fatalf("connecting through the low-priority pool: %v", err)
				}
				defer c.Release()
				conns = append(conns, c.Conn())
			}
			for _, c := range conns {
				if pid, n := backendNice(t, c); n != tc.want {
					t.Fatalf("low pool backend %d at nice %d, want %d", pid, n, tc.want)
				}
			}
			own, err := b.Pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer own.Release()
			if pid, n := backendNice(t, own.Conn()); n != 0 {
				t.Fatalf("the brain's own backend %d runs at nice %d, want 0", pid, n)
			}
		})
	}
}

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		line    string
		want    stat
		wantErr string
	}{
		{"4242 (postgres) S 4200 4200 4200 0 -1 4194560 283 0 0 0 1 0 0 0 30 10 1 0 987654 227323904 4512 18446744073709551615",
			stat{comm: "postgres", nice: 10, startTicks: 987654, session: 4200}, ""},
		// comm may hold spaces and parentheses; the fields follow the last ')'.
		{"7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 -5 1 0 42 0 0",
			stat{comm: "a) b (c)", nice: -5, startTicks: 42, session: 7}, ""},
		{"7 (x) R 1 2", stat{}, "fields"},
		{"no parentheses", stat{}, "unreadable"},
		{"7 (x) R 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 ten 1 0 42", stat{}, "nice"},
	} {
		got, err := parseStat(tc.line)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseStat(%q) = %+v, %v; want an error about %s", tc.line, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v", tc.line, got, err, tc.want)
		}
	}
}

// FuzzParseStat: any line either parses or is refused, never panics, and a
// parsed comm is what sits between the first '(' and the last ')'.
func FuzzParseStat(f *testing.F) {
	f.Add("4242 (postgres) S 4200 4200 4200 0 -1 4194560 283 0 0 0 1 0 0 0 30 10 1 0 987654 227323904 4512")
	f.Add("1 ()) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := parseStat(s)
		if err != nil {
			return
		}
		if !strings.Contains(s, "("+st.comm+")") {
			t.Fatalf("comm %q is not in %q", st.comm, s)
		}
	})
}

// TestFollowWorkersLowersParallelWorkers runs a parallel query on a lowered
// session and checks that its workers, which the postmaster starts at the
// usual priority, are lowered to the session's level, and that a session
// that is not lowered leaves its workers alone.
func TestFollowWorkersLowersParallelWorkers(t *testing.T) {
	ctx := context.Background()
	b := dbtest.Open(t)
	conn, err := b.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	defer conn.Conn().Close(ctx) // never hand a lowered backend back to the pool
	for _, s := range []string{
		`SET max_parallel_workers_per_gather = 2`, `SET parallel_setup_cost = 0`, `SET parallel_tuple_cost = 0`,
		`SET min_parallel_table_scan_size = 0`,
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Pool.Exec(ctx, `CREATE TABLE public.follow_x AS SELECT g FROM generate_series(1, 300) g; ANALYZE public.follow_x`); err != nil {
		t.Fatal(err)
	}
	slow := `SELECT count(*) FROM public.follow_x WHERE pg_sleep(0.01) IS NOT NULL`

	// Not lowered: nothing is followed.
	stop := FollowWorkers(ctx, conn.Conn(), b.Pool, 20*time.Millisecond)
	stop()

	if err := Lower(ctx, conn.Conn()); err != nil {
		t.Fatalf("lowering the session: %v", err)
	}
	leader, n := backendNice(t, conn.Conn())
	if n != Level {
		t.Fatalf("session at nice %d after Lower, want %d", n, Level)
	}
	var mu sync.Mutex
	lowered := map[int]int{}
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		followWorkers(fctx, b.Pool, leader, Level, 20*time.Millisecond, func(pid, level int) error {
			mu.Lock()
			lowered[pid] = level
			mu.Unlock()
			return setpriority(pid, level)
		})
	}()
	var count int
	err = conn.QueryRow(ctx, slow).Scan(&count)
	cancel()
	<-done
	if err != nil || count != 300 {
		t.Fatalf("parallel query: %d rows, %v", count, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lowered) == 0 {
		t.Fatal("no parallel worker of the lowered session was lowered")
	}
	for pid, level := range lowered {
		if pid == leader || level != Level {
			t.Errorf("set process %d to nice %d, want only workers (not the leader %d) at %d", pid, level, leader, Level)
		}
	}
	if st, err := readStat(leader); err == nil {
		if ag, ok := autogroupNice(leader, st); ok && ag != Level {
			t.Errorf("the lowered session's autogroup runs at nice %d, want %d", ag, Level)
		}
	}
}
