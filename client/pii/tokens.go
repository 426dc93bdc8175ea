package pii

import (
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
	var spans []candidate
	spans = f.emails(spans)
	spans = f.bearers(spans)
	spans = f.jwts(spans)
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

// emails finds local@domain where the domain has at least one dot and ends
// in a label of two or more letters, so user@localhost and handles such as
// @scope/pkg are not addresses. Asset names such as icon@2x.png are skipped.
func (f *finder) emails(spans []candidate) []candidate {
	for _, m := range emailSpans(f.text, notExtension) {
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

// emailSpans returns the matches of the leftmost-first expression
//
//	[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}
//
// where the letters matched by [A-Za-z]{2,} must also satisfy tld. It walks
// outwards from each '@', at a fraction of the cost of the expression: every
// byte is visited at most twice, since neither part of an address can extend
// past another '@'. Filtering inside the walk, rather than afterwards, lets
// "a@b.co-4111111111111111.png" still yield a@b.co, as it will once the card
// number is redacted.
func emailSpans(t string, tld func(string) bool) [][2]int {
	var out [][2]int
	prevEnd := 0
	for from := 0; ; {
		k := strings.IndexByte(t[from:], '@')
		if k < 0 {
			return out
		}
		at := from + k
		from = at + 1
		start := at
		for start > prevEnd && isLocalChar(t[start-1]) {
			start--
		}
		end := domainEnd(t, at+1, false, tld)
		if start == at || end < 0 {
			continue
		}
		out = append(out, [2]int{start, end})
		prevEnd, from = end, end
	}
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

func (f *finder) bearers(spans []candidate) []candidate {
	t, lower := f.text, f.lower
	for from := 0; ; {
		k := strings.Index(lower[from:], "bearer")
		if k < 0 {
			return spans
		}
		p := from + k + len("bearer")
		from = p
		ws := p
		for p < len(t) && strings.IndexByte(" \t\n\f\r", t[p]) >= 0 {
			p++
		}
		if p == ws {
			continue
		}
		start := p
		if p >= len(t) || !isTokenChar(t[p]) {
			continue
		}
		end := tokenEnd(t, start)
		if end-start >= 16 && secretLooking(t[start:end]) {
			spans = append(spans, candidate{start, end, KindBearer})
			from = end
		}
		// Otherwise resume inside the would-be token, which may itself hold
		// "bearer".
	}
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

// jwts finds compact JWS (three segments) and JWE (five) tokens.
func (f *finder) jwts(spans []candidate) []candidate {
	eachJWT(f.text, "ey", func(hs, he int) (int, bool) {
		end, ok := jwtFrom(f.text, hs, he)
		if ok {
			spans = append(spans, candidate{hs, end, KindJWT})
		}
		return end, ok
	})
	return spans
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
