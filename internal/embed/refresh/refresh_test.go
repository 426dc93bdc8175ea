package refresh_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/embed/refresh"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// debianDocs are n Debian package pages.
func debianDocs(t *testing.T, n int) []ingest.Doc {
	t.Helper()
	var docs []ingest.Doc
	for name, body := range testdb.DebianPages(t, n) {
		docs = append(docs, ingest.Doc{Slug: strings.TrimSuffix(name, ".md"), Data: []byte(body)})
	}
	return docs
}

// load imports n Debian package pages.
func load(t *testing.T, b *brain.Brain, n int, opts ingest.Options) {
	t.Helper()
	docs := debianDocs(t, n)
	if sum, err := ingest.ImportDocs(context.Background(), b, docs, opts); err != nil || sum.Added != n {
		t.Fatalf("importing %d pages: %+v %v", n, sum, err)
	}
}

// outdated300 is 300 Debian package pages, imported and then outdated
// (outdateSQL), built once per test binary: every subtest of
// TestEmbedAllInterruptedKeepsOldVectorsAndResumes starts from a clone.
var outdated300 = &dbtest.Fixture{Name: "outdated300", Build: func(ctx context.Context, url string) error {
	b, err := brain.Open(ctx, url)
	if err != nil {
		return err
	}
	defer b.Close()
	if sum, err := ingest.ImportDocs(ctx, b, outdatedDocs, ingest.Options{}); err != nil || sum.Added != len(outdatedDocs) {
		return fmt.Errorf("importing %d pages: %+v %w", len(outdatedDocs), sum, err)
	}
	_, err = b.Pool.Exec(ctx, outdateSQL)
	return err
}}

// outdatedDocs are outdated300's pages, read by outdatedBrain before the
// fixture is first built.
var (
	outdatedOnce sync.Once
	outdatedDocs []ingest.Doc
)

