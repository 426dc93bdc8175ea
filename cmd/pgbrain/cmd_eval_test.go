package main

// End-to-end tests of the retrieval-quality loop through the command line
// (docs/eval-loop.md): capture -> eval export -> bench publish -> eval
// replay -> eval gate, the correctness gate and eval qrels on the sample
// brain, the file readers, and replay's human output. Every command runs
// in-process through run(), against a fresh database from testdb.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/testdb"
)

const (
	sampleBrainDir = "../../sample/brain"
	sampleQrels    = "../../sample/qrels.json"
	// noDatabase makes any command that wrongly opens a brain fail with
	// "connecting" (exit 1) instead of starting an embedded cluster.
	noDatabase = "postgresql:///nope?host=/nonexistent-pgbrain-dir&user=x"
)

// cliBrain is one test's brain: a fresh database and a pgbrain home.
type cliBrain struct {
	t         *testing.T
	url, home string
}

func newCLIBrain(t *testing.T, url string) *cliBrain {
	t.Helper()
	// Capture must only be what a test turns on: TestMain unsets
	// PGBRAIN_CONTRIBUTOR_MODE.
	return &cliBrain{t: t, url: url, home: t.TempDir()}
}

// run runs pgbrain with this brain's database and home.
func (b *cliBrain) run(args ...string) (string, string, int) {
	b.t.Helper()
	return pgbrain(b.t, b.url, "", append([]string{"--home", b.home}, args...)...)
}

// must runs pgbrain and fails the test unless it exits 0.
func (b *cliBrain) must(args ...string) string {
	b.t.Helper()
	out, errOut, code := b.run(args...)
	if code != 0 {
		b.t.Fatalf("pgbrain %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// importedSampleBrain is a fresh database holding the 1,127-page sample
// brain, imported once per test binary (sampleBrainURL).
func importedSampleBrain(t *testing.T) *cliBrain {
	t.Helper()
	return newCLIBrain(t, sampleBrainURL(t))
}

// tinyBrain imports a few pages written by the test.
func tinyBrain(t *testing.T) *cliBrain {
	t.Helper()
	b := newCLIBrain(t, testdb.New(t))
	dir := t.TempDir()
	pages := map[string]string{
		"companies/widget-co.md": "---\ntitle: Widget Co\ntype: company\n---\nWidget Co makes widgets and gizmos in Springfield.\n",
		"people/alice.md":        "---\ntitle: Alice\ntype: person\n---\nAlice founded Widget Co and runs its gizmo lab.\n",
		"notes/mutex.md":         "---\ntitle: Mutex notes\ntype: note\n---\nA mutex lock guards shared state between goroutines.\n",
	}
	for name, body := range pages {
		writeFile(t, filepath.Join(dir, name), body)
	}
	b.must("import", dir)
	return b
}

// offline is a command line that must never need a database.
func offline(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return pgbrain(t, noDatabase, "", append([]string{"--home", t.TempDir()}, args...)...)
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// exportRow writes one NDJSON v1 export row for hand-made files.
type exportRow struct {
	ID        int64
	Tool      string
	Query     string
	Slugs     []string
	LatencyMS float64
	CreatedAt string
}

func (r exportRow) String() string {
	slugs := r.Slugs
	if slugs == nil {
		slugs = []string{}
	}
	m := map[string]any{
		"id": r.ID, "tool_name": r.Tool, "query": r.Query,
		"retrieved_slugs": slugs, "retrieved_chunk_ids": []int64{}, "source_ids": []string{},
		"expand_enabled": nil, "detail": nil, "detail_resolved": nil, "vector_enabled": r.Tool == "query",
		"expansion_applied": false, "latency_ms": r.LatencyMS, "remote": false, "job_id": nil, "subagent_id": nil,
		"created_at": r.CreatedAt,
	}
	if r.Tool == "query" {
		m["expand_enabled"] = false
	}
	b, _ := json.Marshal(m)
	// json.Marshal sorts keys; the contract puts schema_version first.
	return `{"schema_version":1,` + strings.TrimPrefix(string(b), "{")
}

func ndjson(rows ...fmt.Stringer) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.String())
		b.WriteByte('\n')
	}
	return b.String()
}

type rawLine string

func (l rawLine) String() string { return string(l) }

// The documented JSON outputs, decoded independently of the packages that
// write them.

type replayJSON struct {
	SchemaVersion int `json:"schema_version"`
	Summary       struct {
		RowsTotal          int     `json:"rows_total"`
		RowsReplayed       int     `json:"rows_replayed"`
		RowsSkipped        int     `json:"rows_skipped"`
		RowsErrored        int     `json:"rows_errored"`
		MeanJaccard        float64 `json:"mean_jaccard"`
		Top1StabilityRate  float64 `json:"top1_stability_rate"`
		MeanLatencyDeltaMS float64 `json:"mean_latency_delta_ms"`
		RowsOver2xLatency  int     `json:"rows_over_2x_latency"`
	} `json:"summary"`
	Results []struct {
		ID            int64    `json:"id"`
		Line          int      `json:"line"`
		Query         string   `json:"query"`
		Status        string   `json:"status"`
		Reason        string   `json:"reason"`
		ErrorMessage  string   `json:"error_message"`
		Jaccard       *float64 `json:"jaccard"`
		Top1Match     *bool    `json:"top1_match"`
		CapturedCount int      `json:"captured_count"`
		CurrentCount  int      `json:"current_count"`
	} `json:"results"`
}

type breachJSON struct {
	Metric    string  `json:"metric"`
	Value     float64 `json:"value"`
	Threshold float64 `json:"threshold"`
	Rule      string  `json:"rule"`
	Message   string  `json:"message"`
}

type gateJSON struct {
	SchemaVersion int    `json:"schema_version"`
	Verdict       string `json:"verdict"`
	Regression    *struct {
		RowsTotal         int                `json:"rows_total"`
		RowsReplayed      int                `json:"rows_replayed"`
		RowsErrored       int                `json:"rows_errored"`
		MeanJaccard       float64            `json:"mean_jaccard"`
		Top1StabilityRate float64            `json:"top1_stability_rate"`
		LatencyMultiplier *float64           `json:"latency_multiplier"`
		Thresholds        map[string]float64 `json:"thresholds"`
		Pass              bool               `json:"pass"`
		Breaches          []breachJSON       `json:"breaches"`
	} `json:"regression_gate"`
	Correctness *struct {
		Queries              int                `json:"queries"`
		K                    int                `json:"k"`
		RecallAtK            float64            `json:"recall_at_k"`
		FirstRelevantHitRate float64            `json:"first_relevant_hit_rate"`
		ExpectedTop1HitRate  *float64           `json:"expected_top1_hit_rate"`
		Thresholds           map[string]float64 `json:"thresholds"`
		Pass                 bool               `json:"pass"`
		Breaches             []breachJSON       `json:"breaches"`
		Misses               []string           `json:"misses"`
	} `json:"correctness_gate"`
}

func decodeJSON[T any](t *testing.T, what, out string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s: output is not the documented JSON: %v\n%s", what, err, out)
	}
	return v
}

func breachMetrics(bs []breachJSON) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Metric)
	}
	sort.Strings(out)
	return out
}

// checkBreaches asserts every breach is a real threshold violation.
func checkBreaches(t *testing.T, bs []breachJSON) {
	t.Helper()
	for _, b := range bs {
		switch {
		case b.Message == "":
			t.Errorf("breach %s has no message", b.Metric)
		case b.Rule == "min" && !(b.Value < b.Threshold):
			t.Errorf("breach %s: value %v is not below the floor %v", b.Metric, b.Value, b.Threshold)
		case b.Rule == "max" && !(b.Value > b.Threshold):
			t.Errorf("breach %s: value %v is not above the ceiling %v", b.Metric, b.Value, b.Threshold)
		case b.Rule != "min" && b.Rule != "max":
			t.Errorf("breach %s: rule %q", b.Metric, b.Rule)
		}
	}
}

// junitReport is the JUnit XML written by --junit.
type junitReport struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitReport {
	t.Helper()
	data := readFile(t, path)
	// Well-formed as a whole, not only the parts the struct reads.
	dec := xml.NewDecoder(strings.NewReader(data))
	for {
		if _, err := dec.Token(); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("%s is not well-formed XML: %v\n%s", path, err, data)
		}
	}
	var r junitReport
	if err := xml.Unmarshal([]byte(data), &r); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return r
}

