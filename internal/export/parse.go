package export

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"
)

// durationShape is an age: a whole number and one unit, s m h d or w.
var durationShape = regexp.MustCompile(`^([0-9]{1,19})([smhdw])$`)

var unitLength = map[string]time.Duration{
	"s": time.Second,
	"m": time.Minute,
	"h": time.Hour,
	"d": 24 * time.Hour,
	"w": 7 * 24 * time.Hour,
}

// ParseDuration reads an age such as 90s, 15m, 24h, 7d or 2w. Days and weeks
// are fixed 24-hour multiples: capture timestamps are UTC instants, so
// calendar days would add nothing but daylight-saving ambiguity.
func ParseDuration(s string) (time.Duration, error) {
	m := durationShape.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("duration %q: write a whole number and a unit s, m, h, d or w (e.g. 90s, 15m, 24h, 7d, 2w)", s)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	unit := unitLength[m[2]]
	if err != nil || n > math.MaxInt64/int64(unit) {
		return 0, fmt.Errorf("duration %q is too large: at most %d%s", s, math.MaxInt64/int64(unit), m[2])
	}
	return time.Duration(n) * unit, nil
}

// Since is the lower bound of an export window: an age relative to the
// server's clock, or an instant. The zero value means "from the beginning".
type Since struct {
	Age time.Duration
	At  time.Time
	set bool
	age bool
}

// IsSet reports whether a lower bound was given.
func (s Since) IsSet() bool { return s.set }

// IsAge reports whether the bound is an age rather than an instant.
func (s Since) IsAge() bool { return s.age }

// SinceAge returns a lower bound d before the server's now.
func SinceAge(d time.Duration) Since { return Since{Age: d, set: true, age: true} }

// SinceTime returns a lower bound at t (inclusive).
func SinceTime(t time.Time) Since { return Since{At: t, set: true} }

// ParseSince reads --since: an age (see ParseDuration) or an RFC 3339 time
// such as the window end printed by a previous export.
func ParseSince(s string) (Since, error) {
	d, err := ParseDuration(s)
	if err == nil {
		return SinceAge(d), nil
	}
	if durationShape.MatchString(s) {
		// A duration, only too large: say that, not "give a duration".
		return Since{}, fmt.Errorf("--since: %w", err)
	}
	t, err := ParseTime(s)
	if err != nil {
		return Since{}, fmt.Errorf("--since %q: give a duration (90s, 15m, 24h, 7d, 2w) or an RFC 3339 time (2025-01-02T15:04:05Z)", s)
	}
	return SinceTime(t), nil
}

// ParseTime reads an RFC 3339 time, with or without fractional seconds.
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// (not Go's own message, which quotes its layout "2006-01-02T15:04:05...")
		return time.Time{}, fmt.Errorf("time %q is not RFC 3339: write it as 2025-01-02T15:04:05Z or 2025-01-02T15:04:05.123456+02:00", s)
	}
	return t, nil
}

// TimeLayout prints window ends with the database's microsecond precision,
// so a printed end fed back as --since is exactly the same instant.
const TimeLayout = "2006-01-02T15:04:05.000000Z07:00"
