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

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/longmemeval"
)

// benchLongMemEval measures the per-question time of a LongMemEval run as
// `pgbrain eval longmemeval` runs it: in a scratch database created beside
// the brain, each question costs a reset of that database, one import of its
// haystack sessions and one search by the default method (fused session
// retrieval; the S-size set also by the brain's hybrid search, local
// embedder, side by side), on the test
// fixture, on the six-type sample dataset and on synthetic datasets the
// size of LongMemEval_S.
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

	fixturePath := "internal/longmemeval/testdata/mini.json"
	fixture, err := longmemeval.ReadFile(fixturePath)
	if err != nil {
		return fmt.Errorf("reading the fixture (run from the repository root): %w", err)
	}
	samplePath := "sample/longmemeval.json"
	sample, err := longmemeval.ReadFile(samplePath)
	if err != nil {
		return fmt.Errorf("reading the sample dataset (run from the repository root): %w", err)
	}
	sQuestions, sSessions := 40, 50
	fixtureRounds := 10
	if env.quick {
		sQuestions, fixtureRounds = 5, 3
	}
	// LongMemEval_S gives each question about 115k tokens of chat history in
	// about 50 sessions: some 86k words, 460-500 KB of English at about four
	// characters a token. 12 turns of 140 words in 50 sessions is that
	// volume. Like English, half the words are function words (the, and, I,
	// to, ...), which the text search drops, and the rest are drawn
	// Zipf-like from 6,000 made-up words of one to three syllables. The
	// stress haystack has the same word count but no function words and
	// longer words (twice the bytes and every word indexed); the small one
	// (10 turns of 30 words from 90 filler words) is kept for comparison
	// with earlier runs.
	small, err := lmeSynthetic(sQuestions, sSessions, lmeText{turns: 10, words: 30})
	if err != nil {
		return err
	}
	synth, err := lmeSynthetic(sQuestions, sSessions, lmeText{turns: 12, words: 140, vocab: 6000, minSyl: 1, maxSyl: 3, function: 0.48})
	if err != nil {
		return err
	}
	stress, err := lmeSynthetic(sQuestions, sSessions, lmeText{turns: 12, words: 140, vocab: 6000, minSyl: 2, maxSyl: 4})
	if err != nil {
		return err
	}

	type arm struct {
		name   string
		qs     []longmemeval.Question
		rounds int
		goal   float64 // p50 goal in ms
		hybrid bool    // run by the brain's hybrid search instead
	}
	arms := []arm{
		{fmt.Sprintf("fixture (%s)", fixturePath), fixture, fixtureRounds, 10, false},
		{fmt.Sprintf("fixture, six question types (%s)", samplePath), sample, fixtureRounds, 10, false},
		{"50 small sessions (synthetic)", small, 1, 60, false},
		{"LongMemEval_S size (synthetic English-like chat)", synth, 1, 60, false},
		{"LongMemEval_S size, --method hybrid", synth, 1, 60, true},
		{"stress: S word count, no function words, long words", stress, 1, 0, false},
	}
	hy, err := longmemeval.NewScratch(ctx, u, longmemeval.ScratchOptions{Settings: settings, Method: longmemeval.MethodHybrid})
	if err != nil {
		return err
	}
	defer func() {
		if derr := hy.Drop(ctx); derr != nil && err == nil {
			err = derr
		}
	}()
	// Warm up caches, plans and the embedder once, untimed.
	for _, s := range []*longmemeval.Scratch{st, hy} {
		if _, _, err := lmeTimedRun(ctx, s, fixture); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.out, "## longmemeval: per-question time (reset of the scratch database + import of the haystack sessions + one search, fused unless marked hybrid)\n\n")
	fmt.Fprintf(env.out, "Once per run, not per question: creating and migrating the scratch database took %.0f ms.\n\n", float64(setup.Microseconds())/1000)
	fmt.Fprintln(env.out, "| dataset | questions | sessions/question | turns/question | words/question | KB/question | p50 ms | p99 ms | p50 goal ms | p50 reset / import / search ms | recall_any |")
	fmt.Fprintln(env.out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, a := range arms {
		var tms []longmemeval.Timing
		var sum longmemeval.Summary
		for r := 0; r < a.rounds; r++ {
			store := st
			if a.hybrid {
				store = hy
			}
			t, s, err := lmeTimedRun(ctx, store, a.qs)
			if err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
			tms, sum = append(tms, t...), s
		}
		sessions, turns, words, bytes := 0, 0, 0, 0
		for _, q := range a.qs {
			sessions += len(q.HaystackSessions)
			for _, s := range q.HaystackSessions {
				turns += len(s)
				for _, t := range s {
					words += len(strings.Fields(t.Content))
					bytes += len(t.Content)
				}
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
		goal := "none"
		if a.goal > 0 {
			goal = fmt.Sprintf("%.0f (met)", a.goal)
			if p50 > a.goal {
				goal = fmt.Sprintf("%.0f (missed)", a.goal)
			}
		}
		perQ := func(n int) float64 { return float64(n) / float64(len(a.qs)) }
		fmt.Fprintf(env.out, "| %s | %d x %d runs | %.1f | %.0f | %.0f | %.1f | %.2f | %.2f | %s | %.2f / %.2f / %.2f | %d/%d = %.2f |\n",
			a.name, len(a.qs), a.rounds, perQ(sessions), perQ(turns), perQ(words), perQ(bytes)/1000,
			p50, pct(lat, 99), goal,
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
	sum, err := longmemeval.Run(ctx, st, longmemeval.QuestionList(qs), nil, io.Discard, longmemeval.Options{
		RetrievalOnly: true,
		Timing:        func(t longmemeval.Timing) { tms = append(tms, t) },
	})
	return tms, sum, err
}

// lmeText says what a synthetic haystack's sessions are made of.
type lmeText struct {
	turns, words int // turns per session, words per turn
	// vocab > 0 draws content words Zipf-like from that many made-up words
	// of minSyl to maxSyl syllables; 0 draws uniformly from 90 filler words.
	vocab, minSyl, maxSyl int
	function              float64 // share of words that are English function words
}

// lmeSynthetic builds a dataset in the public LongMemEval format (encoded
// and parsed back, as a file would be): per question, sessions of turns as
// text describes, one of them holding the answer.
func lmeSynthetic(questions, sessions int, text lmeText) ([]longmemeval.Question, error) {
	rng := rand.New(rand.NewPCG(42, 7))
	filler := strings.Fields(`the a and to of in for on with my your about after before during week
		today yesterday plan trip recipe garden book movie music project meeting weekend coffee
		dinner lunch work office train bus weather rain sunny walk run gym yoga class lesson
		friend family brother sister mother father neighbour teacher doctor appointment budget
		money savings bank phone laptop email message photo camera city park beach mountain
		river lake morning evening night hotel flight ticket museum concert game team score`)
	// The most frequent English words, most frequent first (drawn Zipf-like).
	function := strings.Fields(`the i and to a you it of is that in my for this be have with
		on was so but not are do can what we me if just about at your as there or all
		they would an will like one get from how some he she them because when which`)
	fcum := zipfCumulative(len(function))
	things := []string{"dog", "cat", "car", "bike", "boat", "parrot", "guitar", "violin", "tortoise", "horse"}
	names := []string{"Biscuit", "Mango", "Pepper", "Juniper", "Waffles", "Clementine", "Atlas", "Nimbus", "Pistachio", "Marlowe",
		"Quincy", "Rosalind", "Tamsin", "Ulysses", "Vesper", "Wendell", "Xanthe", "Yardley", "Zephyr", "Oberon"}
	content := func() string { return filler[rng.IntN(len(filler))] }
	if text.vocab > 0 {
		words, cum := zipfVocabulary(rng, text.vocab, text.minSyl, text.maxSyl)
		content = func() string { return words[zipfDraw(rng, cum)] }
	}
	word := func() string {
		if text.function > 0 && rng.Float64() < text.function {
			return function[zipfDraw(rng, fcum)]
		}
		return content()
	}
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = word()
		}
		return strings.Join(w, " ") + "."
	}
	wordsPerTurn, turns := text.words, text.turns
	// A question as the public file holds it; longmemeval.Question reads its
	// answer apart (the dataset has numeric ones), so the answer is added.
	type entry struct {
		longmemeval.Question
		Answer string `json:"answer"`
	}
	var data []entry
	for q := 0; q < questions; q++ {
		thing, name := things[q%len(things)], names[q%len(names)]
		e := entry{Question: longmemeval.Question{
			QuestionID:   fmt.Sprintf("synth-%03d", q),
			QuestionType: "single-session-user",
			Question:     fmt.Sprintf("What did I name my %s?", thing),
			QuestionDate: "2023/06/30 (Fri) 10:00",
		}, Answer: name}
		answerAt := rng.IntN(sessions)
		for s := 0; s < sessions; s++ {
			id := fmt.Sprintf("sharegpt_%03d_%02d", q, s)
			if s == answerAt {
				id = fmt.Sprintf("answer_%03d_%02d", q, s)
				e.AnswerSessionIDs = []string{id}
			}
			e.HaystackSessionIDs = append(e.HaystackSessionIDs, id)
			e.HaystackDates = append(e.HaystackDates, fmt.Sprintf("2023/05/%02d (Mon) %02d:00", 1+s%28, 8+s%12))
			var ts []longmemeval.Turn
			for t := 0; t < turns; t++ {
				role := "user"
				if t%2 == 1 {
					role = "assistant"
				}
				tu := longmemeval.Turn{Role: role, Content: sentence(wordsPerTurn)}
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

// zipfVocabulary returns n distinct made-up words (minSyl to maxSyl
// syllables joined, so the stemmer treats them as words) and the cumulative
// weights of a Zipf distribution over them.
func zipfVocabulary(rng *rand.Rand, n, minSyl, maxSyl int) ([]string, []float64) {
	syl := strings.Fields("ka lo mi ren tu sa vel dor pin qua ber fel gri hon jas kel lum nor pra sim tor ung vis wen yar zel bro cal dim fen")
	seen := map[string]bool{}
	words := make([]string, 0, n)
	for len(words) < n {
		var b strings.Builder
		for k := minSyl + rng.IntN(maxSyl-minSyl+1); k > 0; k-- {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		w := b.String()
		if seen[w] {
			continue
		}
		seen[w] = true
		words = append(words, w)
	}
	return words, zipfCumulative(n)
}

// zipfCumulative returns the running sums of the Zipf weights 1/r of ranks
// 1..n, which zipfDraw picks from.
func zipfCumulative(n int) []float64 {
	cum := make([]float64, n)
	total := 0.0
	for i := range cum {
		total += 1 / float64(i+1)
		cum[i] = total
	}
	return cum
}

// zipfDraw picks a rank by its cumulative weights.
func zipfDraw(rng *rand.Rand, cum []float64) int {
	i, _ := slices.BinarySearch(cum, rng.Float64()*cum[len(cum)-1])
	return min(i, len(cum)-1)
}