// TestEvalLoopCaptureToGate walks the whole loop on the sample brain:
// queries captured (config file over PGBRAIN_CONTRIBUTOR_MODE), exported,
// published, replayed unchanged (Jaccard 1, top-1 1), gated (pass), then
// most pages deleted and gated again (fail, in text, JSON and JUnit).
func TestEvalLoopCaptureToGate(t *testing.T) {
	t.Parallel()
	b := importedSampleBrain(t)
	dir := t.TempDir()
	config := filepath.Join(b.home, "config.json")

	// The config file beats the environment, both ways. The environment
	// reaches the command in a process of its own, so that this test runs
	// beside others (t.Setenv would keep it alone).
	bin := pgbrainBinary(t)
	withMode := func(mode string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--database-url", b.url, "--home", b.home}, args...)...)
		cmd.Env = append(os.Environ(), "PGBRAIN_CONTRIBUTOR_MODE="+mode)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("PGBRAIN_CONTRIBUTOR_MODE=%s pgbrain %s: %v\nstdout: %s\nstderr: %s", mode, strings.Join(args, " "), err, out, errOut.String())
		}
		return string(out)
	}
	writeFile(t, config, `{"eval":{"capture":false}}`)
	withMode("1", "query", "uncaptured because the file says false")
	writeFile(t, config, `{"eval":{"capture":true}}`)

	captured := [][]string{
		{"query", "parse a url query string"},
		{"query", "read a file line by line", "--limit", "5"},
		{"query", "http client timeout", "--detail", "high"},
		{"query", "json marshal struct field tags", "--detail", "low"},
		{"query", "context cancel deadline", "--limit", "3"},
		{"query", "wait for goroutines to finish"},
		{"query", "gzip compress", "--detail", "medium"},
		{"query", "convert string to int"},
		{"search", "mutex lock"},
		{"search", "sha256 checksum", "--limit", "4"},
		{"search", "split a string by separator"},
		{"search", "base64 encode"},
		// The same text as a query above, through the other tool: not a duplicate.
		{"search", "gzip compress", "--limit", "7"},
	}
	for i, args := range captured {
		var out string
		if i == 0 {
			out = withMode("0", args...)
		} else {
			out = b.must(args...) // TestMain unset PGBRAIN_CONTRIBUTOR_MODE
		}
		if strings.Contains(out, "no results") {
			t.Fatalf("%v found nothing in the sample brain", args)
		}
	}

	// eval export: every captured command, nothing else.
	exported := b.must("eval", "export")
	exportPath := filepath.Join(dir, "captured.ndjson")
	writeFile(t, exportPath, exported)
	rows := lines(exported)
	if len(rows) != len(captured) {
		t.Fatalf("eval export printed %d rows after %d captured commands:\n%s", len(rows), len(captured), exported)
	}
	allSlugs := map[string]bool{}
	for _, l := range rows {
		var r struct {
			Query string   `json:"query"`
			Slugs []string `json:"retrieved_slugs"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.Query, "uncaptured") {
			t.Errorf("captured although config.json says capture false: %s", l)
		}
		if len(r.Slugs) == 0 {
			t.Errorf("row captured no slugs: %s", l)
		}
		for _, s := range r.Slugs {
			allSlugs[s] = true
		}
	}

	// bench publish.
	basePath := filepath.Join(dir, "baseline.ndjson")
	out := b.must("bench", "publish", "--from", exportPath, "--to", basePath, "--label", "x")
	if !strings.Contains(out, fmt.Sprintf("published %d rows", len(captured))) {
		t.Errorf("bench publish said %q", out)
	}
	var meta struct {
		Kind     string `json:"_kind"`
		Label    string `json:"label"`
		RowCount int    `json:"row_count"`
	}
	baseLines := lines(readFile(t, basePath))
	if err := json.Unmarshal([]byte(baseLines[0]), &meta); err != nil || meta.Kind != "baseline_metadata" || meta.Label != "x" || meta.RowCount != len(captured) || len(baseLines) != len(captured)+1 {
		t.Fatalf("baseline metadata %s (err %v), %d lines", baseLines[0], err, len(baseLines))
	}

	// Nothing changed: replaying the baseline, or the export itself, moves nothing.
	for _, against := range []string{basePath, exportPath} {
		rep := decodeJSON[replayJSON](t, "eval replay --json", b.must("eval", "replay", "--against", against, "--json"))
		s := rep.Summary
		if rep.SchemaVersion != 1 || s.RowsTotal != len(captured) || s.RowsReplayed != len(captured) || s.RowsSkipped != 0 || s.RowsErrored != 0 {
			t.Errorf("replay of %s: %+v", against, rep)
		}
		if s.MeanJaccard != 1 || s.Top1StabilityRate != 1 {
			t.Errorf("replay of %s on the unchanged brain: mean Jaccard %v, top-1 stability %v; want 1 and 1", against, s.MeanJaccard, s.Top1StabilityRate)
		}
		if rep.Results != nil {
			t.Errorf("results printed without --verbose")
		}
	}

	// The gate passes with its defaults. Latency is noise in a unit test on
	// shared cores (timing claims belong to make bench): a latency breach
	// alone is logged, and the other runs open its ceiling up.
	out, _, code := b.run("eval", "gate", "--baseline", basePath)
	if breaches := linesWithPrefix(out, "  breach: "); code != 0 && (len(breaches) != 1 || !strings.HasPrefix(breaches[0], "  breach: latency_multiplier")) {
		t.Errorf("eval gate on the unchanged brain: exit %d\n%s", code, out)
	} else if code != 0 {
		t.Logf("the default gate breached only on latency (timing noise):\n%s", out)
	} else if !strings.Contains(out, "Regression gate ("+basePath+"): PASS") || !strings.Contains(out, "Verdict: PASS") {
		t.Errorf("eval gate on the unchanged brain:\n%s", out)
	}
	noLatency := []string{"--threshold-latency", "1000"}
	// With --qrels too (floors at 0), both gates run and both pass. Any
	// qrels do for that: the first few of the sample's keep the runs short
	// (TestEvalQrelsAndCorrectnessGate scores the whole file).
	firstQrels := sampleQrelsPart(t, filepath.Join(dir, "qrels-head.json"), []int{0, 1, 2, 3, 4})
	anyQrels := []string{"--qrels", firstQrels, "--threshold-recall", "0", "--threshold-first-relevant", "0", "--threshold-expected-top1", "0"}
	g := decodeJSON[gateJSON](t, "eval gate --json", b.must(append(append([]string{"eval", "gate", "--baseline", basePath, "--json"}, noLatency...), anyQrels...)...))
	if g.Verdict != "pass" || g.Regression == nil || !g.Regression.Pass || g.Regression.Breaches == nil || len(g.Regression.Breaches) != 0 ||
		g.Regression.MeanJaccard != 1 || g.Regression.Top1StabilityRate != 1 || g.Correctness == nil || !g.Correctness.Pass {
		t.Errorf("eval gate --json on the unchanged brain: %+v", g)
	}
	g = decodeJSON[gateJSON](t, "eval gate --json", b.must(append([]string{"eval", "gate", "--baseline", basePath, "--json"}, noLatency...)...))
	if g.Verdict != "pass" || g.Regression == nil || g.Correctness != nil {
		t.Errorf("a gate that was not asked for must be null: %+v", g)
	}

	// Delete every page that any captured query retrieved, and most others.
	conn := connect(t, b.url)
	var gone []string
	for s := range allSlugs {
		gone = append(gone, s)
	}
	var before, after int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM brain.pages`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), `
		DELETE FROM brain.pages WHERE slug = ANY($1)
		   OR id NOT IN (SELECT id FROM brain.pages WHERE NOT slug = ANY($1) ORDER BY id LIMIT 100)`, gone); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM brain.pages`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != 100 || before < 1000 {
		t.Fatalf("pages before %d, after %d", before, after)
	}

	// No captured page can come back: every row's Jaccard and top-1 are 0.
	// The correctness gate (floors at 0) still passes, but both must.
	junit := filepath.Join(dir, "gate-junit.xml")
	out, errOut, code := b.run(append(append([]string{"eval", "gate", "--baseline", basePath, "--json", "--junit", junit}, noLatency...), anyQrels...)...)
	if code != 1 {
		t.Fatalf("eval gate after deleting pages: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	g = decodeJSON[gateJSON](t, "eval gate --json", out)
	if g.Verdict != "fail" || g.Regression == nil || g.Regression.Pass || g.Correctness == nil || !g.Correctness.Pass {
		t.Fatalf("verdict after deleting pages: %s", out)
	}
	if g.Regression.MeanJaccard != 0 || g.Regression.Top1StabilityRate != 0 || g.Regression.RowsReplayed != len(captured) {
		t.Errorf("after deleting every captured page: %+v", *g.Regression)
	}
	if got, want := breachMetrics(g.Regression.Breaches), []string{"mean_jaccard", "top1_stability_rate"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("breaches %v, want %v", got, want)
	}
	checkBreaches(t, g.Regression.Breaches)

	// A JUnit file that cannot be written does not take the verdict with it.
	if _, err := os.Stat("/dev/full"); err == nil {
		out, errOut, code := b.run(append(append([]string{"eval", "gate", "--baseline", basePath, "--junit", "/dev/full"}, noLatency...), anyQrels...)...)
		if code != 1 || !strings.Contains(out, "Regression gate") || !strings.Contains(errOut, "writing the JUnit report") {
			t.Errorf("--junit /dev/full: exit %d, stdout %q, stderr %q; want the verdict printed and the write failure named", code, out, errOut)
		}
	}

	// The JUnit report holds a failure for each breach, and only those.
	rep := readJUnit(t, junit)
	if len(rep.Suites) != 2 || rep.Suites[0].Name != "regression_gate" || rep.Suites[1].Name != "correctness_gate" ||
		rep.Failures != len(g.Regression.Breaches) || rep.Suites[0].Failures != rep.Failures || rep.Suites[1].Failures != 0 ||
		rep.Tests != rep.Suites[0].Tests+rep.Suites[1].Tests || rep.Suites[0].Tests != len(rep.Suites[0].Cases) {
		t.Fatalf("JUnit report %+v", rep)
	}
	failed := map[string]string{}
	for _, c := range rep.Suites[0].Cases {
		if c.Failure != nil {
			failed[c.Name] = c.Failure.Message
		}
	}
	for _, br := range g.Regression.Breaches {
		if failed[br.Metric] != br.Message {
			t.Errorf("JUnit failure for %s = %q, want %q", br.Metric, failed[br.Metric], br.Message)
		}
	}

	// The human output lists the breaches too.
	out, _, code = b.run(append([]string{"eval", "gate", "--baseline", basePath}, noLatency...)...)
	if code != 1 || !strings.Contains(out, "Regression gate ("+basePath+"): FAIL") || !strings.Contains(out, "Verdict: FAIL") {
		t.Errorf("eval gate (text) after deleting pages: exit %d\n%s", code, out)
	}
	for _, br := range g.Regression.Breaches {
		if !strings.Contains(out, "breach: "+br.Message) {
			t.Errorf("text output does not list the breach %q:\n%s", br.Message, out)
		}
	}

	// Replay names the moved queries, most moved first.
	out = b.must("eval", "replay", "--against", basePath, "--top-regressions", "3")
	if !strings.Contains(out, fmt.Sprintf("Replayed %d of %d captured queries (0 skipped, 0 errored)", len(captured), len(captured))) ||
		!strings.Contains(out, "Mean Jaccard@k:   0.000") || !strings.Contains(out, "Top 3 regression(s):") || strings.Count(out, "  jaccard=0.00 ") != 3 {
		t.Errorf("eval replay after deleting pages:\n%s", out)
	}
}

// TestBenchPublish: the baseline format, --force, and duplicate queries.
// Publishing needs no database.
func TestBenchPublish(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	from := filepath.Join(dir, "export.ndjson")
	rows := []exportRow{
		{ID: 4, Tool: "query", Query: "who is alice", Slugs: []string{"people/alice"}, LatencyMS: 10, CreatedAt: "2025-01-04T00:00:00.000000Z"},
		{ID: 3, Tool: "search", Query: "widget", Slugs: []string{"companies/widget-co"}, LatencyMS: 20, CreatedAt: "2025-01-03T00:00:00.000000Z"},
		{ID: 2, Tool: "search", Query: "Who is  Alice", Slugs: []string{"people/alice"}, LatencyMS: 30, CreatedAt: "2025-01-02T00:00:00.000000Z"},
		{ID: 1, Tool: "query", Query: "mutex lock", Slugs: []string{}, LatencyMS: 40, CreatedAt: "2025-01-01T00:00:00.000000Z"},
	}
	var ss []fmt.Stringer
	for _, r := range rows {
		ss = append(ss, r)
	}
	export := ndjson(ss...)
	writeFile(t, from, export)
	to := filepath.Join(dir, "base.ndjson")

	out, errOut, code := offline(t, "bench", "publish", "--from", from, "--to", to, "--label", "first")
	if code != 0 {
		t.Fatalf("publish: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "published 4 rows to "+to) {
		t.Errorf("publish said %q", out)
	}
	first := readFile(t, to)
	ls := lines(first)
	if len(ls) != 5 {
		t.Fatalf("baseline has %d lines, want metadata + 4 rows:\n%s", len(ls), first)
	}
	var meta struct {
		SchemaVersion int                `json:"schema_version"`
		Kind          string             `json:"_kind"`
		Label         string             `json:"label"`
		PublishedAt   string             `json:"published_at"`
		SourceHash    string             `json:"source_hash"`
		Thresholds    map[string]float64 `json:"thresholds"`
		RowCount      int                `json:"row_count"`
		MeanLatency   float64            `json:"baseline_mean_latency_ms"`
	}
	if err := json.Unmarshal([]byte(ls[0]), &meta); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(export))
	if !strings.HasPrefix(ls[0], `{"schema_version":1,"_kind":"baseline_metadata",`) || meta.Label != "first" || meta.RowCount != 4 ||
		meta.SourceHash != "sha256:"+hex.EncodeToString(sum[:]) || meta.MeanLatency != 25 || meta.PublishedAt == "" ||
		meta.Thresholds["jaccard"] != 0.85 || meta.Thresholds["top1"] != 0.85 || meta.Thresholds["latency"] != 2 {
		t.Errorf("metadata %s", ls[0])
	}
	// Rows: unchanged but for query_hash, sorted by (tool_name, query_hash).
	type key struct{ tool, hash string }
	var keys []key
	for _, l := range ls[1:] {
		var r struct {
			Tool  string `json:"tool_name"`
			Query string `json:"query"`
			Hash  string `json:"query_hash"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256([]byte(strings.Join(strings.Fields(strings.ToLower(r.Query)), " ")))
		if r.Hash != hex.EncodeToString(h[:]) {
			t.Errorf("query_hash of %q = %s", r.Query, r.Hash)
		}
		if !strings.Contains(export, strings.TrimSuffix(l, `,"query_hash":"`+r.Hash+`"}`)+"}\n") {
			t.Errorf("row changed by publishing: %s", l)
		}
		keys = append(keys, key{r.Tool, r.Hash})
	}
	if !sort.SliceIsSorted(keys, func(i, j int) bool {
		if keys[i].tool != keys[j].tool {
			return keys[i].tool < keys[j].tool
		}
		return keys[i].hash < keys[j].hash
	}) {
		t.Errorf("rows are not sorted by (tool_name, query_hash): %v", keys)
	}

	t.Run("republishing a baseline keeps its rows", func(t *testing.T) {
		again := filepath.Join(t.TempDir(), "again.ndjson")
		if _, errOut, code := offline(t, "bench", "publish", "--from", to, "--to", again); code != 0 {
			t.Fatalf("publish from a baseline: exit %d: %s", code, errOut)
		}
		got := lines(readFile(t, again))
		if strings.Join(got[1:], "\n") != strings.Join(ls[1:], "\n") {
			t.Errorf("republished rows differ:\n%s\nwant\n%s", strings.Join(got[1:], "\n"), strings.Join(ls[1:], "\n"))
		}
		if !strings.Contains(got[0], `"label":"again"`) || !strings.Contains(got[0], `"row_count":4`) {
			t.Errorf("republished metadata %s", got[0])
		}
	})

	t.Run("existing target needs --force", func(t *testing.T) {
		_, errOut, code := offline(t, "bench", "publish", "--from", from, "--to", to, "--label", "second")
		if code != 1 || !strings.Contains(errOut, to) || !strings.Contains(errOut, "--force") {
			t.Errorf("publish over an existing file: exit %d, %q; want 1 naming the file and --force", code, errOut)
		}
		if readFile(t, to) != first {
			t.Fatal("a refused publish changed the existing baseline")
		}
		if _, errOut, code := offline(t, "bench", "publish", "--from", from, "--to", to, "--label", "second", "--force"); code != 0 {
			t.Fatalf("publish --force: exit %d: %s", code, errOut)
		}
		if got := readFile(t, to); !strings.Contains(lines(got)[0], `"label":"second"`) || len(lines(got)) != 5 {
			t.Errorf("--force did not replace the baseline:\n%s", got)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".base.ndjson*")); len(left) != 0 {
			t.Errorf("temporary files left beside the target: %v", left)
		}
	})

	t.Run("duplicate queries name both lines", func(t *testing.T) {
		dupFrom := filepath.Join(dir, "dup.ndjson")
		// Line 4 repeats line 2's search, up to case and white space.
		writeFile(t, dupFrom, ndjson(
			rows[0], rows[2], rows[3],
			exportRow{ID: 9, Tool: "search", Query: "  WHO is alice ", Slugs: []string{}, CreatedAt: "2025-01-05T00:00:00.000000Z"},
		))
		dupTo := filepath.Join(dir, "dup-base.ndjson")
		_, errOut, code := offline(t, "bench", "publish", "--from", dupFrom, "--to", dupTo)
		if code != 1 || !strings.Contains(errOut, dupFrom+":2 and "+dupFrom+":4") {
			t.Errorf("duplicate query: exit %d, %q; want 1 naming %s:2 and %s:4", code, errOut, dupFrom, dupFrom)
		}
		if _, err := os.Stat(dupTo); !os.IsNotExist(err) {
			t.Errorf("a refused publish wrote %s", dupTo)
		}
	})

	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{
			{"bench", "publish", "--from", from},
			{"bench", "publish", "--to", to},
			{"bench", "publish", "--from", from, "--to", to, "extra"},
		} {
			if _, errOut, code := offline(t, args...); code != 2 || errOut == "" {
				t.Errorf("%v: exit %d, %q; want 2", args, code, errOut)
			}
		}
	})
}

