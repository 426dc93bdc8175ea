package markdown

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ErrInvalidUTF8 reports a file that is not valid UTF-8.
var ErrInvalidUTF8 = errors.New("invalid UTF-8")

// ErrNULByte reports a NUL byte, which text files do not contain and
// PostgreSQL text columns cannot store.
var ErrNULByte = errors.New("NUL byte")

// Page is one markdown file in the shape pgbrain stores.
type Page struct {
	Slug        string         // derived from the relative path
	Title       string         // frontmatter title, else first H1, else last slug segment
	Type        string         // frontmatter type, else first slug segment of a nested slug, else "page"
	Tags        []string       // frontmatter tags; nil when there are none
	Frontmatter map[string]any // every frontmatter key, JSON-marshalable; never nil
	Body        string         // the file exactly as given, frontmatter included
	Compiled    string         // text after the frontmatter and before the timeline
	Timeline    string         // the timeline section without its heading; "" if none
	ContentHash string         // hex SHA-256 of Body
}

// ContentHash is a page's content_hash: the lower-case hex SHA-256 of the
// file's bytes exactly as given.
func ContentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Parse turns the bytes of one markdown file into a Page. slug must satisfy
// ValidSlug (use SlugFromPath to derive it). Compiled and Timeline use "\n"
// line endings even when the file uses "\r\n"; Body keeps the original bytes.
func Parse(slug string, data []byte) (*Page, error) { return ParseFile(slug, "", data) }

// ParseFile is Parse for a file named name (its path; "" for a page given
// by slug): a page with no title in its frontmatter or headings is titled
// with the file's name without ".md" ("C#.md" is "C#", though its slug may
// be "c-835b50e2"), or with the slug's last segment when the name holds
// control or format characters or is not UTF-8.
func ParseFile(slug, name string, data []byte) (*Page, error) {
	if !ValidSlug(slug) {
		return nil, fmt.Errorf("%w %q: must match %s and be at most %d bytes; derive it with SlugFromPath", ErrInvalidSlug, slug, SlugPattern, MaxSlugLen)
	}
	if err := checkUTF8(data); err != nil {
		return nil, err
	}
	p := &Page{
		Slug:        slug,
		Body:        string(data),
		ContentHash: ContentHash(data),
		Frontmatter: map[string]any{},
	}

	text := string(bomless(data))
	yamlText, rest, hasFM, err := splitFrontmatter(text)
	if err != nil {
		return nil, err
	}
	if hasFM {
		if p.Frontmatter, err = decodeFrontmatter(yamlText); err != nil {
			return nil, err
		}
	}
	p.Compiled, p.Timeline = splitTimeline(strings.ReplaceAll(rest, "\r\n", "\n"))

	if p.Title, err = textField(p.Frontmatter, "title"); err != nil {
		return nil, err
	}
	if p.Title == "" {
		p.Title = firstH1(p.Compiled)
	}
	if p.Title == "" {
		p.Title = fileTitle(name)
	}
	if p.Title == "" {
		p.Title = slug[strings.LastIndexByte(slug, '/')+1:]
	}

	if p.Type, err = textField(p.Frontmatter, "type"); err != nil {
		return nil, err
	}
	if p.Type == "" {
		p.Type = "page"
		if dir, _, nested := strings.Cut(slug, "/"); nested {
			p.Type = dir
		}
	}

	if p.Tags, err = tags(p.Frontmatter["tags"]); err != nil {
		return nil, err
	}
	return p, nil
}

// checkUTF8 names the first byte that keeps data from being UTF-8 text.
// Offsets are 0-based, lines 1-based.
func checkUTF8(data []byte) error {
	for i := 0; i < len(data); {
		c := data[i]
		if c == 0 {
			return fmt.Errorf("%w at byte %d (line %d); markdown must be plain text, check that this is not a binary file", ErrNULByte, i, lineOf(data, i))
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("%w at byte %d (line %d); re-save the file as UTF-8", ErrInvalidUTF8, i, lineOf(data, i))
		}
		i += n
	}
	return nil
}

