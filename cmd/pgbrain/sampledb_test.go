package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/dbtest"
)

// sampleBrain is the imported sample brain (1,127 pages), built once per
// test binary: each test that needs it gets a clone, which takes a fraction
// of the CPU an import does.
//
// The template is vacuumed once, as autovacuum soon does to a real brain
// after an import (PostgreSQL vacuums after many inserts): its visibility
// map then marks the pages all-visible, and searches of a clone take about
// half the time they take on a brain no vacuum has seen yet (measured with
// the 91 sample queries at three limits; ANALYZE alone changes nothing).
// What the brain holds is what the import stored.
var sampleBrain = &dbtest.Fixture{Name: "sample", Build: func(ctx context.Context, url string) error {
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"pgbrain", "--database-url", url, "import", sampleBrainDir}, strings.NewReader(""), &out, &errOut); code != 0 {
		return fmt.Errorf("importing %s: exit %d: %s", sampleBrainDir, code, errOut.String())
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "VACUUM"); err != nil {
		return fmt.Errorf("vacuuming the sample brain: %w", err)
	}
	return nil
}}

// sampleBrainURL returns the URL of a fresh database holding the sample
// brain as 'pgbrain import sample/brain' leaves it, dropped with the test
// unless the test failed.
func sampleBrainURL(t *testing.T) string {
	t.Helper()
	return sampleBrain.Clone(t)
}
