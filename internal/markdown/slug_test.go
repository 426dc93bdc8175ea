package markdown

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
		{"v1.2/release_notes.md", "v1.2/release_notes"},
		{"_drafts/.hidden.md", "drafts/hidden"},
		{"foo.md.md", "foo.md"},
		{"a - b -- c.md", "a-b-c"},
		{"Deals/ACME (Seed) #2.md", "deals/acme-seed-2"},
		{"a/b/c/d.md", "a/b/c/d"},
		{"c:notes.md", "c-notes"},
		{strings.Repeat("a", 509) + ".md", strings.Repeat("a", 509)},
		// '+' is kept, so C++ and C are different pages.
		{"C++.md", "c++"},
		{"gobjc++.md", "gobjc++"},
		{"libstdc++6-dev.md", "libstdc++6-dev"},
		{"+1 idea.md", "1-idea"},
		// Every script keeps its letters, marks and digits.
		{"Café Crème.md", "café-crème"},
		{"Café ünïcode.md", "café-ünïcode"},
		{"東京.md", "東京"},
		{"日本語/東京 タワー.md", "日本語/東京-タワー"},
		{"Ελληνικά.md", "ελληνικά"},
		{"ΣΟΦΟΣ.md", "σοφοσ"},
		{"हिन्दी भाषा.md", "हिन्दी-भाषा"},
		{"العربية لغة.md", "العربية-لغة"},
		{"ไทย ภาษา.md", "ไทย-ภาษา"},
		{"한국어.md", "한국어"},
		{"Москва 2024.md", "москва-2024"},
		{"עברית.md", "עברית"},
		{"٣ أرقام.md", "٣-أرقام"},
		{"İstanbul.md", "istanbul"},
		{"ǅemal.md", "ǆemal"},
		{"Straße.md", "straße"},
		// NFD input (macOS file names) gives the NFC slug.
		{"Cafe\u0301.md", "café"},
		// Emoji are symbols and are kept; joiners are invisible and dropped.
		{"🎉 Party.md", "🎉-party"},
		{"👨\u200d👩\u200d👧 family.md", "👨👩👧-family"},
		// Bidi controls, zero-width spaces and soft hyphens are dropped.
		{"evil\u202egpj.md", "evilgpj"},
		{"zero\u200bwidth.md", "zerowidth"},
		{"soft\u00adhyphen.md", "softhyphen"},
		// Non-ASCII spaces and punctuation separate words.
		{"日本語\u3000全角.md", "日本語-全角"},
		{"a\u00a0b.md", "a-b"},
		{"«quoted» — dash.md", "quoted-dash"},
		// The replacement and object characters are symbols, but specials
		// the slug CHECK refuses: they separate words too.
		{"a\ufffdb\ufffcc.md", "a-b-c"},
		// A leading combining mark has no base and is dropped.
		{"x/\u0301abc.md", "x/abc"},
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
			checkSlug(t, tt.in, got)
		})
	}
}

// checkSlug holds what every derived slug must satisfy: valid, accepted by
// the database's CHECK, and a fixed point of SlugFromPath.
func checkSlug(t *testing.T, rel, slug string) {
	t.Helper()
	if !ValidSlug(slug) {
		t.Fatalf("SlugFromPath(%q) = %q, which ValidSlug rejects", rel, slug)
	}
	if !sqlSlugCheck(t, slug) {
		t.Fatalf("SlugFromPath(%q) = %q, which the pages_slug_shape CHECK of sql/008 rejects", rel, slug)
	}
	again, err := SlugFromPath(slug + ".md")
	if err != nil || again != slug {
		t.Fatalf("SlugFromPath(%q) = %q, %v; want it unchanged", slug+".md", again, err)
	}
}

func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:SuffixLen]
}

