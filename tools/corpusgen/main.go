// Command corpusgen writes a large, deterministic benchmark brain built from
// the real prose of the sample brain.
//
//	go run ./tools/corpusgen -pages 20000 -out DIR [-seed 1] [-queries FILE]
//
// Each page mixes sentences taken from sample/brain under a unique title made
// of rare words, and holds 300-900 words, so a 20,000-page corpus gives
// roughly 30,000-60,000 chunks of about 300 words. With -queries, a
// known-item query file in the qrels format is written too: each query is a
// short phrase from a sentence that appears on exactly one page, around a
// word that occurs nowhere else, so that page is the single right answer.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

const (
	minWords = 300
	maxWords = 900
	// slugPrefix is the folder every generated page lives in, so a
	// benchmark corpus can share a brain with the sample without clashes.
	slugPrefix = "bench"
)

func main() {
	var cfg config
	flag.IntVar(&cfg.pages, "pages", 20000, "number of pages to write")
	flag.StringVar(&cfg.out, "out", "", "directory to write pages into (required)")
	flag.StringVar(&cfg.in, "in", "sample/brain", "sample brain to take sentences from")
	flag.Uint64Var(&cfg.seed, "seed", 1, "random seed; the same seed gives the same corpus")
	flag.StringVar(&cfg.queries, "queries", "", "also write a known-item qrels file here")
	flag.IntVar(&cfg.nQueries, "nqueries", 500, "number of known-item queries for -queries")
	flag.Parse()
	if cfg.out == "" || cfg.pages < 1 || cfg.nQueries < 0 || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: corpusgen -pages N -out DIR [-seed S] [-in DIR] [-queries FILE] [-nqueries N]")
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintf(os.Stderr, "corpusgen: %v\n", err)
		os.Exit(1)
	}
}

type config struct {
	pages    int
	out      string
	in       string
	seed     uint64
	queries  string
	nQueries int
}

func run(cfg config) error {
	src, err := readSource(cfg.in)
	if err != nil {
		return err
	}
	c, err := generate(src, cfg)
	if err != nil {
		return err
	}
	n, err := writePages(cfg.out, c.pages)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "corpusgen: wrote %d pages (%d words, %d bytes) to %s\n", len(c.pages), c.words, n, filepath.Join(cfg.out, slugPrefix))
	if cfg.queries != "" {
		if err := writeQueries(cfg.queries, c.queries); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "corpusgen: wrote %d known-item queries to %s\n", len(c.queries), cfg.queries)
	}
	return nil
}

// source is the text material harvested from the sample brain.
type source struct {
	sentences []string // unique prose sentences, in first-seen order
	headings  []string // prose section headings from package overviews
	timeline  []string // "- YYYY-MM-DD: ..." lines
}

var (
	timelineRE = regexp.MustCompile(`^- \d{4}-\d{2}-\d{2}: `)
	wordRE     = regexp.MustCompile(`[A-Za-z]+`)
)

// structural headings are the generator's own section names, not prose.
var structural = map[string]bool{
	"Constants": true, "Variables": true, "Functions": true, "Types": true,
	"Methods": true, "Timeline": true,
}

