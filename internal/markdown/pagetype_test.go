package markdown

import (
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestNormalizeType(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Meeting Notes", "meeting-notes"},
		{"people", "people"},
		{"Café", "café"},
		{"Cafe\u0301", "café"}, // decomposed, as macOS writes folder names
		{"東京", "東京"},
		{"Ελληνικά", "ελληνικά"},
		{"ΣΟΦΙΑ", "σοφια"},
		{"Москва Notes", "москва-notes"},
		{"📚 Reading", "📚-reading"},
		{"C++", "c"},
		{"x86-64", "x86-64"},
		{"snake_case", "snake_case"},
		{"  --Leading and trailing--  ", "leading-and-trailing"},
		{"_private", "private"},
		{"a\u200db", "ab"},         // a zero-width joiner is dropped
		{"e\u200d\u0301", "é"},     // and the mark composes with its letter
		{"a\u00a0b", "a-b"},        // a no-break space separates
		{"\u0301accent", "accent"}, // a type does not start with a mark
		{"!!!", "page"},
		{"", "page"},
		{"\xff\xfeweird", "weird"},
		{strings.Repeat("é", 100), strings.Repeat("é", MaxTypeLen)},
		{strings.Repeat("ab ", 40), strings.TrimRight(strings.Repeat("ab-", 22)[:MaxTypeLen], "-")},
	} {
		got := NormalizeType(tt.in)
		if got != tt.want {
			t.Errorf("NormalizeType(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !sqlTypeCheck(t, got) {
			t.Errorf("NormalizeType(%q) = %q, which the CHECK of brain.pages refuses", tt.in, got)
		}
		if again := NormalizeType(got); again != got {
			t.Errorf("NormalizeType(%q) = %q, but NormalizeType(%q) = %q: not stable", tt.in, got, got, again)
		}
	}
}

// FuzzNormalizeType holds what the database relies on: whatever a
// frontmatter or folder name holds, the type is one brain.pages accepts,
// and normalising it again changes nothing.
func FuzzNormalizeType(f *testing.F) {
	for _, s := range []string{"Meeting Notes", "東京", "Cafe\u0301", "📚 Reading", "\u0301", "\xff", "a\u2028b", "ǅ", "e\u200d\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := NormalizeType(in)
		if !sqlTypeCheck(t, got) {
			t.Fatalf("NormalizeType(%q) = %q, which the CHECK of brain.pages refuses", in, got)
		}
		if again := NormalizeType(got); again != got {
			t.Fatalf("NormalizeType(%q) = %q, but NormalizeType of that is %q", in, got, again)
		}
	})
}

// sqlTypeCheck is the CHECK of sql/021_unicode_types.sql, read from the
// migration itself.
func sqlTypeCheck(t testing.TB, typ string) bool {
	t.Helper()
	typeREOnce.Do(func() {
		src, err := os.ReadFile("../../sql/021_unicode_types.sql")
		if err != nil {
			typeREErr = err
			return
		}
		m := regexp.MustCompile(`(?s)type ~ \((.*?)\)\);`).FindSubmatch(src)
		if m == nil {
			typeREErr = os.ErrNotExist
			return
		}
		var pat strings.Builder
		for _, lit := range regexp.MustCompile(`'([^']*)'`).FindAllSubmatch(m[1], -1) {
			pat.Write(lit[1])
		}
		typeRE = regexp.MustCompile(regexp.MustCompile(`\\U00([0-9A-F]{6})|\\u([0-9A-F]{4})`).ReplaceAllString(pat.String(), `\x{$1$2}`))
	})
	if typeREErr != nil {
		t.Fatalf("reading the type CHECK of sql/021_unicode_types.sql: %v", typeREErr)
	}
	return utf8.ValidString(typ) && utf8.RuneCountInString(typ) <= MaxTypeLen && typeRE.MatchString(typ)
}

var (
	typeREOnce sync.Once
	typeRE     *regexp.Regexp
	typeREErr  error
)
