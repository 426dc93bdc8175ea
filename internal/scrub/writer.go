package scrub

import "io"

// Writer scrubs every write (Message) before passing it on. Messages are written with
// one Fprintf each, so a query quoted in one is scrubbed whole; a value
// split across two writes is not seen whole and may pass.
type Writer struct{ w io.Writer }

// NewWriter returns w wrapped so that what is written to it goes through
// Scrub; wrapping a Writer again returns it unchanged.
func NewWriter(w io.Writer) *Writer {
	if sw, ok := w.(*Writer); ok {
		return sw
	}
	return &Writer{w: w}
}

// Write writes Message(p) and reports len(p) on success, as callers expect
// of a writer that consumed all of p.
func (sw *Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(sw.w, Message(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
