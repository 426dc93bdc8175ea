package main

import (
	"slices"
	"time"
)

// latency summarises a set of timings in milliseconds; every suite reports
// percentiles with the same rule (pct).
type latency struct{ mean, p50, p95, p99 float64 }

func summarize(ds []time.Duration) latency {
	s := slices.Clone(ds)
	slices.Sort(s)
	var total time.Duration
	for _, d := range s {
		total += d
	}
	mean := float64(total.Microseconds()) / 1000 / float64(max(len(s), 1))
	return latency{mean: mean, p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99)}
}

// pct is the nearest-rank percentile of sorted durations, in milliseconds.
func pct(sorted []time.Duration, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return float64(sorted[max(i-1, 0)].Microseconds()) / 1000
}