// TestEvalGateUsageErrors: a gate called wrongly exits 2 before touching
// any database.
func TestEvalGateUsageErrors(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "base.ndjson")
	writeFile(t, base, `{"schema_version":1,"_kind":"baseline_metadata","label":"x","thresholds":null,"row_count":0}`+"\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"neither baseline nor qrels", nil, "--baseline FILE"},
		{"unexpected argument", []string{"--baseline", base, "extra"}, `unexpected argument "extra"`},
		{"k zero", []string{"--baseline", base, "-k", "0"}, "out of range"},
		{"k too large", []string{"--qrels", sampleQrels, "-k", "101"}, "out of range"},
		{"floor above 1", []string{"--baseline", base, "--threshold-jaccard", "1.5"}, "between 0 and 1"},
		{"negative floor", []string{"--qrels", sampleQrels, "--threshold-recall", "-0.1"}, "between 0 and 1"},
		{"latency not above 0", []string{"--baseline", base, "--threshold-latency", "0"}, "above 0"},
		{"unknown flag", []string{"--baseline", base, "--threshold-bogus", "1"}, "threshold-bogus"},
		{"not a number", []string{"--baseline", base, "--threshold-top1", "high"}, "threshold-top1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := offline(t, append([]string{"eval", "gate"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit 2 and %q", code, errOut, out, tc.want)
			}
		})
	}
}

