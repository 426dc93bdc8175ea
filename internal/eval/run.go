package eval

import (
	"context"
	"fmt"
)

// Searcher runs one ranked retrieval; the gate passes bare hybrid search so
// results are deterministic.
type Searcher interface {
	Search(ctx context.Context, query string, k int) ([]Doc, error)
}

// QueryScore is one query's metrics.
type QueryScore struct {
	QueryID          string   `json:"query_id"`
	Query            string   `json:"query"`
	Retrieved        []string `json:"retrieved"`
	PrecisionAtK     float64  `json:"precision_at_k"`
	RecallAtK        float64  `json:"recall_at_k"`
	ReciprocalRank   float64  `json:"reciprocal_rank"`
	NDCGAtK          float64  `json:"ndcg_at_k"`
	FirstRelevantHit bool     `json:"first_relevant_hit"`
	// ExpectedTop1Hit is nil when the entry names no expected top result.
	ExpectedTop1Hit *bool `json:"expected_top1_hit"`
}

// Report is the result of running a qrels file.
type Report struct {
	SchemaVersion        int     `json:"schema_version"`
	Qrels                string  `json:"qrels"`
	K                    int     `json:"k"`
	Queries              int     `json:"queries"`
	Graded               bool    `json:"graded"`
	PrecisionAtK         float64 `json:"precision_at_k"`
	RecallAtK            float64 `json:"recall_at_k"`
	MRR                  float64 `json:"mrr"`
	NDCGAtK              float64 `json:"ndcg_at_k"`
	FirstRelevantHitRate float64 `json:"first_relevant_hit_rate"`
	// ExpectedTop1HitRate is over the queries that name an expected top
	// result; nil when none does.
	ExpectedTop1HitRate *float64     `json:"expected_top1_hit_rate"`
	ExpectedTop1Queries int          `json:"expected_top1_queries"`
	PerQuery            []QueryScore `json:"per_query"`
}

// Score computes one query's metrics from its ranked results (duplicates
// after the first occurrence are dropped).
func Score(q Query, results []Doc, k int) QueryScore {
	ranked := make([]string, 0, len(results))
	seen := map[string]bool{}
	for _, d := range results {
		if key := d.Key(); !seen[key] {
			seen[key] = true
			ranked = append(ranked, key)
		}
	}
	if len(ranked) > k {
		ranked = ranked[:k]
	}
	s := QueryScore{
		QueryID:        q.ID,
		Query:          q.Text,
		Retrieved:      ranked,
		PrecisionAtK:   PrecisionAt(ranked, q.Grades, k),
		RecallAtK:      RecallAt(ranked, q.Grades, k),
		ReciprocalRank: ReciprocalRank(ranked, q.Grades, k),
		NDCGAtK:        NDCGAt(ranked, q.Grades, k),
	}
	s.FirstRelevantHit = len(ranked) > 0 && q.Grades[ranked[0]] > 0
	if q.ExpectedTop1 != nil {
		hit := len(ranked) > 0 && ranked[0] == q.ExpectedTop1.Key()
		s.ExpectedTop1Hit = &hit
	}
	return s
}

// Summarize averages per-query scores into a report.
func Summarize(name string, k int, graded bool, scores []QueryScore) Report {
	r := Report{SchemaVersion: 1, Qrels: name, K: k, Queries: len(scores), Graded: graded, PerQuery: scores}
	if r.PerQuery == nil {
		r.PerQuery = []QueryScore{}
	}
	if len(scores) == 0 {
		return r
	}
	n := float64(len(scores))
	var first, top1 int
	for _, s := range scores {
		r.PrecisionAtK += s.PrecisionAtK / n
		r.RecallAtK += s.RecallAtK / n
		r.MRR += s.ReciprocalRank / n
		r.NDCGAtK += s.NDCGAtK / n
		if s.FirstRelevantHit {
			first++
		}
		if s.ExpectedTop1Hit != nil {
			r.ExpectedTop1Queries++
			if *s.ExpectedTop1Hit {
				top1++
			}
		}
	}
	r.FirstRelevantHitRate = float64(first) / n
	if r.ExpectedTop1Queries > 0 {
		rate := float64(top1) / float64(r.ExpectedTop1Queries)
		r.ExpectedTop1HitRate = &rate
	}
	return r
}

// Run searches every query of q with k results and scores them. progress,
// when not nil, is told after each query. A failing search stops the run:
// a gate must not pass on partial evidence.
func Run(ctx context.Context, s Searcher, q *Qrels, k int, progress func(done, total int)) (Report, error) {
	if k <= 0 {
		return Report{}, fmt.Errorf("k must be at least 1, not %d", k)
	}
	scores := make([]QueryScore, 0, len(q.Queries))
	graded := false
	for i, e := range q.Queries {
		if err := ctx.Err(); err != nil {
			return Report{}, err
		}
		res, err := s.Search(ctx, e.Text, k)
		if err != nil {
			return Report{}, fmt.Errorf("%s:%d: query %s (%q): %w", q.Name, e.Line, e.ID, e.Text, err)
		}
		scores = append(scores, Score(e, res, k))
		graded = graded || e.Graded
		if progress != nil {
			progress(i+1, len(q.Queries))
		}
	}
	return Summarize(q.Name, k, graded, scores), nil
}
