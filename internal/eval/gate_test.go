package eval

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

func TestThresholdPrecedence(t *testing.T) {
	cli := Thresholds{Jaccard: f(0.5)}
	base := Thresholds{Jaccard: f(0.7), Top1: f(0.6), Recall: f(0.9)}
	got := Merge(cli, base).Resolve()
	want := Resolved{Jaccard: 0.5, Top1: 0.6, Latency: 2.0, Recall: 0.9, FirstRelevant: 0.6, ExpectedTop1: 0.5}
	if got != want {
		t.Errorf("resolved = %+v, want %+v", got, want)
	}
	if d := (Thresholds{}).Resolve(); d != (Resolved{0.85, 0.85, 2.0, 0.70, 0.60, 0.50}) {
		t.Errorf("defaults = %+v", d)
	}
}

func TestThresholdCheck(t *testing.T) {
	for _, bad := range []Thresholds{{Jaccard: f(1.5)}, {Recall: f(-0.1)}, {Latency: f(0)}} {
		if err := bad.Check(); err == nil {
			t.Errorf("Check(%+v) accepted", bad)
		}
	}
	if err := (Thresholds{Latency: f(3), Top1: f(1)}).Check(); err != nil {
		t.Error(err)
	}
}

func metrics(bs []Breach) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Metric)
	}
	return out
}

func TestEvaluateRegression(t *testing.T) {
	th := Thresholds{}.Resolve()
	cases := []struct {
		name string
		in   RegressionInput
		want []string
	}{
		{"pass", RegressionInput{RowsReplayed: 10, MeanJaccard: 0.9, Top1Rate: 0.85, CapturedMeanLatencyMS: 10, CurrentMeanLatencyMS: 20}, nil},
		{"jaccard and latency", RegressionInput{RowsReplayed: 10, MeanJaccard: 0.84, Top1Rate: 0.9, CapturedMeanLatencyMS: 10, CurrentMeanLatencyMS: 20.5}, []string{"mean_jaccard", "latency_multiplier"}},
		{"top1", RegressionInput{RowsReplayed: 3, MeanJaccard: 1, Top1Rate: 0.5}, []string{"top1_stability_rate"}},
		{"nothing replayed", RegressionInput{RowsTotal: 2}, []string{"rows_replayed"}},
		{"errored", RegressionInput{RowsReplayed: 3, RowsErrored: 1, MeanJaccard: 1, Top1Rate: 1}, []string{"rows_errored"}},
	}
	for _, c := range cases {
		g := EvaluateRegression(c.in, th)
		if got := metrics(g.Breaches); strings.Join(got, ",") != strings.Join(c.want, ",") || g.Pass != (len(c.want) == 0) {
			t.Errorf("%s: breaches %v pass %v, want %v", c.name, got, g.Pass, c.want)
		}
	}
	g := EvaluateRegression(RegressionInput{RowsReplayed: 1, MeanJaccard: 1, Top1Rate: 1, CapturedMeanLatencyMS: 4, CurrentMeanLatencyMS: 6}, th)
	if g.LatencyMultiplier == nil || *g.LatencyMultiplier != 1.5 {
		t.Errorf("multiplier = %v, want 1.5", g.LatencyMultiplier)
	}
	if g := EvaluateRegression(RegressionInput{RowsReplayed: 1, MeanJaccard: 1, Top1Rate: 1}, th); g.LatencyMultiplier != nil {
		t.Errorf("multiplier without captured latency = %v, want nil", *g.LatencyMultiplier)
	}
}

func TestEvaluateCorrectnessAndDecide(t *testing.T) {
	th := Thresholds{}.Resolve()
	yes, no := true, false
	rep := Summarize("q.json", 5, false, []QueryScore{
		{QueryID: "a", RecallAtK: 1, FirstRelevantHit: true, ExpectedTop1Hit: &yes},
		{QueryID: "b", RecallAtK: 0.5, FirstRelevantHit: false, ExpectedTop1Hit: &no},
	})
	g := EvaluateCorrectness(rep, th)
	// recall 0.75 passes 0.70; first-relevant 0.5 < 0.6; expected-top1 0.5 passes 0.5.
	if got := metrics(g.Breaches); strings.Join(got, ",") != "first_relevant_hit_rate" || g.Pass {
		t.Errorf("breaches = %v", got)
	}
	if strings.Join(g.Misses, ",") != "b" {
		t.Errorf("misses = %v", g.Misses)
	}
	pass := EvaluateRegression(RegressionInput{RowsReplayed: 1, MeanJaccard: 1, Top1Rate: 1}, th)
	if v := Decide(&pass, nil); !v.Passed() {
		t.Error("one passing gate should pass")
	}
	if v := Decide(&pass, &g); v.Passed() || v.Verdict != "fail" {
		t.Error("a failing gate must fail the verdict")
	}
	if v := Decide(nil, nil); v.Passed() {
		t.Error("no gate must not pass")
	}

	var buf bytes.Buffer
	if err := WriteJUnit(&buf, Decide(&pass, &g)); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit output is not XML: %v\n%s", err, buf.String())
	}
	if doc.Tests != 6 || doc.Failures != 1 || len(doc.Suites) != 2 || doc.Suites[1].Cases[1].Failure == nil {
		t.Errorf("JUnit = %+v", doc)
	}
}
