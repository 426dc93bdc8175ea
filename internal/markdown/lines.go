package markdown

import "strings"

// line is one line of a text: text[start:end] without its "\n".
type line struct {
	start, end int
}

// splitLines returns every line of s with its byte offsets. A trailing "\n"
// does not produce an extra empty line.
func splitLines(s string) []line {
	var out []line
	for start := 0; start < len(s); {
		i := strings.IndexByte(s[start:], '\n')
		if i < 0 {
			out = append(out, line{start, len(s)})
			break
		}
		out = append(out, line{start, start + i})
		start += i + 1
	}
	return out
}

// fence is an open fenced code block: its marker character and length.
type fence struct {
	char byte
	n    int
}

// openFence reports whether l opens a fenced code block. Any indentation is
// accepted, unlike CommonMark's three spaces, so fences nested in list items
// are recognised too: missing one would let the chunker split code.
func openFence(l string) (fence, bool) {
	t := strings.TrimLeft(l, " \t")
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return fence{}, false
	}
	c := t[0]
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return fence{}, false
	}
	// A backtick fence's info string cannot hold backticks; "```x```" is
	// inline code, not a fence.
	if c == '`' && strings.IndexByte(t[n:], '`') >= 0 {
		return fence{}, false
	}
	return fence{char: c, n: n}, true
}

// closes reports whether l closes the fenced block f.
func (f fence) closes(l string) bool {
	t := strings.TrimSpace(l)
	if len(t) < f.n {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] != f.char {
			return false
		}
	}
	return true
}

// atxHeading parses an ATX heading line ("## Text ##") and returns its level
// (1-6) and text with the optional closing "#" run removed.
func atxHeading(l string) (level int, text string, ok bool) {
	i := 0
	for i < len(l) && i < 3 && l[i] == ' ' {
		i++
	}
	j := i
	for j < len(l) && l[j] == '#' {
		j++
	}
	level = j - i
	if level < 1 || level > 6 {
		return 0, "", false
	}
	if j < len(l) && l[j] != ' ' && l[j] != '\t' {
		return 0, "", false // "#tag" is not a heading
	}
	text = strings.TrimSpace(l[j:])
	// A closing sequence counts only when separated by a space from the text.
	if k := strings.TrimRight(text, "#"); k != text {
		if k == "" {
			text = ""
		} else if last := k[len(k)-1]; last == ' ' || last == '\t' {
			text = strings.TrimSpace(k)
		}
	}
	return level, text, true
}

// isTimelineHeading reports whether l starts the timeline section: a heading
// of any level whose text is "Timeline", any case, with an optional ":".
func isTimelineHeading(l string) bool {
	_, text, ok := atxHeading(l)
	if !ok {
		return false
	}
	text = strings.TrimSpace(strings.TrimSuffix(text, ":"))
	return strings.EqualFold(text, "timeline")
}

// EscapeTimelineHeadings returns s with every line that Parse would take as
// the timeline heading escaped the way markdown writes a literal '#'
// ("## Timeline" becomes "\## Timeline"), so that text quoted inside a page,
// such as a chat message, stays in the page's compiled truth.
func EscapeTimelineHeadings(s string) string {
	if !strings.Contains(s, "#") {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	changed := false
	for i, l := range lines {
		if isTimelineHeading(strings.TrimRight(l, "\r\n")) {
			h := strings.IndexByte(l, '#')
			lines[i] = l[:h] + "\\" + l[h:]
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(lines, "")
}

// isBlank reports whether l holds only whitespace.
func isBlank(l string) bool {
	return strings.TrimSpace(l) == ""
}
