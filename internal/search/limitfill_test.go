package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
)

// Two long pages whose many chunks all hold the word outrank every other
// page's one chunk: the arm's first 30 chunks are theirs alone, and dedup
// by page must still fill the limit from the other pages that match.
func TestLongPagesDoNotShortenTheAnswer(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	long := func(name string) string {
		var sb strings.Builder
		fmt.Fprintf(&sb, "# %s manual\n\n", name)
		for i := 0; i < 40; i++ {
			fmt.Fprintf(&sb, "## Section %d\n\nThe tar archive option %d of %s: tar writes, tar reads and tar lists the archive members. %s\n\n",
				i, i, name, strings.Repeat("More words about archives and options. ", 30))
		}
		return sb.String()
	}
	pages := map[string]string{"man/tar": long("tar"), "doc/tar-copy": long("tar copy")}
	for i := 0; i < 12; i++ {
		pages[fmt.Sprintf("notes/n%02d", i)] = fmt.Sprintf("# Note %d\n\nOnce, tar helped with backup %d of the photos.\n", i, i)
	}
	for slug, text := range pages {
		if _, err := ingest.PutPage(ctx(t), b, slug, []byte(text), ingest.Options{NoEmbed: true}); err != nil {
			t.Fatal(err)
		}
	}
	var chunks int
	if err := b.Pool.QueryRow(ctx(t), `SELECT count(*) FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id WHERE p.slug IN ('man/tar', 'doc/tar-copy')`).Scan(&chunks); err != nil {
		t.Fatal(err)
	}
	if chunks < 30 {
		t.Fatalf("the two long pages have %d chunks; the test needs more than the arm's 30", chunks)
	}
	for _, lim := range []int{5, 10, 14} {
		r, err := Keyword(ctx(t), b.Pool, "tar", Options{Limit: lim}, Tuning{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Results) != lim {
			t.Errorf("search tar --limit %d: %d pages, want %d (14 pages hold the word)", lim, len(r.Results), lim)
		}
		var n int
		if err := b.Pool.QueryRow(ctx(t), `SELECT count(*) FROM brain.search('tar', NULL, $1)`, lim).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != lim {
			t.Errorf("brain.search('tar', lim => %d): %d rows, want %d", lim, n, lim)
		}
	}
}
