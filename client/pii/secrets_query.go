package pii

import (
	"regexp"
	"strings"
)

// Query-mode credential rules, used by FindForRedaction on top of the plain
// scan. A query is about to be written where others read it (events file,
// eval captures, logs), so any value assigned to a credential name goes,
// however short, and a few more shapes count than on pages.

// querySecretRE is secretAssignRE with more names: bare token, access_key.
// Group 1 is the name, groups 2-4 the value.
var querySecretRE = regexp.MustCompile(`\b(?:[a-z0-9]+[_\-])*(password|passwd|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key|secret[_\-]?key|private[_\-]?key)["']?[ \t]*[:=][ \t]*(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"',;]+))`)

// queryKeyRE is vendor key shapes the page scan leaves out: Stripe
// publishable keys (public by design, so a page holding one is not a
// credential page, but a query has no reason to keep it) and Stripe keys
// shorter than the page scan's minimum.
var queryKeyRE = regexp.MustCompile(`\b(?:pk|sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`)

// querySecrets adds assignments to credential names whatever the value's
// length, placeholders excepted, and AWS secret keys after their label: all
// the page scan's secrets and more (TestRedactionCoversFind holds that).
func (f *finder) querySecrets() {
	lower := f.lower
	at := f.hintsAt(hintSecret)
	f.awsSecrets(at)
	// Only hints that start an assignment whose value is not already a
	// marker: a scrubbed text ("token: [REDACTED]") is checked again on the
	// next pass and must cost no expression work.
	open := make([]int, 0, len(at))
	for _, p := range at {
		if v, ok := assignedValue(lower, p); ok && !strings.HasPrefix(lower[v:], "[redacted]") {
			open = append(open, p)
		}
	}
	spans := assignWindow.around(lower, open)
	for _, m := range findAll(querySecretRE, lower, spans) {
		for g := 4; g <= 8; g += 2 {
			if m[g] >= 0 && !notAValue(f.text[m[g]:m[g+1]]) {
				f.out = append(f.out, candidate{m[g], m[g+1], KindSecret})
			}
		}
	}
	if strings.Contains(f.text, "_live_") || strings.Contains(f.text, "_test_") {
		for _, m := range queryKeyRE.FindAllStringIndex(f.text, -1) {
			f.out = append(f.out, candidate{m[0], m[1], KindAPIKey})
		}
	}
}

// assignedValue returns where the value starts when a secret name ending
// at the hint position p is followed by an optional quote, blanks and ':' or
// '=' (as assignmentIn checks for a window).
func assignedValue(lower string, p int) (int, bool) {
	w := lower[p:]
	for _, end := range secretNameEnds {
		if !strings.HasPrefix(w, end) {
			continue
		}
		q := len(end)
		if q < len(w) && (w[q] == '"' || w[q] == '\'') {
			q++
		}
		for q < len(w) && (w[q] == ' ' || w[q] == '\t') {
			q++
		}
		if q < len(w) && (w[q] == ':' || w[q] == '=') {
			q++
			for q < len(w) && (w[q] == ' ' || w[q] == '\t' || w[q] == '"' || w[q] == '\'') {
				q++
			}
			return p + q, true
		}
	}
	return 0, false
}

// queryIBANs adds IBANs written in lower or mixed case ("de89 3704 0044
// 0532 0130 00"), which the page scan, reading capitals only, leaves out.
// The mod-97 check keeps words out.
func (f *finder) queryIBANs() {
	up := asciiUpper(f.text)
	if up == f.text {
		return // the plain scan saw this very text
	}
	g := &finder{text: up, want: map[string]bool{KindIBAN: true}}
	g.ibans()
	f.out = append(f.out, g.out...)
}

func asciiUpper(s string) string {
	b := []byte(s)
	changed := false
	for i, c := range b {
		if isLowerByte(c) {
			b[i] = c - 'a' + 'A'
			changed = true
		}
	}
	if !changed {
		return s
	}
	return string(b)
}
