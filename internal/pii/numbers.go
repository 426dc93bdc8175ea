package pii

import (
	"net/netip"
	"strconv"
	"strings"
)

// group is a run of ASCII digits, [s,e).
type group struct{ s, e int }

// numScan finds card, phone, SSN, IPv4 and coordinate numbers by looking at
// runs of digits and the few characters between them, rather than with one
// regular expression per format: a greedy expression that over-reaches (a
// phone number followed by more digits) hides the real match, and windows
// over digit groups see every alignment in linear time.
//
// In query mode (see FindForRedaction) the same scanner reads numbers as
// people type them into a search box: gaps may hold no-break spaces and
// Unicode dashes, and a dash glues a number to a word ("ORD-12345").
type numScan struct {
	f      *finder
	opaque []bool // bytes inside email, JWT and bearer detections; nil when none
	g      []group
	query  bool
}

func newNumScan(f *finder, opaque []bool, query bool) *numScan {
	n := &numScan{f: f, opaque: opaque, query: query}
	t := f.text
	for i := 0; i < len(t); {
		if !isDigit(t[i]) || n.hidden(i) {
			i++
			continue
		}
		s := i
		for i < len(t) && isDigit(t[i]) && !n.hidden(i) {
			i++
		}
		n.g = append(n.g, group{s, i})
	}
	return n
}

// numbers runs the number rules of the scanner's mode. Page mode finds
// cards, phone numbers, SSNs, IPv4 addresses and coordinates. Query mode
// (FindForRedaction, on top of the page scan) reads cards and phone
// numbers the looser ways people type them (see card and phone) and finds
// numbers after a phone or SSN label (see labelled); an unlabelled SSN is
// left to the page scan.
func (f *finder) numbers(opaque []bool, query bool) {
	n := newNumScan(f, opaque, query)
	card, phone, ssn := f.wants(KindCard), f.wants(KindPhone), f.wants(KindSSN) && !query
	ip, coord := f.wants(KindIPAddress) && !query, f.wants(KindCoordinates) && !query
	for i := range n.g {
		if card {
			n.card(i)
		}
		if phone {
			n.phone(i)
		}
		if ssn {
			n.ssn(i)
		}
		if ip {
			n.ipv4(i)
		}
		if coord {
			n.coordinates(i)
		}
	}
	if query && len(n.g) > 0 {
		n.labelled()
	}
}

func (n *numScan) hidden(i int) bool { return n.opaque != nil && n.opaque[i] }

// at returns the byte at i, or -1 outside the text or inside an opaque span,
// so an opaque neighbour looks exactly like the punctuation of a redaction
// marker.
func (n *numScan) at(i int) int {
	if i < 0 || i >= len(n.f.text) || n.hidden(i) {
		return -1
	}
	return int(n.f.text[i])
}

func (n *numScan) digitAt(i int) bool {
	c := n.at(i)
	return c >= '0' && c <= '9'
}

// leftBlocked reports that the number starting at pos is glued to a word
// ("ID415-555-0132", "v1.2.3.4") or continues a longer number ("12-" or "3."
// before it), and in query mode also a code ("ORD-" before it). The tests
// are symmetric with rightBlocked, so two numbers glued by a dash or dot
// block each other rather than one surviving and the other appearing only
// after redaction; and since opaque bytes count as neither letters nor
// digits, a neighbouring email or token blocks nothing, exactly like the
// marker that replaces it.
func (n *numScan) leftBlocked(pos int) bool {
	c := n.at(pos - 1)
	return n.wordAt(pos-1) || ((c == '-' || c == '.') && n.digitAt(pos-2)) ||
		(n.query && c == '-' && n.wordAt(pos-2))
}

func (n *numScan) rightBlocked(pos int) bool {
	c := n.at(pos)
	return n.wordAt(pos) || ((c == '-' || c == '.') && n.digitAt(pos+1)) ||
		(n.query && c == '-' && n.wordAt(pos+1))
}

