// Package nightly is the nightly quality probe: LongMemEval on a fixed
// fixture, its answers scored by the cross-modal judges, under a budget
// cap. Each run leaves one event in an ISO-week JSONL file and one row in
// brain.eval_nightly_runs, and `pgbrain doctor` reads the rows back.
package nightly

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/crossmodal"
	"github.com/pgbrain/pgbrain/internal/longmemeval"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/internal/scrub"
)

// Outcomes of a run.
const (
	Pass           = "pass"
	Fail           = "fail"
	Inconclusive   = "inconclusive"
	Error          = "error"
	BudgetExceeded = "budget_exceeded"
	RateLimited    = "rate_limited"
	NoModel        = "no_model"
)

// Outcomes lists every outcome, as the table's CHECK does.
var Outcomes = []string{Pass, Fail, Inconclusive, Error, BudgetExceeded, RateLimited, NoModel}

// Event is one run, as written to the week file and the table.
type Event struct {
	SchemaVersion int       `json:"schema_version"`
	Timestamp     time.Time `json:"timestamp"` // when the run finished, UTC
	StartedAt     time.Time `json:"started_at"`
	Outcome       string    `json:"outcome"`
	Questions     int       `json:"questions"`
	Pass          int       `json:"pass"`
	Fail          int       `json:"fail"`
	Inconclusive  int       `json:"inconclusive"`
	Error         int       `json:"error"`
	EstCostUSD    float64   `json:"est_cost_usd"`
	MaxUSD        float64   `json:"max_usd"`
	FixtureSHA256 string    `json:"fixture_sha256"`
	Reason        string    `json:"reason"`
	RunID         int64     `json:"run_id,omitempty"`
	// Verdicts inlines each question's cross-modal verdict.
	Verdicts map[string]crossmodal.Verdict `json:"verdicts,omitempty"`
	// Usage is what the models were asked, for --json.
	Usage *budget.Summary `json:"usage,omitempty"`
}

// FixtureHash returns the sha256 (hex) of the fixture file.
func FixtureHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading the fixture: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading the fixture %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Probe is one run's parts. The caller builds them from config and the
// environment; a nil Answer or no Slots means no model is configured.
type Probe struct {
	// Questions is how many fixture questions the run answers.
	Questions int
	// Answer runs LongMemEval on the fixture and returns its rows.
	Answer func(ctx context.Context) ([]longmemeval.Row, error)
	// AnswerEstimate is what Answer's calls cost at most (pre-flight).
	AnswerEstimate budget.Estimate
	Slots          []crossmodal.Slot
	// NoModelReason says why Answer or Slots are missing.
	NoModelReason string
	Prices        budget.Prices
	MaxUSD        float64
	Meter         *budget.Meter
	FixtureSHA256 string
	Now           func() time.Time
}

// assumedAnswer stands in for a hypothesis in the judges' pre-flight
// estimate: answers are not known before they are written.
var assumedAnswer = strings.Repeat("x", 2000)

