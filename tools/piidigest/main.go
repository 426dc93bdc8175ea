// Command piidigest records what the PII detectors find on a large set of
// real and hostile inputs, one digest per input, so a change to internal/pii
// that must not change behaviour can be checked against the recording made
// before it:
//
//	go run ./tools/piidigest -o /tmp/before.digests          # before the change
//	go run ./tools/piidigest -compare /tmp/before.digests    # after it
//
// The inputs are text nobody here wrote, read at run time: every line of the
// long descriptions in `apt-cache dumpavail`, every text line of the manual
// pages under /usr/share/man, and each manual page whole (up to 64 KB), plus
// every string literal of internal/pii's and internal/scrub's tests, their fuzz
// seed corpora, the hostile inputs of internal/linearity, and each short
// literal repeated to 4 KB. For each input it records Find,
// Classify, FindForRedaction, scrub.Scrub and FindKinds for three groups of
// kinds (numbers alone, credentials alone, the tokens the number scanner
// sees through), so both modes of every scanner and the paths that skip
// detectors a caller did not ask for are covered.
//
// Run it from the repository root. It fails, naming the fix, when apt's
// package lists or the manual pages are missing.
package main

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pgbrain/pgbrain/internal/pii"
	"github.com/pgbrain/pgbrain/internal/realcorpus"
	"github.com/pgbrain/pgbrain/internal/scrub"
)

func main() {
	out := flag.String("o", "", "write the digests to this file")
	compare := flag.String("compare", "", "compare with the digests in this file and report every input whose findings differ")
	show := flag.Int("show", 20, "with -compare: how many differing inputs to print in full")
	flag.Parse()
	if (*out == "") == (*compare == "") || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: piidigest -o FILE | -compare FILE [-show N]   (run from the repository root)")
		os.Exit(2)
	}
	if err := run(*out, *compare, *show); err != nil {
		fmt.Fprintln(os.Stderr, "piidigest:", err)
		os.Exit(1)
	}
}

type input struct {
	id   string // source and index, stable for the same machine and tree
	text string
}

func run(out, compare string, show int) error {
	ins, err := inputs()
	if err != nil {
		return err
	}
	counts := map[string]int{}
	lines := make([]string, len(ins))
	total := sha256.New()
	for i, in := range ins {
		r := findings(in.text, counts)
		sum := sha256.Sum256([]byte(r))
		in := sha256.Sum256([]byte(in.text))
		lines[i] = ins[i].id + " " + hex.EncodeToString(in[:8]) + " " + hex.EncodeToString(sum[:8])
		total.Write([]byte(lines[i] + "\n"))
	}
	kinds := make([]string, 0, len(counts))
	for k, n := range counts {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(kinds)
	fmt.Printf("%d inputs, findings by call and kind: %s\ntotal digest %x\n", len(ins), strings.Join(kinds, " "), total.Sum(nil))
	if out != "" {
		return os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	}
	old, err := os.ReadFile(compare)
	if err != nil {
		return fmt.Errorf("reading the earlier digests: %w", err)
	}
	want := strings.Split(strings.TrimSuffix(string(old), "\n"), "\n")
	if len(want) != len(lines) {
		return fmt.Errorf("%s holds %d inputs, this run has %d: the input set changed (other man pages or package lists?), record both runs on the same machine and tree", compare, len(want), len(lines))
	}
	diff := 0
	for i := range lines {
		if lines[i] == want[i] {
			continue
		}
		if strings.Fields(lines[i])[1] != strings.Fields(want[i])[1] {
			return fmt.Errorf("input %s is not the one recorded in %s: the input set changed", ins[i].id, compare)
		}
		if diff < show {
			fmt.Printf("DIFF %s %q\n%s\n", ins[i].id, ins[i].text, findings(ins[i].text, map[string]int{}))
		}
		diff++
	}
	if diff > 0 {
		return fmt.Errorf("%d of %d inputs have other findings than recorded in %s", diff, len(lines), compare)
	}
	fmt.Printf("identical: %d of %d inputs have the findings recorded in %s\n", len(lines), len(lines), compare)
	return nil
}

// findings renders everything the detectors report for text, one call a
// line, and counts the matches by call and kind.
func findings(text string, counts map[string]int) string {
	var b strings.Builder
	matches := func(call string, ms []pii.Match) {
		b.WriteString(call)
		for _, m := range ms {
			fmt.Fprintf(&b, " %d-%d:%s:%s", m.Start, m.End, m.Kind, m.Category)
			counts[call+"."+m.Kind]++
		}
		b.WriteByte('\n')
	}
	matches("find", pii.Find(text))
	matches("redact", pii.FindForRedaction(text))
	matches("numbers", pii.FindKinds(text, pii.KindCard, pii.KindPhone, pii.KindSSN, pii.KindIPAddress, pii.KindCoordinates))
	matches("secrets", pii.FindKinds(text, pii.KindSecret, pii.KindAPIKey, pii.KindPrivateKey, pii.KindURLPassword))
	matches("tokens", pii.FindKinds(text, pii.KindEmail, pii.KindJWT, pii.KindBearer))
	fmt.Fprintf(&b, "classify %s\n", strings.Join(pii.Classify(text), ","))
	s := scrub.Scrub(text)
	if s != text {
		counts["scrub.changed"]++
	}
	fmt.Fprintf(&b, "scrub %q\n", s)
	return b.String()
}

var errNoSource = errors.New("a source of real text is missing")

func inputs() ([]input, error) {
	var ins []input
	add := func(src string, texts []string) {
		for i, t := range texts {
			ins = append(ins, input{fmt.Sprintf("%s:%d", src, i), t})
		}
	}
	debian, err := debianLines()
	if err != nil {
		return nil, err
	}
	add("debian", debian)
	lines, pages, err := manText()
	if err != nil {
		return nil, err
	}
	add("man", lines)
	add("manpage", pages)
	lits, err := testLiterals([]string{"internal/pii", "internal/scrub", "internal/linearity"})
	if err != nil {
		return nil, err
	}
	add("literal", lits)
	var repeated []string
	for _, l := range lits {
		if l != "" && len(l) <= 64 {
			repeated = append(repeated, strings.Repeat(l, 4096/len(l)+1)[:4096])
		}
	}
	add("repeated", repeated)
	return ins, nil
}

// debianLines is realcorpus.DebianLines, marked as a missing source.
func debianLines() ([]string, error) {
	lines, err := realcorpus.DebianLines()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoSource, err)
	}
	return lines, nil
}

