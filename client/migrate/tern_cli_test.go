package migrate_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/client/migrate"
)

// schemaOf lists every column, constraint, index, function and trigger of
// the brain schema, so two installs can be compared.
const schemaOf = `
SELECT string_agg(x, E'\n' ORDER BY x) FROM (
  SELECT format('col %s.%s %s %s', table_name, column_name, data_type, is_nullable) AS x
    FROM information_schema.columns WHERE table_schema = 'brain'
  UNION ALL SELECT format('con %s %s', conname, pg_get_constraintdef(oid))
    FROM pg_constraint WHERE connamespace = 'brain'::regnamespace
  UNION ALL SELECT format('idx %s', indexdef) FROM pg_indexes WHERE schemaname = 'brain'
  UNION ALL SELECT format('fn %s %s', p.proname, md5(pg_get_functiondef(p.oid)))
    FROM pg_proc p WHERE p.pronamespace = 'brain'::regnamespace
  UNION ALL SELECT format('trg %s', pg_get_triggerdef(oid)) FROM pg_trigger
    WHERE tgrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'brain'::regnamespace) AND NOT tgisinternal
  UNION ALL SELECT format('cfg %s=%s', key, value) FROM brain.config WHERE key <> 'functions_checksum'
) s`

// TestTernCLIInstallsTheSameSchema runs the stock tern CLI, as tern.conf
// documents, on an empty database and compares the result with Migrate.
func TestTernCLIInstallsTheSameSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")

	tern := filepath.Join(t.TempDir(), "tern")
	build := exec.Command("go", "build", "-o", tern, "github.com/jackc/tern/v2")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building tern: %v\n%s", err, out)
	}
	viaGo := connect(t)
	cliURL := testdbEmpty(t)
	// The two commands tern.conf documents, run from the repository root.
	for _, args := range [][]string{
		{"migrate", "-c", "tern.conf", "-m", "sql"},
		{"code", "install", "functions", "-c", "tern.conf"},
	} {
		cmd := exec.Command(tern, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "DATABASE_URL="+cliURL)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tern %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	viaCLI, err := pgx.Connect(ctx, cliURL)
	if err != nil {
		t.Fatal(err)
	}
	defer viaCLI.Close(ctx)

	var a, b string
	if err := viaGo.QueryRow(ctx, schemaOf).Scan(&a); err != nil {
		t.Fatal(err)
	}
	if err := viaCLI.QueryRow(ctx, schemaOf).Scan(&b); err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatalf("tern CLI schema differs from Migrate:\n--- Migrate\n%s\n--- tern CLI\n%s", a, b)
	}
	// The two tools share the version table, so Migrate sees nothing to do.
	if err := migrate.Up(ctx, viaCLI, migrate.Options{}); err != nil {
		t.Fatalf("Migrate after tern CLI: %v", err)
	}
}
