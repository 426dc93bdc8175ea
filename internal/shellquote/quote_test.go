package shellquote

import (
	"os/exec"
	"testing"
)

// Every word comes back from a real shell as it went in.
func TestQuoteRoundTripsThroughSh(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/home/me/notes", "/home/me/notes"},
		{"Debian Docs", "'Debian Docs'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
		{"$HOME;rm -rf *", "'$HOME;rm -rf *'"},
		{"東京/Café", "'東京/Café'"},
	} {
		got := Quote(tc.in)
		if got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
		out, err := exec.Command("sh", "-c", "printf %s "+got).Output()
		if err != nil || string(out) != tc.in {
			t.Errorf("sh read %s back as %q (%v), want %q", got, out, err, tc.in)
		}
	}
}
