// Command realtext builds a known-item retrieval check from text nobody on
// this project wrote: Debian's package descriptions or the machine's manual
// pages. It writes one markdown page per package (or manual page) and a qrels
// file whose queries are the short descriptions (or the NAME lines), which
// never appear in the pages.
//
//	go run ./tools/realtext -source debian -pages 20000 -queries 500 -out DIR -qrels FILE
//	go run ./tools/realtext -source man    -pages 20000 -queries 500 -out DIR -qrels FILE
//
// debian: package names and short descriptions come from `apt-cache
// dumpavail`, long descriptions from apt's Translation-en lists (fetched by
// `apt-get update -o Acquire::Languages=en`). A page is titled with the
// package name and holds the long description; the query is the short
// description. Packages whose long description is shared with another
// package are left out, so every query has exactly one right page.
//
// man: every English manual page under /usr/share/man/man[1-9] that is a
// regular file with a NAME section. The query is the NAME line's text after
// the dash; the page is titled with the page's name and holds the rest of the
// page with roff markup stripped.
//
// The same -seed gives the same pages and queries on the same machine.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/pgbrain/pgbrain/internal/markdown"
)

type doc struct {
	name  string // title
	slug  string
	query string
	body  string
}

func main() {
	source := flag.String("source", "debian", "debian or man")
	pages := flag.Int("pages", 20000, "number of pages to write")
	nq := flag.Int("queries", 500, "number of known-item queries")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("out", "", "directory to write pages into (required)")
	qrels := flag.String("qrels", "", "qrels file to write (required)")
	flag.Parse()
	if *out == "" || *qrels == "" || *pages < 1 || *nq < 1 || *nq > *pages || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: realtext -source debian|man -out DIR -qrels FILE [-pages N] [-queries N] [-seed S]")
		os.Exit(2)
	}
	var docs []doc
	var err error
	switch *source {
	case "debian":
		docs, err = debianDocs()
	case "man":
		docs, err = manDocs("/usr/share/man")
	default:
		fmt.Fprintf(os.Stderr, "realtext: -source %q is not debian or man\n", *source)
		os.Exit(2)
	}
	if err == nil {
		err = write(docs, *pages, *nq, *seed, *out, *qrels)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "realtext:", err)
		os.Exit(1)
	}
}

var slugBad = regexp.MustCompile(`[^a-z0-9._-]+`)

func slugOf(prefix, name string) string {
	s := slugBad.ReplaceAllString(strings.ToLower(strings.ReplaceAll(name, "+", "-plus-")), "-")
	s = strings.Trim(s, "-._")
	if s == "" {
		s = "x"
	}
	return prefix + "/" + s
}

// debianDocs joins `apt-cache dumpavail` (name, short description, md5 of
// the long description) with the Translation-en lists (the long text).
func debianDocs() ([]doc, error) {
	lists, _ := filepath.Glob("/var/lib/apt/lists/*_i18n_Translation-en*")
	if len(lists) == 0 {
		return nil, errors.New("no Translation-en lists under /var/lib/apt/lists: run `apt-get update -o Acquire::Languages=en` first (the long descriptions live there)")
	}
	long := map[string]string{} // md5 -> long description
	for _, l := range lists {
		b, err := exec.Command("/usr/lib/apt/apt-helper", "cat-file", l).Output()
		if err != nil {
			return nil, fmt.Errorf("reading %s with apt-helper cat-file: %w", l, err)
		}
		for _, rec := range parseStanzas(b) {
			md5 := rec["Description-md5"]
			d := rec["Description-en"]
			if md5 == "" || d == "" {
				continue
			}
			if i := strings.IndexByte(d, '\n'); i >= 0 {
				long[md5] = cleanDebian(d[i+1:])
			}
		}
	}
	b, err := exec.Command("apt-cache", "dumpavail").Output()
	if err != nil {
		return nil, fmt.Errorf("running apt-cache dumpavail: %w", err)
	}
	seen := map[string]bool{}
	bodyCount := map[string]int{}
	var docs []doc
	for _, rec := range parseStanzas(b) {
		name, short := rec["Package"], rec["Description"]
		body := long[rec["Description-md5"]]
		if name == "" || short == "" || len(body) < 40 || seen[name] {
			continue
		}
		seen[name] = true
		bodyCount[body]++
		docs = append(docs, doc{name: name, slug: slugOf("debian", name), query: short, body: body})
	}
	out := docs[:0]
	for _, d := range docs {
		if bodyCount[d.body] == 1 {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("apt-cache dumpavail and Translation-en share no package; run `apt-get update -o Acquire::Languages=en`")
	}
	return out, nil
}

// parseStanzas reads deb822 records; continuation lines are kept with
// their newline.
func parseStanzas(b []byte) []map[string]string {
	var recs []map[string]string
	cur := map[string]string{}
	var key string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if len(cur) > 0 {
				recs = append(recs, cur)
				cur = map[string]string{}
			}
		case line[0] == ' ' || line[0] == '\t':
			if key != "" {
				cur[key] += "\n" + line[1:]
			}
		default:
			if i := strings.IndexByte(line, ':'); i > 0 {
				key = line[:i]
				cur[key] = strings.TrimSpace(line[i+1:])
			}
		}
	}
	if len(cur) > 0 {
		recs = append(recs, cur)
	}
	return recs
}

// cleanDebian turns deb822 description continuation lines into paragraphs.
func cleanDebian(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "." {
			b.WriteString("\n\n")
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String())
}

