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
