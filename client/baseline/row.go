// Package baseline reads captured-query files (an `eval export` NDJSON
// stream, or a baseline written by `bench publish`) and publishes baselines:
// a metadata line, then the export rows with a normalised query_hash,
// sorted by (tool_name, query_hash).
package baseline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Row is one export row (NDJSON v1, see docs/eval-export.md), plus the
// query_hash a baseline adds.
type Row struct {
	SchemaVersion     int      `json:"schema_version"`
	ID                int64    `json:"id"`
	ToolName          string   `json:"tool_name"`
	Query             string   `json:"query"`
	RetrievedSlugs    []string `json:"retrieved_slugs"`
	RetrievedChunkIDs []int64  `json:"retrieved_chunk_ids"`
	SourceIDs         []string `json:"source_ids"`
	ExpandEnabled     *bool    `json:"expand_enabled"`
	Detail            *string  `json:"detail"`
	DetailResolved    *string  `json:"detail_resolved"`
	VectorEnabled     *bool    `json:"vector_enabled"`
	ExpansionApplied  bool     `json:"expansion_applied"`
	LatencyMS         float64  `json:"latency_ms"`
	Remote            bool     `json:"remote"`
	JobID             *int64   `json:"job_id"`
	SubagentID        *int64   `json:"subagent_id"`
	CreatedAt         string   `json:"created_at,omitempty"`
	QueryHash         string   `json:"query_hash,omitempty"`

	// Line is the row's line in its file; Raw is the line as read.
	Line int             `json:"-"`
	Raw  json.RawMessage `json:"-"`
}

// Created is the row's capture time, zero when absent or unreadable.
func (r Row) Created() time.Time {
	t, err := time.Parse(time.RFC3339Nano, r.CreatedAt)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Kind is the value of a baseline's metadata "_kind".
const Kind = "baseline_metadata"

// Metadata is line 1 of a baseline file.
type Metadata struct {
	SchemaVersion         int             `json:"schema_version"`
	Kind                  string          `json:"_kind"`
	Label                 string          `json:"label"`
	PublishedAt           string          `json:"published_at"`
	SourceHash            string          `json:"source_hash"`
	Thresholds            json.RawMessage `json:"thresholds"`
	RowCount              int             `json:"row_count"`
	BaselineMeanLatencyMS float64         `json:"baseline_mean_latency_ms"`
}

// File is a parsed export or baseline file.
type File struct {
	Name string
	// Meta is nil for a plain export.
	Meta *Metadata
	Rows []Row
}

// ReadFile reads an export or baseline file from disk.
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	return Read(path, f)
}

// Read parses an export or baseline stream named name. Blank lines are
// ignored; any row whose schema_version is not 1 is refused.
func Read(name string, r io.Reader) (*File, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	out := &File{Name: name}
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: reading: %w", name, line, err)
		}
		trimmed := bytes.TrimSpace(b)
		if len(trimmed) > 0 {
			if line == 1 && isMetadata(trimmed) {
				m, perr := ParseMetadata(trimmed)
				if perr != nil {
					return nil, fmt.Errorf("%s:1: %w", name, perr)
				}
				out.Meta = m
			} else {
				row, perr := ParseRow(trimmed)
				if perr != nil {
					return nil, fmt.Errorf("%s:%d: %w", name, line, perr)
				}
				row.Line = line
				out.Rows = append(out.Rows, row)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if out.Meta != nil && out.Meta.RowCount != len(out.Rows) {
		return nil, fmt.Errorf("%s: the metadata says %d rows but the file holds %d: the file was truncated or edited; publish it again", name, out.Meta.RowCount, len(out.Rows))
	}
	return out, nil
}

func isMetadata(line []byte) bool {
	var probe struct {
		Kind *string `json:"_kind"`
	}
	return json.Unmarshal(line, &probe) == nil && probe.Kind != nil
}

// ParseMetadata parses a baseline's first line.
func ParseMetadata(line []byte) (*Metadata, error) {
	var m Metadata
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("baseline metadata is not valid JSON: %w", err)
	}
	if m.Kind != Kind {
		return nil, fmt.Errorf("\"_kind\" is %q, expected %q: this is not a pgbrain baseline", m.Kind, Kind)
	}
	if m.SchemaVersion != 1 {
		return nil, fmt.Errorf("baseline schema_version %d is not supported (this pgbrain reads version 1): upgrade pgbrain or publish the baseline again", m.SchemaVersion)
	}
	return &m, nil
}

// ParseRow parses one export row.
func ParseRow(line []byte) (Row, error) {
	var probe struct {
		SchemaVersion *json.Number `json:"schema_version"`
		ToolName      *string      `json:"tool_name"`
		Query         *string      `json:"query"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return Row{}, fmt.Errorf("not a JSON object: %w (each line must be one export row)", err)
	}
	switch {
	case probe.SchemaVersion == nil:
		return Row{}, errors.New("missing \"schema_version\": export rows start with \"schema_version\":1")
	case probe.SchemaVersion.String() != "1":
		return Row{}, fmt.Errorf("schema_version %s is not supported (this pgbrain reads version 1): upgrade pgbrain or export again", probe.SchemaVersion.String())
	case probe.ToolName == nil || (*probe.ToolName != "query" && *probe.ToolName != "search"):
		return Row{}, errors.New("\"tool_name\" must be \"query\" or \"search\"")
	case probe.Query == nil:
		return Row{}, errors.New("missing \"query\": every row needs the query text (it may be empty)")
	}
	var r Row
	if err := json.Unmarshal(line, &r); err != nil {
		return Row{}, fmt.Errorf("a field has the wrong type: %w", err)
	}
	if r.Detail != nil && !validDetail(*r.Detail) {
		return Row{}, fmt.Errorf("\"detail\" %q is not low, medium, high or null", *r.Detail)
	}
	r.Raw = append(json.RawMessage(nil), line...)
	return r, nil
}

func validDetail(d string) bool { return d == "low" || d == "medium" || d == "high" }
