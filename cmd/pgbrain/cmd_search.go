package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pgbrain/pgbrain/internal/columns"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/scrub"
	"github.com/pgbrain/pgbrain/internal/search"
)

func searchFlags(withDetail bool) []cli.Flag {
	fs := []cli.Flag{
		&cli.IntFlag{Name: "limit", Value: 10, Usage: fmt.Sprintf("number of results (1-%d)", search.MaxLimit)},
		&cli.StringSliceFlag{Name: "source", Usage: "only search this source id (repeatable)"},
		&cli.BoolFlag{Name: "json", Usage: "print every result field and meta as JSON"},
	}
	if withDetail {
		fs = append(fs, &cli.StringFlag{Name: "detail", Usage: "low (compiled truth only), medium (with source boosts) or high (everything, no boost); default: detected from the query"},
			&cli.BoolFlag{Name: "expand", Usage: "query expansion: the chat model (PGBRAIN_CHAT_*) proposes rephrasings, searched and fused with the query; cached in the brain"},
			&cli.IntFlag{Name: "variants", Value: expand.DefaultVariants, Usage: fmt.Sprintf("with --expand, how many rephrasings to search (1-%d)", expand.AskVariants)})
	}
	return fs
}

// queryGrammarHelp is the query syntax in brief (docs/retrieval.md, "Query
// grammar", has all of it).
const queryGrammarHelp = `A query is a bag of words. Syntax counts only where it is clearly meant:
"a quoted phrase" must match in that order (dropped, with a note in --json
meta, when no page holds it); -word leaves out pages holding the word; OR in
capitals lets either of two words satisfy the strict match. A hyphenated
word matches its hyphenated, joined and split forms. A query that starts
with '-' goes after --, as in: -- "--recurse".`

func searchCommand() *cli.Command {
	return &cli.Command{
		Name:        "search",
		Usage:       "keyword search (BM25 over the full-text index)",
		ArgsUsage:   "QUERY",
		Description: queryGrammarHelp,
		Flags:       searchFlags(false),
		Action: func(c *cli.Context) error {
			q, o, err := searchArgs(c, "search")
			if err != nil {
				return err
			}
			return withBrain(c, brain.RoleReader, func(ctx context.Context, b *brain.Brain) error {
				if err := knownSources(ctx, b, o.SourceIDs); err != nil {
					return err
				}
				// Drained as this returns, before withBrain closes the pool.
				rec := captureRecorder(c, b)
				defer rec.Close(context.WithoutCancel(ctx))
				r, err := search.Keyword(ctx, b.Pool, q, o, search.Tuning{})
				if err != nil {
					return err
				}
				rec.Record(ctx, r, capture.Caller{})
				answerNotes(c.App.ErrWriter, q, r)
				return printResponse(c.App.Writer, r, c.Bool("json"))
			})
		},
	}
}

// answerNotes prints, for search and query alike, the notes that keep an
// answer from being misread: no word to search for, a dropped phrase, a cut
// query, an answer of vector matches alone. They quote the query's words
// (a -word as typed), so they are scrubbed like every other copy of it.
func answerNotes(w io.Writer, q string, r *search.Response) {
	w = scrub.NewWriter(w)
	noWordsNote(w, r)
	negatedNote(w, q, r)
	phrasesNote(w, r)
	cutNote(w, r)
	vectorOnlyNote(w, r)
	vectorFillNote(w, r)
}

// vectorFillNote says when the keyword matches ran out before the answer
// did and the vector arm filled the rest: "東京" held by two pages answers
// with those two and eight nearest chunks, which, with the local embedder,
// are seldom related. Said only when every keyword match comes first, as
// a fill puts them; a fused answer interleaves the arms.
func vectorFillNote(w io.Writer, r *search.Response) {
	matched := 0
	for matched < len(r.Results) && r.Results[matched].KeywordRank != nil {
		matched++
	}
	if matched == 0 || matched == len(r.Results) {
		return
	}
	for _, res := range r.Results[matched:] {
		if res.KeywordRank != nil {
			return
		}
	}
	holds := "results hold"
	if matched == 1 {
		holds = "result holds"
	}
	fmt.Fprintf(w, "pgbrain: note: only the first %d %s a word of the query; the other %d are the nearest chunks by the vector arm, which may be unrelated (see docs/retrieval.md, \"Fusion and the trust rule\")\n",
		matched, holds, len(r.Results)-matched)
}

