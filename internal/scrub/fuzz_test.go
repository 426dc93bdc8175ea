package scrub

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pgbrain/pgbrain/internal/pii"
)

func FuzzScrub(f *testing.F) {
	for _, c := range realisticCases {
		f.Add(c.in)
	}
	for _, c := range credentialCases {
		f.Add(c.in)
	}
	for _, in := range keptCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Scrub(in)
		if again := Scrub(out); again != out {
			t.Fatalf("not idempotent:\n in    %q\n once  %q\n twice %q", in, out, again)
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("Scrub(%q) = %q is not valid UTF-8", in, out)
		}
		if left := pii.FindKinds(out, pii.KindEmail, pii.KindSSN, pii.KindCard, pii.KindAPIKey, pii.KindPrivateKey, pii.KindIBAN); left != nil {
			t.Fatalf("Scrub(%q) = %q still holds %+v", in, out, left)
		}
		if left := leftover(out); left != nil {
			t.Fatalf("Scrub(%q) = %q still holds %+v", in, out, left)
		}
		if len(find(in)) == 0 && out != in {
			t.Fatalf("Scrub(%q) = %q changed text with nothing to redact", in, out)
		}
		if !keptInOrder(in, out) {
			t.Fatalf("Scrub(%q) = %q does not keep the unredacted text byte for byte", in, out)
		}
	})
}

// leftover returns what Scrub would still redact in s.
func leftover(s string) []pii.Match {
	return find(s)
}

// keptInOrder reports whether the text of out between markers appears in in,
// in order and without overlaps: Scrub only ever replaces, never rewrites.
func keptInOrder(in, out string) bool {
	rest := in
	for i, piece := range strings.Split(out, Redacted) {
		k := strings.Index(rest, piece)
		if k < 0 || (i == 0 && k != 0) {
			return false
		}
		rest = rest[k+len(piece):]
	}
	return true
}

// FuzzMessage: a message quoting its input with %q comes out with every
// quoted value scrubbed as if unquoted, and scrubbing it again (a Writer
// around a Writer's output) changes nothing.
func FuzzMessage(f *testing.F) {
	for _, c := range credentialCases {
		f.Add(c.in)
	}
	f.Add(`{"api_key": "9a8b7c6d5e4f3a2b1c0dzz"}`)
	f.Fuzz(func(t *testing.T, in string) {
		if !utf8.ValidString(in) {
			return
		}
		out := Message(`source ` + strconv.Quote(in) + ` does not exist`)
		if again := Message(out); again != out {
			t.Fatalf("Message(%q) = %q, which Message changes again: %q", in, out, again)
		}
		if pii.FindKinds(in, pii.KindEmail, pii.KindAPIKey, pii.KindPrivateKey) == nil {
			return
		}
		if strings.Contains(out, in) {
			t.Fatalf("Message kept %q, which holds personal data, whole: %q", in, out)
		}
	})
}
