package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const (
	brainDir  = "../../sample/brain"
	qrelsPath = "../../sample/qrels.json"
)

// slugRE is the slug shape the pages table accepts: lower-case path
// segments without the .md suffix.
var slugRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*(/[a-z0-9][a-z0-9-]*)*$`)

type qrelsFile struct {
	SchemaVersion int `json:"schema_version"`
	Queries       []struct {
		QueryID           string   `json:"query_id"`
		Query             string   `json:"query"`
		Style             string   `json:"style"`
		RelevantSlugs     []string `json:"relevant_slugs"`
		FirstRelevantSlug string   `json:"first_relevant_slug"`
	} `json:"queries"`
}

// TestQrelsSlugsExist keeps the hand-written judgements in step with the
// generated pages: every judged slug must be a page in sample/brain.
func TestQrelsSlugsExist(t *testing.T) {
	b, err := os.ReadFile(qrelsPath)
	if err != nil {
		t.Fatalf("read qrels: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var q qrelsFile
	if err := dec.Decode(&q); err != nil {
		t.Fatalf("decode %s: %v", qrelsPath, err)
	}
	if q.SchemaVersion != 1 {
		t.Fatalf("schema_version = %d, want 1", q.SchemaVersion)
	}
	if len(q.Queries) < 60 {
		t.Errorf("%d queries, want at least 60", len(q.Queries))
	}
	ids := map[string]bool{}
	texts := map[string]bool{}
	for _, e := range q.Queries {
		if ids[e.QueryID] {
			t.Errorf("duplicate query_id %s", e.QueryID)
		}
		ids[e.QueryID] = true
		if texts[e.Query] {
			t.Errorf("%s: duplicate query %q", e.QueryID, e.Query)
		}
		texts[e.Query] = true
		if e.Style != "keyword" && e.Style != "paraphrase" {
			t.Errorf("%s: style %q, want keyword or paraphrase", e.QueryID, e.Style)
		}
		if n := len(e.RelevantSlugs); n < 1 || n > 3 {
			t.Errorf("%s: %d relevant slugs, want 1-3", e.QueryID, n)
		}
		first := false
		for _, s := range e.RelevantSlugs {
			first = first || s == e.FirstRelevantSlug
			if _, err := os.Stat(filepath.Join(brainDir, filepath.FromSlash(s)+".md")); err != nil {
				t.Errorf("%s: relevant slug %s has no page: %v", e.QueryID, s, err)
			}
		}
		if !first {
			t.Errorf("%s: first_relevant_slug %s is not among relevant_slugs", e.QueryID, e.FirstRelevantSlug)
		}
	}
}

// TestPagesShape checks every generated page has a valid slug and the
// frontmatter fields the importer relies on.
func TestPagesShape(t *testing.T) {
	n := 0
	err := filepath.WalkDir(brainDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		n++
		rel, err := filepath.Rel(brainDir, p)
		if err != nil {
			return err
		}
		slug := strings.TrimSuffix(filepath.ToSlash(rel), ".md")
		if !slugRE.MatchString(slug) {
			t.Errorf("bad slug %q", slug)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fm, body, ok := strings.Cut(strings.TrimPrefix(string(b), "---\n"), "\n---\n")
		if !ok || !strings.HasPrefix(string(b), "---\n") {
			t.Errorf("%s: no frontmatter", slug)
			return nil
		}
		for _, key := range []string{"title: ", "type: ", "tags: [", "import_path: "} {
			if !strings.Contains(fm, "\n"+key) && !strings.HasPrefix(fm, key) {
				t.Errorf("%s: frontmatter lacks %q", slug, key)
			}
		}
		if !strings.HasPrefix(body, "\n# ") {
			t.Errorf("%s: body does not start with a title heading", slug)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", brainDir, err)
	}
	if n < 1000 {
		t.Errorf("%d pages, want at least 1000", n)
	}
}

func TestParseAPILine(t *testing.T) {
	tests := []struct {
		line, pkg, key string
	}{
		{"pkg net/http, type Client struct, Timeout time.Duration", "net/http", "field Client.Timeout"},
		{"pkg net/http, method (*Request) Context() context.Context", "net/http", "method Request.Context"},
		{"pkg net/http, type HandlerFunc func(ResponseWriter, *Request)", "net/http", "type HandlerFunc"},
		{"pkg io, type ByteScanner interface { ReadByte, UnreadByte }", "io", "type ByteScanner"},
		{"pkg io, type ByteScanner interface, UnreadByte() error", "io", "method ByteScanner.UnreadByte"},
		{"pkg debug/macho, type Rpath struct, embedded LoadBytes", "debug/macho", "field Rpath.LoadBytes"},
		{"pkg sync/atomic, type Pointer[$0 interface{}] struct #50860", "sync/atomic", "type Pointer"},
		{"pkg sync/atomic, method (*Pointer[$0]) Load() *$0 #50860", "sync/atomic", "method Pointer.Load"},
		{"pkg syscall (linux-386), const AF_INET = 2", "syscall", "const AF_INET"},
		{"pkg slices, func SortFunc[$0 interface{ ~[]$1 }, $1 interface{}]($0, func($1, $1) int)", "slices", "func SortFunc"},
	}
	for _, tt := range tests {
		pkg, key, ok := parseAPILine(tt.line)
		if !ok || pkg != tt.pkg || key != tt.key {
			t.Errorf("parseAPILine(%q) = %q, %q, %v; want %q, %q", tt.line, pkg, key, ok, tt.pkg, tt.key)
		}
	}
}
