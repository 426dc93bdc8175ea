package scrub

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pgbrain/pgbrain/internal/pii"
	"github.com/pgbrain/pgbrain/internal/realcorpus"
)

// realLines returns lines of text nobody here wrote: every long-description
// line of `apt-cache dumpavail` (63,000 Debian packages) and the text lines
// of the machine's manual pages, cut to 400 bytes (a long query). It fails,
// naming the fix, when either source is missing.
func realLines(t *testing.T) (debian, man []string) {
	t.Helper()
	debian = debianLines(t)
	// A manual-page line already among the descriptions is not counted twice.
	seen := make(map[string]bool, len(debian))
	for _, l := range debian {
		seen[l] = true
	}
	files, _ := filepath.Glob("/usr/share/man/*/*.gz")
	if len(files) < 100 {
		t.Fatalf("found %d manual pages under /usr/share/man; this test reads their text (apt-get install man-db manpages)", len(files))
	}
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
		sc := bufio.NewScanner(io.LimitReader(zr, 1<<20))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			l := strings.TrimSpace(sc.Text())
			// Text lines only: requests and comments are markup.
			if l == "" || l[0] == '.' || l[0] == '\'' {
				continue
			}
			if len(l) > 400 {
				l = l[:400]
			}
			if !seen[l] {
				seen[l] = true
				man = append(man, l)
			}
		}
		f.Close()
	}
	return debian, man
}

// debianText holds the description lines, read once for the tests that use
// them (apt-cache and the parse cost about a CPU-second each time).
var debianText struct {
	once  sync.Once
	lines []string
	err   error
}

// debianLines returns every long-description line of `apt-cache
// dumpavail`, shared by the tests: callers must not change it.
func debianLines(t *testing.T) []string {
	t.Helper()
	debianText.once.Do(func() { debianText.lines, debianText.err = realcorpus.DebianLines() })
	if debianText.err != nil {
		t.Fatalf("%v: this test reads real package descriptions", debianText.err)
	}
	return debianText.lines
}

// TestRealTextFalseRedactionRate runs the scrubber over real text and
// counts the lines it changes, by kind. Emails there are real addresses
// (authors, bug contacts), rightly removed, so they are counted apart; any
// other change on prose and manual pages is counted as a false redaction.
// The rate must stay under 0.2% of lines; the changed lines are logged for
// review (go test -run RealText -v).
func TestRealTextFalseRedactionRate(t *testing.T) {
	debian, man := realLines(t)
	for _, src := range []struct {
		name  string
		lines []string
	}{{"debian", debian}, {"man", man}} {
		byKind := map[string]int{}
		var examples []string
		changed, emailOnly := 0, 0
		for _, l := range src.lines {
			out := Scrub(l)
			if out == l {
				continue
			}
			changed++
			onlyEmail := true
			for _, m := range pii.FindForRedaction(l) {
				byKind[m.Kind]++
				if m.Kind != pii.KindEmail {
					onlyEmail = false
				}
			}
			if onlyEmail {
				emailOnly++
				continue
			}
			examples = append(examples, l+"\n      -> "+out)
		}
		false_ := changed - emailOnly
		rate := float64(false_) / float64(len(src.lines))
		kinds := make([]string, 0, len(byKind))
		for k, n := range byKind {
			kinds = append(kinds, k+"="+itoa(n))
		}
		sort.Strings(kinds)
		t.Logf("%s: %d lines, %d changed (%d by emails only), %d other: false-redaction rate %.4f%%; matches by kind: %s",
			src.name, len(src.lines), changed, emailOnly, false_, 100*rate, strings.Join(kinds, " "))
		for i, e := range examples {
			if i == 40 {
				t.Logf("  ... %d more", len(examples)-i)
				break
			}
			t.Logf("  %s", e)
		}
		if len(src.lines) < 10000 {
			t.Errorf("%s: only %d lines of real text", src.name, len(src.lines))
		}
		if rate > 0.002 {
			t.Errorf("%s: false-redaction rate %.4f%% over 0.2%%", src.name, 100*rate)
		}
	}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
