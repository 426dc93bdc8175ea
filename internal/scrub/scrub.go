// Package scrub removes personal data and credentials from query text
// before it is written anywhere: eval captures, the events file (and so
// pgbrain tail), and stderr messages that quote a query. It is the one
// detector set for all of them.
//
// Scrub replaces emails (anywhere in the text), phone numbers (national and
// international), US SSNs, Luhn-valid card numbers, JWTs, bearer tokens,
// vendor API keys (AWS, GitHub, GitLab, Slack, Stripe, OpenAI-style, Google,
// npm), AWS secret access keys, private key blocks, values assigned to
// credential names (password, passwd, pwd, secret, token, api_key ...),
// URL passwords, IBANs and labelled passport, driving licence, national id
// and bank account numbers with Redacted. Every credential shape the page
// classifier knows is among them (a test in internal/pii holds that). Other
// text stays: IP and street addresses, versions, hashes, dates, order
// numbers, UUIDs, because captured queries must remain useful for replay.
// What counts as each is pii.FindForRedaction's business (see there for the
// formats); this package only replaces what it reports.
//
// For a bearer token only the token is replaced, so "Bearer abc...123"
// becomes "Bearer [REDACTED]" and the query still reads naturally.
//
// Bytes that are not valid UTF-8 pass through untouched: every detection
// starts and ends on a rune boundary of valid UTF-8, so replacing one never
// splits a multi-byte sequence, and valid UTF-8 input gives valid UTF-8
// output.
//
// Scrub is idempotent, Scrub(Scrub(s)) == Scrub(s), and runs in time linear
// in len(s): detection is linear, and Scrub makes at most maxPasses passes.
package scrub

import (
	"strings"

	"github.com/pgbrain/pgbrain/internal/pii"
)

// Redacted replaces each piece of personal data.
const Redacted = "[REDACTED]"

// Kinds returns the pii kinds Scrub redacts.
func Kinds() []string { return pii.RedactionKinds() }

// maxPasses bounds the passes Scrub makes; see Scrub.
const maxPasses = 8

// Scrub returns s with every detection of pii.FindForRedaction (see the
// package comment) replaced by Redacted, in s as written and in s as read
// without zero-width characters and full-width forms (find).
//
// A redaction can change what its neighbours look like: a number glued to an
// address is part of a longer code until the address becomes a marker. Scrub
// therefore repeats until a pass finds nothing new, which is what makes it
// idempotent; in practice the second pass only confirms the first, and the
// number of passes is bounded, so the time stays linear.
func Scrub(s string) string {
	for range maxPasses {
		ms := find(s)
		if len(ms) == 0 {
			return s
		}
		next := replace(s, ms)
		if next == s {
			return s
		}
		s = next
	}
	return s
}

func replace(s string, ms []pii.Match) string {
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m.Start])
		b.WriteString(Redacted)
		last = m.End
	}
	b.WriteString(s[last:])
	return b.String()
}
