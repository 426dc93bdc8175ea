package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadExport(t *testing.T) {
	f, err := ReadFile("testdata/export.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if f.Meta != nil || len(f.Rows) != 3 {
		t.Fatalf("meta %v rows %d", f.Meta, len(f.Rows))
	}
	r := f.Rows[1]
	if r.ID != 2 || r.ToolName != "query" || *r.Detail != "low" || !*r.VectorEnabled || r.LatencyMS != 12.5 || r.Line != 2 || len(r.RetrievedSlugs) != 2 {
		t.Errorf("row = %+v", r)
	}
	if !r.Created().Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("created = %v", r.Created())
	}
}

func TestReadRefuses(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"v2", `{"schema_version":2,"tool_name":"query","query":"x"}`, "x.ndjson:1: schema_version 2 is not supported"},
		{"no version", "\n" + `{"tool_name":"query","query":"x"}`, "x.ndjson:2: missing \"schema_version\""},
		{"tool", `{"schema_version":1,"tool_name":"think","query":"x"}`, "\"tool_name\" must be"},
		{"no query", `{"schema_version":1,"tool_name":"query"}`, "missing \"query\""},
		{"detail", `{"schema_version":1,"tool_name":"query","query":"x","detail":"max"}`, "\"detail\" \"max\""},
		{"garbage", `not json`, "x.ndjson:1: not a JSON object"},
		{"meta v2", `{"schema_version":2,"_kind":"baseline_metadata","row_count":0}`, "x.ndjson:1: baseline schema_version 2"},
		{"meta kind", `{"schema_version":1,"_kind":"other"}`, "not a pgbrain baseline"},
		{"row count", `{"schema_version":1,"_kind":"baseline_metadata","row_count":2}` + "\n" + `{"schema_version":1,"tool_name":"query","query":"x"}`, "says 2 rows but the file holds 1"},
		// refused as it is read, not parsed
		{"long line", `{"schema_version":1,"tool_name":"search","query":"` + strings.Repeat("a", MaxLineBytes) + `"}`, "x.ndjson:1: the line is over 4 MiB"},
	}
	for _, c := range cases {
		_, err := Read("x.ndjson", strings.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// A byte order mark before the first line is skipped.
func TestReadSkipsAByteOrderMark(t *testing.T) {
	f, err := Read("x.ndjson", strings.NewReader("\xef\xbb\xbf"+`{"schema_version":1,"tool_name":"query","query":"x"}`+"\n"))
	if err != nil || len(f.Rows) != 1 {
		t.Fatalf("Read with a BOM: %+v %v", f, err)
	}
}

func TestQueryHashNormalises(t *testing.T) {
	if QueryHash("Who  is\tAlice ") != QueryHash("who is alice") {
		t.Error("case and white space must not change the hash")
	}
	if QueryHash("who is alice") == QueryHash("who is bob") {
		t.Error("different queries share a hash")
	}
}

func TestBuildSortsAndAnnotates(t *testing.T) {
	data, err := os.ReadFile("testdata/export.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	out, meta, err := Build("e.ndjson", data, Options{Label: "l", Now: now, Thresholds: map[string]float64{"jaccard": 0.9}})
	if err != nil {
		t.Fatal(err)
	}
	if meta.RowCount != 3 || meta.BaselineMeanLatencyMS != (4+12.5+2)/3.0 || meta.PublishedAt != "2025-02-03T04:05:06.000000Z" || !strings.HasPrefix(meta.SourceHash, "sha256:") {
		t.Errorf("meta = %+v", meta)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], `{"schema_version":1,"_kind":"baseline_metadata","label":"l"`) {
		t.Fatalf("output:\n%s", out)
	}
	f, err := Read("b.ndjson", bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var th map[string]float64
	if err := json.Unmarshal(f.Meta.Thresholds, &th); err != nil || th["jaccard"] != 0.9 {
		t.Errorf("thresholds %s: %v", f.Meta.Thresholds, err)
	}
	prev := ""
	for _, r := range f.Rows {
		key := r.ToolName + " " + r.QueryHash
		if r.QueryHash != QueryHash(r.Query) || key < prev {
			t.Errorf("row %d out of order or wrong hash: %s after %s", r.ID, key, prev)
		}
		prev = key
	}
	if f.Rows[2].ToolName != "search" {
		t.Errorf("search rows must sort after query rows")
	}
	// The exported fields are kept as they were, query_hash appended.
	if !strings.HasPrefix(lines[3], `{"schema_version":1,"id":3,"tool_name":"search"`) || !strings.HasSuffix(lines[3], `"created_at":"2025-01-02T00:00:00.000000Z","query_hash":"`+QueryHash("acme deal")+`"}`) {
		t.Errorf("row line = %s", lines[3])
	}
	// Republishing a baseline gives the same rows (one query_hash each).
	again, _, err := Build("b.ndjson", out, Options{Label: "l", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if a := strings.SplitN(string(again), "\n", 2)[1]; a != strings.SplitN(string(out), "\n", 2)[1] {
		t.Errorf("republished rows differ:\n%s\nvs\n%s", a, out)
	}
}

func TestBuildDuplicateNamesBothLines(t *testing.T) {
	data := `{"schema_version":1,"tool_name":"query","query":"Who is Alice"}
{"schema_version":1,"tool_name":"search","query":"who is alice"}
{"schema_version":1,"tool_name":"query","query":"who  is alice"}
`
	_, _, err := Build("d.ndjson", []byte(data), Options{})
	if err == nil || !strings.Contains(err.Error(), "d.ndjson:1 and d.ndjson:3") {
		t.Fatalf("err = %v", err)
	}
}

// Queries the scrubber emptied read alike ("[REDACTED]"): the first is
// kept, the others left out, and publishing goes on.
func TestBuildKeepsOneOfRedactedDuplicates(t *testing.T) {
	data := `{"schema_version":1,"tool_name":"search","query":"[REDACTED]"}
{"schema_version":1,"tool_name":"search","query":"who is alice"}
{"schema_version":1,"tool_name":"search","query":"[REDACTED]"}
{"schema_version":1,"tool_name":"query","query":"[REDACTED]"}
`
	_, meta, err := Build("r.ndjson", []byte(data), Options{})
	if err != nil || meta.RowCount != 3 {
		t.Fatalf("Build: %v, %+v; want 3 rows (one redacted search, alice, one redacted query)", err, meta)
	}
}

func TestPublishFileRefusesWithoutForce(t *testing.T) {
	dir := t.TempDir()
	to := filepath.Join(dir, "b.ndjson")
	if _, err := PublishFile("testdata/export.ndjson", to, false, Options{Label: "one"}); err != nil {
		t.Fatal(err)
	}
	_, err := PublishFile("testdata/export.ndjson", to, false, Options{Label: "two"})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("second publish err = %v, want ErrExists", err)
	}
	f, _ := ReadFile(to)
	if f.Meta.Label != "one" {
		t.Errorf("the refused publish changed the file: label %q", f.Meta.Label)
	}
	if _, err := PublishFile("testdata/export.ndjson", to, true, Options{Label: "two"}); err != nil {
		t.Fatal(err)
	}
	if f, _ := ReadFile(to); f.Meta.Label != "two" {
		t.Errorf("--force did not replace: label %q", f.Meta.Label)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

func FuzzRead(f *testing.F) {
	seed, err := os.ReadFile("testdata/export.ndjson")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read("fuzz", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, r := range file.Rows {
			if r.SchemaVersion != 1 || (r.ToolName != "query" && r.ToolName != "search") || r.Line < 1 {
				t.Fatalf("accepted an invalid row: %+v", r)
			}
		}
		// Whatever reads must publish or fail with a named error, never panic.
		if _, _, err := Build("fuzz", data, Options{}); err != nil && !strings.HasPrefix(err.Error(), "fuzz") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
