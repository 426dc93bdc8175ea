package eval

import (
	"os"
	"strings"
	"testing"
)

func TestParseQrelsShapes(t *testing.T) {
	doc := `{"schema_version":1,"queries":[
{"query_id":"q1","query":"fintech founder","relevant_slugs":["people/alice","people/bob"],"first_relevant_slug":"people/alice","grades":{"people/alice":3}},
{"query_id":"q2","query":"anything","relevant":[{"source_id":"host","slug":"people/alice"},{"source_id":"team-a","slug":"people/alice","grade":2}],
 "expected_top1":{"source_id":"host","slug":"people/alice"}},
{"query":"no id","relevant_slugs":["x"],"style":"ignored"}
]}`
	q, err := ParseQrels("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Queries) != 3 {
		t.Fatalf("got %d queries", len(q.Queries))
	}
	q1, q2, q3 := q.Queries[0], q.Queries[1], q.Queries[2]
	if q1.Grades["default::people/alice"] != 3 || q1.Grades["default::people/bob"] != 1 || !q1.Graded || q1.ExpectedTop1.Key() != "default::people/alice" || q1.Line != 2 {
		t.Errorf("q1 = %+v", q1)
	}
	if q2.Grades["host::people/alice"] != 1 || q2.Grades["team-a::people/alice"] != 2 || q2.ExpectedTop1.Key() != "host::people/alice" || q2.Line != 3 {
		t.Errorf("q2 = %+v", q2)
	}
	if q3.ID != "#3" || q3.Graded || q3.ExpectedTop1 != nil || q3.Line != 5 {
		t.Errorf("q3 = %+v", q3)
	}
}

func TestParseQrelsErrors(t *testing.T) {
	cases := []struct {
		name, doc, want string
	}{
		{"version", `{"schema_version":2,"queries":[]}`, "t.json:1: schema_version 2 is not supported"},
		{"no version", `{"queries":[{"query":"a","relevant_slugs":["x"]}]}`, "missing \"schema_version\""},
		{"empty", `{"schema_version":1,"queries":[]}`, "\"queries\" is empty"},
		{"mixed", "{\"schema_version\":1,\"queries\":[\n{\"query\":\"a\",\"relevant_slugs\":[\"x\"],\"relevant\":[{\"source_id\":\"s\",\"slug\":\"x\"}]}]}", "t.json:2: query entry 1: mixes"},
		{"no judgements", "{\"schema_version\":1,\"queries\":[\n\n{\"query\":\"a\"}]}", "t.json:3: query entry 1: no judgements"},
		{"first not relevant", `{"schema_version":1,"queries":[{"query":"a","relevant_slugs":["x"],"first_relevant_slug":"y"}]}`, "first_relevant_slug \"y\" is not in relevant_slugs"},
		{"missing source", `{"schema_version":1,"queries":[{"query":"a","relevant":[{"slug":"x"}]}]}`, "relevant[0] needs both"},
		{"dup id", "{\"schema_version\":1,\"queries\":[\n{\"query_id\":\"a\",\"query\":\"a\",\"relevant_slugs\":[\"x\"]},\n{\"query_id\":\"a\",\"query\":\"b\",\"relevant_slugs\":[\"x\"]}]}", "t.json:3: query_id \"a\" is already used on line 2"},
		{"bad grade", `{"schema_version":1,"queries":[{"query":"a","relevant_slugs":["x"],"grades":{"x":0}}]}`, "must be a positive number"},
		{"syntax", "{\"schema_version\":1,\n\"queries\":[{]}", "t.json:2: not valid JSON"},
		{"type", `{"schema_version":1,"queries":[{"query":5,"relevant_slugs":["x"]}]}`, "wrong type"},
		{"grades type", `{"schema_version":1,"queries":[{"query":"a","relevant_slugs":["x"],"grades":[1]}]}`, `field "grades" has the wrong type: it is a JSON array`},
		{"trailing", `{"schema_version":1,"queries":[{"query":"a","relevant_slugs":["x"]}]} {}`, "unexpected content"},
		{"not object", `[]`, "one JSON object"},
	}
	for _, c := range cases {
		_, err := ParseQrels("t.json", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
		if err != nil && (strings.Contains(err.Error(), "rawQuery") || strings.Contains(err.Error(), "Go struct")) {
			t.Errorf("%s: err = %v names Go's decoding types", c.name, err)
		}
	}
}

func TestSampleQrelsParse(t *testing.T) {
	q, err := ReadQrelsFile("../../sample/qrels.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Queries) < 50 {
		t.Fatalf("sample qrels has %d queries", len(q.Queries))
	}
	for _, e := range q.Queries {
		if e.ExpectedTop1 == nil || e.ExpectedTop1.SourceID != DefaultSource {
			t.Errorf("%s: expected top1 %v", e.ID, e.ExpectedTop1)
		}
	}
}

func FuzzParseQrels(f *testing.F) {
	for _, name := range []string{"testdata/simple.qrels.json", "testdata/explicit.qrels.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := ParseQrels("fuzz", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, e := range q.Queries {
			if e.Text == "" || len(e.Grades) == 0 || len(e.Grades) != len(e.Relevant) || e.Line < 1 {
				t.Fatalf("accepted an invalid entry: %+v", e)
			}
			if e.ExpectedTop1 != nil && e.Grades[e.ExpectedTop1.Key()] <= 0 {
				t.Fatalf("expected top1 not relevant: %+v", e)
			}
		}
	})
}
