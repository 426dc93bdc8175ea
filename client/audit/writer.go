package audit

import (
	"context"
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

// DefaultTimeout bounds one Record call, so a slow or unreachable database
// never holds up the tool call being audited.
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

// Record appends e to the audit log and returns its fingerprint. The
// fingerprint is computed locally and returned even when the row could not
// be written, so spans keep their gen_ai.tool.call.id; the error is for
// counting, not for failing the call. Cancelling ctx after the tool call
// finished does not stop the write: only the Writer's timeout does.
func (w *Writer) Record(ctx context.Context, e Entry) (string, error) {
	fp := Fingerprint(e)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.timeout)
	defer cancel()
	var reason any
	if e.RefusalReason != "" {
		reason = e.RefusalReason
	}
	cats := normalize(e.PIICategories)
	_, err := w.db.Exec(ctx, insertSQL, e.SessionID, e.Caller, e.Tool, e.Status, reason, cats, e.CostClass)
	if err != nil {
		err = fmt.Errorf("recording %s call (status %s) in brain.audit_log: %w", e.Tool, e.Status, err)
		w.report(err)
		return fp, err
	}
	return fp, nil
}

// report prints err once per kind, so a database outage during a busy
// session yields one line rather than one per call.
func (w *Writer) report(err error) {
	kind := errorKind(err)
	w.mu.Lock()
	first := !w.reported[kind]
	w.reported[kind] = true
	w.mu.Unlock()
	if first {
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
