package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// SpoolFile holds the audit rows of calls made while the database could not
// take them, inside $PGBRAIN_HOME, one JSON object per line in call order,
// until a writer reaches the database again and chains them.
const SpoolFile = "audit-spool.ndjson"

// spooled is one line of the spool: the entry and when the call was made.
type spooled struct {
	At            time.Time `json:"at"`
	SessionID     string    `json:"session_id"`
	Caller        string    `json:"caller"`
	Tool          string    `json:"tool_name"`
	Status        string    `json:"status"`
	RefusalReason string    `json:"refusal_reason,omitempty"`
	PIICategories []string  `json:"pii_categories"`
	CostClass     string    `json:"cost_class"`
}

func (s spooled) entry() Entry {
	return Entry{SessionID: s.SessionID, Caller: s.Caller, Tool: s.Tool, Status: s.Status,
		RefusalReason: s.RefusalReason, PIICategories: s.PIICategories, CostClass: s.CostClass}
}

// Spool is the local audit spool of one pgbrain home: a file of mode 0600,
// opened without following links, locked with flock for every append and
// drain so several processes sharing a home keep their rows.
type Spool struct {
	path string
	now  func() time.Time
}

// NewSpool returns the spool under home.
func NewSpool(home string) *Spool {
	return &Spool{path: filepath.Join(home, SpoolFile), now: time.Now}
}

// Path is the spool file's path.
func (s *Spool) Path() string { return s.path }

func (s *Spool) open(create bool) (*os.File, error) {
	flags := os.O_RDWR | syscall.O_NOFOLLOW
	if create {
		if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
			return nil, err
		}
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(s.path, flags, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link; refusing to follow it: remove it", s.path)
	}
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file: remove it", s.path)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Append adds entries, in order, at the end of the spool.
func (s *Spool) Append(entries []Entry) error {
	var buf bytes.Buffer
	at := s.now().UTC()
	for _, e := range entries {
		line, err := json.Marshal(spooled{At: at, SessionID: e.SessionID, Caller: e.Caller, Tool: e.Tool,
			Status: e.Status, RefusalReason: e.RefusalReason, PIICategories: normalize(e.PIICategories), CostClass: e.CostClass})
		if err != nil {
			return fmt.Errorf("encoding a spooled audit row: %w", err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	f, err := s.open(true)
	if err != nil {
		return fmt.Errorf("opening the audit spool %s: %w (check $PGBRAIN_HOME is writable)", s.path, err)
	}
	defer f.Close() // closing releases the lock
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return fmt.Errorf("appending to the audit spool %s: %w", s.path, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("appending to the audit spool %s: %w", s.path, err)
	}
	return nil
}

// Pending counts the spooled rows not yet in the chain.
func (s *Spool) Pending() (int, error) {
	if s == nil {
		return 0, nil
	}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the audit spool %s: %w", s.path, err)
	}
	return bytes.Count(data, []byte{'\n'}), nil
}

func (s *Spool) nonEmpty() bool {
	if s == nil {
		return false
	}
	fi, err := os.Lstat(s.path)
	return err == nil && fi.Size() > 0
}

// drain writes every spooled row to the chain, in spool order, in one
// statement (so in one transaction), and empties the spool once it
// committed. A line that cannot be decoded, or a row the database rejects
// as invalid, would block the spool forever: it is dropped and counted in
// bad, and the caller reports it. A crash between the commit and the
// truncation chains the rows twice on the next drain: duplicated, never
// lost.
func (s *Spool) drain(ctx context.Context, w *Writer) (n, bad int, err error) {
	if !s.nonEmpty() {
		return 0, 0, nil
	}
	f, err := s.open(false)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("opening the audit spool %s: %w", s.path, err)
	}
	defer f.Close()
	var entries []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var sp spooled
		if err := json.Unmarshal(sc.Bytes(), &sp); err != nil {
			bad++
			continue
		}
		entries = append(entries, sp.entry())
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("reading the audit spool %s: %w", s.path, err)
	}
	if len(entries) > 0 {
		err := w.recordBatch(ctx, entries)
		var pgErr *pgconn.PgError
		if err != nil && errors.As(err, &pgErr) && rowRejected(pgErr) {
			// One bad row: the rest go in one by one, in order.
			err = nil
			for _, e := range entries {
				if rerr := w.record(ctx, e); rerr != nil {
					if !errors.As(rerr, &pgErr) || !rowRejected(pgErr) {
						return 0, 0, fmt.Errorf("chaining the audit spool %s: %w", s.path, rerr)
					}
					bad++
					continue
				}
				n++
			}
		} else if err != nil {
			return 0, 0, fmt.Errorf("chaining the audit spool %s: %w", s.path, err)
		} else {
			n = len(entries)
		}
	}
	if err := f.Truncate(0); err != nil {
		return n, bad, fmt.Errorf("emptying the audit spool %s after chaining it: %w", s.path, err)
	}
	return n, bad, nil
}

// rowRejected reports a failure that is about the row itself (a CHECK,
// a malformed value): retrying it can never succeed. Everything else (no
// connection, a timeout, the database shutting down, a lock) may pass later.
func rowRejected(e *pgconn.PgError) bool {
	return len(e.Code) == 5 && (e.Code[:2] == "22" || e.Code[:2] == "23")
}

// spoolable reports whether a failed write should be kept in the spool.
func spoolable(err error) bool {
	var pgErr *pgconn.PgError
	return !errors.As(err, &pgErr) || !rowRejected(pgErr)
}
