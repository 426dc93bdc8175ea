package search

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestCheckQuery(t *testing.T) {
	tests := []struct {
		name string
		q    string
		ok   bool
	}{
		{"plain", "http client timeout", true},
		{"at the limit", strings.Repeat("é", MaxQueryChars), true},
		{"over the limit", strings.Repeat("a", MaxQueryChars+1), false},
		{"invalid UTF-8", "a\xffb", false},
		{"NUL", "a\x00b", false},
		{"empty", "", true},
	}
	for _, tc := range tests {
		err := CheckQuery(tc.q)
		if (err == nil) != tc.ok {
			t.Errorf("%s: CheckQuery error = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadQuery) {
			t.Errorf("%s: error %v does not match ErrBadQuery", tc.name, err)
		}
	}
}

func TestHybridClient(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	vec := []float32{1, 0, 0, 0, 0, 0, 0, 0}
	tests := []struct {
		name        string
		run         func() (*Response, error)
		wantVector  bool
		wantDetail  string
		wantFirst   string
		wantTool    string
		onlySources []string
	}{
		{"client vector", func() (*Response, error) {
			return Hybrid(ctx(t), db, "zebra", vec, Options{}, Tuning{})
		}, true, "medium", "a/alpha", "query", nil},
		{"local brain embeds in SQL", func() (*Response, error) {
			return Hybrid(ctx(t), db, "zebra", nil, Options{}, Tuning{})
		}, true, "medium", "a/alpha", "query", nil},
		{"auto detail", func() (*Response, error) {
			return Hybrid(ctx(t), db, "when was zebra added", nil, Options{}, Tuning{})
		}, true, "high", "a/alpha", "query", nil},
		{"keyword search", func() (*Response, error) {
			return Keyword(ctx(t), db, "zebra", Options{}, Tuning{})
		}, false, "medium", "a/alpha", "search", nil},
		{"source filter excludes everything", func() (*Response, error) {
			return Hybrid(ctx(t), db, "zebra", vec, Options{SourceIDs: []string{"nowhere"}}, Tuning{})
		}, true, "medium", "", "query", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.run()
			if err != nil {
				t.Fatal(err)
			}
			if r.Meta.VectorEnabled != tc.wantVector || *r.Meta.DetailResolved != tc.wantDetail || r.Meta.Tool != tc.wantTool {
				t.Fatalf("meta = %+v (detail %s), want vector %v detail %s tool %s", r.Meta, *r.Meta.DetailResolved, tc.wantVector, tc.wantDetail, tc.wantTool)
			}
			first := ""
			if len(r.Results) > 0 {
				first = r.Results[0].Slug
			}
			if first != tc.wantFirst {
				t.Fatalf("first result %q, want %q", first, tc.wantFirst)
			}
			if r.Results == nil {
				t.Fatal("Results is nil; JSON would print null instead of []")
			}
		})
	}
}

func TestRemoteEmbedderFallsBackToKeyword(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8, Embedder: "openai"})
	seed(t, b.Pool, fixture)
	// No vector from the client (its embedder failed): keyword-only.
	r, err := Hybrid(ctx(t), b.Pool, "zebra", nil, Options{}, Tuning{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Meta.VectorEnabled {
		t.Fatal("vector_enabled = true without a query vector on an openai brain")
	}
	var got []string
	for _, x := range r.Results {
		got = append(got, x.Slug)
		if x.VectorRank != nil {
			t.Fatalf("%s has a vector rank in a keyword-only search", x.Slug)
		}
	}
	if !slices.Equal(got, []string{"a/alpha", "b/bravo"}) {
		t.Fatalf("results %v, want [a/alpha b/bravo]", got)
	}
	// brain.query in psql does the same.
	var n int
	var vr *int
	if err := b.Pool.QueryRow(ctx(t), `SELECT count(*), max(vector_rank) FROM brain.query('zebra', 10)`).Scan(&n, &vr); err != nil {
		t.Fatal(err)
	}
	if n != 2 || vr != nil {
		t.Fatalf("brain.query: %d rows, max vector rank %v; want 2 keyword-only rows", n, vr)
	}
}

// NoSnippets ranks exactly as a normal search and only leaves the snippets
// out, in both the hybrid and the keyword path.
func TestNoSnippets(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	for _, tc := range []struct {
		name string
		run  func(o Options) (*Response, error)
	}{
		{"hybrid", func(o Options) (*Response, error) { return Hybrid(ctx(t), db, "zebra", nil, o, Tuning{}) }},
		{"keyword", func(o Options) (*Response, error) { return Keyword(ctx(t), db, "zebra", o, Tuning{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			with, err := tc.run(Options{})
			if err != nil {
				t.Fatal(err)
			}
			without, err := tc.run(Options{NoSnippets: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(with.Results) < 2 || len(with.Results) != len(without.Results) {
				t.Fatalf("%d results with snippets, %d without; want the same, at least 2", len(with.Results), len(without.Results))
			}
			for i := range with.Results {
				w, o := with.Results[i], without.Results[i]
				if w.Snippet == "" || o.Snippet != "" {
					t.Errorf("result %d: snippet %q with, %q without; want text, then none", i, w.Snippet, o.Snippet)
				}
				o.Snippet = w.Snippet
				wj, _ := json.Marshal(w)
				oj, _ := json.Marshal(o)
				if string(oj) != string(wj) {
					t.Errorf("result %d differs beyond its snippet:\n%s\n%s", i, wj, oj)
				}
			}
		})
	}
}
