package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// releaseDates maps a Go 1.x minor version to the date that release shipped
// (from the Go release history). The api/go1.N.txt files say what each
// release added; these dates turn that into timeline entries.
var releaseDates = map[int]string{
	0:  "2012-03-28",
	1:  "2013-05-13",
	2:  "2013-12-01",
	3:  "2014-06-18",
	4:  "2014-12-10",
	5:  "2015-08-19",
	6:  "2016-02-17",
	7:  "2016-08-15",
	8:  "2017-02-16",
	9:  "2017-08-24",
	10: "2018-02-16",
	11: "2018-08-24",
	12: "2019-02-25",
	13: "2019-09-03",
	14: "2020-02-25",
	15: "2020-08-11",
	16: "2021-02-16",
	17: "2021-08-16",
	18: "2022-03-15",
	19: "2022-08-02",
	20: "2023-02-01",
	21: "2023-08-08",
	22: "2024-02-06",
	23: "2024-08-13",
	24: "2025-02-11",
	25: "2025-08-12",
	26: "2026-02-10",
}

// versionLabel renders a minor version the way release notes name it.
func versionLabel(minor int) string {
	return fmt.Sprintf("Go 1.%d", minor)
}

// apiHistory records, per package, the first Go minor version in which each
// exported identifier appeared. Keys look like "func F", "type T",
// "method T.M", "field T.F", "const C" and "var V".
type apiHistory struct {
	pkgs map[string]map[string]int
}

var apiFileRE = regexp.MustCompile(`^go1(?:\.(\d+))?\.txt$`)

// loadAPIHistory reads every released api/go1*.txt under goroot. Files in
// api/next describe unreleased work and are deliberately ignored.
func loadAPIHistory(goroot string) (*apiHistory, error) {
	dir := filepath.Join(goroot, "api")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read api dir: %w", err)
	}
	h := &apiHistory{pkgs: map[string]map[string]int{}}
	for _, e := range entries {
		m := apiFileRE.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		minor := 0
		if m[1] != "" {
			minor, err = strconv.Atoi(m[1])
			if err != nil {
				return nil, fmt.Errorf("api file %s: %w", e.Name(), err)
			}
		}
		if _, ok := releaseDates[minor]; !ok {
			return nil, fmt.Errorf("api file %s: no release date known for %s; add it to releaseDates", e.Name(), versionLabel(minor))
		}
		if err := h.readFile(filepath.Join(dir, e.Name()), minor); err != nil {
			return nil, err
		}
	}
	if len(h.pkgs) == 0 {
		return nil, fmt.Errorf("no api/go1*.txt files found in %s", dir)
	}
	return h, nil
}

func (h *apiHistory) readFile(path string, minor int) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open api file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		pkg, key, ok := parseAPILine(sc.Text())
		if !ok {
			continue
		}
		h.add(pkg, key, minor)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

func (h *apiHistory) add(pkg, key string, minor int) {
	m := h.pkgs[pkg]
	if m == nil {
		m = map[string]int{}
		h.pkgs[pkg] = m
	}
	// The same identifier is listed once per platform and may be listed
	// again in a later file; the earliest mention is when it appeared.
	if old, ok := m[key]; !ok || minor < old {
		m[key] = minor
	}
}

// parseAPILine turns one line of an api file into its package and
// identifier key. Lines it does not understand are skipped, not fatal,
// because the format has grown new shapes over the years.
func parseAPILine(line string) (pkg, key string, ok bool) {
	rest, found := strings.CutPrefix(line, "pkg ")
	if !found {
		return "", "", false
	}
	pkgPart, decl, found := strings.Cut(rest, ", ")
	if !found {
		return "", "", false
	}
	// Platform-specific lines read "pkg syscall (linux-386), ...".
	pkg, _, _ = strings.Cut(pkgPart, " (")
	switch {
	case strings.HasPrefix(decl, "const "):
		return pkg, "const " + firstIdent(decl[len("const "):]), true
	case strings.HasPrefix(decl, "var "):
		return pkg, "var " + firstIdent(decl[len("var "):]), true
	case strings.HasPrefix(decl, "func "):
		return pkg, "func " + firstIdent(decl[len("func "):]), true
	case strings.HasPrefix(decl, "method ("):
		recv, after, found := strings.Cut(decl[len("method ("):], ") ")
		if !found {
			return "", "", false
		}
		recv = strings.TrimPrefix(recv, "*")
		recv = firstIdent(recv)
		return pkg, "method " + recv + "." + firstIdent(after), true
	case strings.HasPrefix(decl, "type "):
		body := decl[len("type "):]
		name := firstIdent(body)
		body = skipTypeParams(body[len(name):])
		// Only "struct, " and "interface, " introduce a member; other
		// commas belong to the type itself, as in "func(A, B)".
		kind := "field "
		member, found := strings.CutPrefix(body, " struct, ")
		if !found {
			kind = "method "
			member, found = strings.CutPrefix(body, " interface, ")
		}
		if !found {
			return pkg, "type " + name, true
		}
		if emb, ok := strings.CutPrefix(member, "embedded "); ok {
			// Embedded fields are named by their type's base name.
			emb = strings.TrimPrefix(emb, "*")
			if i := strings.LastIndex(emb, "."); i >= 0 {
				emb = emb[i+1:]
			}
			member = emb
		}
		return pkg, kind + name + "." + firstIdent(member), true
	}
	return "", "", false
}

