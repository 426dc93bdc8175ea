// Package linearity measures how the work of a text scanner grows with its
// input, for the tests and the bench suite that hold the PII detectors and
// the scrubber to linear time, and holds the hostile inputs they use.
//
// Work is measured as the CPU time of the measuring thread, not wall-clock
// time: a process waiting for a core on a loaded machine spends no CPU time,
// so the ratio of two measurements taken side by side in one run barely
// moves under load, where a wall-clock ratio or budget flakes.
package linearity

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ClassifyUnits repeat into inputs aimed at each page detector's scanning:
// separators that almost form numbers, '@' without domains, dot-separated
// "ey" runs, context words without values, and PEM headers without an end.
func ClassifyUnits() []string {
	return []string{
		"1-1-1-", "1.", "1 ", "+1 (", "4111 1111 1111 1111 ", "123-45-",
		"a@a@a@", "x@y.co ", "eyJ.eyJ.", "Bearer Bearer ", "1ey",
		"ab:cd::ef:", "aa:aa:aa:", "1.1.1.1.", "12.3456, ",
		"-----BEGIN PRIVATE KEY-----", "password=", "db_password=", "aws_secret_access_key ", "secret key ", "http://a:b@", "sk-aaaa",
		"passport ", "account # 1", "GB82", "race: ", "I am a ", "1 Main Main Main ",
		"diagnosis diabetes ", "E11.9 ", "ACGT", "°",
	}
}

// ScrubUnits repeat into inputs built to make a careless scrubber backtrack
// or rescan, including the shapes only its query-mode detectors read.
func ScrubUnits() []string {
	return []string{
		"1-1-1-1-",
		"a@a@a@",
		"eyJ.eyJ.",
		"0123456789",
		"4111 1111 1111 1111 ",
		"Bearer Bearer ",
		"x@y.co ",
		"+1 (",
		"1ey",
		"a.b.c.d.",
		"123-45-",
		// Shapes aimed at the scrubber's own detectors: national and labelled
		// numbers, unicode and percent-encoded addresses, headers, JWT-like runs.
		"0 1 0 1 ",
		"01 23 ",
		"020-",
		"(0",
		"00 ",
		"1.2.3+",
		"call 1 ",
		"ssn 1-",
		"é@é@",
		"a%40a%40",
		"用户@例子.",
		"o'o'",
		"eyJhbGci.",
		"eyJhbGci.eyJzdWIi.c2ln.",
		"bearer ",
		"bearer token ",
		"Authorization: Bearer ",
		"bearer_token=",
		"4242.4242.",
		"\"@\"",
		"a@[1.1.1.1",
		"password=", "token: ", "aws_secret_access_key ", "secret key is ", "sk_live_", "pk_live_",
		"GB82 ", "de89 3704 ", "passport no ", "-----BEGIN RSA PRIVATE KEY-----",
	}
}

// Repeat returns unit repeated and cut to n bytes.
func Repeat(unit string, n int) string {
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}

// Growth is the CPU time of one call on a small and on a big input, and
// their ratio: about Big/Small bytes for linear work, its square for
// quadratic.
type Growth struct {
	Small, Big time.Duration
	Ratio      float64
}

// Measure runs f on small and big alternately, keeps each one's least CPU
// time, and returns their growth. It takes at least 5 rounds and continues,
// up to 40, while the ratio is at or over limit, so a disturbed measurement
// delays the verdict but quadratic work cannot pass. Garbage collection is
// done by hand between calls, so its cost, which depends on the whole
// process, lands in neither measurement.
func Measure(f func(string), small, big string, limit float64) (Growth, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var err error
	cpuOf := func(s string) time.Duration {
		runtime.GC()
		start, err1 := threadCPU()
		f(s)
		end, err2 := threadCPU()
		if err1 != nil || err2 != nil {
			err = errors.Join(err1, err2)
		}
		return end - start
	}
	g := Growth{Small: 1 << 62, Big: 1 << 62}
	for round := 0; round < 40 && err == nil; round++ {
		g.Small = min(g.Small, cpuOf(small))
		g.Big = min(g.Big, cpuOf(big))
		g.Ratio = float64(g.Big) / float64(max(g.Small, time.Microsecond))
		if round >= 4 && g.Ratio < limit {
			break
		}
	}
	if err != nil {
		return Growth{}, fmt.Errorf("measuring CPU time: %w", err)
	}
	return g, nil
}

// Limit is the growth from 10 KB to 100 KB that Require refuses: linear
// work gives about 10, quadratic about 100; 35 leaves room for the cache
// and allocation noise of a loaded machine (ratios of 23 were seen for
// linear work there) and still refuses anything quadratic.
const Limit = 35.0

// Require fails t for every unit on which f's CPU time grows by Limit or
// more from 10 KB to 100 KB of the unit repeated.
func Require(t testing.TB, f func(string), units []string) {
	t.Helper()
	for _, unit := range units {
		g, err := Measure(f, Repeat(unit, 10_000), Repeat(unit, 100_000), Limit)
		if err != nil {
			t.Fatal(err)
		}
		if g.Ratio >= Limit {
			t.Errorf("%q: 100 KB took %v of CPU, 10 KB %v: ratio %.1f, want linear (about 10)", unit, g.Big, g.Small, g.Ratio)
		}
	}
}

// threadCPU is the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID, nanosecond resolution).
func threadCPU() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("clock_gettime(CLOCK_THREAD_CPUTIME_ID): %w", err)
	}
	return time.Duration(ts.Nano()), nil
}
