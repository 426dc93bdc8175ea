package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/markdown"
	"github.com/pgbrain/pgbrain/testdb"
)

// Refused input exits 2 before any database is opened, naming the fix.
func TestSearchRefusesBadQueries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"oversized", []string{"search", strings.Repeat("a", 51201)}, "shorten it"},
		{"invalid UTF-8", []string{"query", "a\xffb"}, "re-encode it as UTF-8"},
		{"NUL", []string{"query", "a\x00b"}, "remove it"},
		{"bad detail", []string{"query", "--detail", "max", "x"}, "not one of low, medium, high"},
		{"bad limit", []string{"search", "--limit", "101", "x"}, "use 1 to 100"},
		{"no query", []string{"query"}, "give exactly one query"},
		{"short flag that is not one", []string{"search", "-n", "3", "ssh"}, "-n is not a flag of search"},
		{"query that starts with --", []string{"search", "--recurse"}, `goes after --, as in: pgbrain search -- "--recurse"`},
		{"query that starts with -- and a space", []string{"query", "-- recurse"}, "goes after --"},
		{"a flag after --", []string{"search", "--", "-grep cheat", "--limit", "3"}, `--limit is a flag of search, but it came after "--"`},
		{"a flag=value after --", []string{"query", "--", "-grep cheat", "--json"}, `--json is a flag of query, but it came after "--"`},
		{"a global flag after --", []string{"search", "--", "-recurse", "--home", "x"}, `--home is a flag of pgbrain, but it came after "--", which makes everything after it the query; put it before the command: pgbrain --home … search`},
		{"--version after -- is a word", []string{"search", "--", "node", "--version"}, `give exactly one query, quoted`},
		{"a pasted page, cut short", []string{"search", "--- title: x\n" + strings.Repeat("text ", 4000)}, `not a flag: "--- title: x\ntext text`},
		{"empty query", []string{"query", ""}, "the query is empty"},
		{"blank query", []string{"search", " \t "}, "the query is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"pgbrain", "--home", t.TempDir()}, tc.args...)
			code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
				t.Fatalf("exit %d, stderr %q, stdout %q; want exit 2 and %q on stderr only", code, stderr.String(), stdout.String(), tc.want)
			}
			// The message names the input, not all of it (a pasted page).
			if stderr.Len() > 400 {
				t.Errorf("stderr is %d bytes: %q", stderr.Len(), stderr.String())
			}
		})
	}
}

