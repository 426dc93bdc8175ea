package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/audit"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestAuditVerifyCheckpointsCatchesTruncation drives the commands an
// operator uses: checkpoint, delete the newest row as a superuser would,
// verify (which alone sees nothing) and verify --checkpoints (which fails).
func TestAuditVerifyCheckpointsCatchesTruncation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testdb.New(t)
	home := t.TempDir()
	conn := connect(t, url)
	w := audit.NewWriter(conn, nil)
	for i := 0; i < 3; i++ {
		if _, err := w.Record(ctx, audit.Entry{SessionID: "s", Tool: "query", Status: "success", CostClass: "search"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "audit", "verify", "--checkpoints"); code != 1 || !strings.Contains(errOut, "no audit key") || !strings.Contains(errOut, "pgbrain audit checkpoint") {
		t.Fatalf("verify --checkpoints without any: exit %d, %s", code, errOut)
	}
	out, errOut, code := pgbrain(t, url, "", "--home", home, "audit", "checkpoint")
	if code != 0 || !strings.Contains(out, "checkpoint row 3") || !strings.Contains(errOut, "new checkpoint key") {
		t.Fatalf("checkpoint: exit %d\n%s\n%s", code, out, errOut)
	}
	if fi, err := os.Stat(filepath.Join(home, audit.KeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "audit", "verify", "--checkpoints"); code != 0 || !strings.Contains(errOut, "1 checkpoint(s)") {
		t.Fatalf("verify --checkpoints before tampering: exit %d, %s", code, errOut)
	}
	for _, s := range []string{
		`ALTER TABLE brain.audit_log DISABLE TRIGGER audit_log_00_append_only`,
		`DELETE FROM brain.audit_log WHERE id = 3`,
		`ALTER TABLE brain.audit_log ENABLE ALWAYS TRIGGER audit_log_00_append_only`,
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "audit", "verify", "--full"); code != 0 {
		t.Fatalf("plain verify after truncation: exit %d (%s); the chain alone cannot see it", code, errOut)
	}
	out, errOut, code = pgbrain(t, url, "", "--home", home, "audit", "verify", "--checkpoints")
	if code != 1 || !strings.Contains(out, "row 3: truncated") || !strings.Contains(errOut, "verification failed") {
		t.Fatalf("verify --checkpoints after truncation: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestAuditVerifyReportsSpooledRows: rows waiting in the spool are named,
// and 'audit flush' chains them.
func TestAuditVerifyReportsSpooledRows(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	home := t.TempDir()
	if err := audit.NewSpool(home).Append([]audit.Entry{
		{SessionID: "s", Tool: "query", Status: "success", CostClass: "search"},
		{SessionID: "s", Tool: "get_page", Status: "success", CostClass: "cheap"},
	}); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "audit", "verify"); code != 0 || !strings.Contains(errOut, "2 calls wait in the audit spool") {
		t.Fatalf("verify with a spool: exit %d, %s", code, errOut)
	}
	var d struct {
		AuditSpooled int      `json:"audit_spooled"`
		Warnings     []string `json:"warnings"`
	}
	out, errOut, code := pgbrain(t, url, "", "--home", home, "doctor", "--json")
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.AuditSpooled != 2 || !strings.Contains(strings.Join(d.Warnings, "\n"), "pgbrain audit flush") {
		t.Fatalf("doctor with a spool: exit %d, audit_spooled %d, warnings %q, %v\n%s", code, d.AuditSpooled, d.Warnings, err, errOut)
	}
	if out, errOut, code := pgbrain(t, url, "", "--home", home, "audit", "flush"); code != 0 || !strings.Contains(out, "chained 2") {
		t.Fatalf("flush: exit %d\n%s\n%s", code, out, errOut)
	}
	out, _, code = pgbrain(t, url, "", "--home", home, "audit", "list", "--json")
	if code != 0 || strings.Count(out, "\n") != 2 || strings.Index(out, `"query"`) > strings.Index(out, `"get_page"`) {
		t.Fatalf("list after flush: exit %d\n%s", code, out)
	}
}

// TestServeAuditCheckpointAtStop: serve runs as pgbrain_agent, which may
// append audit rows but not read them; the checkpoint it writes at stop
// still verifies the chain and anchors its head.
func TestServeAuditCheckpointAtStop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testdb.New(t)
	home := t.TempDir()
	w := audit.NewWriter(connect(t, url), nil)
	for i := 0; i < 2; i++ {
		if _, err := w.Record(ctx, audit.Entry{SessionID: "s", Tool: "query", Status: "success", CostClass: "search"}); err != nil {
			t.Fatal(err)
		}
	}
	_, errOut, code := pgbrain(t, url, "", "--home", home, "serve", "--no-events", "--audit-checkpoint")
	if code != 0 || !strings.Contains(errOut, "audit checkpoint at row 2") {
		t.Fatalf("serve --audit-checkpoint: exit %d, stderr:\n%s", code, errOut)
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "audit", "verify", "--checkpoints"); code != 0 || !strings.Contains(errOut, "1 checkpoint(s)") {
		t.Fatalf("verify --checkpoints after serve: exit %d, %s", code, errOut)
	}
}

// TestServeDrainsTheSpoolAsAgent: rows an earlier serve spooled are
// chained when the next one starts, through pgbrain_agent's INSERT-only
// grant.
func TestServeDrainsTheSpoolAsAgent(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	home := t.TempDir()
	if err := audit.NewSpool(home).Append([]audit.Entry{
		{SessionID: "s", Tool: "query", Status: "success", CostClass: "search"},
		{SessionID: "s", Tool: "get_page", Status: "success", CostClass: "cheap"},
	}); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "serve", "--no-events"); code != 0 || strings.Contains(errOut, "spooled rows stay") {
		t.Fatalf("serve: exit %d, stderr:\n%s", code, errOut)
	}
	if n, err := audit.NewSpool(home).Pending(); err != nil || n != 0 {
		t.Fatalf("spool after serve: %d pending, %v", n, err)
	}
	out, _, code := pgbrain(t, url, "", "--home", home, "audit", "list", "--json")
	if code != 0 || strings.Count(out, "\n") != 2 || strings.Index(out, `"query"`) > strings.Index(out, `"get_page"`) {
		t.Fatalf("list after serve: exit %d\n%s", code, out)
	}
}

func TestVerifyFailureNamesTheSpoolOnlyForMissingSessionRows(t *testing.T) {
	t.Parallel()
	missing := audit.Problem{Problem: "missing_session_rows"}
	changed := audit.Problem{ID: 3, Problem: "hash_mismatch"}
	for _, tc := range []struct {
		problems []audit.Problem
		want     bool
	}{
		{nil, false},
		{[]audit.Problem{missing}, true},
		{[]audit.Problem{missing, missing}, true},
		{[]audit.Problem{missing, changed}, false},
		{[]audit.Problem{changed}, false},
	} {
		if got := onlyMissingSessionRows(tc.problems); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.problems, got, tc.want)
		}
	}
}
