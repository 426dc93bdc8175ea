package scrub

import (
	"testing"
	"unicode/utf8"

	"github.com/pgbrain/pgbrain/client/pii"
)

func FuzzScrub(f *testing.F) {
	f.Fuzz(func(t *testing.T, in string) {
		out := Scrub(in)
		if again := Scrub(out); again != out {
			t.Fatalf("not idempotent:\n in    %q\n once  %q\n twice %q", in, out, again)
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("Scrub(%q) = %q is not valid UTF-8", in, out)
		}
		if left := pii.FindKinds(out, pii.KindEmail, pii.KindSSN, pii.KindCard); left != nil {
			t.Fatalf("Scrub(%q) = %q still holds %+v", in, out, left)
		}
		if len(pii.FindKinds(in, Kinds()...)) == 0 && out != in {
			t.Fatalf("Scrub(%q) = %q changed text with nothing to redact", in, out)
		}
	})
}
