package main

import (
	"context"
	_ "embed"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
)

// roleTracker is SQL that makes the test database record which roles read
// brain.config, which every command does when it opens the brain (its
// settings), on the connection it then works on. The policy's function
// sees the querying role as current_user; the tables' owner (the test's
// connecting superuser) bypasses row security, so a command that stays
// the owner records nothing. A read-only transaction (eval export's
// snapshot) cannot record, and needs not: the open already did.
//
//go:embed testdata/role_tracker.sql
var roleTracker string

// serveRequests is an MCP session over stdio: a search and a page read.
const serveRequests = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"roles","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"widget"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_page","arguments":{"slug":"companies/widget-co"}}}
`

// TestRolesLeastPrivilegeOfEachCommand runs each command end to end and
// requires the server to have seen it as the role docs/security.md names
// ("How the CLI uses them"), and nothing else: a command that ran as the
// owner (no SET ROLE) or as a wider role fails here. TestRolesLeastPrivilege
// (internal/brain) holds each role to what it may do.
func TestRolesLeastPrivilegeOfEachCommand(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, b.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, roleTracker); err != nil {
		t.Fatalf("installing the role tracker: %v", err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO brain.audit_log (session_id, tool_name, status, cost_class)
		VALUES ('s', 'search', 'success', 'cheap')`); err != nil {
		t.Fatal(err)
	}
	b.must("pii", "scan") // classified pages, for pii show
	// query and search capture (as the reader) what eval export exports.
	writeFile(t, filepath.Join(b.home, "config.json"), `{"eval":{"capture":true}}`)
	dir := t.TempDir()
	export := filepath.Join(dir, "export.ndjson")
	qrels := filepath.Join(dir, "qrels.json")
	baseline := filepath.Join(t.TempDir(), "baseline.ndjson")
	writeFile(t, qrels, `{"schema_version":1,"queries":[{"query_id":"q1","query":"widget gizmo","relevant_slugs":["companies/widget-co"]}]}`)
	page := filepath.Join(dir, "page.md")
	writeFile(t, page, "---\ntitle: Roles\n---\nRoles page body.\n")

	const owner = "" // the connecting role: nothing recorded
	tests := []struct {
		args  []string
		stdin string
		role  string
	}{
		// In order: later commands use what earlier ones made.
		{[]string{"import", dir}, "", owner},
		{[]string{"put", "notes/roles"}, "Roles page body, again.\n", owner},
		{[]string{"embed", "--stale"}, "", owner},
		{[]string{"doctor"}, "", owner},
		{[]string{"get", "companies/widget-co"}, "", brain.RoleReader},
		{[]string{"list"}, "", brain.RoleReader},
		{[]string{"search", "widget"}, "", brain.RoleReader},
		{[]string{"query", "widget gizmo"}, "", brain.RoleReader},
		{[]string{"sources", "list"}, "", brain.RoleReader},
		{[]string{"pii", "show", "companies/widget-co"}, "", brain.RoleReader},
		{[]string{"eval", "export"}, "", brain.RoleReader}, // its stdout is the export replay reads
		{[]string{"eval", "replay", "--against", export}, "", brain.RoleReader},
		{[]string{"eval", "gate", "--qrels", qrels, "--threshold-recall", "0", "--threshold-first-relevant", "0", "--threshold-expected-top1", "0"}, "", brain.RoleReader},
		{[]string{"eval", "qrels", qrels}, "", brain.RoleReader},
		{[]string{"bench", "publish", "--from", export, "--to", baseline}, "", owner}, // reads a file, never connects
		{[]string{"eval", "gate", "--baseline", baseline, "--threshold-latency", "1000000"}, "", brain.RoleReader},
		{[]string{"sources", "add", "extra", "Extra"}, "", brain.RoleWriter},
		{[]string{"sources", "remove", "extra"}, "", brain.RoleWriter},
		{[]string{"sources", "add", "extra", "Extra"}, "", brain.RoleWriter},
		{[]string{"put", "notes/extra", "--source", "extra"}, "Extra page.\n", owner},
		{[]string{"sources", "remove", "extra", "--with-pages"}, "", brain.RoleWriter},
		{[]string{"pii", "set", "notes/roles", "--categories", "health"}, "", brain.RoleWriter},
		{[]string{"pii", "clear", "notes/roles"}, "", brain.RoleWriter},
		{[]string{"pii", "scan", "--all"}, "", brain.RoleWriter},
		{[]string{"delete", "notes/roles"}, "", brain.RoleWriter},
		{[]string{"audit", "verify"}, "", brain.RoleAuditor},
		{[]string{"audit", "list"}, "", brain.RoleAuditor},
		{[]string{"audit", "checkpoint"}, "", brain.RoleAuditor},
		{[]string{"audit", "verify", "--full", "--checkpoints"}, "", brain.RoleAuditor},
		{[]string{"audit", "flush"}, "", owner},
		{[]string{"token", "create", "ci"}, "", owner},
		{[]string{"token", "list"}, "", owner},
		{[]string{"token", "revoke", "ci"}, "", owner},
		{[]string{"eval", "prune", "--older-than", "0d"}, "", owner},
		// serve answers as the agent; --audit-checkpoint, not given here,
		// reads the chain's head as the auditor.
		{[]string{"serve", "--no-events"}, serveRequests, brain.RoleAgent},
	}
	for _, tt := range tests {
		name := strings.Join(tt.args, " ")
		if _, err := conn.Exec(ctx, `TRUNCATE public.pgbrain_test_roles_seen`); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := pgbrain(t, b.url, tt.stdin, append([]string{"--home", b.home}, tt.args...)...)
		if code != 0 {
			t.Errorf("pgbrain %s: exit %d\nstdout: %s\nstderr: %s", name, code, out, errOut)
			continue
		}
		if tt.args[0] == "eval" && tt.args[1] == "export" {
			if strings.Count(out, "\n") < 2 { // the query and search above were captured
				t.Errorf("pgbrain eval export: %q, want the captured queries", out)
			}
			writeFile(t, export, out)
		}
		rows, err := conn.Query(ctx, `SELECT role::text FROM public.pgbrain_test_roles_seen ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		seen, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		if tt.role != owner {
			want = []string{tt.role}
		}
		if !slices.Equal(seen, want) {
			t.Errorf("pgbrain %s: the server saw roles %q, want %q (none: the connecting owner)", name, seen, want)
		}
	}
}
