package ingest

import (
	"fmt"
	"testing"
)

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

// TestBatchPages: a large import starts with small batches that double up
// to the maximum and ends with batches that shrink with what is left, so the
// writers start early and finish together; every item lands in exactly one
// batch, and small or fixed batch sizes are used as given.
func TestBatchPages(t *testing.T) {
	plan := func(n, maxPages, writers int, fixed bool) []int {
		var sizes []int
		for k, lo := 0, 0; lo < n; k++ {
			hi := batchEnd(lo, n, batchPages(k, lo, n, maxPages, writers, fixed), nil)
			sizes = append(sizes, hi-lo)
			lo = hi
		}
		return sizes
	}
	for _, tc := range []struct {
		name            string
		n, max, writers int
		fixed           bool
		want            []int
	}{
		{"ramp up, full batches, wind down", 20000, 2000, 2, false,
			[]int{250, 500, 1000, 2000, 2000, 2000, 2000, 2000, 2000, 1563, 1172, 879, 659, 500, 500, 500, 477}},
		{"fixed", 20000, 2000, 2, true, []int{2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000}},
		{"small batches are used as given", 10, 4, 2, false, []int{4, 4, 2}},
		{"a small import", 300, 2000, 2, false, []int{250, 50}},
		{"one writer", 5000, 2000, 1, false, []int{250, 500, 1000, 1625, 813, 500, 312}},
	} {
		got := plan(tc.n, tc.max, tc.writers, tc.fixed)
		total := 0
		for _, s := range got {
			total += s
		}
		if total != tc.n {
			t.Errorf("%s: batches %v cover %d items, want %d", tc.name, got, total, tc.n)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: batches %v, want %v", tc.name, got, tc.want)
		}
	}
}
