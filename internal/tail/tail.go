// Package tail reads the pgbrain events file for "pgbrain tail": the backlog
// since a point in time, then, when following, new lines as they are written,
// across rotations of the file.
package tail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"time"

	"github.com/pgbrain/pgbrain/internal/events"
)

// DefaultPoll is how often a followed file is checked for growth and rotation.
const DefaultPoll = 200 * time.Millisecond

// Options select what to read.
type Options struct {
	// Path is the active events file; its rotated predecessor is Path+".1".
	Path string
	// Since skips events older than this time; the zero value keeps all.
	Since time.Time
	// Follow keeps reading new lines until the context is cancelled.
	Follow bool
	// Poll is the follow interval; <= 0 means DefaultPoll.
	Poll time.Duration
}

// LineFunc receives each complete, well-formed event line (without its
// newline; the slice may be retained) and its decoded event. A line holding
// what the events writer removes today (written by an older pgbrain or by
// hand) arrives cleaned by events.Clean and re-encoded. A non-nil error
// stops the tail and is returned as is.
type LineFunc func(line []byte, ev events.Event) error

// Tail reads events as described by opts. See Tailer.Run.
func Tail(ctx context.Context, opts Options, fn LineFunc) error {
	return New(opts).Run(ctx, fn)
}

// Tailer is Tail with access to the count of malformed lines it skipped.
type Tailer struct {
	opts      Options
	malformed atomic.Int64
	// polled, when set, is called after each poll of a following Run, so
	// a test can wait for polls to happen rather than sleep and hope.
	polled func()
}

// New returns a Tailer for opts.
func New(opts Options) *Tailer {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	return &Tailer{opts: opts}
}

// Malformed is the number of lines skipped because they were not valid
// events, including lines torn by a failed write. Safe to call while Run is
// in progress.
func (t *Tailer) Malformed() int64 { return t.malformed.Load() }

// errStopped unwinds a read when the context is cancelled.
var errStopped = errors.New("tail stopped")

