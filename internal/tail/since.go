package tail

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ErrBadSince marks a --since value that is neither a duration nor a time.
var ErrBadSince = errors.New("invalid since value")

const sinceForms = "use a duration such as 90s, 15m, 24h, 7d or 2w, or an RFC 3339 time such as 2026-11-21T12:00:00Z"

// ParseSince turns a --since value into the earliest time to show: a
// duration back from now (Go durations such as 90s, 1h30m, plus whole days d
// and weeks w) or an absolute RFC 3339 time.
func ParseSince(s string, now time.Time) (time.Time, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return time.Time{}, fmt.Errorf("%w %q: empty; %s", ErrBadSince, s, sinceForms)
	}
	if d, ok, err := parseDayWeek(in); ok {
		if err != nil {
			return time.Time{}, fmt.Errorf("%w %q: %v; %s", ErrBadSince, s, err, sinceForms)
		}
		return now.Add(-d), nil
	}
	if d, err := time.ParseDuration(in); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%w %q: negative duration; %s", ErrBadSince, s, sinceForms)
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, in); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%w %q: %s", ErrBadSince, s, sinceForms)
}

// parseDayWeek handles "<digits>d" and "<digits>w", which time.ParseDuration
// lacks. ok is false when s is not of that shape.
func parseDayWeek(s string) (d time.Duration, ok bool, err error) {
	if len(s) < 2 {
		return 0, false, nil
	}
	var unit time.Duration
	switch s[len(s)-1] {
	case 'd':
		unit = 24 * time.Hour
	case 'w':
		unit = 7 * 24 * time.Hour
	default:
		return 0, false, nil
	}
	digits := s[:len(s)-1]
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false, nil
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > math.MaxInt64/int64(unit) {
		return 0, true, errors.New("too far back")
	}
	return time.Duration(n) * unit, true, nil
}
