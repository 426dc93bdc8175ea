package main

import (
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/ingest"
)

// Collision warnings name both files; two names that differ only in
// Unicode normalization print alike, so their code points are spelled out.
func TestCollisionWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    ingest.Collision
		want string
	}{
		{ingest.Collision{Path: "C#.md", Slug: "c-2", PlainSlug: "c", KeptBy: "C.md"},
			"pgbrain: C#.md is stored as c-2: C.md already maps to c\n"},
		{ingest.Collision{Path: "Cafe\u0301.md", Slug: "café-2", PlainSlug: "café", KeptBy: "Caf\u00e9.md"},
			`pgbrain: "Cafe\u0301.md" is stored as café-2: "Caf\u00e9.md", the same name in another Unicode normalization, already maps to café` + "\n"},
		{ingest.Collision{Path: "A\u00adB.md", Slug: "ab-2", PlainSlug: "ab", KeptBy: "AB.md"},
			`pgbrain: "A\u00adB.md" is stored as ab-2: "AB.md", the same name with other invisible characters, already maps to ab` + "\n"},
		{ingest.Collision{Path: "Cafe\u0301\u200d.md", Slug: "café-2", PlainSlug: "café", KeptBy: "Caf\u00e9.md"},
			`pgbrain: "Cafe\u0301\u200d.md" is stored as café-2: "Caf\u00e9.md", the same name with other invisible characters, already maps to café` + "\n"},
		{ingest.Collision{Path: "B.md", Slug: "b-2", PlainSlug: "b"},
			"pgbrain: B.md is stored as b-2, the slug an earlier import gave it when another file mapped to b\n"},
	}
	for _, tt := range tests {
		var out strings.Builder
		printWarnings(&out, ingest.Summary{Collisions: []ingest.Collision{tt.c}})
		if out.String() != tt.want {
			t.Errorf("collision %+v:\n got %q\nwant %q", tt.c, out.String(), tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 files"}, {1, "1 file"}, {2, "2 files"}, {20000, "20000 files"}} {
		if got := count(tt.n, "file", "files"); got != tt.want {
			t.Errorf("count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
