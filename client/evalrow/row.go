// Package evalrow is the one Go definition of the NDJSON v1 row that
// `pgbrain eval export` prints (docs/eval-export.md): capture builds it,
// baseline and replay read it. The row's text is written by SQL
// (functions/eval_export.sql); a test checks that the keys written there
// equal the JSON fields of Row, so a field cannot be added on one side only.
package evalrow

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// SchemaVersion is the version of the row shape this package reads.
const SchemaVersion = 1

// Row is one captured operation as exported, in the export's key order.
type Row struct {
	SchemaVersion     int      `json:"schema_version"`
	ID                int64    `json:"id"`
	ToolName          string   `json:"tool_name"`
	Query             string   `json:"query"`
	RetrievedSlugs    []string `json:"retrieved_slugs"`
	RetrievedChunkIDs []int64  `json:"retrieved_chunk_ids"`
	SourceIDs         []string `json:"source_ids"`
	ExpandEnabled     *bool    `json:"expand_enabled"` // nil on search rows
	Detail            *string  `json:"detail"`
	DetailResolved    *string  `json:"detail_resolved"`
	// VectorEnabled is a pointer so a hand-written row without the key
	// replays as captured rather than as "vector off".
	VectorEnabled    *bool   `json:"vector_enabled"`
	ExpansionApplied bool    `json:"expansion_applied"`
	LatencyMS        float64 `json:"latency_ms"`
	Remote           bool    `json:"remote"`
	JobID            *int64  `json:"job_id"`
	SubagentID       *int64  `json:"subagent_id"`
	// CreatedAt is kept as exported (RFC 3339, UTC, microseconds); the
	// database stamps it, so a row being captured has none.
	CreatedAt string `json:"created_at,omitempty"`
}

// Created is the row's capture time, zero when absent or unreadable.
func (r Row) Created() time.Time {
	t, err := time.Parse(time.RFC3339Nano, r.CreatedAt)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Parse reads one export line into a Row, refusing lines that are not a v1
// row.
func Parse(line []byte) (Row, error) {
	var r Row
	if err := Decode(line, &r); err != nil {
		return Row{}, err
	}
	return r, nil
}

// Decode reads one export line into v, a *Row or a type embedding Row (which
// may add keys, as a baseline adds query_hash): CheckHeader, then the JSON
// decoding, then v's Check.
func Decode(line []byte, v interface{ Check() error }) error {
	if err := CheckHeader(line); err != nil {
		return err
	}
	if err := json.Unmarshal(line, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			// Field paths of embedding types ("Row.Row.latency_ms") end in the key.
			key := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
			return fmt.Errorf("a field has the wrong type: %q is a JSON %s, not a %s", key, te.Value, jsonKind(te.Type.Kind()))
		}
		return fmt.Errorf("a field has the wrong type: %w", err)
	}
	return v.Check()
}

// CheckHeader checks the keys every v1 line must carry before its fields are
// decoded: schema_version 1, tool_name query or search, and a query.
func CheckHeader(line []byte) error {
	var probe struct {
		SchemaVersion *json.Number `json:"schema_version"`
		ToolName      *string      `json:"tool_name"`
		Query         *string      `json:"query"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// (not Go's wording, which names the decoding struct)
			if te.Field == "" {
				return fmt.Errorf("not a JSON object but a JSON %s (each line must be one export row)", te.Value)
			}
			return fmt.Errorf("%q is a JSON %s, which it cannot be (each line must be one export row)", te.Field, te.Value)
		}
		return fmt.Errorf("not a JSON object: %w (each line must be one export row)", err)
	}
	switch {
	case probe.SchemaVersion == nil:
		return errors.New("missing \"schema_version\": export rows start with \"schema_version\":1")
	case probe.SchemaVersion.String() != "1":
		return fmt.Errorf("schema_version %s is not supported (this pgbrain reads version 1): upgrade pgbrain or export again", probe.SchemaVersion.String())
	case probe.ToolName == nil || (*probe.ToolName != "query" && *probe.ToolName != "search"):
		return errors.New("\"tool_name\" must be \"query\" or \"search\"")
	case probe.Query == nil:
		return errors.New("missing \"query\": every row needs the query text (it may be empty)")
	}
	return nil
}

// Check validates a decoded row's enumerated fields and its capture time.
func (r Row) Check() error {
	if r.Detail != nil && !validDetail(*r.Detail) {
		return fmt.Errorf("\"detail\" %q is not low, medium, high or null", *r.Detail)
	}
	if r.DetailResolved != nil && !validDetail(*r.DetailResolved) {
		return fmt.Errorf("\"detail_resolved\" %q is not low, medium, high or null", *r.DetailResolved)
	}
	if r.CreatedAt != "" {
		if _, err := time.Parse(time.RFC3339Nano, r.CreatedAt); err != nil {
			return fmt.Errorf("\"created_at\" %q is not an RFC 3339 time (2025-01-02T03:04:05.000000Z)", r.CreatedAt)
		}
	}
	return nil
}

func validDetail(d string) bool { return d == "low" || d == "medium" || d == "high" }

// jsonKind names a Go kind as the JSON value it decodes from.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Pointer, reflect.Interface:
		return "value of another kind"
	default:
		return "number"
	}
}