// readSource walks the sample brain in lexical order (deterministic) and
// keeps prose paragraphs, skipping frontmatter, code and declarations.
func readSource(dir string) (*source, error) {
	src := &source{}
	seenS := map[string]bool{}
	seenH := map[string]bool{}
	seenT := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read sample page: %w", err)
		}
		fence := ""
		body := stripFrontmatter(string(b))
		sc := bufio.NewScanner(strings.NewReader(body))
		sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
		for sc.Scan() {
			line := sc.Text()
			trimmed := strings.TrimSpace(line)
			if fence != "" {
				if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, "`") == "" {
					fence = ""
				}
				continue
			}
			if strings.HasPrefix(trimmed, "```") {
				fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
				continue
			}
			switch {
			case trimmed == "":
			case timelineRE.MatchString(trimmed):
				if !seenT[trimmed] {
					seenT[trimmed] = true
					src.timeline = append(src.timeline, trimmed)
				}
			case strings.HasPrefix(trimmed, "## "):
				h := strings.TrimPrefix(trimmed, "## ")
				if !structural[h] && !strings.HasPrefix(h, "Example") && isProse(h) && !seenH[h] {
					seenH[h] = true
					src.headings = append(src.headings, h)
				}
			case strings.HasPrefix(trimmed, "#"), strings.HasPrefix(trimmed, "- "),
				strings.HasPrefix(trimmed, `\`), strings.HasPrefix(trimmed, "|"), line != trimmed:
				// headings, list items, escaped markup, tables, indented text
			default:
				for _, s := range splitSentences(trimmed) {
					if keepSentence(s) && !seenS[s] {
						seenS[s] = true
						src.sentences = append(src.sentences, s)
					}
				}
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("scan %s: %w", p, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read sample brain %s: %w", dir, err)
	}
	if len(src.sentences) < 1000 {
		return nil, fmt.Errorf("sample brain %s gave only %d sentences; generate it first with go run ./tools/samplegen", dir, len(src.sentences))
	}
	return src, nil
}

func stripFrontmatter(s string) string {
	if rest, ok := strings.CutPrefix(s, "---\n"); ok {
		if _, body, ok := strings.Cut(rest, "\n---\n"); ok {
			return body
		}
	}
	return s
}

// isProse rejects headings that are really identifiers or symbols.
func isProse(s string) bool {
	return len(strings.Fields(s)) >= 2 && !strings.ContainsAny(s, "()[]{}=*`")
}

// splitSentences splits a one-line paragraph at sentence ends: ". ", "? "
// or "! " followed by an upper-case letter, unless the period ends a common
// abbreviation.
func splitSentences(p string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(p); i++ {
		c := p[i]
		if (c != '.' && c != '?' && c != '!') || p[i+1] != ' ' || !unicode.IsUpper(rune(p[i+2])) {
			continue
		}
		if c == '.' {
			prev := p[start:i]
			if j := strings.LastIndexByte(prev, ' '); j >= 0 {
				prev = prev[j+1:]
			}
			if prev == "e.g" || prev == "i.e" || prev == "etc" || prev == "vs" || len(prev) == 1 {
				continue
			}
		}
		out = append(out, strings.TrimSpace(p[start:i+1]))
		start = i + 2
	}
	return append(out, strings.TrimSpace(p[start:]))
}

// keepSentence keeps sentences that read as prose on their own.
func keepSentence(s string) bool {
	n := len(strings.Fields(s))
	if n < 6 || n > 60 {
		return false
	}
	first := []rune(s)[0]
	if !unicode.IsUpper(first) || !strings.HasSuffix(s, ".") {
		return false
	}
	return !strings.ContainsAny(s, "{}`|") && !strings.Contains(s, "](")
}

// page is one generated markdown page.
type page struct {
	slug string
	body string
}

type knownItem struct {
	QueryID           string   `json:"query_id"`
	Query             string   `json:"query"`
	Style             string   `json:"style"`
	RelevantSlugs     []string `json:"relevant_slugs"`
	FirstRelevantSlug string   `json:"first_relevant_slug"`
}

type corpus struct {
	pages   []page
	queries []knownItem
	words   int
}

// queryCandidate is a sentence holding a word found nowhere else in the
// source; placed on a single page, any phrase around that word identifies
// the page.
type queryCandidate struct {
	sentence int
	word     int // index in strings.Fields(sentence) of the unique word
}

func generate(src *source, cfg config) (*corpus, error) {
	rng := rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15))

	// Document frequency of word stems over everything a page can contain,
	// so "occurs nowhere else" holds for titles, headings and timelines too.
	// Counting stems rather than words keeps plural and tense variants from
	// passing as unique under a full-text stemmer.
	df := map[string]int{}
	lowerSeen := map[string]bool{} // written all lower-case somewhere
	camel := map[string]bool{}     // part of a MixedCase identifier somewhere
	count := func(s string) {
		seen := map[string]bool{}
		for _, tok := range wordRE.FindAllString(s, -1) {
			w := strings.ToLower(tok)
			if tok == w {
				lowerSeen[w] = true
			} else if strings.ToLower(tok[1:]) != tok[1:] {
				camel[w] = true
			}
			if st := stem(w); !seen[st] {
				seen[st] = true
				df[st]++
			}
		}
	}
	for _, s := range src.sentences {
		count(s)
	}
	for _, s := range src.headings {
		count(s)
	}
	for _, s := range src.timeline {
		count(s)
	}

	// Title words: rare (2-4 sentences) ordinary English words, not
	// identifiers. Stems seen once are kept for known-item queries, never
	// for titles.
	var vocab []string
	for w := range lowerSeen {
		if n := df[stem(w)]; n >= 2 && n <= 4 && len(w) >= 5 && len(w) <= 12 && !camel[w] {
			vocab = append(vocab, w)
		}
	}
	sort.Strings(vocab)
	if len(vocab) < 50 {
		return nil, fmt.Errorf("only %d rare title words in the sample; need at least 50", len(vocab))
	}

	var cands []queryCandidate
	for i, s := range src.sentences {
		fields := strings.Fields(s)
		if len(fields) < 8 {
			continue
		}
		for j, f := range fields {
			w := strings.Trim(f, `.,;:()"'`)
			if len(w) >= 5 && isLowerWord(w) && df[stem(w)] == 1 {
				cands = append(cands, queryCandidate{sentence: i, word: j})
				break
			}
		}
	}
	nq := min(cfg.nQueries, cfg.pages)
	if cfg.queries == "" {
		nq = 0
	}
	if len(cands) < nq {
		return nil, fmt.Errorf("only %d sentences can carry a known-item query; asked for %d", len(cands), nq)
	}
	rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	cands = cands[:nq]

	// Reserved sentences appear only on their query's page.
	reserved := map[int]bool{}
	for _, qc := range cands {
		reserved[qc.sentence] = true
	}
	var pool []string
	for i, s := range src.sentences {
		if !reserved[i] {
			pool = append(pool, s)
		}
	}
	queryPages := rng.Perm(cfg.pages)[:nq]
	pageQuery := map[int]int{} // page index -> candidate index
	for qi, p := range queryPages {
		pageQuery[p] = qi
	}

	c := &corpus{pages: make([]page, cfg.pages), queries: make([]knownItem, nq)}
	titles := map[string]bool{}
	for i := range cfg.pages {
		words := pickTitle(rng, vocab, titles)
		title := titleCase(words)
		slug := slugPrefix + "/" + strings.Join(words, "-")
		special := ""
		if qi, ok := pageQuery[i]; ok {
			qc := cands[qi]
			special = src.sentences[qc.sentence]
			c.queries[qi] = knownItem{
				QueryID:           fmt.Sprintf("k%d", qi+1),
				Query:             phrase(rng, special, qc.word),
				Style:             "known-item",
				RelevantSlugs:     []string{slug},
				FirstRelevantSlug: slug,
			}
		}
		body, n := composePage(rng, src, pool, title, special)
		c.pages[i] = page{slug: slug, body: body}
		c.words += n
	}
	return c, nil
}

