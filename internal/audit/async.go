package audit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Defaults for AsyncOptions.
const (
	DefaultQueueSize    = 4096
	DefaultMaxBatch     = 256
	DefaultDrainTimeout = 5 * time.Second
)

// AsyncOptions tunes an Async writer; zero values take the defaults.
type AsyncOptions struct {
	// QueueSize is how many entries may wait to be written.
	QueueSize int
	// MaxBatch is the most rows one INSERT carries.
	MaxBatch int
}

// Async records entries in the background, so that auditing a tool call
// costs the caller a channel send instead of a round trip and a wait for the
// chain's advisory lock. A single goroutine takes entries in the order
// Record queued them and writes whatever has accumulated in one multi-row
// INSERT, so a busy server takes the lock once per batch rather than once
// per call, and the chain holds its rows in call order.
//
// The guarantees of Writer hold: the fingerprint is computed locally and
// returned at once, failures never reach the caller and are reported once
// per kind, and with a spool (Writer.WithSpool) rows the database cannot
// take are kept and chained later, in call order. No row is dropped
// silently: when the queue is full, or after
// Close, Record writes the row itself, synchronously, within the Writer's
// timeout. That is back-pressure rather than loss: a full queue means the
// database is slower than the calls arrive, and a caller then waits at most
// what every call waited before rows were queued (such a row may land ahead
// of rows still queued). Because of that fallback the Writer's database
// handle must be safe for concurrent use (a *pgxpool.Pool) unless the queue
// can never fill.
//
// Rows land shortly after Record returns; Flush waits for them and Close
// drains the queue at exit.
type Async struct {
	w        *Writer
	maxBatch int
	queue    chan Entry

	// mu makes "not closed, then send" atomic with respect to Close, which
	// closes the queue; sends never block, so Close never waits long on it.
	mu     sync.RWMutex
	closed bool

	queued    atomic.Int64 // entries handed to the queue so far
	abandoned atomic.Int64 // entries dropped because Close stopped waiting

	progressMu sync.Mutex
	settled    int64         // entries the loop has written or given up on
	progress   chan struct{} // closed and replaced whenever settled grows

	base   context.Context // cancelled when Close stops waiting
	cancel context.CancelFunc
	done   chan struct{} // closed when the loop has exited
}

// NewAsync starts the background writer on w. Close it at exit.
func NewAsync(w *Writer, opts AsyncOptions) *Async {
	if opts.QueueSize <= 0 {
		opts.QueueSize = DefaultQueueSize
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = DefaultMaxBatch
	}
	base, cancel := context.WithCancel(context.Background())
	a := &Async{
		w: w, maxBatch: opts.MaxBatch, queue: make(chan Entry, opts.QueueSize),
		progress: make(chan struct{}), base: base, cancel: cancel, done: make(chan struct{}),
	}
	go a.loop()
	return a
}

// Record queues e and returns its fingerprint without waiting for the
// database. The error is non-nil only when the row had to be written
// synchronously (queue full or closed) and that failed; it is for counting,
// not for failing the call.
func (a *Async) Record(ctx context.Context, e Entry) (string, error) {
	if a.enqueue(e) {
		return Fingerprint(e), nil
	}
	return a.w.Record(ctx, e)
}

func (a *Async) enqueue(e Entry) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.closed {
		return false
	}
	select {
	case a.queue <- e:
		a.queued.Add(1)
		return true
	default:
		return false
	}
}

// Flush waits until every entry whose Record returned before Flush was
// called has been written (or has failed and been reported), or ctx ends.
func (a *Async) Flush(ctx context.Context) error {
	target := a.queued.Load()
	for {
		a.progressMu.Lock()
		settled, ch := a.settled, a.progress
		a.progressMu.Unlock()
		if settled >= target {
			return nil
		}
		select {
		case <-ch:
		case <-a.done:
			// The loop exits only once the closed queue is empty, so every
			// entry has settled (rows Close abandoned were reported by it).
			return nil
		case <-ctx.Done():
			return fmt.Errorf("flushing the audit log: %d calls still queued: %w", target-a.settledCount(), ctx.Err())
		}
	}
}

