package export

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"90s", 90 * time.Second, true},
		{"15m", 15 * time.Minute, true},
		{"24h", 24 * time.Hour, true},
		{"7d", 7 * 24 * time.Hour, true},
		{"2w", 14 * 24 * time.Hour, true},
		{"0d", 0, true},
		{"", 0, false},
		{"7", 0, false},
		{"d", 0, false},
		{"-1d", 0, false},
		{"1.5h", 0, false},
		{"1h30m", 0, false},
		{"7D", 0, false},
		{" 7d", 0, false},
		{"7y", 0, false},
		{"99999999999999w", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseDuration(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseSince(t *testing.T) {
	at := time.Date(2025, 1, 2, 15, 4, 5, 123456000, time.UTC)
	tests := []struct {
		in    string
		age   time.Duration
		at    time.Time
		isAge bool
		ok    bool
	}{
		{"7d", 7 * 24 * time.Hour, time.Time{}, true, true},
		{"2025-01-02T15:04:05.123456Z", 0, at, false, true},
		{"2025-01-02T17:04:05.123456+02:00", 0, at, false, true},
		{"2025-01-02", 0, time.Time{}, false, false},
		{"yesterday", 0, time.Time{}, false, false},
		{"999999999999h", 0, time.Time{}, false, false},
	}
	for _, tc := range tests {
		got, err := ParseSince(tc.in)
		if (err == nil) != tc.ok {
			t.Fatalf("ParseSince(%q) error = %v, want ok=%v", tc.in, err, tc.ok)
		}
		if !tc.ok {
			if !strings.Contains(err.Error(), tc.in) {
				t.Errorf("error %q does not name the input", err)
			}
			// A duration that is only too large is told so.
			if strings.HasSuffix(tc.in, "h") && !strings.Contains(err.Error(), "too large") {
				t.Errorf("error %q for a huge duration does not say it is too large", err)
			}
			continue
		}
		if got.IsAge() != tc.isAge || got.Age != tc.age || !got.At.Equal(tc.at) || !got.IsSet() {
			t.Errorf("ParseSince(%q) = %+v", tc.in, got)
		}
	}
}

func TestWindowEndRoundTrips(t *testing.T) {
	end := time.Date(2025, 3, 4, 5, 6, 7, 890123000, time.UTC)
	got, err := ParseSince(end.Format(TimeLayout))
	if err != nil || !got.At.Equal(end) {
		t.Fatalf("printed window end %s parsed as %v, %v", end.Format(TimeLayout), got.At, err)
	}
}

func FuzzParseDuration(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			return
		}
		if d < 0 {
			t.Fatalf("%q parsed to a negative duration %v", s, d)
		}
		// Accepted input is exactly digits and one unit letter.
		unit := s[len(s)-1:]
		if _, ok := unitLength[unit]; !ok || d%unitLength[unit] != 0 {
			t.Fatalf("%q accepted as %v", s, d)
		}
	})
}

func FuzzParseSince(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSince(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--since") {
				t.Fatalf("error %q does not name the flag", err)
			}
			return
		}
		if !got.IsSet() {
			t.Fatalf("%q accepted but unset", s)
		}
		if !got.IsAge() {
			// A time that was accepted prints and parses back to itself.
			back, err := ParseTime(got.At.Format(time.RFC3339Nano))
			if err != nil || !back.Equal(got.At) {
				t.Fatalf("%q: round trip gave %v, %v", s, back, err)
			}
		}
	})
}