// numberJoined reports that the digits at [s, e) are joined by a dash or
// dot to more digits on either side.
func (n *numScan) numberJoined(s, e int) bool {
	l, r := n.at(s-1), n.at(e)
	return ((l == '-' || l == '.') && n.digitAt(s-2)) || ((r == '-' || r == '.') && n.digitAt(e+1))
}

// wordAt reports an ASCII letter or underscore at i.
func (n *numScan) wordAt(i int) bool {
	c := n.at(i)
	return c == '_' || (c >= 0 && isAlpha(byte(c)))
}

// gap returns the text between group i and group i+1 when it is short and
// holds nothing opaque. In query mode no-break spaces and Unicode dashes are
// folded to ' ' and '-'.
func (n *numScan) gap(i int) (string, bool) {
	if i+1 >= len(n.g) {
		return "", false
	}
	s, e := n.g[i].e, n.g[i+1].s
	if e-s > 8 {
		return "", false
	}
	for p := s; p < e; p++ {
		if n.hidden(p) {
			return "", false
		}
	}
	if n.query {
		return foldSeparators(n.f.text[s:e]), true
	}
	return n.f.text[s:e], true
}

var separatorFolder = strings.NewReplacer(
	"\u00a0", " ", "\u202f", " ", "\u2009", " ",
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-",
)

func foldSeparators(g string) string {
	for i := 0; i < len(g); i++ {
		if g[i] >= 0x80 {
			return separatorFolder.Replace(g)
		}
	}
	return g
}

func (n *numScan) size(i int) int { return n.g[i].e - n.g[i].s }
func (n *numScan) digits(i int) string {
	return n.f.text[n.g[i].s:n.g[i].e]
}

// card accepts 13-19 digits that pass Luhn, written solid or as groups split
// by one kind of separator (4-4-4-4, 4-6-5, 4-4-4-4-3 ...). The first digit
// must be 2-6 (Mastercard, Amex, Diners, JCB, Visa, Discover, UnionPay,
// Maestro): it keeps ISBNs, millisecond timestamps and other long numbers out.
// The separator is a space or dash; in query mode also a dot (and what gap
// folds), and a solid number counts even glued to letters.
func (n *numScan) card(i int) {
	g, t := n.g[i], n.f.text
	if t[g.s] < '2' || t[g.s] > '6' || n.at(g.s-1) == '+' {
		return
	}
	// A query's solid card number glued to words ("visa4111111111111111",
	// "card:4242424242424242exp1227") is still one: a query has no
	// product codes worth keeping at that length.
	// (but not one that continues a longer number: a Go pseudo-version's
	// "-20240115093005-" timestamp)
	if l := n.size(i); n.query && l >= 13 && l <= 19 && luhn(t[g.s:g.e]) && !n.numberJoined(g.s, g.e) {
		n.f.add(g.s, g.e, KindCard)
		return
	}
	if n.leftBlocked(g.s) {
		return
	}
	if l := n.size(i); !n.query && l >= 13 && l <= 19 {
		if luhn(t[g.s:g.e]) && !n.rightBlocked(g.e) {
			n.f.add(g.s, g.e, KindCard)
		}
		return
	}
	if n.size(i) != 4 {
		return
	}
	sep, ok := n.gap(i)
	if !ok || (sep != " " && sep != "-" && (!n.query || sep != ".")) {
		return
	}
	var buf [19]byte
	d := append(buf[:0], n.digits(i)...)
	best := -1
	for j := i + 1; j < len(n.g); j++ {
		if s, ok := n.gap(j - 1); !ok || s != sep {
			break
		}
		l := n.size(j)
		if l < 3 || l > 6 || len(d)+l > 19 {
			break
		}
		d = append(d, n.digits(j)...)
		if len(d) >= 13 && luhn(string(d)) && !n.rightBlocked(n.g[j].e) {
			best = j
		}
	}
	if best >= 0 {
		n.f.add(g.s, n.g[best].e, KindCard)
	}
}

