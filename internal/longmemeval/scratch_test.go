package longmemeval

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/search"
	"github.com/pgbrain/pgbrain/testdb"
)

// newScratch creates a scratch brain beside the brain at userURL, with that
// brain's settings, dropped at cleanup. It retrieves with the brain's own
// search (MethodHybrid), which these tests compare with an ordinary brain;
// retrieve_test.go tests the session methods.
func newScratch(t *testing.T, userURL string, keywordOnly bool) *Scratch {
	t.Helper()
	ctx := context.Background()
	b, err := brain.Open(ctx, userURL)
	if err != nil {
		t.Fatal(err)
	}
	settings := b.Settings
	b.Close()
	s, err := NewScratch(ctx, userURL, ScratchOptions{Settings: settings, KeywordOnly: keywordOnly, Method: MethodHybrid})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Drop(ctx); err != nil {
			t.Error(err)
		}
	})
	return s
}

// userBrain is a fresh brain standing for the user's, and its URL.
func userBrain(t *testing.T) (string, *brain.Brain) {
	t.Helper()
	u := testdb.New(t)
	b, err := brain.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return u, b
}

func sameFingerprints(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Errorf("%s: tables %v became %v", what, before, after)
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s: %s changed from %s to %s", what, k, v, after[k])
		}
	}
}

func importSessions(t *testing.T, s Store, n int) {
	t.Helper()
	var docs []ingest.Doc
	for i := range n {
		docs = append(docs, ingest.Doc{Slug: SessionSlug(fmt.Sprint("s", i)), Data: SessionMarkdown(fmt.Sprint("s", i), "2023/05/01",
			[]Turn{{Role: "user", Content: fmt.Sprintf("My dog Biscuit number %d likes walks; call me at alice%d@example.com", i, i)}})})
	}
	if err := s.Import(context.Background(), s.Prepare(docs)); err != nil {
		t.Fatal(err)
	}
}

