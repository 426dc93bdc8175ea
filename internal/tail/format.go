package tail

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/progress"
)

const (
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiRed    = "\x1b[31m"
	ansiReset  = "\x1b[0m"
)

// maxValueRunes keeps one argument from pushing the rest of the line off
// screen; --json shows values in full.
const maxValueRunes = 60

// Format renders ev as one line for a terminal, for example
//
//	12:00:00.123 query limit=10 query="who is alice" success results=3 12ms
//
// The time is shown in the local zone (set TZ=UTC for UTC). Every piece of
// text from the file is escaped, so a crafted line cannot move the cursor or
// recolour the terminal.
func Format(ev events.Event, color bool) string {
	var b strings.Builder
	b.WriteString(ev.Timestamp.Local().Format("15:04:05.000"))

	name := ev.ToolName
	if name == "" {
		name = ev.EventSubtype
	}
	if name == "" {
		name = string(ev.Kind)
	}
	b.WriteByte(' ')
	b.WriteString(escapeControls(name))

	if ev.Kind == events.KindServerEvent && ev.ServerSessionID != "" {
		id := ev.ServerSessionID
		if len(id) > 8 {
			id = id[:8]
		}
		b.WriteString(" session=")
		b.WriteString(escapeControls(strings.ToValidUTF8(id, "?")))
	}

	for _, k := range sortedKeys(ev.ArgsSummary) {
		b.WriteByte(' ')
		b.WriteString(formatKey(k))
		b.WriteByte('=')
		b.WriteString(formatValue(ev.ArgsSummary[k]))
	}

	if status := formatStatus(ev); status != "" {
		b.WriteByte(' ')
		if code := statusColor(ev.Status); color && code != "" {
			b.WriteString(code + status + ansiReset)
		} else {
			b.WriteString(status)
		}
	}

	for _, k := range sortedKeys(ev.ResultSummary) {
		fmt.Fprintf(&b, " %s=%d", formatKey(k), ev.ResultSummary[k])
	}

	if ev.Kind == events.KindToolCall || ev.DurationMS != 0 {
		b.WriteByte(' ')
		b.WriteString(formatDuration(ev.DurationMS))
	}

	if ev.Message != "" {
		b.WriteByte(' ')
		b.WriteString(escapeControls(ev.Message))
	}
	return b.String()
}

func formatStatus(ev events.Event) string {
	s := escapeControls(string(ev.Status))
	if ev.ErrorKind != "" {
		if s != "" {
			s += ":"
		}
		s += escapeControls(ev.ErrorKind)
	}
	return s
}

func statusColor(s events.Status) string {
	switch s {
	case events.StatusSuccess:
		return ansiGreen
	case events.StatusEmpty, events.StatusPartial, events.StatusDegraded:
		return ansiYellow
	case events.StatusError, events.StatusRefused:
		return ansiRed
	}
	return ""
}

func formatDuration(ms float64) string {
	switch {
	case ms > 0 && ms < 1:
		return "<1ms"
	case ms == 0:
		return "0ms"
	}
	return strconv.FormatFloat(math.Round(ms), 'f', 0, 64) + "ms"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// formatKey leaves plain identifiers bare and quotes anything that could be
// mistaken for separators.
func formatKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		if !(r == '_' || r == '-' || r == '.' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return strconv.Quote(k)
		}
	}
	return k
}

func formatValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(shorten(s))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "?"
	}
	return escapeControls(shorten(strings.TrimSuffix(buf.String(), "\n")))
}

// shorten cuts s to maxValueRunes runes, counting an invalid byte as one
// rune and leaving it in place for the quoting that follows to escape.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxValueRunes {
		return s
	}
	end := 0
	for n := 0; n < maxValueRunes-1; n++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	return s[:end] + "…"
}

// escapeControls replaces every non-printable rune (C0 and C1 controls,
// invalid UTF-8, line separators) with a Go escape.
func escapeControls(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == utf8.RuneError || !unicode.IsPrint(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// IsTerminal reports whether f is a terminal (not merely a character
// device such as /dev/null).
func IsTerminal(f *os.File) bool {
	return f != nil && progress.IsTerminal(f)
}

// ColorEnabled reports whether output to f should be coloured: only on a
// terminal, and never when NO_COLOR is set to a non-empty value
// (https://no-color.org) or TERM is "dumb". getenv is usually os.Getenv.
func ColorEnabled(f *os.File, getenv func(string) string) bool {
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	return IsTerminal(f)
}
