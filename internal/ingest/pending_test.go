package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
)

// An import into a brain that already holds pages writes with a short GIN
// pending list (searches scan the list in full), and an import into an
// empty brain keeps the server's default.
func TestImportIntoASearchedBrainKeepsThePendingListShort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	// A statement trigger records the setting each batch ran with.
	if _, err := b.Pool.Exec(ctx, `
		CREATE TABLE public.batch_settings (source text, pending_limit text);
		CREATE FUNCTION public.record_batch_setting() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			INSERT INTO public.batch_settings SELECT DISTINCT n.source_id, current_setting('gin_pending_list_limit') FROM new_pages n;
			RETURN NULL;
		END $$;
		CREATE TRIGGER record_batch_setting AFTER INSERT ON brain.pages
			REFERENCING NEW TABLE AS new_pages FOR EACH STATEMENT EXECUTE FUNCTION public.record_batch_setting()`); err != nil {
		t.Fatal(err)
	}
	var def string
	if err := b.Pool.QueryRow(ctx, `SELECT current_setting('gin_pending_list_limit')`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	folder := func(prefix string) string {
		dir := t.TempDir()
		for i := range 30 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.md", prefix, i)), []byte(fmt.Sprintf("# %s %d\n\nwords of page %d\n", prefix, i, i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	if _, err := ImportDir(ctx, b, folder("first"), Options{NoEmbed: true, BatchPages: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Pool.Exec(ctx, `INSERT INTO brain.sources (id, name) VALUES ('second', 'second')`); err != nil {
		t.Fatal(err)
	}
	if _, err := ImportDir(ctx, b, folder("second"), Options{NoEmbed: true, BatchPages: 10, Source: "second"}); err != nil {
		t.Fatal(err)
	}
	rows, err := b.Pool.Query(ctx, `SELECT source, pending_limit, count(*) FROM public.batch_settings GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var source, limit string
		var n int
		if err := rows.Scan(&source, &limit, &n); err != nil {
			t.Fatal(err)
		}
		if _, dup := got[source]; dup {
			t.Errorf("source %s: batches ran with more than one pending-list limit (%s and %s)", source, got[source], limit)
		}
		got[source] = limit
	}
	if got["default"] != def {
		t.Errorf("import into the empty brain ran with gin_pending_list_limit %q, want the server's %q", got["default"], def)
	}
	if got["second"] != searchedPendingLimit {
		t.Errorf("import into a brain holding pages ran with gin_pending_list_limit %q, want %q", got["second"], searchedPendingLimit)
	}
}