// vectorOnlyNote says when no result holds a word of the query: every row
// came from the vector arm, which always finds nearest chunks, related or
// not (with the local embedder, often not), so the rows are not read as
// matches of the words.
func vectorOnlyNote(w io.Writer, r *search.Response) {
	if len(r.Results) == 0 {
		return
	}
	for _, res := range r.Results {
		if res.KeywordRank != nil {
			return
		}
	}
	if negated, _ := r.Meta.Parser["negated"].([]any); len(negated) > 0 {
		// "budget -plan": pages holding "budget" may all hold "plan" too.
		fmt.Fprintln(w, "pgbrain: note: no page holds a word of the query without a word it excludes (-word); these are the nearest chunks by the vector arm alone, which may be unrelated (see docs/retrieval.md, \"Fusion and the trust rule\")")
		return
	}
	if d := r.Meta.DetailResolved; d != nil && *d == "low" {
		// --detail low searched compiled truth only: a timeline may hold them.
		fmt.Fprintln(w, "pgbrain: note: no page's compiled truth holds a word of the query (detail low leaves timelines out: try --detail medium); these are the nearest chunks by the vector arm alone, which may be unrelated (see docs/retrieval.md, \"Fusion and the trust rule\")")
		return
	}
	fmt.Fprintln(w, "pgbrain: note: no page holds a word of the query; these are the nearest chunks by the vector arm alone, which may be unrelated (see docs/retrieval.md, \"Fusion and the trust rule\")")
}

// noWordsNote says why an answer is empty when the query held no word to
// search for (only punctuation, symbols or stop words), so "no results" is
// not read as "nothing in the brain matches".
func noWordsNote(w io.Writer, r *search.Response) {
	terms, ok := r.Meta.Parser["terms"].([]any)
	if len(r.Results) == 0 && ok && len(terms) == 0 {
		if negated, _ := r.Meta.Parser["negated"].([]any); len(negated) > 0 {
			// "-gzip" alone: a negation excludes, it finds nothing by itself.
			fmt.Fprintln(w, "pgbrain: note: the query only excludes words (a word written -word excludes pages holding it); add a word to search for, or drop the dash to search for the word; see docs/retrieval.md, \"Query grammar\"")
			return
		}
		fmt.Fprintln(w, "pgbrain: note: the query holds no word to search for (only punctuation, symbols, stop words such as 'the', or words of 2,048 characters or more, which PostgreSQL does not index); see docs/retrieval.md, \"Query grammar\"")
	}
}

// negatedNote names the words a -word left out, when the answer has rows:
// a pasted command ("find . -name x") excludes pages holding "name"
// without looking as if it did. A word is named only where the scrubbed
// query still holds it after its dash: a secret glued to an option
// ("mysql -pS3cret") is redacted as typed, and without its dash it no
// longer looks like one.
func negatedNote(w io.Writer, q string, r *search.Response) {
	negated, _ := r.Meta.Parser["negated"].([]any)
	if len(r.Results) == 0 || len(negated) == 0 {
		return
	}
	safe := strings.ToLower(scrub.Scrub(q))
	var words []string
	for _, n := range negated {
		if word := fmt.Sprint(n); strings.Contains(safe, "-"+strings.ToLower(word)) {
			words = append(words, fmt.Sprintf("%q", word))
		}
	}
	held := "a word written after a dash"
	if len(words) > 0 {
		held = strings.Join(words, ", ")
	}
	fmt.Fprintf(w, "pgbrain: note: pages holding %s were left out (-word excludes a word; drop the dash or quote it to search for it; see docs/retrieval.md, \"Query grammar\")\n", held)
}

// phrasesNote says when the quoted phrases matched no page and were
// dropped, so the words-in-any-order answer is not taken for phrase matches.
func phrasesNote(w io.Writer, r *search.Response) {
	if dropped, _ := r.Meta.KeywordScan["phrases_dropped"].(bool); dropped {
		fmt.Fprintln(w, "pgbrain: note: no page holds the quoted phrase as written, so it was read as loose words; these results hold some of the query's words, in any order (see docs/retrieval.md, \"Query grammar\")")
	}
}

// cutNote says when only the start of a long query was read (docs/security.md,
// "Bounded queries"), so the answer is not taken for one to the whole text.
func cutNote(w io.Writer, r *search.Response) {
	cut, ok := r.Meta.Parser["cut"].(map[string]any)
	if !ok {
		return
	}
	if groups, ok := cut["groups_kept"].(float64); ok {
		fmt.Fprintf(w, "pgbrain: note: only the start of the query was searched: its first %d word groups (see docs/security.md, \"Bounded queries\")\n", int(groups))
		return
	}
	kept, _ := cut["words_kept"].(float64)
	total, _ := cut["words_total"].(float64)
	chars, _ := cut["chars_kept"].(float64)
	if kept >= 32 && kept < total {
		// The distinct-word limit cut it. words_total counts the words of
		// the first 8,192 characters only.
		more := ""
		if utf8.RuneCountInString(r.Query) > 8192 {
			more = " or more"
		}
		fmt.Fprintf(w, "pgbrain: note: only the start of the query was searched: its first %s distinct words of %s%s (see docs/security.md, \"Bounded queries\")\n", grouped(int(kept)), grouped(int(total)), more)
		return
	}
	// Cut by the word count, the characters, or inside one long word.
	fmt.Fprintf(w, "pgbrain: note: only the start of the query was searched: its first %s of %s characters (search reads up to 32 distinct words, 128 words or 4,096 characters; see docs/security.md, \"Bounded queries\")\n",
		grouped(int(chars)), grouped(utf8.RuneCountInString(r.Query)))
}

