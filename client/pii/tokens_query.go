package pii

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query-mode token rules, used by FindForRedaction on top of the plain scan.

// queryEmails finds addresses the ASCII scan misses or cuts short:
// internationalised ones (josé@ejemplo.es, müller@bücher.de, 用户@例子.广告),
// apostrophes inside a local part (o'brien@example.ie), quoted local parts,
// address literals and percent-encoded at signs from URLs
// (bob%40example.com). The shape is the plain one: a local part, then labels
// joined by dots whose last (at least the second) starts with two or more
// letters, the TLD, that are not a file extension.
//
// Every byte is walked at most twice: a local part never reaches back past
// the previous at sign, and a domain never runs past the next one.
func (f *finder) queryEmails() {
	t := f.text
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
		end := domainEnd(t, at+width, true, notExtension)
		from, lo = at+width, at+width
		for start < at && t[start] == '.' {
			start++
		}
		if start == at || end < 0 {
			continue
		}
		f.add(start, end, KindEmail)
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

// queryJWTs finds tokens shaped like JWTs whose header the plain scan
// cannot decode, because it was truncated or made up for an example
// ("eyJhbGci.eyJzdWIi.c2ln"): a run of base64url starting "eyJ" (`{"`) whose
// decodable prefix names an algorithm, then a non-empty payload and
// signature. A header that decodes to JSON without "alg" is a JSON object,
// not a token, as in the plain scan.
func (f *finder) queryJWTs() {
	t := f.text
	eachJWT(t, "eyJ", func(hs, he int) (int, bool) {
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
		f.add(hs, q, KindJWT)
		return q, true
	})
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

// queryBearers finds the token after "bearer" that the plain scan leaves
// because it is short ("bearer mF_9.B5f-4.1JqM", RFC 6750's own example) or
// follows a label ("Bearer: x", "bearer_token=x", "bearer token x"). Context
// decides how much evidence the token needs:
//
//   - after an Authorization header, or written as an assignment
//     (":" or "="), anything of three or more token characters is the token;
//   - in prose, it needs eight or more characters that include a digit, one
//     of _~+/= or a capital inside a mixed-case word, so "bearer bonds",
//     "bearer of bad news" and "bearer token authentication" stay.
func (f *finder) queryBearers() {
	t, lower := f.text, f.lower
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
		end := tokenEnd(t, start)
		// Shouted words (all capitals) are not tokens, unlike for the plain
		// scan's longer tokens.
		special, lowerCase, innerUpper := tokenTraits(t[start:end])
		generated := special || (lowerCase && innerUpper)
		if (strong || assign) && end-start >= 3 || end-start >= 8 && generated {
			f.add(start, end, KindBearer)
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
