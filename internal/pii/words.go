package pii

import (
	"slices"
	"strings"
)

// word is a run of ASCII letters and digits in the lower-cased text.
type word struct{ s, e int }

// wordScan lets term detectors match phrases word by word: one pass over the
// text, then table look-ups, instead of one large alternation per list.
type wordScan struct {
	f  *finder
	ws []word
}

func splitWords(lower string) []word {
	// Prose averages a word per six bytes or so; starting near that size
	// saves most of the growing.
	ws := make([]word, 0, len(lower)/8+1)
	for s, e := runAt(lower, 0, isLowerAlnum); s < len(lower); s, e = runAt(lower, e, isLowerAlnum) {
		ws = append(ws, word{s, e})
	}
	return ws
}

// runAt returns the bounds of the first maximal run of bytes of s at or
// after i for which in holds; start is len(s) when there is none.
func runAt(s string, i int, in func(byte) bool) (start, end int) {
	for i < len(s) && !in(s[i]) {
		i++
	}
	start = i
	for i < len(s) && in(s[i]) {
		i++
	}
	return start, i
}

func isLowerAlnum(c byte) bool { return isDigit(c) || isLowerByte(c) }

func (w *wordScan) word(k int) string { return w.f.lower[w.ws[k].s:w.ws[k].e] }

// gapAfter is the text between word k and word k+1.
func (w *wordScan) gapAfter(k int) string { return w.f.lower[w.ws[k].e:w.ws[k+1].s] }

// joined reports whether words k and k+1 belong to one phrase: separated only
// by spaces, hyphens or apostrophes ("hiv-positive", "i'm").
func (w *wordScan) joined(k int) bool {
	if k+1 >= len(w.ws) {
		return false
	}
	g := w.gapAfter(k)
	return len(g) <= 6 && strings.Trim(strings.ReplaceAll(g, "’", ""), " \t\r\n-'") == ""
}

// capitalized reports whether word k starts with a capital in the original.
func (w *wordScan) capitalized(k int) bool { return isUpper(w.f.text[w.ws[k].s]) }

// phraseTable maps a phrase's first word to the remaining words of each
// phrase starting with it.
type phraseTable map[string][][]string

func phrases(list ...string) phraseTable {
	t := phraseTable{}
	for _, p := range list {
		ws := strings.Fields(p)
		t[ws[0]] = append(t[ws[0]], ws[1:])
	}
	return t
}

func wordSet(list ...string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, w := range list {
		m[w] = true
	}
	return m
}

// match returns one past the last word of the longest phrase in t starting at
// word k, or -1.
func (w *wordScan) match(t phraseTable, k int) int {
	best := -1
	for _, rest := range t[w.word(k)] {
		j := k
		for _, r := range rest {
			if !w.joined(j) || w.word(j+1) != r {
				j = -1
				break
			}
			j++
		}
		if j >= 0 && j+1 > best {
			best = j + 1
		}
	}
	return best
}

// addWords records words [from, to) as one detection.
func (w *wordScan) addWords(from, to int, kind string) {
	w.f.add(w.ws[from].s, w.ws[to-1].e, kind)
}

// near reports whether any position in sorted lies within dist bytes of
// [s,e).
func near(sorted []int, s, e, dist int) bool {
	i, _ := slices.BinarySearch(sorted, s-dist)
	return i < len(sorted) && sorted[i] <= e+dist
}
