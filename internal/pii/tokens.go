package pii

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// fileExtensions end asset names such as icon@2x.png; none is a real TLD.
var fileExtensions = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true, "webp": true,
	"bmp": true, "ico": true, "tif": true, "tiff": true, "avif": true, "heic": true,
	"css": true, "scss": true, "js": true, "jsx": true, "tsx": true, "json": true,
	"yaml": true, "yml": true, "html": true, "htm": true, "txt": true, "pdf": true,
	"mp3": true, "mp4": true, "mov": true, "wav": true, "woff": true, "woff2": true,
	"ttf": true, "otf": true, "lock": true, "toml": true, "xml": true, "csv": true,
}

// tokens finds emails, bearer tokens and JWTs, records them as candidates
// when wanted, and returns a per-byte mask of everything it found (nil when
// nothing), which the number scanner must see through.
func (f *finder) tokens() []bool {
	spans := f.tokenSpans(false)
	if len(spans) == 0 {
		return nil
	}
	opaque := make([]bool, len(f.text))
	for _, s := range spans {
		f.add(s.start, s.end, s.kind)
		for i := s.start; i < s.end; i++ {
			opaque[i] = true
		}
	}
	return opaque
}

// tokenSpans returns the emails, bearer tokens and JWTs in the text, read
// the page's way or, in query mode (see FindForRedaction), with the looser
// forms people type into a search box.
func (f *finder) tokenSpans(query bool) []candidate {
	var spans []candidate
	spans = f.emails(spans, query)
	spans = f.bearers(spans, query)
	spans = f.jwts(spans, query)
	return spans
}

// emails finds local@domain where the domain has at least one dot and ends
// in a label of two or more letters, so user@localhost and handles such as
// @scope/pkg are not addresses. Asset names such as icon@2x.png are skipped.
//
// Query mode also finds addresses the ASCII scan misses or cuts short:
// internationalised ones (josé@ejemplo.es, müller@bücher.de, 用户@例子.广告),
// apostrophes inside a local part (o'brien@example.ie), quoted local parts,
// address literals and percent-encoded at signs from URLs
// (bob%40example.com). The shape is the same: a local part, then labels
// joined by dots whose last (at least the second) starts with two or more
// letters, the TLD, that are not a file extension.
func (f *finder) emails(spans []candidate, query bool) []candidate {
	for _, m := range emailSpans(f.text, query, notExtension) {
		start, end := m[0], m[1]
		// A dot cannot start a local part; it is punctuation before the address.
		for f.text[start] == '.' {
			start++
		}
		if f.text[start] == '@' {
			continue
		}
		spans = append(spans, candidate{start, end, KindEmail})
	}
	return spans
}

// emailSpans returns the addresses in t. In page mode they are the matches
// of the leftmost-first expression
//
//	[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}
//
// where the letters matched by [A-Za-z]{2,} must also satisfy tld; query
// mode widens the local part and the domain (see emails) and drops the dots
// that start a local part before deciding whether one is left. It walks
// outwards from each at sign, at a fraction of the cost of the expression:
// every byte is visited at most twice, since a local part never reaches
// back past the previous at sign, and a domain never runs past the next
// one. Filtering inside the walk, rather than afterwards, lets
// "a@b.co-4111111111111111.png" still yield a@b.co, as it will once the card
// number is redacted.
func emailSpans(t string, query bool, tld func(string) bool) [][2]int {
	var out [][2]int
	nextAt, nextPct := -2, -2 // cached next '@' and "%40" at or after from; -1 none
	if !query {
		nextPct = -1 // only a query decodes a percent-encoded at sign
	}
	lo := 0 // a local part starts at or after lo
	for from := 0; from < len(t); {
		if nextAt != -1 && nextAt < from {
			nextAt = indexFrom(t, from, "@")
		}
		if nextPct != -1 && nextPct < from {
			nextPct = indexFrom(t, from, "%40")
		}
		at, width := nextAt, 1
		if at < 0 || (nextPct >= 0 && nextPct < at) {
			at, width = nextPct, 3
		}
		if at < 0 {
			return out
		}
		start := localStart(t, at, lo, query, width == 3)
		if width == 3 && start >= 1 && start+2 <= at && t[start-1] == '%' && isHex(t[start]) && isHex(t[start+1]) {
			start += 2 // the local part starts after the escape "%3C"
		}
		if query && start == at {
			start = quotedLocalStart(t, at, lo)
		}
		end := domainEnd(t, at+width, query, tld)
		from, lo = at+width, at+width
		if query {
			for start < at && t[start] == '.' {
				start++
			}
		}
		if start == at || end < 0 {
			continue
		}
		out = append(out, [2]int{start, end})
		from, lo = end, end
	}
	return out
}

