package pii

import (
	"regexp"
	"slices"
	"testing"
)

func FuzzClassify(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		got := Classify(text)
		for i, c := range got {
			if !Valid(c) {
				t.Fatalf("Classify(%q) returned unknown category %q", text, c)
			}
			if i > 0 && got[i-1] >= c {
				t.Fatalf("Classify(%q) = %v, not sorted and distinct", text, got)
			}
		}
	})
}

func FuzzFind(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		ms := Find(text)
		checkMatches(t, text, ms)
		cats := Classify(text)
		for _, m := range ms {
			if _, ok := slices.BinarySearch(cats, m.Category); !ok && !onlyDocumentation(text, m) {
				t.Fatalf("Find(%q) found %s but Classify = %v", text, m.Category, cats)
			}
		}
	})
}

// emailRE is the specification emailSpans implements by hand.
var emailRE = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@(?:[A-Za-z0-9\-]+\.)+[A-Za-z]{2,}`)

func FuzzEmailSpans(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		var want [][2]int
		for _, m := range emailRE.FindAllStringIndex(text, -1) {
			want = append(want, [2]int{m[0], m[1]})
		}
		if got := emailSpans(text, false, func(string) bool { return true }); !slices.Equal(got, want) {
			t.Fatalf("emailSpans(%q) = %v, expression gives %v", text, got, want)
		}
	})
}

// onlyDocumentation reports that every detection inside m of m's category is
// a documentation value, which Classify ignores and Find does not.
func onlyDocumentation(text string, m Match) bool {
	for _, c := range detect(text, nil) {
		if c.start < m.End && m.Start < c.end && kinds[c.kind].category == m.Category && !nonIdentifying(text, c) {
			return false
		}
	}
	return true
}