// outdatedBrain is a clone of outdated300 for t; it checks that every
// chunk holds an old vector.
func outdatedBrain(t *testing.T) *brain.Brain {
	t.Helper()
	outdatedOnce.Do(func() { outdatedDocs = debianDocs(t, 300) })
	if outdatedDocs == nil {
		t.Fatal("the Debian pages could not be read: see the first test that asked for them")
	}
	b, err := brain.Open(context.Background(), outdated300.Clone(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if fresh, old, none := counts(t, b); fresh != 0 || none != 0 || old == 0 {
		t.Fatalf("outdating: fresh %d, old %d, none %d", fresh, old, none)
	}
	return b
}

// counts says how many chunks hold the vector the local embedder gives
// today (fresh), another vector (old), or none.
func counts(t *testing.T, b *brain.Brain) (fresh, old, none int) {
	t.Helper()
	if err := b.Pool.QueryRow(context.Background(), `SELECT
		count(*) FILTER (WHERE embedding = brain.embed_tsvector(tsv)),
		count(*) FILTER (WHERE embedding <> brain.embed_tsvector(tsv)),
		count(*) FILTER (WHERE embedding IS NULL) FROM brain.chunks`).Scan(&fresh, &old, &none); err != nil {
		t.Fatal(err)
	}
	return fresh, old, none
}

// outdateSQL gives every chunk a vector the local embedder would not give
// it, as a change of the embedder's arithmetic would.
const outdateSQL = `UPDATE brain.chunks SET embedding = array_fill(0.5::real, ARRAY[vector_dims(embedding)])::vector`

// TestEmbedAllInterruptedKeepsOldVectorsAndResumes stops `embed --all` at
// several points, by cancelling it and by terminating its session: no chunk
// is ever without a vector, pages not reached keep their old ones, the run
// is reported as interrupted, and Resume finishes it.
func TestEmbedAllInterruptedKeepsOldVectorsAndResumes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		batches int // batches done before the interruption
		how     string
	}{
		{"cancelled after one batch", 1, "cancel"},
		{"cancelled after four batches", 4, "cancel"},
		{"session terminated after two batches", 2, "terminate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := outdatedBrain(t)
			runCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			calls := 0
			var hookErr error
			var killed []int32
			_, err := refresh.Run(runCtx, b, refresh.Options{All: true, Batch: 40, Progress: func(done, total int) {
				calls++
				if calls != tc.batches {
					return
				}
				if tc.how == "cancel" {
					cancel()
					return
				}
				hookErr = b.Pool.QueryRow(ctx, `WITH h AS MATERIALIZED (
						SELECT DISTINCT l.pid FROM pg_locks l
						WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
					SELECT coalesce(array_agg(pid) FILTER (WHERE pg_terminate_backend(pid)), '{}') FROM h`).Scan(&killed)
				if hookErr == nil && len(killed) != 1 {
					hookErr = fmt.Errorf("terminated %d sessions, want the run's one", len(killed))
				}
			}})
			if hookErr != nil {
				t.Fatal(hookErr)
			}
			if err == nil {
				t.Fatal("an interrupted embed --all returned no error")
			}
			if !strings.Contains(err.Error(), "embed --all' again to resume") {
				t.Errorf("error %q does not say how to resume", err)
			}
			fresh, old, none := counts(t, b)
			if none != 0 || fresh == 0 || old == 0 {
				t.Fatalf("after the interruption: fresh %d, old %d, none %d; want some of each kind but none without a vector", fresh, old, none)
			}
			// A terminated backend holds its locks until it has exited.
			waitGone(t, b, killed)
			run, err := refresh.Open(ctx, b)
			if err != nil || run == nil || run.Running || run.DonePageID == 0 || run.DonePageID >= run.LastPageID {
				t.Fatalf("open run = %+v (%v), want an interrupted one part-way", run, err)
			}
			// Counts of pages, not ids (doctor prints them).
			var donePages, allPages int64
			if err := b.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE id <= $1), count(*) FROM brain.pages`, run.DonePageID).Scan(&donePages, &allPages); err != nil {
				t.Fatal(err)
			}
			if run.PagesDone != donePages || run.Pages != allPages || run.PagesDone == 0 || run.PagesDone >= run.Pages {
				t.Errorf("open run counts %d of %d pages, want %d of %d", run.PagesDone, run.Pages, donePages, allPages)
			}
			// Every page up to the recorded point is done, none after it.
			var wrongBefore, freshAfter int
			if err := b.Pool.QueryRow(ctx, `SELECT
				count(*) FILTER (WHERE page_id <= $1 AND embedding <> brain.embed_tsvector(tsv)),
				count(*) FILTER (WHERE page_id > $1 AND embedding = brain.embed_tsvector(tsv)) FROM brain.chunks`, run.DonePageID).Scan(&wrongBefore, &freshAfter); err != nil {
				t.Fatal(err)
			}
			if wrongBefore != 0 || freshAfter != 0 {
				t.Errorf("recorded progress page %d: %d chunks before it still old, %d after it already new", run.DonePageID, wrongBefore, freshAfter)
			}
			n, resumed, err := refresh.Resume(ctx, b, refresh.Options{})
			if err != nil || !resumed || int(n) != old {
				t.Fatalf("resume: %d chunks, resumed %v, %v; want %d", n, resumed, err, old)
			}
			if fresh, old, none := counts(t, b); old != 0 || none != 0 || fresh == 0 {
				t.Fatalf("after resuming: fresh %d, old %d, none %d", fresh, old, none)
			}
			if run, err := refresh.Open(ctx, b); err != nil || run != nil {
				t.Fatalf("open run after resuming = %+v (%v), want none", run, err)
			}
		})
	}
}

// flaky is a client-side embedder (as a remote provider would be) that
// fails every call after the first ok ones.
type flaky struct {
	ok    int32
	calls atomic.Int32
}

func (f *flaky) Name() string  { return "openai" }
func (f *flaky) Model() string { return "fake" }
func (f *flaky) Dim() int      { return 4 }
func (f *flaky) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if f.calls.Add(1) > f.ok {
		return nil, errors.New("provider unavailable")
	}
	out := make([][]float32, len(texts))
	for i, s := range texts {
		h := fnv.New32a()
		h.Write([]byte(s))
		out[i] = []float32{1, float32(h.Sum32() % 1000), float32(len(s)), 2}
	}
	return out, nil
}

// TestEmbedAllRemoteFailureKeepsOldVectors: a provider failing half-way
// through `embed --all` leaves every chunk a vector (new ones where the run
// got to, old ones after), and a second run resumes and finishes.
func TestEmbedAllRemoteFailureKeepsOldVectors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t, testdb.Options{Dim: 4, Embedder: "openai"})
	load(t, b, 120, ingest.Options{Embedder: &flaky{ok: 1 << 30}})
	if _, err := b.Pool.Exec(ctx, `UPDATE brain.chunks SET embedding = '[0,0,0,1]'`); err != nil {
		t.Fatal(err)
	}
	oldCount := func() (old, none int) {
		if err := b.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE embedding = '[0,0,0,1]'), count(*) FILTER (WHERE embedding IS NULL)
			FROM brain.chunks`).Scan(&old, &none); err != nil {
			t.Fatal(err)
		}
		return old, none
	}
	total, _ := oldCount()
	_, err := refresh.Run(ctx, b, refresh.Options{All: true, Batch: 30, Embedder: &flaky{ok: 2}})
	if err == nil || !strings.Contains(err.Error(), "provider unavailable") {
		t.Fatalf("embed --all with a failing provider: %v", err)
	}
	old, none := oldCount()
	if none != 0 || old == 0 || old == total {
		t.Fatalf("after the failure: %d of %d chunks old, %d without a vector; want some old, none without", old, total, none)
	}
	n, err := refresh.Run(ctx, b, refresh.Options{All: true, Batch: 30, Embedder: &flaky{ok: 1 << 30}})
	if err != nil || int(n) != old {
		t.Fatalf("second embed --all: %d chunks (%v), want the %d left", n, err, old)
	}
	if old, none := oldCount(); old != 0 || none != 0 {
		t.Fatalf("after resuming: %d old, %d without a vector", old, none)
	}
	// A finished run is not resumed: a new --all starts over.
	n, err = refresh.Run(ctx, b, refresh.Options{All: true, Batch: 30, Embedder: &flaky{ok: 1 << 30}})
	if err != nil || int(n) != total {
		t.Fatalf("a new embed --all recomputed %d chunks (%v), want all %d", n, err, total)
	}
}

