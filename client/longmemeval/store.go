package longmemeval

import (
	"context"
	"time"

	"github.com/pgbrain/pgbrain/client/ingest"
)

// Store is what a run needs: a brain that holds one question's haystack at
// a time. *Scratch is the one pgbrain uses.
type Store interface {
	// Reset empties the store: nothing of an earlier question may remain.
	Reset(ctx context.Context) error
	// Import stores a question's haystack sessions as pages.
	Import(ctx context.Context, docs []ingest.Doc) error
	// Search returns the slugs of the best k pages, best first.
	Search(ctx context.Context, query string, k int) ([]string, error)
}

// Timing is where one question's time went.
type Timing struct {
	QuestionID string
	Reset      time.Duration
	Import     time.Duration
	Search     time.Duration
}

// Total is the question's time: reset, import and search.
func (t Timing) Total() time.Duration { return t.Reset + t.Import + t.Search }

var _ Store = (*Scratch)(nil)