var (
	roffFont   = regexp.MustCompile(`\\f(\[[^\]]*\]|\(..|.)`)
	roffSpecl  = regexp.MustCompile(`\\(\(..|\[[^\]]*\])`)
	roffEscape = regexp.MustCompile(`\\[&|^/,%:~0 ]|\\[*n]\(?..?|\\s[-+]?\d`)
	roffMacro  = regexp.MustCompile(`^[.'](B|I|BR|RB|IR|RI|BI|IB|SM|SB)\s+`)
)

// roffText strips the common man(7) markup from one line.
func roffText(l string) string {
	l = roffFont.ReplaceAllString(l, "")
	l = strings.ReplaceAll(l, `\-`, "-")
	l = strings.ReplaceAll(l, `\e`, `\`)
	l = roffEscape.ReplaceAllString(l, "")
	l = roffSpecl.ReplaceAllString(l, " ")
	if roffMacro.MatchString(l) {
		l = roffMacro.ReplaceAllString(l, "")
		l = strings.ReplaceAll(l, `"`, "")
	} else if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
		if strings.HasPrefix(l, ".SH") || strings.HasPrefix(l, ".SS") {
			return strings.Trim(strings.TrimSpace(l[3:]), `"`)
		}
		return ""
	}
	return l
}

func manDocs(root string) ([]doc, error) {
	files, _ := filepath.Glob(filepath.Join(root, "man[1-9]", "*"))
	if len(files) == 0 {
		return nil, fmt.Errorf("no manual pages under %s/man[1-9]: install some (apt-get install manpages manpages-dev)", root)
	}
	sort.Strings(files)
	var docs []doc
	seen := map[string]bool{}
	for _, f := range files {
		fi, err := os.Lstat(f)
		if err != nil || !fi.Mode().IsRegular() { // symlinks are aliases of another page
			continue
		}
		src, err := readMaybeGz(f)
		if err != nil {
			continue
		}
		name, query, body := splitMan(src)
		if name == "" || query == "" || len(body) < 40 {
			continue
		}
		base := strings.TrimSuffix(filepath.Base(f), ".gz")
		slug := slugOf("man", base)
		if seen[slug] {
			continue
		}
		seen[slug] = true
		docs = append(docs, doc{name: name, slug: slug, query: query, body: body})
	}
	return docs, nil
}

func readMaybeGz(f string) (string, error) {
	fh, err := os.Open(f)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	var r io.Reader = fh
	if strings.HasSuffix(f, ".gz") {
		z, err := gzip.NewReader(fh)
		if err != nil {
			return "", err
		}
		r = z
	}
	b, err := io.ReadAll(io.LimitReader(r, 4<<20))
	return string(b), err
}

// splitMan returns the NAME line's names and description and the rest of
// the page as text. Pages that only include another (.so) have no NAME.
func splitMan(src string) (name, query, body string) {
	var b strings.Builder
	inName := false
	var nameLine strings.Builder
	for _, raw := range strings.Split(src, "\n") {
		if strings.HasPrefix(raw, ".SH") || strings.HasPrefix(raw, ".Sh") {
			h := strings.ToUpper(strings.Trim(strings.TrimSpace(raw[3:]), `"`))
			inName = h == "NAME"
			if inName {
				continue
			}
		}
		if inName {
			if t := strings.TrimSpace(roffText(raw)); t != "" {
				nameLine.WriteString(t + " ")
			}
			continue
		}
		if t := roffText(raw); strings.TrimSpace(t) != "" {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	nl := strings.TrimSpace(nameLine.String())
	i := strings.Index(nl, " - ")
	if i < 0 {
		return "", "", ""
	}
	return strings.TrimSpace(nl[:i]), strings.TrimSpace(nl[i+3:]), strings.TrimSpace(b.String())
}

type qrel struct {
	QueryID           string   `json:"query_id"`
	Query             string   `json:"query"`
	Style             string   `json:"style"`
	RelevantSlugs     []string `json:"relevant_slugs"`
	FirstRelevantSlug string   `json:"first_relevant_slug"`
}

func write(docs []doc, pages, nq int, seed uint64, out, qrelsPath string) error {
	sort.Slice(docs, func(i, j int) bool { return docs[i].slug < docs[j].slug })
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	if len(docs) > pages {
		docs = docs[:pages]
	}
	if nq > len(docs) {
		nq = len(docs)
	}
	for _, d := range docs {
		p := filepath.Join(out, d.slug+".md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(p), err)
		}
		title, _ := json.Marshal(d.name) // a JSON string is a valid YAML scalar
		text := fmt.Sprintf("---\ntitle: %s\n---\n\n%s\n", title, d.body)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return fmt.Errorf("writing page %s: %w", p, err)
		}
	}
	var b bytes.Buffer
	b.WriteString(`{"schema_version":1,"queries":[` + "\n")
	for i, d := range docs[:nq] {
		// The slug the page gets on import (runs of '-' collapse: "g++"
		// is written g-plus--plus- but stored as g-plus-plus), not the
		// file name, or the right page could never be found.
		slug, err := markdown.SlugFromPath(d.slug + ".md")
		if err != nil {
			return fmt.Errorf("deriving the slug of %s: %w", d.slug, err)
		}
		line, err := json.Marshal(qrel{fmt.Sprintf("k%d", i+1), d.query, "known-item", []string{slug}, slug})
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		b.Write(line)
	}
	b.WriteString("\n]}\n")
	if err := os.WriteFile(qrelsPath, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing qrels %s: %w", qrelsPath, err)
	}
	fmt.Fprintf(os.Stderr, "realtext: %d pages in %s, %d queries in %s\n", len(docs), out, nq, qrelsPath)
	return nil
}
