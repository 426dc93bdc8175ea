package pii

import (
	"regexp"
	"slices"
)

// redactionKinds are what FindForRedaction reports: the personal data and
// credentials that query text must not carry to any place it is written
// (eval captures, the events file, tail, logs). Every credential kind the
// page classifier knows is here, with cards, government and bank account
// numbers and contact details. Other kinds (IP and street addresses,
// routing and SWIFT codes, health words ...) stay, so the query remains
// useful for replay.
var redactionKinds = [...]string{
	KindEmail, KindPhone, KindSSN, KindCard, KindJWT, KindBearer,
	KindAPIKey, KindPrivateKey, KindSecret, KindURLPassword,
	KindIBAN, KindBankAccount, KindPassport, KindDriversLicense, KindNationalID,
}

// redactionWant is what the page scan looks for. Assignments to secret
// names are left to the secret scan's query mode, whose expression accepts
// every name and value the page mode's does (and more): running both would
// scan the same windows twice.
var redactionWant = func() map[string]bool {
	m := make(map[string]bool, len(redactionKinds))
	for _, k := range redactionKinds {
		m[k] = k != KindSecret
	}
	return m
}()

// RedactionKinds returns the kinds FindForRedaction reports. The slice is a
// copy.
func RedactionKinds() []string { return slices.Clone(redactionKinds[:]) }

// FindForRedaction returns, in order and without overlaps, the emails, phone
// numbers, SSNs, card numbers, JWTs, bearer tokens, vendor API keys, private
// key blocks, values assigned to credential names, URL passwords, IBANs and
// labelled passport, licence, national id and bank account numbers to
// remove from a search query. It is tuned for queries, where missing a value
// costs more than removing a look-alike, and differs from FindKinds for those kinds:
//
// It starts from FindKinds and widens each kind to formats seen in real
// queries (query mode): internationalised, quoted and percent-encoded
// addresses; national numbers with a trunk 0 (020 7946 0958, 03-1234-5678),
// "00" prefixes, parenthesised area codes, 555-123-4567 and numbers after a
// phone word ("call me at 555-0199"); SSNs after their label with any
// separator; cards grouped with dots; JWTs whose header is truncated; bearer
// // tokens after an Authorization header or a label; any non-placeholder
// value assigned to a credential name ("token=abc", "password: x"), Stripe
// publishable keys, and IBANs in lower case. It drops one false positive, semver build metadata ("1.0.0+20130313144700"). What stays on
// purpose: numbers failing Luhn, dates, times, versions, ISBNs, order and
// tracking numbers, unlabelled nine-digit runs and numbers the SSA never
// issues, unlabelled NANP numbers with an area code starting 0 or 1,
// user@localhost, asset names such as icon@2x.png, and "bearer" in prose.
// For a bearer token only the token is reported, not the word "Bearer".
//
// Like Find it never splits a rune of valid UTF-8 and runs in linear time.
// Replacing every match with a marker of punctuation, such as
// "[REDACTED]", and calling it again finds nothing new in all but rare
// cases (a redaction can reveal a number that was glued to an address), so
// a caller that must be idempotent repeats until a pass finds nothing.
func FindForRedaction(text string) []Match {
	f := newFinder(text, redactionWant)
	f.detect()
	var opaque []bool
	hide := func(start, end int) {
		if opaque == nil {
			opaque = make([]bool, len(text))
		}
		for i := start; i < end; i++ {
			opaque[i] = true
		}
	}
	plain := merge(f.out)
	f.out = f.out[:0]
	for _, m := range plain {
		if semverBuild(text, m) {
			continue
		}
		f.out = append(f.out, candidate{m.Start, m.End, m.Kind})
		if opaqueKind(m.Kind) {
			hide(m.Start, m.End)
		}
	}
	// The same scanners again, in query mode: what they find on top of the
	// page scan.
	n := len(f.out)
	for _, s := range f.tokenSpans(true) {
		f.add(s.start, s.end, s.kind)
	}
	f.secrets(true)
	f.ibans(true)
	for _, c := range f.out[n:] {
		hide(c.start, c.end)
	}
	// The query number rules see addresses and tokens as opaque, exactly
	// like the marker that will replace them. They do see the page scan's
	// numbers, so they can widen one ("(+44) 20 …" where the page scan
	// starts at the '+').
	f.numbers(opaque, true)
	return merge(f.out)
}

// opaqueKind reports the kinds found before numbers, which the number
// scanners see through.
func opaqueKind(kind string) bool {
	switch kind {
	case KindPhone, KindSSN, KindCard:
		return false
	}
	return true
}

// semverBuild reports a phone match that is semver build metadata: a '+'
// right after a version such as 1.0.0 or v2.1.0-rc.1 starts the build
// ("1.0.0+20130313144700", the semver specification's own example), never
// an E.164 number.
func semverBuild(s string, m Match) bool {
	return m.Kind == KindPhone && s[m.Start] == '+' && semverBefore(s, m.Start, nil)
}

// semverBefore reports a semver version core, with an optional pre-release,
// ending at p: the run of letters, digits, dots and dashes before p (at most
// 64 bytes, none of them opaque) is one.
func semverBefore(t string, p int, opaque []bool) bool {
	q := p
	for q > 0 && p-q < 64 && (opaque == nil || !opaque[q-1]) && (isAlnum(t[q-1]) || t[q-1] == '.' || t[q-1] == '-') {
		q--
	}
	return semverCore.MatchString(t[q:p])
}

var semverCore = regexp.MustCompile(`^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$`)
