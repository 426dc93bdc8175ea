package longmemeval

import (
	"context"
	"time"

	"github.com/pgbrain/pgbrain/internal/ingest"
)

// Store is what a run needs: a brain that holds one question's haystack at
// a time. *Scratch is the one pgbrain uses.
type Store interface {
	// Reset empties the store: nothing of an earlier question may remain.
	Reset(ctx context.Context) error
	// Prepare parses a question's haystack sessions for Import. It touches
	// no database, so a run prepares a haystack while Reset runs.
	Prepare(docs []ingest.Doc) *ingest.Prepared
	// Import stores prepared haystack sessions as pages.
	Import(ctx context.Context, p *ingest.Prepared) error
	// Search returns the slugs of the best k pages, best first.
	Search(ctx context.Context, query string, k int) ([]string, error)
}

// DatedSearcher is a Store that also reads the question's date, so date
// words in a question ("last week") can be read relative to it.
type DatedSearcher interface {
	SearchAt(ctx context.Context, query, date string, k int) ([]string, error)
}

// Timing is where one question's time went.
type Timing struct {
	QuestionID string
	Reset      time.Duration
	Import     time.Duration
	Search     time.Duration
}

// Total is the question's time: reset, import and search. Import counts
// everything that is neither (building and preparing the pages, as far as
// that did not overlap the reset, and writing them).
func (t Timing) Total() time.Duration { return t.Reset + t.Import + t.Search }

var _ Store = (*Scratch)(nil)
