package migrate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/testdb"
)

// CheckTrigram names what keeps migration 020 from creating or using
// pg_trgm, for the role that migrates, before anything runs.
func TestCheckTrigram(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testdb.New(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := migrate.CheckTrigram(ctx, conn); err != nil {
		t.Fatalf("a migrated brain: %v, want no error", err)
	}
	asReader := func(want string) {
		t.Helper()
		if _, err := conn.Exec(ctx, `SET ROLE pgbrain_reader`); err != nil {
			t.Fatal(err)
		}
		err := migrate.CheckTrigram(ctx, conn)
		if _, rerr := conn.Exec(ctx, `RESET ROLE`); rerr != nil {
			t.Fatal(rerr)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("as pgbrain_reader: %v, want an error saying %q", err, want)
		}
	}
	// Installed where the role may not look.
	if _, err := conn.Exec(ctx, `DROP EXTENSION pg_trgm CASCADE; CREATE SCHEMA hidden_ext;
		REVOKE ALL ON SCHEMA hidden_ext FROM PUBLIC; CREATE EXTENSION pg_trgm SCHEMA hidden_ext`); err != nil {
		t.Fatal(err)
	}
	asReader(`installed in schema "hidden_ext", which role pgbrain_reader may not use`)
	// Not installed, and the role may not create it.
	if _, err := conn.Exec(ctx, `DROP EXTENSION pg_trgm; REVOKE CREATE ON DATABASE `+pgx.Identifier{conn.Config().Database}.Sanitize()+` FROM PUBLIC`); err != nil {
		t.Fatal(err)
	}
	asReader("role pgbrain_reader may not create it")
	if err := migrate.CheckTrigram(ctx, conn); err != nil {
		t.Errorf("not installed, as a role that may create it: %v, want no error", err)
	}
}
