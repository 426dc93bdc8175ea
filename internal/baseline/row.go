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

	"github.com/pgbrain/pgbrain/client/evalrow"
)

// Row is one export row (evalrow.Row, the NDJSON v1 shape) plus the
// query_hash a baseline adds.
type Row struct {
	evalrow.Row
	QueryHash string `json:"query_hash,omitempty"`

	// Line is the row's line in its file; Raw is the line as read.
	Line int             `json:"-"`
	Raw  json.RawMessage `json:"-"`
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

// MaxLineBytes bounds one line of an export or baseline: a row holds a
// query of at most 51,200 characters and at most 1,000 slugs and chunk
// ids, well under it, so a longer line is refused as it is read, in
// bounded memory, instead of being parsed.
const MaxLineBytes = 4 << 20

// Read parses an export or baseline stream named name. Blank lines are
// ignored; any row whose schema_version is not 1 is refused; a UTF-8 byte
// order mark before the first line is skipped.
func Read(name string, r io.Reader) (*File, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	out := &File{Name: name}
	for line := 1; ; line++ {
		b, err := readLine(br)
		if errors.Is(err, errLongLine) {
			return nil, fmt.Errorf("%s:%d: the line is over %d MiB, far more than a captured row holds: this is not an export or baseline file, or it was damaged", name, line, MaxLineBytes>>20)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: reading: %w", name, line, err)
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
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

var errLongLine = errors.New("line too long")

// readLine is ReadBytes('\n') that gives up, with errLongLine, past
// MaxLineBytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		part, err := br.ReadSlice('\n')
		// (the line ending does not count)
		if len(out)+len(bytes.TrimRight(part, "\r\n")) > MaxLineBytes {
			return nil, errLongLine
		}
		out = append(out, part...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return out, err
		}
	}
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

// ParseRow parses one export row (see evalrow.Parse), keeping a baseline's
// query_hash and the line as read.
func ParseRow(line []byte) (Row, error) {
	var r Row
	if err := evalrow.Decode(line, &r); err != nil {
		return Row{}, err
	}
	r.Raw = append(json.RawMessage(nil), line...)
	return r, nil
}
