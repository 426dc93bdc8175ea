// Package events writes the operator-facing JSONL event stream: one JSON
// object per line describing each MCP tool call and each server lifecycle
// step. The stream is lossy by design; durability lives in the audit log.
package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Kind separates tool-call events from server lifecycle markers.
type Kind string

const (
	KindToolCall    Kind = "tool_call"
	KindServerEvent Kind = "server_event"
)

// Status mirrors the MCP response envelope status of a tool call.
type Status string

const (
	StatusSuccess  Status = "success"
	StatusEmpty    Status = "empty"
	StatusPartial  Status = "partial"
	StatusDegraded Status = "degraded"
	StatusError    Status = "error"
	StatusRefused  Status = "refused"
)

// Server event subtypes.
const (
	SubtypeServerStart = "server_start"
	SubtypeServerStop  = "server_stop"
)

// TimeLayout is the on-disk timestamp form: UTC, microseconds, trailing Z.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// Event is one line of the stream. ArgsSummary must already be safe to store;
// Writer.Write passes it through Redact regardless.
type Event struct {
	Timestamp       time.Time
	ServerSessionID string
	Kind            Kind
	ToolName        string
	ArgsSummary     map[string]any
	Status          Status
	ErrorKind       string
	DurationMS      float64
	// ResultSummary holds counts only, so result content can never leak here.
	ResultSummary map[string]int64
	EventSubtype  string
	Message       string
}

// wire fixes the JSON field names and order. Pointers and omitempty keep
// optional fields out of lines where they carry nothing.
type wire struct {
	Timestamp       string           `json:"timestamp"`
	ServerSessionID string           `json:"server_session_id"`
	Kind            Kind             `json:"kind"`
	ToolName        string           `json:"tool_name,omitempty"`
	ArgsSummary     map[string]any   `json:"args_summary,omitempty"`
	Status          Status           `json:"status,omitempty"`
	ErrorKind       string           `json:"error_kind,omitempty"`
	DurationMS      *float64         `json:"duration_ms,omitempty"`
	ResultSummary   map[string]int64 `json:"result_summary,omitempty"`
	EventSubtype    string           `json:"event_subtype,omitempty"`
	Message         string           `json:"message,omitempty"`
}

// DurationMS converts a measured duration to the duration_ms value, keeping
// microsecond resolution.
func DurationMS(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// MarshalJSON renders the event as one compact JSON object without HTML
// escaping, so markers such as <email> stay readable in the file.
func (e Event) MarshalJSON() ([]byte, error) {
	ts := e.Timestamp.UTC()
	// Years outside 0..9999 cannot be read back as RFC 3339.
	if y := ts.Year(); y < 0 || y > 9999 {
		return nil, fmt.Errorf("events: timestamp %v: year outside 0..9999", e.Timestamp)
	}
	w := wire{
		Timestamp:       ts.Format(TimeLayout),
		ServerSessionID: e.ServerSessionID,
		Kind:            e.Kind,
		ToolName:        e.ToolName,
		ArgsSummary:     e.ArgsSummary,
		Status:          e.Status,
		ErrorKind:       e.ErrorKind,
		ResultSummary:   e.ResultSummary,
		EventSubtype:    e.EventSubtype,
		Message:         e.Message,
	}
	// A tool call always reports its latency, even a zero one.
	if e.Kind == KindToolCall || e.DurationMS != 0 {
		d := e.DurationMS
		w.DurationMS = &d
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, fmt.Errorf("events: encode event: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON decodes an event line. It accepts any RFC 3339 timestamp so
// that hand-written or foreign lines are still readable.
func (e *Event) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("events: decode event: %w", err)
	}
	var ts time.Time
	if w.Timestamp != "" {
		t, err := time.Parse(time.RFC3339Nano, w.Timestamp)
		if err != nil {
			return fmt.Errorf("events: decode timestamp %q: %w", w.Timestamp, err)
		}
		ts = t.UTC()
	}
	*e = Event{
		Timestamp:       ts,
		ServerSessionID: w.ServerSessionID,
		Kind:            w.Kind,
		ToolName:        w.ToolName,
		ArgsSummary:     w.ArgsSummary,
		Status:          w.Status,
		ErrorKind:       w.ErrorKind,
		ResultSummary:   w.ResultSummary,
		EventSubtype:    w.EventSubtype,
		Message:         w.Message,
	}
	if w.DurationMS != nil {
		e.DurationMS = *w.DurationMS
	}
	return nil
}

// ErrMalformed marks a line that is not a usable event.
var ErrMalformed = errors.New("malformed event")

// Parse decodes one line and checks the fields every event must carry.
func Parse(line []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(line, &e); err != nil {
		return Event{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	switch {
	case e.Timestamp.IsZero():
		return Event{}, fmt.Errorf("%w: missing timestamp", ErrMalformed)
	case e.ServerSessionID == "":
		return Event{}, fmt.Errorf("%w: missing server_session_id", ErrMalformed)
	case e.Kind == "":
		return Event{}, fmt.Errorf("%w: missing kind", ErrMalformed)
	}
	if y := e.Timestamp.Year(); y < 0 || y > 9999 {
		return Event{}, fmt.Errorf("%w: timestamp year %d outside 0..9999", ErrMalformed, y)
	}
	return e, nil
}
