// Package scrub removes personal data from query text before it is captured
// for evaluation.
//
// Scrub replaces emails, phone numbers (national and international), US
// SSNs, Luhn-valid card numbers, JWTs and bearer tokens with Redacted, and
// nothing else: IP addresses, street addresses and the like stay, because
// captured queries must remain useful for replay.
//
// Detection starts from pii.FindKinds for those six kinds and widens each to
// formats seen in real queries that pii does not know (detect.go, tokens.go,
// numbers.go): internationalised, quoted and percent-encoded addresses;
// national numbers with a trunk 0 (020 7946 0958, 03-1234-5678), "00"
// prefixes, parenthesised area codes, 555-123-4567 and numbers after a phone
// word ("call me at 555-0199"); SSNs after their label with any separator;
// cards grouped with dots; JWTs whose header is truncated; bearer tokens
// after an Authorization header or a label. It drops one pii false positive,
// semver build metadata ("1.0.0+20130313144700"). What stays on purpose:
// numbers failing Luhn, dates, times, versions, ISBNs, order and tracking
// numbers, unlabelled nine-digit runs and numbers the SSA never issues,
// unlabelled NANP numbers with an area code starting 0 or 1, user@localhost,
// asset names such as icon@2x.png, and "bearer" in prose.
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
// in len(s): every detector is a single pass with bounded look-around, and
// Scrub makes at most maxPasses passes.
package scrub

import (
	"strings"

	"github.com/pgbrain/pgbrain/client/pii"
)

// Redacted replaces each piece of personal data.
const Redacted = "[REDACTED]"

// kinds are the detections Scrub removes.
var kinds = [...]string{pii.KindEmail, pii.KindPhone, pii.KindSSN, pii.KindCard, pii.KindJWT, pii.KindBearer}

// Kinds returns the pii kinds Scrub redacts.
func Kinds() []string { return append([]string(nil), kinds[:]...) }

// maxPasses bounds the passes Scrub makes; see Scrub.
const maxPasses = 8

// Scrub returns s with every email, phone number, SSN, card number, JWT and
// bearer token replaced by Redacted.
//
// A redaction can change what its neighbours look like: a number glued to an
// address is part of a longer code until the address becomes a marker. Scrub
// therefore repeats until a pass finds nothing new, which is what makes it
// idempotent; in practice the second pass only confirms the first, and the
// number of passes is bounded, so the time stays linear.
func Scrub(s string) string {
	for range maxPasses {
		ms := detect(s)
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

func replace(s string, ms []span) string {
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m.start])
		b.WriteString(Redacted)
		last = m.end
	}
	b.WriteString(s[last:])
	return b.String()
}
