// Command expansioneval measures what query expansion does to recall, with
// and without it, at k = 1, 5 and 10. No real chat model is reachable here,
// so the rephrasings come from scripted local models served on a loopback
// /v1/chat/completions endpoint, each a stand-in for one kind of model:
//
//	wordnet  rephrases without knowing the answer: each content word
//	         replaced by its most frequent WordNet synonym, the content
//	         words alone, and the second synonyms (Debian's wordnet-base,
//	         words nobody here wrote). The closest stand-in for an LLM
//	         that paraphrases.
//	noise    answers with other queries of the set: an off-topic model,
//	         the lower bound.
//	oracle   answers with the title (qrels) or the reference answer
//	         (LongMemEval) of the right page: a model that knows the
//	         answer, the upper bound.
//
// Qrels sets are scored directly against a brain:
//
//	go run ./tools/expansioneval -db URL -qrels sample/qrels.json
//
// LongMemEval goes through the real runner: -serve keeps the scripted
// models up on ADDR for `pgbrain eval longmemeval --expansion --model NAME`
// (see docs/retrieval.md for the commands):
//
//	go run ./tools/expansioneval -serve 127.0.0.1:8399 -longmemeval sample/longmemeval.json
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/eval"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/internal/search"
)

const wordnetDir = "/usr/share/wordnet"

func main() {
	db := flag.String("db", os.Getenv("PGBRAIN_DATABASE_URL"), "database URL of the brain to score (qrels mode)")
	qrelsPath := flag.String("qrels", "", "qrels file to score")
	lme := flag.String("longmemeval", "", "LongMemEval file whose reference answers the oracle model gives (serve mode)")
	serve := flag.String("serve", "", "serve the scripted models on this loopback address until interrupted")
	variants := flag.Int("variants", expand.DefaultVariants, "rephrasings per query")
	weights := flag.String("weights", "0.5", "comma-separated variant weights to score (brain.search_expanded's variant_weight)")
	flag.Parse()
	if flag.NArg() != 0 || (*serve == "") == (*qrelsPath == "") || (*qrelsPath != "" && *db == "") {
		fmt.Fprintln(os.Stderr, "usage: expansioneval -db URL -qrels FILE [-variants N] | -serve ADDR [-longmemeval FILE]")
		os.Exit(2)
	}
	var ws []float64
	for _, x := range strings.Split(*weights, ",") {
		w, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || !(w > 0 && w < 1) {
			fmt.Fprintf(os.Stderr, "expansioneval: -weights: %q is not a weight between 0 and 1\n", x)
			os.Exit(2)
		}
		ws = append(ws, w)
	}
	if err := run(*db, *qrelsPath, *lme, *serve, *variants, ws); err != nil {
		fmt.Fprintln(os.Stderr, "expansioneval:", err)
		os.Exit(1)
	}
}

func run(dbURL, qrelsPath, lmePath, addr string, variants int, weights []float64) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	wn, err := loadWordNet(wordnetDir)
	if err != nil {
		return err
	}
	models := &scripted{wn: wn, oracle: map[string]string{}}
	if addr != "" {
		if lmePath != "" {
			if err := models.loadLongMemEval(lmePath); err != nil {
				return err
			}
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
			return fmt.Errorf("-serve %s is not a loopback address", addr)
		}
		fmt.Fprintf(os.Stderr, "expansioneval: scripted models wordnet, noise, oracle at http://%s/v1\n", ln.Addr())
		srv := &http.Server{Handler: models}
		go func() { <-ctx.Done(); srv.Close() }()
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}

	qrels, err := eval.ReadQrelsFile(qrelsPath)
	if err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", dbURL, err)
	}
	defer pool.Close()
	for _, q := range qrels.Queries {
		models.others = append(models.others, q.Text)
		if len(q.Relevant) > 0 {
			var title string
			d := q.Relevant[0]
			if err := pool.QueryRow(ctx, `SELECT title FROM brain.pages WHERE source_id = $1 AND slug = $2`, d.SourceID, d.Slug).Scan(&title); err == nil {
				models.oracle[q.Text] = title
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: models}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	fmt.Printf("%d queries from %s, %d variants per query\n\n", len(qrels.Queries), qrelsPath, variants)
	fmt.Println("| model | variant weight | recall@1 | recall@5 | recall@10 | MRR@10 | queries expanded |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, name := range []string{"none", "wordnet", "noise", "oracle"} {
		for i, w := range weights {
			if name == "none" && i > 0 {
				break
			}
			var ex *expand.Expander
			if name != "none" {
				chat, err := openai.NewChat(openai.ChatConfig{BaseURL: base, Model: "scripted-" + name})
				if err != nil {
					return err
				}
				ex = &expand.Expander{DB: pool, Model: chat, Variants: variants}
			}
			var r1, r5, r10, mrr float64
			expanded := 0
			t := search.Tuning{VariantWeight: &w}
			for _, q := range qrels.Queries {
				r, err := expand.Search(ctx, pool, ex, q.Text, nil, nil, search.Options{Limit: 10, Expand: ex != nil}, t)
				if err != nil {
					return fmt.Errorf("%s, query %s: %w", name, q.ID, err)
				}
				if r.Meta.ExpansionApplied {
					expanded++
				}
				got := make([]string, len(r.Results))
				for i, x := range r.Results {
					got[i] = eval.Doc{SourceID: x.SourceID, Slug: x.Slug}.Key()
				}
				r1 += eval.RecallAt(got, q.Grades, 1)
				r5 += eval.RecallAt(got, q.Grades, 5)
				r10 += eval.RecallAt(got, q.Grades, 10)
				mrr += eval.ReciprocalRank(got, q.Grades, 10)
			}
			n := float64(len(qrels.Queries))
			wl := fmt.Sprint(w)
			if name == "none" {
				wl = "-"
			}
			fmt.Printf("| %s | %s | %.3f | %.3f | %.3f | %.3f | %d |\n", name, wl, r1/n, r5/n, r10/n, mrr/n, expanded)
		}
	}
	return nil
}

// scripted serves the three stand-in models by name.
type scripted struct {
	wn     wordNet
	others []string          // the set's queries, for noise
	oracle map[string]string // query -> the right page's title or answer
}

func (s *scripted) loadLongMemEval(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var qs []struct {
		Question string          `json:"question"`
		Answer   json.RawMessage `json:"answer"`
	}
	if err := json.Unmarshal(data, &qs); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	for _, q := range qs {
		s.others = append(s.others, q.Question)
		var a string
		if json.Unmarshal(q.Answer, &a) != nil {
			a = strings.Trim(string(q.Answer), `"`)
		}
		s.oracle[q.Question] = a
	}
	return nil
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string           `json:"model"`
		Messages []openai.Message `json:"messages"`
	}
	if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req) != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"not a chat completion"}}`, http.StatusBadRequest)
		return
	}
	q := req.Messages[len(req.Messages)-1].Content
	var out []string
	switch strings.TrimPrefix(req.Model, "scripted-") {
	case "wordnet":
		out = s.wn.rephrase(q)
	case "noise":
		// Three other queries, chosen by the query's own hash so a rerun
		// gives the same.
		h := 0
		for _, c := range q {
			h = h*31 + int(c)
		}
		for i := 0; i < 3 && len(s.others) > 1; i++ {
			o := s.others[((h%len(s.others))+len(s.others)+i*7+1)%len(s.others)]
			if o != q {
				out = append(out, o)
			}
		}
	case "oracle":
		if a, ok := s.oracle[strings.TrimSpace(q)]; ok {
			out = []string{a}
		}
	default:
		http.Error(w, `{"error":{"message":"unknown model; use wordnet, noise or oracle"}}`, http.StatusNotFound)
		return
	}
	if out == nil {
		out = []string{}
	}
	text, _ := json.Marshal(out)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": string(text)}, "finish_reason": "stop"}},
	})
}

// wordNet maps a lemma to its synonyms, most frequent sense first.
type wordNet map[string][]string

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of to in on for and or but is are was were be been do does did i my me you your
		what which who whom how when where why that this these those it its with at by from as about into after before
		have has had can could should would will shall may might there their them they we our us he she his her not no`) {
		stop[w] = true
	}
}

