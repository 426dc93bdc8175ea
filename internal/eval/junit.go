package eval

import (
	"encoding/xml"
	"fmt"
	"io"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type check struct {
	metric string
	value  *float64
	limit  float64
	rule   string
}

func suite(name string, checks []check, breaches []Breach) junitSuite {
	s := junitSuite{Name: name}
	byMetric := map[string]Breach{}
	for _, b := range breaches {
		byMetric[b.Metric] = b
	}
	seen := map[string]bool{}
	add := func(metric, out string, b *Breach) {
		c := junitCase{Name: metric, ClassName: "pgbrain.eval." + name, SystemOut: out}
		if b != nil {
			c.Failure = &junitFailure{Message: b.Message, Type: "threshold", Text: b.Message}
			s.Failures++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	for _, c := range checks {
		seen[c.metric] = true
		out := fmt.Sprintf("%s: not measured", c.metric)
		if c.value != nil {
			op := ">="
			if c.rule == "max" {
				op = "<="
			}
			out = fmt.Sprintf("%s = %.4f (must be %s %.4f)", c.metric, *c.value, op, c.limit)
		}
		if b, ok := byMetric[c.metric]; ok {
			add(c.metric, out, &b)
		} else {
			add(c.metric, out, nil)
		}
	}
	for _, b := range breaches { // breaches that are not threshold checks
		if !seen[b.Metric] {
			b := b
			add(b.Metric, b.Message, &b)
		}
	}
	return s
}

// WriteJUnit writes v as a JUnit XML report: one test suite per gate that
// ran, one test case per checked metric, a failure for each breach.
func WriteJUnit(w io.Writer, v Verdict) error {
	doc := junitSuites{Name: "pgbrain eval gate"}
	if g := v.Regression; g != nil {
		doc.Suites = append(doc.Suites, suite("regression_gate", []check{
			{"mean_jaccard", &g.MeanJaccard, g.Thresholds.Jaccard, "min"},
			{"top1_stability_rate", &g.Top1StabilityRate, g.Thresholds.Top1, "min"},
			{"latency_multiplier", g.LatencyMultiplier, g.Thresholds.Latency, "max"},
		}, g.Breaches))
	}
	if g := v.Correctness; g != nil {
		doc.Suites = append(doc.Suites, suite("correctness_gate", []check{
			{"recall_at_k", &g.RecallAtK, g.Thresholds.Recall, "min"},
			{"first_relevant_hit_rate", &g.FirstRelevantHitRate, g.Thresholds.FirstRelevant, "min"},
			{"expected_top1_hit_rate", g.ExpectedTop1HitRate, g.Thresholds.ExpectedTop1, "min"},
		}, g.Breaches))
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing the JUnit report: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
