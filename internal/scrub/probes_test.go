package scrub

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// probe makes one secret of a shape, fresh random characters each time, and
// returns the text to insert and the part of it that must not survive.
type probe struct {
	name string
	make func(r *rand.Rand) (text, secret string)
}

const (
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	alnum       = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64         = alnum + "/+"
)

func rnd(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// withDigit makes sure a random token holds a digit, as real keys all but
// certainly do (the detectors ask for one to tell keys from words).
func withDigit(r *rand.Rand, s string) string {
	i := r.IntN(len(s))
	return s[:i] + string(rune('0'+r.IntN(10))) + s[i+1:]
}

// luhn completes digits with the check digit.
func luhn(digits string) string {
	sum := 0
	for i := 0; i < len(digits); i++ {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return digits + string(rune('0'+(10-sum%10)%10))
}

// iban builds a valid IBAN for country cc and a numeric BBAN of n digits.
func iban(r *rand.Rand, cc string, n int) string {
	bban := rnd(r, "0123456789", n)
	num := bban + fmt.Sprint(int(cc[0]-'A'+10)) + fmt.Sprint(int(cc[1]-'A'+10)) + "00"
	rem := 0
	for _, c := range num {
		rem = (rem*10 + int(c-'0')) % 97
	}
	return fmt.Sprintf("%s%02d%s", cc, 98-rem, bban)
}

var probes = []probe{
	{"aws key id", func(r *rand.Rand) (string, string) { k := "AKIA" + rnd(r, upperDigits, 16); return k, k }},
	{"aws secret assignment", func(r *rand.Rand) (string, string) {
		k := withDigit(r, rnd(r, b64, 40))
		return "aws_secret_access_key = " + k, k
	}},
	{"aws secret export", func(r *rand.Rand) (string, string) {
		k := withDigit(r, rnd(r, b64, 39)+"Q")
		return "export AWS_SECRET_ACCESS_KEY=" + k, k
	}},
	{"github", func(r *rand.Rand) (string, string) { k := "ghp_" + withDigit(r, rnd(r, alnum, 36)); return k, k }},
	{"github pat", func(r *rand.Rand) (string, string) {
		k := "github_pat_" + withDigit(r, rnd(r, alnum, 22)) + "_" + rnd(r, alnum, 59)
		return k, k
	}},
	{"gitlab", func(r *rand.Rand) (string, string) { k := "glpat-" + withDigit(r, rnd(r, alnum, 20)); return k, k }},
	{"slack", func(r *rand.Rand) (string, string) {
		k := "xoxb-" + rnd(r, "0123456789", 12) + "-" + rnd(r, alnum, 24)
		return k, k
	}},
	{"stripe", func(r *rand.Rand) (string, string) { k := "sk_live_" + withDigit(r, rnd(r, alnum, 24)); return k, k }},
	{"stripe publishable", func(r *rand.Rand) (string, string) { k := "pk_live_" + rnd(r, alnum, 24); return k, k }},
	{"openai", func(r *rand.Rand) (string, string) { k := "sk-proj-" + withDigit(r, rnd(r, alnum, 40)); return k, k }},
	{"password", func(r *rand.Rand) (string, string) {
		v := rnd(r, alnum+"!#%&*", 4+r.IntN(12))
		return []string{"password: ", "passwd=", "pwd=", "DB_PASSWORD="}[r.IntN(4)] + v, v
	}},
	{"token", func(r *rand.Rand) (string, string) {
		v := withDigit(r, rnd(r, alnum, 6+r.IntN(20)))
		return []string{"token=", "secret=", "api_key: ", "access_token="}[r.IntN(4)] + v, v
	}},
	{"private key", func(r *rand.Rand) (string, string) {
		body := rnd(r, b64, 64)
		return "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----", body
	}},
	{"card", func(r *rand.Rand) (string, string) { k := luhn("4" + rnd(r, "0123456789", 14)); return k, k }},
	{"iban", func(r *rand.Rand) (string, string) { k := iban(r, "DE", 18); return k, k }},
	{"iban spaced", func(r *rand.Rand) (string, string) {
		k := iban(r, "GB", 18)
		var sp []string
		for i := 0; i < len(k); i += 4 {
			sp = append(sp, k[i:min(i+4, len(k))])
		}
		s := strings.Join(sp, " ")
		return s, s
	}},
	{"passport", func(r *rand.Rand) (string, string) {
		v := string(rune('A'+r.IntN(26))) + rnd(r, "0123456789", 8)
		return "passport number " + v, v
	}},
	{"email", func(r *rand.Rand) (string, string) {
		k := strings.ToLower(rnd(r, "abcdefghijklmnop", 6)) + "." + rnd(r, "qrstuvwxyz", 5) + "@example.org"
		return k, k
	}},
}

// TestProbesInRealText puts freshly generated secrets of every shape into
// lines of real package descriptions, at random word boundaries: the secret
// goes and the description's words stay.
func TestProbesInRealText(t *testing.T) {
	debian := debianLines(t)
	r := rand.New(rand.NewPCG(14, 6))
	const perProbe = 300
	for _, p := range probes {
		missed := 0
		for i := 0; i < perProbe; i++ {
			line := debian[r.IntN(len(debian))]
			text, secret := p.make(r)
			words := strings.Fields(line)
			k := r.IntN(len(words) + 1)
			in := strings.Join(append(append(append([]string{}, words[:k]...), text), words[k:]...), " ")
			out := Scrub(in)
			if strings.Contains(out, secret) {
				if missed < 3 {
					t.Errorf("%s: Scrub(%q) = %q keeps %q", p.name, in, out, secret)
				}
				missed++
			}
			if !keptInOrder(in, out) {
				t.Errorf("%s: Scrub(%q) = %q rewrote text", p.name, in, out)
			}
		}
		if missed > 0 {
			t.Errorf("%s: %d of %d probes kept", p.name, missed, perProbe)
		}
	}
}
