package main

import "testing"

// A kept -keyword-only brain (no embeddings) is never reused by a run that
// times hybrid search, nor the other way round.
func TestScaleDatabaseKeepsKeywordOnlyBrainsApart(t *testing.T) {
	t.Parallel()
	full, kw := scaleDatabase(200000, false), scaleDatabase(200000, true)
	if full == kw {
		t.Fatalf("both modes use database %s", full)
	}
	if full != "pgbrain_bench_scale_200000" {
		t.Errorf("full brain is %s, want pgbrain_bench_scale_200000 (the name docs/performance.md gives)", full)
	}
	if scaleDatabase(20000, true) == kw {
		t.Errorf("two sizes share database %s", kw)
	}
}