// Run performs the probe and returns its event (never an error: every
// failure is an outcome with its reason).
func (p Probe) Run(ctx context.Context, fixtureQuestions []crossmodal.Item) Event {
	if p.Now == nil {
		p.Now = time.Now
	}
	e := Event{SchemaVersion: 1, StartedAt: p.Now().UTC(), MaxUSD: p.MaxUSD, FixtureSHA256: p.FixtureSHA256, Questions: len(fixtureQuestions)}
	done := func(outcome, reason string) Event {
		// The reason quotes endpoint errors and judges' words (which can
		// echo a key or the fixture's personal data); it is written to the
		// week file, the table and doctor: scrubbed like the events file.
		e.Outcome, e.Reason = outcome, scrub.Scrub(reason)
		e.Timestamp = p.Now().UTC()
		if p.Meter != nil {
			s := p.Meter.Summary()
			e.Usage = &s
			if s.USD > e.EstCostUSD {
				e.EstCostUSD = s.USD
			}
		}
		return e
	}
	if p.Answer == nil || len(p.Slots) == 0 {
		return done(NoModel, p.NoModelReason)
	}
	// Pre-flight: the answers and every judge's calls, before any call.
	items := make([]crossmodal.Item, len(fixtureQuestions))
	for i, it := range fixtureQuestions {
		it.Output = assumedAnswer
		items[i] = it
	}
	est := crossmodal.Estimate(items, p.Slots, 1)
	if p.AnswerEstimate.Calls > 0 {
		est = append(est, p.AnswerEstimate)
	}
	usd, err := crossmodal.Preflight(p.Prices, est, p.MaxUSD)
	e.EstCostUSD = usd
	if err != nil {
		return done(BudgetExceeded, "refused before any model call: "+err.Error())
	}
	rows, err := p.Answer(ctx)
	if err != nil {
		if rateLimited(err) {
			return done(RateLimited, "answering the fixture: "+err.Error())
		}
		return done(Error, "answering the fixture: "+err.Error())
	}
	rep, err := crossmodal.Run(ctx, crossmodal.FromRows(rows), p.Slots, crossmodal.Options{Cycles: 1, Concurrent: 3})
	if err != nil {
		return done(Error, "scoring the answers: "+err.Error())
	}
	e.Questions = rep.Items
	e.Pass, e.Fail, e.Inconclusive, e.Error = rep.Counts.Pass, rep.Counts.Fail, rep.Counts.Inconclusive, rep.Counts.Error
	e.Verdicts = map[string]crossmodal.Verdict{}
	var firstBad string
	for _, r := range rep.Results {
		e.Verdicts[r.ID] = r.Verdict
		if r.Verdict != crossmodal.Pass && firstBad == "" {
			firstBad = fmt.Sprintf("question %s: %s", r.ID, r.Verdict)
			for _, j := range r.Judgements {
				if j.Verdict == r.Verdict || r.Verdict == crossmodal.Inconclusive {
					firstBad += fmt.Sprintf(" (slot %s, %s: %s)", j.Slot, j.Model, j.Reason)
					break
				}
			}
		}
	}
	reason := fmt.Sprintf("%d pass, %d fail, %d inconclusive, %d error", e.Pass, e.Fail, e.Inconclusive, e.Error)
	if firstBad != "" {
		reason += "; first: " + firstBad
	}
	switch rep.Verdict {
	case crossmodal.Pass:
		return done(Pass, reason)
	case crossmodal.Fail:
		return done(Fail, reason)
	case crossmodal.Inconclusive:
		return done(Inconclusive, reason)
	}
	if rep.RateLimited {
		return done(RateLimited, reason)
	}
	return done(Error, reason)
}

func rateLimited(err error) bool {
	var apiErr *openai.APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusTooManyRequests
}

// WeekFileName is the ISO-week file an event at t goes to:
// quality-probe-YYYY-Www.jsonl (the ISO year, which differs from the
// calendar year around New Year).
func WeekFileName(t time.Time) string {
	y, w := t.UTC().ISOWeek()
	return fmt.Sprintf("quality-probe-%04d-W%02d.jsonl", y, w)
}

