package pii

import (
	"slices"
	"testing"
)

func TestWindowSpans(t *testing.T) {
	w := window{before: 2, after: 3, extend: isWordByte}
	tests := []struct {
		text  string
		hints []string
		want  [][2]int
	}{
		{"no hint here", []string{"zz"}, nil},
		// Start moves back to a word boundary, end grows to the end of a word.
		{"say abcdefghij now", []string{"ef"}, [][2]int{{4, 14}}},
		// Overlapping windows merge.
		{"k1 k2 k3", []string{"k"}, [][2]int{{0, 8}}},
		// Distant windows stay apart.
		{"k1 ............ k2", []string{"k"}, [][2]int{{0, 3}, {14, 18}}},
		// Several hints, found in any order, come out sorted.
		{"bb .......... aa", []string{"aa", "bb"}, [][2]int{{0, 3}, {12, 16}}},
	}
	for _, tt := range tests {
		if got := w.spans(tt.text, tt.hints); !slices.Equal(got, tt.want) {
			t.Errorf("spans(%q, %q) = %v, want %v", tt.text, tt.hints, got, tt.want)
		}
	}
}
