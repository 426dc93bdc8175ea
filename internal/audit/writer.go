package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Execer is what the Writer needs from a database handle; *pgxpool.Pool,
// *pgx.Conn and pgx.Tx all satisfy it. A connection logged in as a member
// of pgbrain_audit_writer (INSERT only) is enough.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// DefaultTimeout bounds one Record call (and one batch INSERT of Async), so
// a slow or unreachable database never holds up the tool call being audited
// for long.
const DefaultTimeout = 5 * time.Second

// Writer appends entries to brain.audit_log. It is safe for concurrent use.
// Audit failures never fail a tool call: Record reports the first failure of
// each kind on the error writer and returns, the caller carries on.
type Writer struct {
	db      Execer
	errs    io.Writer
	timeout time.Duration

	mu       sync.Mutex
	reported map[string]bool

	// spool keeps the rows the database could not take; order serialises
	// "chain the spool, then this row" so rows keep call order.
	spool *Spool
	order sync.Mutex
}

// NewWriter returns a Writer on db that reports failures to errs (nil
// discards them).
func NewWriter(db Execer, errs io.Writer) *Writer {
	if errs == nil {
		errs = io.Discard
	}
	return &Writer{db: db, errs: errs, timeout: DefaultTimeout, reported: map[string]bool{}}
}

// WithTimeout sets how long one Record may take (<= 0: DefaultTimeout).
func (w *Writer) WithTimeout(d time.Duration) *Writer {
	if d <= 0 {
		d = DefaultTimeout
	}
	w.timeout = d
	return w
}

const insertSQL = `INSERT INTO brain.audit_log
	(session_id, caller, tool_name, status, refusal_reason, pii_categories, cost_class)
	VALUES ($1, $2, $3, $4, $5, $6, $7)`

// WithSpool keeps the rows of calls the database could not take (it is
// unreachable, too slow, shutting down) in s instead of losing them, and
// chains them, in call order and ahead of any newer row, as soon as a write
// succeeds again. Rows the database rejects as invalid are not spooled:
// they would be rejected again.
func (w *Writer) WithSpool(s *Spool) *Writer {
	w.spool = s
	return w
}

// Spool is the spool set by WithSpool, or nil.
func (w *Writer) Spool() *Spool { return w.spool }

// DrainSpool chains the spooled rows now and returns how many went in.
// serve calls it at start, 'pgbrain audit flush' on demand.
func (w *Writer) DrainSpool(ctx context.Context) (int, error) {
	if w.spool == nil {
		return 0, nil
	}
	w.order.Lock()
	defer w.order.Unlock()
	return w.drainSpool(ctx)
}

// drainSpool chains the spool; callers hold w.order.
func (w *Writer) drainSpool(ctx context.Context) (int, error) {
	n, bad, err := w.spool.drain(ctx, w)
	if bad > 0 {
		w.say(fmt.Sprintf("dropped %d spooled rows from %s that could not be read or that the database rejected", bad, w.spool.Path()))
	}
	if n > 0 {
		w.say(fmt.Sprintf("chained %d calls from %s, made while the database could not take them", n, w.spool.Path()))
	}
	return n, err
}

// keep appends entries to the spool after a failed write; losing them is
// reported, keeping them is reported once.
func (w *Writer) keep(entries []Entry) bool {
	if err := w.spool.Append(entries); err != nil {
		w.say(fmt.Sprintf("%d tool calls were not recorded: %v", len(entries), err))
		return false
	}
	w.mu.Lock()
	first := !w.reported["spooled"]
	w.reported["spooled"] = true
	w.mu.Unlock()
	if first {
		w.say(fmt.Sprintf("rows the database could not take are kept in %s and chained, in call order, when it is back", w.spool.Path()))
	}
	return true
}

func (w *Writer) say(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.errs, "pgbrain: audit: %s\n", msg)
}

