package pii

import (
	"slices"
	"strings"
)

// Phone numbers. The page rules take North American numbers ((AAA)
// EEE-NNNN and its variants, with or without a "+1" or "1-" prefix) and
// E.164 numbers after '+'. Query mode adds the looser forms people type in a
// search box: national numbers with a trunk 0 (020 7946 0958,
// 03-1234-5678, 01 23 45 67 89), "00" international prefixes,
// parenthesised area codes ((02) 9876 5432), North American numbers whose
// exchange starts with 0 or 1 (555-123-4567), "+1" numbers the page rules
// give up on, Chinese and Indian mobile groupings, and numbers after a
// phone word ("call me at 555-0199"). Every rule looks at no more than
// eight groups from any start, so the scan stays linear.

// phone runs the phone rules of the scanner's mode at group i.
func (n *numScan) phone(i int) {
	if !n.query {
		n.pagePhone(i)
		return
	}
	n.queryNANP(i)
	n.international(i)
	n.bareInternational(i)
	n.national(i)
	n.mobile(i)
}

// plainSep reports a single space, dash or dot.
func plainSep(s string) bool { return s == "-" || s == "." || s == " " }

// nanpAt matches the shape of a North American number at groups i..i+2,
// (AAA) EEE-NNNN, AAA-EEE-NNNN, AAA.EEE.NNNN or AAA EEE NNNN, with nothing
// glued to its end. The area code cannot start with 0 or 1, nor can the
// exchange unless anyExchange (555-123-4567 is how people write a number in
// a query). start is at the parenthesis, if any; what comes before is the
// caller's to judge.
func (n *numScan) nanpAt(i int, anyExchange bool) (start, end int, paren, ok bool) {
	if i+2 >= len(n.g) || n.size(i) != 3 || n.size(i+1) != 3 || n.size(i+2) != 4 {
		return 0, 0, false, false
	}
	t := n.f.text
	if t[n.g[i].s] < '2' || (!anyExchange && t[n.g[i+1].s] < '2') {
		return 0, 0, false, false
	}
	g1, ok1 := n.gap(i)
	g2, ok2 := n.gap(i + 1)
	if !ok1 || !ok2 || !plainSep(g2) {
		return 0, 0, false, false
	}
	start = n.g[i].s
	switch {
	case n.at(start-1) == '(' && (g1 == ")" || (len(g1) == 2 && g1[0] == ')' && plainSep(g1[1:]))):
		start--
		paren = true
	case !plainSep(g1):
		return 0, 0, false, false
	}
	end = n.g[i+2].e
	if n.rightBlocked(end) {
		return 0, 0, false, false
	}
	return start, end, paren, true
}

// nanp matches a North American number at groups i..i+2. checkLeft is
// false when a "+1" or "1-" prefix has already been accounted for.
func (n *numScan) nanp(i int, checkLeft bool) (start, end int, ok bool) {
	start, end, paren, ok := n.nanpAt(i, false)
	if !ok || (checkLeft && paren && n.wordAt(start-1)) || (checkLeft && !paren && n.leftBlocked(start)) {
		return 0, 0, false
	}
	return start, end, true
}

// intlGap accepts the separators seen inside international numbers:
// one space, dash or dot, optionally closing or opening a parenthesis, as in
// "+44 (0)20 7946 0958".
func intlGap(g string) bool {
	s := strings.TrimSuffix(strings.TrimPrefix(g, ")"), "(")
	return g != "" && (s == "" || plainSep(s))
}

// pagePhone matches a North American number, one after a "1" or "+1"
// prefix, and an E.164 number after '+'.
func (n *numScan) pagePhone(i int) {
	g, t := n.g[i], n.f.text
	if s, e, ok := n.nanp(i, true); ok {
		n.f.add(s, e, KindPhone)
	}
	plus := n.at(g.s-1) == '+'
	if plus && n.wordAt(g.s-2) {
		return
	}
	if n.size(i) == 1 && t[g.s] == '1' {
		// 1-415-555-0132, +1 (415) 555-0132
		gp, ok := n.gap(i)
		if !ok || !intlGap(gp) || (!plus && n.leftBlocked(g.s)) {
			return
		}
		if _, e, ok := n.nanp(i+1, false); ok {
			start := g.s
			if plus {
				start--
			}
			n.f.add(start, e, KindPhone)
		}
		return
	}
	if !plus || t[g.s] == '0' {
		return
	}
	// E.164: country code plus subscriber number, 8 to 15 digits in all.
	if best := n.intlRun(i, 0, 8); best >= 0 {
		n.f.add(g.s-1, n.g[best].e, KindPhone)
	}
}

