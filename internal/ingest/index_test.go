package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/search"
	"github.com/pgbrain/pgbrain/testdb"
)

// The two-source brain: twoBase Debian package pages imported into source
// default (a small import, index kept) and an empty source incoming. It is
// built once and cloned for each test; the pages after the base ones feed
// the bulk imports. The base stays small enough that a search of it for
// "library" finds fewer keyword hits than it shows, so the local embedder's
// vector arm fills the rest and its use can be seen (searchNow).
const twoBase, twoBulkMax = 60, 440

var twoSourcesBase = &dbtest.Fixture{Name: "two_sources", Build: func(ctx context.Context, url string) error {
	dir, err := os.MkdirTemp("", "pgbrain-two-sources-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	base := twoSourcesPages.base
	for name, body := range base {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	b, err := brain.Open(ctx, url)
	if err != nil {
		return err
	}
	defer b.Close()
	if sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{}); err != nil || sum.Added != len(base) {
		return fmt.Errorf("importing the base pages: %+v %v", sum, err)
	}
	_, err = b.Pool.Exec(ctx, `INSERT INTO brain.sources (id, name) VALUES ('incoming', 'incoming')`)
	return err
}}

// twoSourcesPages splits the Debian pages once: the base the fixture
// imports, and the sorted rest that the bulk imports take from.
var twoSourcesPages struct {
	once sync.Once
	base map[string]string
	rest []string // file names, sorted
	all  map[string]string
}

// twoSources returns a clone of the two-source brain and a directory of
// bulk more Debian pages for source incoming, which a bulk import
// (threshold 50) suspends the index for.
func twoSources(t *testing.T, bulk int) (*brain.Brain, string) {
	t.Helper()
	if bulk > twoBulkMax {
		t.Fatalf("twoSources: %d bulk pages asked for, at most %d", bulk, twoBulkMax)
	}
	p := &twoSourcesPages
	p.once.Do(func() {
		p.all = testdb.DebianPages(t, twoBase+twoBulkMax)
		names := make([]string, 0, len(p.all))
		for k := range p.all {
			names = append(names, k)
		}
		sort.Strings(names)
		p.base = map[string]string{}
		for _, name := range names[:twoBase] {
			p.base[name] = p.all[name]
		}
		p.rest = names[twoBase:]
	})
	if len(p.base) != twoBase {
		t.Fatal("twoSources: the Debian pages could not be read (see the first test that failed)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := brain.Open(ctx, twoSourcesBase.Clone(t))
	if err != nil {
		t.Fatalf("opening the two-source brain: %v", err)
	}
	t.Cleanup(b.Close)
	rest := map[string]string{}
	for _, name := range p.rest[:bulk] {
		rest[name] = p.all[name]
	}
	dir := t.TempDir()
	writeFiles(t, dir, rest)
	return b, dir
}

// searchState is what a search of the base source shows.
type searchState struct {
	status        string
	vectorEnabled bool
	vectorRanked  int // results that came from the vector arm
	results       int
}

func searchNow(t *testing.T, b *brain.Brain) searchState {
	t.Helper()
	r, err := search.Hybrid(context.Background(), b.Pool, "library", nil,
		search.Options{SourceIDs: []string{"default"}}, search.Tuning{})
	if err != nil {
		t.Fatalf("searching: %v", err)
	}
	s := searchState{status: r.Meta.VectorIndex, vectorEnabled: r.Meta.VectorEnabled, results: len(r.Results)}
	for _, x := range r.Results {
		if x.VectorRank != nil {
			s.vectorRanked++
		}
	}
	return s
}

func vectorsOf(t *testing.T, b *brain.Brain, source string) (with, without int) {
	t.Helper()
	if err := b.Pool.QueryRow(context.Background(), `SELECT count(c.embedding), count(*) - count(c.embedding)
		FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id WHERE p.source_id = $1`, source).Scan(&with, &without); err != nil {
		t.Fatal(err)
	}
	return with, without
}

// TestBulkImportKeepsSearchesInteractive: while a bulk import holds the
// vector index suspended, searches answer by keyword only and say so (no
// scan of every vector), nothing else may rebuild the index, and at the end
// the index is back and serves searches.
func TestBulkImportKeepsSearchesInteractive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, dir := twoSources(t, 400)
	if s := searchNow(t, b); s.status != "ready" || !s.vectorEnabled || s.vectorRanked == 0 {
		t.Fatalf("before the bulk import: %+v, want the vector arm in use", s)
	}
	var (
		once     sync.Once
		during   searchState
		status   string
		busy     bool
		restore  error
		vecRows  int
		checkErr error
	)
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{Source: "incoming", BulkThreshold: 50, BatchPages: 50, Writers: 1,
		Progress: func(done, total int) {
			if done == 0 || done == total {
				return
			}
			once.Do(func() {
				during = searchNow(t, b)
				if status, checkErr = ingest.IndexStatus(ctx, b); checkErr != nil {
					return
				}
				if busy, checkErr = ingest.IndexBusy(ctx, b); checkErr != nil {
					return
				}
				_, restore = ingest.RestoreIndex(ctx, b)
				checkErr = b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.vector_search(brain.embed_local('compression'), 10)`).Scan(&vecRows)
			})
		}})
	if err != nil || sum.Added != 400 {
		t.Fatalf("bulk import: %+v %v", sum, err)
	}
	if checkErr != nil {
		t.Fatal(checkErr)
	}
	if status != "suspended" || !busy || !errors.Is(restore, ingest.ErrIndexBusy) {
		t.Errorf("during the import: status %q, busy %v, RestoreIndex %v; want suspended, busy, ErrIndexBusy", status, busy, restore)
	}
	if during.status != "suspended" || during.vectorEnabled || during.vectorRanked != 0 || during.results == 0 || vecRows != 0 {
		t.Errorf("search during the import: %+v, vector_search rows %d; want keyword-only results flagged suspended", during, vecRows)
	}
	if s := searchNow(t, b); s.status != "ready" || !s.vectorEnabled || s.vectorRanked == 0 {
		t.Errorf("after the bulk import: %+v, want the vector arm back", s)
	}
	var records int
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.vector_index_state`).Scan(&records); err != nil || records != 0 {
		t.Errorf("brain.vector_index_state holds %d rows after the import (%v)", records, err)
	}
}

// TestInterruptedBulkImportLeavesASearchableBrain interrupts bulk imports
// at several points, by cancelling them and by terminating their database
// sessions: each time the base source keeps every vector, the index is back
// and serves searches, and a second import completes the source.
func TestInterruptedBulkImportLeavesASearchableBrain(t *testing.T) {
	t.Parallel()
	// 150 pages in batches of 25 over a bulk threshold of 50: a bulk import
	// (the index is suspended) of six batches, so each interruption point
	// below (after 1, 50 and 75 files) has finished batches before it and
	// unfinished ones after it.
	const bulk = 150
	tests := []struct {
		name  string
		after int // files handled when the interruption happens
		how   string
	}{
		{"cancelled after the first batch", 1, "cancel"},
		{"cancelled half-way", bulk / 2, "cancel"},
		{"a writer's session terminated half-way", bulk / 2, "terminate writer"},
		{"the index lock holder's session terminated", bulk / 3, "terminate lock holder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, dir := twoSources(t, bulk)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			withBefore, _ := vectorsOf(t, b, "default")
			var once sync.Once
			var hookErr error
			terminated := make(chan error, 1)
			_, err := ingest.ImportDir(ctx, b, dir, ingest.Options{Source: "incoming", BulkThreshold: 50, BatchPages: 25, Writers: 1,
				Progress: func(done, total int) {
					if done < tc.after {
						return
					}
					once.Do(func() { hookErr = interrupt(b, tc.how, cancel, terminated) })
				}})
			if hookErr != nil {
				t.Fatal(hookErr)
			}
			if tc.how == "terminate writer" {
				if err := <-terminated; err != nil {
					t.Fatalf("terminating the writer: %v", err)
				}
			}
			if tc.how == "terminate lock holder" {
				// The import itself goes on and rebuilds at its end.
				if err != nil {
					t.Fatalf("import after its lock session was terminated: %v", err)
				}
			} else if err == nil {
				t.Fatalf("import interrupted by %s returned no error", tc.how)
			}
			if with, without := vectorsOf(t, b, "default"); with != withBefore || without != 0 {
				t.Errorf("base source has %d chunks with vectors and %d without, want %d and 0", with, without, withBefore)
			}
			if s := searchNow(t, b); s.status != "ready" || s.vectorRanked == 0 {
				t.Errorf("after the interruption: %+v, want vector search back", s)
			}
			sum, err := ingest.ImportDir(context.Background(), b, dir, ingest.Options{Source: "incoming"})
			if err != nil || sum.Added+sum.Unchanged != bulk {
				t.Fatalf("import after the interruption: %+v %v", sum, err)
			}
			if _, without := vectorsOf(t, b, "incoming"); without != 0 {
				t.Errorf("%d incoming chunks have no vector", without)
			}
		})
	}
}

// interrupt stops an import in progress as how says; a writer's session is
// terminated in the background, which reports on terminated.
func interrupt(b *brain.Brain, how string, cancel context.CancelFunc, terminated chan<- error) error {
	ctx := context.Background()
	switch how {
	case "cancel":
		cancel()
		return nil
	case "terminate writer":
		// The writer has just finished a batch (this runs in its progress
		// report): end its session as soon as it runs the next one.
		conn, err := pgx.Connect(ctx, b.Pool.Config().ConnString())
		if err != nil {
			return err
		}
		go func() {
			defer conn.Close(ctx)
			for {
				var n int
				err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
					WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
					  AND state IN ('active', 'idle in transaction')
					  AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')`).Scan(&n)
				if err != nil || n > 0 {
					terminated <- err
					return
				}
			}
		}()
		return nil
	case "terminate lock holder":
		var n int
		err := b.Pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
			WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n)
		if err == nil && n != 1 {
			return fmt.Errorf("terminated %d advisory lock holders, want 1", n)
		}
		return err
	}
	return fmt.Errorf("unknown interruption %q", how)
}
