package ingest

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestAncestors(t *testing.T) {
	for _, tt := range []struct {
		path string
		want []string
	}{
		{"/", nil},
		{"/a", []string{"/"}},
		{"/a/b/c", []string{"/a/b", "/a", "/"}},
	} {
		got := ancestors(filepath.FromSlash(tt.path))
		var want []string
		for _, w := range tt.want {
			want = append(want, filepath.FromSlash(w))
		}
		if !slices.Equal(got, want) {
			t.Errorf("ancestors(%q) = %q, want %q", tt.path, got, want)
		}
	}
}