func (a *Async) settledCount() int64 {
	a.progressMu.Lock()
	defer a.progressMu.Unlock()
	return a.settled
}

// Close stops queueing (later Records write synchronously) and waits until
// the queue is drained, until ctx ends or, when ctx has no deadline, for
// DefaultDrainTimeout. Rows still unwritten then are abandoned: Close
// reports how many on the error writer and returns an error.
func (a *Async) Close(ctx context.Context) error {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.queue)
	}
	a.mu.Unlock()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultDrainTimeout)
		defer cancel()
	}
	select {
	case <-a.done:
		a.cancel()
		return nil
	case <-ctx.Done():
	}
	a.cancel() // the INSERT in progress fails fast; the loop drops the rest
	select {
	case <-a.done:
	case <-time.After(500 * time.Millisecond):
	}
	// Abandoned rows were settled without being written; rows the loop
	// has not reached yet (it is still stuck) are not settled at all.
	lost := a.abandoned.Load() + a.queued.Load() - a.settledCount()
	if lost <= 0 {
		return nil // the last batch went through while giving up
	}
	err := fmt.Errorf("%d tool calls were not recorded in brain.audit_log: the database did not take them before exit: %w", lost, ctx.Err())
	a.w.mu.Lock() // report's lock: errs may be shared with a late report
	fmt.Fprintf(a.w.errs, "pgbrain: audit: %v\n", err)
	a.w.mu.Unlock()
	return err
}

// loop writes queued entries until the queue is closed and empty.
func (a *Async) loop() {
	defer close(a.done)
	batch := make([]Entry, 0, a.maxBatch)
	for e := range a.queue {
		batch = append(batch[:0], e)
	fill:
		for len(batch) < a.maxBatch {
			select {
			case e, ok := <-a.queue:
				if !ok {
					break fill
				}
				batch = append(batch, e)
			default:
				break fill
			}
		}
		a.write(batch)
		a.progressMu.Lock()
		a.settled += int64(len(batch))
		close(a.progress)
		a.progress = make(chan struct{})
		a.progressMu.Unlock()
	}
}

// giveUp accounts for a batch that was not written: kept in the spool when
// there is one, else abandoned (Close reports those).
func (a *Async) giveUp(batch []Entry) {
	if a.w.spool != nil && a.w.keep(batch) {
		return
	}
	a.abandoned.Add(int64(len(batch)))
}

// write records batch, falling back to one row at a time when the database
// rejected the statement, so that one bad row costs only itself. With a
// spool, the spool is chained first and a batch that cannot be written is
// spooled behind it.
func (a *Async) write(batch []Entry) {
	if a.w.spool != nil {
		a.w.order.Lock()
		defer a.w.order.Unlock()
		if a.base.Err() == nil {
			if _, err := a.w.drainSpool(a.base); err != nil {
				a.w.report(err)
				a.giveUp(batch)
				return
			}
		}
	}
	if a.base.Err() != nil {
		a.giveUp(batch) // Close gave up waiting
		return
	}
	err := a.w.recordBatch(a.base, batch)
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return
	case a.base.Err() != nil:
		a.giveUp(batch) // cancelled by Close, which reports
		return
	case len(batch) > 1 && errors.As(err, &pgErr):
		for i, e := range batch {
			if a.base.Err() != nil {
				a.abandoned.Add(int64(len(batch) - i))
				return
			}
			if err := a.w.record(a.base, e); err != nil {
				a.w.report(err)
				if a.w.spool != nil && spoolable(err) {
					a.w.keep([]Entry{e})
				}
			}
		}
	default:
		// Unreachable or too slow: retrying row by row would multiply the
		// wait by the batch size while the queue grows, so the batch is
		// spooled, or without a spool reported lost.
		a.w.report(err)
		if a.w.spool != nil {
			a.giveUp(batch)
		}
	}
}
