package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Refused input exits 2 before any database is opened, naming the fix.
func TestSearchRefusesBadQueries(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"oversized", []string{"search", strings.Repeat("a", 51201)}, "shorten it"},
		{"invalid UTF-8", []string{"query", "a\xffb"}, "re-encode it as UTF-8"},
		{"NUL", []string{"query", "a\x00b"}, "remove it"},
		{"bad detail", []string{"query", "--detail", "max", "x"}, "not one of low, medium, high"},
		{"bad limit", []string{"search", "--limit", "101", "x"}, "use 1 to 100"},
		{"no query", []string{"query"}, "give exactly one query"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"pgbrain", "--home", t.TempDir()}, tc.args...)
			code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
				t.Fatalf("exit %d, stderr %q, stdout %q; want exit 2 and %q on stderr only", code, stderr.String(), stdout.String(), tc.want)
			}
		})
	}
}
