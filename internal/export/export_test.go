package export

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// insert adds a candidate and returns its id.
func insert(t testing.TB, db interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, tool, query string) int64 {
	t.Helper()
	var id int64
	if err := db.QueryRow(context.Background(), `INSERT INTO brain.eval_candidates
		(tool_name, query, retrieved_slugs, retrieved_chunk_ids, source_ids, vector_enabled, latency_ms)
		VALUES ($1, $2, '{a/b,c}', '{1,2,3}', '{default}', true, 1.5) RETURNING id`, tool, query).Scan(&id); err != nil {
		t.Fatalf("inserting %q: %v", query, err)
	}
	return id
}

func export(t *testing.T, db *pgxpool.Pool, opts Options) (string, Summary) {
	t.Helper()
	var buf bytes.Buffer
	sum, err := Export(context.Background(), db, &buf, opts)
	if err != nil {
		t.Fatalf("Export(%+v): %v", opts, err)
	}
	return buf.String(), sum
}

func ids(t *testing.T, out string) []int64 {
	t.Helper()
	var got []int64
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var row struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		got = append(got, row.ID)
	}
	return got
}

// copyOut runs a COPY on the server, exactly what psql's copy to stdout prints.
func copyOut(t *testing.T, db *pgxpool.Pool, sql string) string {
	t.Helper()
	conn, err := db.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var buf bytes.Buffer
	if _, err := conn.Conn().PgConn().CopyTo(context.Background(), &buf, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return buf.String()
}

func TestExportMatchesTheView(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	ctx := context.Background()
	// Any session time zone: created_at is always printed in UTC.
	if _, err := b.Pool.Exec(ctx, `SELECT set_config('TimeZone', 'Asia/Kolkata', false)`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"who is alice", "naïve café ünïcode", "tab\tand newline\nin it", "x"} {
		insert(t, b.Pool, "query", q)
		insert(t, b.Pool, "search", q)
	}
	out, sum := export(t, b.Pool, Options{})
	if sum.Rows != 8 {
		t.Fatalf("exported %d rows, want 8", sum.Rows)
	}
	// JSON escapes (\t, \n) are doubled by COPY's text format, so rows that
	// need them compare with the raw COPY form documented in eval-export.md.
	raw := copyOut(t, b.Pool, `copy (select row_json from brain.eval_export) to stdout with (format csv, quote e'\x01', delimiter e'\x02')`)
	if out != raw {
		t.Fatalf("export differs from the raw COPY of the view:\n%s\nvs\n%s", out, raw)
	}
	rs, _ := b.Pool.Query(ctx, `SELECT row_json::text FROM brain.eval_export`)
	lines, err := pgx.CollectRows(rs, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(lines, "\n") + "\n"; out != want {
		t.Fatalf("export differs from the view:\n%s\nvs\n%s", out, want)
	}

	prev := int64(1 << 62)
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(line, `{"schema_version":1,"id":`) {
			t.Fatalf("line does not start with schema_version: %s", line)
		}
		var row struct {
			ID        int64  `json:"id"`
			CreatedAt string `json:"created_at"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		if row.ID >= prev {
			t.Fatalf("rows not in created_at DESC, id DESC order: %d after %d", row.ID, prev)
		}
		prev = row.ID
		if _, err := time.Parse("2006-01-02T15:04:05.000000Z", row.CreatedAt); err != nil {
			t.Fatalf("created_at %q is not UTC with microseconds: %v", row.CreatedAt, err)
		}
	}
}

func TestPlainCopyIsIdenticalWithoutEscapes(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	for _, q := range []string{"who is alice", "naïve café", "meeting 2024"} {
		insert(t, b.Pool, "query", q)
	}
	out, _ := export(t, b.Pool, Options{})
	plain := copyOut(t, b.Pool, `copy (select row_json from brain.eval_export) to stdout`)
	if out != plain {
		t.Fatalf("export differs from psql's copy:\n%s\nvs\n%s", out, plain)
	}
}

func TestExportKeyOrder(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	insert(t, b.Pool, "query", "q")
	out, _ := export(t, b.Pool, Options{})
	dec := json.NewDecoder(strings.NewReader(out))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	want := "schema_version id tool_name query retrieved_slugs retrieved_chunk_ids source_ids expand_enabled detail detail_resolved vector_enabled expansion_applied latency_ms remote job_id subagent_id created_at"
	if got := strings.Join(keys, " "); got != want {
		t.Fatalf("keys\n %s\nwant\n %s", got, want)
	}
}

func TestExportFilters(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	ctx := context.Background()
	old := insert(t, b.Pool, "query", "old")
	mid := insert(t, b.Pool, "search", "mid")
	q1 := insert(t, b.Pool, "query", "new1")
	s1 := insert(t, b.Pool, "search", "new2")
	// Backdate two rows (as a DBA could); the trigger stamps inserts only.
	if _, err := b.Pool.Exec(ctx, `UPDATE brain.eval_candidates SET created_at = now() - interval '10 days' WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Pool.Exec(ctx, `UPDATE brain.eval_candidates SET created_at = now() - interval '2 hours' WHERE id = $1`, mid); err != nil {
		t.Fatal(err)
	}
	var midAt time.Time
	if err := b.Pool.QueryRow(ctx, `SELECT created_at FROM brain.eval_candidates WHERE id = $1`, mid).Scan(&midAt); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts Options
		want []int64
		left int64
	}{
		{"all, newest first", Options{}, []int64{s1, q1, mid, old}, 0},
		{"since 7d", Options{Since: SinceAge(7 * 24 * time.Hour)}, []int64{s1, q1, mid}, 0},
		{"since 90m", Options{Since: SinceAge(90 * time.Minute)}, []int64{s1, q1}, 0},
		{"since an instant is inclusive", Options{Since: SinceTime(midAt)}, []int64{s1, q1, mid}, 0},
		{"until an instant is exclusive", Options{Until: midAt}, []int64{old}, 0},
		{"tool query", Options{Tool: "query"}, []int64{q1, old}, 0},
		{"tool search since 7d", Options{Tool: "search", Since: SinceAge(7 * 24 * time.Hour)}, []int64{s1, mid}, 0},
		{"limit keeps the newest and says what is left", Options{Limit: 3}, []int64{s1, q1, mid}, 1},
		{"limit above the count", Options{Limit: 10}, []int64{s1, q1, mid, old}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, sum := export(t, b.Pool, tc.opts)
			got := ids(t, out)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || sum.Rows != int64(len(tc.want)) || sum.Left != tc.left {
				t.Fatalf("got %v (rows %d, left %d), want %v (left %d)", got, sum.Rows, sum.Left, tc.want, tc.left)
			}
		})
	}
	for _, bad := range []Options{{Tool: "grep"}, {Limit: -1}} {
		if _, err := Export(ctx, b.Pool, &bytes.Buffer{}, bad); err == nil {
			t.Errorf("Export(%+v) accepted", bad)
		}
	}
}

// TestWindowEndWaitsForInFlightRows: a row inserted by a transaction that has
// not committed must fall after the window end, so the next window gets it.
func TestWindowEndWaitsForInFlightRows(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	ctx := context.Background()
	insert(t, b.Pool, "query", "committed")
	tx, err := b.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var inflight int64
	var inflightAt time.Time
	if err := tx.QueryRow(ctx, `INSERT INTO brain.eval_candidates (tool_name, query, vector_enabled, latency_ms)
		VALUES ('query', 'in flight', false, 1) RETURNING id, created_at`).Scan(&inflight, &inflightAt); err != nil {
		t.Fatal(err)
	}
	// Once the server's clock has passed the row, a naive now() window
	// end would pass it too.
	for passed := false; !passed; {
		if err := b.Pool.QueryRow(ctx, `SELECT clock_timestamp() > $1`, inflightAt).Scan(&passed); err != nil {
			t.Fatal(err)
		}
	}
	out1, sum1 := export(t, b.Pool, Options{})
	if !sum1.WindowEnd.After(time.Time{}) || sum1.WindowEnd.After(inflightAt) {
		t.Fatalf("window end %v is after the in-flight row's created_at %v", sum1.WindowEnd, inflightAt)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	out2, _ := export(t, b.Pool, Options{Since: SinceTime(sum1.WindowEnd)})
	if got := ids(t, out2); len(got) != 1 || got[0] != inflight {
		t.Fatalf("next window = %v (first window %v), want the in-flight row %d", got, ids(t, out1), inflight)
	}
}

// A transaction that began before a window's end but wrote its row only
// after it holds the next end back to its start, before that window's
// start. The chain must not step back: an export then returns an empty
// window ending where it began, and no row is exported twice.
func TestChainedWindowNeverStepsBack(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	ctx := context.Background()
	late, err := b.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Rollback(ctx)
	// The transaction starts now, without a transaction id.
	var lateStart time.Time
	if err := late.QueryRow(ctx, `SELECT transaction_timestamp()`).Scan(&lateStart); err != nil {
		t.Fatal(err)
	}
	early := insert(t, b.Pool, "query", "committed after the late transaction began")
	out1, sum1 := export(t, b.Pool, Options{})
	if got := ids(t, out1); len(got) != 1 || got[0] != early {
		t.Fatalf("first window = %v, want [%d]", got, early)
	}
	var lateID int64
	if err := late.QueryRow(ctx, `INSERT INTO brain.eval_candidates (tool_name, query, vector_enabled, latency_ms)
		VALUES ('query', 'late', false, 1) RETURNING id`).Scan(&lateID); err != nil {
		t.Fatal(err)
	}
	var bound time.Time
	if err := b.Pool.QueryRow(ctx, `SELECT brain.eval_window_end()`).Scan(&bound); err != nil {
		t.Fatal(err)
	}
	if !bound.Equal(lateStart) || !bound.Before(sum1.WindowEnd) {
		t.Fatalf("eval_window_end() = %v, want the running transaction's start %v, before the first window's end %v", bound, lateStart, sum1.WindowEnd)
	}
	out2, sum2 := export(t, b.Pool, Options{Since: SinceTime(sum1.WindowEnd)})
	if got := ids(t, out2); len(got) != 0 || !sum2.WindowEnd.Equal(sum1.WindowEnd) {
		t.Fatalf("second window = %v ending %v, want an empty window ending at its start %v", got, sum2.WindowEnd, sum1.WindowEnd)
	}
	if err := late.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	out3, _ := export(t, b.Pool, Options{Since: SinceTime(sum2.WindowEnd)})
	if got := ids(t, out3); len(got) != 1 || got[0] != lateID {
		t.Fatalf("third window = %v, want only the late row %d (the first window exported %d)", got, lateID, early)
	}
}

// TestChainedWindowsWithConcurrentWriters: writers insert rows in
// transactions that stay open for a while (some roll back) while exports run
// back to back, each starting at the previous window end. Every committed row
// must be exported exactly once.
func TestChainedWindowsWithConcurrentWriters(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	ctx := context.Background()
	var (
		mu        sync.Mutex
		committed = map[int64]bool{}
		stop      = make(chan struct{})
		wg        sync.WaitGroup
		writeErr  error
	)
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				err := func() error {
					tx, err := b.Pool.Begin(ctx)
					if err != nil {
						return err
					}
					defer tx.Rollback(ctx)
					var id int64
					if err := tx.QueryRow(ctx, `INSERT INTO brain.eval_candidates (tool_name, query, vector_enabled, latency_ms)
						VALUES ('search', $1, false, 1) RETURNING id`, fmt.Sprintf("w%d-%d", w, i)).Scan(&id); err != nil {
						return err
					}
					time.Sleep(time.Duration(rng.IntN(15)) * time.Millisecond)
					if rng.IntN(10) == 0 {
						return tx.Rollback(ctx)
					}
					if err := tx.Commit(ctx); err != nil {
						return err
					}
					mu.Lock()
					committed[id] = true
					mu.Unlock()
					return nil
				}()
				if err != nil {
					mu.Lock()
					writeErr = err
					mu.Unlock()
					return
				}
			}
		}(w)
	}

	seen := map[int64]int{}
	var since Since
	windows := 0
	// Enough windows and rows to prove something, however busy the machine:
	// the loop ends on counts, not on a clock.
	enough := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return windows >= 15 && len(committed) >= 75
	}
	giveUp := time.Now().Add(2 * time.Minute)
	for !enough() && time.Now().Before(giveUp) {
		out, sum := export(t, b.Pool, Options{Since: since})
		for _, id := range ids(t, out) {
			seen[id]++
		}
		since = SinceTime(sum.WindowEnd)
		windows++
		time.Sleep(time.Duration(rand.IntN(5)) * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if writeErr != nil {
		t.Fatalf("writer: %v", writeErr)
	}
	out, _ := export(t, b.Pool, Options{Since: since})
	for _, id := range ids(t, out) {
		seen[id]++
	}
	if len(committed) < 50 || windows < 10 {
		t.Fatalf("too little concurrency to prove anything: %d rows, %d windows", len(committed), windows)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("row %d exported %d times", id, n)
		}
		if !committed[id] {
			t.Errorf("row %d exported but never committed", id)
		}
	}
	for id := range committed {
		if seen[id] == 0 {
			t.Errorf("committed row %d never exported", id)
		}
	}
	t.Logf("%d rows over %d chained windows", len(committed), windows)
}