// grouped writes n with a comma between groups of three digits (4,096).
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// knownSources refuses a --source that names no source, which would
// otherwise read as "nothing matches".
func knownSources(ctx context.Context, b *brain.Brain, ids []string) error {
	for _, id := range ids {
		ok, err := b.SourceExists(ctx, id)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("source %q does not exist: 'pgbrain sources list' shows the sources", id)
		}
	}
	return nil
}

// hasFlag reports whether flags holds one named name.
func hasFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name && name != "" {
				return true
			}
		}
	}
	return false
}

// searchArgs validates what both commands share, before any database work.
func searchArgs(c *cli.Context, name string) (string, search.Options, error) {
	var o search.Options
	if c.NArg() != 1 {
		// A single-dash word is kept as a query word ("-emacs" negates), so
		// a mistyped flag such as -n arrives here as an extra argument.
		for _, a := range c.Args().Slice() {
			// A real flag after the query: it came after "--", which makes
			// every later argument part of the query.
			f, ok := strings.CutPrefix(strings.SplitN(a, "=", 2)[0], "--")
			if !ok {
				continue
			}
			if hasFlag(c.Command.Flags, f) {
				return "", o, usageError("%s: %s is a flag of %s, but it came after \"--\", which makes everything after it the query; put flags before it: pgbrain %s [flags] -- \"QUERY\"",
					name, a, name, name)
			}
			// One of pgbrain's own flags (--home, --database-url): those go
			// before the command. (--help and --version there would do
			// something else; as words they are left to the query.)
			if f != "help" && f != "version" && hasFlag(c.App.Flags, f) {
				return "", o, usageError("%s: %s is a flag of pgbrain, but it came after \"--\", which makes everything after it the query; put it before the command: pgbrain %s … %s [flags] -- \"QUERY\"",
					name, a, "--"+f, name)
			}
		}
		for _, a := range c.Args().Slice() {
			if len(a) > 1 && a[0] == '-' {
				return "", o, usageError("%s: give exactly one query, quoted (pgbrain %s \"QUERY\"); %s is not a flag of %s (see 'pgbrain %s --help'), and a -word that excludes pages goes inside the quoted query",
					name, name, a, name, name)
			}
		}
		return "", o, usageError("%s: give exactly one query, quoted (pgbrain %s \"QUERY\")", name, name)
	}
	q := c.Args().First()
	if strings.TrimSpace(q) == "" {
		return "", o, usageError("%s: the query is empty: give the words to search for (pgbrain %s \"QUERY\")", name, name)
	}
	if err := search.CheckQuery(q); err != nil {
		return "", o, usageError("%s: %v", name, err)
	}
	o.Limit = c.Int("limit")
	if o.Limit < 1 || o.Limit > search.MaxLimit {
		return "", o, usageError("%s: --limit %d is out of range; use 1 to %d", name, o.Limit, search.MaxLimit)
	}
	o.SourceIDs = c.StringSlice("source")
	return q, o, nil
}

func printResponse(w io.Writer, r *search.Response, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(r)
	}
	if len(r.Results) == 0 {
		_, err := fmt.Fprintln(w, "no results")
		return err
	}
	tw := columns.New(w, 2)
	fmt.Fprintln(tw, "RANK\tSLUG\tSCORE\tSNIPPET")
	for i, x := range r.Results {
		fmt.Fprintf(tw, "%d\t%s\t%.4f\t%s\n", i+1, pageName(x.SourceID, x.Slug), x.Score, clip(x.Snippet, 90))
	}
	return tw.Flush()
}

// pageName is a page as search prints it and get and delete read it: the
// slug, with its source in front (SOURCE:SLUG) outside the default source.
func pageName(source, slug string) string {
	if source != "default" {
		return source + ":" + slug
	}
	return slug
}

// clip shortens s to n characters on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-3]) + "..."
}

// captureRecorder returns the eval capture recorder for a command that runs
// query or search. It never fails the command: without a usable home it
// says so and returns nil, which captures nothing. Close it (deferred after
// the brain's Close, so it runs first) to drain pending captures at exit.
func captureRecorder(c *cli.Context, b *brain.Brain) *capture.Recorder {
	home, err := homeDir(c)
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: eval capture is off: %v\n", err)
		return nil
	}
	return capture.FromEnv(b.Pool, home, c.App.ErrWriter)
}