// stem strips a common English inflection; a rough stand-in for the
// full-text search stemmer, used only to judge how rare a word is.
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s", "ly"} {
		if r, ok := strings.CutSuffix(w, suf); ok && len(r) >= 4 {
			return r
		}
	}
	return w
}

func isLowerWord(w string) bool {
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// pickTitle draws three distinct rare words whose combination is unused.
func pickTitle(rng *rand.Rand, vocab []string, used map[string]bool) []string {
	for {
		a, b, c := vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))]
		if a == b || b == c || a == c {
			continue
		}
		key := a + "-" + b + "-" + c
		if !used[key] {
			used[key] = true
			return []string{a, b, c}
		}
	}
}

func titleCase(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(out, " ")
}

// phrase cuts a 4-8 word window around the unique word, the way someone
// half-remembering a passage would type it.
func phrase(rng *rand.Rand, sentence string, at int) string {
	fields := strings.Fields(sentence)
	k := min(4+rng.IntN(5), len(fields))
	lo := max(0, at-k+1)
	hi := min(at, len(fields)-k)
	start := lo + rng.IntN(hi-lo+1)
	ws := make([]string, 0, k)
	for _, f := range fields[start : start+k] {
		if w := strings.Trim(f, `.,;:()"'`); w != "" {
			ws = append(ws, w)
		}
	}
	return strings.Join(ws, " ")
}

