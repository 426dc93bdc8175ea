package markdown

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// Seeds live in testdata/fuzz/<FuzzName>/; the f.Add calls below cover the
// shapes the corpus files do not.

func FuzzParse(f *testing.F) {
	f.Add("people/alice", []byte("---\ntitle: Alice\ntags: [a, b]\n---\n# Alice\n\nfacts\n\n## Timeline\n- 2024 met\n"))
	f.Add("x", []byte("\ufeff---\r\na: 1\r\n---\r\n```\n# no\n```\n"))
	f.Add("x", []byte("---\n- list\n---\n"))
	f.Add("Bad Slug", []byte("text"))
	f.Add("readme", []byte("Tool - a thing\r\n===\r\n\n- list\n===\n"))
	f.Fuzz(func(t *testing.T, slug string, data []byte) {
		p, err := Parse(slug, data)
		if err != nil {
			if p != nil {
				t.Fatalf("Parse returned a page and an error %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		if !ValidSlug(slug) {
			t.Fatalf("Parse accepted invalid slug %q", slug)
		}
		if p.Slug != slug {
			t.Fatalf("Slug = %q, want %q", p.Slug, slug)
		}
		if p.Body != string(data) {
			t.Fatalf("Body differs from the input")
		}
		if p.Title == "" || p.Type == "" {
			t.Fatalf("empty Title %q or Type %q", p.Title, p.Type)
		}
		if _, err := json.Marshal(p.Frontmatter); err != nil {
			t.Fatalf("Frontmatter is not JSON-marshalable: %v", err)
		}
		for _, opt := range []ChunkOptions{{}, {TargetWords: 7, OverlapWords: 3, MaxChunkBytes: 40}} {
			chunks := ChunkPage(p, opt)
			if len(chunks) == 0 {
				t.Fatalf("no chunks for a parsed page with title %q", p.Title)
			}
			checkChunks(t, p, opt, chunks)
		}
	})
}

func FuzzSlugFromPath(f *testing.F) {
	f.Add("People/Alice Smith.md")
	f.Add(`a\b\..\c.MD`)
	f.Add("./x/.md")
	f.Add("a\ufffd.md")
	f.Fuzz(func(t *testing.T, rel string) {
		slug, err := SlugFromPath(rel)
		if err != nil {
			if !errors.Is(err, ErrInvalidPath) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("SlugFromPath(%q) error %q: want one line wrapping ErrInvalidPath", rel, err)
			}
			return
		}
		if len(slug) > MaxSlugLen {
			t.Fatalf("SlugFromPath(%q) = %d bytes, over %d", rel, len(slug), MaxSlugLen)
		}
		checkSlug(t, rel, slug)
		suffixed := SuffixSlug(slug, rel)
		if len(suffixed) > MaxSlugLen || !ValidSlug(suffixed) || !sqlSlugCheck(t, suffixed) {
			t.Fatalf("SuffixSlug(%q, %q) = %q is not a valid slug", slug, rel, suffixed)
		}
		if suffixed == slug {
			t.Fatalf("SuffixSlug(%q, %q) left the slug unchanged", slug, rel)
		}
	})
}

// FuzzChunkPage drives the chunker with arbitrary text and options.
func FuzzChunkPage(f *testing.F) {
	f.Add("# A\n\none two. three four!\n\n```\ncode here\n```\n", "- e1\n- e2", "T", 3, 1, 16)
	f.Add(strings.Repeat("word ", 50), "", "", 10, 4, 30)
	f.Fuzz(func(t *testing.T, compiled, timeline, title string, target, overlap, maxBytes int) {
		if !utf8.ValidString(compiled) || !utf8.ValidString(timeline) || !utf8.ValidString(title) {
			return // Parse rejects such input before it reaches the chunker
		}
		if got, want := countWords(compiled), len(strings.Fields(compiled)); got != want {
			t.Fatalf("countWords = %d, strings.Fields gives %d", got, want)
		}
		// Keep option values small enough that a case stays fast.
		opt := ChunkOptions{TargetWords: target % 400, OverlapWords: overlap % 400, MaxChunkBytes: maxBytes % 10000}
		p := &Page{Title: title, Compiled: compiled, Timeline: timeline}
		chunks := ChunkPage(p, opt)
		checkChunks(t, p, opt, chunks)
		if again := ChunkPage(p, opt); !reflect.DeepEqual(chunks, again) {
			t.Fatal("ChunkPage is not deterministic")
		}
		hasText := strings.TrimSpace(compiled) != "" || strings.TrimSpace(title) != ""
		if hasCompiled := len(chunks) > 0 && chunks[0].Source == SourceCompiled; hasCompiled != hasText {
			t.Fatalf("compiled chunks present = %v, want %v", hasCompiled, hasText)
		}
		// Without overlap, chunks partition each section in order.
		opt.OverlapWords = -1
		var comp, tl strings.Builder
		for _, c := range ChunkPage(p, opt) {
			if c.Source == SourceCompiled {
				comp.WriteString(c.Text)
			} else {
				tl.WriteString(c.Text)
			}
		}
		want := compiled
		if strings.TrimSpace(compiled) == "" {
			want = title
		}
		if squash(comp.String()) != squash(want) || squash(tl.String()) != squash(timeline) {
			t.Fatalf("chunks without overlap do not reproduce the text")
		}
	})
}

// FuzzEscapeTimelineHeadings: quoted text, escaped, never gives its page a
// timeline, and only timeline headings change.
func FuzzEscapeTimelineHeadings(f *testing.F) {
	f.Add("plan:\n## Timeline\n- week 1: design\n")
	f.Add("   # timeline:\r\nx")
	f.Add("```\n## Timeline\n```\n#Timeline\n## Timeline of events")
	f.Fuzz(func(t *testing.T, quoted string) {
		esc := EscapeTimelineHeadings(quoted)
		if strings.ReplaceAll(esc, "\\#", "#") != strings.ReplaceAll(quoted, "\\#", "#") {
			t.Fatalf("escaping changed more than timeline headings: %q -> %q", quoted, esc)
		}
		p, err := Parse("session", []byte("# Session\n\n**user:** "+esc+"\n"))
		if err != nil {
			return // NUL, invalid UTF-8: refused before any timeline split
		}
		if p.Timeline != "" {
			t.Fatalf("quoted text %q (escaped %q) started a timeline: %q", quoted, esc, p.Timeline)
		}
	})
}