// A segment with no letters, digits or symbols is named by its hash rather
// than refused, so every file of a folder imports.
func TestSlugFromPathNamesEmptySegmentsByHash(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"!!!.md", "x" + hash8("!!!")},
		{"a/***/b.md", "a/x" + hash8("***") + "/b"},
		{"---.md", "x" + hash8("---")},
		{"\u200b.md", "x" + hash8("\u200b")},
	} {
		got, err := SlugFromPath(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("SlugFromPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		checkSlug(t, tt.in, got)
	}
}

// A slug over MaxSlugLen bytes is cut at a character boundary and ends in
// a hash of the full slug: stable, valid, and distinct for paths that share
// the first 512 bytes.
func TestSlugFromPathShortensLongSlugs(t *testing.T) {
	for _, base := range []string{
		strings.Repeat("a", 600),
		strings.Repeat("東", 200), // 600 bytes of 3-byte letters
		strings.Repeat("é", 300),
		strings.Repeat("e\u0301", 300), // NFD: each pair is 2 bytes once composed
		strings.Repeat("ก\u0e34", 200), // Thai consonant and vowel sign
		strings.Repeat("dir/", 130) + "x",
		strings.Repeat("🎉", 150),
	} {
		first := ""
		for _, tail := range []string{"1", "2"} {
			rel := base + tail + ".md"
			got, err := SlugFromPath(rel)
			if err != nil {
				t.Fatalf("SlugFromPath(%.40q...) error: %v", rel, err)
			}
			if len(got) > MaxSlugLen {
				t.Fatalf("slug of %.40q... is %d bytes, over %d", rel, len(got), MaxSlugLen)
			}
			if !regexp.MustCompile(`-[0-9a-f]{8}$`).MatchString(got) {
				t.Fatalf("slug %.40q... does not end in a hash", got)
			}
			if tail == "2" && got == first {
				t.Fatalf("paths differing in their last character share the slug %q", got)
			}
			first = got
			if !ValidSlug(got) || !sqlSlugCheck(t, got) {
				t.Fatalf("shortened slug %q is not valid", got)
			}
			if again, _ := SlugFromPath(rel); again != got {
				t.Fatalf("SlugFromPath is not stable: %q then %q", got, again)
			}
		}
	}
}

func TestSuffixSlug(t *testing.T) {
	for _, tt := range []struct{ slug, rel string }{
		{"a-b", "A B.md"},
		{"notes", "Notes.md"},
		{"東京", "東京.md"},
		{strings.Repeat("a", MaxSlugLen), strings.Repeat("a", MaxSlugLen) + ".md"},
		{strings.Repeat("é", MaxSlugLen/2), "x.md"},
	} {
		got := SuffixSlug(tt.slug, tt.rel)
		if !strings.HasSuffix(got, "-"+hash8(tt.rel)) || len(got) > MaxSlugLen {
			t.Errorf("SuffixSlug(%.20q, %q) = %.40q (%d bytes), want the slug, '-' and the path's hash within %d bytes", tt.slug, tt.rel, got, len(got), MaxSlugLen)
		}
		if !strings.HasPrefix(tt.slug, strings.TrimSuffix(got, "-"+hash8(tt.rel))) {
			t.Errorf("SuffixSlug(%.20q, %q) = %.40q does not start with the slug", tt.slug, tt.rel, got)
		}
		if !ValidSlug(got) || !sqlSlugCheck(t, got) {
			t.Errorf("SuffixSlug(%.20q, %q) = %q is not valid", tt.slug, tt.rel, got)
		}
	}
	if SuffixSlug("a-b", "A B.md") == SuffixSlug("a-b", "a b.md") {
		t.Error("two paths got one suffixed slug")
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
		{"not utf-8", "caf\xe9.md", "not UTF-8"},
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
		in        string
		want, sql bool // ValidSlug, and the looser SQL CHECK
	}{
		{"a", true, true},
		{"people/alice-smith", true, true},
		{"v1.2/release_notes", true, true},
		{"0/1/2", true, true},
		{"a.", true, true},
		{"c++", true, true},
		{"café", true, true},
		{"東京/タワー", true, true},
		{"🎉-party", true, true},
		{"हिन्दी", true, true},
		{strings.Repeat("a", 512), true, true},
		{strings.Repeat("é", 256), true, true},
		{strings.Repeat("a", 513), false, false},
		{strings.Repeat("é", 257), false, false},
		{"", false, false},
		{"People/alice", false, false},
		{"people/", false, false},
		{"/people", false, false},
		{"people//alice", false, false},
		{"-a", false, false},
		{".a", false, false},
		{"+a", false, false},
		{"a/_b", false, false},
		{"a b", false, false},
		{"a\n", false, false},
		{`a\b`, false, false},
		{"a#b", false, false},
		{"a\u00a0b", false, false},
		{"a\u200bb", false, false},
		{"a\u202eb", false, false},
		{"a\ufeffb", false, false},
		{"a\u3000b", false, false},
		// Only the client knows Unicode case and normalisation.
		{"CAFÉ", false, false},
		{"cafÉ", false, true},
		{"cafe\u0301", false, true},
		{"σοφΟσ", false, true},
		{"\u0301a", false, true},
		{"a\xff", false, false},
	}
	for _, tt := range tests {
		if got := ValidSlug(tt.in); got != tt.want {
			t.Errorf("ValidSlug(%q) = %v, want %v", tt.in, got, tt.want)
		}
		if got := sqlSlugCheck(t, tt.in); got != tt.sql {
			t.Errorf("SQL CHECK of %q = %v, want %v", tt.in, got, tt.sql)
		}
	}
}

func TestNormalizeSlug(t *testing.T) {
	if got := NormalizeSlug("cafe\u0301/to\u0301kyo\u0304"); got != "café/tókyō" || !ValidSlug(got) {
		t.Fatalf("NormalizeSlug = %q, want the NFC slug", got)
	}
	if got := NormalizeSlug("People/CAFE\u0301/ΣΟΦΟΣ"); got != "people/café/σοφοσ" || got != slugFromPathMust(t, "People/CAFE\u0301/ΣΟΦΟΣ.md") {
		t.Fatalf("NormalizeSlug = %q, want the lower-case slug import gives the same name", got)
	}
}

// sqlSlugCheck evaluates the pages_slug_shape CHECK of sql/008 in Go: the
// migration's regular expression, read from the file and turned from
// PostgreSQL's \uXXXX escapes into Go's, and its byte limit. The ingest
// package's tests run the same slugs through the real CHECK.
func sqlSlugCheck(t testing.TB, slug string) bool {
	t.Helper()
	return utf8.ValidString(slug) && len(slug) <= MaxSlugLen && sqlSlugRE(t).MatchString(slug)
}

var sqlRE *regexp.Regexp

func sqlSlugRE(t testing.TB) *regexp.Regexp {
	if sqlRE != nil {
		return sqlRE
	}
	src, err := os.ReadFile("../../sql/008_unicode_slugs.sql")
	if err != nil {
		t.Fatalf("reading the slug CHECK: %v", err)
	}
	m := regexp.MustCompile(`(?s)slug ~ \((.*?)\)\);`).FindSubmatch(src)
	if m == nil {
		t.Fatal("sql/008_unicode_slugs.sql has no `slug ~ (...)` CHECK")
	}
	var pat strings.Builder
	for _, lit := range regexp.MustCompile(`'([^']*)'`).FindAllSubmatch(m[1], -1) {
		pat.Write(lit[1])
	}
	goPat := regexp.MustCompile(`\\U00([0-9A-F]{6})|\\u([0-9A-F]{4})`).ReplaceAllString(pat.String(), `\x{$1$2}`)
	sqlRE = regexp.MustCompile(goPat)
	return sqlRE
}

// The derived slug is always NFC and every derived slug is its own slug.
func TestSlugFromPathIsNFC(t *testing.T) {
	for _, in := range []string{"Ångström.md", "A\u030angstro\u0308m.md", "한국어.md", "\u1112\u1161\u11ab.md"} {
		got, err := SlugFromPath(in)
		if err != nil {
			t.Fatal(err)
		}
		if !norm.NFC.IsNormalString(got) {
			t.Errorf("SlugFromPath(%q) = %q is not NFC", in, got)
		}
		checkSlug(t, in, got)
	}
}

func slugFromPathMust(t *testing.T, rel string) string {
	t.Helper()
	s, err := SlugFromPath(rel)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSuggestSlugOffersOnlyNamesMadeOfTheInput(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{"Foo Bar": "foo-bar", "東京 タワー": "東京-タワー", `A\B c`: "a-b-c", "a//b": "a/b", "-": "", "!!!": "", "notes/---": "", " ": ""} {
		got, ok := SuggestSlug(name)
		if ok != (want != "") || got != want {
			t.Errorf("SuggestSlug(%q) = %q, %v; want %q, %v", name, got, ok, want, want != "")
		}
	}
}
