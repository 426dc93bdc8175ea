package contradictions

import (
	"context"

	"github.com/pgbrain/pgbrain/internal/search"
)

// Hybrid is hybrid search as replay.DB runs it (brain.search).
type Hybrid interface {
	Hybrid(ctx context.Context, q string, o search.Options, t search.Tuning) (*search.Response, error)
}

// FromSearch retrieves with bare hybrid search: default tuning, one chunk
// per page, no snippets, so a probe run ranks as a plain query does.
func FromSearch(h Hybrid) Retriever { return searchRetriever{h} }

type searchRetriever struct{ h Hybrid }

func (s searchRetriever) Retrieve(ctx context.Context, q string, k int) ([]int64, error) {
	resp, err := s.h.Hybrid(ctx, q, search.Options{Limit: min(k, search.MaxLimit), NoSnippets: true}, search.Tuning{})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(resp.Results))
	for _, r := range resp.Results {
		ids = append(ids, r.ChunkID)
	}
	return ids, nil
}
