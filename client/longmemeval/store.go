package longmemeval

import (
	"context"

	"github.com/pgbrain/pgbrain/client/brain"
	"github.com/pgbrain/pgbrain/client/embed"
	"github.com/pgbrain/pgbrain/client/ingest"
	"github.com/pgbrain/pgbrain/client/search"
)

// BrainStore runs a benchmark inside a brain, one private source per
// question, removed with its pages when the question is done.
type BrainStore struct {
	B *brain.Brain
	// Embedder is the brain's client-side embedder (nil for the local one).
	Embedder embed.Embedder
	// KeywordOnly skips embeddings and the vector path.
	KeywordOnly bool
}

// AddSource creates the private source.
func (s BrainStore) AddSource(ctx context.Context, id, name string) error {
	return s.B.AddSource(ctx, id, name)
}

// RemoveSource deletes the source and its pages.
func (s BrainStore) RemoveSource(ctx context.Context, id string) error {
	return s.B.RemoveSource(ctx, id, true)
}

// PutPage stores one session page.
func (s BrainStore) PutPage(ctx context.Context, source, slug string, md []byte) error {
	_, err := ingest.PutPage(ctx, s.B, slug, md, ingest.Options{Source: source, Embedder: s.Embedder, NoEmbed: s.KeywordOnly})
	return err
}

// Search runs hybrid search (or keyword-only) restricted to source.
func (s BrainStore) Search(ctx context.Context, source, q string, k int) ([]string, error) {
	o := search.Options{Limit: min(k, search.MaxLimit), SourceIDs: []string{source}}
	var resp *search.Response
	var err error
	if s.KeywordOnly {
		resp, err = search.Keyword(ctx, s.B.Pool, q, o, search.Tuning{})
	} else {
		var qvec []float32
		if s.Embedder != nil {
			if vs, eerr := s.Embedder.Embed(ctx, []string{q}); eerr == nil && len(vs) == 1 {
				qvec = vs[0]
			}
		}
		resp, err = search.Hybrid(ctx, s.B.Pool, q, qvec, o, search.Tuning{})
	}
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(resp.Results))
	seen := map[string]bool{}
	for _, r := range resp.Results {
		if !seen[r.Slug] {
			seen[r.Slug] = true
			out = append(out, r.Slug)
		}
	}
	return out, nil
}
