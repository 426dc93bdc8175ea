package pii

import (
	"slices"
	"strings"
)

// Match is one stretch of personal data in a text. Start and End are byte
// offsets (End exclusive) and always fall on UTF-8 boundaries of valid input.
type Match struct {
	Start    int
	End      int
	Kind     string // what was found, one of the Kind constants
	Category string // the taxonomy category of Kind
}

// Kinds of detection. A kind names the shape that was found; its category is
// what the taxonomy calls it.
const (
	KindEmail          = "email"           // contact
	KindPhone          = "phone"           // contact
	KindPOBox          = "po_box"          // contact
	KindSSN            = "ssn"             // government_id
	KindPassport       = "passport"        // government_id
	KindDriversLicense = "drivers_license" // government_id
	KindNationalID     = "national_id"     // government_id: tax and insurance numbers, ID cards
	KindCard           = "card"            // payment_card
	KindIBAN           = "iban"            // financial
	KindBankAccount    = "bank_account"    // financial
	KindRoutingNumber  = "routing_number"  // financial: ABA routing number or UK sort code
	KindSWIFT          = "swift_bic"       // financial
	KindJWT            = "jwt"             // credential
	KindBearer         = "bearer_token"    // credential: the token after "Bearer"
	KindAPIKey         = "api_key"         // credential
	KindPrivateKey     = "private_key"     // credential
	KindSecret         = "secret"          // credential: password=..., api_key: ...
	KindURLPassword    = "url_password"    // credential: the password in scheme://user:pass@host
	KindIPAddress      = "ip_address"      // online_identifier
	KindMACAddress     = "mac_address"     // online_identifier
	KindStreetAddress  = "street_address"  // location, also contact
	KindCoordinates    = "coordinates"     // location
	KindHealth         = "health"          // health
	KindICD10          = "icd10_code"      // health
	KindGenetic        = "genetic"         // genetic
	KindDNASequence    = "dna_sequence"    // genetic
	KindBiometric      = "biometric"       // biometric
	KindBehavioral     = "behavioral"      // behavioral
	KindDemographic    = "demographic"     // demographic_protected
)

type kindInfo struct {
	category string
	rank     int      // lower wins the label when detections overlap
	implies  []string // further categories this kind reveals, for Classify
}

// kinds is ordered by rank: secrets first, because a merged match is named
// after its most dangerous part.
var kinds = func() map[string]kindInfo {
	order := []struct {
		kind, category string
		implies        []string
	}{
		{KindPrivateKey, Credential, nil},
		{KindJWT, Credential, nil},
		{KindBearer, Credential, nil},
		{KindAPIKey, Credential, nil},
		{KindURLPassword, Credential, nil},
		{KindSecret, Credential, nil},
		{KindCard, PaymentCard, nil},
		{KindSSN, GovernmentID, nil},
		{KindPassport, GovernmentID, nil},
		{KindDriversLicense, GovernmentID, nil},
		{KindNationalID, GovernmentID, nil},
		{KindIBAN, Financial, nil},
		{KindBankAccount, Financial, nil},
		{KindRoutingNumber, Financial, nil},
		{KindSWIFT, Financial, nil},
		{KindEmail, Contact, nil},
		{KindPhone, Contact, nil},
		{KindPOBox, Contact, []string{Location}},
		{KindStreetAddress, Location, []string{Contact}},
		{KindCoordinates, Location, nil},
		{KindIPAddress, OnlineIdentifier, nil},
		{KindMACAddress, OnlineIdentifier, nil},
		{KindDNASequence, Genetic, nil},
		{KindGenetic, Genetic, nil},
		{KindICD10, Health, nil},
		{KindHealth, Health, nil},
		{KindBiometric, Biometric, nil},
		{KindDemographic, DemographicProtected, nil},
		{KindBehavioral, Behavioral, nil},
	}
	m := make(map[string]kindInfo, len(order))
	for i, o := range order {
		m[o.kind] = kindInfo{category: o.category, rank: i, implies: o.implies}
	}
	return m
}()

// Find returns every piece of personal data in text, in order and without
// overlaps. Where detections overlap they are merged into one match covering
// all of them, named after the highest-ranked kind (credentials first), so no
// part of any detection is ever left outside a match.
func Find(text string) []Match {
	return merge(detect(text, nil))
}

// FindKinds is Find restricted to the given kinds; names that are not Kind
// constants are ignored. Restricting matters for redaction: overlaps are
// resolved only among the requested kinds, so a kind the caller does not act
// on can never swallow one it does.
func FindKinds(text string, only ...string) []Match {
	if len(only) == 0 {
		return nil
	}
	want := make(map[string]bool, len(only))
	for _, k := range only {
		want[k] = true
	}
	return merge(detect(text, want))
}