// AppendEvent appends e as one JSON line to its week file in dir, creating
// dir (0700) and the file (0600) as needed. It never follows a symlink: a
// dir or file that is one is refused, since the file is written on the
// user's behalf by a timer and must not be redirected elsewhere.
func AppendEvent(dir string, e Event) (string, error) {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return "", fmt.Errorf("%s is a symlink; the quality probe's audit folder must be a real directory: remove the link", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the audit folder %s: %w", dir, err)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("the audit folder %s is not a directory", dir)
	}
	path := filepath.Join(dir, WeekFileName(e.Timestamp))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return "", fmt.Errorf("%s is a symlink; the quality probe writes only to a regular file: remove the link", path)
		}
		return "", fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("checking %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file: remove it", path)
	}
	if fi.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			return "", fmt.Errorf("restricting %s to its owner: %w", path, err)
		}
	}
	line, err := json.Marshal(e)
	if err != nil {
		return "", fmt.Errorf("encoding the event: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

// DB is what recording and health checks need; *pgxpool.Pool is one.
type DB interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Record stores e in brain.eval_nightly_runs and sets e.RunID.
func Record(ctx context.Context, db DB, e *Event) error {
	if err := db.QueryRow(ctx, `INSERT INTO brain.eval_nightly_runs
		(started_at, finished_at, outcome, questions, pass_count, fail_count, inconclusive_count, error_count,
		 est_cost_usd, max_usd, fixture_sha256, reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, left($12, 4000)) RETURNING id`,
		e.StartedAt, e.Timestamp, e.Outcome, e.Questions, e.Pass, e.Fail, e.Inconclusive, e.Error,
		e.EstCostUSD, e.MaxUSD, e.FixtureSHA256, strings.ReplaceAll(e.Reason, "\x00", "")).Scan(&e.RunID); err != nil {
		return fmt.Errorf("recording the run in brain.eval_nightly_runs: %w", err)
	}
	return nil
}

// Health states.
const (
	Skipped = "SKIPPED"
	OK      = "OK"
	Warn    = "WARN"
)

// EnableCommand turns the probe on.
const EnableCommand = "pgbrain eval nightly --enable --max-usd 5"

// Health is the probe's state for `pgbrain doctor`.
type Health struct {
	State   string         `json:"state"`
	Message string         `json:"message"`
	Last    *time.Time     `json:"last_run"`
	Counts  map[string]int `json:"outcomes_7d"`
}

// Check reads the last 7 days of runs: SKIPPED when the probe is disabled
// (with the command that enables it), OK when it never ran or every run
// passed, WARN otherwise, with the outcome counts and the latest run's
// reason.
func Check(ctx context.Context, db DB, enabled bool, now time.Time) (Health, error) {
	h := Health{Counts: map[string]int{}}
	if !enabled {
		h.State, h.Message = Skipped, "the nightly quality probe is disabled; enable it with: "+EnableCommand
		return h, nil
	}
	rows, err := db.Query(ctx, `SELECT outcome, count(*) FROM brain.eval_nightly_runs
		WHERE finished_at > $1 GROUP BY outcome`, now.Add(-7*24*time.Hour))
	if err != nil {
		return h, fmt.Errorf("reading brain.eval_nightly_runs: %w", err)
	}
	var o string
	var n int
	if _, err := pgx.ForEachRow(rows, []any{&o, &n}, func() error { h.Counts[o] = n; return nil }); err != nil {
		return h, fmt.Errorf("reading brain.eval_nightly_runs: %w", err)
	}
	var last time.Time
	var lastOutcome, lastReason string
	err = db.QueryRow(ctx, `SELECT finished_at, outcome, reason FROM brain.eval_nightly_runs
		ORDER BY finished_at DESC, id DESC LIMIT 1`).Scan(&last, &lastOutcome, &lastReason)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		h.State, h.Message = OK, "enabled, no run yet: schedule 'pgbrain eval nightly' (pgbrain eval nightly --install-timer)"
		return h, nil
	case err != nil:
		return h, fmt.Errorf("reading brain.eval_nightly_runs: %w", err)
	}
	last = last.UTC()
	h.Last = &last
	bad := 0
	var parts []string
	for _, oc := range Outcomes {
		if c := h.Counts[oc]; c > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", oc, c))
			if oc != Pass {
				bad += c
			}
		}
	}
	if bad == 0 {
		h.State = OK
		if len(parts) == 0 {
			h.Message = fmt.Sprintf("no run in the last 7 days; the last was %s (%s)", last.Format(time.RFC3339), lastOutcome)
			h.State = Warn
			return h, nil
		}
		h.Message = fmt.Sprintf("every run of the last 7 days passed; the last at %s", last.Format(time.RFC3339))
		return h, nil
	}
	h.State = Warn
	h.Message = fmt.Sprintf("last 7 days: %s; latest run %s (%s): %s", strings.Join(parts, ", "), last.Format(time.RFC3339), lastOutcome, lastReason)
	return h, nil
}
