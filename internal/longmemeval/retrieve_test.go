package longmemeval_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/internal/aptfolder"
	"github.com/pgbrain/pgbrain/internal/longmemeval"
	"github.com/pgbrain/pgbrain/internal/memsets"
)

func TestQuestionParts(t *testing.T) {
	t.Parallel()
	s := longmemeval.CloneScratch(t, longmemeval.MethodFused)
	cases := []struct {
		q    string
		want []string
	}{
		{"Which three packages did I mention: one for image viewing, one for mail and one for backups?",
			[]string{"image viewing", "mail", "backups"}},
		{"Which three packages did I mention: one for split Kmer Analysis, one for tools for plain text files and one for command-line pastebin client?",
			[]string{"split Kmer Analysis", "tools for plain text files", "command-line pastebin client"}},
		{"What were the packages I used for X11 screenshots, for PDF merging, and for DNS lookups?",
			[]string{"X11 screenshots", "PDF merging", "DNS lookups"}},
		{"Can you list the tools I brought up: a tiling window manager, a music player, and a C compiler?",
			[]string{"tiling window manager", "music player", "C compiler"}},
		{"I talked about three things: the ISO-9660 and Rock Ridge tool, the mail reader and the chess engine. What were their names?",
			[]string{"ISO-9660 and Rock Ridge tool", "mail reader", "chess engine"}},
		{"Which two packages did I set up, the spell checker and the font editor?",
			[]string{"spell checker", "font editor"}},
		{"Which tools did I use for pastebin uploads, ISO images, and kmer analysis?",
			[]string{"pastebin uploads", "ISO images", "kmer analysis"}},
		// One thing, even with "and" or a comma inside it.
		{"Which package did I try last week for my command line ISO-9660 and Rock Ridge manipulation tool?", nil},
		{"What do I use now as my tool to manage, convert and view images?", nil},
		{"What breed is the puppy I adopted?", nil},
		{"", nil},
		{"東京、大阪と京都: どれ?", nil},
		{"and, and, and", nil},
		// Past 2,000 characters a question is read as one thing.
		{"Which did I mention: " + strings.Repeat("one for mail, ", 200) + "and one for news?", nil},
	}
	for _, c := range cases {
		var got []string
		if err := s.B.Pool.QueryRow(context.Background(), `SELECT longmemeval.question_parts($1)`, c.q).Scan(&got); err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		if len(got) == 0 {
			got = nil
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("question_parts(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

func TestQuestionTime(t *testing.T) {
	t.Parallel()
	s := longmemeval.CloneScratch(t, longmemeval.MethodFused)
	day := func(s string) time.Time {
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	asked := "2023/06/14 (Wed) 10:00"
	cases := []struct {
		q      string
		lo, hi string // "" for no window
		latest bool
	}{
		{"Which package did I try in March for my editor?", "2023-03-01", "2023-04-01", false},
		{"What did I buy back in early May?", "2023-05-01", "2023-06-01", false},
		{"What did I start in August?", "2022-08-01", "2022-09-01", false}, // the last August before the question
		{"What did I read in March 2021?", "2021-03-01", "2021-04-01", false},
		{"Which package did I try last week?", "2023-06-05", "2023-06-12", false},
		{"What did I install two weeks ago?", "2023-05-28", "2023-06-04", false},
		{"What did I install 3 days ago?", "2023-06-11", "2023-06-12", false},
		{"What did I cook yesterday?", "2023-06-13", "2023-06-14", false},
		{"What did I test last month?", "2023-05-01", "2023-06-01", false},
		{"What did I test on 2023/05/04?", "2023-05-04", "2023-05-05", false},
		{"What did I test on 2023-05-04?", "2023-05-04", "2023-05-05", false},
		{"What did I test on May 4th?", "2023-05-04", "2023-05-05", false},
		{"What did I test on the 4th of May, 2022?", "2022-05-04", "2022-05-05", false},
		{"What did I do in 2022?", "2022-01-01", "2023-01-01", false},
		{"What do I use now for backups?", "", "", true},
		{"Am I still using the same mail reader?", "", "", true},
		{"Which editor am I currently using?", "", "", true},
		{"What breed is the puppy I adopted?", "", "", false},
		{"What did I test on 2023/02/30?", "", "", false}, // no such day
		{"", "", "", false},
	}
	for _, c := range cases {
		var lo, hi *time.Time
		var latest bool
		if err := s.B.Pool.QueryRow(context.Background(),
			`SELECT lo, hi, latest FROM longmemeval.question_time($1, longmemeval.session_date($2))`, c.q, asked).Scan(&lo, &hi, &latest); err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		if latest != c.latest {
			t.Errorf("%q: latest = %v, want %v", c.q, latest, c.latest)
		}
		if c.lo == "" {
			if lo != nil || hi != nil {
				t.Errorf("%q: window %v .. %v, want none", c.q, lo, hi)
			}
			continue
		}
		if lo == nil || hi == nil || !lo.Equal(day(c.lo)) || !hi.Equal(day(c.hi)) {
			t.Errorf("%q: window %v .. %v, want %s .. %s", c.q, lo, hi, c.lo, c.hi)
		}
	}
}

var (
	poolOnce sync.Once
	pool     *memsets.Pool
	poolErr  error
)

// debianPool is the machine's Debian packages as a memsets pool; it fails
// the test, naming the fix, when apt has no package lists.
func debianPool(t *testing.T) *memsets.Pool {
	t.Helper()
	poolOnce.Do(func() {
		recs, err := aptfolder.Load(context.Background())
		if err != nil {
			poolErr = err
			return
		}
		pool, poolErr = memsets.NewPool(recs)
	})
	if poolErr != nil {
		if errors.Is(poolErr, aptfolder.ErrNoSource) {
			t.Fatalf("these sets are built from Debian package records: %v", poolErr)
		}
		t.Fatal(poolErr)
	}
	return pool
}

// TestFusedRetrievalFindsEveryPart runs questions of each hard kind, built
// from Debian package records, through the session-level BM25 baseline and
// the fused retrieval, top 5: the fused one must find every evidence
// session of nearly every question, and of some question where the
// baseline misses one.
func TestFusedRetrievalFindsEveryPart(t *testing.T) {
	t.Parallel()
	p := debianPool(t)
	// The three kinds run side by side, each in scratch brains of its own.
	for _, typ := range []string{memsets.MultiSession, memsets.KnowledgeUpdate, memsets.Temporal} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			qs := memsets.Build(p, memsets.Options{Seed: 77, PerType: 8, Only: []string{typ}})
			run := func(method string) []longmemeval.Row {
				s := longmemeval.CloneScratch(t, method)
				var rows []longmemeval.Row
				w := rowWriter{rows: &rows}
				if _, err := longmemeval.Run(context.Background(), s, longmemeval.QuestionList(qs), nil, w, longmemeval.Options{TopK: 5, RetrievalOnly: true}); err != nil {
					t.Fatalf("%s, %s: %v", typ, method, err)
				}
				return rows
			}
			plain, fused := run(longmemeval.MethodBM25), run(longmemeval.MethodFused)
			rescued, fusedAll := 0, 0
			for i := range fused {
				if *fused[i].RecallAll {
					fusedAll++
					if !*plain[i].RecallAll {
						rescued++
					}
				}
			}
			if fusedAll < len(qs)-1 {
				t.Errorf("%s: fused retrieval found every evidence session of %d of %d questions, want at least %d", typ, fusedAll, len(qs), len(qs)-1)
			}
			if rescued == 0 {
				t.Errorf("%s: no question where the fused retrieval finds every evidence session and session BM25 does not: the set does not test the method", typ)
			}
			t.Logf("%s: recall_all@5 fused %d/%d, %d of them missed by session BM25", typ, fusedAll, len(qs), rescued)
		})
	}
}

// rowWriter collects the rows Run writes.
type rowWriter struct{ rows *[]longmemeval.Row }

func (w rowWriter) Write(b []byte) (int, error) {
	rows, err := longmemeval.ParseResults("run", bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	*w.rows = append(*w.rows, rows...)
	return len(b), nil
}

// On the six-type sample dataset the session methods find at least as many
// answer sessions in the top 5 as the brain's own search.
func TestSessionMethodsOnTheSample(t *testing.T) {
	t.Parallel()
	qs, err := longmemeval.ReadFile("../../sample/longmemeval.json")
	if err != nil {
		t.Fatal(err)
	}
	rates := map[string]longmemeval.Summary{}
	var mu sync.Mutex
	t.Run("methods", func(t *testing.T) { // returns when every method has run, side by side
		for _, m := range longmemeval.Methods {
			t.Run(m, func(t *testing.T) {
				t.Parallel()
				sum, err := longmemeval.Run(context.Background(), longmemeval.CloneScratch(t, m), longmemeval.QuestionList(qs), nil, io.Discard, longmemeval.Options{TopK: 5, RetrievalOnly: true})
				if err != nil {
					t.Fatalf("%s: %v", m, err)
				}
				mu.Lock()
				defer mu.Unlock()
				rates[m] = sum
			})
		}
	})
	if len(rates) != len(longmemeval.Methods) {
		t.Fatalf("%d of %d methods ran", len(rates), len(longmemeval.Methods))
	}
	h := rates[longmemeval.MethodHybrid]
	for _, m := range []string{longmemeval.MethodFused, longmemeval.MethodBM25} {
		if r := rates[m]; r.Aggregate.Rate < h.Aggregate.Rate || r.Aggregate.AllRate < h.Aggregate.AllRate {
			t.Errorf("%s: recall_any@5 %.2f, recall_all@5 %.2f; the brain's search gets %.2f, %.2f", m, r.Aggregate.Rate, r.Aggregate.AllRate, h.Aggregate.Rate, h.Aggregate.AllRate)
		}
	}
}
