package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestMigrateSaysOneLine: a new brain takes every migration and an old one
// several; either way migrate says so in one line naming the range.
func TestMigrateSaysOneLine(t *testing.T) {
	t.Parallel()
	names, err := migrate.Names()
	if err != nil {
		t.Fatal(err)
	}
	latest := len(names)
	released, err := testdb.ReleasedSchemas()
	if err != nil {
		t.Fatal(err)
	}
	old := released[len(released)-1]
	for _, r := range released {
		if int(r.Version) == latest-2 {
			old = r
		}
	}
	if int(old.Version) >= latest {
		t.Fatalf("no released schema older than version %d to upgrade from", latest)
	}
	fresh := testdb.EmptyDatabase(t)
	upgrade := testdb.EmptyDatabase(t)
	if err := testdb.Restore(context.Background(), upgrade, old.SQL); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, url string
		want      string
	}{
		{"new brain", fresh, fmt.Sprintf("pgbrain: applying migrations 1 to %d (%s to %s)\n", latest, names[0], names[latest-1])},
		{fmt.Sprintf("brain at version %d", old.Version), upgrade,
			fmt.Sprintf("pgbrain: applying migrations %d to %d (%s to %s)\n", old.Version+1, latest, names[old.Version], names[latest-1])},
	} {
		_, errOut, code := pgbrain(t, tc.url, "", "migrate")
		if code != 0 || strings.Count(errOut, "applying migration") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: migrate exit %d, stderr %q; want the one line %q", tc.name, code, errOut, tc.want)
		}
	}
}
