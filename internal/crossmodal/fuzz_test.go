package crossmodal

import (
	"strings"
	"testing"
)

func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{`{"verdict":"PASS"}`, "FAIL", "{", "```{\"verdict\":\"inconclusive\"}```", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		v, _ := ParseVerdict(in)
		if v != Pass && v != Fail && v != Inconclusive {
			t.Fatalf("ParseVerdict(%q) = %q", in, v)
		}
	})
}

func FuzzParseBatch(f *testing.F) {
	for _, s := range []string{`{"schema_version":1,"question_id":"q","question":"x","hypothesis":"y"}`, `{"schema_version":1,"kind":"by_type_summary"}`, "", "[", "{\"schema_version\":1,\"question_id\":\"q\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		items, err := ParseBatch("fuzz", strings.NewReader(in))
		if err != nil {
			return
		}
		for _, it := range items {
			if it.ID == "" || strings.TrimSpace(it.Task) == "" {
				t.Fatalf("ParseBatch(%q) accepted item %+v", in, it)
			}
		}
	})
}
