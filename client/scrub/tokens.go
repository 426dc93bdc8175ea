package scrub

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode"
	"unicode/utf8"
)

// extra holds one run of the scrubber's own detectors. lower is an ASCII-only
// lower-cased copy of text, with the same offsets.
type extra struct {
	text, lower string
	found       []span
}

func (x *extra) add(start, end int) {
	if start < end {
		x.found = append(x.found, span{start, end})
	}
}

// fileExtensions end asset names such as icon@2x.png; none is a real TLD.
// The list is pii's, so both detectors agree on what is not an address.
var fileExtensions = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true, "webp": true,
	"bmp": true, "ico": true, "tif": true, "tiff": true, "avif": true, "heic": true,
	"css": true, "scss": true, "js": true, "jsx": true, "tsx": true, "json": true,
	"yaml": true, "yml": true, "html": true, "htm": true, "txt": true, "pdf": true,
	"mp3": true, "mp4": true, "mov": true, "wav": true, "woff": true, "woff2": true,
	"ttf": true, "otf": true, "lock": true, "toml": true, "xml": true, "csv": true,
}

// emails finds addresses pii's ASCII scanner misses or cuts short:
// internationalised ones (josé@ejemplo.es, müller@bücher.de, 用户@例子.广告),
// apostrophes inside a local part (o'brien@example.ie) and percent-encoded
// at signs from URLs (bob%40example.com). The shape is pii's: a local part,
// then labels joined by dots whose last (at least the second) starts with
// two or more letters, the TLD, that are not a file extension.
//
// Every byte is walked at most twice: a local part never reaches back past
// the previous at sign, and a domain never runs past the next one.
func (x *extra) emails() {
	t := x.text
	nextAt, nextPct := -2, -2 // cached next '@' and "%40" at or after from; -1 none
	lo := 0                   // a local part starts at or after lo
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
			return
		}
		start := localStart(t, at, lo, width == 3)
		if width == 3 && start >= 1 && start+2 <= at && t[start-1] == '%' && isHex(t[start]) && isHex(t[start+1]) {
			start += 2 // the local part starts after the escape "%3C"
		}
		if start == at {
			start = quotedLocalStart(t, at, lo)
		}
		end := domainEnd(t, at+width)
		from, lo = at+width, at+width
		for start < at && t[start] == '.' {
			start++
		}
		if start == at || end < 0 {
			continue
		}
		x.add(start, end)
		from, lo = end, end
	}
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
// not before lo, and returns where the local part starts (p if none).
//
// Behind a percent-encoded at sign the local part stops at the previous '%':
// in "%22Diner%22%3Ctasty%40example.com" the address is tasty%40example.com.
func localStart(t string, p, lo int, encoded bool) int {
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
			if (!isAlnum(c) && strings.IndexByte("._%+-", c) < 0) || (encoded && c == '%') {
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

// labelRune reports whether the rune at p may be part of a domain label and
// returns its width (0 if not).
func labelRune(t string, p int) int {
	if c := t[p]; c < utf8.RuneSelf {
		if isAlnum(c) || c == '-' {
			return 1
		}
		return 0
	}
	r, size := utf8.DecodeRuneInString(t[p:])
	if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) {
		return 0
	}
	return size
}

// domainEnd returns the end of the longest domain starting at p, ending at
// the letters that start its last label (the TLD), or -1 if there is none.
func domainEnd(t string, p int) int {
	if p < len(t) && t[p] == '[' {
		return addressLiteralEnd(t, p)
	}
	end := -1
	for label := 0; ; label++ {
		q := p
		for q < len(t) {
			w := labelRune(t, q)
			if w == 0 {
				break
			}
			q += w
		}
		if q == p {
			return end
		}
		if label > 0 {
			if e := tldEnd(t[:q], p); e >= 0 {
				end = e
			}
		}
		if q >= len(t) || t[q] != '.' {
			return end
		}
		p = q + 1
	}
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

// tldEnd returns the end of the TLD at the start of t[p:]: two or more ASCII
// letters that are not a file extension, or two or more letters of another
// script (.рф, .中国). Scripts do not mix, so "example.jpです" ends at "jp".
func tldEnd(t string, p int) int {
	if isAlpha(t[p]) {
		l := p
		for l < len(t) && isAlpha(t[l]) {
			l++
		}
		if l-p >= 2 && !fileExtensions[asciiLower(t[p:l])] {
			return l
		}
		return -1
	}
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

func isHex(c byte) bool { return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F') }

func isB64URL(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

// jwts finds tokens shaped like JWTs whose header pii cannot decode, because
// it was truncated or made up for an example ("eyJhbGci.eyJzdWIi.c2ln"): a
// run of base64url starting "eyJ" (`{"`) whose decodable prefix names an
// algorithm, then a non-empty payload and signature. A header that decodes to
// JSON without "alg" is a JSON object, not a token, as in pii.
func (x *extra) jwts() {
	t := x.text
	if !strings.Contains(t, "eyJ") {
		return
	}
	for i := 0; i < len(t); {
		if !isB64URL(t[i]) {
			i++
			continue
		}
		runStart := i
		for i < len(t) && isB64URL(t[i]) {
			i++
		}
		if i >= len(t) || t[i] != '.' || !strings.HasPrefix(t[runStart:i], "eyJ") || !joseHeader(t[runStart:i]) {
			continue
		}
		p := i + 1
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
			if p-(i+1) < 4 || !strings.HasPrefix(t[i+1:p], "eyJ") {
				continue
			}
		}
		x.add(runStart, q)
		i = q
	}
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

// bearers finds the token after "bearer" that pii leaves because it is short
// ("bearer mF_9.B5f-4.1JqM", RFC 6750's own example) or follows a label
// ("Bearer: x", "bearer_token=x", "bearer token x"). Context decides how much
// evidence the token needs:
//
//   - after an Authorization header, or written as an assignment
//     (":" or "="), anything of three or more token characters is the token;
//   - in prose, it needs eight or more characters that include a digit, one
//     of _~+/= or a capital inside a mixed-case word, so "bearer bonds",
//     "bearer of bad news" and "bearer token authentication" stay.
func (x *extra) bearers() {
	t, lower := x.text, x.lower
	for from := 0; ; {
		k := strings.Index(lower[from:], "bearer")
		if k < 0 {
			return
		}
		kw := from + k
		p := kw + len("bearer")
		from = p
		if kw > 0 && isAlnum(lower[kw-1]) {
			continue
		}
		strong := authorizationBefore(lower, kw)
		assign := false
		// bearer_token=..., bearer-token: ...
		if q := p + 1; q < len(lower) && (lower[p] == '_' || lower[p] == '-') && strings.HasPrefix(lower[q:], "token") {
			p, assign = skipAssign(lower, q+len("token"))
			if !assign {
				continue
			}
		} else {
			q := skipSpace(lower, p)
			q, assign = skipAssign(lower, q)
			if q == p {
				continue // "bearers", "bearer's"
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
		start := p
		for p < len(t) && isTokenChar(t[p]) {
			p++
		}
		for p < len(t) && t[p] == '=' {
			p++
		}
		end := p
		for end > start && t[end-1] == '.' {
			end--
		}
		tok := t[start:end]
		if (strong || assign) && len(tok) >= 3 || len(tok) >= 8 && secretLooking(tok) {
			x.add(start, end)
			from = max(from, end)
		}
	}
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

// secretLooking tells a generated token from a word: words have no digits,
// none of _~+/=, and capitals inside them only when shouted (all capitals).
func secretLooking(tok string) bool {
	hasLower, innerUpper := false, false
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case isDigit(c) || strings.IndexByte("_~+/=", c) >= 0:
			return true
		case isLower(c):
			hasLower = true
		case i > 0 && isUpper(c):
			innerUpper = true
		}
	}
	return hasLower && innerUpper
}