func lineOf(data []byte, off int) int {
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// splitTimeline cuts s at the first timeline heading outside code fences.
// Both parts lose surrounding blank lines and trailing whitespace; leading
// indentation of the first line is kept because it can be meaningful.
func splitTimeline(s string) (compiled, timeline string) {
	var open fence
	inFence := false
	for _, l := range splitLines(s) {
		t := s[l.start:l.end]
		switch {
		case inFence:
			inFence = !open.closes(t)
		case isTimelineHeading(t):
			return trimBlock(s[:l.start]), trimBlock(s[l.end:])
		default:
			open, inFence = openFence(t)
		}
	}
	return trimBlock(s), ""
}

// trimBlock drops leading blank lines and all trailing whitespace.
func trimBlock(s string) string {
	s = strings.TrimRightFunc(s, isSpace)
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || !isBlank(s[:i]) {
			return s
		}
		s = s[i+1:]
	}
}

// firstH1 returns the text of the first level-1 heading outside code
// fences, so "# comment" lines in shell snippets are not taken as titles:
// an ATX heading ("# Title") or a setext one, one line underlined with
// "===" (as many READMEs write their name) that starts a paragraph after a
// blank line, a heading or the start of the text. So a line that continues
// a list item, a quote or a longer paragraph, a licence comment and an
// HTML block are never a title. A setext title of more than 300
// characters is no title either. Inline links, images and code spans keep
// their text only.
func firstH1(s string) string {
	defs := linkLabels(s)
	var open fence
	inFence, inComment := false, false
	prevEnds := true // the previous line ends any paragraph (blank, heading, fence, start)
	cand := ""       // a one-line paragraph that an underline would make a heading
	for _, l := range splitLines(s) {
		t := strings.TrimRight(s[l.start:l.end], "\r")
		switch {
		case inFence:
			inFence = !open.closes(t)
			prevEnds = !inFence
			continue
		case inComment:
			inComment = !strings.Contains(t, "-->")
			prevEnds = !inComment
			continue
		}
		if cand != "" && setextH1Underline(t) {
			if text := titleText(cand, defs); text != "" && utf8.RuneCountInString(text) <= 300 {
				return text
			}
		}
		wasEnd := prevEnds
		cand, prevEnds = "", false
		// A thematic break or a heading underline ("---" under "Sub", or a
		// "===" whose line was no title) ends what came before.
		if u := strings.TrimSpace(t); setextH1Underline(t) || thematicBreak.MatchString(u) || (u != "" && strings.Trim(u, "-") == "") {
			prevEnds = true
			continue
		}
		if level, text, ok := atxHeading(t); ok {
			if text = titleText(text, defs); level == 1 && text != "" {
				return text
			}
			prevEnds = true
			continue
		}
		if open, inFence = openFence(t); inFence || isBlank(t) {
			prevEnds = true
			continue
		}
		u := strings.TrimLeft(t, " ")
		if len(t)-len(u) <= 3 && strings.HasPrefix(u, "<!--") {
			inComment = !strings.Contains(u[4:], "-->")
			prevEnds = !inComment
			continue
		}
		if wasEnd && paragraphStart(t) {
			cand = strings.TrimSpace(t)
		}
	}
	return ""
}

// setextH1Underline reports whether l is "=" repeated (up to three spaces
// before, spaces after), which makes the paragraph above it a level-1
// heading.
func setextH1Underline(l string) bool {
	t := strings.TrimRight(l, " \t")
	u := strings.TrimLeft(t, " ")
	return len(t)-len(u) <= 3 && u != "" && strings.Trim(u, "=") == ""
}

