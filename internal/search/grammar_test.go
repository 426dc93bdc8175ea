package search

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// parsed is brain.parse_query's answer, plus whether its strict query
// matches given texts (read as pages are, through brain.text_tsvector).
type parsed struct {
	Terms   []string
	Phrases []string
	Negated []string
	OR      int
}

func parse(t *testing.T, db *pgxpool.Pool, q string) parsed {
	t.Helper()
	var info []byte
	var p parsed
	if err := db.QueryRow(ctx(t), `SELECT (p).terms, (p).info FROM (SELECT brain.parse_query($1) p) s`, q).Scan(&p.Terms, &info); err != nil {
		t.Fatalf("brain.parse_query(%q): %v", q, err)
	}
	var i struct {
		Phrases []string `json:"phrases"`
		Negated []string `json:"negated"`
		OR      int      `json:"or_groups"`
	}
	if err := json.Unmarshal(info, &i); err != nil {
		t.Fatalf("brain.parse_query(%q) info %s: %v", q, info, err)
	}
	p.Phrases, p.Negated, p.OR = i.Phrases, i.Negated, i.OR
	return p
}

// strictMatches says whether a page holding text satisfies the query's
// strict reading (all word groups, phrases, negations).
func strictMatches(t *testing.T, db *pgxpool.Pool, q, text string) bool {
	t.Helper()
	var ok *bool
	if err := db.QueryRow(ctx(t), `SELECT brain.text_tsvector($2) @@ (brain.parse_query($1)).strict_q`, q, text).Scan(&ok); err != nil {
		t.Fatalf("matching %q against %q: %v", q, text, err)
	}
	return ok != nil && *ok
}

