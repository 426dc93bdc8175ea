package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/search"
)

// TestReaderRanksAsTheOwner runs every query of sample/qrels.json over the
// sample brain as the connecting owner and as pgbrain_reader (the role of
// query, search and the eval commands): the result lists must be
// identical, chunk for chunk and score for score. A grant missing on
// something the ranking reads, a page row security hides from the reader,
// or a tie ordered by whichever plan the role gets would each show here.
func TestReaderRanksAsTheOwner(t *testing.T) {
	t.Parallel()
	url := sampleBrainURL(t)
	var file struct {
		Queries []sampleQrelsEntry `json:"queries"`
	}
	if err := json.Unmarshal([]byte(readFile(t, sampleQrels)), &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Queries) == 0 {
		t.Fatalf("%s holds no queries", sampleQrels)
	}
	ctx := context.Background()
	ranked := func(role string) map[string]string {
		t.Helper()
		b, err := brain.OpenAs(ctx, url, brain.Access{Role: role})
		if err != nil {
			t.Fatalf("opening the sample brain as %q: %v", role, err)
		}
		defer b.Close()
		var who string
		if err := b.Pool.QueryRow(ctx, `SELECT current_user`).Scan(&who); err != nil {
			t.Fatal(err)
		}
		if role != "" && who != role {
			t.Fatalf("opened as %q, the server sees %q", role, who)
		}
		s, err := searcherFor(b)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, q := range file.Queries {
			for _, lim := range []int{5, 10, search.MaxLimit} {
				// Snippets are made after the ranking, from the chunks
				// it chose, and are not compared: leaving them out saves a
				// third of a search at limit 100.
				resp, err := s.Hybrid(ctx, q.Query, search.Options{Limit: lim, NoSnippets: true}, search.Tuning{})
				if err != nil {
					t.Fatalf("%s as %q: %v", q.ID, role, err)
				}
				var lines []string
				for i, r := range resp.Results {
					lines = append(lines, fmt.Sprintf("%d %s::%s chunk %d score %.17g kw %v vec %v",
						i+1, r.SourceID, r.Slug, r.ChunkID, r.Score, deref(r.KeywordRank), deref(r.VectorRank)))
				}
				out[fmt.Sprintf("%s (limit %d)", q.ID, lim)] = strings.Join(lines, "\n")
			}
		}
		return out
	}
	owner := ranked("")
	reader := ranked(brain.RoleReader)
	for key, want := range owner {
		if want == "" {
			t.Errorf("%s: the owner found nothing", key)
		}
		if got := reader[key]; got != want {
			t.Errorf("%s: the reader ranks differently\nreader:\n%s\nowner:\n%s", key, got, want)
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return "-"
	}
	return *p
}
