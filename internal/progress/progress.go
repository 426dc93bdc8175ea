// Package progress draws a one-line progress indicator on a terminal. It is
// silent when its writer is not a terminal (or when disabled, e.g. --json),
// so piped and logged output stays clean.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Bar is a progress line. The zero value is disabled.
type Bar struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	last    time.Time
	started time.Time
	drawn   bool
}

// New returns a bar writing to w, enabled only when w is a terminal and
// enabled is true.
func New(w io.Writer, label string, enabled bool) *Bar {
	if !enabled || !IsTerminal(w) {
		return &Bar{}
	}
	return &Bar{w: w, label: label, started: time.Now()}
}

// IsTerminal reports whether w is a terminal. Other character devices,
// such as /dev/null, are not: output sent there is discarded, not read.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f != nil && term.IsTerminal(int(f.Fd()))
}

// Update redraws the bar, at most ten times a second.
func (b *Bar) Update(done, total int) {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if done < total && now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	const width = 30
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	rate := float64(done) / now.Sub(b.started).Seconds()
	fmt.Fprintf(b.w, "\r%s [%s%s] %d/%d (%.0f/s)", b.label, strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total, rate)
	b.drawn = true
}

// Done ends the line.
func (b *Bar) Done() {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprint(b.w, "\r\033[K")
	}
}
