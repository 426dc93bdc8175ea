package pii

import (
	"regexp"
	"slices"
	"strings"
)

// window limits a regular expression to the text around the literal hints
// its matches must contain. Go's expressions run in linear time but at a
// few MB/s for these patterns; most text holds no hint at all, and where it
// does, the windows are merged so no byte is scanned twice.
type window struct {
	before, after int             // bytes kept on either side of a hint
	extend        func(byte) bool // keep growing the end while true
}

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// spans returns the merged byte ranges of text around every occurrence of
// the hints (case-sensitive).
func (w window) spans(text string, hints []string) [][2]int {
	var at []int
	for _, h := range hints {
		for from := 0; ; {
			k := strings.Index(text[from:], h)
			if k < 0 {
				break
			}
			at = append(at, from+k)
			from += k + 1
		}
	}
	slices.Sort(at)
	return w.around(text, at)
}

// around returns the merged byte ranges of text around the ascending
// positions at. Starts are moved back to a non-word byte, so word boundaries
// in the expression see the real text, and ends are grown while w.extend
// holds.
func (w window) around(text string, at []int) [][2]int {
	var out [][2]int
	for _, p := range at {
		s, e := max(0, p-w.before), min(len(text), p+w.after)
		last := -1
		if n := len(out); n > 0 {
			last = out[n-1][1]
		}
		for s > 0 && s > last && isWordByte(text[s-1]) {
			s--
		}
		if s <= last {
			e = max(e, last)
		}
		for e < len(text) && w.extend(text[e]) {
			e++
		}
		if s <= last {
			out[len(out)-1][1] = e
			continue
		}
		out = append(out, [2]int{s, e})
	}
	return out
}

// hintIndex finds where the literal hints of several sets occur in a text
// in a single pass; looking for each hint in turn reads the text once per
// hint, dozens of times. Hints are found in the lower-cased text, and exact
// ones are then checked against the original.
type hintIndex struct {
	pairs [1 << 16]uint8 // a hint's first two bytes, lower-cased → 1 + index into refs
	refs  [][]hintRef
	sets  int
}

type hintRef struct {
	hint  string // as matched: lower-case, or as written when exact
	exact bool   // match the original text, case-sensitively
	set   int
}

// hintSet is one set of hints for newHintIndex.
type hintSet struct {
	hints []string
	exact bool
}

// newHintIndex indexes sets of hints of at least two bytes; find reports
// positions per set, in the order given.
func newHintIndex(sets ...hintSet) *hintIndex {
	x := &hintIndex{sets: len(sets)}
	for i, set := range sets {
		for _, h := range set.hints {
			if len(h) < 2 {
				panic("pii: hint shorter than two bytes: " + h)
			}
			l := asciiLower(h)
			if !set.exact {
				h = l
			}
			key := uint16(l[0])<<8 | uint16(l[1])
			if x.pairs[key] == 0 {
				if len(x.refs) == 255 {
					panic("pii: too many hint prefixes")
				}
				x.refs = append(x.refs, nil)
				x.pairs[key] = uint8(len(x.refs))
			}
			r := x.pairs[key] - 1
			x.refs[r] = append(x.refs[r], hintRef{hint: h, exact: set.exact, set: i})
		}
	}
	return x
}

// find returns, for each set, the ascending positions where one of its
// hints starts in text (a position twice when two hints start there).
// lower is asciiLower(text).
func (x *hintIndex) find(text, lower string) [][]int {
	out := make([][]int, x.sets)
	for i := 0; i+1 < len(lower); i++ {
		r := x.pairs[uint16(lower[i])<<8|uint16(lower[i+1])]
		if r == 0 {
			continue
		}
		for _, h := range x.refs[r-1] {
			src := lower
			if h.exact {
				src = text
			}
			if strings.HasPrefix(src[i:], h.hint) {
				out[h.set] = append(out[h.set], i)
			}
		}
	}
	return out
}

// findAll runs re over text within spans and returns absolute submatch
// indices.
func findAll(re *regexp.Regexp, text string, spans [][2]int) [][]int {
	var out [][]int
	for _, sp := range spans {
		for _, m := range re.FindAllStringSubmatchIndex(text[sp[0]:sp[1]], -1) {
			for i := range m {
				if m[i] >= 0 {
					m[i] += sp[0]
				}
			}
			out = append(out, m)
		}
	}
	return out
}
