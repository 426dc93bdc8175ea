package longmemeval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain"
	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/embed"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/search"
)

// ScratchMarker is in the name of every scratch database:
// "<brain database>_longmemeval_<random>".
const ScratchMarker = "_longmemeval_"

// vacuumEvery is how many resets go by between VACUUMs of the emptied
// tables. A reset DELETEs (a TRUNCATE costs several times more: new files
// for every table and index, and every cached plan on them replanned), which
// leaves dead rows behind; without VACUUM the heap and the GIN pending list
// keep growing and every scan slows down (after 300 S-size questions the
// chunks heap is 35 MB for 100 live rows). Vacuuming after every reset
// costs more than it saves; every 16th keeps the tables small for about a
// millisecond per question, spent on one question in 16.
const vacuumEvery = 16

// parallelImportBytes is the haystack size from which importing it on
// several connections at once beats one: below it the extra transaction and
// id reservation cost more than the parallel tsvector work saves.
const parallelImportBytes = 64 << 10

// maxIdentifier is PostgreSQL's limit on a database name, in bytes.
const maxIdentifier = 63

// ScratchOptions describe the brain a scratch database must imitate.
type ScratchOptions struct {
	// Settings are the user's brain's embedder settings (brain.config), so
	// the scratch brain embeds and ranks the way the user's brain would.
	Settings migrate.Settings
	// Embedder is the client-side embedder (nil for the local one).
	Embedder embed.Embedder
	// KeywordOnly skips embeddings and the vector path.
	KeywordOnly bool
	// Method is how sessions are retrieved: MethodFused (the default),
	// MethodBM25 or MethodHybrid.
	Method string
	// Expander, when set, expands each question (--expansion): its
	// rephrasings are searched and fused with it. Its cache lives in the
	// user's brain, so a rerun asks the model nothing.
	Expander *expand.Expander
}

// The retrieval methods.
const (
	// MethodFused is session-level BM25 with a date prior, a slot for the
	// best session of each part of a question in parts and one for a
	// session found by feedback from the best one (longmemeval.retrieve).
	MethodFused = "fused"
	// MethodBM25 is the session-level BM25 baseline: each session one
	// document, scored on the question's words.
	MethodBM25 = "bm25"
	// MethodHybrid is the brain's own search (brain.search): chunks ranked
	// by keyword and vector, each session at its best chunk's place.
	MethodHybrid = "hybrid"
)

// Methods lists the retrieval methods.
var Methods = []string{MethodFused, MethodBM25, MethodHybrid}

// Scratch is a brain in a database of its own, created for one benchmark
// run next to the user's brain and dropped at the end, so a run never reads
// or writes the user's pages or shares their BM25 statistics. It is the Store
// of a run: Reset empties it between questions.
type Scratch struct {
	B    *brain.Brain
	Name string // the database's name
	o    ScratchOptions
	// admin reaches the server through the user's brain database: CREATE and
	// DROP DATABASE must run from a connection to another database. Nothing
	// in that database is read or written.
	admin *pgx.ConnConfig

	resets      int
	vacuumEvery int
	dirty       map[string]bool // tables emptied since the last VACUUM
}