// Classify returns the sorted, distinct categories of personal data in text.
// It counts every detection, including ones Find merges into a neighbour, and
// the categories a kind implies (a street address is both location and
// contact), except documentation values such as alice@example.com or
// 192.0.2.1, which identify no one (see nonIdentifying).
func Classify(text string) []string {
	var seen [len(categories)]bool
	for _, c := range detect(text, nil) {
		if nonIdentifying(text, c) {
			continue
		}
		info := kinds[c.kind]
		mark(&seen, info.category)
		for _, cat := range info.implies {
			mark(&seen, cat)
		}
	}
	var out []string
	for i, ok := range seen {
		if ok {
			out = append(out, categories[i])
		}
	}
	return out
}

func mark(seen *[len(categories)]bool, cat string) {
	if i, ok := slices.BinarySearch(categories[:], cat); ok {
		seen[i] = true
	}
}

type candidate struct {
	start, end int
	kind       string
}

// finder holds one detection run. lower is an ASCII-only lower-cased copy of
// text: same length and offsets, and no Unicode case folding (which would let
// "K" match the Kelvin sign).
type finder struct {
	text    string
	lower   string
	want    map[string]bool // nil: every kind
	out     []candidate
	hintPos [][]int // positions of each set of hints, once found
}

// hintsAt returns the ascending positions of the hints of set (see hints)
// in the text, finding those of every set on first use.
func (f *finder) hintsAt(set int) []int {
	if f.hintPos == nil {
		f.hintPos = hints.find(f.text, f.lower)
	}
	return f.hintPos[set]
}

func (f *finder) wants(kinds ...string) bool {
	if f.want == nil {
		return true
	}
	for _, k := range kinds {
		if f.want[k] {
			return true
		}
	}
	return false
}

func (f *finder) add(start, end int, kind string) {
	if start < end && f.wants(kind) {
		f.out = append(f.out, candidate{start, end, kind})
	}
}

func newFinder(text string, want map[string]bool) *finder {
	return &finder{text: text, lower: asciiLower(text), want: want}
}

func detect(text string, want map[string]bool) []candidate {
	f := newFinder(text, want)
	f.detect()
	return f.out
}

// detect runs every detector f wants and collects candidates in f.out.
func (f *finder) detect() {
	// Email, JWT and bearer spans come first: the number scanner treats them
	// as opaque, exactly as it would treat the marker that replaces them, so
	// redacting a text is stable under a second pass.
	numeric := f.wants(KindCard, KindPhone, KindSSN, KindIPAddress, KindCoordinates)
	if numeric || f.wants(KindEmail, KindJWT, KindBearer) {
		opaque := f.tokens()
		if numeric {
			f.numbers(opaque, false)
		}
	}
	if f.wants(KindAPIKey, KindPrivateKey, KindSecret, KindURLPassword) {
		f.secrets(false)
	}
	if f.wants(KindIBAN, KindBankAccount, KindRoutingNumber, KindSWIFT, KindPassport, KindDriversLicense, KindNationalID) {
		f.identifiers()
	}
	if f.wants(KindIPAddress, KindMACAddress) {
		f.network()
	}
	if f.wants(KindCoordinates) {
		f.degrees()
	}
	if f.wants(KindStreetAddress, KindPOBox, KindHealth, KindICD10, KindGenetic, KindBiometric, KindBehavioral, KindDemographic) {
		f.words()
	}
	if f.wants(KindDNASequence) {
		f.dna()
	}
}

// merge sorts candidates and fuses overlapping ones.
func merge(cs []candidate) []Match {
	slices.SortFunc(cs, func(a, b candidate) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	if len(cs) == 0 {
		return nil
	}
	out := make([]Match, 0, len(cs))
	for _, c := range cs {
		info := kinds[c.kind]
		if n := len(out); n > 0 && c.start < out[n-1].End {
			m := &out[n-1]
			m.End = max(m.End, c.end)
			if info.rank < kinds[m.Kind].rank {
				m.Kind, m.Category = c.kind, info.category
			}
			continue
		}
		out = append(out, Match{Start: c.start, End: c.end, Kind: c.kind, Category: info.category})
	}
	return out
}

func asciiLower(s string) string {
	i := 0
	for i < len(s) && !isUpper(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	// Capitals are few: copy the runs between them, into one allocation.
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for ; i < len(s); i++ {
		if c := s[i]; isUpper(c) {
			b.WriteString(s[last:i])
			b.WriteByte(c + 'a' - 'A')
			last = i + 1
		}
	}
	b.WriteString(s[last:])
	return b.String()
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

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLowerByte(c byte) bool {
	return 'a' <= c && c <= 'z'
}
func isAlpha(c byte) bool { return isUpper(c) || isLowerByte(c) }
func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }

func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			n++
		}
	}
	return n
}
