package longmemeval

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// sampleDataset is the fixture shipped for users (sample/README.md).
const sampleDataset = "../../sample/longmemeval.json"

// The six question types of LongMemEval.
var questionTypes = []string{"single-session-user", "single-session-assistant", "single-session-preference",
	"multi-session", "temporal-reasoning", "knowledge-update"}

// TestSampleDatasetIsWellFormed checks what the fixture promises: every
// question type at least twice, abstention questions without answer
// sessions, answer sessions in their haystack with the answering turn
// marked, and each haystack in time order with valid dates.
func TestSampleDatasetIsWellFormed(t *testing.T) {
	t.Parallel()
	qs, err := ReadFile(sampleDataset)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, q := range qs {
		count[q.QuestionType]++
		if !slices.Contains(questionTypes, q.QuestionType) {
			t.Errorf("%s: question_type %q is not one of LongMemEval's", q.QuestionID, q.QuestionType)
		}
		if abs := strings.HasSuffix(q.QuestionID, "_abs"); abs != (len(q.AnswerSessionIDs) == 0) {
			t.Errorf("%s: an abstention question (id _abs) must list no answer sessions and any other at least one: %v", q.QuestionID, q.AnswerSessionIDs)
		}
		for _, id := range q.AnswerSessionIDs {
			i := slices.Index(q.HaystackSessionIDs, id)
			if i < 0 {
				t.Errorf("%s: answer session %s is not in the haystack", q.QuestionID, id)
				continue
			}
			if !slices.ContainsFunc(q.HaystackSessions[i], func(tu Turn) bool { return tu.HasAnswer }) {
				t.Errorf("%s: answer session %s marks no turn has_answer", q.QuestionID, id)
			}
		}
		var prev time.Time
		for _, d := range append(slices.Clone(q.HaystackDates), q.QuestionDate) {
			at, err := time.Parse("2006/01/02 (Mon) 15:04", d)
			if err != nil || at.Weekday().String()[:3] != d[12:15] {
				t.Errorf("%s: date %q is not a valid YYYY/MM/DD (Day) HH:MM (%v)", q.QuestionID, d, err)
				continue
			}
			if at.Before(prev) {
				t.Errorf("%s: %q comes after a later date: sessions and question must be in time order", q.QuestionID, d)
			}
			prev = at
		}
	}
	for _, ty := range questionTypes {
		if count[ty] < 2 {
			t.Errorf("%d questions of type %s, want at least 2", count[ty], ty)
		}
	}
}

// TestSampleDatasetRecall runs the fixture as `pgbrain eval longmemeval
// --retrieval-only --top-k 5` does: hybrid search must find an answer
// session for at least the share the benchmark's bar asks (0.85), with a
// summary over all six types.
func TestSampleDatasetRecall(t *testing.T) {
	t.Parallel()
	qs, err := ReadFile(sampleDataset)
	if err != nil {
		t.Fatal(err)
	}
	st := cloneScratch(t, false, "")
	sum, err := Run(context.Background(), st, QuestionList(qs), nil, io.Discard, Options{TopK: 5, RetrievalOnly: true, ByType: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.RecallByType) != len(questionTypes) || sum.Aggregate.Total != 12 {
		t.Errorf("summary covers %d types and %d questions, want 6 and 12: %+v", len(sum.RecallByType), sum.Aggregate.Total, sum)
	}
	if sum.Aggregate.Rate < 0.85 {
		t.Errorf("recall_any@5 = %.3f (%+v), want >= 0.85", sum.Aggregate.Rate, sum.RecallByType)
	}
}