// TestEvalGateThresholdPrecedence: a --threshold-* flag beats the value in
// the baseline, which beats the default, seen in the verdict and output.
func TestEvalGateThresholdPrecedence(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	dir := t.TempDir()
	from := filepath.Join(dir, "export.ndjson")
	// Two rows replaying to Jaccard 1 (nothing then, nothing now) and 0 (a
	// page that never existed): mean Jaccard and top-1 stability 0.5. No
	// latency was captured, so the latency multiplier is not checked.
	writeFile(t, from, ndjson(
		exportRow{ID: 2, Tool: "search", Query: "xyzzy plugh", CreatedAt: "2025-01-02T00:00:00.000000Z"},
		exportRow{ID: 1, Tool: "search", Query: "widget gizmo", Slugs: []string{"nope/missing"}, CreatedAt: "2025-01-01T00:00:00.000000Z"},
	))
	published := filepath.Join(dir, "published.ndjson")
	b.must("bench", "publish", "--from", from, "--to", published)
	// withThresholds rewrites the published metadata's thresholds (nil: none).
	withThresholds := func(t *testing.T, th map[string]float64) string {
		ls := lines(readFile(t, published))
		var meta map[string]any
		if err := json.Unmarshal([]byte(ls[0]), &meta); err != nil {
			t.Fatal(err)
		}
		if th == nil {
			delete(meta, "thresholds")
		} else {
			meta["thresholds"] = th
		}
		m, _ := json.Marshal(meta)
		ls[0] = string(m)
		path := filepath.Join(t.TempDir(), "base.ndjson")
		writeFile(t, path, strings.Join(ls, "\n")+"\n")
		return path
	}

	tests := []struct {
		name       string
		embedded   map[string]float64
		flags      []string
		want       map[string]float64
		wantPass   bool
		wantBreach []string
	}{
		{
			name:       "defaults",
			want:       map[string]float64{"jaccard": 0.85, "top1": 0.85, "latency": 2, "recall": 0.70, "first_relevant": 0.60, "expected_top1": 0.50},
			wantBreach: []string{"mean_jaccard", "top1_stability_rate"},
		},
		{
			name:     "baseline over defaults",
			embedded: map[string]float64{"jaccard": 0.4, "top1": 0.5, "recall": 0.33},
			want:     map[string]float64{"jaccard": 0.4, "top1": 0.5, "latency": 2, "recall": 0.33, "first_relevant": 0.60, "expected_top1": 0.50},
			wantPass: true,
		},
		{
			name:       "flag over baseline, stricter",
			embedded:   map[string]float64{"jaccard": 0.4, "top1": 0.5},
			flags:      []string{"--threshold-jaccard", "0.6"},
			want:       map[string]float64{"jaccard": 0.6, "top1": 0.5},
			wantBreach: []string{"mean_jaccard"},
		},
		{
			name:     "flag over baseline, looser",
			embedded: map[string]float64{"jaccard": 0.9, "top1": 0.9, "first_relevant": 0.2},
			flags:    []string{"--threshold-jaccard", "0.5", "--threshold-top1", "0.25", "--threshold-first-relevant", "0.1"},
			want:     map[string]float64{"jaccard": 0.5, "top1": 0.25, "first_relevant": 0.1, "expected_top1": 0.5},
			wantPass: true,
		},
		{
			name:       "flag over default",
			flags:      []string{"--threshold-top1", "0.45"},
			want:       map[string]float64{"jaccard": 0.85, "top1": 0.45},
			wantBreach: []string{"mean_jaccard"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := withThresholds(t, tc.embedded)
			args := append([]string{"eval", "gate", "--baseline", base, "--json"}, tc.flags...)
			out, errOut, code := b.run(args...)
			g := decodeJSON[gateJSON](t, "eval gate --json", out)
			if g.Regression == nil {
				t.Fatalf("no regression gate: %s %s", out, errOut)
			}
			r := g.Regression
			if r.MeanJaccard != 0.5 || r.Top1StabilityRate != 0.5 || r.LatencyMultiplier != nil {
				t.Fatalf("replay of the two rows: %s", out)
			}
			for name, want := range tc.want {
				if got, ok := r.Thresholds[name]; !ok || got != want {
					t.Errorf("threshold %s = %v, want %v", name, got, want)
				}
			}
			wantCode, wantVerdict := 1, "fail"
			if tc.wantPass {
				wantCode, wantVerdict = 0, "pass"
			}
			if code != wantCode || g.Verdict != wantVerdict || r.Pass != tc.wantPass {
				t.Errorf("exit %d, verdict %s; want %d, %s\n%s", code, g.Verdict, wantCode, wantVerdict, out)
			}
			if got := breachMetrics(r.Breaches); strings.Join(got, ",") != strings.Join(tc.wantBreach, ",") {
				t.Errorf("breaches %v, want %v", got, tc.wantBreach)
			}
			checkBreaches(t, r.Breaches)
			// The text output shows the floors in force.
			text, _, _ := b.run(append([]string{"eval", "gate", "--baseline", base}, tc.flags...)...)
			for name, label := range map[string]string{"jaccard": "mean Jaccard", "top1": "top-1 stability"} {
				if want := fmt.Sprintf("(floor %.3f)", tc.want[name]); !strings.Contains(text, label) || !strings.Contains(lineWith(text, label), want) {
					t.Errorf("text output for %s does not show %s:\n%s", label, want, text)
				}
			}
			if !strings.Contains(text, "latency multiplier  not checked") {
				t.Errorf("text output should say latency is not checked:\n%s", text)
			}
		})
	}

	t.Run("bad embedded thresholds name the file", func(t *testing.T) {
		for _, th := range []string{`{"jacard":0.5}`, `{"jaccard":2}`, `{"latency":-1}`} {
			ls := lines(readFile(t, published))
			ls[0] = strings.Replace(ls[0], `"thresholds":{"jaccard":0.85,"top1":0.85,"latency":2}`, `"thresholds":`+th, 1)
			if !strings.Contains(ls[0], th) {
				t.Fatalf("could not rewrite thresholds in %s", ls[0])
			}
			path := filepath.Join(t.TempDir(), "bad.ndjson")
			writeFile(t, path, strings.Join(ls, "\n")+"\n")
			if _, errOut, code := offline(t, "eval", "gate", "--baseline", path); code != 1 || !strings.Contains(errOut, path+":1: \"thresholds\"") {
				t.Errorf("thresholds %s: exit %d, %q; want 1 naming %s:1", th, code, errOut, path)
			}
		}
	})
}