// Record appends e to the audit log and returns its fingerprint. The
// fingerprint is computed locally and returned even when the row could not
// be written, so spans keep their gen_ai.tool.call.id; the error is for
// counting, not for failing the call. Cancelling ctx after the tool call
// finished does not stop the write: only the Writer's timeout does.
func (w *Writer) Record(ctx context.Context, e Entry) (string, error) {
	fp := Fingerprint(e)
	base := context.WithoutCancel(ctx)
	if w.spool != nil {
		w.order.Lock()
		defer w.order.Unlock()
		if _, err := w.drainSpool(base); err != nil {
			// The spool could not be chained: this row goes after it.
			w.report(err)
			w.keep([]Entry{e})
			return fp, err
		}
	}
	if err := w.record(base, e); err != nil {
		w.report(err)
		if w.spool != nil && spoolable(err) {
			w.keep([]Entry{e})
		}
		return fp, err
	}
	return fp, nil
}

// record writes one row within the Writer's timeout, counted from now;
// base only carries cancellation (Async cancels it when Close gives up).
// The caller reports the error.
func (w *Writer) record(base context.Context, e Entry) error {
	ctx, cancel := context.WithTimeout(base, w.timeout)
	defer cancel()
	var reason any
	if e.RefusalReason != "" {
		reason = e.RefusalReason
	}
	cats := normalize(e.PIICategories)
	_, err := w.db.Exec(ctx, insertSQL, e.SessionID, e.Caller, e.Tool, e.Status, reason, cats, e.CostClass)
	if err != nil {
		return fmt.Errorf("recording %s call (status %s) in brain.audit_log: %w", e.Tool, e.Status, err)
	}
	return nil
}

// insertBatchSQL appends several rows in one statement, hence one
// transaction and one wait for the chain's advisory lock. The chain trigger
// is a row-level BEFORE trigger and sees the rows this statement already
// inserted, so each row links to the one before it; ORDER BY ordinality
// makes that the order of the arrays, which is the order of the calls.
// Categories travel as one JSON array per row because unnest cannot take a
// ragged two-dimensional array.
const insertBatchSQL = `INSERT INTO brain.audit_log
	(session_id, caller, tool_name, status, refusal_reason, pii_categories, cost_class)
	SELECT r.session_id, r.caller, r.tool_name, r.status, r.refusal_reason,
	       ARRAY(SELECT jsonb_array_elements_text(r.pii_categories::jsonb)), r.cost_class
	FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
	     WITH ORDINALITY AS r(session_id, caller, tool_name, status, refusal_reason, pii_categories, cost_class, n)
	ORDER BY r.n`

// recordBatch writes entries, in order, in one INSERT within the Writer's
// timeout. The caller reports the error, or retries row by row.
func (w *Writer) recordBatch(base context.Context, entries []Entry) error {
	if len(entries) == 1 {
		return w.record(base, entries[0])
	}
	n := len(entries)
	sessions, callers, tools, statuses := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	reasons, cats, costs := make([]*string, n), make([]string, n), make([]string, n)
	for i, e := range entries {
		sessions[i], callers[i], tools[i], statuses[i], costs[i] = e.SessionID, e.Caller, e.Tool, e.Status, e.CostClass
		if e.RefusalReason != "" {
			reasons[i] = &e.RefusalReason
		}
		b, err := json.Marshal(normalize(e.PIICategories))
		if err != nil {
			return fmt.Errorf("encoding the categories of a %s call: %w", e.Tool, err)
		}
		cats[i] = string(b)
	}
	ctx, cancel := context.WithTimeout(base, w.timeout)
	defer cancel()
	if _, err := w.db.Exec(ctx, insertBatchSQL, sessions, callers, tools, statuses, reasons, cats, costs); err != nil {
		return fmt.Errorf("recording %d calls in brain.audit_log: %w", n, err)
	}
	return nil
}

// report prints err once per kind, so a database outage during a busy
// session yields one line rather than one per call.
func (w *Writer) report(err error) {
	kind := errorKind(err)
	// Held while printing too: the background writer and callers writing
	// their own rows may report at once, and errs need not be safe for that.
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.reported[kind] {
		w.reported[kind] = true
		fmt.Fprintf(w.errs, "pgbrain: audit: %v (further %s errors are not reported; the tool call is not affected)\n", err, kind)
	}
}

// errorKind groups errors by cause: the SQLSTATE and constraint for
// database errors, otherwise timeouts and connection failures.
func errorKind(err error) string {
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.ConstraintName != "":
		return "sqlstate " + pgErr.Code + " (" + pgErr.ConstraintName + ")"
	case errors.As(err, &pgErr):
		return "sqlstate " + pgErr.Code
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	default:
		return "connection"
	}
}
