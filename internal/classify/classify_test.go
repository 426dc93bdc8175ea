package classify_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/classify"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/pii"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

var pages = map[string]string{
	"people/alice.md":   "# Alice\n\nReach Alice at alice@example.com or +1 415 555 0132.\n",
	"billing/card.md":   "# Card\n\nCard on file: 4111 1111 1111 1111 exp 12/29\n",
	"ops/release.md":    "# Release\n\nRelease v2.10.3 shipped on 2024-03-15. Order #100234567 was delayed; build 1.2.3.4 passed.\n",
	"ops/invoice.md":    "# Invoice\n\nInvoice INV-2023-0042 for order 55512345678, due 2023-10-01.\n",
	"ops/deploy.md":     "---\ntitle: Deploy\n---\nThe server is at 10.0.0.1, user password=hunter2secret\n",
	"health/patient.md": "# Visit\n\nPatient diagnosed with diabetes, ICD-10 E11.9\n",
}

func importPages(t *testing.T, b *brain.Brain, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := ingest.ImportDir(context.Background(), b, dir, ingest.Options{})
	if err != nil || sum.Failed > 0 {
		t.Fatalf("import: %+v %v", sum, err)
	}
}

func show(t *testing.T, b *brain.Brain, slug string) classify.Tag {
	t.Helper()
	tag, err := classify.Show(context.Background(), b.Pool, "default", slug)
	if err != nil {
		t.Fatal(err)
	}
	return tag
}

func TestImportClassifiesPages(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	importPages(t, b, pages)
	cases := []struct {
		slug, cats, sensitivity string
	}{
		{"people/alice", "contact", "low"},
		{"billing/card", "payment_card", "high"},
		{"ops/release", "", "none"}, // version, date, order and build numbers are not PII
		{"ops/invoice", "", "none"},
		{"ops/deploy", "credential,online_identifier", "high"},
		{"health/patient", "health", "high"},
	}
	for _, tc := range cases {
		tag := show(t, b, tc.slug)
		if strings.Join(tag.Categories, ",") != tc.cats || tag.Sensitivity != tc.sensitivity || tag.Origin != "heuristic" {
			t.Errorf("%s: %v %s %s, want [%s] %s heuristic", tc.slug, tag.Categories, tag.Sensitivity, tag.Origin, tc.cats, tc.sensitivity)
		}
	}
}

func TestOperatorTagsSurviveReimport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	importPages(t, b, pages)
	tag, err := classify.Set(ctx, b.Pool, "default", "ops/release", []string{"location", "behavioral"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tag.Categories, ",") != "behavioral,location" || tag.Origin != "operator" || tag.Sensitivity != "moderate" {
		t.Fatalf("after set: %+v", tag)
	}
	// Unchanged content, re-imported, leaves the override alone.
	importPages(t, b, pages)
	if tag := show(t, b, "ops/release"); strings.Join(tag.Categories, ",") != "behavioral,location" || tag.Origin != "operator" {
		t.Fatalf("re-import of unchanged content changed the operator's tags: %+v", tag)
	}
	// Changed content, through both write paths, never drops what the
	// operator said; what the new content holds is added (the operator
	// has not seen it: fail closed).
	changed := map[string]string{"ops/release.md": "# Release\n\nnothing personal, v1.2.3\n"}
	importPages(t, b, changed)
	if tag := show(t, b, "ops/release"); strings.Join(tag.Categories, ",") != "behavioral,location" || tag.Origin != "operator" {
		t.Fatalf("re-import overwrote the operator's tags: %+v", tag)
	}
	if _, err := ingest.PutPage(ctx, b, "ops/release", []byte("# Release\n\ncall +1 415 555 0132\n"), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if tag := show(t, b, "ops/release"); strings.Join(tag.Categories, ",") != "behavioral,contact,location" || tag.Origin != "operator" {
		t.Fatalf("put of content with a phone number: %+v, want the operator's tags plus contact", tag)
	}
	// Clearing returns the page to what its content says now.
	tag, err = classify.Clear(ctx, b.Pool, pii.Classify, "default", "ops/release")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tag.Categories, ",") != "contact" || tag.Origin != "heuristic" {
		t.Fatalf("after clear: %+v, want heuristic [contact]", tag)
	}
	// A heuristic tag follows the content again.
	if _, err := ingest.PutPage(ctx, b, "ops/release", []byte("# Release\n\nnothing personal, v1.2.3\n"), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if tag := show(t, b, "ops/release"); len(tag.Categories) != 0 || tag.Origin != "heuristic" {
		t.Fatalf("after put: %+v, want no categories", tag)
	}
}

func TestSetRejectsBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	importPages(t, b, pages)
	cases := []struct {
		slug string
		cats []string
		want string
	}{
		{"ops/release", []string{"emails"}, "unknown PII category emails"},
		{"ops/nope", []string{"contact"}, "no page ops/nope"},
	}
	for _, tc := range cases {
		_, err := classify.Set(ctx, b.Pool, "default", tc.slug, tc.cats)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%s, %v) = %v, want an error containing %q", tc.slug, tc.cats, err, tc.want)
		}
	}
	if _, err := classify.Show(ctx, b.Pool, "default", "ops/nope"); !errors.Is(err, classify.ErrPageNotFound) {
		t.Errorf("Show of a missing page: %v", err)
	}
	// Clearing a page that does not exist leaves nothing half done.
	if _, err := classify.Clear(ctx, b.Pool, pii.Classify, "default", "ops/nope"); err == nil {
		t.Error("Clear of a missing page succeeded")
	}
}

func TestAllClassifiesUnclassifiedPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	importPages(t, b, pages)
	if _, err := classify.Set(ctx, b.Pool, "default", "ops/invoice", []string{"financial"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Pool.Exec(ctx, `DELETE FROM brain.page_pii WHERE origin = 'heuristic'`); err != nil {
		t.Fatal(err)
	}
	seen, changed, err := classify.All(ctx, b.Pool, pii.Classify, true)
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(pages)-1 || changed != int64(len(pages)-1) {
		t.Fatalf("All(onlyMissing) saw %d and wrote %d, want %d each", seen, changed, len(pages)-1)
	}
	if tag := show(t, b, "ops/invoice"); tag.Origin != "operator" {
		t.Fatalf("All overwrote an operator tag: %+v", tag)
	}
	// A second full run finds nothing to change.
	seen, changed, err = classify.All(ctx, b.Pool, pii.Classify, false)
	if err != nil || seen != len(pages) || changed != 0 {
		t.Fatalf("second run: saw %d wrote %d err %v; want %d, 0", seen, changed, err, len(pages))
	}
}

func TestPagePIIConstraints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	importPages(t, b, pages)
	var id int64
	if err := b.Pool.QueryRow(ctx, `SELECT id FROM brain.pages WHERE slug = 'ops/release'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		cats []string
		ok   bool
	}{
		{[]string{}, true},
		{[]string{"contact", "health"}, true},
		{[]string{"health", "contact"}, false}, // unsorted
		{[]string{"contact", "contact"}, false},
		{[]string{"email"}, false},
		{[]string{"Contact"}, false},
	}
	for _, tc := range cases {
		_, err := b.Pool.Exec(ctx, `UPDATE brain.page_pii SET categories = $2 WHERE page_id = $1`, id, tc.cats)
		if (err == nil) != tc.ok {
			t.Errorf("categories %v: err = %v, want ok=%v", tc.cats, err, tc.ok)
		}
	}
	// Sensitivity is derived in the database, whatever a writer supplies.
	for cats, want := range map[string]string{"": "none", "contact": "low", "contact,location": "moderate", "contact,health": "high", "online_identifier": "low", "government_id": "high", "financial": "moderate"} {
		var got string
		if err := b.Pool.QueryRow(ctx, `UPDATE brain.page_pii SET categories = coalesce(string_to_array(nullif($2, ''), ','), '{}') WHERE page_id = $1 RETURNING sensitivity`, id, cats).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("sensitivity of [%s] = %s, want %s", cats, got, want)
		}
	}
	if _, err := b.Pool.Exec(ctx, `DELETE FROM brain.pages WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.page_pii WHERE page_id = $1`, id).Scan(&n); err != nil || n != 0 {
		t.Fatalf("deleting the page left %d page_pii rows (%v)", n, err)
	}
}

func TestTaxonomyMatchesSQL(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	var sqlNames []string
	if err := b.Pool.QueryRow(context.Background(), `SELECT brain.pii_taxonomy()`).Scan(&sqlNames); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sqlNames, pii.Categories()) {
		t.Fatalf("SQL taxonomy %v differs from internal/pii %v", sqlNames, pii.Categories())
	}
}

// A write from psql to a page's body, title or slug makes its tags stale
// in the same statement, whoever wrote them; All(onlyMissing) classifies
// the stale pages again, and an unrelated column change does not.
func TestPsqlWritesMakeTagsStale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	importPages(t, b, pages)
	if tag := show(t, b, "ops/release"); tag.Stale || tag.Origin != "heuristic" {
		t.Fatalf("after import: %+v", tag)
	}
	for _, tc := range []struct {
		name, sql string
		stale     bool
	}{
		{"frontmatter only", `UPDATE brain.pages SET frontmatter = '{"x": 1}' WHERE slug = 'ops/release'`, false},
		{"body", `UPDATE brain.pages SET body = body || E'\nSSN 123-45-6789\n' WHERE slug = 'ops/release'`, true},
		{"title", `UPDATE brain.pages SET title = 'Release card 4111 1111 1111 1111' WHERE slug = 'ops/release'`, true},
		{"slug", `UPDATE brain.pages SET slug = 'ops/release-2' WHERE slug = 'ops/release'`, true},
	} {
		if _, err := b.Pool.Exec(ctx, tc.sql); err != nil {
			t.Fatal(err)
		}
		slug := "ops/release"
		if tc.name == "slug" {
			slug = "ops/release-2"
		}
		if tag := show(t, b, slug); tag.Stale != tc.stale {
			t.Errorf("%s: stale = %v, want %v", tc.name, tag.Stale, tc.stale)
		}
		if _, _, err := classify.All(ctx, b.Pool, pii.Classify, true); err != nil {
			t.Fatal(err)
		}
		if tag := show(t, b, slug); tag.Stale {
			t.Errorf("%s: still stale after pii scan: %+v", tc.name, tag)
		}
	}
	tag := show(t, b, "ops/release-2")
	if strings.Join(tag.Categories, ",") != "government_id,payment_card" {
		t.Errorf("after the psql edits and a scan: %v, want government_id and payment_card (title and body)", tag.Categories)
	}
}
