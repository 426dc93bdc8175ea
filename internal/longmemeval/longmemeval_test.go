package longmemeval

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/markdown"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func TestParseBothForms(t *testing.T) {
	t.Parallel()
	arr, err := ReadFile("testdata/mini.json")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := ReadFile("testdata/mini.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(arr) != 4 || len(lines) != 4 {
		t.Fatalf("parsed %d and %d questions", len(arr), len(lines))
	}
	for i := range arr {
		a, l := arr[i], lines[i]
		if a.QuestionID != l.QuestionID || a.Answer != l.Answer || len(a.HaystackSessions) != len(l.HaystackSessions) {
			t.Errorf("question %d differs: %+v vs %+v", i, a, l)
		}
		if l.Line != i+1 {
			t.Errorf("JSONL question %d on line %d", i, l.Line)
		}
	}
	data := mustRead(t, "testdata/mini.json")
	q2Line := bytes.Count(data[:bytes.Index(data, []byte(`"q-002"`))], []byte{'\n'}) // the entry's "{" is one line above
	if arr[2].Answer != "2" || arr[1].Line != q2Line {
		t.Errorf("numeric answer %q; q-002 on line %d, want %d", arr[2].Answer, arr[1].Line, q2Line)
	}
}

func openDataset(t *testing.T, path string) *Dataset {
	t.Helper()
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, data, want string }{
		{"pairs", `{"question_id":"a","question":"q","haystack_session_ids":["x"],"haystack_sessions":[]}`, "d:1: question a: 1 haystack_session_ids but 0 haystack_sessions"},
		{"no id", "\n" + `{"question":"q"}`, "d:2: \"question_id\" is missing"},
		{"dup", `{"question_id":"a","question":"q"}` + "\n" + `{"question_id":"a","question":"r"}`, "d:2: question_id \"a\" already appears on line 1"},
		{"type", `[{"question_id":"a","question":"q","haystack_sessions":"x"}]`, "d:1: field \"haystack_sessions\" has the wrong type"},
		{"empty", "  ", "the dataset is empty"},
		{"trailing", `[{"question_id":"a","question":"q"}] x`, "unexpected content after the array"},
		{"dates", `{"question_id":"a","question":"q","haystack_session_ids":["x"],"haystack_sessions":[[]],"haystack_dates":["1","2"]}`, "2 haystack_dates but 1 haystack_sessions"},
		{"answer not in haystack", `{"question_id":"a","question":"q","answer_session_ids":["gone"],"haystack_session_ids":["x"],"haystack_sessions":[[]]}`, "none of its answer_session_ids (gone) is in its haystack_session_ids"},
	}
	for _, c := range cases {
		_, err := Parse("d", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestSessionSlug(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"answer_dog_1", "sharegpt_AbC_0", "sharegpt_abc_0", "_x", "a b/c", "ÜBER"} {
		s := SessionSlug(id)
		if !markdown.ValidSlug(s) {
			t.Errorf("SessionSlug(%q) = %q is not a valid slug", id, s)
		}
	}
	if SessionSlug("answer_dog_1") != "sessions/answer_dog_1" {
		t.Errorf("a clean id must map to itself: %s", SessionSlug("answer_dog_1"))
	}
	if SessionSlug("sharegpt_AbC_0") == SessionSlug("sharegpt_abc_0") {
		t.Error("ids differing in case collide")
	}
}

func decodeLines(t *testing.T, out string) ([]Row, []Summary) {
	t.Helper()
	var rows []Row
	var sums []Summary
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(l, `"kind":"by_type_summary"`) {
			var s Summary
			if err := json.Unmarshal([]byte(l), &s); err != nil {
				t.Fatal(err)
			}
			sums = append(sums, s)
			continue
		}
		var r Row
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		rows = append(rows, r)
	}
	return rows, sums
}

