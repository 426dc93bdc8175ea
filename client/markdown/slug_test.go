package markdown

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestSlugFromPath(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"alice.md", "alice"},
		{"people/alice.md", "people/alice"},
		{"People/Alice Smith.md", "people/alice-smith"},
		{`People\Alice Smith.MD`, "people/alice-smith"},
		{"notes/2024-01-01 Meeting!!.md", "notes/2024-01-01-meeting"},
		{"./a//b.md", "a/b"},
		{"  Spaced  /  x .Md", "spaced/x"},
		{"Café Crème.md", "caf-cr-me"},
		{"v1.2/release_notes.md", "v1.2/release_notes"},
		{"_drafts/.hidden.md", "drafts/hidden"},
		{"foo.md.md", "foo.md"},
		{"a - b -- c.md", "a-b-c"},
		{"Deals/ACME (Seed) #2.md", "deals/acme-seed-2"},
		{"a/b/c/d.md", "a/b/c/d"},
		{"c:notes.md", "c-notes"},
		{strings.Repeat("a", 509) + ".md", strings.Repeat("a", 509)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := SlugFromPath(tt.in)
			if err != nil {
				t.Fatalf("SlugFromPath(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("SlugFromPath(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !ValidSlug(got) {
				t.Fatalf("SlugFromPath(%q) = %q, which ValidSlug rejects", tt.in, got)
			}
			again, err := SlugFromPath(got + ".md")
			if err != nil || again != got {
				t.Fatalf("SlugFromPath(%q) = %q, %v; want it unchanged", got+".md", again, err)
			}
		})
	}
}

func TestSlugFromPathErrors(t *testing.T) {
	tests := []struct {
		name, in, wantMsg string
	}{
		{"empty", "", "empty path"},
		{"not markdown", "notes/a.txt", "not a .md file"},
		{"no extension", "notes/a", "not a .md file"},
		{"directory", "notes/a.md/", "names a directory"},
		{"absolute", "/home/a.md", "absolute path"},
		{"windows absolute", `C:\notes\a.md`, "absolute path"},
		{"parent escape", "../a.md", `".." leaves the brain directory`},
		{"parent inside", "a/../../b.md", `".." leaves the brain directory`},
		{"only dots", "./.", "no file name"},
		{"extension only", ".md", `the file name before ".md" is empty`},
		{"hidden extension only", "a/.md", `the file name before ".md" is empty`},
		{"punctuation name", "!!!.md", `segment "!!!" has no letters or digits`},
		{"punctuation dir", "a/***/b.md", `segment "***" has no letters or digits`},
		{"non-ascii name", "日本.md", "has no letters or digits"},
		{"too long", strings.Repeat("a", 513) + ".md", "the limit is 512"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SlugFromPath(tt.in)
			if err == nil {
				t.Fatalf("SlugFromPath(%q) = %q, want an error", tt.in, got)
			}
			if !errors.Is(err, ErrInvalidPath) {
				t.Fatalf("error %v does not wrap ErrInvalidPath", err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("error %q does not mention %q", err, tt.wantMsg)
			}
			if tt.in != "" && !strings.Contains(err.Error(), strconv.Quote(tt.in)) {
				t.Fatalf("error %q does not name the input", err)
			}
		})
	}
}

func TestValidSlug(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"a", true},
		{"people/alice-smith", true},
		{"v1.2/release_notes", true},
		{"0/1/2", true},
		{"a.", true},
		{strings.Repeat("a", 512), true},
		{strings.Repeat("a", 513), false},
		{"", false},
		{"People/alice", false},
		{"people/", false},
		{"/people", false},
		{"people//alice", false},
		{"-a", false},
		{".a", false},
		{"a/_b", false},
		{"a b", false},
		{"a\n", false},
		{"café", false},
		{`a\b`, false},
	}
	re := regexp.MustCompile(SlugPattern)
	for _, tt := range tests {
		if got := ValidSlug(tt.in); got != tt.want {
			t.Errorf("ValidSlug(%q) = %v, want %v", tt.in, got, tt.want)
		}
		// The SQL CHECK is the pattern plus the length limit; both must agree.
		if sql := re.MatchString(tt.in) && len(tt.in) <= MaxSlugLen; sql != tt.want {
			t.Errorf("SQL rule for %q = %v, want %v", tt.in, sql, tt.want)
		}
	}
}
