package longmemeval_test

import (
	"context"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/internal/longmemeval"
)

// FuzzQuestionReaders asks the SQL question readers and the fused
// retrieval anything: they never fail, every part they split off holds an
// indexable word, a time window runs forwards, and retrieval returns at
// most k distinct sessions.
func FuzzQuestionReaders(f *testing.F) {
	for _, s := range []string{
		"Which three packages did I mention: one for X, one for Y and one for Z?",
		"What did I try last week?", "in March", "two weeks ago", "on 2023/05/04", "on 2023/02/30",
		"东京、大阪と京都：どれ？", "Ελληνικά, Deutsch und Straße: café?", "🎉, 🎉 and 🎉", "a, b, c, d, e, f",
		"((( [ \\ ^$ .* +? | ))) : , ; and or", "on the 99th of Smarch, 99999",
		"\x00, \xff and \xfe", "",
	} {
		f.Add(s, "2023/06/14 (Wed) 10:00")
	}
	f.Add("in May", "not a date")
	f.Add("yesterday", "9999/99/99 (Xyz) 99:99")
	s := longmemeval.CloneScratch(f, longmemeval.MethodFused)
	ctx := context.Background()
	sessions := [][]longmemeval.Turn{
		{{Role: "user", Content: "I set up mutt for mail, and I switched to neomutt later."}},
		{{Role: "user", Content: "Mutt is a small but very powerful text-based mail client."}},
		{{Role: "user", Content: "来週は東京で新しいプロジェクトの打ち合わせがあります"}},
	}
	q := longmemeval.Question{QuestionID: "fuzz", QuestionType: "multi-session", Question: "mail",
		HaystackSessionIDs: []string{"a", "b", "c"}, HaystackDates: []string{"2023/03/01 (Wed) 10:00", "2023/06/01 (Thu) 10:00", "bad"},
		HaystackSessions: sessions}
	if _, err := longmemeval.Run(ctx, s, longmemeval.QuestionList{q}, nil, rowWriter{rows: new([]longmemeval.Row)}, longmemeval.Options{TopK: 5, RetrievalOnly: true}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, question, date string) {
		got, err := s.SearchAt(ctx, question, date, 2)
		if err != nil {
			t.Fatalf("retrieve(%q, %q): %v", question, date, err)
		}
		seen := map[string]bool{}
		for _, g := range got {
			if seen[g] {
				t.Fatalf("retrieve(%q, %q) returned %s twice: %q", question, date, g, got)
			}
			seen[g] = true
		}
		if len(got) > 2 {
			t.Fatalf("retrieve(%q, %q) returned %d sessions, asked for 2", question, date, len(got))
		}
		// The readers themselves, on what PostgreSQL can hold.
		clean := []rune{}
		for _, r := range question {
			if r != 0 && r != '\uFFFD' {
				clean = append(clean, r)
			}
		}
		cq := string(clean)
		var empty int
		if err := s.B.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE tsvector_to_array(brain.text_tsvector(p)) = '{}') FROM unnest(longmemeval.question_parts($1)) p`, cq).Scan(&empty); err != nil {
			t.Fatalf("question_parts(%q): %v", cq, err)
		}
		if empty > 0 {
			t.Fatalf("question_parts(%q): %d parts without an indexable word", cq, empty)
		}
		var lo, hi *time.Time
		if err := s.B.Pool.QueryRow(ctx, `SELECT lo, hi FROM longmemeval.question_time($1, '2023-06-14 10:00')`, cq).Scan(&lo, &hi); err != nil {
			t.Fatalf("question_time(%q): %v", cq, err)
		}
		if (lo == nil) != (hi == nil) || lo != nil && !lo.Before(*hi) {
			t.Fatalf("question_time(%q): window %v .. %v", cq, lo, hi)
		}
	})
}
