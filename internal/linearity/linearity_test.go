package linearity

import (
	"strings"
	"testing"
)

var sink int

// scanOnce visits every byte once; scanFromEach rescans the rest of the
// input from every byte, the mistake the tests built on Measure catch.
func scanOnce(s string) {
	n := 0
	for range 50 {
		for i := 0; i < len(s); i++ {
			n += int(s[i])
		}
	}
	sink = n
}

func scanFromEach(s string) {
	n := 0
	for i := range len(s) {
		n += strings.IndexByte(s[i:], 'z')
	}
	sink = n
}

func TestMeasureTellsLinearFromQuadratic(t *testing.T) {
	const limit = Limit
	small, big := Repeat("ab", 10_000), Repeat("ab", 100_000)
	g, err := Measure(scanOnce, small, big, limit)
	if err != nil {
		t.Fatal(err)
	}
	if g.Small <= 0 || g.Ratio >= limit {
		t.Errorf("linear work measured %v and %v of CPU: ratio %.1f, want above zero and under %v", g.Small, g.Big, g.Ratio, limit)
	}
	g, err = Measure(scanFromEach, Repeat("ab", 2_000), Repeat("ab", 20_000), limit)
	if err != nil {
		t.Fatal(err)
	}
	if g.Ratio < limit {
		t.Errorf("quadratic work measured %v and %v of CPU: ratio %.1f, want at least %v", g.Small, g.Big, g.Ratio, limit)
	}
}

func TestRepeat(t *testing.T) {
	for _, tc := range []struct {
		unit string
		n    int
		want string
	}{
		{"ab", 5, "ababa"},
		{"abc", 3, "abc"},
		{"é", 3, "é\xc3"},
		{"x", 0, ""},
	} {
		if got := Repeat(tc.unit, tc.n); got != tc.want {
			t.Errorf("Repeat(%q, %d) = %q, want %q", tc.unit, tc.n, got, tc.want)
		}
	}
}

func TestUnitsAreNotEmpty(t *testing.T) {
	for name, units := range map[string][]string{"ClassifyUnits": ClassifyUnits(), "ScrubUnits": ScrubUnits()} {
		if len(units) < 20 {
			t.Errorf("%s: %d units, want the full hostile set", name, len(units))
		}
		for _, u := range units {
			if u == "" {
				t.Errorf("%s holds an empty unit, which Repeat cannot grow", name)
			}
		}
	}
}
