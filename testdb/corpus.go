package testdb

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
)

// DebianPages returns up to n markdown pages written by nobody here: the
// package records of `apt-cache dumpavail` (name, short and long
// description), keyed by a file name made of the package name. Names that
// would not map to a plain slug (with '+', say) are left out, so the pages'
// slugs are their names. It fails the test, naming the fix, when apt-cache
// is missing or gives fewer than n usable records.
func DebianPages(t testing.TB, n int) map[string]string {
	t.Helper()
	pages, names, err := debianRecords()
	if err != nil {
		t.Fatalf("testdb: reading the Debian package records with 'apt-cache dumpavail' (run on Debian or Ubuntu, after 'apt-get update'): %v", err)
	}
	if len(names) < n {
		t.Fatalf("testdb: 'apt-cache dumpavail' gave %d usable package records, the test needs %d (run 'apt-get update')", len(names), n)
	}
	keep := map[string]string{}
	// Every len/n-th record, so the pages span the alphabet.
	for i := 0; i < n; i++ {
		k := names[i*len(names)/n]
		keep[k] = pages[k]
	}
	return keep
}

// debian holds the parsed package records, read once per test binary:
// `apt-cache dumpavail` and its parse cost about a CPU-second, and several
// tests of one package ask for pages. Callers get a map of their own.
var debian struct {
	once  sync.Once
	pages map[string]string
	names []string // the keys of pages, sorted
	err   error
}

func debianRecords() (pages map[string]string, names []string, err error) {
	debian.once.Do(func() { debian.pages, debian.names, debian.err = readDebianPages() })
	return debian.pages, debian.names, debian.err
}

func readDebianPages() (map[string]string, []string, error) {
	out, err := exec.Command("apt-cache", "dumpavail").Output()
	if err != nil {
		return nil, nil, err
	}
	pages := map[string]string{}
	var name, short string
	var long strings.Builder
	flush := func() {
		if name != "" && short != "" && validName(name) {
			if _, dup := pages[name+".md"]; !dup {
				pages[name+".md"] = "# " + name + "\n\n" + short + "\n\n" + long.String()
			}
		}
		name, short = "", ""
		long.Reset()
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	inDesc := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
			inDesc = false
		case strings.HasPrefix(line, "Package: "):
			name = strings.TrimPrefix(line, "Package: ")
			inDesc = false
		case strings.HasPrefix(line, "Description: "):
			short = strings.TrimPrefix(line, "Description: ")
			inDesc = true
		case inDesc && strings.HasPrefix(line, " "):
			if l := strings.TrimSpace(line); l == "." {
				long.WriteString("\n")
			} else {
				long.WriteString(l + "\n")
			}
		default:
			inDesc = false
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading the output of apt-cache dumpavail: %w", err)
	}
	names := make([]string, 0, len(pages))
	for k := range pages {
		names = append(names, k)
	}
	sort.Strings(names)
	return pages, names, nil
}

func validName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return s != "" && s[0] != '.' && s[0] != '-'
}