// intlRun returns the last group of the longest international number
// starting at group i, or -1: groups split by intlGap, minDigits to 15
// digits in all (E.164), not counting the first skip digits (an "00"
// prefix), and nothing glued to the end.
func (n *numScan) intlRun(i, skip, minDigits int) int {
	total, best := -skip, -1
	for j := i; j < len(n.g) && j-i < 8; j++ {
		if j > i {
			if gp, ok := n.gap(j - 1); !ok || !intlGap(gp) {
				break
			}
		}
		if total += n.size(j); total > 15 {
			break
		}
		if total >= minDigits && !n.rightBlocked(n.g[j].e) {
			best = j
		}
	}
	return best
}

// queryNANP matches (AAA) EEE-NNNN, AAA-EEE-NNNN, AAA.EEE.NNNN and
// AAA EEE NNNN, optionally after "1 " or "+1 ". The area code cannot start
// with 0 or 1 (so "ids 123-456-7890" stays, as the page scan decides); the
// exchange can.
func (n *numScan) queryNANP(i int) {
	start, end, paren, ok := n.nanpAt(i, true)
	if !ok {
		return
	}
	// A leading 1, as in 1-555-123-4567 or +1 (555) 123-4567.
	if i > 0 && n.digits(i-1) == "1" {
		if pre, ok := n.gap(i - 1); ok && prefixGap(pre, paren) {
			s := n.g[i-1].s
			if n.at(s-1) == '+' {
				if n.plusBlocked(s - 1) {
					return
				}
				s--
			} else if n.leftBlocked(s) {
				return
			}
			n.f.add(s, end, KindPhone)
			return
		}
	}
	if paren {
		if n.wordAt(start - 1) {
			return
		}
	} else if n.leftBlocked(start) || n.at(start-1) == '+' {
		return
	}
	n.f.add(start, end, KindPhone)
}

// prefixGap accepts the gap between a leading 1 and the area code.
func prefixGap(g string, paren bool) bool {
	if paren {
		return g == "(" || (len(g) == 2 && plainSep(g[:1]) && g[1] == '(')
	}
	return plainSep(g)
}

// plusBlocked reports that the '+' at p is glued to a word or ends a
// version ("1.0.0+20130313144700"): what follows is not a phone number.
//
// Only letters and versions block, never a lone digit, so that a number
// before the '+' and the number after it do not block each other one way
// only: redacting the first would then reveal the second on the next pass.
func (n *numScan) plusBlocked(p int) bool {
	return n.wordAt(p-1) || semverBefore(n.f.text, p, n.opaque)
}

// international matches E.164 numbers written with '+', "00" or "(+cc)"
// ("00 44 …" with a space after the prefix is not recognised: hex dumps are
// full of "00 " bytes): a country code and subscriber number of 8 to 15
// digits in all, in groups split by intlGap. It covers what the page scan
// skips: "+1" followed by a number that is not valid NANP, "(+44) 20 …" and
// "0044 20 …".
func (n *numScan) international(i int) {
	g, t := n.g[i], n.f.text
	start, skip := 0, 0 // skip: digits of an "00" prefix, not counted
	switch {
	case n.at(g.s-1) == '+':
		if t[g.s] == '0' || n.plusBlocked(g.s-1) {
			return
		}
		start = g.s - 1
		if n.at(start-1) == '(' {
			if gp, ok := n.gap(i); ok && strings.HasPrefix(gp, ")") && !n.wordAt(start-2) {
				start--
			}
		}
	case n.size(i) >= 3 && n.size(i) <= 5 && strings.HasPrefix(n.digits(i), "00") && t[g.s+2] != '0':
		// 0044 20 7946 0958
		if n.leftBlocked(g.s) || n.at(g.s-1) == '+' || i+1 >= len(n.g) {
			return
		}
		start, skip = g.s, 2
	default:
		return
	}
	if best := n.intlRun(i, skip, 8); best >= 0 {
		n.f.add(start, n.g[best].e, KindPhone)
	}
}