// paragraphStart reports whether l can begin a paragraph: not indented
// code (four spaces or a tab), a quote, a list item, a table row, an HTML
// block, a link reference definition or a thematic break.
func paragraphStart(l string) bool {
	u := strings.TrimLeft(l, " ")
	if len(l)-len(u) > 3 || u == "" || u[0] == '\t' {
		return false
	}
	switch u[0] {
	case '>', '|', '<':
		return false
	case '-', '*', '+':
		if len(u) == 1 || u[1] == ' ' || u[1] == '\t' {
			return false // a list item
		}
	case '[':
		if linkRefDef.MatchString(u) {
			return false
		}
	}
	if thematicBreak.MatchString(u) {
		return false
	}
	i := 0
	for i < len(u) && i < 9 && u[i] >= '0' && u[i] <= '9' {
		i++
	}
	// "1. item", "2) item": a numbered list item ("1.5 Release notes" is text)
	return !(i > 0 && i < len(u) && (u[i] == '.' || u[i] == ')') && (i+1 == len(u) || u[i+1] == ' ' || u[i+1] == '\t'))
}

var (
	linkRefDef    = regexp.MustCompile(`^\[[^\]]+\]:`)
	thematicBreak = regexp.MustCompile(`^(-[ \t]*){3,}$|^(\*[ \t]*){3,}$|^(_[ \t]*){3,}$`)
	// a link's destination may hold one level of parentheses
	// ("https://en.wikipedia.org/wiki/C_(language)")
	inlineImage = regexp.MustCompile(`!\[[^\]]*\](\(([^()]|\([^()]*\))*\)|\[[^\]]*\])`)
	inlineLink  = regexp.MustCompile(`\[([^\]]*)\]\(([^()]|\([^()]*\))*\)`)
	// [text][label] and [text][]: a link only when the document defines
	// the label ("map[string][]byte" and "m[i][j]" are text)
	refLink = regexp.MustCompile(`\[([^\]]*)\]\[([^\]]*)\]`)
	// a definition's label: "[1]: https://..." (up to three spaces before)
	linkLabelDef = regexp.MustCompile(`^ {0,3}\[([^\]]+)\]:`)
)

// titleText is a heading's text as a title: "[libcbor](https://...)" keeps
// its text, an image (a logo, a build badge, a badge inside a link) is
// dropped, "`node:module`" keeps its code, and runs of white space are one
// space.
func titleText(s string, defs map[string]bool) string {
	// Code spans first: what they hold is text, even "[a](b)".
	var out strings.Builder
	last := 0
	for _, m := range codeSpans(s) {
		out.WriteString(linkText(s[last:m[0]], defs))
		out.WriteString(s[m[2]:m[3]])
		last = m[1]
	}
	out.WriteString(linkText(s[last:], defs))
	return collapseSpace(out.String())
}

// linkText drops images and keeps the text of links: inline ones, and
// reference ones whose label defs holds (lower-cased).
func linkText(s string, defs map[string]bool) string {
	s = inlineImage.ReplaceAllString(s, "")
	s = inlineLink.ReplaceAllString(s, "$1")
	if len(defs) == 0 {
		return s
	}
	return refLink.ReplaceAllStringFunc(s, func(m string) string {
		g := refLink.FindStringSubmatch(m)
		label := g[2]
		if label == "" {
			label = g[1]
		}
		if defs[strings.ToLower(collapseSpace(label))] {
			return g[1]
		}
		return m
	})
}

