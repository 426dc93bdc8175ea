package events

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

func keysOf(t *testing.T, line []byte) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("line is not a JSON object: %v\n%s", err, line)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestMarshalFields(t *testing.T) {
	ts := time.Date(2026, 11, 21, 12, 0, 0, 123456789, time.UTC)
	tests := []struct {
		name       string
		ev         Event
		wantPrefix string
		wantKeys   []string
	}{
		{
			name: "full tool call",
			ev: Event{
				Timestamp: ts, ServerSessionID: "s1", Kind: KindToolCall, ToolName: "query",
				ArgsSummary: map[string]any{"query": "who", "limit": 10},
				Status:      StatusError, ErrorKind: "unknown_name", DurationMS: 12.5,
				ResultSummary: map[string]int64{"results": 3},
				EventSubtype:  "x", Message: "m",
			},
			wantPrefix: `{"timestamp":"2026-11-21T12:00:00.123456Z","server_session_id":"s1","kind":"tool_call","tool_name":"query","args_summary":{"limit":10,"query":"who"},"status":"error","error_kind":"unknown_name","duration_ms":12.5,"result_summary":{"results":3},"event_subtype":"x","message":"m"}`,
			wantKeys:   []string{"args_summary", "duration_ms", "error_kind", "event_subtype", "kind", "message", "result_summary", "server_session_id", "status", "timestamp", "tool_name"},
		},
		{
			name:       "tool call keeps a zero duration",
			ev:         Event{Timestamp: ts, ServerSessionID: "s1", Kind: KindToolCall, ToolName: "search", Status: StatusEmpty},
			wantPrefix: `{"timestamp":"2026-11-21T12:00:00.123456Z","server_session_id":"s1","kind":"tool_call","tool_name":"search","status":"empty","duration_ms":0}`,
			wantKeys:   []string{"duration_ms", "kind", "server_session_id", "status", "timestamp", "tool_name"},
		},
		{
			name:       "server event omits tool fields",
			ev:         Event{Timestamp: ts, ServerSessionID: "s1", Kind: KindServerEvent, EventSubtype: SubtypeServerStart, Message: "listening"},
			wantPrefix: `{"timestamp":"2026-11-21T12:00:00.123456Z","server_session_id":"s1","kind":"server_event","event_subtype":"server_start","message":"listening"}`,
			wantKeys:   []string{"event_subtype", "kind", "message", "server_session_id", "timestamp"},
		},
		{
			name:       "required fields present even when empty",
			ev:         Event{Timestamp: ts},
			wantPrefix: `{"timestamp":"2026-11-21T12:00:00.123456Z","server_session_id":"","kind":""}`,
			wantKeys:   []string{"kind", "server_session_id", "timestamp"},
		},
		{
			name:       "markers are not HTML-escaped",
			ev:         Event{Timestamp: ts, ServerSessionID: "s", Kind: KindServerEvent, Message: "<email> & <value>"},
			wantPrefix: `{"timestamp":"2026-11-21T12:00:00.123456Z","server_session_id":"s","kind":"server_event","message":"<email> & <value>"}`,
			wantKeys:   []string{"kind", "message", "server_session_id", "timestamp"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, err := tt.ev.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(line) != tt.wantPrefix {
				t.Errorf("line\n got %s\nwant %s", line, tt.wantPrefix)
			}
			if got := keysOf(t, line); !reflect.DeepEqual(got, tt.wantKeys) {
				t.Errorf("keys = %v, want %v", got, tt.wantKeys)
			}
		})
	}
}

func TestTimestampFormat(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 11, 21, 12, 0, 0, 123456789, time.UTC), "2026-11-21T12:00:00.123456Z"},
		{time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), "2026-11-21T12:00:00.000000Z"},
		{time.Date(2026, 11, 21, 13, 30, 0, 1000, time.FixedZone("CET", 3600)), "2026-11-21T12:30:00.000001Z"},
		{time.Date(2027, 1, 1, 0, 59, 59, 999999999, time.FixedZone("X", 2*3600)), "2026-12-31T22:59:59.999999Z"},
	}
	for _, tt := range tests {
		line, err := Event{Timestamp: tt.in, ServerSessionID: "s", Kind: KindServerEvent}.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		if m["timestamp"] != tt.want {
			t.Errorf("timestamp of %v = %v, want %s", tt.in, m["timestamp"], tt.want)
		}
	}
}

