package search

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestBM25ScoresFollowTheFormula checks brain.bm25_scores, which counts term
// frequencies with tsvector functions in one grouped pass, against BM25
// written out over unnest(tsvector): title (A) and timeline (C) positions
// weighted, every other position (B, and D, which a DBA's tsvector may
// hold) once, a stripped tsvector's lexemes (no positions) not at all,
// the text's frequency alone normalised by the chunk's length (BM25F), the
// coverage factor and the strict bonus (none for a NULL strict query); one row per chunk however often the ids name it, none for an id
// no chunk has. Chunks with the same text must get bit-identical scores,
// so their tie is broken by id alone.
func TestBM25ScoresFollowTheFormula(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	seed(t, db, []page{
		{slug: "b/a", title: "Heron Watching", chunks: []chunk{
			{ct, "Herons and egrets wade in the marsh; the heron waits, the heron strikes.", v},
			{"timeline", "2024-05-01: a heron was seen at the marsh gate.", v}}},
		{slug: "b/b", title: "Marsh Birds", chunks: []chunk{
			{ct, "Egrets, bitterns and rails live in the reed beds of the marsh.", v}}},
		{slug: "b/c", title: "Heron Watching", chunks: []chunk{
			{ct, "Herons and egrets wade in the marsh; the heron waits, the heron strikes.", v}}},
		{slug: "b/d", title: "Café Straße", chunks: []chunk{
			{ct, "Ein Café an der Straße, heron-egret hybrids and x86-64 builds.", v}}},
		{slug: "b/e", title: "Nothing here", chunks: []chunk{{ct, "Unrelated words only.", v}}},
		{slug: "b/f", title: "Heron Marsh", chunks: []chunk{{ct, "A heron in the marsh, seen at the gate.", v}}},
		{slug: "b/g", title: "Heron Marsh", chunks: []chunk{{ct, "A heron in the marsh, seen at the gate.", v}}},
	})
	// b/f's tsvector stripped of positions, every position of b/g's weighted D.
	if _, err := db.Exec(ctx(t), `ALTER TABLE brain.chunks DISABLE TRIGGER USER;
		UPDATE brain.chunks c SET tsv = CASE p.slug WHEN 'b/f' THEN strip(c.tsv) ELSE setweight(c.tsv, 'D') END
		FROM brain.pages p WHERE p.id = c.page_id AND p.slug IN ('b/f', 'b/g');
		ALTER TABLE brain.chunks ENABLE TRIGGER USER`); err != nil {
		t.Fatalf("stripping and reweighting tsvectors: %v", err)
	}
	reference := `
		SELECT c.id,
		       coalesce(m.bm25, 0) * (1 + $6::float8 * power(coalesce(m.held, 0) / greatest((SELECT sum(x) FROM unnest($2::float8[]) x), 1e-9), 2))
		       * CASE WHEN c.tsv @@ $3::tsquery THEN 1 + $5::float8 ELSE 1 END
		FROM brain.chunks c
		LEFT JOIN LATERAL (
			SELECT sum(i.idf * f.tf * 2.2 / (f.tf + 1.2)) AS bm25, sum(i.idf) AS held
			FROM (SELECT u.lexeme,
			             2.0 * cardinality(array_positions(u.weights, 'A'))
			             + (0.5 * cardinality(array_positions(u.weights, 'C'))
			                + cardinality(u.weights) - cardinality(array_positions(u.weights, 'A'))
			                - cardinality(array_positions(u.weights, 'C'))
			                -- the lead: positions among the first $8 of a page's first chunk, the title's not counted
			                + CASE WHEN c.chunk_index = 0 THEN $7::float8 * greatest(
			                      (SELECT count(*) FROM unnest(u.positions) AS q (pos) WHERE q.pos <= $8::int)
			                      - cardinality(array_positions(u.weights, 'A')), 0) ELSE 0 END
			               ) / (0.25 + 0.75 * c.doc_len / $4::float8) AS tf
			      FROM unnest(c.tsv) u) f
			JOIN unnest($1::text[], $2::float8[]) AS i (lexeme, idf) ON i.lexeme = f.lexeme) m ON true
		ORDER BY c.id`
	tests := []struct {
		lexemes []string
		idfs    []float64
		strict  any  // a tsquery's text, or nil
		twice   bool // every id asked twice, and one no chunk has
	}{
		{[]string{"heron", "marsh"}, []float64{1.5, 0.7}, "heron & marsh", false},
		{[]string{"egret", "heron", "marsh", "watch"}, []float64{0.9, 1.5, 0.7, 2.5}, "heron & watch", false},
		{[]string{"cafe", "strass", "x86-64"}, []float64{3, 3, 4}, "cafe", false},
		{[]string{"gate", "seen"}, []float64{2, 2}, "gate & seen", false},
		{[]string{"absent"}, []float64{5}, "absent", false},
		{[]string{}, []float64{}, "heron", false},
		{[]string{"gate", "heron", "marsh"}, []float64{2, 1.5, 0.7}, nil, true},
	}
	leads := []struct {
		w float64
		n int
	}{{0, 0}, {1.0, 6}, {0.5, 40}}
	for _, tt := range tests {
		for _, lead := range leads {
			t.Run(fmt.Sprintf("%s/lead %v of %d", strings.Join(tt.lexemes, "+"), lead.w, lead.n), func(t *testing.T) {
				want, ids := idScores(t, "reference BM25", db, reference, tt.lexemes, tt.idfs, tt.strict, 12.0, 0.1, 0.5, lead.w, lead.n)
				asked := ids
				if tt.twice {
					asked = append(append(append([]int64{}, ids...), ids...), -1)
				}
				got, rowIDs := idScores(t, "brain.bm25_scores", db, `SELECT s.id, s.sc FROM brain.bm25_scores($1, $2, $3, $4::tsquery, 1.2, 0.75, 2.0, 0.5, 12.0, 0.1, 0.5, $5, $6) s`,
					asked, tt.lexemes, tt.idfs, tt.strict, lead.w, lead.n)
				n := len(rowIDs)
				if n != len(want) || len(got) != len(want) {
					t.Fatalf("brain.bm25_scores returned %d rows for %d chunks, want one row for each of the %d asked", n, len(got), len(want))
				}
				for _, id := range ids {
					if math.Abs(got[id]-want[id]) > 1e-9*math.Max(1, math.Abs(want[id])) {
						t.Errorf("chunk %d: score %v, want %v", id, got[id], want[id])
					}
				}
			})
		}
	}
	// b/a's first chunk and b/c's hold the same text: the same score to the bit.
	var a, c float64
	if err := db.QueryRow(ctx(t), `
		SELECT max(s.sc) FILTER (WHERE p.slug = 'b/a'), max(s.sc) FILTER (WHERE p.slug = 'b/c')
		FROM brain.chunks ch JOIN brain.pages p ON p.id = ch.page_id,
		     brain.bm25_scores(ARRAY[ch.id], '{egret,heron,marsh,strike,wade,wait}', '{0.9,1.5,0.7,2.1,2.2,1.9}',
		                       'heron'::tsquery, 1.2, 0.75, 2.0, 0.5, 12.0, 0.1, 0.5) s
		WHERE ch.chunk_index = 0`).Scan(&a, &c); err != nil {
		t.Fatalf("scores of the twin chunks: %v", err)
	}
	if a != c || a == 0 {
		t.Errorf("chunks with the same text scored %v and %v, want the same non-zero score", a, c)
	}
}

