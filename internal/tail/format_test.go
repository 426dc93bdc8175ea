package tail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pgbrain/pgbrain/internal/events"
)

func TestFormat(t *testing.T) {
	ts := time.Date(2026, 11, 21, 12, 0, 0, 123456000, time.UTC)
	clock := ts.Local().Format("15:04:05.000")
	call := func(status events.Status, kind string) events.Event {
		return events.Event{
			Timestamp: ts, ServerSessionID: "abcdef0123456789", Kind: events.KindToolCall,
			ToolName: "query", Status: status, ErrorKind: kind, DurationMS: 12.4,
			ArgsSummary:   map[string]any{"query": "who is alice", "limit": float64(10), "filters": map[string]any{"type": "<value>"}},
			ResultSummary: map[string]int64{"results": 3, "pages": 2},
		}
	}
	tests := []struct {
		name  string
		ev    events.Event
		color bool
		want  string
	}{
		{
			name: "tool call plain",
			ev:   call(events.StatusSuccess, ""),
			want: clock + ` query filters={"type":"<value>"} limit=10 query="who is alice" success pages=2 results=3 12ms`,
		},
		{
			name:  "success is green",
			ev:    call(events.StatusSuccess, ""),
			color: true,
			want:  clock + ` query filters={"type":"<value>"} limit=10 query="who is alice" ` + ansiGreen + "success" + ansiReset + ` pages=2 results=3 12ms`,
		},
		{
			name:  "degraded is yellow",
			ev:    events.Event{Timestamp: ts, ServerSessionID: "s", Kind: events.KindToolCall, ToolName: "search", Status: events.StatusDegraded, DurationMS: 0.4},
			color: true,
			want:  clock + " search " + ansiYellow + "degraded" + ansiReset + " <1ms",
		},
		{
			name:  "refused is red with its kind",
			ev:    events.Event{Timestamp: ts, ServerSessionID: "s", Kind: events.KindToolCall, ToolName: "get", Status: events.StatusRefused, ErrorKind: "pii_blocked", DurationMS: 1500},
			color: true,
			want:  clock + " get " + ansiRed + "refused:pii_blocked" + ansiReset + " 1500ms",
		},
		{
			name: "no colour codes without color",
			ev:   events.Event{Timestamp: ts, ServerSessionID: "s", Kind: events.KindToolCall, ToolName: "get", Status: events.StatusError, ErrorKind: "db_down"},
			want: clock + " get error:db_down 0ms",
		},
		{
			name: "server event",
			ev:   events.Event{Timestamp: ts, ServerSessionID: "abcdef0123456789", Kind: events.KindServerEvent, EventSubtype: events.SubtypeServerStart, Message: "listening on stdio"},
			want: clock + " server_start session=abcdef01 listening on stdio",
		},
		{
			name: "long strings shortened, nested values compact",
			ev: events.Event{Timestamp: ts, ServerSessionID: "s", Kind: events.KindToolCall, ToolName: "put",
				ArgsSummary: map[string]any{"body": strings.Repeat("é", 100), "tags": []any{"a", true, nil}}},
			want: clock + ` put body="` + strings.Repeat("é", 59) + `…" tags=["a",true,null] 0ms`,
		},
		{
			name: "control characters cannot reach the terminal",
			ev: events.Event{Timestamp: ts, ServerSessionID: "s", Kind: events.KindToolCall, ToolName: "q\x1b[2J",
				ArgsSummary: map[string]any{"a b": "x\x1b]0;t\x07\n", "n": []any{"\u009b31m"}},
				Status:      "ok\x1b[0m", Message: "line\nbreak\u2028"},
			want: clock + ` q\x1b[2J "a b"="x\x1b]0;t\a\n" n=["\u009b31m"] ok\x1b[0m 0ms line\nbreak\u2028`,
		},
		{
			name: "invalid UTF-8 escaped, also when shortened",
			ev: events.Event{Timestamp: ts, ServerSessionID: "s", Kind: events.KindToolCall, ToolName: "q",
				ArgsSummary: map[string]any{"v": strings.Repeat("a", 58) + "\xff" + strings.Repeat("b", 10)}},
			want: clock + ` q v="` + strings.Repeat("a", 58) + `\xff…" 0ms`,
		},
		{
			name: "invalid UTF-8 in a message",
			ev:   events.Event{Timestamp: ts, ServerSessionID: "s", Kind: events.KindServerEvent, EventSubtype: "server_stop", Message: "bad\xffbyte"},
			want: clock + ` server_stop session=s bad\xffbyte`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Format(tt.ev, tt.color)
			if got != tt.want {
				t.Errorf("\n got %q\nwant %q", got, tt.want)
			}
			if strings.ContainsAny(got, "\n\r") {
				t.Errorf("not one line: %q", got)
			}
			if !tt.color && strings.Contains(got, "\x1b") {
				t.Errorf("raw escape in output: %q", got)
			}
		})
	}
}

func TestIsTerminal(t *testing.T) {
	regular, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	closed, err := os.Create(filepath.Join(t.TempDir(), "g"))
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	// The master side of a new pseudo-terminal is a terminal.
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	defer pty.Close()

	tests := []struct {
		name string
		f    *os.File
		want bool
	}{
		{"regular file", regular, false},
		{"character device that is no terminal", devNull, false},
		{"pseudo-terminal", pty, true},
		{"closed file", closed, false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		if got := IsTerminal(tt.f); got != tt.want {
			t.Errorf("%s: IsTerminal = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestColorEnabled(t *testing.T) {
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	defer pty.Close()
	regular, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	tests := []struct {
		name string
		f    *os.File
		env  map[string]string
		want bool
	}{
		{"terminal", pty, nil, true},
		{"NO_COLOR set", pty, map[string]string{"NO_COLOR": "1"}, false},
		{"NO_COLOR empty is ignored", pty, map[string]string{"NO_COLOR": ""}, true},
		{"dumb terminal", pty, map[string]string{"TERM": "dumb"}, false},
		{"not a terminal", regular, nil, false},
	}
	for _, tt := range tests {
		getenv := func(k string) string { return tt.env[k] }
		if got := ColorEnabled(tt.f, getenv); got != tt.want {
			t.Errorf("%s: ColorEnabled = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func FuzzFormat(f *testing.F) {
	f.Add("query", "who is alice", "success", "")
	f.Add("q\x1b[2J", "x\x07\n", "ok\x1b[0m", "line\u2028")
	f.Fuzz(func(t *testing.T, name, value, status, message string) {
		ev := events.Event{
			Timestamp: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), ServerSessionID: name,
			Kind: events.KindToolCall, ToolName: name, Status: events.Status(status), ErrorKind: status,
			ArgsSummary:   map[string]any{name: value, "list": []any{value}, "m": map[string]any{name: value}},
			ResultSummary: map[string]int64{name: 1}, EventSubtype: name, Message: message,
		}
		for _, color := range []bool{false, true} {
			out := Format(ev, color)
			if color {
				for _, code := range []string{ansiGreen, ansiYellow, ansiRed, ansiReset} {
					out = strings.ReplaceAll(out, code, "")
				}
			}
			for i := 0; i < len(out); {
				r, size := utf8.DecodeRuneInString(out[i:])
				if r == utf8.RuneError && size == 1 || !unicode.IsPrint(r) {
					t.Fatalf("non-printable %U at byte %d in %q", r, i, out)
				}
				i += size
			}
		}
	})
}
