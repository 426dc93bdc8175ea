package pii

import (
	"slices"
	"strings"
	"testing"
)

// naiveHints is what hintIndex.find replaces: one search per hint.
func naiveHints(text string, sets []hintSet) [][]int {
	out := make([][]int, len(sets))
	lower := asciiLower(text)
	for i, set := range sets {
		src := lower
		if set.exact {
			src = text
		}
		for _, h := range set.hints {
			if !set.exact {
				h = asciiLower(h)
			}
			for from := 0; ; {
				k := strings.Index(src[from:], h)
				if k < 0 {
					break
				}
				out[i] = append(out[i], from+k)
				from += k + 1
			}
		}
		slices.Sort(out[i])
	}
	return out
}

var hintTexts = []string{
	"",
	"k",
	"no hint here",
	"Password: x; DB_PASSWORD=y; passphrase pass",
	"AKIA AKIAx akia sk-proj sk_live SK-UPPER xoxb-1 npm_ AIza aiza",
	"GHP_ ghp_ Gho_ github_PAT_ Asia asia eurasia",
	"acct a/c account routing ABA rtn sort code SWIFT bic tin ein tax",
	"tintin einein aaaa accacct",
	"°N 40° and \xc2\xb0 \xff\xfe\x00 key",
}

func TestHintIndexFind(t *testing.T) {
	sets := hintSets()
	for _, text := range hintTexts {
		got, want := hints.find(text, asciiLower(text)), naiveHints(text, sets)
		for i := range want {
			if !slices.Equal(got[i], want[i]) {
				t.Errorf("find(%q) set %d = %v, want %v", text, i, got[i], want[i])
			}
		}
	}
}

func FuzzHintIndex(f *testing.F) {
	for _, text := range hintTexts {
		f.Add(text)
	}
	sets := []hintSet{{hints: []string{"Ab", "ab", "abc", "b\xff"}, exact: true}, {hints: []string{"ab", "AB", "bc", "°"}}}
	x := newHintIndex(sets...)
	f.Fuzz(func(t *testing.T, text string) {
		got, want := x.find(text, asciiLower(text)), naiveHints(text, sets)
		for i := range want {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("find(%q) set %d = %v, want %v", text, i, got[i], want[i])
			}
		}
	})
}

var assignTexts = []string{
	"password=hunter2",
	`DB_PASSWORD: 's3cr3t!'; "api_key": "abcd1234efgh5678"`,
	"passwd\t= x; passphrase : y; pwd=z; secret: w",
	"apikey=x api-key=x accesstoken=x auth_token=x refresh-token=x",
	"clientsecret=x secret_key=x private-key=x x-api-key: y",
	`password" = "quoted"`,
	"password reset link; the key to success; token ring",
	"keys: many; tokens = lots; passwords: none",
}

// TestAssignmentPrefilter checks that assignmentIn never refuses a window
// secretAssignRE matches in: every name the expression accepts must end in
// one of secretNameEnds.
func TestAssignmentPrefilter(t *testing.T) {
	for _, text := range assignTexts {
		checkAssignmentPrefilter(t, text)
	}
}

func FuzzAssignmentPrefilter(f *testing.F) {
	for _, text := range assignTexts {
		f.Add(text)
	}
	f.Fuzz(checkAssignmentPrefilter)
}

func checkAssignmentPrefilter(t *testing.T, text string) {
	lower := asciiLower(text)
	at := hints.find(text, lower)[hintSecret]
	whole := [2]int{0, len(lower)}
	if secretAssignRE.MatchString(lower) && !assignmentIn(lower, at, whole) {
		t.Fatalf("assignmentIn(%q) = false, but secretAssignRE matches", text)
	}
}

// TestDNAAlignment moves runs of nucleotides around the skip distance of
// the scan: a run is found wherever it starts.
func TestDNAAlignment(t *testing.T) {
	for offset := range 2*minDNA + 2 {
		for n := minDNA - 2; n <= minDNA+2; n++ {
			run := strings.Repeat("ACGT", n)[:n]
			text := strings.Repeat("a ", offset)[:offset] + " " + run + " A CG"
			got := FindKinds(text, KindDNASequence)
			if n < minDNA {
				if got != nil {
					t.Errorf("offset %d: %d nucleotides found: %+v", offset, n, got)
				}
				continue
			}
			if len(got) != 1 || text[got[0].Start:got[0].End] != run {
				t.Errorf("offset %d: %d nucleotides: got %+v", offset, n, got)
			}
		}
	}
}