func TestRunOnSyntheticDataset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := cloneScratch(t, true, "")
	qs := openDataset(t, "testdata/mini.jsonl")
	var out bytes.Buffer
	// First run: two questions answered by a chat model, then resume from
	// its output.
	chat := newChatServer(t, 0, "")
	if _, err := Run(ctx, st, qs, nil, &out, Options{Limit: 2, TopK: 1, ByType: true, Model: chat.model(t)}); err != nil {
		t.Fatal(err)
	}
	rows, sums := decodeLines(t, out.String())
	if len(rows) != 2 || len(sums) != 1 {
		t.Fatalf("first run wrote %d rows and %d summaries", len(rows), len(sums))
	}
	dog := rows[0]
	if dog.QuestionID != "q-001" || len(dog.RetrievedSessionIDs) != 1 || dog.RetrievedSessionIDs[0] != "answer_dog_1" || !*dog.RecallAny || !*dog.RecallAll {
		t.Errorf("dog row = %+v", dog)
	}
	// The hypothesis is the model's reply, to a prompt holding the
	// retrieved session. The two questions are asked at once, so their
	// requests may arrive in either order.
	prompts := chat.userPrompts()
	i := slices.IndexFunc(prompts, func(p string) bool { return strings.Contains(p, "Question: What breed is my dog Biscuit?") })
	if len(prompts) != 2 || dog.Hypothesis != "about: What breed is my dog Biscuit?" || i < 0 || !strings.Contains(prompts[i], "Biscuit is a beagle") {
		t.Errorf("hypothesis %q from prompts %q", dog.Hypothesis, prompts)
	}
	// Top-1 can hold only one of the two answer sessions.
	trip := rows[1]
	if !*trip.RecallAny || *trip.RecallAll {
		t.Errorf("trip row = %+v, want recall_any true and recall_all false", trip)
	}

	prior, err := ParseResults("prev", strings.NewReader(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	var more bytes.Buffer
	sum, err := Run(ctx, st, qs, prior, &more, Options{TopK: 1, ByType: true, RetrievalOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	rows2, sums2 := decodeLines(t, more.String())
	if len(rows2) != 2 || rows2[0].QuestionID != "q-003_abs" || rows2[1].QuestionID != "q-004" || len(sums2) != 1 {
		t.Fatalf("resumed run wrote %+v / %d summaries", rows2, len(sums2))
	}
	if rows2[0].RecallAny != nil || rows2[1].Hypothesis != "" {
		t.Errorf("abstention recall must be null and --retrieval-only must leave the hypothesis empty: %+v", rows2)
	}
	// The summary covers all answered questions (the abstention one is left
	// out); recall_all counts beside recall_any, and the trip question
	// found only one of its two sessions.
	want := map[string]TypeRecall{
		"single-session-user": {1, 1, 1, 1, 1},
		trip.QuestionType:     {1, 1, 1, 0, 0},
		"temporal-reasoning":  {1, 1, 1, 1, 1},
	}
	if sum.Aggregate != (TypeRecall{3, 3, 1, 2, 2.0 / 3}) || len(sum.RecallByType) != 3 || sum.AccuracyByType != nil {
		t.Errorf("summary = %+v", sum)
	}
	for k, v := range want {
		if sum.RecallByType[k] != v {
			t.Errorf("%s = %+v, want %+v", k, sum.RecallByType[k], v)
		}
	}
	if low := sum.BelowFloor(1.01); len(low) != 3 {
		t.Errorf("BelowFloor(1.01) = %v", low)
	}
}

func TestHybridRun(t *testing.T) {
	t.Parallel()
	st := cloneScratch(t, false, "")
	qs := openDataset(t, "testdata/mini.json")
	var out bytes.Buffer
	sum, err := Run(context.Background(), st, qs, nil, &out, Options{TopK: 2, RetrievalOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	rows, sums := decodeLines(t, out.String())
	if len(rows) != 4 || len(sums) != 0 {
		t.Fatalf("%d rows, %d summaries (no --by-type)", len(rows), len(sums))
	}
	if sum.RecallByType["single-session-user"].Hit != 1 {
		t.Errorf("hybrid search missed the dog session: %+v", rows[0])
	}
}

func TestParseResultsRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct{ data, want string }{
		{`{"schema_version":2,"question_id":"a"}`, "r:1: schema_version 2 is not supported"},
		{`{"question_id":"a"}`, "schema_version missing"},
		{`{"schema_version":1,"question_id":"a"}` + "\n" + `{"schema_version":1,"question_id":"a"}`, "r:2: question \"a\" was already recorded on line 1"},
		{`{"schema_version":1,"question_id":"a"`, "r:1: not a result line"},
	}
	for _, c := range cases {
		if _, err := ParseResults("r", strings.NewReader(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.data, err, c.want)
		}
	}
	rows, err := ParseResults("r", strings.NewReader(`{"schema_version":1,"question_id":"a"}`+"\n"+`{"schema_version":1,"kind":"by_type_summary","recall_by_type":{}}`+"\n"))
	if err != nil || len(rows) != 1 {
		t.Errorf("summary lines must be dropped: %v %v", rows, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(mustReadF(f, "testdata/mini.json"))
	f.Add(mustReadF(f, "testdata/mini.jsonl"))
	f.Add(mustReadF(f, sampleDataset))
	f.Fuzz(func(t *testing.T, data []byte) {
		var qs []Question
		d, err := scan("fuzz", bytes.NewReader(data), int64(len(data)), func(q Question) { qs = append(qs, q) }, MaxQuestionBytes)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// The size bound is exact: the largest entry passes at its own
		// size and is refused one byte below it.
		largest := 0
		for _, e := range d.entries {
			largest = max(largest, e.size)
		}
		if _, err := scan("fuzz", bytes.NewReader(data), int64(len(data)), nil, largest); err != nil {
			t.Fatalf("refused at the largest entry's size %d: %v", largest, err)
		}
		if _, err := scan("fuzz", bytes.NewReader(data), int64(len(data)), nil, largest-1); err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Fatalf("accepted an entry of %d bytes under a bound of %d: %v", largest, largest-1, err)
		}
		lines := bytes.Count(data, []byte{'\n'}) + 1
		for i, q := range qs {
			if q.QuestionID == "" || q.Question == "" || len(q.HaystackSessionIDs) != len(q.HaystackSessions) || q.Line < 1 || q.Line > lines {
				t.Fatalf("accepted an invalid question: %+v", q)
			}
			// Every entry the scan accepted reads back from where it said.
			again, err := d.Question(i)
			if err != nil || !reflect.DeepEqual(again, q) {
				t.Fatalf("entry %d reads back as %+v (%v), was %+v", i, again, err, q)
			}
		}
	})
}

func mustReadF(f *testing.F, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// A session id is stored with its page but never indexed, so an id such as
// LongMemEval's "answer_..." cannot be matched by a question; awkward ids and
// dates still survive the frontmatter intact.
func TestSessionMarkdownKeepsIDsOutOfTheIndex(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"answer_4be1b6b4_2", `odd "id": with\nnewline`, "ünïcode-id", ""} {
		md := SessionMarkdown(id, "2023/05/20 (Sat) 02:21", []Turn{{Role: "user", Content: "I adopted a dog."}})
		p, err := markdown.Parse("sessions/x", md)
		if err != nil {
			t.Fatalf("id %q: %v\n%s", id, err, md)
		}
		if got := p.Frontmatter["session_id"]; got != id {
			t.Errorf("id %q: frontmatter session_id = %#v", id, got)
		}
		if p.Title != "Session 2023/05/20 (Sat) 02:21" {
			t.Errorf("id %q: title = %q", id, p.Title)
		}
		for _, c := range markdown.ChunkPage(p, markdown.ChunkOptions{}) {
			if id != "" && strings.Contains(c.Text, id) {
				t.Errorf("id %q appears in an indexed chunk: %q", id, c.Text)
			}
		}
	}
}

// Chat text is quoted into the session's compiled truth whatever it holds:
// a plan with a "## Timeline" heading does not start the page's timeline,
// and a NUL character, which PostgreSQL cannot store, does not fail the
// import of the whole haystack.
func TestSessionMarkdownQuotesAnyTurn(t *testing.T) {
	t.Parallel()
	turns := []Turn{
		{Role: "assistant", Content: "Here is your plan.\n\n## Timeline\n- Week 1: design\n- Week 2: build"},
		{Role: "user", Content: "Thanks\x00 great"},
	}
	md := SessionMarkdown("plan", "2023/05/20 (Sat) 02:21", turns)
	p, err := markdown.Parse("sessions/plan", md)
	if err != nil {
		t.Fatalf("%v\n%s", err, md)
	}
	if p.Timeline != "" || !strings.Contains(p.Compiled, "Week 2: build") || !strings.Contains(p.Compiled, "Thanks\uFFFD great") {
		t.Errorf("compiled %q, timeline %q", p.Compiled, p.Timeline)
	}
	st := cloneScratch(t, true, "")
	if err := st.Import(context.Background(), st.Prepare([]ingest.Doc{{Slug: SessionSlug("plan"), Data: md}})); err != nil {
		t.Fatal(err)
	}
	var sources []string
	if err := st.B.Pool.QueryRow(context.Background(), `SELECT array_agg(DISTINCT chunk_source) FROM brain.chunks`).Scan(&sources); err != nil {
		t.Fatal(err)
	}
	if len(sources) != 1 || sources[0] != "compiled_truth" {
		t.Errorf("chunk sources %v, want compiled_truth only", sources)
	}
}

// FuzzParseResults: any input either fails naming the file, or yields rows
// with distinct question ids that survive a write and a second read.
func FuzzParseResults(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"question_id":"q-001","question_type":"multi-session","retrieved_session_ids":["a"],"recall_any":true,"recall_all":false}` + "\n" +
		`{"schema_version":1,"kind":"by_type_summary","recall_by_type":{},"aggregate":{"hit":1,"total":1,"rate":1}}` + "\n"))
	f.Add([]byte(`{"schema_version":2,"question_id":"a"}`))
	f.Add([]byte("{\"schema_version\":1,\"question_id\":\"a\"}\n\n{\"schema_version\":1,\"question_id\":\"a\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParseResults("fuzz", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error does not name the file and line: %v", err)
			}
			return
		}
		var again bytes.Buffer
		seen := map[string]bool{}
		for _, r := range rows {
			if r.QuestionID == "" || seen[r.QuestionID] {
				t.Fatalf("row %+v: empty or repeated question_id", r)
			}
			seen[r.QuestionID] = true
			r.SchemaVersion = 1
			if err := WriteRow(&again, r); err != nil {
				t.Fatal(err)
			}
		}
		back, err := ParseResults("again", &again)
		if err != nil || len(back) != len(rows) {
			t.Fatalf("rewritten rows do not read back: %d rows, %v", len(back), err)
		}
	})
}

// An abstention question (_abs) counts in no recall even when it names
// answer sessions, as in the benchmark's own scoring; the same question
// without the suffix does.
func TestAbstentionQuestionsHaveNoRecall(t *testing.T) {
	t.Parallel()
	data := `[
{"question_id":"q_abs","question_type":"single-session-user","question":"What is my cat called?","answer":"never said",
 "haystack_session_ids":["s1"],"haystack_sessions":[[{"role":"user","content":"My dog is called Biscuit."}]],"answer_session_ids":["s1"]},
{"question_id":"q","question_type":"single-session-user","question":"What is my dog called?","answer":"Biscuit",
 "haystack_session_ids":["s1"],"haystack_sessions":[[{"role":"user","content":"My dog is called Biscuit."}]],"answer_session_ids":["s1"]}]`
	qs, err := Parse("abs.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	st := cloneScratch(t, true, "")
	var out bytes.Buffer
	sum, err := Run(context.Background(), st, QuestionList(qs), nil, &out, Options{TopK: 5, RetrievalOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := decodeLines(t, out.String())
	if len(rows) != 2 || rows[0].RecallAny != nil || rows[0].RecallAll != nil || rows[1].RecallAny == nil || !*rows[1].RecallAny {
		t.Fatalf("rows = %+v", rows)
	}
	if sum.Aggregate.Total != 1 {
		t.Errorf("summary counts %d questions, want only the non-abstention one", sum.Aggregate.Total)
	}
}