// TestQueryGrammar is the grammar of docs/retrieval.md, against the
// punctuation real queries carry.
func TestQueryGrammar(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t).Pool
	tests := []struct {
		name, q   string
		terms     []string // nil: not checked
		phrases   []string
		negated   []string
		or        int
		match     []string // page texts the strict reading accepts
		noMatch   []string // and rejects
		wantEmpty bool     // no indexable positive word
	}{
		{name: "spaced dash and parentheses are punctuation",
			q:     "Open source toolbox for Computational Fluid Dynamics (CFD) - binaries",
			terms: []string{"binari", "cfd", "comput", "dynam", "fluid", "open", "sourc", "toolbox"},
			match: []string{"CFD binaries: an open source toolbox for computational fluid dynamics"}},
		{name: "hyphenated word and comma",
			q:     "Distraction-free, themeable Markdown editor",
			terms: []string{"distract", "distraction-fre", "distractionfre", "editor", "free", "markdown", "themeabl"},
			match: []string{"a distraction-free themeable markdown editor", "distraction free, themeable Markdown editor",
				"distractionfree themeable markdown editor"},
			noMatch: []string{"themeable markdown editor"}},
		{name: "e-mail matches joined, hyphenated and split", q: "e-mail client",
			match:   []string{"an email client", "an e-mail client", "e mail client"},
			noMatch: []string{"mail client"}},
		{name: "x86-64", q: "x86-64 assembler", match: []string{"assembler for x86-64"}},
		{name: "C++", q: "C++ compiler", terms: []string{"c", "compil"}, match: []string{"a C++ compiler"}},
		{name: "version numbers", q: "Python 3.x bindings", match: []string{"bindings for Python 3.x"}},
		{name: "slash", q: "input/output library", match: []string{"an input/output library", "input and output library"},
			noMatch: []string{"an output library"}},
		{name: "slashed word is itself or all its parts", q: "PGP/MIME plugin", terms: []string{"mime", "pgp", "pgp/mime", "plugin"},
			match: []string{"a PGP/MIME plugin", "plugin for PGP and MIME"}, noMatch: []string{"a MIME plugin"}},
		{name: "slash after a hyphenated word", q: "sounds es-mx/g722", terms: []string{"/g722", "es", "es-mx", "esmx", "g722", "mx", "sound"},
			match: []string{"g722 sounds es-mx"}},
		{name: "question mark", q: "how do I rotate logs?", terms: []string{"log", "rotat"},
			match: []string{"rotate the logs daily"}},
		{name: "emoji", q: "rocket 🚀 launch", terms: []string{"launch", "rocket"}, match: []string{"launch the rocket"}},
		{name: "double dash is punctuation", q: "--sort order", terms: []string{"order", "sort"}},
		{name: "a one-letter flag is a word", q: "grep -e pattern", terms: []string{"e", "grep", "pattern"},
			negated: []string{}, match: []string{"grep -e pattern: the pattern", "grep, e pattern"}},
		{name: "a two-letter flag negates", q: "tar -xz archive", negated: []string{"xz"},
			match: []string{"tar archive"}, noMatch: []string{"tar archive, xz compressed"}},
		{name: "a hyphenated word after a dash negates", q: "client -e-mail", negated: []string{"e-mail"},
			match: []string{"a chat client"}, noMatch: []string{"an e-mail client"}},
		{name: "a negative number is a word", q: "offset -12 bytes", negated: []string{}, match: []string{"offset -12 bytes"}},
		{name: "a negative decimal is a word", q: "gain -1.5 dB", negated: []string{}},
		{name: "a number in other digits is a word", q: "offset -١٢ and -１２ bytes", negated: []string{}},
		{name: "a flag before punctuation is a word", q: "grep -v, pattern", negated: []string{}},
		{name: "a number ending a sentence is a word", q: "set it to -12.", negated: []string{}},
		{name: "a one-letter word with pluses is a word", q: "-C++ templates", negated: []string{}},
		{name: "dash inside a word is not negation", q: "real-time clock",
			negated: []string{}, match: []string{"realtime clock", "real-time clock", "real time clock"}},
		{name: "phrase and negation", q: `"quoted phrase" -excluded`,
			phrases: []string{"quoted phrase"}, negated: []string{"excluded"},
			match: []string{"a quoted phrase here"}, noMatch: []string{"phrase quoted", "a quoted phrase, excluded"}},
		{name: "curly quotes", q: "“quoted phrase”", phrases: []string{"quoted phrase"}},
		{name: "unclosed quote runs to the end", q: `zebra "quoted phrase`, phrases: []string{"quoted phrase"}},
		{name: "OR in capitals", q: "cats OR dogs food", or: 1,
			match: []string{"dogs food", "cats food"}, noMatch: []string{"cats and dogs"}},
		{name: "lower-case or is a word", q: "cats or dogs", or: 0, match: []string{"cats and dogs"}, noMatch: []string{"cats"}},
		{name: "accents fold", q: "café Straße", terms: []string{"cafe", "strass"}, match: []string{"Cafe in der Strasse"}},
		{name: "CJK bigrams", q: "打ち合わせ", terms: []string{"ち合", "わせ", "合わ", "打ち"},
			match: []string{"来週は東京で新しいプロジェクトの打ち合わせがあります"}},
		{name: "stop words only", q: "what is it?", wantEmpty: true},
		{name: "negation only", q: "-zebra", wantEmpty: true, negated: []string{"zebra"}},
		{name: "operators only", q: `OR - "" ( )`, wantEmpty: true},
		{name: "SQL-ish junk", q: `a & b | !c <-> 'd':*`, terms: []string{"b", "c", "d"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, db, tc.q)
			if tc.wantEmpty != (len(p.Terms) == 0) {
				t.Fatalf("parse_query(%q) terms = %v, want empty: %v", tc.q, p.Terms, tc.wantEmpty)
			}
			if tc.terms != nil && !slices.Equal(p.Terms, tc.terms) {
				t.Errorf("parse_query(%q) terms = %v, want %v", tc.q, p.Terms, tc.terms)
			}
			if tc.phrases != nil && !slices.Equal(p.Phrases, tc.phrases) {
				t.Errorf("parse_query(%q) phrases = %v, want %v", tc.q, p.Phrases, tc.phrases)
			}
			if tc.negated != nil && !slices.Equal(p.Negated, tc.negated) {
				t.Errorf("parse_query(%q) negated = %v, want %v", tc.q, p.Negated, tc.negated)
			}
			if p.OR != tc.or {
				t.Errorf("parse_query(%q) OR groups = %d, want %d", tc.q, p.OR, tc.or)
			}
			for _, m := range tc.match {
				if !strictMatches(t, db, tc.q, m) {
					t.Errorf("%q should match a page holding %q", tc.q, m)
				}
			}
			for _, m := range tc.noMatch {
				if strictMatches(t, db, tc.q, m) {
					t.Errorf("%q should not strictly match a page holding %q", tc.q, m)
				}
			}
		})
	}
}

