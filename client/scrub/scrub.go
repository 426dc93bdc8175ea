// Package scrub removes personal data from query text before it is captured
// for evaluation.
//
// Scrub replaces emails, phone numbers (national and international), US
// SSNs, Luhn-valid card numbers, JWTs and bearer tokens with Redacted, and
// nothing else: IP addresses, street addresses and the like stay, because
// captured queries must remain useful for replay. Detection is pii.FindKinds,
// so what counts as each kind is defined in one place.
//
// For a bearer token only the token is replaced, so "Bearer abc...123"
// becomes "Bearer [REDACTED]" and the query still reads naturally.
//
// Bytes that are not valid UTF-8 pass through untouched: every detection
// starts and ends on an ASCII character, so replacing one never splits a
// multi-byte sequence, and valid UTF-8 input gives valid UTF-8 output.
//
// Scrub is idempotent, Scrub(Scrub(s)) == Scrub(s), and runs in time linear
// in len(s).
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

// Scrub returns s with every email, phone number, SSN, card number, JWT and
// bearer token replaced by Redacted.
func Scrub(s string) string {
	ms := pii.FindKinds(s, kinds[:]...)
	if len(ms) == 0 {
		return s
	}
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
