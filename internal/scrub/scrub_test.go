package scrub

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pgbrain/pgbrain/internal/linearity"
	"github.com/pgbrain/pgbrain/internal/pii"
)

const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

func TestScrub(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// Redacted.
		{"email", "who emailed alice@example.com?", "who emailed [REDACTED]?"},
		{"email with tag and subdomain", "bob.smith+news@mail.example.co.uk wrote", "[REDACTED] wrote"},
		{"phone parenthesised", "call (415) 555-0132 today", "call [REDACTED] today"},
		{"phone dashes", "call 415-555-0132", "call [REDACTED]"},
		{"phone dots", "call 415.555.0132", "call [REDACTED]"},
		{"phone spaces", "call 415 555 0132", "call [REDACTED]"},
		{"phone international", "ring +44 20 7946 0958 please", "ring [REDACTED] please"},
		{"phone international dashes", "ring +1-415-555-0132", "ring [REDACTED]"},
		{"phone trunk prefix", "ring +44 (0)20 7946 0958", "ring [REDACTED]"},
		{"phone leading 1", "ring 1-415-555-0132", "ring [REDACTED]"},
		{"ssn", "my SSN is 123-45-6789.", "my SSN is [REDACTED]."},
		{"ssn labelled without dashes", "ssn: 123456789", "ssn: [REDACTED]"},
		{"card spaces", "card 4111 1111 1111 1111 exp 12/27", "card [REDACTED] exp 12/27"},
		{"card dashes", "card 5555-5555-5555-4444", "card [REDACTED]"},
		{"card solid", "card 378282246310005", "card [REDACTED]"},
		{"jwt", "token " + jwt + " expired", "token [REDACTED] expired"},
		{"bearer jwt", "Authorization: Bearer " + jwt, "Authorization: Bearer [REDACTED]"},
		{"bearer opaque", "Authorization: Bearer abcDEF1234567890xyz", "Authorization: Bearer [REDACTED]"},
		{"bearer lower case", "bearer 0123456789abcdefXYZ.", "bearer [REDACTED]."},
		{"several", "a@b.co, 415-555-0132 and 123-45-6789", "[REDACTED], [REDACTED] and [REDACTED]"},
		{"adjacent", "x4111111111111111y@example.com", "[REDACTED]"},

		// Kept: not personal data.
		{"card failing luhn", "card 4111 1111 1111 1112", "card 4111 1111 1111 1112"},
		{"order number", "where is order #12345678?", "where is order #12345678?"},
		{"version numbers", "upgrade v1.2.3 to 1.22.0 or version 2.0.1.4", "upgrade v1.2.3 to 1.22.0 or version 2.0.1.4"},
		{"dates", "between 2024-01-15 and 01/15/2024", "between 2024-01-15 and 01/15/2024"},
		{"isbn", "ISBN 978-0-306-40615-7", "ISBN 978-0-306-40615-7"},
		{"time", "at 12:30:45 UTC", "at 12:30:45 UTC"},
		{"localhost address", "mail user@localhost", "mail user@localhost"},
		{"bearer in prose", "the bearer of this letter; bearer bonds", "the bearer of this letter; bearer bonds"},
		{"short bearer", "Bearer abc123", "Bearer abc123"},
		{"invalid ssn", "ids 000-12-3456 and 666-12-3456", "ids 000-12-3456 and 666-12-3456"},
		{"unlabelled nine digits", "ticket 123456789", "ticket 123456789"},
		{"not a phone", "ids 123-456-7890 and 4155550132", "ids 123-456-7890 and 4155550132"},
		{"jwt without alg", "eyJub3QiOiJqd3QifQ.eyJzdWIiOiIxIn0.c2ln", "eyJub3QiOiJqd3QifQ.eyJzdWIiOiIxIn0.c2ln"},

		// Other personal data is out of scope for the scrubber.
		{"ip address", "from 192.168.1.20", "from 192.168.1.20"},
		{"street address", "at 221B Baker Street", "at 221B Baker Street"},
		// Credentials are not.
		{"password", "password=hunter2", "password=[REDACTED]"},

		// Text around redactions survives byte for byte.
		{"unicode around", "café — alice@example.com — naïve", "café — [REDACTED] — naïve"},
		{"invalid utf-8 passes through", "\xff\xfe alice@example.com \xc3", "\xff\xfe [REDACTED] \xc3"},
		{"nul bytes", "\x00415-555-0132\x00", "\x00[REDACTED]\x00"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Scrub(tt.in)
			if got != tt.want {
				t.Errorf("Scrub(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Scrub(got); again != got {
				t.Errorf("Scrub is not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestKinds(t *testing.T) {
	got := Kinds()
	want := []string{pii.KindEmail, pii.KindPhone, pii.KindSSN, pii.KindCard, pii.KindJWT, pii.KindBearer,
		pii.KindAPIKey, pii.KindPrivateKey, pii.KindSecret, pii.KindURLPassword,
		pii.KindIBAN, pii.KindBankAccount, pii.KindPassport, pii.KindDriversLicense, pii.KindNationalID}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Kinds() = %v, want %v", got, want)
	}
	got[0] = "changed"
	if Kinds()[0] != pii.KindEmail {
		t.Error("Kinds returned shared storage")
	}
}

// TestScrubLinearWork compares the CPU time of Scrub on 10 KB and on 100 KB
// of each adversarial input (linearity.ScrubUnits): linear work gives a
// ratio near 10, quadratic near 100, and linearity.Require refuses 35. CPU
// time of the measuring thread does not grow while the machine is busy with
// other work, unlike wall-clock time; the bound on how long 100 KB may take
// is a speed claim, measured by `make bench` (suite hostile), not here.
func TestScrubLinearWork(t *testing.T) {
	linearity.Require(t, func(s string) { Scrub(s) }, linearity.ScrubUnits())
}

func BenchmarkScrub100KB(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 100_000 {
		sb.WriteString("who emailed alice@example.com about order #12345678 on 2024-01-15? ")
		sb.WriteString("call (415) 555-0132, card 4111 1111 1111 1111, Bearer abcDEF1234567890xyz ")
		for _, unit := range linearity.ScrubUnits() {
			sb.WriteString(strings.Repeat(unit, 8))
		}
	}
	s := sb.String()[:100_000]
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Scrub(s)
	}
}

func BenchmarkScrubAdversarial100KB(b *testing.B) {
	for _, unit := range linearity.ScrubUnits() {
		s := linearity.Repeat(unit, 100_000)
		b.Run(strings.TrimSpace(unit), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				Scrub(s)
			}
		})
	}
}