// codeSpans finds the code spans of s: a run of backticks up to the next
// run of the same length (two backticks on each side of a`b hold a`b), as
// {start, end, text start, text end}. A run with no closing run of its
// length is text. Linear in len(s): the runs are listed once, and the next
// run of each length is found by a cursor that only moves forward.
func codeSpans(s string) [][4]int {
	var runs [][2]int // start, end
	for i := strings.IndexByte(s, '`'); i >= 0; {
		e := i
		for e < len(s) && s[e] == '`' {
			e++
		}
		runs = append(runs, [2]int{i, e})
		next := strings.IndexByte(s[e:], '`')
		if next < 0 {
			break
		}
		i = e + next
	}
	byLen := map[int][]int{} // run length -> indexes of runs of it, in order
	for k, r := range runs {
		byLen[r[1]-r[0]] = append(byLen[r[1]-r[0]], k)
	}
	cursor := map[int]int{}
	var out [][4]int
	for k := 0; k < len(runs); k++ {
		n := runs[k][1] - runs[k][0]
		list, c := byLen[n], cursor[n]
		for c < len(list) && list[c] <= k {
			c++
		}
		cursor[n] = c
		if c == len(list) {
			continue // no closing run: text
		}
		closer := list[c]
		out = append(out, [4]int{runs[k][0], runs[closer][1], runs[k][1], runs[closer][0]})
		k = closer // runs inside the span are code
	}
	return out
}

// linkLabels is the set of link reference labels a document defines
// outside code fences, lower-cased with runs of white space as one space.
func linkLabels(s string) map[string]bool {
	var defs map[string]bool
	var open fence
	inFence := false
	for _, l := range splitLines(s) {
		t := s[l.start:l.end]
		if inFence {
			inFence = !open.closes(t)
			continue
		}
		if open, inFence = openFence(t); inFence {
			continue
		}
		if m := linkLabelDef.FindStringSubmatch(t); m != nil {
			if defs == nil {
				defs = map[string]bool{}
			}
			defs[strings.ToLower(collapseSpace(m[1]))] = true
		}
	}
	return defs
}

// textField reads a frontmatter key that must be a single value. Missing and
// null read as "".
func textField(fm map[string]any, key string) (string, error) {
	v, present := fm[key]
	if !present || v == nil {
		return "", nil
	}
	s, ok := scalarText(v)
	if !ok {
		return "", fmt.Errorf("%w: %q is a %s; write it as a single value, e.g. %s: Some Text", ErrFrontmatter, key, typeName(v), key)
	}
	return collapseSpace(s), nil
}

// tags accepts "a, b", a single scalar, or a list of scalars. Empty entries
// are dropped and duplicates keep their first position.
func tags(v any) ([]string, error) {
	var raw []string
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		for i, e := range x {
			if e == nil {
				continue
			}
			s, ok := scalarText(e)
			if !ok {
				return nil, fmt.Errorf("%w: tags item %d is a %s; tags must be a string or a list of strings", ErrFrontmatter, i+1, typeName(e))
			}
			raw = append(raw, s)
		}
	case string:
		raw = strings.Split(x, ",")
	default:
		s, ok := scalarText(x)
		if !ok {
			return nil, fmt.Errorf("%w: tags is a %s; tags must be a string or a list of strings", ErrFrontmatter, typeName(x))
		}
		raw = []string{s}
	}
	var out []string
	seen := make(map[string]bool, len(raw))
	for _, t := range raw {
		t = collapseSpace(t)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out, nil
}

// collapseSpace trims s and turns inner whitespace runs (including newlines
// from YAML block scalars) into single spaces.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// fileTitle is a file's name as a title: its last path element without a
// ".md" ending, or "" when that is blank, not UTF-8, longer than the 1,000
// characters brain.pages allows a title, or holds control or format
// characters (a newline, a bidi mark); NFC, as slugs are (macOS writes
// names decomposed).
func fileTitle(name string) string {
	base := name[strings.LastIndexByte(name, '/')+1:]
	if len(base) >= 3 && strings.EqualFold(base[len(base)-3:], ".md") {
		base = base[:len(base)-3]
	}
	if strings.TrimSpace(base) == "" || !utf8.ValidString(base) || utf8.RuneCountInString(base) > 1000 {
		return ""
	}
	for _, r := range base {
		if unicode.In(r, unicode.Cc, unicode.Cf) || r == utf8.RuneError {
			return ""
		}
	}
	return norm.NFC.String(base)
}
