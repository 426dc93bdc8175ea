package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"

	pgbrain "github.com/pgbrain/pgbrain"
)

// ChecksumKey is the brain.config key that records which copy of the
// repeatable tier (functions/install.sql) the database holds: the
// FunctionsChecksum of its source files, ':', and the sha256 of the SQL they
// rendered to with the brain's settings (so a change of, say, the schema
// that holds pgvector also re-applies them).
const ChecksumKey = "functions_checksum"

// ErrFunctionsStale reports a brain whose repeatable functions are not the
// ones this pgbrain ships.
var ErrFunctionsStale = errors.New("the brain's search and export functions were not installed by this pgbrain's migrate (an older pgbrain, or tern code install, which records no checksum): run 'pgbrain migrate'")

// FunctionsChecksum is the lower-case hex sha256 of every file in functions/
// (names and contents, in name order): what brain.config records once
// migrate has applied the repeatable tier.
func FunctionsChecksum() (string, error) {
	dir, err := fs.Sub(pgbrain.SQLFiles, "functions")
	if err != nil {
		return "", err
	}
	entries, err := fs.ReadDir(dir, ".")
	if err != nil {
		return "", fmt.Errorf("listing functions/: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	h := sha256.New()
	for _, e := range entries {
		data, err := fs.ReadFile(dir, e.Name())
		if err != nil {
			return "", fmt.Errorf("reading functions/%s: %w", e.Name(), err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", e.Name(), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// RecordedChecksum returns the repeatable tier's checksum recorded in
// brain.config, or "" when none is.
func RecordedChecksum(ctx context.Context, conn *pgx.Conn) (string, error) {
	var sum string
	err := conn.QueryRow(ctx, `SELECT value FROM brain.config WHERE key = $1`, ChecksumKey).Scan(&sum)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading brain.config %s: %w", ChecksumKey, err)
	}
	return sum, nil
}

// SameFunctions reports whether a recorded checksum (RecordedChecksum) is
// of this pgbrain's functions/ files.
func SameFunctions(recorded string) (bool, error) {
	want, err := FunctionsChecksum()
	if err != nil {
		return false, err
	}
	files, _, _ := strings.Cut(recorded, ":")
	return files == want, nil
}

// applyFunctions installs functions/install.sql, as tern's code package
// install does, unless the database already records this copy rendered
// with these settings.
func applyFunctions(ctx context.Context, conn *pgx.Conn, data map[string]any) error {
	files, err := FunctionsChecksum()
	if err != nil {
		return err
	}
	dir, err := fs.Sub(pgbrain.SQLFiles, "functions")
	if err != nil {
		return err
	}
	pkg, err := migrate.LoadCodePackage(dir)
	if err != nil {
		return fmt.Errorf("loading functions/install.sql: %w", err)
	}
	sql, err := pkg.Eval(data)
	if err != nil {
		return fmt.Errorf("rendering functions/install.sql: %w", err)
	}
	rendered := sha256.Sum256([]byte(sql))
	want := files + ":" + hex.EncodeToString(rendered[:])
	have, err := RecordedChecksum(ctx, conn)
	if err != nil || have == want {
		return err
	}
	sql += fmt.Sprintf(`
INSERT INTO brain.config (key, value) VALUES ('%s', '%s')
ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now();
`, ChecksumKey, want)
	if err := migrate.LockExecTx(ctx, conn, sql); err != nil {
		return fmt.Errorf("applying functions/install.sql: %w", err)
	}
	return nil
}