// Run reads the backlog (the kept .1 file first, then the active file),
// calling fn in file order for each event not older than Since. Without
// Follow it returns at the end of the data; with Follow it then polls for new
// lines, waits for a missing file to appear, holds a partial line until its
// newline arrives, and moves to the new file after a rotation once the old
// one is drained. A cancelled context ends Run with a nil error.
func (t *Tailer) Run(ctx context.Context, fn LineFunc) error {
	f := &follower{t: t, path: t.opts.Path, fn: fn, split: splitter{max: maxLineBytes}}
	defer f.close()
	tick := time.NewTicker(t.opts.Poll)
	defer tick.Stop()
	for {
		if ctx.Err() != nil {
			return nil
		}
		err := f.step(ctx)
		if errors.Is(err, errStopped) {
			return nil
		}
		if err != nil {
			return err
		}
		if t.polled != nil {
			t.polled()
		}
		if !t.opts.Follow {
			if !f.found {
				return fmt.Errorf("tail: no events file at %s: start the server with events enabled or pass the path it writes to: %w", f.path, fs.ErrNotExist)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// follower is the state of one Run.
type follower struct {
	t     *Tailer
	path  string
	fn    LineFunc
	split splitter

	cur     *os.File
	curInfo os.FileInfo
	offset  int64
	found   bool // some events file existed at some point

	// consumed remembers files already read to the end, so a .1 that is one
	// of them is not read twice.
	consumed []os.FileInfo
}

func (f *follower) close() {
	if f.cur != nil {
		f.cur.Close()
	}
}

// step does one poll: open the active file if needed, read what is new, and
// switch files when the path now names a different file.
func (f *follower) step(ctx context.Context) error {
	if f.cur == nil {
		if err := f.openActive(ctx); err != nil || f.cur == nil {
			return err
		}
	}
	// Stat the path before draining: everything the writer put into the old
	// file happened before the rename, so after this drain nothing is left.
	pathInfo, statErr := os.Stat(f.path)
	rotated := statErr == nil && !os.SameFile(pathInfo, f.curInfo)
	if err := f.drainCurrent(ctx); err != nil {
		return err
	}
	if !rotated {
		return nil
	}
	// A writer emits whole lines, so a partial line left in a rotated file
	// was torn and will never complete.
	f.dropPartial()
	f.remember(f.curInfo)
	old := f.cur
	f.cur, f.curInfo, f.offset = nil, nil, 0
	err := f.openActive(ctx)
	old.Close()
	if err != nil || f.cur == nil {
		return err
	}
	return f.drainCurrent(ctx)
}

// openActive opens the active file, first reading the kept .1 file when it
// holds lines not yet seen (at start, or after rotations between polls).
func (f *follower) openActive(ctx context.Context) error {
	active, err := os.Open(f.path)
	var activeInfo os.FileInfo
	switch {
	case err == nil:
		if activeInfo, err = active.Stat(); err != nil {
			active.Close()
			return fmt.Errorf("tail: stat %s: %w", f.path, err)
		}
	case errors.Is(err, fs.ErrNotExist):
		active = nil
	default:
		return fmt.Errorf("tail: open %s: %w", f.path, err)
	}
	if err := f.readRotated(ctx, activeInfo); err != nil {
		if active != nil {
			active.Close()
		}
		return err
	}
	if active != nil {
		f.cur, f.curInfo, f.offset, f.found = active, activeInfo, 0, true
	}
	return nil
}

func (f *follower) readRotated(ctx context.Context, activeInfo os.FileInfo) error {
	rotatedPath := events.RotatedPath(f.path)
	r, err := os.Open(rotatedPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("tail: open %s: %w", rotatedPath, err)
	}
	defer r.Close()
	info, err := r.Stat()
	if err != nil {
		return fmt.Errorf("tail: stat %s: %w", rotatedPath, err)
	}
	if activeInfo != nil && os.SameFile(info, activeInfo) {
		return nil // rotated between our two opens; read it as the active file
	}
	for _, c := range f.consumed {
		if os.SameFile(info, c) {
			return nil
		}
	}
	f.found = true
	if _, err := f.drain(ctx, r, rotatedPath); err != nil {
		return err
	}
	f.dropPartial()
	f.remember(info)
	return nil
}

func (f *follower) remember(info os.FileInfo) {
	const keep = 4
	f.consumed = append(f.consumed, info)
	if len(f.consumed) > keep {
		f.consumed = f.consumed[len(f.consumed)-keep:]
	}
}

func (f *follower) drainCurrent(ctx context.Context) error {
	// A file cut shorter than what was read was truncated in place; start
	// over from its beginning.
	if info, err := f.cur.Stat(); err == nil && info.Size() < f.offset {
		if _, err := f.cur.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("tail: rewind %s: %w", f.path, err)
		}
		f.offset = 0
		f.split.reset()
	}
	n, err := f.drain(ctx, f.cur, f.path)
	f.offset += n
	return err
}

// drain reads r to its current end, passing complete lines on.
func (f *follower) drain(ctx context.Context, r io.Reader, name string) (int64, error) {
	buf := make([]byte, 64<<10)
	var total int64
	for {
		if ctx.Err() != nil {
			return total, errStopped
		}
		n, err := r.Read(buf)
		total += int64(n)
		if n > 0 {
			if ferr := f.split.feed(buf[:n], f.line); ferr != nil {
				return total, ferr
			}
		}
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			return total, nil
		}
		if err != nil {
			return total, fmt.Errorf("tail: read %s: %w", name, err)
		}
	}
}

func (f *follower) line(line []byte, ok bool) error {
	if !ok {
		f.t.malformed.Add(1)
		return nil
	}
	ev, err := events.Parse(line)
	if err != nil {
		f.t.malformed.Add(1)
		return nil
	}
	if since := f.t.opts.Since; !since.IsZero() && ev.Timestamp.Before(since) {
		return nil
	}
	// A file written by an older pgbrain, or by hand, may hold what today's
	// writer removes: show it as the writer would have stored it.
	clean, changed := events.Clean(ev)
	if changed {
		b, err := clean.MarshalJSON()
		if err != nil {
			f.t.malformed.Add(1)
			return nil
		}
		return f.fn(b, clean)
	}
	return f.fn(bytes.Clone(line), ev)
}

func (f *follower) dropPartial() {
	if f.split.reset() {
		f.t.malformed.Add(1)
	}
}
