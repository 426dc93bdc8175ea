package ingest

import "testing"

// TestBatchEnd: a batch ends at maxPages items or once its bytes would pass
// batchBytes, and always holds at least one item, however large.
func TestBatchEnd(t *testing.T) {
	const mb = 1 << 20
	sizes := func(s ...int64) func(int) int64 { return func(i int) int64 { return s[i] } }
	for _, tc := range []struct {
		name     string
		lo, n    int
		maxPages int
		size     func(int) int64
		want     int
	}{
		{"no sizes: pages only", 0, 10, 4, nil, 4},
		{"no sizes: the last short batch", 8, 10, 4, nil, 10},
		{"small files: pages only", 0, 5, 3, sizes(1, 1, 1, 1, 1), 3},
		{"bytes end the batch", 0, 5, 5, sizes(20*mb, 10*mb, 5*mb, 1, 1), 2},
		{"exactly the cap fits", 0, 3, 5, sizes(16*mb, 16*mb, 1), 2},
		{"one huge file is a batch of its own", 0, 3, 5, sizes(100*mb, 1, 1), 1},
		{"from the middle", 1, 4, 5, sizes(100*mb, 30*mb, 1*mb, 5*mb), 3},
	} {
		if got := batchEnd(tc.lo, tc.n, tc.maxPages, tc.size); got != tc.want {
			t.Errorf("%s: batchEnd(%d, %d, %d) = %d, want %d", tc.name, tc.lo, tc.n, tc.maxPages, got, tc.want)
		}
	}
}