func TestScrubLeavesNothingDetectable(t *testing.T) {
	in := "alice@example.com 415-555-0132 123-45-6789 4111111111111111 Bearer abcDEF1234567890xyz " + jwt
	out := Scrub(in)
	if left := pii.FindKinds(out, Kinds()...); left != nil {
		t.Errorf("Scrub(%q) = %q still holds %+v", in, out, left)
	}
	if !utf8.ValidString(out) {
		t.Errorf("Scrub produced invalid UTF-8: %q", out)
	}
}

// fragments are pieces of personal data, near misses and separators. Glued
// together at random they put detections right next to each other, which is
// where a scrubber can reveal on a second pass what the first one hid.
var fragments = []string{
	"alice@example.com", "a@b.co", "a@", "@b.co", "x@y.png", ".co", "com",
	"415-555-0132", "(415) 555-0132", "+44 20 7946 0958", "+442079460958", "+1", "+1 ", "1-", "1 (", " (0)",
	"123-45-6789", "123456789", "ssn ", "SSN: ", "social security", "number ",
	"4111111111111111", "4111 1111 1111 1111", "5555-5555-5555-4444", "3782 822463 10005", "4111", " 1111", "4111 ", "1111 ",
	"Bearer ", "bearer", "abcDEF1234567890xyz", jwt, "eyJhbGciOiJub25lIn0", "eyJzdWIiOiIxIn0",
	"eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", "ey", "J", "c2ln",
	".", "..", "-", " ", "  ", "\t", "\n", "(", ")", "+", "@", "=", "_", "%",
	"x", "1", "9", "12", "123", "45", "555", "0132", "-0132", "6789", "1234", " 555 ",
	"2024-01-15", "12:30:45", "\xff", "é", Redacted,
	// Formats the scrubber recognises beyond pii.
	"020 7946 0958", "0044", "00", "(02) ", "030/", "01 23 45 67 89", "06.12.34.56.78", "555-123-4567",
	"555-0199", "(+44) ", "138 0013 8000", "98765 43210", "4242.4242.4242.4242", "\u2013", "\u00a0", "0",
	"call ", "phone: ", "my number ", "me at ", "SS#", "ssn is ", "987-65-4321", "1.0.0", "+2013",
	"josé@ejemplo.es", "用户@例子.广告", "@bücher.de", "%40", "bob%40example.com", "o'brien@example.ie", "'",
	"Authorization: ", "bearer token ", "bearer_token=", "mF_9.B5f-4.1JqM", "abc123",
	"eyJhbGci.eyJzdWIi.c2ln", "eyJhbGci", ".eyJzdWIi",
	// Credentials and identifiers.
	"password=", "password: ", "token=", "secret=", "pwd=", "\"", "AKIAIOSFODNN7EXAMPLE", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
	"pk_live_51H8abcdEFGH", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "aws_secret_access_key=", "AWS secret key ",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "GB82 WEST 1234 5698 7654 32", "de89 3704 0044 0532 0130 00", "DE89",
	"passport ", "passport no. ", "X1234567", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
	"postgres://app:", "@db/x", "${X}", "********",
}

func TestScrubIdempotentOnGluedFragments(t *testing.T) {
	r := rand.New(rand.NewPCG(2024, 1))
	var sb strings.Builder
	for range 100_000 {
		sb.Reset()
		for range 2 + r.IntN(7) {
			sb.WriteString(fragments[r.IntN(len(fragments))])
		}
		in := sb.String()
		out := Scrub(in)
		if again := Scrub(out); again != out {
			t.Fatalf("not idempotent:\n in    %q\n once  %q\n twice %q", in, out, again)
		}
		if left := leftover(out); left != nil {
			t.Fatalf("Scrub(%q) = %q still holds %+v", in, out, left)
		}
		if !keptInOrder(in, out) {
			t.Fatalf("Scrub(%q) = %q does not keep the unredacted text byte for byte", in, out)
		}
	}
}