func TestMarshalRejectsUnreadableYear(t *testing.T) {
	_, err := Event{Timestamp: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}.MarshalJSON()
	if err == nil {
		t.Fatal("want error for year 10000")
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    Event
		wantErr string
	}{
		{
			name: "round trip",
			line: `{"timestamp":"2026-11-21T12:00:00.123456Z","server_session_id":"s1","kind":"tool_call","tool_name":"query","args_summary":{"limit":10},"status":"success","duration_ms":1.5,"result_summary":{"results":2}}`,
			want: Event{
				Timestamp: time.Date(2026, 11, 21, 12, 0, 0, 123456000, time.UTC), ServerSessionID: "s1",
				Kind: KindToolCall, ToolName: "query", ArgsSummary: map[string]any{"limit": float64(10)},
				Status: StatusSuccess, DurationMS: 1.5, ResultSummary: map[string]int64{"results": 2},
			},
		},
		{
			name: "offset timestamp read as UTC, unknown fields ignored",
			line: `{"timestamp":"2026-11-21T13:00:00+01:00","server_session_id":"s","kind":"server_event","extra":1}`,
			want: Event{Timestamp: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), ServerSessionID: "s", Kind: KindServerEvent},
		},
		{name: "not JSON", line: `{"timestamp":`, wantErr: "unexpected end of JSON input"},
		{name: "not an object", line: `[1,2]`, wantErr: "decode event"},
		{name: "null", line: `null`, wantErr: "missing timestamp"},
		{name: "bad timestamp", line: `{"timestamp":"yesterday","server_session_id":"s","kind":"tool_call"}`, wantErr: "decode timestamp"},
		{name: "no timestamp", line: `{"server_session_id":"s","kind":"tool_call"}`, wantErr: "missing timestamp"},
		{name: "no session", line: `{"timestamp":"2026-11-21T12:00:00Z","kind":"tool_call"}`, wantErr: "missing server_session_id"},
		{name: "no kind", line: `{"timestamp":"2026-11-21T12:00:00Z","server_session_id":"s"}`, wantErr: "missing kind"},
		{name: "fractional count", line: `{"timestamp":"2026-11-21T12:00:00Z","server_session_id":"s","kind":"tool_call","result_summary":{"n":1.5}}`, wantErr: "decode event"},
		{name: "year overflows after UTC", line: `{"timestamp":"9999-12-31T23:59:59-01:00","server_session_id":"s","kind":"tool_call"}`, wantErr: "outside 0..9999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.line))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrMalformed) {
					t.Fatalf("err = %v, want ErrMalformed containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestDurationMS(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want float64
	}{
		{0, 0},
		{12 * time.Millisecond, 12},
		{12345 * time.Microsecond, 12.345},
		{1500 * time.Nanosecond, 0.001},
	}
	for _, tt := range tests {
		if got := DurationMS(tt.in); got != tt.want {
			t.Errorf("DurationMS(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-11-21T12:00:00.123456Z","server_session_id":"s1","kind":"tool_call","tool_name":"query","args_summary":{"query":"x","limit":10},"status":"success","duration_ms":3,"result_summary":{"results":2}}`))
	f.Add([]byte(`{"timestamp":"2026-11-21T12:00:00Z","server_session_id":"s","kind":"server_event","event_subtype":"server_start"}`))
	f.Add([]byte(`{"timestamp":"9999-12-31T23:59:59-01:00","server_session_id":"s","kind":"k"}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, err := Parse(line)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		// A parsed event must write back out, and its written form must be a
		// fixed point of parse-then-write.
		first, err := ev.MarshalJSON()
		if err != nil {
			t.Fatalf("parsed event does not marshal: %v", err)
		}
		again, err := Parse(first)
		if err != nil {
			t.Fatalf("written line does not parse: %v\n%s", err, first)
		}
		second, err := again.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(first) != string(second) {
			t.Fatalf("not stable:\n%s\n%s", first, second)
		}
	})
}
