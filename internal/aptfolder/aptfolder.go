// Package aptfolder builds a folder of markdown notes from the Debian
// package records of the machine it runs on: one file per package, named
// after the package (gobjc++.md beside gobjc.md), with the package's real
// short and long descriptions as its text, plus files whose names collide
// once slugged (x++.md and x.md aside, "A B.md" and "a-b.md", "Notes.md"
// and "notes.md", case pairs of real package names) and names in many
// scripts. Tests and tools/aptfolder use it to import data nobody here
// wrote.
package aptfolder

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Record is one package: its name and description.
type Record struct {
	Name  string
	Short string // the one-line description
	Long  string // the extended description, "" when none is known
}

// ErrNoSource reports a machine without Debian package records.
var ErrNoSource = errors.New("no Debian package records: this needs apt-cache (Debian or Ubuntu) with package lists (apt-get update)")

// Load reads every package record apt knows: `apt-cache dumpavail` for the
// names and short descriptions, and the Translation-en lists (read with
// apt-helper) for the long descriptions when they are present.
func Load(ctx context.Context) ([]Record, error) {
	out, err := exec.CommandContext(ctx, "apt-cache", "dumpavail").Output()
	if err != nil {
		return nil, fmt.Errorf("%w: apt-cache dumpavail: %v", ErrNoSource, err)
	}
	recs := map[string]*Record{}
	Parse(bytes.NewReader(out), recs)
	lists, _ := filepath.Glob("/var/lib/apt/lists/*_i18n_Translation-en*")
	for _, l := range lists {
		tr, err := exec.CommandContext(ctx, "/usr/lib/apt/apt-helper", "cat-file", l).Output()
		if err != nil {
			continue // long descriptions are a bonus; names are what matter
		}
		Parse(bytes.NewReader(tr), recs)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: apt-cache dumpavail printed no packages", ErrNoSource)
	}
	all := make([]Record, 0, len(recs))
	for _, r := range recs {
		all = append(all, *r)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all, nil
}

// Parse reads deb822 package stanzas (Packages or Translation files) into
// recs, keeping for each package the longest description seen.
func Parse(r io.Reader, recs map[string]*Record) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var name, short string
	var long strings.Builder
	inDesc := false
	flush := func() {
		if name != "" {
			rec := recs[name]
			if rec == nil {
				rec = &Record{Name: name}
				recs[name] = rec
			}
			if rec.Short == "" {
				rec.Short = short
			}
			if l := strings.TrimSpace(long.String()); len(l) > len(rec.Long) {
				rec.Long = l
			}
		}
		name, short, inDesc = "", "", false
		long.Reset()
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, " "):
			if inDesc {
				l := strings.TrimPrefix(line, " ")
				if l == "." {
					l = ""
				}
				long.WriteString(l + "\n")
			}
		default:
			inDesc = false
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimSpace(v)
			switch k {
			case "Package":
				name = v
			case "Description", "Description-en":
				short, inDesc = v, true
			}
		}
	}
	flush()
}

// Extra is what Write adds beside the package files.
var Extra = map[string]string{
	"x++.md":                     "# x++\n\nThe increment of x.\n",
	"x.md":                       "# x\n\nThe variable x.\n",
	"C++.md":                     "# C++\n\nA language with classes.\n",
	"C.md":                       "# C\n\nA language without classes.\n",
	"C#.md":                      "# C#\n\nA language on .NET.\n",
	"A B.md":                     "# A B\n\nWith a space.\n",
	"a-b.md":                     "# a-b\n\nWith a hyphen.\n",
	"Notes.md":                   "# Notes\n\nCapitalised notes.\n",
	"notes.md":                   "# notes\n\nLower-case notes.\n",
	"東京.md":                      "# 東京\n\n日本の首都。\n",
	"Café.md":                    "# Café\n\nUn café crème.\n",
	"Cafe\u0301 NFD.md":          "# Café (NFD)\n\nThe same name, decomposed.\n",
	"Ελληνικά.md":                "# Ελληνικά\n\nΗ ελληνική γλώσσα.\n",
	"हिन्दी भाषा.md":             "# हिन्दी\n\nहिन्दी भारत की एक भाषा है।\n",
	"العربية.md":                 "# العربية\n\nاللغة العربية.\n",
	"ไทย.md":                     "# ไทย\n\nภาษาไทย\n",
	"한국어.md":                     "# 한국어\n\n한국어 문서.\n",
	"Москва.md":                  "# Москва\n\nСтолица России.\n",
	"🎉 Party.md":                 "# Party\n\nAn emoji in the name.\n",
	"🎉.md":                       "# Just an emoji\n\nNothing but an emoji.\n",
	"!!!.md":                     "# Bangs\n\nNo letters at all.\n",
	"unicode/Straße İstanbul.md": "# Straße\n\nSpecial casing.\n",
}

// Write writes n package files (or all, if n <= 0 or n is larger), every
// file of Extra, and for every 250th package an upper-case twin
// ("GObjC++.md" beside "gobjc++.md") with its own text. It returns how many
// files it wrote. Packages with '+' in their name and the packages they
// would have collided with are always included.
func Write(dir string, recs []Record, n int) (int, error) {
	picked := pick(recs, n)
	written := 0
	put := func(rel, body string) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		written++
		return os.WriteFile(p, []byte(body), 0o644)
	}
	for i, r := range picked {
		body := "# " + r.Name + "\n\n" + r.Short + "\n"
		if r.Long != "" {
			body += "\n" + r.Long + "\n"
		}
		if err := put(r.Name+".md", body); err != nil {
			return written, err
		}
		if i%250 == 0 {
			if err := put(strings.ToUpper(r.Name)+".md", "# "+strings.ToUpper(r.Name)+"\n\nThe upper-case twin of "+r.Name+".\n"); err != nil {
				return written, err
			}
		}
	}
	for rel, body := range Extra {
		if err := put(rel, body); err != nil {
			return written, err
		}
	}
	return written, nil
}

// pick chooses n records: every name with '+' and its '+'-less twin when
// there is one, then every k-th of the rest, so the choice spans the
// alphabet and is the same on every run.
func pick(recs []Record, n int) []Record {
	if n <= 0 || n >= len(recs) {
		return recs
	}
	byName := make(map[string]int, len(recs))
	for i, r := range recs {
		byName[r.Name] = i
	}
	chosen := map[int]bool{}
	for i, r := range recs {
		if len(chosen) >= n/2 {
			break
		}
		if strings.Contains(r.Name, "+") {
			chosen[i] = true
			if j, ok := byName[strings.ReplaceAll(r.Name, "+", "")]; ok {
				chosen[j] = true
			}
		}
	}
	rest := n - len(chosen)
	step := max(1, len(recs)/max(1, rest))
	for i := 0; i < len(recs) && len(chosen) < n; i += step {
		chosen[i] = true
	}
	for i := 0; i < len(recs) && len(chosen) < n; i++ {
		chosen[i] = true
	}
	out := make([]Record, 0, n)
	for i, r := range recs {
		if chosen[i] {
			out = append(out, r)
		}
	}
	return out
}
