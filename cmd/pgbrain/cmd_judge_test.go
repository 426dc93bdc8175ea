package main

// eval longmemeval --judge on the sample set with a scripted answer model
// and a scripted judge: the accuracy per type must be what the scripted
// verdicts give, and the judge must have been sent each type's rule.

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pgbrain/pgbrain/testdb"
)

const sampleLongMemEval = "../../sample/longmemeval.json"

// scriptedJudge decides a verdict from the grading rule, reference and
// response of a judge prompt, the way a careful grader would. A response
// with "maybe" gets a reply that is no verdict.
func scriptedJudge(prompt string) string {
	field := func(tag string) string {
		i, j := strings.Index(prompt, "<"+tag+">\n"), strings.Index(prompt, "\n</"+tag+">")
		if i < 0 || j < i {
			return ""
		}
		return prompt[i+len(tag)+3 : j]
	}
	ref, resp := strings.ToLower(field("reference")), strings.ToLower(field("response"))
	ref = ref[strings.Index(ref, ": ")+2:]
	yes := func(b bool) string {
		if b {
			return "Yes."
		}
		return "no"
	}
	switch {
	case strings.Contains(prompt, "cannot be answered"):
		return yes(strings.Contains(resp, "never") || strings.Contains(resp, "don't know"))
	case strings.Contains(prompt, "off-by-one"):
		num := regexp.MustCompile(`\d+`)
		if r, h := num.FindString(ref), num.FindString(resp); r != "" && h != "" {
			a, _ := strconv.Atoi(r)
			b, _ := strconv.Atoi(h)
			return yes(math.Abs(float64(a-b)) <= 1)
		}
		return yes(strings.Contains(resp, ref))
	case strings.Contains(prompt, "rubric"):
		return yes((strings.Contains(ref, "rome") && strings.Contains(resp, "rome")) || (strings.Contains(ref, "thai") && strings.Contains(resp, "thai")))
	case strings.Contains(prompt, "latest value"):
		return yes(strings.Contains(resp, ref))
	default:
		if strings.Contains(resp, "maybe") {
			return "It is hard to say."
		}
		return yes(strings.Contains(resp, ref) || strings.Contains(ref, resp))
	}
}

