package evalrow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/client/evalrow"
	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
	"github.com/pgbrain/pgbrain/internal/export"
	"github.com/pgbrain/pgbrain/internal/search"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func ptr[T any](v T) *T { return &v }

// fieldNames is Row's JSON keys in declaration order.
func fieldNames(t *testing.T) []string {
	t.Helper()
	var out []string
	rt := reflect.TypeOf(evalrow.Row{})
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			t.Fatalf("evalrow.Row.%s has no JSON name: every field of the row is a key of the export", rt.Field(i).Name)
		}
		out = append(out, name)
	}
	return out
}

// keys is the top-level keys of a JSON object, in the order written.
func keys(t *testing.T, line []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("line %s is not a JSON object (%v, %v)", line, tok, err)
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("line %s: %v", line, err)
		}
		out = append(out, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatalf("line %s: %v", line, err)
		}
	}
	return out
}

// TestExportKeysAreRowFields captures rows through the capture path, exports
// them with the SQL export, and checks that the export's keys are exactly
// Row's JSON fields in the same order, and that decoding a line into Row and
// encoding it again gives the line back byte for byte: a key or a value the
// SQL writes and Row does not carry (or the reverse) fails here.
func TestExportKeysAreRowFields(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	ctx := context.Background()
	rec := capture.New(b.Pool, evalconfig.Settings{Capture: true, ScrubPII: false}, t.TempDir(), nil)
	// Every nullable field set on the query row, every one null on the search
	// row, so both spellings of each field are exported.
	rec.Record(ctx, &search.Response{
		Query: "café 東京 Ωμέγα \"quoted\" back\\slash 🙂",
		Results: []search.Result{
			{Slug: "people/alice", SourceID: "default", ChunkID: 11},
			{Slug: "notes/x", SourceID: "work", ChunkID: 31},
		},
		Meta: search.Meta{Tool: "query", VectorEnabled: true, Detail: ptr("high"), DetailResolved: ptr("medium"),
			ExpandEnabled: ptr(true), ExpansionApplied: true, LatencyMS: 12.5},
	}, capture.Caller{Remote: true, JobID: ptr(int64(7)), SubagentID: ptr(int64(9))})
	rec.Record(ctx, &search.Response{Query: "", Meta: search.Meta{Tool: "search", LatencyMS: 3}}, capture.Caller{})
	if err := rec.Close(ctx); err != nil {
		t.Fatalf("closing the recorder: %v", err)
	}

	var out bytes.Buffer
	sum, err := export.Export(ctx, b.Pool, &out, export.Options{})
	if err != nil {
		t.Fatalf("exporting: %v", err)
	}
	if sum.Rows != 2 {
		t.Fatalf("exported %d rows, want 2:\n%s", sum.Rows, out.String())
	}
	want := fieldNames(t)
	tools := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
		if got := keys(t, line); !slices.Equal(got, want) {
			t.Errorf("export keys differ from evalrow.Row's JSON fields:\n export: %v\n    Row: %v\n line: %s", got, want, line)
		}
		row, err := evalrow.Parse(line)
		if err != nil {
			t.Fatalf("Parse(%s): %v", line, err)
		}
		tools[row.ToolName] = true
		again, err := json.Marshal(row)
		if err != nil {
			t.Fatalf("encoding %+v: %v", row, err)
		}
		if !bytes.Equal(again, line) {
			t.Errorf("a row does not survive Parse and json.Marshal unchanged:\n export: %s\n    Row: %s", line, again)
		}
	}
	if !tools["query"] || !tools["search"] {
		t.Errorf("exported tools %v, want both query and search", tools)
	}
}

func TestParseRefusesWhatIsNotAV1Row(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`[1]`, "not a JSON object"},
		{`{"id":1,"tool_name":"query","query":"q"}`, `missing "schema_version"`},
		{`{"schema_version":2,"tool_name":"query","query":"q"}`, "schema_version 2 is not supported"},
		{`{"schema_version":1,"tool_name":"grep","query":"q"}`, `"tool_name" must be "query" or "search"`},
		{`{"schema_version":1,"tool_name":"search"}`, `missing "query"`},
		{`{"schema_version":1,"tool_name":"query","query":"q","latency_ms":"slow"}`, "a field has the wrong type"},
		{`{"schema_version":1,"tool_name":"query","query":"q","detail":"max"}`, `"detail" "max" is not low, medium, high or null`},
		{`{"schema_version":1,"tool_name":"query","query":"q","detail_resolved":"ultra"}`, `"detail_resolved" "ultra" is not low, medium, high or null`},
		{`{"schema_version":1,"tool_name":"query","query":"q","created_at":"not-a-time"}`, `"created_at" "not-a-time" is not an RFC 3339 time`},
	} {
		_, err := evalrow.Parse([]byte(tc.line))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", tc.line, err, tc.want)
		}
	}
}

// FuzzParse checks that whatever Parse accepts encodes to a line it accepts
// again as the same row.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"id":3,"tool_name":"query","query":"q","retrieved_slugs":["a"],"retrieved_chunk_ids":[1],"source_ids":["default"],"expand_enabled":false,"detail":"low","detail_resolved":"low","vector_enabled":true,"expansion_applied":false,"latency_ms":1.5,"remote":false,"job_id":null,"subagent_id":null,"created_at":"2025-01-02T03:04:05.123456Z"}`))
	f.Add([]byte(`{"schema_version":1,"tool_name":"search","query":""}`))
	f.Add([]byte(`{"schema_version":1.0,"tool_name":"query","query":"x"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		row, err := evalrow.Parse(line)
		if err != nil {
			return
		}
		enc, err := json.Marshal(row)
		if err != nil {
			t.Fatalf("encoding %+v: %v", row, err)
		}
		back, err := evalrow.Parse(enc)
		if err != nil {
			t.Fatalf("Parse accepted %s but refuses its encoding %s: %v", line, enc, err)
		}
		if !reflect.DeepEqual(normal(row), normal(back)) {
			t.Fatalf("round trip changed the row:\n  %+v\n  %+v", row, back)
		}
	})
}

// normal makes empty and nil slices equal: JSON null and [] both decode to
// an empty row field.
func normal(r evalrow.Row) evalrow.Row {
	if len(r.RetrievedSlugs) == 0 {
		r.RetrievedSlugs = nil
	}
	if len(r.RetrievedChunkIDs) == 0 {
		r.RetrievedChunkIDs = nil
	}
	if len(r.SourceIDs) == 0 {
		r.SourceIDs = nil
	}
	return r
}
