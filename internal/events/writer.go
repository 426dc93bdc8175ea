package events

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// DefaultMaxBytes is the size at which the active file is rotated.
const DefaultMaxBytes int64 = 10 << 20

// EnvPath names the environment variable that overrides the default path.
const EnvPath = "PGBRAIN_EVENTS_PATH"

const (
	dirMode  fs.FileMode = 0o700
	fileMode fs.FileMode = 0o600
)

// DefaultPath is the events file inside a pgbrain home directory.
func DefaultPath(home string) string { return filepath.Join(home, "events.jsonl") }

// ResolvePath picks the events path: an explicit flag wins over the value of
// PGBRAIN_EVENTS_PATH (passed as env), which wins over the default under home.
func ResolvePath(flag, env, home string) string {
	switch {
	case flag != "":
		return flag
	case env != "":
		return env
	default:
		return DefaultPath(home)
	}
}

// RotatedPath is where the previous active file is kept after rotation.
func RotatedPath(path string) string { return path + ".1" }

// Options tunes a Writer. The zero value gives the defaults.
type Options struct {
	// MaxBytes is the largest the active file may grow before a write
	// rotates it; <= 0 means DefaultMaxBytes.
	MaxBytes int64
	// Errors receives one line per distinct kind of write failure;
	// nil means os.Stderr.
	Errors io.Writer
	// Now stamps events that arrive without a timestamp; nil means time.Now.
	Now func() time.Time
}

// Writer appends events to a JSONL file. It is safe for concurrent use and
// lossy by design: a failed write drops the event and never reaches the tool
// call that produced it. A nil *Writer drops everything silently, which lets
// callers run with events disabled without nil checks.
type Writer struct {
	path string
	opts Options

	mu       sync.Mutex
	f        *os.File
	closed   bool
	torn     bool // the last write was partial; start the next on a fresh line
	reported map[string]bool
	dropped  uint64
}

// Open prepares path for appending, creating a missing directory with mode
// 0700 and the file with mode 0600, and tightening a looser existing file to
// 0600. Existing directories keep their mode: the path may sit in a directory
// the operator owns for other reasons. The file itself is opened without
// following a symbolic link and refused unless it is a regular file owned
// by the current user, so a link planted at the path can neither redirect
// the events elsewhere nor have its target's mode changed.
func Open(path string, opts Options) (*Writer, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Errors == nil {
		opts.Errors = os.Stderr
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	return &Writer{path: path, opts: opts, f: f, reported: map[string]bool{}}, nil
}

func openFile(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, dirMode); err != nil {
			return nil, fmt.Errorf("events: create directory %s: %w", dir, err)
		}
		// MkdirAll is subject to the umask; state the mode outright.
		if err := os.Chmod(dir, dirMode); err != nil {
			return nil, fmt.Errorf("events: set mode of %s: %w", dir, err)
		}
	}
	// O_NONBLOCK: opening a FIFO planted at the path must not hang; it is
	// refused just below.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, fileMode)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("events: %s is a symbolic link; refusing to follow it: remove it or give the real path with --events-path or $%s", path, EnvPath)
	}
	if err != nil {
		return nil, fmt.Errorf("events: open %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("events: stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("events: %s is not a regular file; remove it or give another path with --events-path or $%s", path, EnvPath)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		f.Close()
		return nil, fmt.Errorf("events: %s is owned by uid %d, not by you (uid %d); refusing to write to it: remove it or give another path with --events-path or $%s", path, st.Uid, os.Getuid(), EnvPath)
	}
	if fi.Mode().Perm()&^fileMode != 0 {
		if err := f.Chmod(fileMode); err != nil {
			f.Close()
			return nil, fmt.Errorf("events: set mode of %s: %w", path, err)
		}
	}
	return f, nil
}

// Path is the active file's path.
func (w *Writer) Path() string {
	if w == nil {
		return ""
	}
	return w.path
}

// Dropped counts events lost to write failures since Open.
func (w *Writer) Dropped() uint64 {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// Write redacts ev.ArgsSummary and scrubs its message (see Clean), stamps a missing timestamp and appends the
// event as one line with a single write call. It never fails the caller.
func (w *Writer) Write(ev Event) {
	if w == nil {
		return
	}
	if ev.Timestamp.IsZero() {
		ev.Timestamp = w.opts.Now()
	}
	ev, _ = Clean(ev)
	line, err := ev.MarshalJSON()
	if err != nil {
		w.mu.Lock()
		w.drop("encode", err)
		w.mu.Unlock()
		return
	}
	line = append(line, '\n')

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		w.drop("write", fmt.Errorf("events: write %s: %w", w.path, os.ErrClosed))
		return
	}
	size, err := w.current()
	if err != nil {
		w.drop("open", err)
		return
	}
	if size > 0 && size+int64(len(line)) > w.opts.MaxBytes {
		switch err := w.rotate(); {
		case err == nil:
			size = 0
		case w.f == nil:
			w.drop("rotate", err) // renamed, but no new file to write to
			return
		default:
			// The rename failed: keep the event in the oversized file
			// rather than lose it.
			w.report("rotate", err)
		}
	}
	if w.torn && size > 0 {
		line = append([]byte{'\n'}, line...)
	}
	n, err := w.f.Write(line)
	switch {
	case err != nil:
		w.torn = n > 0
		w.drop("write", fmt.Errorf("events: write %s: %w", w.path, err))
	default:
		w.torn = false
	}
}

// current makes sure the open file is the one at path, reopening when it was
// rotated or removed by someone else or the descriptor went bad, and returns
// its size.
func (w *Writer) current() (int64, error) {
	if w.f != nil {
		fdInfo, fdErr := w.f.Stat()
		pathInfo, pathErr := os.Lstat(w.path)
		if fdErr == nil && pathErr == nil && os.SameFile(fdInfo, pathInfo) {
			return fdInfo.Size(), nil
		}
		w.f.Close()
		w.f = nil
	}
	f, err := openFile(w.path)
	if err != nil {
		return 0, err
	}
	w.f = f
	w.torn = false
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("events: stat %s: %w", w.path, err)
	}
	return fi.Size(), nil
}

// rotate renames the active file over the single kept .1 and starts afresh.
func (w *Writer) rotate() error {
	if err := os.Rename(w.path, RotatedPath(w.path)); err != nil {
		return fmt.Errorf("events: rotate %s: %w", w.path, err)
	}
	w.f.Close()
	w.f = nil
	f, err := openFile(w.path)
	if err != nil {
		return err
	}
	w.f = f
	w.torn = false
	return nil
}

// drop counts a lost event and reports its cause. Callers hold w.mu.
func (w *Writer) drop(op string, err error) {
	w.dropped++
	w.report(op, err)
}

// report prints the first failure of each kind; a kind is the failing step
// plus the errno or error type, so a full disk is reported once rather than
// once per tool call. Callers hold w.mu.
func (w *Writer) report(op string, err error) {
	kind := op + ":" + errorKind(err)
	if w.reported[kind] {
		return
	}
	w.reported[kind] = true
	fmt.Fprintf(w.opts.Errors, "pgbrain: events: %v (further %s errors of this kind are not reported)\n", err, op)
}

func errorKind(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return fmt.Sprintf("errno %d", int(errno))
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			break
		}
		err = next
	}
	if errors.Is(err, os.ErrClosed) {
		return "closed"
	}
	return fmt.Sprintf("%T", err)
}

// Close closes the file; later writes are dropped.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		return fmt.Errorf("events: close %s: %w", w.path, err)
	}
	return nil
}