// NewScratch creates, migrates and opens a scratch database on the server of
// the brain at brainURL. The caller must Drop it, also on error or interrupt.
func NewScratch(ctx context.Context, brainURL string, o ScratchOptions) (s *Scratch, err error) {
	if o.Method == "" {
		o.Method = MethodFused
	}
	if !slices.Contains(Methods, o.Method) {
		return nil, fmt.Errorf("unknown retrieval method %q: use one of %s", o.Method, strings.Join(Methods, ", "))
	}
	pc, err := pgxpool.ParseConfig(brainURL)
	if err != nil {
		return nil, fmt.Errorf("parsing the database URL: %w", err)
	}
	s = &Scratch{o: o, admin: pc.ConnConfig, vacuumEvery: vacuumEvery}
	base := pc.ConnConfig.Database
	if base == "" {
		base = pc.ConnConfig.User // what the server picks when no database is named
	}
	if s.Name, err = scratchName(base); err != nil {
		return nil, err
	}
	scratchURL, err := withDatabase(brainURL, s.Name)
	if err != nil {
		return nil, err
	}
	if err := s.create(ctx); err != nil {
		return nil, err
	}
	created := s
	defer func() {
		if err != nil {
			if derr := created.Drop(ctx); derr != nil {
				err = errors.Join(err, derr)
			}
			s = nil
		}
	}()
	// Scratch data need not survive a crash: commits do not wait for the
	// WAL flush. And every question runs the same statements over a few
	// hundred chunks, where a plan made once serves as well as one made for
	// each call's values, without the planning. Such a plan is costed on
	// whatever row counts the emptied tables last reported, which can pass
	// jit_above_cost: compiling then took 7 ms for a search that runs in 2,
	// so JIT is off here. The brain has no HNSW index (see longmemeval/01_tune.sql), so
	// vector search is told to scan its few hundred vectors exactly.
	for _, set := range []string{"synchronous_commit = off", "plan_cache_mode = force_generic_plan", "jit = off",
		"brain.vector_scan = 'exact'"} {
		if err := s.adminExec(ctx, "ALTER DATABASE "+pgx.Identifier{s.Name}.Sanitize()+" SET "+set); err != nil {
			return nil, fmt.Errorf("configuring the LongMemEval database %s: %w", s.Name, err)
		}
	}
	st := o.Settings
	if err := migrate.Migrate(ctx, scratchURL, migrate.Options{Dim: st.Dim, Embedder: st.Embedder, EmbedModel: st.EmbedModel}); err != nil {
		return nil, fmt.Errorf("creating the brain schema in the LongMemEval database %s: %w", s.Name, err)
	}
	if s.B, err = brain.Open(ctx, scratchURL); err != nil {
		return nil, fmt.Errorf("opening the LongMemEval database %s: %w", s.Name, err)
	}
	if err := s.installScratchSQL(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// scratchName is "<base>_longmemeval_<8 hex>", base cut (on a character
// boundary) so the whole fits PostgreSQL's 63 bytes.
func scratchName(base string) (string, error) {
	r := make([]byte, 4)
	if _, err := rand.Read(r); err != nil {
		return "", fmt.Errorf("naming the LongMemEval database: %w", err)
	}
	suffix := ScratchMarker + hex.EncodeToString(r)
	for len(base)+len(suffix) > maxIdentifier {
		_, n := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-n]
	}
	return base + suffix, nil
}

// withDatabase points a connection string (URL or key=value form) at db.
func withDatabase(conn, db string) (string, error) {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		u, err := url.Parse(conn)
		if err != nil {
			return "", fmt.Errorf("parsing the database URL: %w", err)
		}
		u.Path, u.RawPath = "/"+db, ""
		return u.String(), nil
	}
	// In key=value form a later key wins.
	q := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(db)
	return strings.TrimSpace(conn) + " dbname='" + q + "'", nil
}

func (s *Scratch) adminExec(ctx context.Context, sql string) error {
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return fmt.Errorf("connecting to the brain's server: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, sql)
	return err
}

func (s *Scratch) create(ctx context.Context) error {
	id := pgx.Identifier{s.Name}.Sanitize()
	err := s.adminExec(ctx, "CREATE DATABASE "+id)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42501" {
		return fmt.Errorf("LongMemEval runs in a database of its own, never in your brain, but role %q may not create databases (%s): "+
			"allow it with ALTER ROLE %s CREATEDB (as a superuser), or run against a server where it may",
			s.admin.User, pgErr.Message, pgx.Identifier{s.admin.User}.Sanitize())
	}
	if err != nil {
		return fmt.Errorf("creating the LongMemEval database %s: %w", s.Name, err)
	}
	return nil
}