func indexFrom(s string, from int, sub string) int {
	if k := strings.Index(s[from:], sub); k >= 0 {
		return from + k
	}
	return -1
}

// Script classes of the letters of one local part. Walking back from the at
// sign, a change between Latin and another script ends the local part, so
// "メールはyamada@example.jp" yields yamada@example.jp.
const (
	scriptNone = iota
	scriptLatin
	scriptOther
)

func scriptOf(r rune) int {
	if r < utf8.RuneSelf || unicode.Is(unicode.Latin, r) {
		return scriptLatin
	}
	return scriptOther
}

// localStart walks back from the at sign at p over local-part characters,
// not before lo, and returns where the local part starts (p if none). In
// page mode those are [A-Za-z0-9._%+-]; query mode adds letters of any
// script (one script per local part), marks, symbols and apostrophes
// inside a name.
//
// Behind a percent-encoded at sign the local part stops at the previous '%':
// in "%22Diner%22%3Ctasty%40example.com" the address is tasty%40example.com.
func localStart(t string, p, lo int, query, encoded bool) int {
	if !query {
		for p > lo && isLocalChar(t[p-1]) {
			p--
		}
		return p
	}
	at, script := p, scriptNone
	for p > lo {
		r, size := utf8.DecodeLastRuneInString(t[lo:p])
		switch {
		case r < utf8.RuneSelf:
			c := byte(r)
			if c == '\'' {
				// Only inside a name: o'brien, never a quote around one.
				if p == at || !localLetterAfter(t, p) || !localLetterBefore(t, p-1, lo) {
					return p
				}
				break
			}
			if !isLocalChar(c) || (encoded && c == '%') {
				return p
			}
			if isAlpha(c) {
				if script == scriptOther {
					return p
				}
				script = scriptLatin
			}
		case r == utf8.RuneError:
			return p
		case unicode.IsLetter(r):
			s := scriptOf(r)
			if script != scriptNone && script != s {
				return p
			}
			script = s
		case unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.So, r):
			// Marks (accents, vowel signs, variation selectors) and symbols
			// such as emoji (I❤️CHOCOLATE@example.com) belong to no script.
		default:
			return p
		}
		p -= size
	}
	return p
}

// quotedLocalStart returns the start of a quoted local part ending right
// before the at sign ("john..doe"@example.org), or at if there is none.
func quotedLocalStart(t string, at, lo int) int {
	if at == lo || t[at-1] != '"' || (at-2 >= lo && t[at-2] == '\\') {
		return at // no quote, or an escaped one inside a string
	}
	from := max(lo, at-66)
	k := strings.LastIndexByte(t[from:at-1], '"')
	if k < 0 {
		return at
	}
	open := from + k
	// The opening quote starts a word, and what it quotes is not the gap
	// between two strings (`"a", "@example.com"`).
	if open > lo && strings.IndexByte(" \t<([:;=,", t[open-1]) < 0 {
		return at
	}
	if q := t[open+1 : at-1]; strings.ContainsAny(q, "\r\n") || strings.Contains(q, ", ") {
		return at
	}
	return open
}

func localLetterAfter(t string, p int) bool {
	r, _ := utf8.DecodeRuneInString(t[p:])
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func localLetterBefore(t string, p, lo int) bool {
	if p <= lo {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(t[lo:p])
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// addressLiteralEnd returns the end of a bracketed IP address standing in
// for a domain, postmaster@[192.0.2.1] or [IPv6:2001:db8::1], or -1.
func addressLiteralEnd(t string, p int) int {
	k := strings.IndexByte(t[p:min(len(t), p+48)], ']')
	if k < 0 {
		return -1
	}
	lit := t[p+1 : p+k]
	if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
		lit = v6
	} else if strings.Count(lit, ".") != 3 {
		return -1
	}
	if lit == "" || strings.Trim(lit, "0123456789abcdefABCDEF:.") != "" {
		return -1
	}
	return p + k + 1
}

// unicodeTLDEnd returns the end of two or more letters of a script other
// than ASCII at t[p:], or -1.
func unicodeTLDEnd(t string, p int) int {
	l, n := p, 0
	for l < len(t) {
		r, size := utf8.DecodeRuneInString(t[l:])
		if r < utf8.RuneSelf || r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsMark(r)) {
			break
		}
		l += size
		n++
	}
	if n >= 2 {
		return l
	}
	return -1
}

func notExtension(tld string) bool { return !fileExtensions[asciiLower(tld)] }

func isLocalChar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("._%+-", c) >= 0
}

