package memsets

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/aptfolder"
	"github.com/pgbrain/pgbrain/internal/longmemeval"
)

func TestBuild(t *testing.T) {
	recs, err := aptfolder.Load(context.Background())
	if err != nil {
		t.Fatalf("the sets are built from Debian package records: %v", err)
	}
	p, err := NewPool(recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []Variant{Tuning, HeldBack} {
		qs := Build(p, Options{Seed: 3, PerType: 3, Variant: v})
		if again := Build(p, Options{Seed: 3, PerType: 3, Variant: v}); !reflect.DeepEqual(qs, again) {
			t.Fatalf("variant %d: the same seed built a different set", v)
		}
		if len(qs) != 3*len(Types) {
			t.Fatalf("variant %d: %d questions, want %d", v, len(qs), 3*len(Types))
		}
		want := map[string]int{SingleUser: 1, SingleAssistant: 1, KnowledgeUpdate: 2, Temporal: 1}
		for _, q := range qs {
			if len(q.HaystackSessions) != 50 || len(q.HaystackDates) != 50 || len(q.HaystackSessionIDs) != 50 {
				t.Errorf("%s: %d sessions, want 50", q.QuestionID, len(q.HaystackSessions))
			}
			if n, ok := want[q.QuestionType]; ok && len(q.AnswerSessionIDs) != n {
				t.Errorf("%s: %d evidence sessions, want %d", q.QuestionID, len(q.AnswerSessionIDs), n)
			}
			if q.QuestionType == MultiSession && (len(q.AnswerSessionIDs) < 2 || len(q.AnswerSessionIDs) > 3) {
				t.Errorf("%s: %d evidence sessions, want 2 or 3", q.QuestionID, len(q.AnswerSessionIDs))
			}
			for _, a := range q.AnswerSessionIDs {
				if !slices.Contains(q.HaystackSessionIDs, a) {
					t.Errorf("%s: evidence session %s is not in the haystack", q.QuestionID, a)
				}
			}
			if !slices.IsSorted(q.HaystackDates) || q.HaystackDates[len(q.HaystackDates)-1] >= q.QuestionDate {
				t.Errorf("%s: sessions not in time order before the question (%s)", q.QuestionID, q.QuestionDate)
			}
			if strings.Contains(q.Question, "%!") {
				t.Errorf("%s: badly formatted question %q", q.QuestionID, q.Question)
			}
		}
		// The file reads back as a LongMemEval dataset.
		data, err := JSON(qs)
		if err != nil {
			t.Fatal(err)
		}
		back, err := longmemeval.Parse("set.json", data)
		if err != nil || len(back) != len(qs) {
			t.Fatalf("variant %d: parsing the set back: %d questions, %v", v, len(back), err)
		}
	}
}