// Drop closes the scratch brain and drops its database. It runs even when
// ctx is already cancelled (an interrupted run), bounded by a minute.
func (s *Scratch) Drop(ctx context.Context) error {
	if s.B != nil {
		s.B.Close()
		s.B = nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := s.adminExec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{s.Name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("dropping the LongMemEval database %s (drop it by hand with DROP DATABASE %s): %w", s.Name, s.Name, err)
	}
	return nil
}

// scratchSQLDir holds the SQL that turns a freshly migrated brain into a
// scratch brain (indexes and triggers it does not need dropped or disabled,
// tables unlogged, the helpers of schema longmemeval) and installs session
// retrieval: one file per step, run in name order. It is part of the
// embedded SQL tree (pgbrain.SQLFiles) and never reaches a user's brain.
const scratchSQLDir = "longmemeval"

// installScratchSQL runs the files of scratchSQLDir in name order.
func (s *Scratch) installScratchSQL(ctx context.Context) error {
	files, err := fs.Glob(pgbrain.SQLFiles, scratchSQLDir+"/*.sql")
	if err != nil || len(files) == 0 {
		return fmt.Errorf("preparing the LongMemEval database %s: no SQL in %s/ of the embedded tree (%v)", s.Name, scratchSQLDir, err)
	}
	sort.Strings(files)
	for _, f := range files {
		sql, err := fs.ReadFile(pgbrain.SQLFiles, f)
		if err != nil {
			return fmt.Errorf("preparing the LongMemEval database %s: reading %s: %w", s.Name, f, err)
		}
		if _, err := s.B.Pool.Exec(ctx, string(sql)); err != nil {
			return fmt.Errorf("preparing the LongMemEval database %s: %s: %w", s.Name, f, err)
		}
	}
	return nil
}

// Reset empties the scratch brain: nothing of an earlier question remains.
func (s *Scratch) Reset(ctx context.Context) error {
	var cleared []string
	if err := s.B.Pool.QueryRow(ctx, `SELECT longmemeval.reset()`).Scan(&cleared); err != nil {
		return fmt.Errorf("resetting the LongMemEval database %s between questions: %w", s.Name, err)
	}
	for _, t := range cleared {
		if s.dirty == nil {
			s.dirty = map[string]bool{}
		}
		s.dirty[t] = true
	}
	s.resets++
	if s.vacuumEvery > 0 && s.resets%s.vacuumEvery == 0 && len(s.dirty) > 0 {
		tables := make([]string, 0, len(s.dirty))
		for t := range s.dirty {
			tables = append(tables, t)
		}
		sort.Strings(tables)
		// The names are regclass output: already quoted where needed.
		if _, err := s.B.Pool.Exec(ctx, "VACUUM "+strings.Join(tables, ", ")); err != nil {
			return fmt.Errorf("vacuuming the LongMemEval database %s between questions: %w", s.Name, err)
		}
		clear(s.dirty)
	}
	return nil
}

// Prepare parses a question's haystack sessions for one import.
func (s *Scratch) Prepare(docs []ingest.Doc) *ingest.Prepared {
	// One batch per writer, so every core computes tsvectors for its share
	// of the haystack at once; a small haystack is cheaper in one.
	writers := ingest.DefaultWriters()
	size := 0
	for _, d := range docs {
		size += len(d.Data)
	}
	if size < parallelImportBytes {
		writers = 1
	}
	return ingest.PrepareDocs(docs, ingest.Options{
		// Session retrieval reads words only: no embeddings to compute.
		Embedder: s.o.Embedder, NoEmbed: s.o.KeywordOnly || s.o.Method != MethodHybrid,
		Writers: writers, BatchPages: max(1, (len(docs)+writers-1)/writers),
		// Nothing in this brain is ever served, so its pages need no PII tags.
		NoClassify: true,
	})
}

// Import stores prepared haystack sessions in one import.
func (s *Scratch) Import(ctx context.Context, p *ingest.Prepared) error {
	sum, err := ingest.ImportPrepared(ctx, s.B, p)
	if err != nil {
		return fmt.Errorf("importing %d sessions: %w", p.Len(), err)
	}
	if sum.Failed > 0 {
		f := sum.Failures[0]
		return fmt.Errorf("importing session page %s: %s", f.Path, f.Reason)
	}
	return nil
}

// Search returns the best k sessions' slugs for q, best first, with no
// question date.
func (s *Scratch) Search(ctx context.Context, q string, k int) ([]string, error) {
	return s.SearchAt(ctx, q, "", k)
}

// SearchAt returns the best k sessions' slugs for question q asked at date
// (LongMemEval's "2023/05/20 (Sat) 02:21"; "" for none), best first, by the
// scratch brain's retrieval method.
func (s *Scratch) SearchAt(ctx context.Context, q, date string, k int) ([]string, error) {
	if s.o.Method != MethodHybrid {
		// PostgreSQL text holds neither NUL nor invalid UTF-8; a question
		// with them is still asked, with U+FFFD in their place.
		clean := func(s string) string {
			return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
		}
		q, date = clean(q), clean(date)
		rows, err := s.B.Pool.Query(ctx, `SELECT slug FROM longmemeval.retrieve($1, $2, $3, $4)`, q, date, k, s.o.Method)
		if err != nil {
			return nil, fmt.Errorf("retrieving sessions: %w", err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, fmt.Errorf("retrieving sessions: %w", err)
		}
		return out, nil
	}
	if _, err := s.B.Pool.Exec(ctx, `SELECT longmemeval.bm25_stats($1)`, q); err != nil {
		return nil, fmt.Errorf("computing the BM25 statistics of the question's words: %w", err)
	}
	o := search.Options{Limit: min(k, search.MaxLimit), NoSnippets: true}
	var resp *search.Response
	var err error
	if s.o.KeywordOnly {
		resp, err = search.Keyword(ctx, s.B.Pool, q, o, search.Tuning{})
	} else {
		var qvec []float32
		if s.o.Embedder != nil {
			vs, eerr := s.o.Embedder.Embed(ctx, []string{q})
			if eerr != nil {
				return nil, fmt.Errorf("embedding the question: %w", eerr)
			}
			if len(vs) == 1 {
				qvec = vs[0]
			}
		}
		var variantVecs expand.Embedder
		if s.o.Embedder != nil {
			variantVecs = s.o.Embedder.Embed
		}
		o.Expand = s.o.Expander != nil
		resp, err = expand.Search(ctx, s.B.Pool, s.o.Expander, q, qvec, variantVecs, o, search.Tuning{})
	}
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(resp.Results))
	seen := make(map[string]bool, len(resp.Results))
	for _, r := range resp.Results {
		if !seen[r.Slug] {
			seen[r.Slug] = true
			out = append(out, r.Slug)
		}
	}
	return out, nil
}