func TestEvalLongMemEvalJudge(t *testing.T) {
	url := testdb.New(t)
	// The answering model's hypothesis per question, and whether a grader
	// following LongMemEval's rules accepts it (nil: the judge gives no
	// verdict).
	yes, no := true, false
	script := map[string]struct {
		answer  string
		correct *bool
	}{
		"ssu-01":     {"A corgi.", &yes},
		"ssu-02":     {"About an hour.", &no},
		"ssu-03_abs": {"You never mentioned a cat.", &yes},
		"ssa-01":     {"The Rubicon Trail", &yes},
		"ssa-02":     {"Just plain water.", &no},
		"ssp-01":     {"Try a long-form podcast on ancient Rome.", &yes},
		"ssp-02":     {"Try a true crime podcast.", &no},
		"ms-01":      {"Chicago and Denver", &yes},
		"ms-02":      {"maybe 165 dollars (45 + 120)", nil},
		"tr-01":      {"18 days", &yes}, // off by one: accepted
		"tr-02":      {"The Spanish lessons", &no},
		"ku-01":      {"You moved from Fabrikam; now Contoso Health.", &yes},
		"ku-02":      {"25:58", &yes},
		"ku-03_abs":  {"Your marathon best is 3:45:00.", &no},
	}
	var dataset []struct {
		ID       string `json:"question_id"`
		Type     string `json:"question_type"`
		Question string `json:"question"`
	}
	data, err := os.ReadFile(sampleLongMemEval)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &dataset); err != nil {
		t.Fatal(err)
	}
	byQuestion := map[string]string{}
	typeOf := map[string]string{}
	for _, q := range dataset {
		byQuestion[q.Question] = q.ID
		typeOf[q.ID] = q.Type
	}
	if len(script) != len(dataset) {
		t.Fatalf("the script covers %d questions, the sample has %d", len(script), len(dataset))
	}
	var mu sync.Mutex
	models := map[string]int{}
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct{ Role, Content string }
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		models[req.Model]++
		mu.Unlock()
		user := req.Messages[1].Content
		var content string
		switch req.Model {
		case "answerer":
			q := user[strings.LastIndex(user, "Question: ")+len("Question: "):]
			content = script[byQuestion[strings.TrimSpace(q)]].answer
		case "grader":
			content = scriptedJudge(user)
		default:
			http.Error(w, "unknown model "+req.Model, http.StatusNotFound)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 10},
		})
	}))
	defer chat.Close()
	setChat(t, chat.URL, "from-the-environment")
	t.Setenv(envJudgeModel, "also-from-the-environment")

	out := filepath.Join(t.TempDir(), "run.jsonl")
	_, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", sampleLongMemEval, "--judge", "--by-type",
		"--model", "answerer", "--judge-model", "grader", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if models["answerer"] != len(dataset) || models["grader"] != len(dataset) || len(models) != 2 {
		t.Fatalf("model calls %v: the flags must override the environment", models)
	}
	data, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.Split(strings.TrimSpace(string(data)), "\n")
	type acc struct {
		Correct  int     `json:"correct"`
		Judged   int     `json:"judged"`
		Rate     float64 `json:"rate"`
		Unjudged int     `json:"unjudged"`
	}
	var summary struct {
		Kind           string         `json:"kind"`
		AccuracyByType map[string]acc `json:"accuracy_by_type"`
		Accuracy       acc            `json:"accuracy"`
		RecallByType   map[string]struct {
			Hit     int     `json:"hit"`
			AllHit  int     `json:"all_hit"`
			Total   int     `json:"total"`
			AllRate float64 `json:"all_rate"`
		} `json:"recall_by_type"`
		Usage struct {
			Calls        int     `json:"calls"`
			PromptTokens int     `json:"prompt_tokens"`
			USD          float64 `json:"usd"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(ls[len(ls)-1]), &summary); err != nil || summary.Kind != "by_type_summary" {
		t.Fatalf("summary line %q: %v", ls[len(ls)-1], err)
	}
	want := map[string]acc{}
	var wantAll acc
	for _, l := range ls[:len(ls)-1] {
		var row struct {
			QuestionID    string `json:"question_id"`
			JudgedCorrect *bool  `json:"judged_correct"`
			JudgeReply    string `json:"judge_reply"`
		}
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		s := script[row.QuestionID]
		a := want[typeOf[row.QuestionID]]
		switch {
		case s.correct == nil:
			if row.JudgedCorrect != nil || row.JudgeReply == "" {
				t.Errorf("%s: judged %v with reply %q, want no verdict and the reply kept", row.QuestionID, row.JudgedCorrect, row.JudgeReply)
			}
			a.Unjudged++
			wantAll.Unjudged++
		default:
			if row.JudgedCorrect == nil || *row.JudgedCorrect != *s.correct {
				t.Errorf("%s: judged_correct %v, want %v", row.QuestionID, row.JudgedCorrect, *s.correct)
			}
			a.Judged++
			wantAll.Judged++
			if *s.correct {
				a.Correct++
				wantAll.Correct++
			}
		}
		want[typeOf[row.QuestionID]] = a
	}
	for k, a := range want {
		if a.Judged > 0 {
			a.Rate = float64(a.Correct) / float64(a.Judged)
		}
		want[k] = a
	}
	wantAll.Rate = float64(wantAll.Correct) / float64(wantAll.Judged)
	if len(summary.AccuracyByType) != 6 {
		t.Fatalf("accuracy_by_type has %d types: %v", len(summary.AccuracyByType), summary.AccuracyByType)
	}
	for k, w := range want {
		if g := summary.AccuracyByType[k]; g != w {
			t.Errorf("accuracy of %s = %+v, want %+v", k, g, w)
		}
	}
	if summary.Accuracy != wantAll {
		t.Errorf("accuracy = %+v, want %+v", summary.Accuracy, wantAll)
	}
	// Hand-checked against the script: 8 of the 13 judged answers are
	// right (ms-02's reply is no verdict).
	if wantAll.Correct != 8 || wantAll.Judged != 13 || wantAll.Unjudged != 1 {
		t.Errorf("the script gives %+v, the test expects 8 of 13 and 1 unjudged", wantAll)
	}
	for k, r := range summary.RecallByType {
		if r.AllHit > r.Hit || r.AllRate != float64(r.AllHit)/float64(r.Total) {
			t.Errorf("recall of %s: %+v", k, r)
		}
	}
	if summary.Usage.Calls != 2*len(dataset) || summary.Usage.PromptTokens != 200*len(dataset) {
		t.Errorf("usage = %+v", summary.Usage)
	}
	if !strings.Contains(errOut, "model usage: 28 call(s), 2800 prompt + 280 completion tokens") || !strings.Contains(errOut, "no price for answerer, grader") {
		t.Errorf("stderr lacks the usage line: %s", errOut)
	}

	// Usage errors before any work.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--judge", "--retrieval-only"}, "--judge grades hypotheses"},
		{[]string{"--expansion", "--keyword-only"}, "drop --keyword-only"},
		{[]string{"--expansion", "--variants", "0"}, "--variants 0 is out of range"},
	} {
		_, errOut, code := pgbrain(t, url, "", append([]string{"eval", "longmemeval", sampleLongMemEval}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
		}
	}
}