// waitGone waits until the server processes pids have exited.
func waitGone(t *testing.T, b *brain.Brain, pids []int32) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var alive int
		if err := b.Pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE pid = ANY ($1)`, pids).Scan(&alive); err != nil {
			t.Fatal(err)
		}
		if alive == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("terminated sessions %v still running after 30s", pids)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Chunks without a word (a page "!!!") have no local vector. They used to
// be picked first by every batch and counted as embedded: `embed --stale`
// said it embedded them, doctor kept asking for it, and with more of them
// than a batch the chunks after them were never reached.
func TestStaleFillSkipsChunksWithoutWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	var docs []ingest.Doc
	for i := range 5 {
		docs = append(docs, ingest.Doc{Slug: fmt.Sprintf("a%d", i), Data: []byte("---\ntitle: \"!!!\"\n---\n?!\n")})
	}
	docs = append(docs, ingest.Doc{Slug: "z1", Data: []byte("# Zebra\n\nstripes\n")}, ingest.Doc{Slug: "z2", Data: []byte("# Yak\n\nwool\n")})
	if sum, err := ingest.ImportDocs(ctx, b, docs, ingest.Options{NoEmbed: true}); err != nil || sum.Added != len(docs) {
		t.Fatalf("importing: %+v %v", sum, err)
	}
	var missing int64
	if err := b.Pool.QueryRow(ctx, `SELECT brain.missing_embeddings()`).Scan(&missing); err != nil {
		t.Fatal(err)
	}
	if missing != 2 {
		t.Fatalf("missing_embeddings() = %d before the fill, want 2 (the pages with words)", missing)
	}
	n, err := refresh.Run(ctx, b, refresh.Options{Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("Run embedded %d chunks, want 2", n)
	}
	var left, wordy int64
	if err := b.Pool.QueryRow(ctx, `SELECT brain.missing_embeddings(),
		(SELECT count(*) FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id WHERE p.slug IN ('z1', 'z2') AND c.embedding IS NULL)`).Scan(&left, &wordy); err != nil {
		t.Fatal(err)
	}
	if left != 0 || wordy != 0 {
		t.Errorf("after the fill: missing_embeddings() = %d, chunks of z1/z2 without a vector = %d; want 0 and 0", left, wordy)
	}
}
