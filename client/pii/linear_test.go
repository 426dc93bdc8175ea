package pii

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// hostile repeats units that target each detector's scanning: separators
// that almost form numbers, '@' without domains, dot-separated "ey" runs,
// context words without values, and PEM headers without an end.
var hostile = []string{
	"1-1-1-", "1.", "1 ", "+1 (", "4111 1111 1111 1111 ", "123-45-",
	"a@a@a@", "x@y.co ", "eyJ.eyJ.", "Bearer Bearer ", "1ey",
	"ab:cd::ef:", "aa:aa:aa:", "1.1.1.1.", "12.3456, ",
	"-----BEGIN PRIVATE KEY-----", "password=", "db_password=", "aws_secret_access_key ", "secret key ", "http://a:b@", "sk-aaaa",
	"passport ", "account # 1", "GB82", "race: ", "I am a ", "1 Main Main Main ",
	"diagnosis diabetes ", "E11.9 ", "ACGT", "°",
}

func repeatTo(unit string, n int) string {
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}

// TestClassifyLinearTime compares 10 KB with 100 KB of each hostile input:
// linear work gives a ratio near 10, quadratic near 100. Each size keeps its
// best time over interleaved runs, with collection done by hand between
// runs, and sampling continues (up to a limit) while the ratio is high, so a
// busy machine delays the verdict but a quadratic scan cannot pass.
func TestClassifyLinearTime(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	timeOf := func(s string) time.Duration {
		runtime.GC()
		start := time.Now()
		Classify(s)
		return time.Since(start)
	}
	const limit = 20.0
	for _, unit := range hostile {
		small, big := repeatTo(unit, 10_000), repeatTo(unit, 100_000)
		bestSmall, bestBig := time.Duration(1<<62), time.Duration(1<<62)
		ratio := 0.0
		for round := 0; round < 40; round++ {
			bestSmall = min(bestSmall, timeOf(small))
			bestBig = min(bestBig, timeOf(big))
			ratio = float64(bestBig) / float64(max(bestSmall, time.Microsecond))
			if round >= 4 && ratio < limit {
				break
			}
		}
		if ratio >= limit {
			t.Errorf("%q: 100 KB took %v, 10 KB %v: ratio %.1f, want linear (about 10)", unit, bestBig, bestSmall, ratio)
		}
	}
}

func BenchmarkClassify100KB(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 100_000 {
		sb.WriteString("The patient at 221B Baker Street (alice@example.com, +44 20 7946 0958) ")
		sb.WriteString("paid with 4111 1111 1111 1111 from IBAN GB82 WEST 1234 5698 7654 32; ")
		for _, unit := range hostile {
			sb.WriteString(strings.Repeat(unit, 4))
		}
	}
	s := sb.String()[:100_000]
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Classify(s)
	}
}
