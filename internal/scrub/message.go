package scrub

import (
	"regexp"
	"strconv"
	"strings"
)

// goQuotedRE is a double-quoted Go string literal, as %q writes one.
var goQuotedRE = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)

// Message is Scrub for a message that may quote its input with %q: Go's
// escapes (\" for a quote, \n for a line break) hide a value's shape from
// the detectors (`source "{\"api_key\": \"…\"}"`, a private key's lines),
// so each quoted part holding an escape is read unquoted, scrubbed and
// quoted again, and the rest of the message is scrubbed around it (a
// placeholder stands for the part meanwhile: scrubbing the escapes
// themselves would cut the literal apart).
func Message(s string) string {
	if !strings.Contains(s, `\`) {
		return Scrub(s)
	}
	var parts []string
	held := goQuotedRE.ReplaceAllStringFunc(s, func(q string) string {
		if !strings.Contains(q, `\`) {
			return q
		}
		u, err := strconv.Unquote(q)
		if err != nil {
			return q
		}
		parts = append(parts, strconv.Quote(Scrub(u)))
		return placeholder(len(parts) - 1)
	})
	out := Scrub(held)
	for i, p := range parts {
		out = strings.Replace(out, placeholder(i), p, 1)
	}
	return out
}

// placeholder stands for the i-th quoted part: private-use characters
// around the number, which no detector reads as data.
func placeholder(i int) string { return "\ue000" + strconv.Itoa(i) + "\ue001" }
