package eval

import "fmt"

// Thresholds are gate floors (and the latency ceiling). A nil field is
// unset, so CLI values, values embedded in a baseline and the defaults can
// be layered with Merge. JSON names are those of a baseline's "thresholds".
type Thresholds struct {
	Jaccard       *float64 `json:"jaccard,omitempty"`
	Top1          *float64 `json:"top1,omitempty"`
	Latency       *float64 `json:"latency,omitempty"`
	Recall        *float64 `json:"recall,omitempty"`
	FirstRelevant *float64 `json:"first_relevant,omitempty"`
	ExpectedTop1  *float64 `json:"expected_top1,omitempty"`
}

// ThresholdNames are the threshold names, as used by --threshold-NAME
// (with '-' for '_') and in a baseline's "thresholds" object.
var ThresholdNames = []string{"jaccard", "top1", "latency", "recall", "first_relevant", "expected_top1"}

func f(v float64) *float64 { return &v }

// DefaultThresholds are used for any threshold set nowhere else.
func DefaultThresholds() Thresholds {
	return Thresholds{
		Jaccard:       f(0.85),
		Top1:          f(0.85),
		Latency:       f(2.0),
		Recall:        f(0.70),
		FirstRelevant: f(0.60),
		ExpectedTop1:  f(0.50),
	}
}

// Field returns a pointer to the named threshold, or nil for an unknown name.
func (t *Thresholds) Field(name string) **float64 {
	switch name {
	case "jaccard":
		return &t.Jaccard
	case "top1":
		return &t.Top1
	case "latency":
		return &t.Latency
	case "recall":
		return &t.Recall
	case "first_relevant":
		return &t.FirstRelevant
	case "expected_top1":
		return &t.ExpectedTop1
	}
	return nil
}

// Merge returns the first set value for each threshold, in order of
// precedence (e.g. Merge(cli, baseline, DefaultThresholds())).
func Merge(layers ...Thresholds) Thresholds {
	var out Thresholds
	for _, name := range ThresholdNames {
		dst := out.Field(name)
		for i := range layers {
			if v := *layers[i].Field(name); v != nil && *dst == nil {
				*dst = v
			}
		}
	}
	return out
}

// Check refuses thresholds that can never be met or never fail.
func (t Thresholds) Check() error {
	for _, name := range ThresholdNames {
		p := *t.Field(name)
		if p == nil {
			continue
		}
		v := *p
		if name == "latency" {
			if !(v > 0) {
				return fmt.Errorf("threshold latency %v must be a multiplier above 0 (e.g. 2.0)", v)
			}
			continue
		}
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("threshold %s %v must be between 0 and 1", name, v)
		}
	}
	return nil
}

