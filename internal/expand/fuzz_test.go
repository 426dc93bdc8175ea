package expand

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pgbrain/pgbrain/internal/search"
)

func FuzzParseAndClean(f *testing.F) {
	for _, s := range []string{`["a","b"]`, "```json\n[\"x\"]\n```", `{"v":["1"]}`, `[""," "]`, `["\u0000"]`, `nonsense`} {
		f.Add("query", s)
	}
	f.Fuzz(func(t *testing.T, q, reply string) {
		v, err := Parse(reply)
		if err != nil {
			return
		}
		got := Clean(q, v)
		if len(got) > AskVariants {
			t.Fatalf("%d variants", len(got))
		}
		seen := map[string]bool{}
		for _, x := range got {
			if x == "" || search.CheckQuery(x) != nil || utf8.RuneCountInString(x) > MaxVariantChars ||
				strings.ContainsAny(x, "\n\t") || seen[strings.ToLower(x)] ||
				strings.EqualFold(x, strings.TrimSpace(q)) {
				t.Fatalf("Clean kept %q", x)
			}
			seen[strings.ToLower(x)] = true
		}
	})
}
