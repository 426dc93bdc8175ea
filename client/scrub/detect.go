package scrub

import (
	"regexp"
	"slices"

	"github.com/pgbrain/pgbrain/client/pii"
)

// span is a stretch of text to redact, [start, end) in bytes.
type span struct{ start, end int }

// detect returns the sorted, non-overlapping spans Scrub replaces in s: what
// pii.FindKinds reports for the six kinds, less the false positives listed
// in vetoed, plus what the scrubber's own detectors add (see extra). The
// additions widen the same six kinds to formats pii does not know; they never
// add a kind.
func detect(s string) []span {
	var out, tokens []span
	for _, m := range pii.FindKinds(s, kinds[:]...) {
		if vetoed(s, m) {
			continue
		}
		out = append(out, span{m.Start, m.End})
		if tokenKind[m.Kind] {
			tokens = append(tokens, span{m.Start, m.End})
		}
	}
	x := &extra{text: s, lower: asciiLower(s)}
	x.emails()
	x.jwts()
	x.bearers()
	// The number scanner sees addresses and tokens as opaque, exactly like
	// the marker that will replace them. It does see pii's numbers, so it can
	// widen one ("(+44) 20 …" where pii starts at the '+').
	tokens = append(tokens, x.found...)
	var opaque []bool
	if len(tokens) > 0 {
		opaque = make([]bool, len(s))
		for _, sp := range tokens {
			for i := sp.start; i < sp.end; i++ {
				opaque[i] = true
			}
		}
	}
	x.numbers(opaque)
	return merge(append(out, x.found...))
}

// tokenKind are the kinds found before numbers, as in pii.
var tokenKind = map[string]bool{pii.KindEmail: true, pii.KindJWT: true, pii.KindBearer: true}

// vetoed drops pii phone matches that are semver build metadata: a '+'
// right after a version such as 1.0.0 or v2.1.0-rc.1 starts the build
// ("1.0.0+20130313144700", the semver specification's own example), never
// an E.164 number.
func vetoed(s string, m pii.Match) bool {
	if m.Kind != pii.KindPhone || s[m.Start] != '+' {
		return false
	}
	p := m.Start
	for p > 0 && m.Start-p < 64 && (isAlnum(s[p-1]) || s[p-1] == '.' || s[p-1] == '-') {
		p--
	}
	return semverCore.MatchString(s[p:m.Start])
}

var semverCore = regexp.MustCompile(`^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$`)

// merge sorts spans and fuses overlapping ones. Touching spans stay apart,
// as they do in pii.
func merge(sp []span) []span {
	if len(sp) == 0 {
		return nil
	}
	slices.SortFunc(sp, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	out := sp[:1]
	for _, c := range sp[1:] {
		if last := &out[len(out)-1]; c.start < last.end {
			last.end = max(last.end, c.end)
			continue
		}
		out = append(out, c)
	}
	return out
}

func asciiLower(s string) string {
	b := []byte(nil)
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			if b == nil {
				b = []byte(s)
			}
			b[i] = c + 'a' - 'A'
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isAlpha(c byte) bool { return isUpper(c) || isLower(c) }
func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }
