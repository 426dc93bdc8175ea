package capture

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"time"
)

// SpoolFile holds failures that could not reach the database, inside
// $PGBRAIN_HOME, one JSON object per line, until the next successful
// connection writes them to brain.eval_capture_failures.
const SpoolFile = "eval-capture-spool.ndjson"

// Failure is one failed capture.
type Failure struct {
	SpoolID    string    `json:"spool_id"`
	OccurredAt time.Time `json:"occurred_at"`
	Tool       string    `json:"tool_name,omitempty"`
	Reason     string    `json:"reason"`
	SQLState   string    `json:"sqlstate,omitempty"`
	Message    string    `json:"message"`
}

func newFailure(tool, reason, sqlstate, message string) Failure {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	if tool != "query" && tool != "search" {
		tool = "" // the column's enum; an unknown tool is itself the failure
	}
	return Failure{SpoolID: hex.EncodeToString(b), OccurredAt: time.Now().UTC(), Tool: tool,
		Reason: reason, SQLState: sqlstate, Message: message}
}

// Spool is the local failure file of one pgbrain home. Appends and flushes
// take an exclusive flock on it, so several pgbrain processes sharing a home
// never lose or replay each other's lines.
type Spool struct {
	path string
}

// NewSpool returns the spool under home.
func NewSpool(home string) *Spool { return &Spool{path: filepath.Join(home, SpoolFile)} }

// Path is the spool file's path.
func (s *Spool) Path() string { return s.path }

func (s *Spool) open(create bool) (*os.File, error) {
	flags := os.O_RDWR
	if create {
		if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
			return nil, err
		}
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(s.path, flags, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Append adds a failure to the spool.
func (s *Spool) Append(fl Failure) error {
	line, err := json.Marshal(fl)
	if err != nil {
		return fmt.Errorf("encoding spooled failure: %w", err)
	}
	f, err := s.open(true)
	if err != nil {
		return fmt.Errorf("opening capture spool %s: %w (check $PGBRAIN_HOME is writable)", s.path, err)
	}
	defer f.Close() // closing releases the lock
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return fmt.Errorf("appending to capture spool %s: %w", s.path, err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("appending to capture spool %s: %w", s.path, err)
	}
	return nil
}

// Pending counts the spooled failures not yet in the database.
func (s *Spool) Pending() (int, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading capture spool %s: %w", s.path, err)
	}
	return bytes.Count(data, []byte{'\n'}), nil
}

// nonEmpty is a cheap check before taking the lock.
func (s *Spool) nonEmpty() bool {
	st, err := os.Stat(s.path)
	return err == nil && st.Size() > 0
}

// Flush writes every spooled failure to brain.eval_capture_failures in one
// transaction and empties the spool once it committed. A line that cannot be
// decoded is still recorded, as reason other, so the spool always drains.
// Replaying after a crash between commit and truncate is harmless: spool_id
// is unique and duplicates are skipped.
func (s *Spool) Flush(ctx context.Context, db DB) (int, error) {
	if !s.nonEmpty() {
		return 0, nil
	}
	f, err := s.open(false)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("opening capture spool %s: %w", s.path, err)
	}
	defer f.Close()
	var failures []Failure
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var fl Failure
		if err := json.Unmarshal(sc.Bytes(), &fl); err != nil || !validSpoolID(fl.SpoolID) || !validReason(fl.Reason) {
			fl = newFailure("", ReasonOther, "", fmt.Sprintf("unreadable line %d in %s", n, s.path))
		}
		if !sqlstateShape.MatchString(fl.SQLState) {
			fl.SQLState = ""
		}
		if fl.Tool != "query" && fl.Tool != "search" {
			fl.Tool = ""
		}
		if fl.OccurredAt.IsZero() {
			fl.OccurredAt = time.Now().UTC()
		}
		failures = append(failures, fl)
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("reading capture spool %s: %w", s.path, err)
	}
	if len(failures) > 0 {
		if err := insertFailures(ctx, db, failures); err != nil {
			return 0, err
		}
	}
	if err := f.Truncate(0); err != nil {
		return 0, fmt.Errorf("emptying capture spool %s after writing it to the database: %w", s.path, err)
	}
	return len(failures), nil
}

var sqlstateShape = regexp.MustCompile(`^[0-9A-Z]{5}$`)

func validSpoolID(id string) bool {
	if len(id) != 32 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && id == hexLower(id)
}

func hexLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'F' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func validReason(r string) bool {
	for _, x := range Reasons {
		if r == x {
			return true
		}
	}
	return false
}

// insertFailureSQL records a failure directly. It needs only INSERT
// privilege, so a writer-only role can record its own failures.
const insertFailureSQL = `INSERT INTO brain.eval_capture_failures
	(occurred_at, tool_name, reason, sqlstate, message)
	VALUES ($1, NULLIF($2, ''), $3, NULLIF($4, ''), $5)`

// insertSpooledSQL records a spooled failure once (ON CONFLICT also needs
// SELECT on the table).
const insertSpooledSQL = `INSERT INTO brain.eval_capture_failures
	(occurred_at, tool_name, reason, sqlstate, message, spool_id)
	VALUES ($1, NULLIF($2, ''), $3, NULLIF($4, ''), $5, $6)
	ON CONFLICT (spool_id) DO NOTHING`

func insertFailures(ctx context.Context, db DB, failures []Failure) error {
	tx, err := db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("writing spooled capture failures: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	for _, fl := range failures {
		if _, err := tx.Exec(ctx, insertSpooledSQL, fl.OccurredAt, fl.Tool, fl.Reason, fl.SQLState,
			truncate(cleanText(fl.Message), maxMessage), fl.SpoolID); err != nil {
			return fmt.Errorf("writing spooled capture failure %s: %w", fl.SpoolID, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("writing spooled capture failures: %w", err)
	}
	return nil
}