// manText returns the distinct text lines of the manual pages (roff
// requests and comments left out, cut to 400 bytes) and each page's text
// whole, up to 64 KB, so detectors that span lines see real context.
func manText() (lines, pages []string, err error) {
	files, _ := filepath.Glob("/usr/share/man/*/*.gz")
	if len(files) < 100 {
		return nil, nil, fmt.Errorf("%w: found %d manual pages under /usr/share/man (apt-get install man-db manpages)", errNoSource, len(files))
	}
	sort.Strings(files)
	seen := map[string]bool{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			continue
		}
		raw, _ := io.ReadAll(io.LimitReader(zr, 1<<20))
		f.Close()
		var page strings.Builder
		for _, l := range strings.Split(string(raw), "\n") {
			l = strings.TrimSpace(l)
			if l == "" || l[0] == '.' || l[0] == '\'' {
				continue
			}
			if page.Len() < 64<<10 {
				page.WriteString(l + "\n")
			}
			if len(l) > 400 {
				l = l[:400]
			}
			if !seen[l] {
				seen[l] = true
				lines = append(lines, l)
			}
		}
		pages = append(pages, page.String())
	}
	return lines, pages, nil
}

// testLiterals returns every string literal of the _test.go files in dirs
// (and of linearity.go, which holds the hostile inputs of both packages'
// tests) and every string of their fuzz seed corpora, in file order.
func testLiterals(dirs []string) ([]string, error) {
	var out []string
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if dir == "internal/linearity" {
			files = append(files, filepath.Join(dir, "linearity.go"))
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("no tests in %s: run piidigest from the repository root", dir)
		}
		sort.Strings(files)
		fset := token.NewFileSet()
		for _, name := range files {
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				return nil, fmt.Errorf("reading the test literals: %w", err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						out = append(out, s)
					}
				}
				return true
			})
		}
		seeds, _ := filepath.Glob(filepath.Join(dir, "testdata", "fuzz", "*", "*"))
		sort.Strings(seeds)
		for _, name := range seeds {
			b, err := os.ReadFile(name)
			if err != nil {
				return nil, fmt.Errorf("reading the fuzz corpus: %w", err)
			}
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "string("); ok {
					if s, err := strconv.Unquote(strings.TrimSuffix(v, ")")); err == nil {
						out = append(out, s)
					}
				}
			}
		}
	}
	return out, nil
}
