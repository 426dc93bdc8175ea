package contradictions

import (
	"strings"
	"testing"
)

func FuzzParseQueries(f *testing.F) {
	for _, s := range []string{"{\"query\":\"a\"}\n", "\n", "{\"query\":1}", "{\"query\":\"東京\"}\n{\"query\":\"東京\"}", "[", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := ParseQueries("fuzz", strings.NewReader(in))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, q := range qs {
			if strings.TrimSpace(q) == "" || seen[q] {
				t.Fatalf("ParseQueries(%q) returned empty or repeated query %q", in, q)
			}
			seen[q] = true
		}
	})
}

func FuzzParseJudgement(f *testing.F) {
	for _, s := range []string{`{"contradiction":true,"severity":"high"}`, "```{\"contradiction\":false}```", "{", `{"a":"}"}{"contradiction":false}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		j, err := ParseJudgement(in)
		if err != nil {
			return
		}
		if j.Contradiction != (j.Severity != "") {
			t.Fatalf("ParseJudgement(%q) = %+v: severity must be set exactly for contradictions", in, j)
		}
	})
}
