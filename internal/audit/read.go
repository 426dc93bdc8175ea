package audit

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Querier is what the readers need; *pgxpool.Pool, *pgx.Conn and pgx.Tx
// satisfy it. A member of pgbrain_auditor (read-only) is enough.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Row is one stored audit row.
type Row struct {
	ID                 int64     `json:"id"`
	OccurredAt         time.Time `json:"occurred_at"`
	SessionID          string    `json:"session_id"`
	Caller             string    `json:"caller"`
	Tool               string    `json:"tool_name"`
	Status             string    `json:"status"`
	RefusalReason      *string   `json:"refusal_reason"`
	PIICategories      []string  `json:"pii_categories"`
	CostClass          string    `json:"cost_class"`
	Fingerprint        string    `json:"fingerprint"`
	FingerprintVersion int       `json:"fingerprint_version"`
	PrevHash           string    `json:"prev_hash"`  // hex
	ChainHash          string    `json:"chain_hash"` // hex
}

// Filter narrows List. Zero values match everything.
type Filter struct {
	SinceID int64  // rows with id >= SinceID
	Status  string // exact status
	Tool    string // exact tool name
	Limit   int    // at most this many rows (0: no limit)
}

// List returns the rows matching f in chain order.
func List(ctx context.Context, q Querier, f Filter) ([]Row, error) {
	var limit any
	if f.Limit > 0 {
		limit = f.Limit
	}
	rows, err := q.Query(ctx, `
		SELECT id, occurred_at, session_id, caller, tool_name, status, refusal_reason,
		       pii_categories, cost_class, fingerprint, fingerprint_version,
		       encode(prev_hash, 'hex'), encode(chain_hash, 'hex')
		FROM brain.audit_log
		WHERE id >= $1 AND ($2 = '' OR status = $2) AND ($3 = '' OR tool_name = $3)
		ORDER BY id LIMIT $4`, f.SinceID, f.Status, f.Tool, limit)
	if err != nil {
		return nil, fmt.Errorf("listing brain.audit_log: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Row, error) {
		var a Row
		err := r.Scan(&a.ID, &a.OccurredAt, &a.SessionID, &a.Caller, &a.Tool, &a.Status, &a.RefusalReason,
			&a.PIICategories, &a.CostClass, &a.Fingerprint, &a.FingerprintVersion, &a.PrevHash, &a.ChainHash)
		a.OccurredAt = a.OccurredAt.UTC()
		return a, err
	})
}

// Problem is one mismatch brain.audit_verify found.
type Problem struct {
	ID      int64  `json:"id"`
	Problem string `json:"problem"` // missing_rows, broken_link, hash_mismatch, ...
	Detail  string `json:"detail"`
}

// Scope selects what Verify checks: every row (Full), the rows from SinceID
// on, or (neither) the newest DefaultWindow rows.
type Scope struct {
	Full    bool
	SinceID int64
}

// DefaultWindow is how many of the newest rows a Verify without Full or
// SinceID checks (brain.audit_verify's default).
const DefaultWindow = 10000

// Verify runs brain.audit_verify and returns its findings; none means the
// checked rows form a valid chain.
func Verify(ctx context.Context, q Querier, s Scope) ([]Problem, error) {
	var since any
	if !s.Full && s.SinceID > 0 {
		since = s.SinceID
	}
	rows, err := q.Query(ctx, `SELECT id, problem, detail FROM brain.audit_verify($1, $2, $3)`,
		s.Full, since, DefaultWindow)
	if err != nil {
		return nil, fmt.Errorf("running brain.audit_verify: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[Problem])
}

// Head is the newest row of the chain: its id and chain_hash (hex). Keeping
// a copy outside the database lets a later verification detect a coherent
// rewrite of the whole chain. ID 0 means the log is empty.
func Head(ctx context.Context, q Querier) (id int64, chainHash string, err error) {
	err = q.QueryRow(ctx, `SELECT id, encode(chain_hash, 'hex') FROM brain.audit_log ORDER BY id DESC LIMIT 1`).
		Scan(&id, &chainHash)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("reading the audit chain head: %w", err)
	}
	return id, chainHash, nil
}

var (
	decimal   = regexp.MustCompile(`^[0-9]+$`)
	hexPrefix = regexp.MustCompile(`^[0-9a-f]{6,64}$`)
)

// ErrBadSince marks a --since value that is none of the accepted forms.
var ErrBadSince = errors.New("use a row id (123), a time (2006-01-02, RFC 3339), an age (90m, 24h) or a chain_hash prefix of 6+ hex digits (hash:0123ab)")

// ResolveSince turns a --since value into the first row id it selects: a
// decimal row id; an age such as 24h (rows recorded since now minus it); a
// date or RFC 3339 time; or a chain_hash prefix, written "hash:PREFIX" or as
// bare hex of at least 6 digits with a letter. A time after the newest row
// resolves past the end, which selects nothing.
func ResolveSince(ctx context.Context, q Querier, s string, now time.Time) (int64, error) {
	s = strings.TrimSpace(s)
	if decimal.MatchString(s) {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("since %q: %w", s, ErrBadSince)
		}
		return id, nil
	}
	if p, ok := strings.CutPrefix(strings.ToLower(s), "hash:"); ok || hexPrefix.MatchString(s) {
		if !ok {
			p = s
		}
		return idByHash(ctx, q, p)
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return idByTime(ctx, q, now.Add(-d))
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return idByTime(ctx, q, t)
		}
	}
	return 0, fmt.Errorf("since %q: %w", s, ErrBadSince)
}

func idByTime(ctx context.Context, q Querier, t time.Time) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `
		SELECT coalesce((SELECT min(id) FROM brain.audit_log WHERE occurred_at >= $1),
		                (SELECT coalesce(max(id), 0) + 1 FROM brain.audit_log))`, t).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("finding the first audit row since %s: %w", t.Format(time.RFC3339), err)
	}
	return id, nil
}

func idByHash(ctx context.Context, q Querier, prefix string) (int64, error) {
	if !hexPrefix.MatchString(prefix) {
		return 0, fmt.Errorf("since hash:%s: %w", prefix, ErrBadSince)
	}
	// An odd-length prefix has a half byte; compare the hex text instead.
	rows, err := q.Query(ctx, `SELECT id FROM brain.audit_log WHERE encode(chain_hash, 'hex') LIKE $1 || '%' ORDER BY id LIMIT 2`, prefix)
	if err != nil {
		return 0, fmt.Errorf("finding the audit row with chain_hash %s...: %w", prefix, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, fmt.Errorf("finding the audit row with chain_hash %s...: %w", prefix, err)
	}
	switch len(ids) {
	case 0:
		return 0, fmt.Errorf("no audit row has a chain_hash starting with %s: check the prefix with 'pgbrain audit list'", prefix)
	case 1:
		return ids[0], nil
	default:
		return 0, fmt.Errorf("chain_hash prefix %s matches several audit rows (%d and %d): give more hex digits", prefix, ids[0], ids[1])
	}
}
