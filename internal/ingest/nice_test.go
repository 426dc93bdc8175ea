package ingest_test

import (
	"context"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/nice"
)

// TestBulkImportRunsAtLowPriority runs a bulk import (writers, then the
// vector index rebuild) while another connection samples the server
// processes that are busy: every one of the import's backends runs at nice
// 10, the sampler's own stays as the server started it, and when the system
// refuses (or the option turns it off) the import still lands every page,
// at that usual priority. The usual priority is the server's own nice value
// (the test cluster inherits the test's: 19 under nice -n 19), and a
// lowered backend already at a lower priority than 10 keeps it.
func TestBulkImportRunsAtLowPriority(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		keep    bool
		refuse  bool
		lowered bool
	}{
		{"lowered", false, false, true},
		{"refused", false, true, false},
		{"kept", true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			// 440 bulk pages on the 60 of the base: the index rebuild
			// covers 500 vectors, long enough to be caught by the sampler.
			b, dir := twoSources(t, 440)
			var (
				mu    sync.Mutex
				ours  = map[int]bool{} // backends the import connected, after lowering
				seen  = map[string]int{}
				wrong []string
			)
			lower := func(ctx context.Context, c *pgx.Conn) error {
				var err error
				if tc.refuse {
					err = syscall.EPERM
				} else {
					err = nice.Lower(ctx, c)
				}
				mu.Lock()
				ours[int(c.PgConn().PID())] = true
				mu.Unlock()
				return err
			}
			obs, err := b.Pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer obs.Release()
			_, base := pidNice(t, obs.Conn())
			wantNice := base
			if tc.lowered {
				wantNice = max(base, nice.Level)
			}
			stop := make(chan struct{})
			sampled := make(chan error, 1)
			go func() {
				var err error
				defer func() { sampled <- err }()
				for {
					select {
					case <-stop:
						return
					case <-time.After(2 * time.Millisecond):
					}
					var pids []int
					var queries []string
					rows, qerr := obs.Query(ctx, `SELECT pid, left(query, 40) FROM pg_stat_activity
						WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`)
					if qerr != nil {
						err = qerr
						return
					}
					for rows.Next() {
						var pid int
						var q string
						if err = rows.Scan(&pid, &q); err != nil {
							rows.Close()
							return
						}
						pids, queries = append(pids, pid), append(queries, q)
					}
					rows.Close()
					for i, pid := range pids {
						mu.Lock()
						mine := ours[pid]
						mu.Unlock()
						n, nerr := nice.Nice(pid)
						if !mine || nerr != nil { // still connecting, or gone
							continue
						}
						mu.Lock()
						seen[queries[i]]++
						if n != wantNice {
							wrong = append(wrong, queries[i])
						}
						mu.Unlock()
					}
				}
			}()
			sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{Source: "incoming", BulkThreshold: 50,
				BatchPages: 50, Writers: 2, KeepPriority: tc.keep, LowerPriority: lower})
			close(stop)
			if serr := <-sampled; serr != nil {
				t.Fatalf("sampling the server processes: %v", serr)
			}
			if err != nil || sum.Added != 440 || sum.Failed != 0 {
				t.Fatalf("bulk import: %+v %v", sum, err)
			}
			status, err := ingest.IndexStatus(ctx, b)
			if err != nil || status != "ready" {
				t.Fatalf("vector index after the import: %q %v", status, err)
			}
			if _, n := pidNice(t, obs.Conn()); n != base {
				t.Fatalf("the sampler's backend runs at nice %d, want %d as before", n, base)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.keep {
				if len(ours) != 0 {
					t.Fatalf("KeepPriority: the hook saw %d connections, want none", len(ours))
				}
				return
			}
			// Two writers at least, each connected through the hook.
			if len(ours) < 2 {
				t.Fatalf("the import made %d connections through the hook, want at least 2", len(ours))
			}
			if len(seen) == 0 {
				t.Fatal("no busy import backend was sampled during the import")
			}
			// The index rebuild runs long enough to be seen on its way.
			index := 0
			for q, n := range seen {
				if strings.HasPrefix(q, "CREATE INDEX") {
					index += n
				}
			}
			if index == 0 {
				t.Fatalf("the vector index rebuild was not sampled (sampled: %v)", seen)
			}
			if len(wrong) > 0 {
				t.Fatalf("import backends not at nice %d while running: %q (sampled: %v)", wantNice, wrong, seen)
			}
			t.Logf("sampled busy import backends: %v", seen)
		})
	}
}

func pidNice(t *testing.T, c *pgx.Conn) (int, int) {
	t.Helper()
	var pid int
	if err := c.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	n, err := nice.Nice(pid)
	if err != nil {
		t.Fatal(err)
	}
	return pid, n
}