// composePage builds one page of 300-900 words: paragraphs of 2-6
// sentences under occasional section headings, the page's reserved
// sentence (if any) at a random place, and a timeline on about a quarter of
// the pages.
func composePage(rng *rand.Rand, src *source, pool []string, title, special string) (string, int) {
	target := minWords + rng.IntN(maxWords-minWords+1)
	var sents []string
	used := map[int]bool{}
	words := 0
	for words < target {
		i := rng.IntN(len(pool))
		if used[i] {
			continue
		}
		used[i] = true
		sents = append(sents, pool[i])
		words += len(strings.Fields(pool[i]))
	}
	if special != "" {
		at := rng.IntN(len(sents) + 1)
		sents = append(sents[:at], append([]string{special}, sents[at:]...)...)
		words += len(strings.Fields(special))
	}

	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %q\ntype: note\ntags: [%s]\n---\n\n# %s\n\n", title, slugPrefix, title)
	paras := 0
	for len(sents) > 0 {
		if paras > 0 && paras%3 == 0 && len(src.headings) > 0 {
			fmt.Fprintf(&b, "## %s\n\n", src.headings[rng.IntN(len(src.headings))])
		}
		n := min(2+rng.IntN(5), len(sents))
		b.WriteString(strings.Join(sents[:n], " "))
		b.WriteString("\n\n")
		sents = sents[n:]
		paras++
	}
	if rng.IntN(4) == 0 && len(src.timeline) > 0 {
		n := 1 + rng.IntN(4)
		entries := make([]string, 0, n)
		for range n {
			entries = append(entries, src.timeline[rng.IntN(len(src.timeline))])
		}
		sort.Strings(entries) // dated lines sort chronologically
		b.WriteString("## Timeline\n\n")
		for i, e := range entries {
			if i == 0 || e != entries[i-1] {
				b.WriteString(e)
				b.WriteString("\n")
			}
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n", words
}

// writePages writes DIR/bench/*.md and removes pages of an earlier, larger
// run, so the directory holds exactly this corpus.
func writePages(out string, pages []page) (int64, error) {
	dir := filepath.Join(out, slugPrefix)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("create output dir: %w", err)
	}
	want := map[string]bool{}
	var size int64
	for _, p := range pages {
		name := filepath.Join(out, filepath.FromSlash(p.slug)+".md")
		if err := os.WriteFile(name, []byte(p.body), 0o644); err != nil {
			return 0, fmt.Errorf("write page: %w", err)
		}
		want[filepath.Base(name)] = true
		size += int64(len(p.body))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("list output dir: %w", err)
	}
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") && !want[e.Name()] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return 0, fmt.Errorf("remove stale page: %w", err)
			}
		}
	}
	return size, nil
}

// writeQueries writes the qrels file, one query per line for readable diffs.
func writeQueries(path string, qs []knownItem) error {
	var b bytes.Buffer
	b.WriteString(`{"schema_version":1,"queries":[` + "\n")
	for i, q := range qs {
		line, err := json.Marshal(q)
		if err != nil {
			return fmt.Errorf("encode query %s: %w", q.QueryID, err)
		}
		b.Write(line)
		if i < len(qs)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write queries: %w", err)
	}
	return nil
}
