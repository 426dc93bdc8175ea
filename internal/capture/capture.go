// Package capture records what the query and search operations returned as
// eval candidates (brain.eval_candidates), for later export and replay.
//
// Capture is fire-and-forget: Record copies what it needs and returns at
// once; scrubbing and the insert run in the background, so a capture never
// changes an operation's result, error or visible latency. A capture that
// fails is recorded in brain.eval_capture_failures with its reason; when the
// database cannot be reached the failure waits in a spool file under
// $PGBRAIN_HOME and is written on the next successful connection. Close
// drains pending captures at process exit with a short timeout; whatever is
// still pending then is spooled, never silently dropped.
package capture

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgbrain/pgbrain/client/evalrow"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
	"github.com/pgbrain/pgbrain/internal/scrub"
	"github.com/pgbrain/pgbrain/internal/search"
)

// DB is what capture needs from a pool (a *pgxpool.Pool satisfies it).
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Timeouts.
const (
	// DrainTimeout bounds Close when its context has no deadline.
	DrainTimeout = 2 * time.Second
	// insertTimeout bounds one capture's database work.
	insertTimeout = 5 * time.Second
	// maxInFlight bounds concurrent inserts so a burst of MCP calls cannot
	// take every pool connection away from the operations themselves.
	maxInFlight = 4
)

// Recorder captures operations for one process. Create it once with New and
// Close it at exit. A nil *Recorder is valid and captures nothing.
type Recorder struct {
	db     DB
	cfg    evalconfig.Settings
	spool  *Spool
	stderr io.Writer
	scrub  func(string) string

	base    context.Context // cancelled when Close gives up waiting
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	sem     chan struct{}
	pending atomic.Int64
	flushMu sync.Mutex
}

// New returns a recorder writing through db. home is $PGBRAIN_HOME (for the
// spool); stderr receives only what cannot be recorded anywhere else. If
// failures are waiting in the spool, they are written in the background.
func New(db DB, cfg evalconfig.Settings, home string, stderr io.Writer) *Recorder {
	if stderr == nil {
		stderr = io.Discard
	}
	base, cancel := context.WithCancel(context.Background())
	r := &Recorder{db: db, cfg: cfg, spool: NewSpool(home), stderr: stderr, scrub: scrub.Scrub,
		base: base, cancel: cancel, sem: make(chan struct{}, maxInFlight)}
	if r.spool.nonEmpty() {
		r.goTracked(func() { r.flushSpool() })
	}
	return r
}

// FromEnv is New with the settings of $PGBRAIN_HOME/config.json and the
// environment. A config file that cannot be read leaves capture off and says
// so on stderr; it never fails the operation.
func FromEnv(db DB, home string, stderr io.Writer) *Recorder {
	cfg, err := evalconfig.Load(home, os.Getenv)
	if err != nil && stderr != nil {
		fmt.Fprintf(stderr, "pgbrain: eval capture is off: %v\n", err)
	}
	return New(db, cfg, home, stderr)
}

// Enabled reports whether Record captures anything.
func (r *Recorder) Enabled() bool { return r != nil && r.cfg.Capture }

// Record captures a finished operation in the background. Call it after the
// result is computed; it returns immediately and never fails.
func (r *Recorder) Record(ctx context.Context, resp *search.Response, c Caller) {
	if !r.Enabled() || resp == nil {
		return
	}
	cand := newCandidate(resp, c)
	r.goTracked(func() { r.capture(cand) })
}

// Close waits for pending captures until ctx is done or, without a
// deadline, DrainTimeout. Captures still pending then are spooled as
// failures (reason other) and reported on stderr.
func (r *Recorder) Close(ctx context.Context) error {
	if r == nil {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DrainTimeout)
		defer cancel()
	}
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		r.cancel()
		return nil
	case <-ctx.Done():
	}
	n := r.pending.Load()
	r.cancel() // pending captures now fail fast and spool themselves
	select {
	case <-done:
	case <-time.After(500 * time.Millisecond):
	}
	fmt.Fprintf(r.stderr, "pgbrain: %d eval capture(s) did not finish before exit; recorded as failures in %s\n", n, r.spool.Path())
	return fmt.Errorf("%d eval captures did not finish within the drain timeout", n)
}