// ssn accepts AAA-GG-SSSS on its own, and AAA GG SSSS or AAAGGSSSS only
// right after "SSN" or "social security (number)".
func (n *numScan) ssn(i int) {
	g := n.g[i]
	if n.leftBlocked(g.s) {
		return
	}
	if n.size(i) == 9 {
		d := n.digits(i)
		if ssnValid(d[:3], d[3:5], d[5:]) && !n.rightBlocked(g.e) && n.ssnContext(g.s) {
			n.f.add(g.s, g.e, KindSSN)
		}
		return
	}
	sep, end, ok := n.ssnGroups(i)
	if !ok || !ssnValid(n.digits(i), n.digits(i+1), n.digits(i+2)) {
		return
	}
	if sep == "-" || (sep == " " && n.ssnContext(g.s)) {
		n.f.add(g.s, end, KindSSN)
	}
}

// ssnGroups matches groups of three, two and four digits from group i split
// twice by the same separator, with nothing glued to the end.
func (n *numScan) ssnGroups(i int) (sep string, end int, ok bool) {
	if i+2 >= len(n.g) || n.size(i) != 3 || n.size(i+1) != 2 || n.size(i+2) != 4 {
		return "", 0, false
	}
	g1, ok1 := n.gap(i)
	g2, ok2 := n.gap(i + 1)
	end = n.g[i+2].e
	if !ok1 || !ok2 || g1 != g2 || n.rightBlocked(end) {
		return "", 0, false
	}
	return g1, end, true
}

// ssnContext reports whether the text just before pos names an SSN, as in
// "SSN: ", "ssn#", "Social Security No. ".
func (n *numScan) ssnContext(pos int) bool {
	skip := func(p int) int {
		for p > 0 && strings.IndexByte(" \t:#=-.", byte(n.at(p-1))) >= 0 && n.at(p-1) >= 0 {
			p--
		}
		return p
	}
	p := skip(pos)
	for _, label := range []string{"number", "num", "nr", "no"} {
		if n.endsWith(p, label) {
			p = skip(p - len(label))
			break
		}
	}
	return n.endsWith(p, "ssn") || n.endsWith(p, "social security")
}

// endsWith reports whether the lower-cased text before p ends with word,
// none of it opaque.
func (n *numScan) endsWith(p int, word string) bool {
	if p < len(word) || n.f.lower[p-len(word):p] != word {
		return false
	}
	for q := p - len(word); q < p; q++ {
		if n.hidden(q) {
			return false
		}
	}
	return true
}

// versionWords precede dotted numbers that are releases, not addresses.
var versionWords = map[string]bool{
	"version": true, "ver": true, "release": true, "build": true, "firmware": true,
	"revision": true, "rev": true, "v": true, "patch": true,
}

// ipv4 accepts four dot-separated octets 0-255 without leading zeros, that
// are not part of a longer dotted number and not a version ("v1.2.3.4" is
// glued to a word; "version 1.2.3.4" follows one). Unspecified, loopback, multicast and netmask-like
// addresses identify no one and are skipped.
func (n *numScan) ipv4(i int) {
	if i+3 >= len(n.g) {
		return
	}
	var oct [4]byte
	for k := range 4 {
		d := n.digits(i + k)
		if len(d) > 3 || (len(d) > 1 && d[0] == '0') {
			return
		}
		v, _ := strconv.Atoi(d)
		if v > 255 {
			return
		}
		oct[k] = byte(v)
		if k < 3 {
			if gp, ok := n.gap(i + k); !ok || gp != "." {
				return
			}
		}
	}
	s, e := n.g[i].s, n.g[i+3].e
	if n.leftBlocked(s) || n.rightBlocked(e) || n.versionBefore(s) || n.sectionBefore(s) {
		return
	}
	addr := netip.AddrFrom4(oct)
	if addr.IsUnspecified() || addr.IsLoopback() || addr.IsMulticast() || oct[0] == 255 {
		return
	}
	n.f.add(s, e, KindIPAddress)
}