// TestEveryScriptIsFound: CJK words inside an unspaced sentence, and
// accented words from unaccented queries, through both front-end calls.
func TestEveryScriptIsFound(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	seed(t, b.Pool, []page{
		{slug: "ja/meeting", title: "予定", chunks: []chunk{{ct, "来週は東京で新しいプロジェクトの打ち合わせがあります", "[1,0,0,0,0,0,0,0]"}}},
		{slug: "fr/cafe", title: "Notes", chunks: []chunk{{ct, "Le café est au coin de la rue", "[0,1,0,0,0,0,0,0]"}}},
		{slug: "de/street", title: "Adresse", chunks: []chunk{{ct, "Die Straße heißt Hauptstraße", "[0,0,1,0,0,0,0,0]"}}},
		{slug: "el/greek", title: "Σημειώσεις", chunks: []chunk{{ct, "Η συνάντηση είναι στην Αθήνα", "[0,0,0,1,0,0,0,0]"}}},
		{slug: "en/other", title: "Other", chunks: []chunk{{ct, "an unrelated page about gardening", "[0,0,0,0,1,0,0,0]"}}},
		{slug: "el/heading", title: "ΣΟΦΟΣ ΓΕΡΟΣ", chunks: []chunk{{ct, "Μια ιστορία για τη θάλασσα", "[0,0,0,0,0,1,0,0]"}}},
		{slug: "el/text", title: "Κείμενο", chunks: []chunk{{ct, "Ο λόγος του ψαρά στο λιμάνι", "[0,0,0,0,0,0,1,0]"}}},
	})
	tests := []struct{ q, want string }{
		{"東京", "ja/meeting"},
		{"打ち合わせ", "ja/meeting"},
		{"プロジェクト", "ja/meeting"},
		// Cut at its 33rd distinct character (brain.query_bound), a long
		// Japanese query still holds the sentence it was taken from.
		{"来週は東京で新しいプロジェクトの打ち合わせがあります。会議室は三階の大きな部屋です、資料を持参してください", "ja/meeting"},
		{"プロジェクトのplan", "ja/meeting"},
		{"cafe", "fr/cafe"},
		{"café", "fr/cafe"},
		{"Strasse", "de/street"},
		{"Straße", "de/street"},
		{"Αθήνα", "el/greek"},
		// Final sigma: a capital Σ lowers to σ, so ς is read as σ.
		{"σοφός", "el/heading"},
		{"σοφος γέρος", "el/heading"},
		{"ΛΟΓΟΣ", "el/text"},
		{"λόγος", "el/text"},
	}
	for _, tc := range tests {
		for name, call := range map[string]func() (*Response, error){
			"search": func() (*Response, error) { return Keyword(ctx(t), b.Pool, tc.q, Options{}, Tuning{}) },
			"query":  func() (*Response, error) { return Hybrid(ctx(t), b.Pool, tc.q, nil, Options{}, Tuning{}) },
		} {
			r, err := call()
			if err != nil {
				t.Fatalf("%s %q: %v", name, tc.q, err)
			}
			if len(r.Results) == 0 || r.Results[0].Slug != tc.want {
				var got []string
				for _, x := range r.Results {
					got = append(got, x.Slug)
				}
				t.Errorf("%s %q = %v, want %s first", name, tc.q, got, tc.want)
			}
		}
	}
}

// Snippets show text, not markup: a page found through Chinese or Japanese
// bigrams does not start with its heading's "#", a snippet starting at a
// setext title leaves out the === under it, and "a === b" in a sentence
// stays.
func TestSnippetsLeaveOutHeadingMarkup(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	seed(t, b.Pool, []page{
		{slug: "ja/tokyo", title: "東京", chunks: []chunk{{ct, "# 東京\n\n東京は日本の首都です。", "[1,0,0,0,0,0,0,0]"}}},
		{slug: "apt", title: "APT", chunks: []chunk{{ct, "APT\n===\n\nThe advanced package tool manages debs.", "[0,1,0,0,0,0,0,0]"}}},
		{slug: "eq", title: "Equality", chunks: []chunk{{ct, "Compare with a === b when types matter.", "[0,0,1,0,0,0,0,0]"}}},
	})
	for _, tc := range []struct {
		q, slug, prefix, contains, absent string
	}{
		{q: "首都", slug: "ja/tokyo", contains: "首都", absent: "#"},
		{q: "APT", slug: "apt", prefix: "APT The advanced", absent: "==="},
		{q: "compare types", slug: "eq", contains: "a === b"},
	} {
		r, err := Keyword(ctx(t), b.Pool, tc.q, Options{}, Tuning{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Results) != 1 || r.Results[0].Slug != tc.slug {
			t.Errorf("%s: %+v; want only %s", tc.q, r.Results, tc.slug)
			continue
		}
		sn := r.Results[0].Snippet
		if !strings.HasPrefix(sn, tc.prefix) || !strings.Contains(sn, tc.contains) || tc.absent != "" && strings.Contains(sn, tc.absent) {
			t.Errorf("%s: snippet %q; want it to start with %q, hold %q and not %q", tc.q, sn, tc.prefix, tc.contains, tc.absent)
		}
	}
}

// A Greek word found through its final sigma is also what the snippet
// shows: the highlight looks for the word as the chunk writes it (ς).
func TestGreekSnippetShowsTheWord(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	long := strings.Repeat("Η θάλασσα ήταν ήσυχη και το φως έπεφτε στα βράχια. ", 12)
	seed(t, b.Pool, []page{
		{slug: "el/long", title: "Ιστορία", chunks: []chunk{{ct, long + "Ο σοφός γέρος μίλησε στο τέλος.", "[1,0,0,0,0,0,0,0]"}}},
	})
	r, err := Keyword(ctx(t), b.Pool, "ΣΟΦΟΣ", Options{}, Tuning{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 1 || !strings.Contains(r.Results[0].Snippet, "σοφός") {
		t.Fatalf("ΣΟΦΟΣ: %+v; want el/long with a snippet around σοφός", r.Results)
	}
}
