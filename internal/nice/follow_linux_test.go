package nice

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/dbtest"
)

var launched = regexp.MustCompile(`Workers Launched: (\d+)`)

// TestFollowWorkers runs a parallel query while following the session's
// workers: the postmaster starts them at the usual priority, and they are
// lowered to the session's level only when Lower lowered the session. A
// session whose backend merely runs at a higher nice value, as on a server
// started under nice, with its own autogroup at 0, was not lowered, and
// with autogroups its workers are left alone.
func TestFollowWorkers(t *testing.T) {
	ctx := context.Background()
	b := dbtest.Open(t)
	if _, err := b.Pool.Exec(ctx, `CREATE TABLE public.follow_x AS SELECT g FROM generate_series(1, 300) g; ANALYZE public.follow_x`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, conn *pgx.Conn, pid, base int) // how the session's backend was set
		// the level its workers are set to, from the server's own nice;
		// -1: none is set
		want func(base int) int
	}{
		{"not lowered", func(*testing.T, *pgx.Conn, int, int) {}, func(int) int { return -1 }},
		{"lowered", func(t *testing.T, conn *pgx.Conn, _, _ int) {
			if err := Lower(ctx, conn); err != nil {
				t.Fatalf("lowering the session: %v", err)
			}
		}, func(base int) int {
			if kernelHasAutogroups() {
				return Level
			}
			return max(base, Level)
		}},
		{"nice value only", func(t *testing.T, _ *pgx.Conn, pid, base int) {
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, pid, max(base, 15)); err != nil {
				t.Fatal(err)
			}
		}, func(base int) int {
			if kernelHasAutogroups() {
				return -1
			}
			return max(base, 15)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
			leader, base := backendNice(t, conn.Conn())
			tc.prepare(t, conn.Conn(), leader, base)
			want := tc.want(base)

			var mu sync.Mutex
			lowered := map[int]int{}
			fctx, cancel := context.WithCancel(ctx)
			defer cancel()
			stop := follow(fctx, conn.Conn(), b.Pool, 20*time.Millisecond, func(pid, level int) error {
				mu.Lock()
				lowered[pid] = level
				mu.Unlock()
				return setpriority(pid, level)
			})
			var plan []string
			rows, err := conn.Query(ctx, `EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM public.follow_x WHERE pg_sleep(0.01) IS NOT NULL`)
			if err == nil {
				plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
			}
			// The follower ends with its context as well as with stop.
			cancel()
			stopped := make(chan struct{})
			go func() { stop(); close(stopped) }()
			select {
			case <-stopped:
			case <-time.After(10 * time.Second):
				t.Fatal("stop did not return after the context ended")
			}
			if err != nil {
				t.Fatalf("parallel query: %v", err)
			}
			if m := launched.FindStringSubmatch(strings.Join(plan, "\n")); m == nil || m[1] == "0" {
				t.Fatalf("the parallel query launched no worker:\n%s", strings.Join(plan, "\n"))
			}
			mu.Lock()
			defer mu.Unlock()
			if want < 0 && len(lowered) > 0 {
				t.Fatalf("set processes %v, want none set", lowered)
			}
			if want >= 0 && len(lowered) == 0 {
				t.Fatalf("no parallel worker of the session was set, want them at nice %d", want)
			}
			for pid, level := range lowered {
				if pid == leader || level != want {
					t.Errorf("set process %d to nice %d, want only workers (not the leader %d) at %d", pid, level, leader, want)
				}
			}
		})
	}
}
