package replay

import (
	"context"
	"fmt"
	"math"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/baseline"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/search"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func row(t *testing.T, line string) baseline.Row {
	t.Helper()
	r, err := baseline.ParseRow([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReplayAgainstABrain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	for slug, body := range map[string]string{
		"people/alice-example": "# Alice\n\nAlice founded widget-co, a fintech company.\n",
		"companies/widget-co":  "# Widget Co\n\nWidget-co is a fintech company founded by Alice.\n",
		"notes/garden":         "# Garden\n\nTomatoes and basil.\n",
	} {
		if _, err := ingest.PutPage(ctx, b, slug, []byte(body), ingest.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	db := DB{Q: b.Pool}
	// Capture what the brain returns now, as an export row would.
	live, err := search.Keyword(ctx, b.Pool, "fintech company", search.Options{Limit: 10}, search.Tuning{})
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, r := range live.Results {
		slugs = append(slugs, fmt.Sprintf("%q", r.Slug))
	}
	if len(slugs) != 2 {
		t.Fatalf("setup: keyword search found %v", slugs)
	}
	same := fmt.Sprintf(`{"schema_version":1,"id":4,"tool_name":"search","query":"fintech company","retrieved_slugs":[%s],"latency_ms":1000,"created_at":"2025-01-04T00:00:00Z"}`, strings.Join(slugs, ","))
	// The captured set had a page that is gone and lacked one that is found
	// now: {old, a} vs {a, b} -> 1/3; the top result changed.
	moved := fmt.Sprintf(`{"schema_version":1,"id":3,"tool_name":"query","query":"fintech company","retrieved_slugs":["people/gone",%s],"detail":"high","expand_enabled":false,"vector_enabled":false,"latency_ms":0.001,"created_at":"2025-01-03T00:00:00Z"}`, slugs[0])
	empty := `{"schema_version":1,"id":2,"tool_name":"search","query":"   ","retrieved_slugs":[],"created_at":"2025-01-02T00:00:00Z"}`
	broken := `{"schema_version":1,"id":1,"tool_name":"search","query":"nul\u0000byte","retrieved_slugs":[],"created_at":"2025-01-01T00:00:00Z"}`
	// Capture scrubbed an email out of this one: replaying the rest of the
	// text would search something else, so it is skipped, not scored.
	redacted := `{"schema_version":1,"id":0,"tool_name":"search","query":"mail [REDACTED] about fintech","retrieved_slugs":["notes/garden"],"created_at":"2024-12-31T00:00:00Z"}`
	rows := []baseline.Row{row(t, empty), row(t, broken), row(t, moved), row(t, same), row(t, redacted)}

	rep, err := Run(ctx, db, rows, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary
	if s.RowsTotal != 5 || s.RowsReplayed != 2 || s.RowsSkipped != 2 || s.RowsErrored != 1 {
		t.Fatalf("summary = %+v", s)
	}
	// Most recent first: id 4, 3, 2, 1, 0.
	for i, id := range []int64{4, 3, 2, 1, 0} {
		if rep.Results[i].ID != id {
			t.Errorf("result %d is id %d, want %d", i, rep.Results[i].ID, id)
		}
	}
	r4, r3 := rep.Results[0], rep.Results[1]
	if *r4.Jaccard != 1 || !*r4.Top1Match || r4.Over2xLatency {
		t.Errorf("unchanged row = %+v", r4)
	}
	if math.Abs(*r3.Jaccard-1.0/3) > 1e-9 || *r3.Top1Match || r3.CapturedCount != 2 || r3.CurrentCount != 2 {
		t.Errorf("moved row = %+v", r3)
	}
	if !r3.Over2xLatency {
		t.Errorf("a row captured at 0.001ms must be over 2x now: %+v", r3)
	}
	if rep.Results[2].Reason != "empty query" || !strings.Contains(rep.Results[3].ErrorMessage, "NUL") {
		t.Errorf("skip/error = %+v / %+v", rep.Results[2], rep.Results[3])
	}
	if r0 := rep.Results[4]; r0.Status != Skipped || r0.Reason != RedactedReason || r0.Jaccard != nil {
		t.Errorf("redacted row = %+v, want skipped as %q", r0, RedactedReason)
	}
	if math.Abs(s.MeanJaccard-(1+1.0/3)/2) > 1e-9 || s.Top1StabilityRate != 0.5 || s.RowsOver2xLatency != 1 {
		t.Errorf("summary = %+v", s)
	}
	if got := TopRegressions(rep.Results, 5); len(got) != 1 || got[0].ID != 3 {
		t.Errorf("regressions = %+v", got)
	}

	limited, err := Run(ctx, db, rows, Options{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if limited.Summary.RowsTotal != 1 || limited.Results[0].ID != 4 {
		t.Errorf("--limit 1 replayed %+v", limited.Results)
	}
}

func TestReplayEmptySetsAgree(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	rows := []baseline.Row{row(t, `{"schema_version":1,"id":1,"tool_name":"query","query":"nothing matches zzqx","retrieved_slugs":[]}`)}
	rep, err := Run(context.Background(), DB{Q: b.Pool}, rows, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; r.Status != Replayed || *r.Jaccard != 1 || !*r.Top1Match {
		t.Errorf("two empty sets = %+v, want Jaccard 1 and top-1 match", r)
	}
}

// A database that cannot be reached ends the replay at the first row that
// finds it gone, naming the line, instead of counting every later row as
// errored and reporting a comparison of nothing.
func TestReplayStopsWhenTheDatabaseIsGone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	pool, err := pgxpool.New(ctx, fmt.Sprintf("postgres://nobody@%s/none?connect_timeout=5", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rows := []baseline.Row{
		row(t, `{"schema_version":1,"id":1,"tool_name":"search","query":"alpha","created_at":"2025-01-02T00:00:00Z","retrieved_slugs":[]}`),
		row(t, `{"schema_version":1,"id":2,"tool_name":"search","query":"beta","created_at":"2025-01-01T00:00:00Z","retrieved_slugs":[]}`),
	}
	rep, err := Run(ctx, DB{Q: pool}, rows, Options{})
	if err == nil || !strings.Contains(err.Error(), "the database cannot be reached") || !strings.Contains(err.Error(), "line") {
		t.Fatalf("Run against a server that is not there: %v, want it to stop naming the line", err)
	}
	if rep.Summary.RowsErrored != 0 || len(rep.Results) != 0 {
		t.Errorf("report %+v: the failed row is the error, not an errored row", rep.Summary)
	}
}

// emptySearcher answers every search with no result.
type emptySearcher struct{}

func (emptySearcher) Keyword(context.Context, string, search.Options, search.Tuning) (*search.Response, error) {
	return &search.Response{}, nil
}

func (emptySearcher) Hybrid(context.Context, string, search.Options, search.Tuning) (*search.Response, error) {
	return &search.Response{}, nil
}

// A row whose id was replayed already (a file concatenated twice) is
// skipped, not counted again.
func TestReplaySkipsASecondCopyOfARow(t *testing.T) {
	t.Parallel()
	line := `{"schema_version":1,"id":7,"tool_name":"search","query":"alpha","created_at":"2025-01-02T00:00:00Z","retrieved_slugs":[]}`
	rows := []baseline.Row{row(t, line), row(t, line), row(t, `{"schema_version":1,"id":8,"tool_name":"search","query":"beta","retrieved_slugs":[]}`)}
	rep, err := Run(context.Background(), emptySearcher{}, rows, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Summary; s.RowsReplayed != 2 || s.RowsSkipped != 1 {
		t.Errorf("summary %+v, want 2 replayed and the copy skipped", s)
	}
	var reasons []string
	for _, r := range rep.Results {
		if r.Status == Skipped {
			reasons = append(reasons, r.Reason)
		}
	}
	if len(reasons) != 1 || reasons[0] != DuplicateReason {
		t.Errorf("skip reasons %q, want one %q", reasons, DuplicateReason)
	}
}