// goTracked runs f in the background, counted for Close, and keeps any
// panic in it from taking the process down.
func (r *Recorder) goTracked(f func()) {
	r.wg.Add(1)
	r.pending.Add(1)
	go func() {
		defer r.wg.Done()
		defer r.pending.Add(-1)
		defer func() {
			if p := recover(); p != nil {
				r.fail(newFailure("", ReasonOther, "", fmt.Sprintf("capture panicked: %T", p)))
			}
		}()
		f()
	}()
}

func (r *Recorder) capture(cand evalrow.Row) {
	select {
	case r.sem <- struct{}{}:
		defer func() { <-r.sem }()
	case <-r.base.Done():
		r.fail(newFailure(cand.ToolName, ReasonOther, "", "capture abandoned: drain timeout at process exit"))
		return
	}
	q, ok := r.scrubQuery(cand.Query)
	if !ok {
		r.fail(newFailure(cand.ToolName, ReasonScrubberException, "", "the PII scrubber panicked; the query was not stored"))
		return
	}
	cand.Query = q
	ctx, cancel := context.WithTimeout(r.base, insertTimeout)
	defer cancel()
	_, err := r.db.Exec(ctx, insertCandidateSQL,
		cand.ToolName, cand.Query, cand.RetrievedSlugs, cand.RetrievedChunkIDs, cand.SourceIDs,
		cand.ExpandEnabled, cand.Detail, cand.DetailResolved, cand.VectorEnabled,
		cand.ExpansionApplied, cand.LatencyMS, cand.Remote, cand.JobID, cand.SubagentID)
	if err != nil {
		if r.base.Err() != nil {
			r.fail(newFailure(cand.ToolName, ReasonOther, "", "capture abandoned: drain timeout at process exit"))
			return
		}
		reason, state := classify(err)
		r.fail(newFailure(cand.ToolName, reason, state, summarize(err)))
		return
	}
	if r.spool.nonEmpty() {
		r.flushSpool()
	}
}

const insertCandidateSQL = `INSERT INTO brain.eval_candidates
	(tool_name, query, retrieved_slugs, retrieved_chunk_ids, source_ids,
	 expand_enabled, detail, detail_resolved, vector_enabled,
	 expansion_applied, latency_ms, remote, job_id, subagent_id)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::float8::numeric(14, 3), $12, $13, $14)`

// scrubQuery cleans the text for storage and, unless eval.scrub_pii is
// false, scrubs it. ok is false when the scrubber panicked.
func (r *Recorder) scrubQuery(q string) (out string, ok bool) {
	q = cleanText(q)
	if !r.cfg.ScrubPII {
		return q, true
	}
	defer func() {
		if p := recover(); p != nil {
			out, ok = "", false
		}
	}()
	// The scrubber's output is cleaned again: it must not reintroduce bytes
	// the column cannot hold.
	return cleanText(r.scrub(q)), true
}

// fail records a failure in the table, or in the spool when the database
// cannot take it, or as a last resort on stderr.
func (r *Recorder) fail(fl Failure) {
	if fl.Reason != ReasonDBDown && r.base.Err() == nil {
		ctx, cancel := context.WithTimeout(r.base, insertTimeout)
		_, err := r.db.Exec(ctx, insertFailureSQL, fl.OccurredAt, fl.Tool, fl.Reason, fl.SQLState, fl.Message)
		cancel()
		if err == nil {
			return
		}
	}
	if err := r.spool.Append(fl); err != nil {
		fmt.Fprintf(r.stderr, "pgbrain: eval capture failed (%s: %s) and could not be spooled: %v\n", fl.Reason, fl.Message, err)
	}
}

// flushSpool writes spooled failures now that the database answers; one
// flush at a time per process (the file lock orders processes).
func (r *Recorder) flushSpool() {
	if !r.flushMu.TryLock() {
		return
	}
	defer r.flushMu.Unlock()
	ctx, cancel := context.WithTimeout(r.base, insertTimeout)
	defer cancel()
	if _, err := r.spool.Flush(ctx, r.db); err != nil && r.base.Err() == nil {
		// The failures stay spooled; the next successful capture retries.
		fmt.Fprintf(r.stderr, "pgbrain: %v\n", err)
	}
}
