package longmemeval

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/markdown"
)

// Row is one output line: a question's retrieval and hypothesis.
type Row struct {
	SchemaVersion       int      `json:"schema_version"`
	QuestionID          string   `json:"question_id"`
	QuestionType        string   `json:"question_type"`
	Question            string   `json:"question"`
	Hypothesis          string   `json:"hypothesis"`
	RetrievedSessionIDs []string `json:"retrieved_session_ids"`
	// RecallAny and RecallAll are null for abstention questions and
	// questions without answer sessions; they are left out of recall.
	RecallAny *bool `json:"recall_any"`
	RecallAll *bool `json:"recall_all"`
	// JudgedCorrect is the judge model's verdict (--judge); absent when
	// not judged, or when the judge's reply was no verdict (then in
	// JudgeReply).
	JudgedCorrect *bool  `json:"judged_correct,omitempty"`
	JudgeReply    string `json:"judge_reply,omitempty"`
}

// TypeRecall counts questions whose answer was found: Hit and Rate by
// recall_any (some evidence session retrieved), AllHit and AllRate by
// recall_all (every evidence session retrieved).
type TypeRecall struct {
	Hit     int     `json:"hit"`
	Total   int     `json:"total"`
	Rate    float64 `json:"rate"`
	AllHit  int     `json:"all_hit"`
	AllRate float64 `json:"all_rate"`
}

// TypeAccuracy counts judged answers: Correct of Judged, and the questions
// whose judge reply was no verdict (Unjudged, left out of Rate).
type TypeAccuracy struct {
	Correct  int     `json:"correct"`
	Judged   int     `json:"judged"`
	Rate     float64 `json:"rate"`
	Unjudged int     `json:"unjudged"`
}

// Summary is the final by-type line. The accuracy members appear when any
// row was judged; Usage when a model was used.
type Summary struct {
	SchemaVersion     int                     `json:"schema_version"`
	Kind              string                  `json:"kind"`
	RecallByType      map[string]TypeRecall   `json:"recall_by_type"`
	Aggregate         TypeRecall              `json:"aggregate"`
	AccuracyByType    map[string]TypeAccuracy `json:"accuracy_by_type,omitempty"`
	AccuracyAggregate *TypeAccuracy           `json:"accuracy,omitempty"`
	Usage             any                     `json:"usage,omitempty"`
}

// SummaryKind marks the summary line.
const SummaryKind = "by_type_summary"

// Options control a run.
type Options struct {
	Limit int // questions to run this time; 0: all
	TopK  int // retrieval depth; default 10
	// RetrievalOnly leaves the hypothesis empty; otherwise Model answers
	// each question from its retrieved sessions.
	RetrievalOnly bool
	Model         Model
	// Judge, when set, grades each hypothesis with LongMemEval's per-type
	// rules (JudgeRule) into Row.JudgedCorrect.
	Judge Model
	// ContextChars bounds the retrieved history shown to Model; default
	// DefaultContextChars.
	ContextChars int
	// AnswerWorkers is how many questions may wait for Model at once;
	// default DefaultAnswerWorkers.
	AnswerWorkers int
	ByType        bool
	// Usage, when set, gives the model usage the summary line carries
	// (nil: none).
	Usage    func() any
	Progress func(done, total int)
	// Timing, when set, is told where each question's time went.
	Timing func(Timing)
}

// Summarize computes recall by question type over rows.
func Summarize(rows []Row) Summary {
	s := Summary{SchemaVersion: 1, Kind: SummaryKind, RecallByType: map[string]TypeRecall{}}
	acc := map[string]TypeAccuracy{}
	var all TypeAccuracy
	for _, r := range rows {
		if r.JudgedCorrect != nil || r.JudgeReply != "" {
			a := acc[r.QuestionType]
			switch {
			case r.JudgedCorrect == nil:
				a.Unjudged++
				all.Unjudged++
			default:
				a.Judged++
				all.Judged++
				if *r.JudgedCorrect {
					a.Correct++
					all.Correct++
				}
			}
			acc[r.QuestionType] = a
		}
		if r.RecallAny == nil {
			continue
		}
		t := s.RecallByType[r.QuestionType]
		t.Total++
		s.Aggregate.Total++
		if *r.RecallAny {
			t.Hit++
			s.Aggregate.Hit++
		}
		if r.RecallAll != nil && *r.RecallAll {
			t.AllHit++
			s.Aggregate.AllHit++
		}
		s.RecallByType[r.QuestionType] = t
	}
	for k, t := range s.RecallByType {
		t.Rate = float64(t.Hit) / float64(t.Total)
		t.AllRate = float64(t.AllHit) / float64(t.Total)
		s.RecallByType[k] = t
	}
	if s.Aggregate.Total > 0 {
		s.Aggregate.Rate = float64(s.Aggregate.Hit) / float64(s.Aggregate.Total)
		s.Aggregate.AllRate = float64(s.Aggregate.AllHit) / float64(s.Aggregate.Total)
	}
	if len(acc) > 0 {
		for k, a := range acc {
			if a.Judged > 0 {
				a.Rate = float64(a.Correct) / float64(a.Judged)
			}
			acc[k] = a
		}
		if all.Judged > 0 {
			all.Rate = float64(all.Correct) / float64(all.Judged)
		}
		s.AccuracyByType, s.AccuracyAggregate = acc, &all
	}
	return s
}

