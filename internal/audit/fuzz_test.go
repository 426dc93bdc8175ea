package audit_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgbrain/pgbrain/internal/audit"
)

// FuzzReadCheckpoints: any file content reads without panicking; every
// checkpoint returned is well formed, and every non-blank line is either a
// checkpoint or reported by number.
func FuzzReadCheckpoints(f *testing.F) {
	f.Add([]byte(`{"v":1,"at":"2026-11-24T23:00:00Z","head_id":3,"head_hash":"ab","hmac":"cd"}` + "\n"))
	f.Add([]byte("not json\n\n{\"v\":2,\"head_id\":1}\n{\"v\":1,\"head_id\":-1}\n"))
	f.Add([]byte(`{"v":1,"at":"0001-01-01T00:00:00Z","head_id":9223372036854775807,"head_hash":"","hmac":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "cp.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cps, bad, err := audit.ReadCheckpoints(path)
		if err != nil {
			return // a line longer than the scanner takes
		}
		for _, c := range cps {
			if c.Version != 1 || c.HeadID <= 0 {
				t.Fatalf("ReadCheckpoints returned %+v", c)
			}
		}
		lines := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		if len(cps)+len(bad) != lines {
			t.Fatalf("%d checkpoints + %d bad lines, want %d lines", len(cps), len(bad), lines)
		}
	})
}

// FuzzSessionsFromEvents: any events file content is counted without
// panicking, and no session counts more calls than the file has lines.
func FuzzSessionsFromEvents(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-11-21T12:00:00Z","server_session_id":"s","kind":"server_event","event_subtype":"server_start","message":"serving over MCP (audit off)"}` + "\n" +
		`{"timestamp":"2026-11-21T12:00:01Z","server_session_id":"s","kind":"tool_call","tool_name":"query"}` + "\n" +
		`{"timestamp":"2026-11-21T12:00:02Z","server_session_id":"s","kind":"server_event","event_subtype":"server_stop"}` + "\n"))
	f.Add([]byte("garbage\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "events.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		sessions, err := audit.SessionsFromEvents(path)
		if err != nil {
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		total := 0
		for _, s := range sessions {
			if s.SessionID == "" || s.Calls < 0 {
				t.Fatalf("session %+v", s)
			}
			total += s.Calls
		}
		if total > lines {
			t.Fatalf("%d calls counted in %d lines", total, lines)
		}
	})
}
