package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/pgbrain/pgbrain/client/brain"
	"github.com/pgbrain/pgbrain/client/longmemeval"
)

// benchLongMemEval measures the per-question time of a LongMemEval run as
// `pgbrain eval longmemeval` runs it: in a scratch database created beside
// the brain, each question costs a reset of that database, one import of its
// haystack sessions and one hybrid search (local embedder), on the shipped
// fixture and on a synthetic dataset the size of LongMemEval_S.
func benchLongMemEval(ctx context.Context, env *benchEnv) (err error) {
	u, err := env.newDatabase(ctx, "bench_longmemeval")
	if err != nil {
		return err
	}
	b, err := brain.Open(ctx, u)
	if err != nil {
		return err
	}
	settings := b.Settings
	b.Close()
	start := time.Now()
	st, err := longmemeval.NewScratch(ctx, u, longmemeval.ScratchOptions{Settings: settings})
	if err != nil {
		return err
	}
	setup := time.Since(start)
	defer func() {
		if derr := st.Drop(ctx); derr != nil && err == nil {
			err = derr
		}
	}()

	fixturePath := "client/longmemeval/testdata/mini.json"
	fixture, err := longmemeval.ReadFile(fixturePath)
	if err != nil {
		return fmt.Errorf("reading the fixture (run from the repository root): %w", err)
	}
	sQuestions, sSessions := 40, 50
	fixtureRounds := 10
	if env.quick {
		sQuestions, fixtureRounds = 5, 3
	}
	// LongMemEval_S gives each question about 115k tokens of history in
	// about 50 sessions: 12 turns of 140 words per session is that volume
	// (84k words), drawn Zipf-like from 6,000 words as chat text would be.
	// The small haystack (10 turns of 30 words from 90 words) is kept for
	// comparison with earlier runs.
	small, err := lmeSynthetic(sQuestions, sSessions, 10, 30, 0)
	if err != nil {
		return err
	}
	synth, err := lmeSynthetic(sQuestions, sSessions, 12, 140, 6000)
	if err != nil {
		return err
	}

	type arm struct {
		name   string
		qs     []longmemeval.Question
		rounds int
		goal   float64 // p50 goal in ms
	}
	arms := []arm{
		{fmt.Sprintf("fixture (%s)", fixturePath), fixture, fixtureRounds, 10},
		{"50 small sessions (synthetic, 15k words)", small, 1, 60},
		{"LongMemEval_S size (synthetic, 84k words)", synth, 1, 60},
	}
	// Warm up caches, plans and the embedder once, untimed.
	if _, _, err := lmeTimedRun(ctx, st, fixture); err != nil {
		return err
	}
	fmt.Fprintf(env.out, "## longmemeval: per-question time (reset of the scratch database + import of the haystack sessions + hybrid search)\n\n")
	fmt.Fprintf(env.out, "Once per run, not per question: creating and migrating the scratch database took %.0f ms.\n\n", float64(setup.Microseconds())/1000)
	fmt.Fprintln(env.out, "| dataset | questions | sessions/question | turns/question (all sessions) | p50 ms | p99 ms | p50 goal ms | p50 reset / import / search ms | recall_any |")
	fmt.Fprintln(env.out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, a := range arms {
		var tms []longmemeval.Timing
		var sum longmemeval.Summary
		for r := 0; r < a.rounds; r++ {
			t, s, err := lmeTimedRun(ctx, st, a.qs)
			if err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
			tms, sum = append(tms, t...), s
		}
		sessions, turns := 0, 0
		for _, q := range a.qs {
			sessions += len(q.HaystackSessions)
			for _, s := range q.HaystackSessions {
				turns += len(s)
			}
		}
		phase := func(f func(longmemeval.Timing) time.Duration) []time.Duration {
			out := make([]time.Duration, len(tms))
			for i, t := range tms {
				out[i] = f(t)
			}
			slices.Sort(out)
			return out
		}
		lat := phase(longmemeval.Timing.Total)
		p50 := pct(lat, 50)
		verdict := "met"
		if p50 > a.goal {
			verdict = "missed"
		}
		fmt.Fprintf(env.out, "| %s | %d x %d runs | %.1f | %.0f | %.2f | %.2f | %.0f (%s) | %.2f / %.2f / %.2f | %d/%d = %.2f |\n",
			a.name, len(a.qs), a.rounds, float64(sessions)/float64(len(a.qs)), float64(turns)/float64(len(a.qs)),
			p50, pct(lat, 99), a.goal, verdict,
			pct(phase(func(t longmemeval.Timing) time.Duration { return t.Reset }), 50),
			pct(phase(func(t longmemeval.Timing) time.Duration { return t.Import }), 50),
			pct(phase(func(t longmemeval.Timing) time.Duration { return t.Search }), 50),
			sum.Aggregate.Hit, sum.Aggregate.Total, sum.Aggregate.Rate)
	}
	fmt.Fprintln(env.out)
	return nil
}

// lmeTimedRun runs every question once and returns where each one's time went.
func lmeTimedRun(ctx context.Context, st longmemeval.Store, qs []longmemeval.Question) ([]longmemeval.Timing, longmemeval.Summary, error) {
	tms := make([]longmemeval.Timing, 0, len(qs))
	sum, err := longmemeval.Run(ctx, st, qs, nil, io.Discard, longmemeval.Options{
		RetrievalOnly: true,
		Timing:        func(t longmemeval.Timing) { tms = append(tms, t) },
	})
	return tms, sum, err
}

// lmeSynthetic builds a dataset in the public LongMemEval format (encoded
// and parsed back, as a file would be): per question, sessions of turns of
// about wordsPerTurn words, one of them holding the answer. With vocab > 0
// the words are drawn Zipf-like from that many generated words; with 0,
// uniformly from a short list of filler words.
func lmeSynthetic(questions, sessions, turns, wordsPerTurn, vocab int) ([]longmemeval.Question, error) {
	rng := rand.New(rand.NewPCG(42, 7))
	filler := strings.Fields(`the a and to of in for on with my your about after before during week
		today yesterday plan trip recipe garden book movie music project meeting weekend coffee
		dinner lunch work office train bus weather rain sunny walk run gym yoga class lesson
		friend family brother sister mother father neighbour teacher doctor appointment budget
		money savings bank phone laptop email message photo camera city park beach mountain
		river lake morning evening night hotel flight ticket museum concert game team score`)
	things := []string{"dog", "cat", "car", "bike", "boat", "parrot", "guitar", "violin", "tortoise", "horse"}
	names := []string{"Biscuit", "Mango", "Pepper", "Juniper", "Waffles", "Clementine", "Atlas", "Nimbus", "Pistachio", "Marlowe",
		"Quincy", "Rosalind", "Tamsin", "Ulysses", "Vesper", "Wendell", "Xanthe", "Yardley", "Zephyr", "Oberon"}
	word := func() string { return filler[rng.IntN(len(filler))] }
	if vocab > 0 {
		words, cum := zipfVocabulary(rng, vocab)
		word = func() string {
			i, _ := slices.BinarySearch(cum, rng.Float64()*cum[len(cum)-1])
			return words[min(i, len(words)-1)]
		}
	}
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = word()
		}
		return strings.Join(w, " ") + "."
	}
	type turn struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		HasAnswer bool   `json:"has_answer,omitempty"`
	}
	type entry struct {
		QuestionID         string   `json:"question_id"`
		QuestionType       string   `json:"question_type"`
		Question           string   `json:"question"`
		Answer             string   `json:"answer"`
		QuestionDate       string   `json:"question_date"`
		HaystackSessionIDs []string `json:"haystack_session_ids"`
		HaystackDates      []string `json:"haystack_dates"`
		HaystackSessions   [][]turn `json:"haystack_sessions"`
		AnswerSessionIDs   []string `json:"answer_session_ids"`
	}
	var data []entry
	for q := 0; q < questions; q++ {
		thing, name := things[q%len(things)], names[q%len(names)]
		e := entry{
			QuestionID:   fmt.Sprintf("synth-%03d", q),
			QuestionType: "single-session-user",
			Question:     fmt.Sprintf("What did I name my %s?", thing),
			Answer:       name,
			QuestionDate: "2023/06/30 (Fri) 10:00",
		}
		answerAt := rng.IntN(sessions)
		for s := 0; s < sessions; s++ {
			id := fmt.Sprintf("sharegpt_%03d_%02d", q, s)
			if s == answerAt {
				id = fmt.Sprintf("answer_%03d_%02d", q, s)
				e.AnswerSessionIDs = []string{id}
			}
			e.HaystackSessionIDs = append(e.HaystackSessionIDs, id)
			e.HaystackDates = append(e.HaystackDates, fmt.Sprintf("2023/05/%02d (Mon) %02d:00", 1+s%28, 8+s%12))
			var ts []turn
			for t := 0; t < turns; t++ {
				role := "user"
				if t%2 == 1 {
					role = "assistant"
				}
				tu := turn{Role: role, Content: sentence(wordsPerTurn)}
				if s == answerAt && t == 2 {
					tu.Content = fmt.Sprintf("I finally named my new %s %s, %s", thing, name, sentence(wordsPerTurn-8))
					tu.HasAnswer = true
				}
				ts = append(ts, tu)
			}
			e.HaystackSessions = append(e.HaystackSessions, ts)
		}
		data = append(data, e)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return longmemeval.Parse("synthetic-longmemeval-s.json", raw)
}

// zipfVocabulary returns n distinct made-up words (syllables joined, so the
// stemmer treats them as words) and the cumulative weights of a Zipf
// distribution over them: the r-th word has weight 1/r.
func zipfVocabulary(rng *rand.Rand, n int) ([]string, []float64) {
	syl := strings.Fields("ka lo mi ren tu sa vel dor pin qua ber fel gri hon jas kel lum nor pra sim tor ung vis wen yar zel bro cal dim fen")
	seen := map[string]bool{}
	words := make([]string, 0, n)
	cum := make([]float64, 0, n)
	total := 0.0
	for len(words) < n {
		var b strings.Builder
		for k := 2 + rng.IntN(3); k > 0; k-- {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		w := b.String()
		if seen[w] {
			continue
		}
		seen[w] = true
		words = append(words, w)
		total += 1 / float64(len(words))
		cum = append(cum, total)
	}
	return words, cum
}
