package tail

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr string
	}{
		{in: "90s", want: now.Add(-90 * time.Second)},
		{in: "15m", want: now.Add(-15 * time.Minute)},
		{in: "24h", want: now.Add(-24 * time.Hour)},
		{in: "1h30m", want: now.Add(-90 * time.Minute)},
		{in: "0s", want: now},
		{in: "7d", want: now.Add(-7 * 24 * time.Hour)},
		{in: "2w", want: now.Add(-14 * 24 * time.Hour)},
		{in: " 5m ", want: now.Add(-5 * time.Minute)},
		{in: "2026-11-20T08:00:00Z", want: time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)},
		{in: "2026-11-20T09:00:00.5+01:00", want: time.Date(2026, 11, 20, 8, 0, 0, 500000000, time.UTC)},
		{in: "", wantErr: "empty"},
		{in: "yesterday", wantErr: `"yesterday"`},
		{in: "-5m", wantErr: "negative"},
		{in: "1.5d", wantErr: `"1.5d"`},
		{in: "d", wantErr: `"d"`},
		{in: "99999999999999w", wantErr: "too far back"},
		{in: "2026-11-20", wantErr: "RFC 3339"},
		{in: "5", wantErr: `"5"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSince(tt.in, now)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("got %v, want error", got)
				}
				msg := err.Error()
				if !errors.Is(err, ErrBadSince) || !strings.Contains(msg, tt.wantErr) {
					t.Errorf("error %q does not mention %q", msg, tt.wantErr)
				}
				for _, form := range []string{"90s", "15m", "24h", "7d", "2w", "RFC 3339"} {
					if !strings.Contains(msg, form) {
						t.Errorf("error %q does not list %s", msg, form)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"90s", "15m", "24h", "7d", "2w", "1h30m", "2026-11-21T12:00:00Z", "", "-1d", "9223372036854775807w", "1e9h"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSince(s, now)
		if err != nil {
			if !errors.Is(err, ErrBadSince) || !strings.Contains(err.Error(), "RFC 3339") {
				t.Fatalf("error %q lacks the sentinel or the accepted forms", err)
			}
			return
		}
		again, _ := ParseSince(s, now)
		if !again.Equal(got) {
			t.Fatalf("not deterministic: %v vs %v", got, again)
		}
		// A relative value never points into the future.
		if _, perr := time.Parse(time.RFC3339Nano, strings.TrimSpace(s)); perr != nil && got.After(now) {
			t.Fatalf("duration %q gave %v, after now", s, got)
		}
	})
}