func isLabelChar(c byte) bool { return isAlnum(c) || c == '-' }

// labelWidth returns the width of the domain-label character at t[p], or 0:
// ASCII letters, digits and '-', and in query mode letters, digits and marks
// of any script.
func labelWidth(t string, p int, query bool) int {
	if c := t[p]; c < utf8.RuneSelf {
		if isLabelChar(c) {
			return 1
		}
		return 0
	}
	if !query {
		return 0
	}
	r, size := utf8.DecodeRuneInString(t[p:])
	if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) {
		return 0
	}
	return size
}

// domainEnd returns the end of the longest domain starting at p: labels
// joined by dots whose last label (at least the second) starts with two or
// more letters accepted by tld, the letters being the top-level domain. It
// returns -1 when there is none. In query mode labels and top-level domains
// may be letters of any script (bücher.de, 例子.广告), and an address literal
// (postmaster@[192.0.2.1]) stands for a domain.
func domainEnd(t string, p int, query bool, tld func(string) bool) int {
	if query && p < len(t) && t[p] == '[' {
		return addressLiteralEnd(t, p)
	}
	end := -1
	for label := 0; ; label++ {
		q := p
		for q < len(t) {
			w := labelWidth(t, q, query)
			if w == 0 {
				break
			}
			q += w
		}
		if q == p {
			return end
		}
		if label > 0 {
			if e := tldEnd(t[:q], p, query, tld); e >= 0 {
				end = e
			}
		}
		if q >= len(t) || t[q] != '.' {
			return end
		}
		p = q + 1
	}
}

// tldEnd returns the end of the top-level domain at the start of t[p:]: two
// or more ASCII letters accepted by tld or, in query mode, two or more
// letters of another script (.рф, .中国). Scripts do not mix, so
// "example.jpです" ends at "jp".
func tldEnd(t string, p int, query bool, tld func(string) bool) int {
	if isAlpha(t[p]) {
		l := p
		for l < len(t) && isAlpha(t[l]) {
			l++
		}
		if l-p >= 2 && tld(t[p:l]) {
			return l
		}
		return -1
	}
	if !query {
		return -1
	}
	return unicodeTLDEnd(t, p)
}

// bearers finds the token after "bearer" (RFC 6750). In page mode it must
// be 16 or more token characters that look generated (secretLooking).
//
// Query mode also finds the token the page scan leaves because it is short
// ("bearer mF_9.B5f-4.1JqM", RFC 6750's own example) or follows a label
// ("Bearer: x", "bearer_token=x", "bearer token x"). Context decides how
// much evidence the token needs:
//
//   - after an Authorization header, or written as an assignment
//     (":" or "="), anything of three or more token characters is the token;
//   - in prose, it needs eight or more characters that include a digit, one
//     of _~+/= or a capital inside a mixed-case word, so "bearer bonds",
//     "bearer of bad news" and "bearer token authentication" stay.
func (f *finder) bearers(spans []candidate, query bool) []candidate {
	t, lower := f.text, f.lower
	for from := 0; ; {
		k := strings.Index(lower[from:], "bearer")
		if k < 0 {
			return spans
		}
		kw := from + k
		from = kw + len("bearer")
		var start, end int
		if query {
			start, end = queryBearerAt(t, lower, kw)
		} else {
			start, end = pageBearerAt(t, kw)
		}
		if start < end {
			spans = append(spans, candidate{start, end, KindBearer})
			from = max(from, end)
		}
		// Otherwise resume inside the would-be token, which may itself hold
		// "bearer".
	}
}

// pageBearerAt returns the bounds of the token after "bearer" at kw, in
// page mode, or an empty span.
func pageBearerAt(t string, kw int) (start, end int) {
	p := kw + len("bearer")
	ws := p
	for p < len(t) && strings.IndexByte(" \t\n\f\r", t[p]) >= 0 {
		p++
	}
	if p == ws || p >= len(t) || !isTokenChar(t[p]) {
		return 0, 0
	}
	start = p
	end = tokenEnd(t, start)
	if end-start >= 16 && secretLooking(t[start:end]) {
		return start, end
	}
	return 0, 0
}