func (n *numScan) versionBefore(pos int) bool {
	p := pos
	for p > 0 && (n.at(p-1) == ' ' || n.at(p-1) == ':' || n.at(p-1) == '\t') {
		p--
	}
	w := p
	for w > 0 && isLowerByte(n.f.lower[w-1]) && !n.hidden(w-1) {
		w--
	}
	return w < p && versionWords[n.f.lower[w:p]]
}

// sectionWords precede dotted numbers that number a part of a document
// ("RFC 5280, Section 4.1.2.2", "rfc5246#section-6.2.3.2").
var sectionWords = map[string]bool{
	"section": true, "sec": true, "clause": true, "chapter": true, "appendix": true,
	"annex": true, "paragraph": true, "para": true, "article": true, "figure": true, "fig": true,
}

// sectionBefore reports a section word, optionally abbreviated with a dot,
// a section sign or an RFC number ("RFC 5280, 4.2.2.1") before pos,
// separated by spaces or one hyphen.
func (n *numScan) sectionBefore(pos int) bool {
	p := n.skipBlanks(pos)
	if p == pos && n.at(p-1) == '-' {
		p--
	}
	if p >= 2 && n.at(p-2) == 0xc2 && n.at(p-1) == 0xa7 { // §
		return true
	}
	if n.rfcBefore(p) {
		return true
	}
	if n.at(p-1) == '.' {
		p--
	}
	w := n.wordStart(p)
	return w < p && sectionWords[n.f.lower[w:p]]
}

// rfcBefore reports "RFC 1234," or "rfc1234" ending at p.
func (n *numScan) rfcBefore(p int) bool {
	if n.at(p-1) == ',' {
		p = n.skipBlanks(p - 1)
	}
	d := p
	for d > 0 && n.digitAt(d-1) {
		d--
	}
	if d == p {
		return false
	}
	if n.at(d-1) == ' ' {
		d--
	}
	w := n.wordStart(d)
	return n.f.lower[w:d] == "rfc"
}

func (n *numScan) skipBlanks(p int) int {
	for p > 0 && (n.at(p-1) == ' ' || n.at(p-1) == '\t') {
		p--
	}
	return p
}

// wordStart returns where the run of lower-cased ASCII letters ending at p
// starts (p when there is none).
func (n *numScan) wordStart(p int) int {
	w := p
	for w > 0 && isLowerByte(n.f.lower[w-1]) && !n.hidden(w-1) {
		w--
	}
	return w
}

// coordinates accepts a decimal latitude, longitude pair such as
// "37.7749, -122.4194". Both parts need at least three decimals (about
// 100 m), which keeps ordinary pairs of numbers out.
func (n *numScan) coordinates(i int) {
	if i+3 >= len(n.g) {
		return
	}
	if n.size(i) > 2 || n.size(i+1) < 3 || n.size(i+2) > 3 || n.size(i+3) < 3 {
		return
	}
	d1, ok1 := n.gap(i)
	mid, ok2 := n.gap(i + 1)
	d2, ok3 := n.gap(i + 2)
	if !ok1 || !ok2 || !ok3 || d1 != "." || d2 != "." {
		return
	}
	lonSign := ""
	if strings.HasSuffix(mid, "-") || strings.HasSuffix(mid, "+") {
		lonSign = mid[len(mid)-1:]
		mid = mid[:len(mid)-1]
	}
	if strings.Trim(mid, " \t") != "," {
		return
	}
	start := n.g[i].s
	if c := n.at(start - 1); c == '-' || c == '+' {
		start--
		if n.digitAt(start-1) || n.wordAt(start-1) {
			return
		}
	} else if n.leftBlocked(start) {
		return
	}
	end := n.g[i+3].e
	if n.rightBlocked(end) {
		return
	}
	t := n.f.text
	lat, err1 := strconv.ParseFloat(t[start:n.g[i+1].e], 64)
	lon, err2 := strconv.ParseFloat(lonSign+t[n.g[i+2].s:end], 64)
	if err1 != nil || err2 != nil || lat < -90 || lat > 90 || lon < -180 || lon > 180 || (lat == 0 && lon == 0) {
		return
	}
	n.f.add(start, end, KindCoordinates)
}