// lineWith returns the first line of s containing sub.
func lineWith(s, sub string) string {
	for _, l := range lines(s) {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// sampleQrelsPart writes the queries of sample/qrels.json at the indexes
// idx (in file order), as a qrels file of their own, to path and returns
// path.
func sampleQrelsPart(t *testing.T, path string, idx []int) string {
	t.Helper()
	var file map[string]json.RawMessage
	if err := json.Unmarshal([]byte(readFile(t, sampleQrels)), &file); err != nil {
		t.Fatal(err)
	}
	var queries, part []json.RawMessage
	if err := json.Unmarshal(file["queries"], &queries); err != nil {
		t.Fatal(err)
	}
	for _, i := range idx {
		if i >= len(queries) {
			t.Fatalf("%s holds %d queries, none at index %d", sampleQrels, len(queries), i)
		}
		part = append(part, queries[i])
	}
	raw, err := json.Marshal(part)
	if err != nil {
		t.Fatal(err)
	}
	file["queries"] = raw
	data, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data))
	return path
}

// sampleQrelsEntry is an entry of sample/qrels.json, read by the test.
type sampleQrelsEntry struct {
	ID            string   `json:"query_id"`
	Query         string   `json:"query"`
	RelevantSlugs []string `json:"relevant_slugs"`
	Relevant      []struct {
		SourceID string `json:"source_id"`
		Slug     string `json:"slug"`
	} `json:"relevant"`
}

func (e sampleQrelsEntry) relevant() map[string]bool {
	out := map[string]bool{}
	for _, s := range e.RelevantSlugs {
		out["default::"+s] = true
	}
	for _, d := range e.Relevant {
		out[d.SourceID+"::"+d.Slug] = true
	}
	return out
}