// TestSearchMetaIsBrainSearchMeta: `pgbrain query --json` and `pgbrain
// search --json` print brain.search's meta for the same call in SQL.
func TestSearchMetaIsBrainSearchMeta(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	pages := map[string]string{
		"widget-co.md": "---\ntitle: Widget Co\n---\nWidget Co makes real-time widgets in Zürich.\n",
		"gadget.md":    "---\ntitle: Gadget\n---\nA gadget is not a widget. Launched in March 2021.\n",
	}
	for name, body := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, errOut, code := pgbrain(t, url, "", "import", dir); code != 0 {
		t.Fatalf("import: exit %d: %s %s", code, out, errOut)
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, tc := range []struct{ cmd, q, sql string }{
		{"query", "realtime widgets Zurich", `SELECT meta FROM brain.search($1) LIMIT 1`},
		{"query", "when was the gadget launched?", `SELECT meta FROM brain.search($1) LIMIT 1`},
		{"query", "zzyzzx", `SELECT meta FROM brain.search($1) LIMIT 1`},
		{"search", `"not a widget" -gadget`, `SELECT meta FROM brain.search($1, detail => 'medium', vector_weight => 0, embed => false) LIMIT 1`},
	} {
		var raw []byte
		if err := conn.QueryRow(context.Background(), tc.sql, tc.q).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := pgbrain(t, url, "", tc.cmd, "--json", tc.q)
		if code != 0 {
			t.Fatalf("%s %q: exit %d: %s", tc.cmd, tc.q, code, errOut)
		}
		var got struct {
			Meta map[string]any `json:"meta"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s --json: %v\n%s", tc.cmd, err, out)
		}
		for _, k := range []string{"detail_resolved", "vector_enabled", "vector_ran", "vector_skipped", "parser", "keyword_scan"} {
			a, _ := json.Marshal(got.Meta[k])
			b, _ := json.Marshal(want[k])
			if string(a) != string(b) {
				t.Errorf("%s %q: meta %s = %s from the CLI, %s from SQL", tc.cmd, tc.q, k, a, b)
			}
		}
	}
}

// TestEmptyQuerySaysWhy: a query of punctuation or stop words answers
// nothing, and stderr says it held no word, while a real word that no page
// holds gets no such note.
func TestEmptyQuerySaysWhy(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# Widgets\nWidget Co makes widgets.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := pgbrain(t, url, "", "import", dir); code != 0 {
		t.Fatalf("import: exit %d: %s %s", code, out, errOut)
	}
	const noWord, onlyExcludes = "holds no word to search for", "only excludes words"
	for _, tc := range []struct {
		cmd, q string
		note   string // "" for none
	}{
		{"search", "?.,;:", noWord},
		{"query", "!!!", noWord},
		{"query", "the of and", noWord},
		{"search", "-widgets", onlyExcludes},
		{"search", "zzyzzx", ""},
	} {
		out, errOut, code := pgbrain(t, url, "", tc.cmd, tc.q)
		if code != 0 || !strings.Contains(out, "no results") {
			t.Fatalf("%s %q: exit %d, stdout %q, stderr %q", tc.cmd, tc.q, code, out, errOut)
		}
		for _, note := range []string{noWord, onlyExcludes} {
			if got := strings.Contains(errOut, note); got != (note == tc.note) {
				t.Errorf("%s %q: note %q shown %v, want %v; stderr %q", tc.cmd, tc.q, note, got, note == tc.note, errOut)
			}
		}
	}
}

// A --source that names no source is an error naming it, not "no results".
func TestSearchRefusesAnUnknownSource(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	for _, cmd := range []string{"search", "query"} {
		out, errOut, code := pgbrain(t, b.url, "", cmd, "--source", "nosuch", "widget")
		if code != 1 || !strings.Contains(errOut, `source "nosuch" does not exist`) || out != "" {
			t.Errorf("%s --source nosuch: exit %d, stdout %q, stderr %q; want exit 1 naming the source", cmd, code, out, errOut)
		}
		if out, errOut, code := pgbrain(t, b.url, "", cmd, "--source", "default", "widget"); code != 0 || !strings.Contains(out, "widget") {
			t.Errorf("%s --source default: exit %d, stdout %q, stderr %q", cmd, code, out, errOut)
		}
	}
}

// A setting a DBA stored wrong fails the search with the key named, and
// the HINT of the SQL error, which says how to fix it, is printed too.
func TestBadSettingPrintsTheFix(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	conn, err := pgx.Connect(context.Background(), b.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `INSERT INTO brain.config (key, value) VALUES ('search.initials', 'abc')`); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := pgbrain(t, b.url, "", "search", "widget")
	if code != 1 || !strings.Contains(errOut, "search.initials holds 'abc'") ||
		!strings.Contains(errOut, "pgbrain: hint:") || !strings.Contains(errOut, "DELETE FROM brain.config WHERE key = 'search.initials'") {
		t.Errorf("search with search.initials = 'abc': exit %d, stderr %q; want exit 1 naming the key and the DELETE that fixes it", code, errOut)
	}
}

// get reads SOURCE:SLUG, the form search prints for pages outside the
// default source.
func TestGetReadsTheSourceSlugFormSearchPrints(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	if _, errOut, code := pgbrain(t, b.url, "", "sources", "add", "work"); code != 0 {
		t.Fatalf("sources add: %s", errOut)
	}
	if _, errOut, code := pgbrain(t, b.url, "# Tokyo\n\nOffice in 東京.\n", "put", "--source", "work", "東京"); code != 0 {
		t.Fatalf("put: %s", errOut)
	}
	out, errOut, code := pgbrain(t, b.url, "", "search", "--source", "work", "東京")
	if code != 0 || !strings.Contains(out, "work:東京") {
		t.Fatalf("search: exit %d, %q, %q; want the page shown as work:東京", code, out, errOut)
	}
	if out, errOut, code := pgbrain(t, b.url, "", "get", "work:東京"); code != 0 || !strings.Contains(out, "Office in 東京") {
		t.Errorf("get work:東京: exit %d, %q, %q", code, out, errOut)
	}
	if _, errOut, code := pgbrain(t, b.url, "", "get", "--source", "default", "work:東京"); code != 2 || !strings.Contains(errOut, "--source") {
		t.Errorf("get --source default work:東京: exit %d, %q; want a usage error", code, errOut)
	}
	if _, errOut, code := pgbrain(t, b.url, "", "get", "wrok:東京"); code != 1 || !strings.Contains(errOut, `source "wrok" does not exist`) {
		t.Errorf("get wrok:東京: exit %d, %q; want it to say the source does not exist", code, errOut)
	}
	// The slug without its source: the source that holds it is named.
	if _, errOut, code := pgbrain(t, b.url, "", "get", "東京"); code != 1 || !strings.Contains(errOut, `source "work" holds it: pgbrain get work:東京`) {
		t.Errorf("get 東京: exit %d, %q; want it to name source work", code, errOut)
	}
	if _, errOut, code := pgbrain(t, b.url, "", "sources", "add", "home"); code != 0 {
		t.Fatalf("sources add: %s", errOut)
	}
	if _, errOut, code := pgbrain(t, b.url, "# Tokyo\n\nHome in 東京.\n", "put", "--source", "home", "東京"); code != 0 {
		t.Fatalf("put: %s", errOut)
	}
	if _, errOut, code := pgbrain(t, b.url, "", "get", "--source", "nowhere", "x"); code != 1 || strings.Contains(errOut, "holds it") {
		t.Errorf("get --source nowhere x: exit %d, %q", code, errOut)
	}
	if _, errOut, code := pgbrain(t, b.url, "", "get", "東京"); code != 1 || !strings.Contains(errOut, `sources "home", "work" hold it: pgbrain get home:東京`) {
		t.Errorf("get 東京 held by two sources: exit %d, %q; want both named", code, errOut)
	}
}

// get of a name typed as a file name ("C#", "My Page") that is no slug
// says which slug such a file imports as, or asks whether that page was
// meant when it exists; a plain missing slug gets no such hint.
func TestGetSuggestsTheSlugOfAFileName(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	for _, tt := range []struct {
		arg, hint string
	}{
		{"My Page", `imports as "my-page"`},
		{"Notes/Café Menu", `imports as "notes/café-menu"`},
		{"My Page.md", `a file named My Page.md imports as "my-page",`},
		// The page exists under the slug: named as what was meant.
		{"people/alice.MD", `did you mean "people/alice"? (a file named people/alice.md imports under that slug)`},
		// A name with no letter or digit, as its file imports.
		{"!!!", `a file named !!!.md imports as "xe84c538e"`},
		{"nosuch", ""},
	} {
		_, errOut, code := pgbrain(t, b.url, "", "get", tt.arg)
		if code == 0 || !strings.Contains(errOut, "page not found") {
			t.Errorf("get %q: exit %d, %q; want page not found", tt.arg, code, errOut)
		}
		if tt.hint != "" && !strings.Contains(errOut, tt.hint) {
			t.Errorf("get %q: %q; want the hint %s", tt.arg, errOut, tt.hint)
		}
		if tt.hint == "" && strings.Contains(errOut, "imports") {
			t.Errorf("get %q: %q; a valid slug that is missing needs no file-name hint", tt.arg, errOut)
		}
	}
}

// Of two files whose names map to one slug, get names the slug each was
// stored under: "Notes.md" the plain one, "notes.md" its suffixed one.
func TestGetSuggestsTheSlugOfACollidingFile(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	for name, body := range map[string]string{"Notes.md": "# Upper\n\nfirst\n", "notes.md": "# Lower\n\nsecond\n",
		"C.md": "# C\n\nthe language\n", "C#.md": "# C sharp\n\nthe other one\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, errOut, code := pgbrain(t, url, "", "import", dir); code != 0 {
		t.Fatalf("import: exit %d: %s %s", code, out, errOut)
	}
	suffixed := markdown.SuffixSlug("notes", "notes.md")
	for arg, hint := range map[string]string{
		"Notes.md":   `did you mean "notes"?`,
		"notes.md":   fmt.Sprintf("did you mean %q?", suffixed),
		"./notes.md": fmt.Sprintf("did you mean %q?", suffixed),
		// a name typed without .md is its file's name too
		"C#":    fmt.Sprintf("did you mean %q?", markdown.SuffixSlug("c", "C#.md")),
		"C#.md": fmt.Sprintf("did you mean %q?", markdown.SuffixSlug("c", "C#.md")),
	} {
		_, errOut, code := pgbrain(t, url, "", "get", arg)
		if code == 0 || !strings.Contains(errOut, hint) {
			t.Errorf("get %s: exit %d, %q; want %s", arg, code, errOut, hint)
		}
	}
	if out, errOut, code := pgbrain(t, url, "", "get", suffixed); code != 0 || !strings.Contains(out, "second") {
		t.Errorf("get %s: exit %d, %q %q; want the lower-case file's page", suffixed, code, out, errOut)
	}

	// A third file named as the first suffix: "A B.md" then takes the
	// second, and get names both candidates rather than the other file's.
	dir2 := t.TempDir()
	first := markdown.SuffixSlug("a-b", "A B.md")
	second := markdown.SuffixSlug("a-b", "A B.md#2")
	for name, body := range map[string]string{"A B.md": "one\n", "a-b.md": "two\n", first + ".md": "three\n"} {
		if err := os.WriteFile(filepath.Join(dir2, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, errOut, code := pgbrain(t, url, "", "sources", "add", "three"); code != 0 {
		t.Fatalf("sources add: %s %s", out, errOut)
	}
	if out, errOut, code := pgbrain(t, url, "", "import", "--source", "three", dir2); code != 0 {
		t.Fatalf("import: exit %d: %s %s", code, out, errOut)
	}
	want := fmt.Sprintf("did you mean %q or %q?", first, second)
	if _, errOut, code := pgbrain(t, url, "", "get", "three:A B.md"); code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("get three:A B.md: exit %d, %q; want %s", code, errOut, want)
	}
}

// A query longer than the part search reads says so on stderr; a short one
// does not.
func TestLongQuerySaysItWasCut(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	words := make([]string, 40)
	for i := range words {
		words[i] = fmt.Sprintf("widget%d", i)
	}
	dotted := make([]string, 100)
	for i := range dotted {
		dotted[i] = fmt.Sprintf("widget%d", i)
	}
	for _, tt := range []struct {
		cmd, q string
		note   string // "" for none
	}{
		{"search", strings.Join(words, " "), "first 32 distinct words of 40"},
		{"query", strings.Join(words, " "), "first 32 distinct words of 40"},
		{"search", strings.Join(dotted, "·"), "first 64 word groups"},
		{"search", strings.Repeat(strings.Join(words, " ")+" ", 30), "first 32 distinct words of 40 or more"}, // 10,000 characters
		// one word of 10,000 characters: what was cut is characters
		{"search", strings.Repeat("x", 10000), "its first 4,096 of 10,000 characters"},
		// one word 200 times: the 129th word ends it
		{"search", strings.Repeat("widget ", 200), "its first 895 of 1,400 characters"},
		{"search", "widget", ""},
	} {
		_, errOut, code := pgbrain(t, b.url, "", tt.cmd, tt.q)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.cmd, code, errOut)
		}
		if got, want := strings.Contains(errOut, "only the start of the query"), tt.note != ""; got != want || !strings.Contains(errOut, tt.note) {
			t.Errorf("%s of %d characters: stderr %q; want the note %q", tt.cmd, len(tt.q), errOut, tt.note)
		}
	}
}

// TestDroppedPhraseIsNoted: when no page holds a quoted phrase as written,
// the answer (its words in any order) comes with a note on stderr, for
// search and query alike; a phrase that matches gets none.
func TestDroppedPhraseIsNoted(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "chess.md"), []byte("---\ntitle: Chess\n---\nA strategy game for two players.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := pgbrain(t, url, "", "import", dir); code != 0 {
		t.Fatalf("import: exit %d: %s %s", code, out, errOut)
	}
	for _, cmd := range []string{"search", "query"} {
		out, errOut, code := pgbrain(t, url, "", cmd, `"game strategy"`)
		if code != 0 || !strings.Contains(out, "chess") || !strings.Contains(errOut, "no page holds the quoted phrase") {
			t.Errorf("%s \"game strategy\": exit %d, stdout %q, stderr %q; want chess and the note", cmd, code, out, errOut)
		}
		out, errOut, code = pgbrain(t, url, "", cmd, `"strategy game"`)
		if code != 0 || !strings.Contains(out, "chess") || strings.Contains(errOut, "quoted phrase") {
			t.Errorf("%s \"strategy game\": exit %d, stdout %q, stderr %q; want chess and no note", cmd, code, out, errOut)
		}
	}
}

// An answer a -word narrowed names the words it left out (a pasted
// "find . -name x" excludes pages holding "name"), and a one-letter flag
// is a word, not an exclusion.
func TestNegatedWordsAreNoted(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	for name, body := range map[string]string{
		"find.md":   "---\ntitle: find\n---\nSearch for files by name in a directory hierarchy.\n",
		"locate.md": "---\ntitle: locate\n---\nFind files in a database of files.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, errOut, code := pgbrain(t, url, "", "import", dir); code != 0 {
		t.Fatalf("import: exit %d: %s %s", code, out, errOut)
	}
	for _, cmd := range []string{"search", "query"} {
		out, errOut, code := pgbrain(t, url, "", cmd, "files -name")
		if code != 0 || !strings.Contains(out, "locate") || strings.Contains(out, "find") || !strings.Contains(errOut, `pages holding "name" were left out`) {
			t.Errorf("%s 'files -name': exit %d, stdout %q, stderr %q; want locate, not find, and the note", cmd, code, out, errOut)
		}
		out, errOut, code = pgbrain(t, url, "", cmd, "files -n")
		if code != 0 || !strings.Contains(out, "find") || strings.Contains(errOut, "left out") {
			t.Errorf("%s 'files -n': exit %d, stdout %q, stderr %q; want find and no note", cmd, code, out, errOut)
		}
		// The note quotes the query's words, so a word the scrubbed query
		// no longer holds after its dash is not named: an email or key, and
		// a password glued to mysql's -p, which the scrubber reads only as
		// typed, with its dash.
		for q, secret := range map[string]string{
			"files -john.smith@example.com":   "john.smith@example.com",
			"files -AKIAIOSFODNN7EXAMPLE":     "AKIAIOSFODNN7EXAMPLE",
			"files mysql -u root -pMyP4ssQ1x": "MyP4ssQ1x",
		} {
			_, errOut, code = pgbrain(t, url, "", cmd, "--", q)
			if code != 0 || strings.Contains(errOut, secret) || !strings.Contains(errOut, `pages holding a word written after a dash were left out`) {
				t.Errorf("%s %q: exit %d, stderr %q; want the note without the word", cmd, q, code, errOut)
			}
		}
	}
}

// An answer whose every row came from the vector arm (no page holds a word
// of the query) says so; an answer with keyword matches does not.
func TestVectorOnlyAnswerIsNoted(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	const note = "no page holds a word of the query"
	out, errOut, code := pgbrain(t, b.url, "", "query", "Привет мир")
	if code != 0 || strings.TrimSpace(out) == "" || strings.Contains(out, "no results") {
		t.Fatalf("query Привет мир: exit %d, stdout %q, stderr %q; want vector-arm rows", code, out, errOut)
	}
	if !strings.Contains(errOut, note) {
		t.Errorf("query Привет мир: stderr %q, want the note %q", errOut, note)
	}
	out, errOut, code = pgbrain(t, b.url, "", "query", "mutex lock")
	if code != 0 || strings.Contains(errOut, note) {
		t.Errorf("query mutex lock: exit %d, stderr %q; want no vector-only note", code, errOut)
	}
	// One page holds the words; the vector arm fills the answer with the
	// other two, and the note says which rows are which.
	if rows := strings.Count(out, "\n") - 1; rows != 3 || !strings.Contains(errOut, "only the first 1 result holds a word of the query; the other 2 are the nearest chunks by the vector arm") {
		t.Errorf("query mutex lock: %d rows, stderr %q; want 3 rows and the fill note", rows, errOut)
	}
	if _, errOut, code := pgbrain(t, b.url, "", "search", "mutex lock"); code != 0 || strings.Contains(errOut, "nearest chunks") {
		t.Errorf("search mutex lock: exit %d, stderr %q; want no vector note (keyword only)", code, errOut)
	}
	// Pages holding "mutex" were all left out by "-lock": the note says a
	// -word did it, not that no page holds the words.
	out, errOut, code = pgbrain(t, b.url, "", "query", "mutex -lock")
	if code != 0 || !strings.Contains(errOut, "without a word it excludes") {
		t.Errorf("query mutex -lock: exit %d, stdout %q, stderr %q; want the note naming the excluded word", code, out, errOut)
	}
}

// A word only a timeline holds, asked for with --detail low (compiled truth
// only): the note says the detail left it out, not that no page holds it.
func TestVectorOnlyNoteNamesDetailLow(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	page := "# Ledger\n\nThe accounts of the year.\n\n## Timeline\n\n- 2024-03-01: zorblax audit passed\n"
	if err := os.WriteFile(filepath.Join(dir, "ledger.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := pgbrain(t, url, "", "import", dir); code != 0 {
		t.Fatalf("import: exit %d: %s %s", code, out, errOut)
	}
	_, errOut, code := pgbrain(t, url, "", "query", "--detail", "low", "zorblax")
	if code != 0 || !strings.Contains(errOut, "detail low leaves timelines out") || strings.Contains(errOut, "no page holds a word") {
		t.Errorf("query --detail low zorblax: exit %d, stderr %q; want the note naming detail low", code, errOut)
	}
	out, errOut, code := pgbrain(t, url, "", "query", "zorblax")
	if code != 0 || !strings.Contains(out, "ledger") || strings.Contains(errOut, "vector arm alone") {
		t.Errorf("query zorblax: exit %d, stdout %q, stderr %q; want the ledger and no note", code, out, errOut)
	}
}

// list --type finds a type as import stores it, and says so when no page
// has the type asked for, naming the types in use.
func TestListTypeNote(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	out, _, code := pgbrain(t, b.url, "", "list", "--json")
	var p struct{ Type string }
	if code != 0 || json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &p) != nil || p.Type == "" {
		t.Fatalf("list --json: exit %d, %q", code, out)
	}
	out, errOut, code := pgbrain(t, b.url, "", "list", "--type", strings.ToUpper(p.Type))
	if code != 0 || !strings.Contains(out, p.Type) || strings.Contains(errOut, "no page has") {
		t.Errorf("list --type %s: exit %d, stdout %q, stderr %q; want its pages and no note", strings.ToUpper(p.Type), code, out, errOut)
	}
	out, errOut, code = pgbrain(t, b.url, "", "list", "--type", "No Such Type")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(errOut, `no page has the type "no-such-type"; the types in use: `) || !strings.Contains(errOut, p.Type) {
		t.Errorf("list --type No Such Type: exit %d, stdout %q, stderr %q; want the header and the note", code, out, errOut)
	}
	out, errOut, code = pgbrain(t, b.url, "", "list", "--type", "???")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(errOut, `the type "???" holds no letter or digit`) {
		t.Errorf("list --type ???: exit %d, stdout %q, stderr %q; want the header and the note", code, out, errOut)
	}
}

// stderr is scrubbed, but a slug or type derived from what was typed is
// not recognisable as the secret it came from: such a form is not printed
// either. delete reads SOURCE:SLUG as get does and names the slug deleted.
func TestTypedSecretsAreNotRepeatedDerived(t *testing.T) {
	t.Parallel()
	b := tinyBrain(t)
	for _, tc := range []struct {
		args   []string
		stdin  string
		hidden []string
	}{
		{[]string{"get", "password=hunter2"}, "", []string{"hunter2"}},
		{[]string{"get", "AKIAIOSFODNN7EXAMPLE"}, "", []string{"akiaiosfodnn7example", "AKIAIOSFODNN7EXAMPLE"}},
		{[]string{"put", "password=hunter2"}, "# x\n", []string{"hunter2"}},
		{[]string{"delete", "AKIAIOSFODNN7EXAMPLE"}, "", []string{"akiaiosfodnn7example"}},
		{[]string{"list", "--type", "password=hunter2"}, "", []string{"hunter2"}},
		// (a label and its value, not SOURCE:SLUG)
		{[]string{"get", "password: Hunter22zz"}, "", []string{"unter22zz"}},
		{[]string{"delete", "Authorization: Token 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"}, "", []string{"0a1b2c3d4e5f"}},
	} {
		_, errOut, _ := pgbrain(t, b.url, tc.stdin, tc.args...)
		for _, h := range tc.hidden {
			if strings.Contains(errOut, h) {
				t.Errorf("%q: stderr %q repeats %q", tc.args, errOut, h)
			}
		}
		if !strings.Contains(errOut, "[REDACTED]") {
			t.Errorf("%q: stderr %q, want the typed value redacted", tc.args, errOut)
		}
	}
	b.must("sources", "add", "w2")
	if _, errOut, code := pgbrain(t, b.url, "# Gone\n\ntext\n", "put", "--source", "w2", "Gone"); code != 0 {
		t.Fatalf("put --source w2 Gone: exit %d: %s", code, errOut)
	}
	if _, errOut, code := pgbrain(t, b.url, "", "delete", "w2:Gone"); code != 0 || !strings.Contains(errOut, "deleted w2:gone") {
		t.Errorf("delete w2:Gone: exit %d, stderr %q; want it deleted, named w2:gone", code, errOut)
	}
	if _, _, code := pgbrain(t, b.url, "", "get", "w2:gone"); code == 0 {
		t.Error("get w2:gone after delete: found")
	}
}