// idScores runs sql, whose rows are (id, score), and returns the scores by
// id and the ids in row order (an id twice if two rows hold it).
func idScores(t *testing.T, what string, db *pgxpool.Pool, sql string, args ...any) (map[int64]float64, []int64) {
	t.Helper()
	rows, err := db.Query(ctx(t), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer rows.Close()
	scores := map[int64]float64{}
	var ids []int64
	for rows.Next() {
		var id int64
		var sc float64
		if err := rows.Scan(&id, &sc); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		scores[id] = sc
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return scores, ids
}

// TestWordsTsquery checks brain.words_tsquery, which joins the stripped
// tsvector's text, against the AND of tsvector_to_array's lexemes quoted
// one by one, on words with quotes, backslashes, every script and nothing
// indexable.
func TestWordsTsquery(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	words := []string{
		"heron", "Herons", "x86-64", "e-mail", "C++", "C#", "it's", "don't stop", `a\b`, `back\\slash`,
		`'quoted'`, `''`, "O'Reilly's", "東京タワー", "打ち合わせ", "Ελληνικά", "Café Straße", "naïve",
		"PGP/MIME", "3.x", "v1.2.3", "🙂", "the", "and or not", "-", "", "   ", "a&b|c!d", "(paren)", "<->",
		"x:*", "a:A", "foo\tbar", "zero\u200bwidth", "ŉ", "ǅemal",
	}
	for _, w := range words {
		var got, want *string
		if err := db.QueryRow(ctx(t), `SELECT brain.words_tsquery($1)::text`, w).Scan(&got); err != nil {
			t.Fatalf("brain.words_tsquery(%q): %v", w, err)
		}
		if err := db.QueryRow(ctx(t), `
			SELECT string_agg('''' || replace(replace(l, '\', '\\'), '''', '''''') || '''', ' & ')::tsquery::text
			FROM unnest(tsvector_to_array(to_tsvector('brain.english_unaccent'::regconfig, brain.cjk_bigrams($1)))) l`,
			w).Scan(&want); err != nil {
			t.Fatalf("reference for %q: %v", w, err)
		}
		if deref(got) != deref(want) || (got == nil) != (want == nil) {
			t.Errorf("brain.words_tsquery(%q) = %v, want %v", w, deref(got), deref(want))
		}
	}
}

// TestCandidateCutScansFromBlockZero: the keyword arm keeps the first
// matches of a common word in physical order, and a synchronized scan
// (PostgreSQL's default for tables over a quarter of shared_buffers) would
// start where the last scan of the table stopped, so the same query could
// return other chunks the next time. Both functions that cut that way turn
// it off.
func TestCandidateCutScansFromBlockZero(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	for _, fn := range []string{"brain.keyword_candidates", "brain.keyword_scan"} {
		var cfg []string
		if err := db.QueryRow(ctx(t), `SELECT coalesce(proconfig, '{}') FROM pg_proc WHERE oid = to_regproc($1)`, fn).Scan(&cfg); err != nil {
			t.Fatalf("settings of %s: %v", fn, err)
		}
		if !slices.Contains(cfg, "synchronize_seqscans=off") {
			t.Errorf("%s runs with %v, want synchronize_seqscans=off among them", fn, cfg)
		}
	}
}

// A page whose text opens with the query's words is what the query
// describes (a package's or a project's first sentence says what it is):
// between two pages holding the same words, the one that says them first
// ranks first, and with search.lead_weight 0 the two tie (broken by id).
// Only a page's first chunk has a lead.
func TestLeadWordsRankFirst(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	filler := "Nothing in this sentence names the thing at all, it only fills the page with other words for a while."
	seed(t, db, []page{
		{slug: "l/later", title: "Later", chunks: []chunk{{ct, filler + " A tool to resize photo albums.", v}}},
		{slug: "l/first", title: "First", chunks: []chunk{{ct, "A tool to resize photo albums. " + filler, v}}},
		{slug: "l/second-chunk", title: "Second chunk", chunks: []chunk{
			{ct, "An introduction in its own chunk.", v},
			{ct, "A tool to resize photo albums. " + filler, v}}},
	})
	// l/second-chunk's words open its second chunk, which has no lead:
	// it ties with l/later, broken by id.
	if got, want := keywordSlugs(t, db, "resize photo albums", 10), []string{"l/first", "l/later", "l/second-chunk"}; !slices.Equal(got, want) {
		t.Errorf("with the lead weighted: %v, want %v (l/first's text opens with the words)", got, want)
	}
	if _, err := db.Exec(ctx(t), `INSERT INTO brain.config VALUES ('search.lead_weight', '0')`); err != nil {
		t.Fatal(err)
	}
	if got, want := keywordSlugs(t, db, "resize photo albums", 10), []string{"l/later", "l/first", "l/second-chunk"}; !slices.Equal(got, want) {
		t.Errorf("with search.lead_weight 0: %v, want %v (the same words: ties broken by id)", got, want)
	}
}