// Breach is one failed check.
type Breach struct {
	Metric    string  `json:"metric"`
	Value     float64 `json:"value"`
	Threshold float64 `json:"threshold"`
	// Rule is "min" (value must be at least the threshold) or "max".
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

func atLeast(metric string, value, threshold float64) []Breach {
	if value >= threshold {
		return nil
	}
	return []Breach{{metric, value, threshold, "min", fmt.Sprintf("%s %.3f is below the floor %.3f", metric, value, threshold)}}
}

func atMost(metric string, value, threshold float64) []Breach {
	if value <= threshold {
		return nil
	}
	return []Breach{{metric, value, threshold, "max", fmt.Sprintf("%s %.3f is above the ceiling %.3f", metric, value, threshold)}}
}

// RegressionInput is what a replay of a baseline measured.
type RegressionInput struct {
	Baseline     string
	RowsTotal    int
	RowsReplayed int
	RowsErrored  int
	MeanJaccard  float64
	Top1Rate     float64
	// CapturedMeanLatencyMS is the baseline's mean latency; when it is not
	// above zero the latency multiplier cannot be computed and is not checked.
	CapturedMeanLatencyMS float64
	CurrentMeanLatencyMS  float64
}

// RegressionGate is the verdict of the regression gate.
type RegressionGate struct {
	Baseline              string   `json:"baseline"`
	RowsTotal             int      `json:"rows_total"`
	RowsReplayed          int      `json:"rows_replayed"`
	RowsErrored           int      `json:"rows_errored"`
	MeanJaccard           float64  `json:"mean_jaccard"`
	Top1StabilityRate     float64  `json:"top1_stability_rate"`
	CapturedMeanLatencyMS float64  `json:"captured_mean_latency_ms"`
	CurrentMeanLatencyMS  float64  `json:"current_mean_latency_ms"`
	LatencyMultiplier     *float64 `json:"latency_multiplier"`
	Thresholds            Resolved `json:"thresholds"`
	Pass                  bool     `json:"pass"`
	Breaches              []Breach `json:"breaches"`
}

// Resolved are thresholds with every value set.
type Resolved struct {
	Jaccard       float64 `json:"jaccard"`
	Top1          float64 `json:"top1"`
	Latency       float64 `json:"latency"`
	Recall        float64 `json:"recall"`
	FirstRelevant float64 `json:"first_relevant"`
	ExpectedTop1  float64 `json:"expected_top1"`
}

// Resolve fills unset thresholds with the defaults.
func (t Thresholds) Resolve() Resolved {
	m := Merge(t, DefaultThresholds())
	return Resolved{*m.Jaccard, *m.Top1, *m.Latency, *m.Recall, *m.FirstRelevant, *m.ExpectedTop1}
}

// EvaluateRegression applies the regression thresholds. A replay that
// replayed nothing, or in which any row failed, is a breach: the gate must
// not pass on missing evidence.
func EvaluateRegression(in RegressionInput, th Resolved) RegressionGate {
	g := RegressionGate{
		Baseline: in.Baseline, RowsTotal: in.RowsTotal, RowsReplayed: in.RowsReplayed, RowsErrored: in.RowsErrored,
		MeanJaccard: in.MeanJaccard, Top1StabilityRate: in.Top1Rate,
		CapturedMeanLatencyMS: in.CapturedMeanLatencyMS, CurrentMeanLatencyMS: in.CurrentMeanLatencyMS,
		Thresholds: th, Breaches: []Breach{},
	}
	if in.RowsReplayed == 0 {
		g.Breaches = append(g.Breaches, Breach{"rows_replayed", 0, 1, "min", "no baseline row was replayed: the baseline is empty or every row was skipped"})
	} else {
		g.Breaches = append(g.Breaches, atLeast("mean_jaccard", in.MeanJaccard, th.Jaccard)...)
		g.Breaches = append(g.Breaches, atLeast("top1_stability_rate", in.Top1Rate, th.Top1)...)
	}
	if in.RowsErrored > 0 {
		g.Breaches = append(g.Breaches, Breach{"rows_errored", float64(in.RowsErrored), 0, "max",
			fmt.Sprintf("%d baseline rows failed to run: see 'pgbrain eval replay --verbose' for their errors", in.RowsErrored)})
	}
	if in.CapturedMeanLatencyMS > 0 && in.RowsReplayed > 0 {
		m := in.CurrentMeanLatencyMS / in.CapturedMeanLatencyMS
		g.LatencyMultiplier = &m
		g.Breaches = append(g.Breaches, atMost("latency_multiplier", m, th.Latency)...)
	}
	g.Pass = len(g.Breaches) == 0
	return g
}

// CorrectnessGate is the verdict of the correctness gate.
type CorrectnessGate struct {
	Qrels                string   `json:"qrels"`
	K                    int      `json:"k"`
	Queries              int      `json:"queries"`
	RecallAtK            float64  `json:"recall_at_k"`
	FirstRelevantHitRate float64  `json:"first_relevant_hit_rate"`
	ExpectedTop1HitRate  *float64 `json:"expected_top1_hit_rate"`
	PrecisionAtK         float64  `json:"precision_at_k"`
	MRR                  float64  `json:"mrr"`
	NDCGAtK              float64  `json:"ndcg_at_k"`
	Thresholds           Resolved `json:"thresholds"`
	Pass                 bool     `json:"pass"`
	Breaches             []Breach `json:"breaches"`
	// Misses are the queries whose first result was not relevant, in file order.
	Misses []string `json:"misses"`
}

// EvaluateCorrectness applies the correctness thresholds to a qrels report.
// The expected-top1 rate is only checked when some query names one.
func EvaluateCorrectness(r Report, th Resolved) CorrectnessGate {
	g := CorrectnessGate{
		Qrels: r.Qrels, K: r.K, Queries: r.Queries,
		RecallAtK: r.RecallAtK, FirstRelevantHitRate: r.FirstRelevantHitRate, ExpectedTop1HitRate: r.ExpectedTop1HitRate,
		PrecisionAtK: r.PrecisionAtK, MRR: r.MRR, NDCGAtK: r.NDCGAtK,
		Thresholds: th, Breaches: []Breach{}, Misses: []string{},
	}
	g.Breaches = append(g.Breaches, atLeast("recall_at_k", r.RecallAtK, th.Recall)...)
	g.Breaches = append(g.Breaches, atLeast("first_relevant_hit_rate", r.FirstRelevantHitRate, th.FirstRelevant)...)
	if r.ExpectedTop1HitRate != nil {
		g.Breaches = append(g.Breaches, atLeast("expected_top1_hit_rate", *r.ExpectedTop1HitRate, th.ExpectedTop1)...)
	}
	for _, s := range r.PerQuery {
		if !s.FirstRelevantHit {
			g.Misses = append(g.Misses, s.QueryID)
		}
	}
	g.Pass = len(g.Breaches) == 0
	return g
}

// Verdict is the whole gate's answer: pass only if every gate that ran passed.
type Verdict struct {
	SchemaVersion int              `json:"schema_version"`
	Verdict       string           `json:"verdict"`
	Regression    *RegressionGate  `json:"regression_gate"`
	Correctness   *CorrectnessGate `json:"correctness_gate"`
}

// Decide combines the gates that ran (at least one).
func Decide(reg *RegressionGate, cor *CorrectnessGate) Verdict {
	v := Verdict{SchemaVersion: 1, Verdict: "pass", Regression: reg, Correctness: cor}
	if (reg == nil && cor == nil) || (reg != nil && !reg.Pass) || (cor != nil && !cor.Pass) {
		v.Verdict = "fail"
	}
	return v
}

// Passed reports whether the verdict is pass.
func (v Verdict) Passed() bool { return v.Verdict == "pass" }
