// Package realcorpus reads text nobody on the project wrote from the
// machine itself, for the checks that must hold on real text (the
// scrubber's false-redaction test, tools/piidigest).
package realcorpus

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// DebianLines returns the distinct lines of every package description
// printed by `apt-cache dumpavail`, cut to 400 bytes (a long query), in the
// order apt prints them. It fails, naming the fix, without package lists.
func DebianLines() ([]string, error) {
	out, err := exec.Command("apt-cache", "dumpavail").Output()
	if err != nil || len(out) == 0 {
		return nil, fmt.Errorf("apt-cache dumpavail (%v): run on Debian or Ubuntu with package lists (apt-get update)", err)
	}
	var lines []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "Description: ") && !strings.HasPrefix(l, " ") {
			continue
		}
		l = strings.TrimSpace(strings.TrimPrefix(l, "Description: "))
		if len(l) > 400 {
			l = l[:400]
		}
		if len(l) > 1 && !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	return lines, sc.Err()
}