// queryBearerAt returns the bounds of the token after "bearer" at kw, in
// query mode, or an empty span.
func queryBearerAt(t, lower string, kw int) (start, end int) {
	p := kw + len("bearer")
	if kw > 0 && isAlnum(lower[kw-1]) {
		return 0, 0
	}
	strong := authorizationBefore(lower, kw)
	assign := false
	// bearer_token=..., bearer-token: ...
	if q := p + 1; q < len(lower) && (lower[p] == '_' || lower[p] == '-') && strings.HasPrefix(lower[q:], "token") {
		p, assign = skipAssign(lower, q+len("token"))
		if !assign {
			return 0, 0
		}
	} else {
		q := skipSpace(lower, p)
		q, assign = skipAssign(lower, q)
		if q == p {
			return 0, 0 // "bearers", "bearer's"
		}
		p = q
		// "bearer token <value>", "bearer token: <value>"
		if strings.HasPrefix(lower[p:], "token") {
			q := skipSpace(lower, p+len("token"))
			if strings.HasPrefix(lower[q:], "is ") {
				q = skipSpace(lower, q+len("is "))
			}
			q, a := skipAssign(lower, q)
			if q > p+len("token") && q < len(t) && isTokenChar(t[q]) {
				p, assign = q, assign || a
			}
		}
	}
	start = p
	end = tokenEnd(t, start)
	// Shouted words (all capitals) are not tokens, unlike for the page
	// scan's longer tokens.
	special, lowerCase, innerUpper := tokenTraits(t[start:end])
	generated := special || (lowerCase && innerUpper)
	if (strong || assign) && end-start >= 3 || end-start >= 8 && generated {
		return start, end
	}
	return 0, 0
}

// skipSpace skips white space and URL-encoded spaces.
func skipSpace(lower string, p int) int {
	for p < len(lower) {
		switch {
		case strings.IndexByte(" \t\n\f\r", lower[p]) >= 0:
			p++
		case strings.HasPrefix(lower[p:], "%20"):
			p += 3
		default:
			return p
		}
	}
	return p
}

// skipAssign skips an optional ':' or '=' and the space around it.
func skipAssign(lower string, p int) (int, bool) {
	q := skipSpace(lower, p)
	if q < len(lower) && (lower[q] == ':' || lower[q] == '=') {
		return skipSpace(lower, q+1), true
	}
	return p, false
}

// authorizationBefore reports an Authorization header name right before
// "bearer" at kw: `Authorization: Bearer`, `"Authorization": "Bearer`,
// `authorization=Bearer`.
func authorizationBefore(lower string, kw int) bool {
	p := kw
	for p > 0 && kw-p < 6 && strings.IndexByte(" \t\"':=", lower[p-1]) >= 0 {
		p--
	}
	return strings.HasSuffix(lower[:p], "authorization")
}

// isTokenChar is RFC 6750's b64token alphabet, without the trailing '='.
func isTokenChar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-._~+/", c) >= 0
}

// tokenEnd returns the end of the b64token starting at p, with its '='
// padding but without trailing full stops, which end the sentence, not the
// token.
func tokenEnd(t string, p int) int {
	start := p
	for p < len(t) && isTokenChar(t[p]) {
		p++
	}
	for p < len(t) && t[p] == '=' {
		p++
	}
	for p > start && t[p-1] == '.' {
		p--
	}
	return p
}

// secretLooking tells a generated token from an English word: words have no
// digits, no capitals after the first letter and none of _~+/=.
func secretLooking(tok string) bool {
	special, _, innerUpper := tokenTraits(tok)
	return special || innerUpper
}

// tokenTraits reports what sets a generated token apart from a word: a digit
// or one of _~+/= (special), a lower-case letter, a capital after the first
// byte.
func tokenTraits(tok string) (special, lower, innerUpper bool) {
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case isDigit(c) || strings.IndexByte("_~+/=", c) >= 0:
			special = true
		case isLowerByte(c):
			lower = true
		case i > 0 && isUpper(c):
			innerUpper = true
		}
	}
	return special, lower, innerUpper
}

