package markdown

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name     string
		slug     string
		in       string
		title    string
		typ      string
		tags     []string
		fm       map[string]any
		compiled string
	}{
		{
			name:     "none",
			slug:     "people/alice",
			in:       "# Alice Smith\n\nWorks at Acme.\n",
			title:    "Alice Smith",
			typ:      "people",
			fm:       map[string]any{},
			compiled: "# Alice Smith\n\nWorks at Acme.",
		},
		{
			name:     "lf",
			slug:     "alice",
			in:       "---\ntitle: Alice\ntype: person\n---\n\nBody text.\n",
			title:    "Alice",
			typ:      "person",
			fm:       map[string]any{"title": "Alice", "type": "person"},
			compiled: "Body text.",
		},
		{
			name:     "crlf",
			slug:     "alice",
			in:       "---\r\ntitle: Alice\r\ntags: [a, b]\r\n---\r\nLine one.\r\nLine two.\r\n",
			title:    "Alice",
			typ:      "page",
			tags:     []string{"a", "b"},
			fm:       map[string]any{"title": "Alice", "tags": []any{"a", "b"}},
			compiled: "Line one.\nLine two.",
		},
		{
			name:     "bom",
			slug:     "alice",
			in:       "\ufeff---\ntitle: Alice\n---\nBody.",
			title:    "Alice",
			typ:      "page",
			fm:       map[string]any{"title": "Alice"},
			compiled: "Body.",
		},
		{
			name:     "bom without frontmatter",
			slug:     "alice",
			in:       "\ufeff# Alice\n",
			title:    "Alice",
			typ:      "page",
			fm:       map[string]any{},
			compiled: "# Alice",
		},
		{
			name:     "tags as comma string",
			slug:     "x",
			in:       "---\ntags: go,  machine learning , go,\n---\n",
			title:    "x",
			typ:      "page",
			tags:     []string{"go", "machine learning"},
			fm:       map[string]any{"tags": "go,  machine learning , go,"},
			compiled: "",
		},
		{
			name:     "tags as block list with scalars",
			slug:     "x",
			in:       "---\ntags:\n  - one\n  - 2\n  - true\n  -\n  - one\n---\ntext",
			title:    "x",
			typ:      "page",
			tags:     []string{"one", "2", "true"},
			fm:       map[string]any{"tags": []any{"one", 2, true, nil, "one"}},
			compiled: "text",
		},
		{
			name:     "tags as single number",
			slug:     "x",
			in:       "---\ntags: 2024\n---\n",
			title:    "x",
			typ:      "page",
			tags:     []string{"2024"},
			fm:       map[string]any{"tags": 2024},
			compiled: "",
		},
		{
			name:  "nested values",
			slug:  "companies/acme",
			in:    "---\ntitle: Acme Corp\nfounded: 2015-03-01\nrevenue: 1.5e6\nratio: .nan\nactive: yes\nmeta:\n  owner: {name: Bob, id: 7}\n  links: [a, b]\n1: numeric key\nnull: null key\n2024-01-01: dated key\n---\nAcme makes anvils.\n",
			title: "Acme Corp",
			typ:   "companies",
			fm: map[string]any{
				"title":   "Acme Corp",
				"founded": "2015-03-01",
				"revenue": 1.5e6,
				"ratio":   ".nan",
				"active":  "yes",
				"meta": map[string]any{
					"owner": map[string]any{"name": "Bob", "id": 7},
					"links": []any{"a", "b"},
				},
				"1":          "numeric key",
				"null":       "null key",
				"2024-01-01": "dated key",
			},
			compiled: "Acme makes anvils.",
		},
		{
			name:     "anchors and merge keys",
			slug:     "x",
			in:       "---\nbase: &b {a: 1}\nderived:\n  <<: *b\n  c: 2\n---\n",
			title:    "x",
			typ:      "page",
			fm:       map[string]any{"base": map[string]any{"a": 1}, "derived": map[string]any{"a": 1, "c": 2}},
			compiled: "",
		},
		{
			name:     "empty block",
			slug:     "x",
			in:       "---\n---\nHello",
			title:    "x",
			typ:      "page",
			fm:       map[string]any{},
			compiled: "Hello",
		},
		{
			name:     "comments only and closing at end of file",
			slug:     "x",
			in:       "---\n# nothing yet\n---",
			title:    "x",
			typ:      "page",
			fm:       map[string]any{},
			compiled: "",
		},
		{
			name:     "null document",
			slug:     "x",
			in:       "---\n~\n---\nHi",
			title:    "x",
			typ:      "page",
			fm:       map[string]any{},
			compiled: "Hi",
		},
		{
			name:     "delimiters with trailing blanks",
			slug:     "x",
			in:       "--- \ntitle: T\n---\t\nHi",
			title:    "T",
			typ:      "page",
			fm:       map[string]any{"title": "T"},
			compiled: "Hi",
		},
		{
			name:     "title and type as numbers, multi-line title collapsed",
			slug:     "x",
			in:       "---\ntitle: |\n  Two\n  lines\ntype: 42\n---\n",
			title:    "Two lines",
			typ:      "42",
			fm:       map[string]any{"title": "Two\nlines\n", "type": 42},
			compiled: "",
		},
		{
			name:     "blank title falls back to H1",
			slug:     "x",
			in:       "---\ntitle: \"  \"\ntype:\n---\n# Real Title #\n",
			title:    "Real Title",
			typ:      "page",
			fm:       map[string]any{"title": "  ", "type": nil},
			compiled: "# Real Title #",
		},
		{
			name:     "thematic break later is not frontmatter",
			slug:     "x",
			in:       "Intro\n---\nMore\n",
			title:    "x",
			typ:      "page",
			fm:       map[string]any{},
			compiled: "Intro\n---\nMore",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.slug, []byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if p.Title != tt.title {
				t.Errorf("Title = %q, want %q", p.Title, tt.title)
			}
			if p.Type != tt.typ {
				t.Errorf("Type = %q, want %q", p.Type, tt.typ)
			}
			if !reflect.DeepEqual(p.Tags, tt.tags) {
				t.Errorf("Tags = %#v, want %#v", p.Tags, tt.tags)
			}
			if !reflect.DeepEqual(p.Frontmatter, tt.fm) {
				t.Errorf("Frontmatter = %#v, want %#v", p.Frontmatter, tt.fm)
			}
			if p.Compiled != tt.compiled {
				t.Errorf("Compiled = %q, want %q", p.Compiled, tt.compiled)
			}
			if p.Body != tt.in {
				t.Errorf("Body = %q, want the input verbatim", p.Body)
			}
			if _, err := json.Marshal(p.Frontmatter); err != nil {
				t.Errorf("Frontmatter is not JSON-marshalable: %v", err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name    string
		slug    string
		in      string
		is      error
		wantMsg string
	}{
		{"broken yaml", "x", "---\ntitle: ok\nbad: [\n---\n", ErrFrontmatter, "frontmatter: yaml: line 3: did not find expected node content"},
		{"bad indentation", "x", "---\ntitle: x\n  y: 2\n---\n", ErrFrontmatter, "frontmatter: yaml: line 3: mapping values are not allowed"},
		// The parser names the line of the mapping the tab breaks.
		{"tab indentation", "x", "---\na: 1\n\tb: 2\n---\n", ErrFrontmatter, "frontmatter: yaml: line 2: found a tab character"},
		{"duplicate key", "x", "---\na: 1\na: 2\n---\n", ErrFrontmatter, `line 3: mapping key "a" already defined at line 2`},
		{"list instead of mapping", "x", "---\n- a\n- b\n---\n", ErrFrontmatter, "frontmatter: line 2: the block is a list, not a mapping"},
		{"scalar instead of mapping", "x", "---\njust text\n---\n", ErrFrontmatter, "frontmatter: line 2: the block is a plain value, not a mapping"},
		{"unclosed", "x", "---\ntitle: x\n\nbody", ErrFrontmatter, `the opening "---" on line 1 has no closing "---" line`},
		{"second document", "x", "---\na: 1\n--- b\n---\n", ErrFrontmatter, "line 3 starts a second YAML document"},
		{"unknown anchor", "x", "---\na: *nope\n---\n", ErrFrontmatter, "unknown anchor 'nope'"},
		{"complex key", "x", "---\n? [a]\n: b\n---\n", ErrFrontmatter, "invalid map key"},
		{"keys collide as text", "x", "---\n1: a\n1.0: b\n---\n", ErrFrontmatter, `the frontmatter has two keys that both read as "1"`},
		{"NUL escape in key", "x", "---\n? \"k\\0\"\n: v\n2: x\n---\n", ErrFrontmatter, `contains a NUL character`},
		{"NUL escape in value", "x", "---\nmeta:\n  k: \"a\\0b\"\n---\n", ErrFrontmatter, `"meta.k" contains a NUL character`},
		{"binary kept as text", "x", "---\nb: !!binary AP8=\nc: \"\\x00\"\n---\n", ErrFrontmatter, `"c" contains a NUL character`},
		{"title is a list", "x", "---\ntitle: [a, b]\n---\n", ErrFrontmatter, `"title" is a list; write it as a single value`},
		{"type is a mapping", "x", "---\ntype: {a: 1}\n---\n", ErrFrontmatter, `"type" is a mapping`},
		{"tags item is a mapping", "x", "---\ntags: [a, {b: 1}]\n---\n", ErrFrontmatter, "tags item 2 is a mapping"},
		{"tags is a mapping", "x", "---\ntags: {b: 1}\n---\n", ErrFrontmatter, "tags is a mapping"},
		{"invalid utf-8", "x", "ok\n\xff\xfe", ErrInvalidUTF8, "invalid UTF-8 at byte 3 (line 2); re-save the file as UTF-8"},
		{"truncated utf-8", "x", "caf\xc3", ErrInvalidUTF8, "invalid UTF-8 at byte 3 (line 1)"},
		{"invalid utf-8 in frontmatter", "x", "---\ntitle: \xc0\xaf\n---\n", ErrInvalidUTF8, "invalid UTF-8 at byte 11 (line 2)"},
		{"NUL byte", "x", "a\nb\x00c", ErrNULByte, "NUL byte at byte 3 (line 2)"},
		{"bad slug", "People/Alice", "x", ErrInvalidSlug, `invalid slug "People/Alice": must match`},
		{"empty slug", "", "x", ErrInvalidSlug, "derive it with SlugFromPath"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.slug, []byte(tt.in))
			if err == nil {
				t.Fatalf("Parse returned %+v, want an error", p)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
}

func TestParseTitleAndType(t *testing.T) {
	tests := []struct {
		name, slug, in, title, typ string
	}{
		{"first H1", "a", "intro\n\n## Sub\n\n# First\n\n# Second\n", "First", "page"},
		{"H1 inside code fence ignored", "a", "```sh\n# not a title\n```\n# Real\n", "Real", "page"},
		{"H1 inside tilde fence ignored", "a", "~~~\n# not a title\n~~~\n", "a", "page"},
		{"hashtag is not a heading", "notes/today", "#journal entry\n", "today", "notes"},
		{"H1 after timeline ignored", "a/b/c", "text\n## Timeline\n# Late\n", "c", "a"},
		{"closing hashes stripped", "a", "#   Spaced   Title   ###\n", "Spaced Title", "page"},
		{"empty H1 skipped", "a", "#\n# Next\n", "Next", "page"},
		{"slug segment fallback", "people/alice-smith", "no headings", "alice-smith", "people"},
		{"frontmatter wins", "people/bob", "---\ntitle: Robert\ntype: contact\n---\n# Bob\n", "Robert", "contact"},
		{"setext H1", "a", "APT\n===\n\ntext\n", "APT", "page"},
		{"setext H1, crlf", "a", "Git - fast, scalable, distributed revision control\r\n=======\r\n", "Git - fast, scalable, distributed revision control", "page"},
		{"a two-line paragraph underlined is no title", "a", "Git - fast, scalable,\ndistributed revision control\n===\n", "a", "page"},
		{"list then a line underlined", "a", "Intro text:\n- a\n- b\nNext\n===\n", "a", "page"},
		{"setext H2 then H1", "a", "Sub\n---\n\nTitle\n===\n", "Title", "page"},
		{"setext H2 right before an H1", "a", "Sub\n---\nTitle\n===\n", "Title", "page"},
		{"thematic break before an H1", "a", "***\nTitle\n===\n", "Title", "page"},
		{"a rejected underline ends its line", "a", "[![b](x)](l)\n===\nName\n===\n", "Name", "page"},
		{"a link whose address holds parentheses", "a", "# [C](https://en.wikipedia.org/wiki/C_(language)) notes\n", "C notes", "page"},
		{"a link inside a code span is code", "a", "# Use `[a](b)` syntax\n", "Use [a](b) syntax", "page"},
		{"quote continued", "a", "text\n> quote\n===\n", "a", "page"},
		{"lazy quote continuation", "a", "> quote\ncontinued\n===\n", "a", "page"},
		{"thematic break underlined", "a", "***\n===\n", "a", "page"},
		{"table underlined", "a", "a | b\n--- | ---\n1 | 2\n===\n", "a", "page"},
		{"link reference definition", "a", "[foo]: http://x\n===\n", "a", "page"},
		{"underline inside a comment", "a", "<!--\nDraft\n===\n-->\n", "a", "page"},
		{"tab-indented code", "a", "\tcode line\n===\n", "a", "page"},
		{"bold title", "a", "**Bold Title**\n===\n", "**Bold Title**", "page"},
		{"dunder name", "a", "__init__.py\n===\n", "__init__.py", "page"},
		{"a version number is text", "a", "1.5 Release notes\n===\n", "1.5 Release notes", "page"},
		{"a setext title over 300 characters is no title", "a", strings.Repeat("word ", 70) + "\n===\n", "a", "page"},
		{"setext H1 after an ATX H2", "a", "## Intro\nThe Tool\n  ==  \n", "The Tool", "page"},
		{"first H1 of either kind wins", "a", "Setext\n===\n# Atx\n", "Setext", "page"},
		{"setext H2 is not a title", "a", "Sub\n---\n", "a", "page"},
		{"underline after a blank line is text", "a", "para\n\n===\n", "a", "page"},
		{"list item underlined is no heading", "a", "- item\n===\n", "a", "page"},
		{"numbered item underlined is no heading", "a", "1. item\n===\n", "a", "page"},
		{"quote underlined is no heading", "a", "> quoted\n===\n", "a", "page"},
		{"indented code underlined is no heading", "a", "    code\n===\n", "a", "page"},
		{"underline inside a fence ignored", "a", "```\nx\n===\n```\n", "a", "page"},
		{"four-space underline is no underline", "a", "para\n    ===\n", "a", "page"},
		{"HTML comment above a setext heading", "a", "<!-- licence\n blah -->\nReal Title\n===\n", "Real Title", "page"},
		{"HTML comment with blank lines", "a", "<!--\n\nLicensed to the ASF\n\n-->\nApache Commons CLI\n===\n", "Apache Commons CLI", "page"},
		{"HTML block until a blank line", "a", "<div>\nbadge\n===\n\nName\n===\n", "Name", "page"},
		{"lazy list continuation is no paragraph", "a", "- item\ncontinued\n===\n", "a", "page"},
		{"long paragraph underlined is no title", "a", "one\ntwo\nthree\nfour\n===\n# Short\n", "Short", "page"},
		{"link and code in a heading keep their text", "a", "# [libcbor](https://github.com/PJK/libcbor) and `node:module` ![logo](x.png)\n", "libcbor and node:module", "page"},
		{"badge inside a link is dropped", "a", "pkgconf [![test](https://x/badge.svg)](https://x/test.yml)\n===\n", "pkgconf", "page"},
		{"heading of a badge alone falls back", "doc/tool", "# [![build](https://x/b.svg)](https://x)\n", "tool", "doc"},
		{"reference link keeps its text", "a", "Tool [docs][1]\n===\n\n[1]: https://x\n", "Tool docs", "page"},
		{"collapsed reference link", "a", "# See [Docs][]\n\n[docs]: https://x\n", "See Docs", "page"},
		{"brackets without a definition are text", "a", "# map[string][]byte\n", "map[string][]byte", "page"},
		{"indexing is text", "a", "# matrix[i][j] indexing\n", "matrix[i][j] indexing", "page"},
		{"an undefined label is text", "a", "# Array[int][str] in Python\n", "Array[int][str] in Python", "page"},
		{"a definition inside a fence defines nothing", "a", "# m[1][1]\n\n```\n[1]: http://x\n```\n", "m[1][1]", "page"},
		{"a code span of two backticks holds one", "a", "# Use ``a`b`` here\n", "Use a`b here", "page"},
		{"an unclosed backtick is text", "a", "# it`s fine\n", "it`s fine", "page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.slug, []byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if p.Title != tt.title || p.Type != tt.typ {
				t.Errorf("Title, Type = %q, %q; want %q, %q", p.Title, p.Type, tt.title, tt.typ)
			}
		})
	}
}

func TestParseTimeline(t *testing.T) {
	tests := []struct {
		name, in, compiled, timeline string
	}{
		{"none", "# A\n\nfacts\n", "# A\n\nfacts", ""},
		{"h2", "# A\n\nfacts\n\n## Timeline\n\n- 2024-01-01 met\n- 2024-02-01 hired\n", "# A\n\nfacts", "- 2024-01-01 met\n- 2024-02-01 hired"},
		{"h1 lower case with colon", "facts\n# timeline:\nevent\n", "facts", "event"},
		{"h3 with closing hashes", "facts\n### TIMELINE ###\nevent", "facts", "event"},
		{"indented up to three spaces", "facts\n   ## Timeline\nevent", "facts", "event"},
		{"first timeline heading wins", "a\n## Timeline\nb\n## Timeline\nc\n", "a", "b\n## Timeline\nc"},
		{"inside code fence ignored", "```md\n## Timeline\n```\n\n## Timeline\nreal\n", "```md\n## Timeline\n```", "real"},
		{"four-space indent is code", "a\n    ## Timeline\nb", "a\n    ## Timeline\nb", ""},
		{"not a heading", "Timeline\nTimeline:\n#Timeline\n####### Timeline\n## Timelines\n", "Timeline\nTimeline:\n#Timeline\n####### Timeline\n## Timelines", ""},
		{"empty compiled", "## Timeline\n\n- e\n", "", "- e"},
		{"empty timeline", "a\n## Timeline\n\n   \n", "a", ""},
		{"crlf", "a\r\n\r\n## Timeline\r\n- e\r\n", "a", "- e"},
		{"leading indentation kept", "\n\n    code line\n", "    code line", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("x", []byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if p.Compiled != tt.compiled {
				t.Errorf("Compiled = %q, want %q", p.Compiled, tt.compiled)
			}
			if p.Timeline != tt.timeline {
				t.Errorf("Timeline = %q, want %q", p.Timeline, tt.timeline)
			}
		})
	}
}

func TestParseBodyRoundTrip(t *testing.T) {
	inputs := []string{
		"",
		"plain",
		"\ufeff---\r\ntitle: x\r\n---\r\n\r\nbody  \r\n\r\n",
		"---\n---\n",
		"trailing spaces   \n\n\n",
		"## Timeline\n\n\n",
		"mixed\r\nline\nendings\r",
		"日本語のテキスト。\n",
	}
	for _, in := range inputs {
		p, err := Parse("x", []byte(in))
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if p.Body != in {
			t.Errorf("Body = %q, want %q", p.Body, in)
		}
		sum := sha256.Sum256([]byte(in))
		if p.ContentHash != hex.EncodeToString(sum[:]) {
			t.Errorf("ContentHash of %q = %s, want sha256 of the input", in, p.ContentHash)
		}
		if p.Frontmatter == nil {
			t.Errorf("Frontmatter of %q is nil, want an empty map", in)
		}
	}
}

func TestParseDoesNotAliasInput(t *testing.T) {
	data := []byte("# Title\n\nbody\n")
	p, err := Parse("x", data)
	if err != nil {
		t.Fatal(err)
	}
	copy(data, "XXXXXXXX")
	if p.Body != "# Title\n\nbody\n" || p.Title != "Title" {
		t.Fatalf("page changed with the input buffer: %+v", p)
	}
}

func TestRecoverYAML(t *testing.T) {
	err := func() (err error) {
		defer recoverYAML(&err)
		panic("index out of range")
	}()
	if !errors.Is(err, ErrFrontmatter) || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("recovered error = %v, want a frontmatter error naming the panic", err)
	}
}

func TestEscapeTimelineHeadings(t *testing.T) {
	tests := []struct{ in, want string }{
		{"## Timeline\n- a", "\\## Timeline\n- a"},
		{"intro\n   # timeline:\r\nrest", "intro\n   \\# timeline:\r\nrest"},
		{"# Timeline #", "\\# Timeline #"},
		{"#Timeline", "#Timeline"},                         // not a heading
		{"## Timeline of events", "## Timeline of events"}, // another heading
		{"    ## Timeline", "    ## Timeline"},             // indented code
		{"no hashes at all", "no hashes at all"},
	}
	for _, tt := range tests {
		if got := EscapeTimelineHeadings(tt.in); got != tt.want {
			t.Errorf("EscapeTimelineHeadings(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A page with no title of its own is titled with its file's name, which
// its slug may not show ("C#.md" stored as "c-835b50e2" beside "C.md").
func TestParseFileTitleFallsBackToTheFileName(t *testing.T) {
	for _, tc := range []struct{ slug, name, want string }{
		{"c-835b50e2", "C#.md", "C#"},
		{"bc-readme", "bc-README.md", "bc-README"},
		{"notes/my-page", "notes/My Page.MD", "My Page"},
		{"new-line", "new\nline.md", "new-line"},
		{"rtl", "a\u202eb.md", "rtl"},
		{"plain", "", "plain"},
	} {
		p, err := ParseFile(tc.slug, tc.name, []byte("no heading\n"))
		if err != nil {
			t.Fatalf("ParseFile(%q, %q): %v", tc.slug, tc.name, err)
		}
		if p.Title != tc.want {
			t.Errorf("ParseFile(%q, %q) title %q, want %q", tc.slug, tc.name, p.Title, tc.want)
		}
	}
}
