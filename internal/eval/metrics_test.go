package eval

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestMetricsHandComputed(t *testing.T) {
	rel := Judged{"a": 1, "c": 1, "x": 1}
	ranked := []string{"a", "b", "c", "d"}
	// Relevant at ranks 1 and 3; "x" never retrieved.
	cases := []struct {
		name string
		got  float64
		want float64
	}{
		{"P@1", PrecisionAt(ranked, rel, 1), 1},
		{"P@2", PrecisionAt(ranked, rel, 2), 0.5},
		{"P@4", PrecisionAt(ranked, rel, 4), 0.5},
		{"P@10 counts missing positions as misses", PrecisionAt(ranked, rel, 10), 0.2},
		{"R@1", RecallAt(ranked, rel, 1), 1.0 / 3},
		{"R@3", RecallAt(ranked, rel, 3), 2.0 / 3},
		{"RR", ReciprocalRank(ranked, rel, 10), 1},
		{"RR second", ReciprocalRank([]string{"b", "d", "c"}, rel, 10), 1.0 / 3},
		{"RR beyond k", ReciprocalRank([]string{"b", "d", "c"}, rel, 2), 0},
		// DCG = 1/log2(2) + 1/log2(4) = 1.5; IDCG(3 relevant, k=4) = 1 + 1/log2(3) + 1/2.
		{"nDCG@4 binary", NDCGAt(ranked, rel, 4), 1.5 / (1 + 1/math.Log2(3) + 0.5)},
		{"nDCG nothing", NDCGAt([]string{"q"}, rel, 4), 0},
		{"recall no judgements", RecallAt(ranked, Judged{}, 3), 0},
	}
	for _, c := range cases {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestNDCGGraded(t *testing.T) {
	rel := Judged{"a": 3, "b": 2, "c": 1}
	// Ideal order a,b,c: 3 + 2/log2(3) + 1/2.
	ideal := 3 + 2/math.Log2(3) + 0.5
	cases := []struct {
		ranked []string
		want   float64
	}{
		{[]string{"a", "b", "c"}, 1},
		{[]string{"c", "b", "a"}, (1 + 2/math.Log2(3) + 3.0/2) / ideal},
		{[]string{"z", "a"}, (3 / math.Log2(3)) / ideal},
	}
	for _, c := range cases {
		if got := NDCGAt(c.ranked, rel, 3); !near(got, c.want) {
			t.Errorf("nDCG@3(%v) = %v, want %v", c.ranked, got, c.want)
		}
	}
	// With k=1 the ideal is the best grade alone.
	if got := NDCGAt([]string{"b"}, rel, 1); !near(got, 2.0/3) {
		t.Errorf("nDCG@1 = %v, want 2/3", got)
	}
}

func TestJaccard(t *testing.T) {
	cases := []struct {
		a, b []string
		want float64
	}{
		{nil, nil, 1},
		{[]string{}, []string{"x"}, 0},
		{[]string{"a", "b"}, []string{"b", "a"}, 1},
		{[]string{"a", "b", "c"}, []string{"b", "c", "d", "e"}, 2.0 / 5},
		{[]string{"a", "a", "b"}, []string{"a"}, 0.5},
	}
	for _, c := range cases {
		if got := Jaccard(c.a, c.b); !near(got, c.want) {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestScoreAndSummarize(t *testing.T) {
	def := func(s string) Doc { return Doc{DefaultSource, s} }
	q1 := Query{ID: "q1", Text: "one", Grades: Judged{"default::a": 1, "default::b": 1}, ExpectedTop1: &Doc{DefaultSource, "b"}}
	q2 := Query{ID: "q2", Text: "two", Grades: Judged{"host::p": 1}}
	// q1: a first (relevant, but not the expected top), b third.
	s1 := Score(q1, []Doc{def("a"), def("z"), def("b"), def("a")}, 3)
	// q2: the same slug from the wrong source must not count.
	s2 := Score(q2, []Doc{{"team", "p"}, {"host", "p"}}, 3)
	if !s1.FirstRelevantHit || *s1.ExpectedTop1Hit || !near(s1.RecallAtK, 1) || !near(s1.PrecisionAtK, 2.0/3) {
		t.Errorf("q1 score = %+v", s1)
	}
	if s2.FirstRelevantHit || s2.ExpectedTop1Hit != nil || !near(s2.ReciprocalRank, 0.5) {
		t.Errorf("q2 score = %+v", s2)
	}
	r := Summarize("f", 3, false, []QueryScore{s1, s2})
	if !near(r.RecallAtK, 1) || !near(r.MRR, 0.75) || !near(r.FirstRelevantHitRate, 0.5) {
		t.Errorf("report = %+v", r)
	}
	if r.ExpectedTop1HitRate == nil || *r.ExpectedTop1HitRate != 0 || r.ExpectedTop1Queries != 1 {
		t.Errorf("expected-top1 rate = %v over %d", r.ExpectedTop1HitRate, r.ExpectedTop1Queries)
	}
}