// BelowFloor lists the question types whose recall_any rate is under floor,
// sorted.
func (s Summary) BelowFloor(floor float64) []string {
	var out []string
	for k, t := range s.RecallByType {
		if t.Rate < floor {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// ReadResults reads a previous run's output: its question rows, without any
// summary line (a resumed run writes one fresh summary at the end).
func ReadResults(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening the file to resume from: %w", err)
	}
	defer f.Close()
	return ParseResults(path, f)
}

// ParseResults parses output lines read from name.
func ParseResults(name string, r io.Reader) ([]Row, error) {
	br := bufio.NewReader(r)
	var rows []Row
	seen := map[string]int{}
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			var probe struct {
				SchemaVersion *json.Number `json:"schema_version"`
				Kind          string       `json:"kind"`
			}
			if jerr := json.Unmarshal(t, &probe); jerr != nil {
				return nil, fmt.Errorf("%s:%d: not a result line (%v): delete the line (e.g. one cut short by an interrupted run) and resume again", name, line, jerr)
			}
			if probe.SchemaVersion == nil || probe.SchemaVersion.String() != "1" {
				v := "missing"
				if probe.SchemaVersion != nil {
					v = probe.SchemaVersion.String()
				}
				return nil, fmt.Errorf("%s:%d: schema_version %s is not supported (this pgbrain reads version 1): resume only from files written by 'pgbrain eval longmemeval'", name, line, v)
			}
			if probe.Kind != SummaryKind {
				var row Row
				if jerr := json.Unmarshal(t, &row); jerr != nil || row.QuestionID == "" {
					return nil, fmt.Errorf("%s:%d: not a question result (needs question_id): delete the line and resume again", name, line)
				}
				if prev, dup := seen[row.QuestionID]; dup {
					return nil, fmt.Errorf("%s:%d: question %q was already recorded on line %d: delete one of them", name, line, row.QuestionID, prev)
				}
				seen[row.QuestionID] = line
				rows = append(rows, row)
			}
		}
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
	}
}

