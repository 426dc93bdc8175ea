package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
)

// sampleBrain is the imported sample brain (1,127 pages), built once per
// test binary: each test that needs it gets a clone, which takes a fraction
// of the CPU an import does.
//
// dbtest.Fixture vacuums the template once, as autovacuum soon does to a
// real brain after an import: searches of a clone then take about half the
// time they take on a brain no vacuum has seen yet.
var sampleBrain = &dbtest.Fixture{Name: "sample", Build: func(ctx context.Context, url string) error {
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"pgbrain", "--database-url", url, "import", sampleBrainDir}, strings.NewReader(""), &out, &errOut); code != 0 {
		return fmt.Errorf("importing %s: exit %d: %s", sampleBrainDir, code, errOut.String())
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