func TestPrune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name      string
		olderThan time.Duration
		dryRun    bool
		removed   int64
		remaining int
	}{
		{"older than 7d", 7 * 24 * time.Hour, false, 1, 2},
		{"dry run removes nothing", 7 * 24 * time.Hour, true, 1, 3},
		{"older than 1h", time.Hour, false, 2, 1},
		{"0d removes everything", 0, false, 3, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := dbtest.Open(t)
			old := insert(t, b.Pool, "query", "old")
			mid := insert(t, b.Pool, "query", "mid")
			insert(t, b.Pool, "query", "new")
			b.Pool.Exec(ctx, `UPDATE brain.eval_candidates SET created_at = now() - interval '8 days' WHERE id = $1`, old)
			b.Pool.Exec(ctx, `UPDATE brain.eval_candidates SET created_at = now() - interval '2 hours' WHERE id = $1`, mid)
			n, err := Prune(ctx, b.Pool, tc.olderThan, tc.dryRun)
			if err != nil {
				t.Fatal(err)
			}
			var left int
			b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.eval_candidates`).Scan(&left)
			if n != tc.removed || left != tc.remaining {
				t.Fatalf("pruned %d leaving %d, want %d leaving %d", n, left, tc.removed, tc.remaining)
			}
		})
	}
}

// A --since the server's clock has not reached, or an --until before it,
// is refused naming both times: the first would print an end that claims
// rows not yet written, the second an empty window.
func TestExportRefusesWindowsThatCannotHold(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	future := time.Now().Add(24 * time.Hour)
	var buf bytes.Buffer
	if _, err := Export(context.Background(), b.Pool, &buf, Options{Since: SinceTime(future)}); err == nil || !strings.Contains(err.Error(), "later than the server's clock") {
		t.Errorf("--since tomorrow: err = %v; want a refusal naming the server's clock", err)
	}
	past := time.Now().Add(-time.Hour)
	if _, err := Export(context.Background(), b.Pool, &buf, Options{Since: SinceTime(past), Until: past.Add(-time.Minute)}); err == nil || !strings.Contains(err.Error(), "is before --since") {
		t.Errorf("--until before --since: err = %v; want a refusal", err)
	}
	if buf.Len() != 0 {
		t.Errorf("refused exports wrote %q", buf.String())
	}
}
