package testdb

import (
	"bufio"
	"bytes"
	"os/exec"
	"sort"
	"strings"
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
	out, err := exec.Command("apt-cache", "dumpavail").Output()
	if err != nil {
		t.Fatalf("testdb: reading the Debian package records with 'apt-cache dumpavail' (run on Debian or Ubuntu, after 'apt-get update'): %v", err)
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
	if len(pages) < n {
		t.Fatalf("testdb: 'apt-cache dumpavail' gave %d usable package records, the test needs %d (run 'apt-get update')", len(pages), n)
	}
	names := make([]string, 0, len(pages))
	for k := range pages {
		names = append(names, k)
	}
	sort.Strings(names)
	keep := map[string]string{}
	// Every len/n-th record, so the pages span the alphabet.
	for i := 0; i < n; i++ {
		k := names[i*len(names)/n]
		keep[k] = pages[k]
	}
	return keep
}

func validName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return s != "" && s[0] != '.' && s[0] != '-'
}