// firstIdent returns the leading Go identifier of s.
func firstIdent(s string) string {
	for i, r := range s {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f) {
			return s[:i]
		}
	}
	return s
}

// skipTypeParams drops a leading "[...]" type parameter list, whose commas
// would otherwise be mistaken for the member separator.
func skipTypeParams(s string) string {
	if !strings.HasPrefix(s, "[") {
		return s
	}
	depth := 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return s[i+1:]
			}
		}
	}
	return ""
}

// pkgSince reports the release in which a package first appeared.
func (h *apiHistory) pkgSince(pkg string) (int, bool) {
	m := h.pkgs[pkg]
	if len(m) == 0 {
		return 0, false
	}
	first := -1
	for _, v := range m {
		if first < 0 || v < first {
			first = v
		}
	}
	return first, true
}

func (h *apiHistory) since(pkg, key string) (int, bool) {
	v, ok := h.pkgs[pkg][key]
	return v, ok
}

// displayName turns a key into the name a reader would look for.
func displayName(key string) string {
	_, name, _ := strings.Cut(key, " ")
	return name
}

// timelineEntry is one dated line of a page's timeline section.
type timelineEntry struct {
	minor int
	text  string
}

func (e timelineEntry) String() string {
	return fmt.Sprintf("- %s: %s", releaseDates[e.minor], e.text)
}

// packageTimeline lists when the package appeared and what each later
// release added to it.
func (h *apiHistory) packageTimeline(pkg string) []timelineEntry {
	first, ok := h.pkgSince(pkg)
	if !ok {
		return nil
	}
	out := []timelineEntry{{first, fmt.Sprintf("Package %s added in %s.", pkg, versionLabel(first))}}
	byVersion := map[int][]string{}
	for key, v := range h.pkgs[pkg] {
		if v > first {
			byVersion[v] = append(byVersion[v], displayName(key))
		}
	}
	for _, v := range sortedVersions(byVersion) {
		out = append(out, timelineEntry{v, fmt.Sprintf("%s added to %s: %s.", versionLabel(v), pkg, nameList(byVersion[v]))})
	}
	return out
}

// memberTimeline lists when an identifier appeared and, for types, which
// of its members arrived in later releases.
func (h *apiHistory) memberTimeline(pkg, title, key string, members []string) []timelineEntry {
	first, ok := h.since(pkg, key)
	var out []timelineEntry
	if ok {
		kind, _, _ := strings.Cut(key, " ")
		if kind == "func" {
			kind = "Function"
		} else {
			kind = "Type"
		}
		out = append(out, timelineEntry{first, fmt.Sprintf("%s %s added in %s.", kind, title, versionLabel(first))})
	}
	byVersion := map[int][]string{}
	for _, mk := range members {
		v, ok := h.since(pkg, mk)
		if !ok || v <= first {
			continue
		}
		byVersion[v] = append(byVersion[v], displayName(mk))
	}
	for _, v := range sortedVersions(byVersion) {
		out = append(out, timelineEntry{v, fmt.Sprintf("%s added %s.", versionLabel(v), nameList(byVersion[v]))})
	}
	return out
}

// fieldKeys and methodKeys return the recorded member keys of type t, so
// type pages can report members added after the type itself.
func (h *apiHistory) fieldKeys(pkg, t string) []string {
	return h.keysWithPrefix(pkg, "field "+t+".")
}

func (h *apiHistory) methodKeys(pkg, t string) []string {
	return h.keysWithPrefix(pkg, "method "+t+".")
}

func (h *apiHistory) keysWithPrefix(pkg, prefix string) []string {
	var out []string
	for key := range h.pkgs[pkg] {
		if strings.HasPrefix(key, prefix) {
			out = append(out, key)
		}
	}
	sort.Strings(out)
	return out
}

func sortedVersions(m map[int][]string) []int {
	vs := make([]int, 0, len(m))
	for v := range m {
		vs = append(vs, v)
	}
	sort.Ints(vs)
	return vs
}

// maxListed bounds a timeline line; packages such as syscall add hundreds
// of names in one release.
const maxListed = 12

func nameList(names []string) string {
	sort.Strings(names)
	names = dedupSorted(names)
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
}

func dedupSorted(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
