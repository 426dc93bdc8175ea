// Package columns aligns tab-separated text into columns by the width it
// takes on a terminal: text/tabwriter counts runes, so a column holding
// 東京 or an emoji (two cells wide each) pushes the rest of its row out of
// line. The layout is tabwriter's (a cell ends at a tab; consecutive lines
// that have a column align it; the text after a line's last tab is not
// aligned), with cell widths from the Unicode East Asian Width property.
package columns

import (
	"bytes"
	"io"
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// Writer buffers what is written and aligns it on Flush, like
// tabwriter.NewWriter(w, 0, 4, padding, ' ', 0).
type Writer struct {
	out     io.Writer
	padding int
	buf     bytes.Buffer
}

// New returns a Writer that separates columns by at least padding spaces.
func New(out io.Writer, padding int) *Writer { return &Writer{out: out, padding: padding} }

// Write buffers p until Flush.
func (t *Writer) Write(p []byte) (int, error) { return t.buf.Write(p) }

type line struct {
	cells  []string // each ended by a tab
	tail   string   // after the last tab
	widths []int    // the column width of each cell
}

// Flush writes the buffered text aligned and empties the buffer.
func (t *Writer) Flush() error {
	text := t.buf.String()
	t.buf.Reset()
	if text == "" {
		return nil
	}
	raw := strings.Split(text, "\n")
	lines := make([]line, len(raw))
	for i, r := range raw {
		parts := strings.Split(r, "\t")
		lines[i] = line{cells: parts[:len(parts)-1], tail: parts[len(parts)-1]}
		lines[i].widths = make([]int, len(lines[i].cells))
	}
	t.align(lines, 0, 0, len(lines))
	var out bytes.Buffer
	for i, l := range lines {
		for j, c := range l.cells {
			out.WriteString(c)
			out.WriteString(strings.Repeat(" ", max(0, l.widths[j]-Width(c))))
		}
		out.WriteString(l.tail)
		if i < len(lines)-1 {
			out.WriteByte('\n')
		}
	}
	_, err := t.out.Write(out.Bytes())
	return err
}

// align gives column col the same width in every run of consecutive lines
// in [lo, hi) that have it, then aligns the next column within each run.
func (t *Writer) align(lines []line, col, lo, hi int) {
	for i := lo; i < hi; {
		if len(lines[i].cells) <= col {
			i++
			continue
		}
		j, w := i, 0
		for ; j < hi && len(lines[j].cells) > col; j++ {
			w = max(w, Width(lines[j].cells[col])+t.padding)
		}
		for k := i; k < j; k++ {
			lines[k].widths[col] = w
		}
		t.align(lines, col+1, i, j)
		i = j
	}
}

// Width is how many terminal cells s takes: two for wide and fullwidth
// characters (CJK, most emoji), none for combining marks and invisible
// format characters, one for the rest.
func Width(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf): // Cf holds the zero width space and joiners
		default:
			switch width.LookupRune(r).Kind() {
			case width.EastAsianWide, width.EastAsianFullwidth:
				n += 2
			default:
				n++
			}
		}
	}
	return n
}
