package tokens_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/tokens"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func TestTokenLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.Open(t).Pool
	secret, err := tokens.Create(ctx, db, "ci-agent", "pgbrain_reader")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, tokens.Prefix) || len(secret) < 40 {
		t.Fatalf("secret %q", secret)
	}
	// Only the hash is stored.
	var stored int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM brain.mcp_tokens WHERE position($1::bytea in token_sha256) > 0 OR name = $2`,
		[]byte(secret), secret).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("secret found in the table (%d rows, %v)", stored, err)
	}
	got, err := tokens.Verify(ctx, db, secret)
	if err != nil || got.Name != "ci-agent" || got.Role != "pgbrain_reader" {
		t.Fatalf("Verify = %+v, %v", got, err)
	}
	for _, bad := range []string{"", secret + "x", strings.TrimPrefix(secret, tokens.Prefix), "pgb_" + strings.Repeat("A", 43)} {
		if _, err := tokens.Verify(ctx, db, bad); !errors.Is(err, tokens.ErrUnknown) {
			t.Errorf("Verify(%q) = %v, want ErrUnknown", bad, err)
		}
	}
	if _, err := tokens.Create(ctx, db, "ci-agent", ""); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("second live token of one name: %v", err)
	}
	if err := tokens.Revoke(ctx, db, "ci-agent"); err != nil {
		t.Fatal(err)
	}
	if _, err := tokens.Verify(ctx, db, secret); !errors.Is(err, tokens.ErrUnknown) {
		t.Errorf("revoked token verified: %v", err)
	}
	if err := tokens.Revoke(ctx, db, "ci-agent"); !errors.Is(err, tokens.ErrUnknown) {
		t.Errorf("revoking twice: %v", err)
	}
	// The name is free again once revoked; the old row stays.
	if _, err := tokens.Create(ctx, db, "ci-agent", ""); err != nil {
		t.Fatal(err)
	}
	list, err := tokens.List(ctx, db)
	if err != nil || len(list) != 2 || list[0].RevokedAt == nil || list[1].RevokedAt != nil || list[1].Role != "" {
		t.Fatalf("List = %+v, %v", list, err)
	}
}

func TestTokenNamesAndRolesAreChecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.Open(t).Pool
	for _, tc := range []struct{ name, role string }{
		{"", ""}, {"Upper", ""}, {"-lead", ""}, {"spa ce", ""}, {"数据", ""}, {"émoji🧠", ""},
		{strings.Repeat("a", 64), ""}, {"ok", "Role"}, {"ok", "x;drop"}, {"ok", "1role"},
	} {
		if _, err := tokens.Create(ctx, db, tc.name, tc.role); err == nil {
			t.Errorf("Create(%q, %q) accepted", tc.name, tc.role)
		}
	}
	// The table's CHECKs hold even for a writer that skips the package.
	if _, err := db.Exec(ctx, `INSERT INTO brain.mcp_tokens (name, token_sha256) VALUES ('x', '\x00')`); err == nil {
		t.Error("a short hash was stored")
	}
}