// countryCodes are the calling codes bareInternational accepts: the common
// two- and three-digit ones (one-digit 1 and 7 are too ambiguous without '+').
var countryCodes = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47
		48 49 51 52 53 54 55 56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98
		212 213 216 234 254 351 352 353 354 358 370 371 372 380 420 421 852 853 855 880
		886 960 961 962 963 964 965 966 971 972 973 974 977`) {
		m[c] = true
	}
	return m
}()

// bareInternational matches an international number written without '+' or
// "00": a known country code, then groups split by spaces or dashes (one
// kind throughout the subscriber number), 10 to 13 digits in all (44 20 7946 0958, 49 30 123456,
// 81 3-1234-5678). Bare numbers are common, so it asks for more: three
// groups or more, one of at least three digits (not "20 30 40 50 60"), not
// every group round ("30 100 200 300"), and no further number right before
// or after the run on either side, which also keeps it from cascading.
func (n *numScan) bareInternational(i int) {
	g := n.g[i]
	if !countryCodes[n.digits(i)] || n.leftBlocked(g.s) || n.colonBefore(g.s) ||
		(n.sepAt(g.s-1) && n.digitAt(g.s-2)) {
		return
	}
	if c := n.at(g.s - 1); c == '+' || c == '(' {
		return
	}
	if gp, ok := n.gap(i); !ok || (gp != " " && gp != "-") {
		return
	}
	// After the country code the subscriber's own separator may differ
	// (81 3-1234-5678), but it is the same throughout.
	sep := ""
	total, best, long, round := n.size(i), -1, false, true
	for j := i + 1; j < len(n.g) && j-i < 8; j++ {
		if j > i+1 {
			gp, ok := n.gap(j - 1)
			if sep == "" {
				sep = gp
			}
			if !ok || gp != sep || (gp != " " && gp != "-") {
				break
			}
		}
		l := n.size(j)
		if l > 8 {
			break
		}
		if total += l; total > 13 {
			break
		}
		long = long || l >= 3
		round = round && strings.HasSuffix(n.digits(j), "0")
		e := n.g[j].e
		if j >= i+2 && total >= 10 && long && !round &&
			!n.rightBlocked(e) && !n.colonAfter(e) && !(n.sepAt(e) && n.digitAt(e+1)) {
			best = j
		}
	}
	if best >= 0 {
		n.f.add(g.s, n.g[best].e, KindPhone)
	}
}

// national matches numbers dialled inside a country: a trunk 0 and an area
// code of two to five digits, or an area code in parentheses, then groups of
// two to eight digits, nine to twelve digits in all: 020 7946 0958,
// 07700 900123, 030/1234567, 01 23 45 67 89, 06.12.34.56.78, 03-1234-5678,
// (02) 9876 5432, (11) 91234-5678. After the first gap the separators
// agree: all dots, or spaces and dashes. Dates (01.02.2024 10.30) and ZIP+4
// codes (02134-1234) are refused.
func (n *numScan) national(i int) {
	g, t := n.g[i], n.f.text
	sz := n.size(i)
	first, ok := n.gap(i)
	if !ok {
		return
	}
	start := g.s
	paren := n.at(g.s-1) == '(' && strings.HasPrefix(first, ")")
	if paren {
		// (02) 9876 5432, (11) 91234-5678; (2019) is a year, (555) is nanp's.
		if sz < 2 || sz > 5 || (sz == 4 && (strings.HasPrefix(n.digits(i), "19") || strings.HasPrefix(n.digits(i), "20"))) {
			return
		}
		start--
		// A trunk prefix before the parenthesis: 8 (495) 123-45-67.
		if i > 0 && (n.digits(i-1) == "8" || n.digits(i-1) == "0") {
			if pre, ok := n.gap(i - 1); ok && (pre == "(" || pre == " (") && !n.leftBlocked(n.g[i-1].s) {
				start = n.g[i-1].s
				sz++
			}
		}
		if n.wordAt(start-1) || n.at(start-1) == '+' {
			return
		}
		first = first[1:]
		if first != "" && first != " " && first != "-" {
			return
		}
	} else {
		if sz < 2 || sz > 5 || t[g.s] != '0' || t[g.s+1] == '0' || n.leftBlocked(g.s) || n.colonBefore(g.s) {
			return
		}
		// Not after '+', '#' or '(' (other rules' business), nor inside a path
		// or URL ("/0104/010417.html").
		if c := n.at(g.s - 1); c == '+' || c == '#' || c == '(' || c == '/' {
			return
		}
		if !plainSep(first) && first != "/" {
			return
		}
	}
	total, best, class := sz, -1, byte(0)
	for j := i + 1; j < len(n.g) && j-i < 8; j++ {
		if j > i+1 {
			gp, ok := n.gap(j - 1)
			if !ok || !plainSep(gp) {
				break
			}
			c := sepClass(gp)
			if class == 0 {
				class = c
			}
			if c != class {
				break
			}
		} else if plainSep(first) {
			class = sepClass(first)
		}
		l := n.size(j)
		if l < 2 || l > 8 || (paren && j == i+1 && l < 3) {
			break
		}
		if total += l; total > 12 {
			break
		}
		if total >= 9 && !n.rightBlocked(n.g[j].e) {
			best = j
		}
	}
	if best < 0 || n.colonAfter(n.g[best].e) {
		return
	}
	if best == i+1 && sz == 5 && n.size(i+1) == 4 && first == "-" {
		return // ZIP+4
	}
	if n.dateAt(i, best) || n.dottedQuad(i, best, first) || !n.pairsAlone(i, best, paren) {
		return
	}
	n.f.add(start, n.g[best].e, KindPhone)
}

// colonBefore and colonAfter report a number glued by a colon to digits, as
// in times (15:04:05.999) and MAC addresses, which are not phone numbers.
func (n *numScan) colonBefore(pos int) bool {
	if n.at(pos-1) != ':' {
		return false
	}
	// A digit, or a word of hex digits such as the device "fc:01" in
	// /proc/self/maps; "tel:" and "mobile:" are labels, not hex.
	p := pos - 1
	for p > 0 && n.at(p-1) >= 0 && isAlnum(byte(n.at(p-1))) {
		if !isHex(byte(n.at(p - 1))) {
			return false
		}
		p--
	}
	return p < pos-1
}

func (n *numScan) colonAfter(pos int) bool { return n.at(pos) == ':' && n.digitAt(pos+1) }

// dottedQuad reports four dot-separated groups of at most three digits, an
// IPv4 address written with leading zeros (010.000.015.001).
func (n *numScan) dottedQuad(i, j int, first string) bool {
	if j != i+3 || first != "." {
		return false
	}
	for k := i; k <= j; k++ {
		if n.size(k) > 3 {
			return false
		}
	}
	return true
}

// pairsAlone checks the French grouping 01 23 45 67 89: when every group
// after the first has two digits, there must be exactly five groups, and no
// further pair of digits may continue the run on either side. Hex dumps and
// byte lists ("50 4b 03 04 14 00 08 00") are long runs of pairs.
func (n *numScan) pairsAlone(i, j int, paren bool) bool {
	for k := i + 1; k <= j; k++ {
		if n.size(k) != 2 {
			return true
		}
	}
	if paren || n.size(i) != 2 || j != i+4 {
		return false
	}
	if s := n.g[i].s; n.sepAt(s-1) && (n.digitAt(s-2) || n.hexPair(s-3)) {
		return false
	}
	if e := n.g[j].e; n.sepAt(e) && (n.digitAt(e+1) || n.hexPair(e+1)) {
		return false
	}
	return true
}

func (n *numScan) sepAt(i int) bool {
	c := n.at(i)
	return c == ' ' || c == '-' || c == '.'
}

// hexPair reports a byte of a hex dump at i: two hex digits, at least one a
// decimal digit ("4b", "3c"), standing alone.
func (n *numScan) hexPair(i int) bool {
	hex := func(k int) bool { c := n.at(k); return c >= 0 && isHex(byte(c)) }
	word := func(k int) bool { c := n.at(k); return c >= 0 && isAlnum(byte(c)) }
	return hex(i) && hex(i+1) && (n.digitAt(i) || n.digitAt(i+1)) && !word(i-1) && !word(i+2)
}

// sepClass puts spaces and dashes in one class (020-123 4567) and dots in
// another, so a date followed by a time (01.02.2024 10.30) is not a chain.
func sepClass(g string) byte {
	if g == "." {
		return '.'
	}
	return ' '
}

// dateAt reports that groups i..j start with a day-month-year or
// year-month-day date.
func (n *numScan) dateAt(i, j int) bool {
	if j < i+2 {
		return false
	}
	year := func(k int) bool {
		d := n.digits(k)
		return len(d) == 4 && (strings.HasPrefix(d, "19") || strings.HasPrefix(d, "20"))
	}
	small := func(k int) bool { return n.size(k) <= 2 }
	return (small(i) && small(i+1) && year(i+2)) || (year(i) && small(i+1) && small(i+2))
}

// mobile matches two national mobile groupings that have no trunk 0 and are
// common enough to see unlabelled: Chinese 1[3-9]X XXXX XXXX and Indian
// [6-9]XXXX XXXXX. Pairs of round numbers (60000-70000) are ranges.
func (n *numScan) mobile(i int) {
	g, t := n.g[i], n.f.text
	if n.leftBlocked(g.s) || n.at(g.s-1) == '+' || n.at(g.s-1) == '(' {
		return
	}
	g1, ok := n.gap(i)
	if !ok || (g1 != " " && g1 != "-") {
		return
	}
	switch {
	case n.size(i) == 3 && t[g.s] == '1' && t[g.s+1] >= '3' && i+2 < len(n.g) && n.size(i+1) == 4 && n.size(i+2) == 4:
		if g2, ok := n.gap(i + 1); ok && g2 == g1 && !n.rightBlocked(n.g[i+2].e) {
			n.f.add(g.s, n.g[i+2].e, KindPhone)
		}
	case n.size(i) == 5 && t[g.s] >= '6' && i+1 < len(n.g) && n.size(i+1) == 5:
		if strings.HasSuffix(n.digits(i), "00") || strings.HasSuffix(n.digits(i+1), "00") || n.rightBlocked(n.g[i+1].e) {
			return
		}
		n.f.add(g.s, n.g[i+1].e, KindPhone)
	}
}

// Labels. A number right after one of these words (and a few fillers) is a
// phone number or an SSN even when its shape alone would not say so.
var (
	phoneWords = wordSet(
		"phone", "phones", "telephone", "tel", "mobile", "mob", "cell", "cellphone",
		"fax", "call", "ring", "text", "txt", "sms", "whatsapp", "landline", "hotline",
		"contact", "ph",
	)
	// possessives make "number" a phone label: "my number is 555-0199".
	possessives = wordSet("my", "your", "his", "her", "our", "their")
	fillers     = wordSet(
		"me", "us", "him", "her", "them", "at", "on", "is", "was", "number", "no", "num",
		"nr", "my", "our", "his", "their", "your", "via",
	)
)

// labelled finds phone and SSN labels and the number after them. A phone
// after a label needs 7 to 15 digits in groups split like an international
// number, and must not be a date; an SSN after its label is any AAA GG SSSS
// with one separator (space, dash or dot) or none, issued or not: the label
// says what the writer meant.
func (n *numScan) labelled() {
	l := n.f.lower
	prev := ""
	for s, i := runAt(l, 0, isLowerByte); s < len(l); s, i = runAt(l, i, isLowerByte) {
		// A digit before the word does not stop it being a label: the digit
		// may be redacted, and the marker must read the same.
		if (s > 0 && isLowerByte(l[s-1])) || (i < len(l) && isDigit(l[i])) || n.hidden(s) {
			prev = ""
			continue
		}
		w := l[s:i]
		switch {
		case phoneWords[w] || (w == "number" && possessives[prev]):
			n.afterLabel(i, false)
		case w == "ssn" || (w == "ss" && i < len(l) && l[i] == '#') ||
			(w == "security" && prev == "social" && l[s-1] == ' '):
			n.afterLabel(i, true)
		}
		prev = w
	}
}

// afterLabel skips punctuation and filler words after a label ending at p
// and matches the number that follows.
func (n *numScan) afterLabel(p int, ssn bool) {
	l := n.f.lower
	limit := min(len(l), p+40)
skip:
	for p < limit {
		switch c := l[p]; {
		case c == ' ' || c == '\t' || c == ':' || c == '#' || c == '=':
			p++
		case (c == '-' || c == '.') && (p+1 >= len(l) || !isDigit(l[p+1])):
			p++ // "Tel. 555…", "SSN - 123…"
		case isLowerByte(c):
			q := p
			for q < len(l) && isLowerByte(l[q]) {
				q++
			}
			if !fillers[l[p:q]] {
				return
			}
			p = q
		default:
			break skip
		}
	}
	if p >= limit || n.hidden(p) {
		return
	}
	start := p
	if l[p] == '+' || l[p] == '(' {
		if ssn {
			return
		}
		p++
	}
	k, found := slices.BinarySearchFunc(n.g, p, func(g group, p int) int { return g.s - p })
	if !found {
		return
	}
	if ssn {
		n.labelledSSN(k)
		return
	}
	best := n.intlRun(k, 0, 7)
	if best < 0 || n.dateAt(k, best) {
		return
	}
	n.f.add(start, n.g[best].e, KindPhone)
}

func (n *numScan) labelledSSN(k int) {
	if n.size(k) == 9 {
		if !n.rightBlocked(n.g[k].e) {
			n.f.add(n.g[k].s, n.g[k].e, KindSSN)
		}
		return
	}
	if sep, end, ok := n.ssnGroups(k); ok && plainSep(sep) {
		n.f.add(n.g[k].s, end, KindSSN)
	}
}