func loadWordNet(dir string) (wordNet, error) {
	wn := wordNet{}
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		idx, err := os.Open(dir + "/index." + pos)
		if err != nil {
			return nil, fmt.Errorf("reading WordNet (apt-get install wordnet-base): %w", err)
		}
		data, err := os.Open(dir + "/data." + pos)
		if err != nil {
			idx.Close()
			return nil, fmt.Errorf("reading WordNet (apt-get install wordnet-base): %w", err)
		}
		sc := bufio.NewScanner(idx)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "  ") {
				continue // the licence
			}
			f := strings.Fields(line)
			if len(f) < 6 {
				continue
			}
			lemma := f[0]
			if _, done := wn[lemma]; done {
				continue // an earlier part of speech was more common
			}
			pcnt, err := strconv.Atoi(f[3])
			if err != nil || len(f) < 6+pcnt+1 {
				continue
			}
			offsets := f[4+pcnt+2:]
			var syns []string
			for _, off := range offsets[:min(2, len(offsets))] {
				o, err := strconv.ParseInt(off, 10, 64)
				if err != nil {
					continue
				}
				syns = append(syns, synset(data, o, lemma)...)
			}
			if len(syns) > 0 {
				wn[lemma] = syns
			}
		}
		idx.Close()
		data.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return wn, nil
}

// synset reads the words of the synset at offset, other than lemma.
func synset(data *os.File, offset int64, lemma string) []string {
	buf := make([]byte, 4096)
	n, _ := data.ReadAt(buf, offset)
	line := string(buf[:n])
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(line)
	if len(f) < 4 {
		return nil
	}
	cnt, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil {
		return nil
	}
	var out []string
	for i := 0; i < int(cnt) && 4+2*i < len(f); i++ {
		w := strings.ToLower(f[4+2*i])
		if j := strings.IndexByte(w, '('); j >= 0 {
			w = w[:j] // adjective markers such as (a)
		}
		if w != lemma {
			out = append(out, strings.ReplaceAll(w, "_", " "))
		}
	}
	return out
}

// lemma finds the form of w that WordNet lists, by stripping common
// inflections.
func (wn wordNet) lemma(w string) string {
	if _, ok := wn[w]; ok {
		return w
	}
	for _, r := range []struct{ suf, rep string }{{"ies", "y"}, {"es", ""}, {"s", ""}, {"ing", ""}, {"ed", ""}, {"ed", "e"}} {
		if b, ok := strings.CutSuffix(w, r.suf); ok {
			if _, ok := wn[b+r.rep]; ok {
				return b + r.rep
			}
		}
	}
	return w
}

// rephrase writes up to three variants of q: first synonyms, content words
// alone, second synonyms.
func (wn wordNet) rephrase(q string) []string {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'' || r > 127)
	})
	var first, content, second []string
	for _, w := range words {
		if stop[w] {
			first = append(first, w)
			second = append(second, w)
			continue
		}
		content = append(content, w)
		syns := wn[wn.lemma(w)]
		pick := func(i int) string {
			if i < len(syns) {
				return syns[i]
			}
			return w
		}
		first = append(first, pick(0))
		second = append(second, pick(1))
	}
	return []string{strings.Join(first, " "), strings.Join(content, " "), strings.Join(second, " ")}
}