// WriteRow writes one JSON line.
func WriteRow(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// SessionSlug is the page slug of a session: "sessions/" and the id
// lower-cased with other characters than a-z, 0-9, '.', '_' and '-' replaced
// by '-'; when that changes the id, a short hash of the original keeps
// distinct ids distinct.
func SessionSlug(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
		default:
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) > 400 {
		s = s[:400]
	}
	if s != id || s == "" || !isAlnum(s[0]) {
		sum := sha256.Sum256([]byte(id))
		s = "s" + s + "-" + hex.EncodeToString(sum[:4])
	}
	return "sessions/" + s
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// SessionMarkdown renders a session as a page. The session id goes into the
// frontmatter, which is stored but not indexed: benchmark ids can carry
// words (LongMemEval names evidence sessions "answer_...") that a search
// must not be able to match. The title is "Session" and the date. A turn
// is quoted as written, except that a line reading as a "Timeline" heading
// is escaped (chat often holds plans with one), so the whole session stays
// in the page's compiled truth, and NUL characters, which PostgreSQL cannot
// store, become U+FFFD.
func SessionMarkdown(id, date string, turns []Turn) []byte {
	var b strings.Builder
	b.WriteString("---\nsession_id: ")
	b.WriteString(yamlString(id))
	if date != "" {
		b.WriteString("\ndate: ")
		b.WriteString(yamlString(date))
	}
	b.WriteString("\n---\n# Session")
	if date != "" {
		b.WriteString(" " + date)
	}
	b.WriteString("\n\n")
	for _, t := range turns {
		b.WriteString("**" + t.Role + ":** ")
		b.WriteString(markdown.EscapeTimelineHeadings(strings.ReplaceAll(strings.TrimSpace(t.Content), "\x00", "\uFFFD")))
		b.WriteString("\n\n")
	}
	return []byte(b.String())
}

// yamlString quotes s as a JSON string, which YAML reads back unchanged
// whatever s holds.
func yamlString(s string) string {
	q, _ := json.Marshal(s) // a string always marshals
	return string(q)
}

// DefaultAnswerWorkers is how many questions wait for the chat model at once.
const DefaultAnswerWorkers = 4

// Run answers each question not already in prior and writes its row to w
// as soon as it and every earlier question are done, so an interrupted run
// leaves a prefix of the questions and can be resumed. Retrieval runs one
// question at a time (the store holds one haystack); the chat model answers
// up to Options.AnswerWorkers questions at once, since a model's reply takes
// far longer than a retrieval. With ByType, one summary line over prior and
// new rows ends the output. The returned summary always covers every row
// written.
func Run(ctx context.Context, st Store, qs Questions, prior []Row, w io.Writer, o Options) (Summary, error) {
	if o.TopK <= 0 {
		o.TopK = 10
	}
	if o.AnswerWorkers <= 0 {
		o.AnswerWorkers = DefaultAnswerWorkers
	}
	if !o.RetrievalOnly && o.Model == nil {
		return Summarize(prior), errors.New("answering the questions needs a chat model (Options.Model); set RetrievalOnly for recall alone")
	}
	if o.RetrievalOnly && o.Judge != nil {
		return Summarize(prior), errors.New("judging needs hypotheses: a retrieval-only run writes none")
	}
	done := make(map[string]bool, len(prior))
	for _, r := range prior {
		done[r.QuestionID] = true
	}
	var todo []int // indexes into qs
	for i := 0; i < qs.Len(); i++ {
		if !done[qs.ID(i)] {
			todo = append(todo, i)
		}
	}
	if o.Limit > 0 && len(todo) > o.Limit {
		todo = todo[:o.Limit]
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	all := append([]Row(nil), prior...)
	type result struct {
		row Row
		err error
	}
	var queue []chan result // one per question not yet written, in order
	sem := make(chan struct{}, o.AnswerWorkers)
	// emit writes the oldest question's row, waiting for it when wait is
	// set; it reports whether it wrote one.
	emit := func(wait bool) (bool, error) {
		if len(queue) == 0 {
			return false, nil
		}
		var r result
		if wait {
			r = <-queue[0]
		} else {
			select {
			case r = <-queue[0]:
			default:
				return false, nil
			}
		}
		queue = queue[1:]
		if r.err != nil {
			return false, r.err
		}
		if err := WriteRow(w, r.row); err != nil {
			return false, fmt.Errorf("writing the result of question %s: %w", r.row.QuestionID, err)
		}
		all = append(all, r.row)
		if o.Progress != nil {
			o.Progress(len(all)-len(prior), len(todo))
		}
		return true, nil
	}
	// stop ends the loop over questions (a failed retrieval, an interrupt);
	// failed ends the writing of rows (a failed answer or write).
	var stop, failed error
questions:
	for _, i := range todo {
		if err := ctx.Err(); err != nil {
			stop = err
			break
		}
		q, err := qs.Question(i)
		if err != nil {
			stop = err
			break
		}
		row, retrieved, err := retrieve(ctx, st, q, o)
		if err != nil {
			stop = fmt.Errorf("question %s (line %d): %w", q.QuestionID, q.Line, err)
			break
		}
		ch := make(chan result, 1)
		queue = append(queue, ch)
		if o.RetrievalOnly {
			ch <- result{row: row}
		} else {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				h, err := o.Model.Answer(ctx, AnswerSystemPrompt, AnswerPrompt(q, retrieved, o.ContextChars))
				if err != nil {
					ch <- result{err: fmt.Errorf("question %s (line %d): answering with the chat model: %w", q.QuestionID, q.Line, err)}
					return
				}
				row.Hypothesis = h
				if o.Judge != nil {
					v, reply, err := judge(ctx, o.Judge, q, h)
					if err != nil {
						ch <- result{err: fmt.Errorf("question %s (line %d): %w", q.QuestionID, q.Line, err)}
						return
					}
					row.JudgedCorrect, row.JudgeReply = v, reply
				}
				ch <- result{row: row}
			}()
		}
		// Write what is ready, in order, keeping at most AnswerWorkers
		// questions waiting.
		for {
			wrote, err := emit(len(queue) > o.AnswerWorkers)
			if err != nil {
				failed = err
				break questions
			}
			if !wrote {
				break
			}
		}
	}
	// Questions still waiting for the model are written as they are
	// answered, in order, until one fails; the rest is then dropped.
	for failed == nil && len(queue) > 0 {
		if _, err := emit(true); err != nil {
			failed = err
		}
	}
	if failed != nil || stop != nil {
		cancel()
		for _, ch := range queue {
			<-ch
		}
		if failed != nil {
			return Summarize(all), failed
		}
		return Summarize(all), stop
	}
	s := Summarize(all)
	if o.Usage != nil {
		s.Usage = o.Usage()
	}
	if o.ByType {
		if err := WriteRow(w, s); err != nil {
			return s, fmt.Errorf("writing the by-type summary: %w", err)
		}
	}
	return s, nil
}

// retrieve runs one question's retrieval: an empty store, the haystack in
// one import, one search. It returns the row without its hypothesis, and the
// haystack indexes of the retrieved sessions, best first.
func retrieve(ctx context.Context, st Store, q Question, o Options) (Row, []int, error) {
	var row Row
	tm := Timing{QuestionID: q.QuestionID}
	t0 := time.Now()
	bySlug := make(map[string]int, len(q.HaystackSessionIDs))
	docs := make([]ingest.Doc, len(q.HaystackSessionIDs))
	for i, id := range q.HaystackSessionIDs {
		slug := SessionSlug(id)
		if j, dup := bySlug[slug]; dup {
			return row, nil, fmt.Errorf("sessions %q and %q map to the same page slug %s", q.HaystackSessionIDs[j], id, slug)
		}
		bySlug[slug] = i
		date := ""
		if i < len(q.HaystackDates) {
			date = q.HaystackDates[i]
		}
		docs[i] = ingest.Doc{Slug: slug, Data: SessionMarkdown(id, date, q.HaystackSessions[i])}
	}
	// The haystack is parsed while the store empties: the reset keeps one
	// core of the database busy and leaves the others idle.
	prepared := make(chan *ingest.Prepared, 1)
	go func() { prepared <- st.Prepare(docs) }()
	r0 := time.Now()
	if err := st.Reset(ctx); err != nil {
		return row, nil, err
	}
	tm.Reset = time.Since(r0)
	p := <-prepared
	row = Row{SchemaVersion: 1, QuestionID: q.QuestionID, QuestionType: q.QuestionType, Question: q.Question, RetrievedSessionIDs: []string{}}
	if len(docs) > 0 {
		if err := st.Import(ctx, p); err != nil {
			return row, nil, err
		}
		t2 := time.Now()
		tm.Import = t2.Sub(t0) - tm.Reset
		var slugs []string
		var err error
		if ds, ok := st.(DatedSearcher); ok {
			slugs, err = ds.SearchAt(ctx, q.Question, q.QuestionDate, o.TopK)
		} else {
			slugs, err = st.Search(ctx, q.Question, o.TopK)
		}
		if err != nil {
			return row, nil, err
		}
		tm.Search = time.Since(t2)
		for _, s := range slugs {
			if i, ok := bySlug[s]; ok {
				row.RetrievedSessionIDs = append(row.RetrievedSessionIDs, q.HaystackSessionIDs[i])
			}
		}
	}
	if o.Timing != nil {
		o.Timing(tm)
	}
	if len(q.AnswerSessionIDs) > 0 && !q.Abstention() {
		got := map[string]bool{}
		for _, id := range row.RetrievedSessionIDs {
			got[id] = true
		}
		anyHit, allHit := false, true
		for _, id := range q.AnswerSessionIDs {
			if got[id] {
				anyHit = true
			} else {
				allHit = false
			}
		}
		row.RecallAny, row.RecallAll = &anyHit, &allHit
	}
	retrieved := make([]int, len(row.RetrievedSessionIDs))
	for k, id := range row.RetrievedSessionIDs {
		retrieved[k] = bySlug[SessionSlug(id)]
	}
	return row, retrieved, nil
}