func isB64URL(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

// jwts finds compact JWS (three segments) and JWE (five) tokens whose
// header decodes to JSON with an "alg" member.
//
// Query mode also finds tokens shaped like JWTs whose header does not
// decode, because it was truncated or made up for an example
// ("eyJhbGci.eyJzdWIi.c2ln"): a run of base64url starting "eyJ" (`{"`) whose
// decodable prefix names an algorithm, then a non-empty payload and
// signature. A header that decodes to JSON without "alg" is a JSON object,
// not a token, in both modes.
func (f *finder) jwts(spans []candidate, query bool) []candidate {
	t := f.text
	prefix, from := "ey", jwtFrom
	if query {
		prefix, from = "eyJ", queryJWTFrom
	}
	eachJWT(t, prefix, func(hs, he int) (int, bool) {
		end, ok := from(t, hs, he)
		if ok {
			spans = append(spans, candidate{hs, end, KindJWT})
		}
		return end, ok
	})
	return spans
}

// queryJWTFrom accepts, in query mode, a token whose header is t[hs:he]
// (t[he] is '.') and returns its end.
func queryJWTFrom(t string, hs, he int) (int, bool) {
	if !joseHeader(t[hs:he]) {
		return 0, false
	}
	p := he + 1
	for p < len(t) && isB64URL(t[p]) {
		p++
	}
	q := p
	if p < len(t) && t[p] == '.' {
		for q = p + 1; q < len(t) && isB64URL(t[q]); q++ {
		}
		if q == p+1 {
			q = p // "header.payload." ends a sentence
		}
	}
	if q == p {
		// No signature: a token cut short still carries its claims when
		// the payload is JSON too.
		if p-(he+1) < 4 || !strings.HasPrefix(t[he+1:p], "eyJ") {
			return 0, false
		}
	}
	return q, true
}

// eachJWT calls token with the bounds of every maximal run of base64url
// characters in t that starts with prefix and is followed by a dot: a
// possible header. When token accepts, the walk resumes at the end it
// returns. Runs are found from occurrences of prefix, so text without it
// costs one search.
func eachJWT(t, prefix string, token func(hs, he int) (end int, ok bool)) {
	for from := 0; ; {
		k := strings.Index(t[from:], prefix)
		if k < 0 {
			return
		}
		hs, he := from+k, from+k+len(prefix)
		for he < len(t) && isB64URL(t[he]) {
			he++
		}
		from = he
		// The header is a whole run: nothing that is redacted can end right
		// before "ey" inside a run (emails and tokens would absorb the
		// letters, numbers are blocked by them), so a second pass never sees
		// a header the first did not.
		if (hs > 0 && isB64URL(t[hs-1])) || he >= len(t) || t[he] != '.' {
			continue
		}
		if end, ok := token(hs, he); ok {
			from = end
		}
	}
}

// jwtFrom validates a token whose header is t[hs:he] (t[he] is '.') and
// returns its end.
func jwtFrom(t string, hs, he int) (int, bool) {
	alg, enc, ok := jwtHeader(t[hs:he])
	if !ok {
		return 0, false
	}
	// ends[i] is where the i-th dot-separated segment after the header ends;
	// a segment may be empty.
	var ends [4]int
	n, p := 0, he
	for n < len(ends) && p < len(t) && t[p] == '.' {
		p++
		for p < len(t) && isB64URL(t[p]) {
			p++
		}
		ends[n] = p
		n++
	}
	seg := func(i int) string {
		from := he + 1
		if i > 0 {
			from = ends[i-1] + 1
		}
		return t[from:ends[i]]
	}
	if enc && n == 4 && seg(1) != "" && seg(2) != "" {
		// JWE: encrypted key (empty for direct encryption), IV, ciphertext, tag.
		return ends[3], true
	}
	if n < 2 || seg(0) == "" || !b64Decodable(seg(0)) {
		return 0, false
	}
	if seg(1) == "" && alg != "none" {
		// Only an unsecured token has an empty signature; otherwise the
		// trailing dot is punctuation.
		return 0, false
	}
	return ends[1], true
}

// jwtHeader decodes a JOSE header and reports its "alg" and whether it is an
// encryption header.
func jwtHeader(seg string) (alg string, enc bool, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return "", false, false
	}
	var h map[string]json.RawMessage
	if json.Unmarshal(raw, &h) != nil {
		return "", false, false
	}
	if a := h["alg"]; len(a) == 0 || a[0] != '"' || json.Unmarshal(a, &alg) != nil {
		return "", false, false
	}
	_, enc = h["enc"]
	return alg, enc, true
}

func b64Decodable(seg string) bool {
	return len(seg)%4 != 1
}

// joseHeader reports whether the decodable start of a base64url header names
// an algorithm, as every JWS and JWE header must.
func joseHeader(h string) bool {
	n := min(len(h), 512) / 4 * 4
	raw, err := base64.RawURLEncoding.DecodeString(h[:n])
	if err != nil {
		return false
	}
	return bytes.Contains(raw, []byte(`"alg"`)) || bytes.Contains(raw, []byte(`"typ":"JWT"`))
}