// TestResetRestoresTheFreshBrain dirties the scratch brain in ways a
// question could (and a later migration might) and checks that a reset
// brings back exactly the freshly migrated state, down to every row.
func TestResetRestoresTheFreshBrain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cloneScratch(t, false, "")
	// Sequences are left out: a reset does not restart them, and ids only
	// order rows relative to each other.
	fresh := testdb.Fingerprints(t, s.B.Pool, false)
	tests := []struct {
		name  string
		dirty func(t *testing.T)
	}{
		{"haystack pages, chunks, term statistics and PII tags", func(t *testing.T) { importSessions(t, s, 5) }},
		{"a table added to schema brain after the run started", func(t *testing.T) {
			if _, err := s.B.Pool.Exec(ctx, `CREATE TABLE brain.zz_new_feature (id int PRIMARY KEY, note text);
				INSERT INTO brain.zz_new_feature VALUES (1, 'left over from the last question')`); err != nil {
				t.Fatal(err)
			}
		}},
		{"a materialized view over the pages", func(t *testing.T) {
			importSessions(t, s, 3)
			if _, err := s.B.Pool.Exec(ctx, `CREATE MATERIALIZED VIEW brain.zz_page_list AS SELECT slug FROM brain.pages`); err != nil {
				t.Fatal(err)
			}
		}},
		{"changed configuration rows", func(t *testing.T) {
			if _, err := s.B.Pool.Exec(ctx, `INSERT INTO brain.config (key, value) VALUES ('search.rrf_k', '7');
				INSERT INTO brain.sources (id, name) VALUES ('extra', 'Extra');
				INSERT INTO brain.source_boosts VALUES ('sessions/', 2);
				UPDATE brain.corpus_stats SET n_docs = 99`); err != nil {
				t.Fatal(err)
			}
		}},
		{"pages in another source", func(t *testing.T) {
			if _, err := s.B.Pool.Exec(ctx, `INSERT INTO brain.sources (id, name) VALUES ('other', 'Other')`); err != nil {
				t.Fatal(err)
			}
			if _, err := ingest.ImportDocs(ctx, s.B, []ingest.Doc{{Slug: "a", Data: []byte("# A\n\nalpha beta\n")}}, ingest.Options{Source: "other"}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.dirty(t)
			if err := s.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			got := testdb.Fingerprints(t, s.B.Pool, false)
			if n, ok := got["brain.zz_new_feature"]; ok {
				if !strings.HasPrefix(n, "0 rows") {
					t.Errorf("the new table was not emptied: %s", n)
				}
				delete(got, "brain.zz_new_feature")
			}
			sameFingerprints(t, "after reset", fresh, got)
			var mv bool
			if err := s.B.Pool.QueryRow(ctx, `SELECT to_regclass('brain.zz_page_list') IS NOT NULL`).Scan(&mv); err != nil {
				t.Fatal(err)
			}
			if n := 0; mv {
				if err := s.B.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.zz_page_list`).Scan(&n); err != nil || n != 0 {
					t.Errorf("the materialized view holds %d rows after a reset (err %v)", n, err)
				}
			}
		})
	}
	// The new table is still emptied on the next reset.
	if _, err := s.B.Pool.Exec(ctx, `INSERT INTO brain.zz_new_feature VALUES (2, 'again')`); err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.B.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.zz_new_feature`).Scan(&n); err != nil || n != 0 {
		t.Errorf("brain.zz_new_feature holds %d rows after a reset (err %v)", n, err)
	}
}

// An append-only table with rows cannot be emptied: the reset must fail
// loudly rather than leave them for the next question.
func TestResetFailsOnAppendOnlyRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cloneScratch(t, true, "")
	if err := s.Reset(ctx); err != nil {
		t.Fatalf("an empty audit log must not stop a reset: %v", err)
	}
	if _, err := s.B.Pool.Exec(ctx, `INSERT INTO brain.audit_log (session_id, tool_name, status, cost_class) VALUES ('s1', 'query', 'success', 'search')`); err != nil {
		t.Fatal(err)
	}
	err := s.Reset(ctx)
	if err == nil || !strings.Contains(err.Error(), "audit_log is append-only") || !strings.Contains(err.Error(), s.Name) {
		t.Fatalf("reset with audit rows: %v", err)
	}
}

// TestRunLeavesTheUserBrainUntouched runs the fixture next to a brain with
// pages of its own: every row of that brain is the same afterwards, its
// search statistics included, and the scratch database is gone.
func TestRunLeavesTheUserBrainUntouched(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	userURL, user := userBrain(t)
	if _, err := ingest.ImportDocs(ctx, user, []ingest.Doc{
		{Slug: "people/alice", Data: []byte("# Alice\n\nAlice has a beagle called Biscuit and runs marathons in Boston.\n")},
		{Slug: "sessions/answer_dog_1", Data: []byte("# Not a session\n\nThe user's own page with a colliding slug.\n")},
	}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	before := testdb.Fingerprints(t, user.Pool, true)
	qs, err := ReadFile("testdata/mini.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewScratch(ctx, userURL, ScratchOptions{Settings: user.Settings})
	if err != nil {
		t.Fatal(err)
	}
	name := s.Name
	var out bytes.Buffer
	sum, runErr := Run(ctx, s, QuestionList(qs), nil, &out, Options{TopK: 5, RetrievalOnly: true})
	if err := s.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if runErr != nil {
		t.Fatal(runErr)
	}
	if sum.Aggregate.Rate != 1 {
		t.Errorf("recall_any on the fixture = %+v, want 1", sum.Aggregate)
	}
	sameFingerprints(t, "the user's brain", before, testdb.Fingerprints(t, user.Pool, true))
	var left bool
	if err := user.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)`, name).Scan(&left); err != nil || left {
		t.Errorf("scratch database %s left behind (err %v)", name, err)
	}
}

func TestScratchNameAndURL(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 40) // 80 bytes
	tests := []struct{ base, wantPrefix string }{
		{"brain", "brain_longmemeval_"},
		{"pgbrain_test_0123456789ab", "pgbrain_test_0123456789ab_longmemeval_"},
		{long, strings.Repeat("é", 21) + "_longmemeval_"},
	}
	for _, tc := range tests {
		got, err := scratchName(tc.base)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got, tc.wantPrefix) || len(got) > 63 || !utf8.ValidString(got) || len(got) != len(tc.wantPrefix)+8 {
			t.Errorf("scratchName(%q) = %q (%d bytes)", tc.base, got, len(got))
		}
	}
	urls := []struct{ in, want string }{
		{"postgresql:///brain?host=/tmp&user=me", "postgresql:///x_longmemeval_1?host=/tmp&user=me"},
		{"postgres://me:pw@db:5432/brain?sslmode=disable", "postgres://me:pw@db:5432/x_longmemeval_1?sslmode=disable"},
		{"host=/tmp dbname=brain user=me", "host=/tmp dbname=brain user=me dbname='x_longmemeval_1'"},
	}
	for _, tc := range urls {
		got, err := withDatabase(tc.in, "x_longmemeval_1")
		if err != nil || got != tc.want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		cfg, err := pgx.ParseConfig(got)
		if err != nil || cfg.Database != "x_longmemeval_1" {
			t.Errorf("%q connects to %v (%v)", got, cfg, err)
		}
	}
}

// A role that may not create databases gets an error naming the fix, and
// nothing is created.
func TestScratchNeedsCreateDB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	userURL, user := userBrain(t)
	r := make([]byte, 4)
	rand.Read(r)
	role := "lme_nocreatedb_" + hex.EncodeToString(r)
	if _, err := user.Pool.Exec(ctx, "CREATE ROLE "+role+" LOGIN NOCREATEDB"); err != nil {
		t.Skipf("cannot create a test role here: %v", err)
	}
	defer user.Pool.Exec(context.Background(), "DROP ROLE IF EXISTS "+role)
	u, err := url.Parse(userURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("user", role)
	u.RawQuery = q.Encode()
	u.User = nil
	_, err = NewScratch(ctx, u.String(), ScratchOptions{Settings: user.Settings})
	if err == nil || !strings.Contains(err.Error(), `ALTER ROLE "`+role+`" CREATEDB`) {
		t.Fatalf("err = %v, want the CREATEDB fix", err)
	}
	var n int
	if err := user.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname LIKE '%_longmemeval_%' AND datdba = (SELECT oid FROM pg_roles WHERE rolname = $1)`, role).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d databases created (err %v)", n, err)
	}
}

// cancelOnImport interrupts the run while a question is being imported.
type cancelOnImport struct {
	*Scratch
	cancel context.CancelFunc
}

func (c cancelOnImport) Import(ctx context.Context, p *ingest.Prepared) error {
	c.cancel()
	return c.Scratch.Import(ctx, p)
}

// An interrupted run still drops its scratch database, with the run's own
// (cancelled) context.
func TestDropAfterInterrupt(t *testing.T) {
	t.Parallel()
	userURL, user := userBrain(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := NewScratch(ctx, userURL, ScratchOptions{Settings: user.Settings, KeywordOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := ReadFile("testdata/mini.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, runErr := Run(ctx, cancelOnImport{s, cancel}, QuestionList(qs), nil, &out, Options{RetrievalOnly: true})
	if runErr == nil || ctx.Err() == nil {
		t.Fatalf("the run was not interrupted: %v", runErr)
	}
	if err := s.Drop(ctx); err != nil {
		t.Fatalf("dropping after an interrupt: %v", err)
	}
	var left bool
	if err := user.Pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)`, s.Name).Scan(&left); err != nil || left {
		t.Errorf("scratch database %s left behind (err %v)", s.Name, err)
	}
}

// The scratch brain drops indexes and computes BM25 statistics for each
// question's words instead of keeping them up by trigger; none of that may change
// what a question retrieves. The same sessions, imported into an ordinary
// brain, must give the same statistics and the same ranking, question after
// question (so a reset that left statistics behind would show too).
func TestScratchRanksLikeAnOrdinaryBrain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cloneScratch(t, false, "")
	topics := []string{"garden tomatoes", "museum trip", "guitar lessons", "flight to Lisbon", "sourdough recipe", "marathon training"}
	for round := 0; round < 2; round++ {
		var docs []ingest.Doc
		for i := 0; i < 12; i++ {
			id := fmt.Sprintf("r%d-s%d", round, i)
			topic := topics[(i+round)%len(topics)]
			docs = append(docs, ingest.Doc{Slug: SessionSlug(id), Data: SessionMarkdown(id, "2023/05/01", []Turn{
				{Role: "user", Content: fmt.Sprintf("Let me tell you about my %s, session %d of round %d.", topic, i, round)},
				{Role: "assistant", Content: fmt.Sprintf("That sounds lovely. Tell me more about the %s and how it went.", topic)},
			})})
		}
		if err := s.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Import(ctx, s.Prepare(docs)); err != nil {
			t.Fatal(err)
		}
		plain := dbtest.Open(t)
		if _, err := ingest.ImportDocs(ctx, plain, docs, ingest.Options{Writers: 1}); err != nil {
			t.Fatal(err)
		}
		// After a search the scratch holds the statistics of the question's
		// words: they must be the ordinary brain's for those words.
		stats := func(db testdb.Querier, q string) string {
			var v string
			if err := db.QueryRow(ctx, `
				SELECT (SELECT coalesce(string_agg(lexeme || ':' || doc_freq, ' ' ORDER BY lexeme COLLATE "C"), '') FROM brain.term_stats
				        WHERE lexeme = ANY (tsvector_to_array(to_tsvector('english', $1)) || brain.tsquery_terms(websearch_to_tsquery('english', $1))))
				    || ' | ' || (SELECT n_docs || '/' || total_len FROM brain.corpus_stats)`, q).Scan(&v); err != nil {
				t.Fatal(err)
			}
			return v
		}
		scratchStore := s
		for _, q := range []string{"what did I grow in the garden", "how was the museum trip", "sourdough", "Lisbon flight", `"tell me" -museum`} {
			got, err := scratchStore.Search(ctx, q, 5)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := stats(s.B.Pool, q), stats(plain.Pool, q); got != want || !strings.Contains(got, ":") {
				t.Fatalf("round %d, %q: scratch statistics differ from an ordinary brain's:\n%s\nwant\n%s", round, q, got, want)
			}
			resp, err := search.Hybrid(ctx, plain.Pool, q, nil, search.Options{Limit: 5}, search.Tuning{})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, r := range resp.Results {
				want = append(want, r.Slug)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("round %d, %q: scratch ranks %v, an ordinary brain %v", round, q, got, want)
			}
		}
	}
}

// scratchShape is what the scratch SQL (longmemeval/*.sql) changes in a
// migrated brain, read from the catalog.
type scratchShape struct {
	Indexes         []string // of brain.chunks
	ForeignKeys     int      // in schema brain
	LoggedTables    int      // permanent tables in schema brain
	EnabledTriggers []string // of brain.chunks, enabled
	Helpers         []string // functions of schema longmemeval
	Seeded          []string // tables longmemeval.seeded restores
}

func readScratchShape(t *testing.T, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, withHelpers bool) scratchShape {
	t.Helper()
	ctx := context.Background()
	var sh scratchShape
	q := `SELECT
		coalesce((SELECT array_agg(indexrelid::regclass::text ORDER BY 1) FROM pg_index WHERE indrelid IN ('brain.chunks'::regclass, 'brain.pages'::regclass)), '{}'),
		(SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND connamespace = 'brain'::regnamespace),
		(SELECT count(*) FROM pg_class WHERE relnamespace = 'brain'::regnamespace AND relkind = 'r' AND relpersistence = 'p'),
		coalesce((SELECT array_agg(tgname::text ORDER BY 1) FROM pg_trigger WHERE tgrelid = 'brain.chunks'::regclass AND NOT tgisinternal AND tgenabled <> 'D'), '{}')`
	if err := pool.QueryRow(ctx, q).Scan(&sh.Indexes, &sh.ForeignKeys, &sh.LoggedTables, &sh.EnabledTriggers); err != nil {
		t.Fatal(err)
	}
	if withHelpers {
		q := `SELECT
			(SELECT array_agg(DISTINCT proname::text ORDER BY proname::text) FROM pg_proc WHERE pronamespace = 'longmemeval'::regnamespace),
			(SELECT array_agg(tbl::text ORDER BY tbl::text) FROM longmemeval.seeded)`
		if err := pool.QueryRow(ctx, q).Scan(&sh.Helpers, &sh.Seeded); err != nil {
			t.Fatal(err)
		}
	}
	return sh
}

// TestScratchTakesTheBenchmarkShape checks that NewScratch runs every file
// of longmemeval/ on the scratch brain and nothing of it on the user's: the
// scratch brain keeps no GIN, HNSW or title index and no term-statistics
// trigger, its tables are unlogged without foreign keys, and schema
// longmemeval holds the reset, BM25 and retrieval helpers; its connections
// run with the settings a question needs, and a clone of scratchTemplate is
// the same brain.
func TestScratchTakesTheBenchmarkShape(t *testing.T) {
	t.Parallel()
	u, user := userBrain(t)
	before := readScratchShape(t, user.Pool, false)
	if !slices.Contains(before.Indexes, "brain.chunks_tsv_gin") || !slices.Contains(before.Indexes, "brain.pages_title_trgm") ||
		!slices.Contains(before.Indexes, "brain.pages_title_lower") || before.ForeignKeys == 0 || before.LoggedTables == 0 ||
		!slices.Contains(before.EnabledTriggers, "chunks_term_stats_insert") {
		t.Fatalf("a migrated brain should have a GIN index, foreign keys, logged tables and term-statistics triggers: %+v", before)
	}
	s := newScratch(t, u, false)
	got := readScratchShape(t, s.B.Pool, true)
	for _, ix := range got.Indexes {
		if ix == "brain.chunks_tsv_gin" || ix == "brain.pages_title_trgm" || ix == "brain.pages_title_lower" || strings.Contains(ix, "hnsw") {
			t.Errorf("scratch brain keeps index %s", ix)
		}
	}
	for _, tg := range got.EnabledTriggers {
		if strings.HasPrefix(tg, "chunks_term_stats_") {
			t.Errorf("scratch brain keeps trigger %s enabled", tg)
		}
	}
	if got.ForeignKeys != 0 || got.LoggedTables != 0 {
		t.Errorf("scratch brain has %d foreign keys and %d logged tables, want none", got.ForeignKeys, got.LoggedTables)
	}
	for _, fn := range []string{"fingerprint", "bm25_stats", "reset", "retrieve", "question_parts"} {
		if !slices.Contains(got.Helpers, fn) {
			t.Errorf("schema longmemeval lacks %s: has %v", fn, got.Helpers)
		}
	}
	if !slices.Contains(got.Seeded, "brain.config") {
		t.Errorf("longmemeval.seeded = %v, want brain.config among the restored tables", got.Seeded)
	}
	if after := readScratchShape(t, user.Pool, false); !slices.Equal(after.Indexes, before.Indexes) ||
		after.ForeignKeys != before.ForeignKeys || after.LoggedTables != before.LoggedTables ||
		!slices.Equal(after.EnabledTriggers, before.EnabledTriggers) {
		t.Errorf("the user's brain changed: %+v, was %+v", after, before)
	}
	var schemas int
	if err := user.Pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_namespace WHERE nspname = 'longmemeval'`).Scan(&schemas); err != nil {
		t.Fatal(err)
	}
	if schemas != 0 {
		t.Error("the user's brain got schema longmemeval")
	}
	// Every scratch connection runs with these settings: without them a
	// question costs a WAL flush per commit, a plan per statement, or a JIT
	// compile of a millisecond query. (Checked here, on the NewScratch this
	// test makes anyway, rather than on a scratch brain of its own.)
	for _, c := range []struct{ name, want string }{
		{"synchronous_commit", "off"},
		{"plan_cache_mode", "force_generic_plan"},
		{"jit", "off"},
	} {
		var got string
		if err := s.B.Pool.QueryRow(context.Background(), `SELECT current_setting($1)`, c.name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s = %s in the scratch database, want %s", c.name, got, c.want)
		}
	}
	// The other tests clone scratchTemplate rather than call NewScratch: a
	// clone must be what NewScratch makes, in every row, catalog object and
	// database setting.
	clone := cloneScratch(t, false, "")
	if c := readScratchShape(t, clone.B.Pool, true); !reflect.DeepEqual(c, got) {
		t.Errorf("a cloned scratch brain has shape %+v, NewScratch's %+v", c, got)
	}
	sameFingerprints(t, "a cloned scratch brain", rowsDigest(t, s.B.Pool), rowsDigest(t, clone.B.Pool))
	if c, n := catalogDigest(t, clone.B.Pool), catalogDigest(t, s.B.Pool); c != n {
		t.Errorf("a cloned scratch brain's catalog differs from NewScratch's:\n%s\nwant\n%s", c, n)
	}
	ns, err := databaseSettings(context.Background(), user.Pool, s.Name)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := databaseSettings(context.Background(), user.Pool, clone.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) == 0 || !slices.Equal(cs, ns) {
		t.Errorf("a cloned scratch brain's database settings are %v, NewScratch's %v", cs, ns)
	}
}

// rowsDigest is the row count and digest of every table of schemas brain
// and longmemeval, leaving out when each row was written (timestamps) and
// longmemeval.seeded's fingerprints of such rows, which instead must match
// their tables as they are.
func rowsDigest(t *testing.T, db testdb.Querier) map[string]string {
	t.Helper()
	ctx := context.Background()
	var stale int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM longmemeval.seeded WHERE fingerprint <> longmemeval.fingerprint(tbl)`).Scan(&stale); err != nil || stale != 0 {
		t.Errorf("%d seeded tables differ from their recorded fingerprint (err %v)", stale, err)
	}
	rows, err := db.Query(ctx, `
		SELECT c.oid::regclass::text,
		       coalesce(array_agg(a.attname::text) FILTER (WHERE a.atttypid IN ('timestamptz'::regtype, 'timestamp'::regtype)
		                                                   OR c.oid = 'longmemeval.seeded'::regclass AND a.attname = 'fingerprint'), '{}')
		FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		WHERE c.relnamespace IN ('brain'::regnamespace, 'longmemeval'::regnamespace) AND c.relkind IN ('r', 'p')
		GROUP BY c.oid ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	type table struct {
		name string
		skip []string
	}
	var tables []table
	for rows.Next() {
		var tb table
		if err := rows.Scan(&tb.name, &tb.skip); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, tb)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, tb := range tables {
		var d string
		if err := db.QueryRow(ctx, `SELECT count(*) || ' rows, ' || md5(coalesce(string_agg(j::text, E'\n' ORDER BY j::text), ''))
			FROM (SELECT to_jsonb(x) - $1::text[] AS j FROM `+tb.name+` x) s`, tb.skip).Scan(&d); err != nil {
			t.Fatalf("reading %s: %v", tb.name, err)
		}
		out[tb.name] = d
	}
	return out
}

// catalogDigest lists the relations (kind and persistence), constraints,
// triggers (and whether enabled) and functions (with their source) of
// schemas brain and longmemeval, one line each.
func catalogDigest(t *testing.T, db testdb.Querier) string {
	t.Helper()
	var d string
	if err := db.QueryRow(context.Background(), `SELECT concat_ws(E'\n',
		(SELECT string_agg(format('%s %s %s', c.oid::regclass, c.relkind, c.relpersistence), E'\n' ORDER BY c.oid::regclass::text)
		   FROM pg_class c WHERE c.relnamespace IN ('brain'::regnamespace, 'longmemeval'::regnamespace)),
		(SELECT string_agg(l, E'\n' ORDER BY l) FROM (SELECT format('%s %s %s', k.conrelid::regclass, k.conname, pg_get_constraintdef(k.oid)) l
		   FROM pg_constraint k WHERE k.connamespace IN ('brain'::regnamespace, 'longmemeval'::regnamespace)) k),
		(SELECT string_agg(l, E'\n' ORDER BY l) FROM (SELECT format('%s %s %s', g.tgrelid::regclass, g.tgname, g.tgenabled) l
		   FROM pg_trigger g WHERE NOT g.tgisinternal) g),
		(SELECT string_agg(l, E'\n' ORDER BY l) FROM (SELECT format('%s %s', p.oid::regprocedure, md5(p.prosrc)) l
		   FROM pg_proc p WHERE p.pronamespace IN ('brain'::regnamespace, 'longmemeval'::regnamespace)) p))`).Scan(&d); err != nil {
		t.Fatal(err)
	}
	return d
}