// TestEvalQrelsAndCorrectnessGate scores sample/qrels.json against the
// sample brain: the report is well-formed and agrees with an independent
// computation over `pgbrain query` results, and the correctness gate passes
// at today's scores and fails just above any one of them.
func TestEvalQrelsAndCorrectnessGate(t *testing.T) {
	t.Parallel()
	b := importedSampleBrain(t)
	var file struct {
		Queries []sampleQrelsEntry `json:"queries"`
	}
	if err := json.Unmarshal([]byte(readFile(t, sampleQrels)), &file); err != nil {
		t.Fatal(err)
	}

	var rep qrelsReportJSON
	out := b.must("eval", "qrels", sampleQrels, "-k", "10", "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval qrels --json: %v\n%s", err, out)
	}
	if rep.SchemaVersion != 1 || rep.K != 10 || rep.Queries != len(file.Queries) || len(rep.PerQuery) != len(file.Queries) {
		t.Fatalf("eval qrels: schema %d, k %d, %d queries, %d per-query entries; the file has %d queries",
			rep.SchemaVersion, rep.K, rep.Queries, len(rep.PerQuery), len(file.Queries))
	}
	overall := map[string]*float64{
		"precision_at_k": rep.PrecisionAtK, "recall_at_k": rep.RecallAtK, "mrr": rep.MRR, "ndcg_at_k": rep.NDCGAtK,
		"first_relevant_hit_rate": rep.FirstRelevantHitRate, "expected_top1_hit_rate": rep.ExpectedTop1HitRate,
	}
	for name, v := range overall {
		if v == nil || !(*v >= 0 && *v <= 1) {
			t.Errorf("%s = %v, want a number in [0,1]", name, v)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	var sums [4]float64
	for i, s := range rep.PerQuery {
		e := file.Queries[i]
		if s.QueryID != e.ID || s.Query != e.Query || len(s.Retrieved) > 10 {
			t.Errorf("per_query[%d] = %s %q with %d results; the file has %s %q", i, s.QueryID, s.Query, len(s.Retrieved), e.ID, e.Query)
		}
		for j, v := range []float64{s.PrecisionAtK, s.RecallAtK, s.ReciprocalRank, s.NDCGAtK} {
			if !(v >= 0 && v <= 1) {
				t.Errorf("%s: metric %d = %v, outside [0,1]", s.QueryID, j, v)
			}
			sums[j] += v
		}
		if s.FirstRelevantHit != (len(s.Retrieved) > 0 && e.relevant()[s.Retrieved[0]]) {
			t.Errorf("%s: first_relevant_hit %v for top result %v", s.QueryID, s.FirstRelevantHit, s.Retrieved)
		}
	}
	n := float64(len(rep.PerQuery))
	for j, v := range []float64{*rep.PrecisionAtK, *rep.RecallAtK, *rep.MRR, *rep.NDCGAtK} {
		if math.Abs(v-sums[j]/n) > 1e-9 {
			t.Errorf("overall metric %d = %v is not the mean of the per-query values %v", j, v, sums[j]/n)
		}
	}

	// recall@10, P@10 and reciprocal rank of some queries, recomputed from
	// brain.hybrid_search in SQL; `pgbrain query --json` (hybrid search,
	// default options) must rank the same pages.
	conn := connect(t, b.url)
	var recalled float64
	for _, i := range []int{0, 7, 15, 31, 47, 63, len(file.Queries) - 1} {
		e, s := file.Queries[i], rep.PerQuery[i]
		rows, err := conn.Query(context.Background(), `
			SELECT h.source_id || '::' || h.slug
			FROM brain.hybrid_search($1, brain.embed_local($1), 10) WITH ORDINALITY AS h
			ORDER BY h.ordinality`, e.Query)
		if err != nil {
			t.Fatal(err)
		}
		sqlTop, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		var resp struct {
			Results []struct {
				SourceID string `json:"source_id"`
				Slug     string `json:"slug"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(b.must("query", e.Query, "--limit", "10", "--json")), &resp); err != nil {
			t.Fatal(err)
		}
		var cliTop []string
		for _, r := range resp.Results {
			cliTop = append(cliTop, r.SourceID+"::"+r.Slug)
		}
		if strings.Join(cliTop, " ") != strings.Join(sqlTop, " ") {
			t.Errorf("%s %q: pgbrain query found %v, brain.hybrid_search %v", e.ID, e.Query, cliTop, sqlTop)
		}
		if strings.Join(sqlTop, " ") != strings.Join(s.Retrieved, " ") {
			t.Errorf("%s %q: eval qrels retrieved %v, brain.hybrid_search %v", e.ID, e.Query, s.Retrieved, sqlTop)
		}
		rel := e.relevant()
		hits, rr := 0, 0.0
		for rank, k := range sqlTop {
			if rel[k] {
				hits++
				if rr == 0 {
					rr = 1 / float64(rank+1)
				}
			}
		}
		recall := float64(hits) / float64(len(rel))
		recalled += recall
		if math.Abs(s.RecallAtK-recall) > 1e-9 || math.Abs(s.PrecisionAtK-float64(hits)/10) > 1e-9 || math.Abs(s.ReciprocalRank-rr) > 1e-9 {
			t.Errorf("%s %q: recall@10 %v, P@10 %v, RR %v; recomputed %v, %v, %v", e.ID, e.Query,
				s.RecallAtK, s.PrecisionAtK, s.ReciprocalRank, recall, float64(hits)/10, rr)
		}
	}
	if recalled == 0 {
		t.Error("none of the recomputed queries recalled anything: the comparison proves nothing")
	}

	// The correctness gate passes with floors at or below today's scores and
	// fails with floors above them, naming each breached metric with the
	// floor its own flag set. (One failing run covers the three metrics.)
	// The gate runs on a part of the sample qrels, scored by eval qrels on
	// its own: comparing the floors with the scores does not depend on how
	// many queries made them, and each run of the whole file takes 91
	// searches. The part holds every query up to the fourth that missed
	// its first relevant page and up to the fourth that missed a relevant
	// page at 10, so that each score is below 1 and a floor fits above it.
	var part []int
	firstMisses, recallMisses := 0, 0
	for i, s := range rep.PerQuery {
		if firstMisses >= 4 && recallMisses >= 4 {
			break
		}
		part = append(part, i)
		if !s.FirstRelevantHit {
			firstMisses++
		}
		if s.RecallAtK < 1 {
			recallMisses++
		}
	}
	qrels := sampleQrelsPart(t, filepath.Join(t.TempDir(), "qrels-part.json"), part)
	var partRep qrelsReportJSON
	out = b.must("eval", "qrels", qrels, "-k", "10", "--json")
	if err := json.Unmarshal([]byte(out), &partRep); err != nil {
		t.Fatalf("eval qrels --json: %v\n%s", err, out)
	}
	if partRep.Queries != len(part) || len(partRep.PerQuery) != len(part) {
		t.Fatalf("eval qrels of %d queries scored %d", len(part), partRep.Queries)
	}
	for j, s := range partRep.PerQuery {
		if whole := rep.PerQuery[part[j]]; s.QueryID != whole.QueryID || strings.Join(s.Retrieved, " ") != strings.Join(whole.Retrieved, " ") {
			t.Errorf("%s: retrieved %v in a part of the file, %v in the whole", s.QueryID, s.Retrieved, whole.Retrieved)
		}
	}
	today := map[string]float64{
		"recall_at_k": *partRep.RecallAtK, "first_relevant_hit_rate": *partRep.FirstRelevantHitRate, "expected_top1_hit_rate": *partRep.ExpectedTop1HitRate,
	}
	flagOf := map[string]string{
		"recall_at_k": "--threshold-recall", "first_relevant_hit_rate": "--threshold-first-relevant", "expected_top1_hit_rate": "--threshold-expected-top1",
	}
	for metric, score := range today {
		if score >= 1 {
			t.Fatalf("%s is already 1 on the sample brain: no floor is above it", metric)
		}
	}
	tests := []struct {
		name   string
		adjust func(score float64) float64
		fail   bool
	}{
		{"at today's scores", func(s float64) float64 { return s }, false},
		{"below today's scores", func(s float64) float64 { return math.Max(0, s-0.05) }, false},
		{"above today's scores", func(s float64) float64 { return s + (1-s)/2 }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"eval", "gate", "--qrels", qrels, "--json"}
			floor := map[string]float64{}
			for metric, score := range today {
				floor[metric] = tc.adjust(score)
				args = append(args, flagOf[metric], strconv.FormatFloat(floor[metric], 'g', -1, 64))
			}
			out, errOut, code := b.run(args...)
			g := decodeJSON[gateJSON](t, "eval gate --json", out)
			c := g.Correctness
			if c == nil || g.Regression != nil || errOut != "" {
				t.Fatalf("gates: %s\nstderr: %q", out, errOut)
			}
			if c.Queries != len(part) || c.K != 10 || c.RecallAtK != today["recall_at_k"] ||
				c.FirstRelevantHitRate != today["first_relevant_hit_rate"] || c.ExpectedTop1HitRate == nil || *c.ExpectedTop1HitRate != today["expected_top1_hit_rate"] {
				t.Errorf("the gate measured other scores than eval qrels: %s", out)
			}
			wantCode, wantVerdict := 0, "pass"
			var wantBreaches []string
			if tc.fail {
				wantCode, wantVerdict = 1, "fail"
				wantBreaches = []string{"expected_top1_hit_rate", "first_relevant_hit_rate", "recall_at_k"}
			}
			if code != wantCode || g.Verdict != wantVerdict || c.Pass != !tc.fail {
				t.Errorf("exit %d, verdict %s; want %d, %s\n%s", code, g.Verdict, wantCode, wantVerdict, out)
			}
			if got := breachMetrics(c.Breaches); strings.Join(got, ",") != strings.Join(wantBreaches, ",") {
				t.Errorf("breaches %v, want %v", got, wantBreaches)
			}
			checkBreaches(t, c.Breaches)
			for _, br := range c.Breaches {
				if br.Value != today[br.Metric] || br.Threshold != floor[br.Metric] || br.Rule != "min" {
					t.Errorf("breach %+v: want value %v, floor %v (from %s)", br, today[br.Metric], floor[br.Metric], flagOf[br.Metric])
				}
			}
			var misses []string
			for _, s := range partRep.PerQuery {
				if !s.FirstRelevantHit {
					misses = append(misses, s.QueryID)
				}
			}
			if strings.Join(c.Misses, ",") != strings.Join(misses, ",") {
				t.Errorf("misses %v, want %v", c.Misses, misses)
			}
		})
	}

	// Text output, and the default floors (recall 0.70, first-relevant
	// 0.60, expected-top1 0.50) decide the verdict when nothing is set.
	out, _, code := b.run("eval", "gate", "--qrels", qrels)
	defaults := map[string]float64{"recall_at_k": 0.70, "first_relevant_hit_rate": 0.60, "expected_top1_hit_rate": 0.50}
	wantPass := true
	for metric, floor := range defaults {
		wantPass = wantPass && today[metric] >= floor
	}
	wantCode, mark := 1, "FAIL"
	if wantPass {
		wantCode, mark = 0, "PASS"
	}
	if code != wantCode || !strings.Contains(out, fmt.Sprintf("Correctness gate (%s, %d queries, k=10): %s", qrels, len(part), mark)) ||
		!strings.Contains(lineWith(out, "recall@10"), "(floor 0.700)") || !strings.Contains(out, "Verdict: "+mark) {
		t.Errorf("eval gate --qrels (text): exit %d, want %d\n%s", code, wantCode, out)
	}
}

type qrelsReportJSON struct {
	SchemaVersion        int      `json:"schema_version"`
	K                    int      `json:"k"`
	Queries              int      `json:"queries"`
	PrecisionAtK         *float64 `json:"precision_at_k"`
	RecallAtK            *float64 `json:"recall_at_k"`
	MRR                  *float64 `json:"mrr"`
	NDCGAtK              *float64 `json:"ndcg_at_k"`
	FirstRelevantHitRate *float64 `json:"first_relevant_hit_rate"`
	ExpectedTop1HitRate  *float64 `json:"expected_top1_hit_rate"`
	PerQuery             []struct {
		QueryID          string   `json:"query_id"`
		Query            string   `json:"query"`
		Retrieved        []string `json:"retrieved"`
		PrecisionAtK     float64  `json:"precision_at_k"`
		RecallAtK        float64  `json:"recall_at_k"`
		ReciprocalRank   float64  `json:"reciprocal_rank"`
		NDCGAtK          float64  `json:"ndcg_at_k"`
		FirstRelevantHit bool     `json:"first_relevant_hit"`
	} `json:"per_query"`
}

// TestEvalLoopReadersRefuseBadLines: every reader of exports and baselines
// refuses another schema_version or a garbage line, naming file and line,
// before any database is opened.
func TestEvalLoopReadersRefuseBadLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := exportRow{ID: 1, Tool: "search", Query: "widget", Slugs: []string{"companies/widget-co"}, CreatedAt: "2025-01-01T00:00:00.000000Z"}
	good2 := exportRow{ID: 2, Tool: "query", Query: "alice", Slugs: []string{"people/alice"}, CreatedAt: "2025-01-02T00:00:00.000000Z"}
	v2 := rawLine(strings.Replace(exportRow{ID: 3, Tool: "search", Query: "v2", CreatedAt: "2025-01-03T00:00:00.000000Z"}.String(), `"schema_version":1`, `"schema_version":2`, 1))
	meta := func(version, rows int) rawLine {
		return rawLine(fmt.Sprintf(`{"schema_version":%d,"_kind":"baseline_metadata","label":"x","published_at":"2025-01-01T00:00:00.000000Z","source_hash":"sha256:00","thresholds":null,"row_count":%d,"baseline_mean_latency_ms":0}`, version, rows))
	}
	files := []struct {
		name    string
		content string
		line    int
		want    string
	}{
		{"export-v2-row.ndjson", ndjson(good, good2, v2), 3, "schema_version 2 is not supported"},
		{"export-garbage.ndjson", ndjson(good, rawLine("this is not json"), good2), 2, "not a JSON object"},
		{"export-truncated.ndjson", ndjson(good, rawLine(`{"schema_version":1,"tool_name":"search","query":"cut`)), 2, "not a JSON object"},
		{"export-no-version.ndjson", ndjson(rawLine(`{"tool_name":"search","query":"x"}`), good), 1, `missing "schema_version"`},
		{"baseline-v2-meta.ndjson", ndjson(meta(2, 2), good, good2), 1, "schema_version 2 is not supported"},
		{"baseline-v2-row.ndjson", ndjson(meta(1, 2), good, v2), 3, "schema_version 2 is not supported"},
		{"baseline-garbage.ndjson", ndjson(meta(1, 2), rawLine("{]"), good), 2, "not a JSON object"},
	}
	readers := []struct {
		name string
		args func(path string) []string
	}{
		{"eval replay --against", func(p string) []string { return []string{"eval", "replay", "--against", p} }},
		{"eval replay --against --json", func(p string) []string { return []string{"eval", "replay", "--against", p, "--json"} }},
		{"eval gate --baseline", func(p string) []string { return []string{"eval", "gate", "--baseline", p, "--json"} }},
		{"bench publish --from", func(p string) []string {
			return []string{"bench", "publish", "--from", p, "--to", filepath.Join(dir, "out-"+filepath.Base(p))}
		}},
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		writeFile(t, path, f.content)
		for _, r := range readers {
			t.Run(r.name+"/"+f.name, func(t *testing.T) {
				out, errOut, code := offline(t, r.args(path)...)
				loc := fmt.Sprintf("%s:%d: ", path, f.line)
				if code != 1 || !strings.Contains(errOut, loc) || !strings.Contains(errOut, f.want) || out != "" {
					t.Errorf("exit %d, stderr %q, stdout %q; want exit 1 and %q ... %q", code, errOut, out, loc, f.want)
				}
				if strings.Contains(errOut, "connecting") {
					t.Errorf("the file was refused only after opening the database: %q", errOut)
				}
			})
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "out-*")); len(left) != 0 {
		t.Errorf("bench publish wrote a baseline from a refused file: %v", left)
	}

	t.Run("a plain export is not a baseline", func(t *testing.T) {
		path := filepath.Join(dir, "plain.ndjson")
		writeFile(t, path, ndjson(good, good2))
		_, errOut, code := offline(t, "eval", "gate", "--baseline", path)
		if code != 1 || !strings.Contains(errOut, path+":1: not a baseline") || !strings.Contains(errOut, "bench publish") {
			t.Errorf("exit %d, %q", code, errOut)
		}
	})
	t.Run("a truncated baseline", func(t *testing.T) {
		path := filepath.Join(dir, "short.ndjson")
		writeFile(t, path, ndjson(meta(1, 3), good, good2))
		for _, args := range [][]string{{"eval", "gate", "--baseline", path}, {"eval", "replay", "--against", path}} {
			if _, errOut, code := offline(t, args...); code != 1 || !strings.Contains(errOut, path) || !strings.Contains(errOut, "3 rows") {
				t.Errorf("%v: exit %d, %q", args, code, errOut)
			}
		}
	})
	t.Run("qrels schema_version 2", func(t *testing.T) {
		path := filepath.Join(dir, "v2.qrels.json")
		writeFile(t, path, `{"schema_version":2,"queries":[{"query":"x","relevant_slugs":["a"]}]}`)
		for _, args := range [][]string{{"eval", "qrels", path}, {"eval", "gate", "--qrels", path}} {
			if _, errOut, code := offline(t, args...); code != 1 || !strings.Contains(errOut, path+":1: schema_version 2 is not supported") {
				t.Errorf("%v: exit %d, %q", args, code, errOut)
			}
		}
	})
}

// TestEvalReplayOutput: replay's text output, --limit, --top-regressions,
// --verbose, skipped and errored rows, and no progress off a terminal.
func TestEvalReplayOutput(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	day := func(d int) string { return fmt.Sprintf("2025-01-%02dT00:00:00.000000Z", d) }
	rows := []exportRow{
		// Pages that never existed: Jaccard 0.
		{ID: 1, Tool: "search", Query: "widget", Slugs: []string{"nope/a", "nope/b"}, LatencyMS: 1, CreatedAt: day(1)},
		{ID: 2, Tool: "search", Query: "", Slugs: []string{}, CreatedAt: day(9)},
		// Half right: Alice's page, plus one that never existed.
		{ID: 3, Tool: "search", Query: "alice", Slugs: []string{"people/alice", "nope/c"}, LatencyMS: 1, CreatedAt: day(3)},
		// Nothing then, nothing now: Jaccard 1.
		{ID: 4, Tool: "search", Query: "xyzzy plugh", Slugs: []string{}, LatencyMS: 1, CreatedAt: day(5)},
		{ID: 5, Tool: "search", Query: "   ", Slugs: []string{}, CreatedAt: day(5)},
		// NUL cannot be searched: errored.
		{ID: 6, Tool: "search", Query: "nul\x00one", CreatedAt: day(2)},
		{ID: 7, Tool: "search", Query: "nul\x00two", CreatedAt: day(6)},
		{ID: 8, Tool: "query", Query: "nul\x00three", CreatedAt: day(7)},
		{ID: 9, Tool: "search", Query: "nul\x00four", CreatedAt: day(4)},
		// Found nothing then, finds the mutex page now: Jaccard 0.
		{ID: 10, Tool: "search", Query: "mutex lock", Slugs: []string{}, LatencyMS: 1, CreatedAt: day(8)},
	}
	var ss []fmt.Stringer
	for _, r := range rows {
		ss = append(ss, r)
	}
	against := filepath.Join(t.TempDir(), "export.ndjson")
	writeFile(t, against, ndjson(ss...))
	replay := func(t *testing.T, args ...string) string {
		t.Helper()
		return b.must(append([]string{"eval", "replay", "--against", against}, args...)...)
	}
	// Most recent first: created_at, then id, descending.
	byRecency := append([]exportRow(nil), rows...)
	sort.SliceStable(byRecency, func(i, j int) bool {
		if byRecency[i].CreatedAt != byRecency[j].CreatedAt {
			return byRecency[i].CreatedAt > byRecency[j].CreatedAt
		}
		return byRecency[i].ID > byRecency[j].ID
	})
	full := decodeJSON[replayJSON](t, "eval replay --json --verbose", replay(t, "--json", "--verbose"))
	if len(full.Results) != len(rows) || full.Summary.RowsTotal != len(rows) {
		t.Fatalf("--verbose --json results: %d of %d rows", len(full.Results), len(rows))
	}
	var regressions []float64
	for i, r := range full.Results {
		want := byRecency[i]
		if r.ID != want.ID {
			t.Errorf("result %d is row %d, want %d (most recent first)", i, r.ID, want.ID)
		}
		switch {
		case strings.TrimSpace(want.Query) == "":
			if r.Status != "skipped" || r.Reason != "empty query" || r.Jaccard != nil {
				t.Errorf("row %d (empty query): %+v", r.ID, r)
			}
		case strings.Contains(want.Query, "\x00"):
			if r.Status != "errored" || !strings.Contains(r.ErrorMessage, "NUL") || r.Jaccard != nil {
				t.Errorf("row %d (NUL): %+v", r.ID, r)
			}
		default:
			if r.Status != "replayed" || r.Jaccard == nil || r.Top1Match == nil {
				t.Fatalf("row %d: %+v", r.ID, r)
			}
			if *r.Jaccard < 1 || !*r.Top1Match {
				regressions = append(regressions, *r.Jaccard)
			}
			// Replayed as deep as captured, or 10 deep when nothing was.
			if depth := len(want.Slugs); (depth > 0 && r.CurrentCount > depth) || r.CurrentCount > 10 || r.CapturedCount != depth {
				t.Errorf("row %d captured %d results and found %d now; reported captured %d", r.ID, depth, r.CurrentCount, r.CapturedCount)
			}
		}
	}
	if s := full.Summary; s.RowsReplayed != 4 || s.RowsSkipped != 2 || s.RowsErrored != 4 {
		t.Errorf("summary %+v; want 4 replayed, 2 skipped, 4 errored", s)
	}
	if j := *full.Results[len(full.Results)-1].Jaccard; j != 0 { // row 1, the oldest
		t.Errorf("row 1 captured only pages that never existed, but Jaccard is %v", j)
	}
	if len(regressions) != 3 {
		t.Fatalf("want 3 regressions (rows 1, 3, 10), got Jaccards %v", regressions)
	}
	sort.Float64s(regressions)

	t.Run("no progress when stderr is not a terminal", func(t *testing.T) {
		stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
		if err != nil {
			t.Fatal(err)
		}
		defer stderr.Close()
		var stdout bytes.Buffer
		code := run(context.Background(), []string{"pgbrain", "--database-url", b.url, "--home", b.home, "eval", "replay", "--against", against},
			strings.NewReader(""), &stdout, stderr)
		if code != 0 || !strings.HasPrefix(stdout.String(), fmt.Sprintf("Replayed 4 of %d captured queries (2 skipped, 4 errored)\n", len(rows))) {
			t.Fatalf("exit %d\n%s", code, stdout.String())
		}
		if got := readFile(t, stderr.Name()); got != "" {
			t.Errorf("stderr is a file, not a terminal, yet replay printed %q", got)
		}
	})

	t.Run("--limit keeps the most recent rows", func(t *testing.T) {
		// (the most recent row alone is skipped: nothing is compared, which
		// fails after the report)
		out, _, code := b.run("eval", "replay", "--against", against, "--limit", "1", "--json", "--verbose")
		if got := decodeJSON[replayJSON](t, "eval replay --limit 1 --json", out); code != 1 || got.Summary.RowsSkipped != 1 || got.Results[0].ID != byRecency[0].ID {
			t.Errorf("--limit 1: exit %d, %+v; want exit 1 with the skipped row reported", code, got.Summary)
		}
		for _, n := range []int{3, 6, len(rows), len(rows) + 5} {
			got := decodeJSON[replayJSON](t, "eval replay --json", replay(t, "--limit", strconv.Itoa(n), "--json", "--verbose"))
			want := min(n, len(rows))
			if got.Summary.RowsTotal != want || len(got.Results) != want {
				t.Fatalf("--limit %d: %d rows, want %d", n, got.Summary.RowsTotal, want)
			}
			for i, r := range got.Results {
				if r.ID != byRecency[i].ID {
					t.Errorf("--limit %d: result %d is row %d, want %d", n, i, r.ID, byRecency[i].ID)
				}
			}
			out := replay(t, "--limit", strconv.Itoa(n))
			if !strings.Contains(out, fmt.Sprintf(" of %d captured queries", want)) {
				t.Errorf("--limit %d:\n%s", n, out)
			}
		}
	})

	t.Run("--top-regressions", func(t *testing.T) {
		for _, n := range []int{0, 1, 2, 3, 5} {
			var out string
			if n == 5 {
				out = replay(t) // the default
			} else {
				out = replay(t, "--top-regressions", strconv.Itoa(n))
			}
			listed := linesWithPrefix(out, "  jaccard=")
			want := min(n, len(regressions))
			if len(listed) != want {
				t.Errorf("--top-regressions %d listed %d:\n%s", n, len(listed), out)
				continue
			}
			if n == 0 {
				if strings.Contains(strings.ToLower(out), "regression") {
					t.Errorf("--top-regressions 0 still mentions regressions:\n%s", out)
				}
				continue
			}
			if !strings.Contains(out, fmt.Sprintf("Top %d regression(s):\n", want)) {
				t.Errorf("--top-regressions %d: no heading\n%s", n, out)
			}
			for i, l := range listed { // lowest Jaccard first
				if w := fmt.Sprintf("  jaccard=%.2f ", regressions[i]); !strings.HasPrefix(l, w) {
					t.Errorf("--top-regressions %d: line %d is %q, want it to start %q", n, i, l, w)
				}
			}
		}
	})

	t.Run("--verbose", func(t *testing.T) {
		quiet, verbose := replay(t), replay(t, "--verbose")
		// Without --verbose: three errored rows and a count of the rest.
		if got := linesWithPrefix(quiet, "  line "); len(got) != 3 || !strings.Contains(quiet, "  ... and 1 more (use --verbose or --json --verbose)") {
			t.Errorf("errored rows without --verbose:\n%s", quiet)
		}
		if got := linesWithPrefix(verbose, "  line "); len(got) != 4 || strings.Contains(verbose, "... and") {
			t.Errorf("errored rows with --verbose:\n%s", verbose)
		}
		// With --verbose: a table of every row, by line number.
		table := verbose[strings.Index(verbose, "LINE "):]
		tl := lines(table)
		if len(tl) != len(rows)+1 || !strings.Contains(tl[0], "STATUS") || !strings.Contains(tl[0], "JACCARD") {
			t.Fatalf("verbose table:\n%s", table)
		}
		for i, l := range tl[1:] {
			want := byRecency[i]
			line := 0
			for j, r := range rows {
				if r.ID == want.ID {
					line = j + 1
				}
			}
			if f := strings.Fields(l); len(f) < 2 || f[0] != strconv.Itoa(line) || f[1] != full.Results[i].Status {
				t.Errorf("table row %d = %q, want line %d with status %s", i, l, line, full.Results[i].Status)
			}
		}
		if strings.Contains(quiet, "LINE ") {
			t.Errorf("table printed without --verbose:\n%s", quiet)
		}
		// --json without --verbose has no results.
		if out := replay(t, "--json"); strings.Contains(out, `"results"`) {
			t.Errorf("--json without --verbose printed results:\n%s", out)
		}
	})

	t.Run("empty queries are skipped with a reason", func(t *testing.T) {
		out := replay(t)
		if !strings.Contains(out, "Skipped 2 row(s): empty query\n") {
			t.Errorf("text output:\n%s", out)
		}
	})
}

// linesWithPrefix returns the lines of s that start with prefix.
func linesWithPrefix(s, prefix string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			out = append(out, sc.Text())
		}
	}
	return out
}

// A file with no rows, and a replay whose every row errored, compare
// nothing: exit 1, and no "No regressions" verdict.
func TestEvalReplayThatComparesNothingFails(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	empty := filepath.Join(t.TempDir(), "empty.ndjson")
	writeFile(t, empty, "\n\n")
	if _, errOut, code := pgbrain(t, b.url, "", "--home", b.home, "eval", "replay", "--against", empty); code != 1 || !strings.Contains(errOut, "holds no captured rows") {
		t.Errorf("replay of an empty file: exit %d, stderr %q", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.ndjson")
	writeFile(t, bad, ndjson(exportRow{ID: 1, Tool: "search", Query: "nul\x00one", CreatedAt: "2025-01-01T00:00:00.000000Z"}))
	out, errOut, code := pgbrain(t, b.url, "", "--home", b.home, "eval", "replay", "--against", bad)
	if code != 1 || strings.Contains(out, "No regressions") || !strings.Contains(out, "Nothing was replayed") || !strings.Contains(errOut, "nothing was compared") {
		t.Errorf("replay whose only row errors: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	skipped := filepath.Join(t.TempDir(), "skipped.ndjson")
	writeFile(t, skipped, ndjson(exportRow{ID: 1, Tool: "search", Query: "who is [REDACTED]", CreatedAt: "2025-01-01T00:00:00.000000Z"}))
	if _, errOut, code := pgbrain(t, b.url, "", "--home", b.home, "eval", "replay", "--against", skipped); code != 1 || !strings.Contains(errOut, "1 were skipped") {
		t.Errorf("replay whose only row is skipped: exit %d, stderr %q", code, errOut)
	}
}

// Judged pages the brain does not hold are named once on stderr, by qrels
// and gate alike; the scores are as before (they count as misses).
func TestEvalQrelsNamesJudgedPagesNotInTheBrain(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	path := filepath.Join(t.TempDir(), "q.json")
	writeFile(t, path, `{"schema_version":1,"queries":[{"query_id":"a","query":"alice","relevant_slugs":["people/alice"]},
		{"query_id":"b","query":"widgets","relevant_slugs":["Companies/Widget-Co","nope/missing"]}]}`)
	for _, args := range [][]string{{"eval", "qrels", path}, {"eval", "gate", "--qrels", path}} {
		_, errOut, _ := b.run(args...)
		if !strings.Contains(errOut, "2 of the 3 pages "+path+" judges relevant are not in this brain (first: default:Companies/Widget-Co)") {
			t.Errorf("%v: stderr %q, want the two missing pages counted and the first named", args, errOut)
		}
	}
	if _, errOut, _ := b.run("eval", "qrels", sampleQrelsFor(t, b)); strings.Contains(errOut, "not in this brain") {
		t.Errorf("qrels of pages the brain holds: stderr %q", errOut)
	}
}

// sampleQrelsFor is a qrels file judging one page the tiny brain holds.
func sampleQrelsFor(t *testing.T, b *cliBrain) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ok.json")
	writeFile(t, path, `{"schema_version":1,"queries":[{"query_id":"a","query":"alice","relevant_slugs":["people/alice"]}]}`)
	return path
}

// A window that cannot hold rows is a usage error (status 2), named as
// eval export's.
func TestEvalExportWindowMistakesAreUsageErrors(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	for _, args := range [][]string{
		{"--since", "2026-01-02T00:00:00Z", "--until", "2026-01-01T00:00:00Z"},
		{"--since", "2999-01-01T00:00:00Z"},
	} {
		_, errOut, code := b.run(append([]string{"eval", "export"}, args...)...)
		if code != 2 || !strings.Contains(errOut, "pgbrain: eval export: --") {
			t.Errorf("eval export %v: exit %d, stderr %q; want a usage error naming the flag", args, code, errOut)
		}
	}
}

// A file whose rows retrieved only pages this brain does not hold was
// captured from another brain: replay and gate say so.
func TestEvalReplayNamesAForeignFile(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	path := filepath.Join(t.TempDir(), "other.ndjson")
	writeFile(t, path, ndjson(exportRow{ID: 1, Tool: "search", Query: "widget", Slugs: []string{"elsewhere/a", "elsewhere/b"}, LatencyMS: 1, CreatedAt: "2025-01-01T00:00:00.000000Z"}))
	if _, errOut, _ := b.run("eval", "replay", "--against", path); !strings.Contains(errOut, "none of the 2 pages the rows of "+path+" retrieved is in this brain") {
		t.Errorf("replay of another brain's file: stderr %q", errOut)
	}
}
