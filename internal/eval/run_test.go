package eval

import (
	"context"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/search"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

type hybrid struct{ q search.Querier }

func (h hybrid) Search(ctx context.Context, q string, k int) ([]Doc, error) {
	r, err := search.Hybrid(ctx, h.q, q, nil, search.Options{Limit: k}, search.Tuning{})
	if err != nil {
		return nil, err
	}
	out := make([]Doc, len(r.Results))
	for i, x := range r.Results {
		out[i] = Doc{x.SourceID, x.Slug}
	}
	return out, nil
}

// TestRunAgainstABrain checks the source-qualified compare end to end: the
// same slug in another source is not the relevant page.
func TestRunAgainstABrain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	if err := b.AddSource(ctx, "team", "team"); err != nil {
		t.Fatal(err)
	}
	pages := []struct{ source, slug, body string }{
		{"default", "people/alice-example", "# Alice\n\nAlice founded a fintech company called widget-co.\n"},
		{"default", "notes/gardening", "# Gardening\n\nTomatoes need sun and water.\n"},
		{"team", "people/zed-example", "# Zed\n\nZed grows tomatoes in the team garden.\n"},
	}
	for _, p := range pages {
		if _, err := ingest.PutPage(ctx, b, p.slug, []byte(p.body), ingest.Options{Source: p.source}); err != nil {
			t.Fatal(err)
		}
	}
	q, err := ParseQrels("t.json", []byte(`{"schema_version":1,"queries":[
{"query_id":"fin","query":"fintech founder alice","relevant_slugs":["people/alice-example"],"first_relevant_slug":"people/alice-example"},
{"query_id":"tom","query":"zed tomatoes","relevant":[{"source_id":"default","slug":"people/zed-example"}]}
]}`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, hybrid{b.Pool}, q, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	fin, tom := rep.PerQuery[0], rep.PerQuery[1]
	if !fin.FirstRelevantHit || fin.ExpectedTop1Hit == nil || !*fin.ExpectedTop1Hit || fin.RecallAtK != 1 {
		t.Errorf("fin = %+v", fin)
	}
	if len(tom.Retrieved) == 0 || tom.Retrieved[0] != "team::people/zed-example" {
		t.Fatalf("tom retrieved %v, want team::people/zed-example first", tom.Retrieved)
	}
	if tom.FirstRelevantHit || tom.RecallAtK != 0 {
		t.Errorf("a hit from the wrong source counted: %+v", tom)
	}
	if rep.RecallAtK != 0.5 || rep.FirstRelevantHitRate != 0.5 || *rep.ExpectedTop1HitRate != 1 {
		t.Errorf("report = %+v", rep)
	}
}
