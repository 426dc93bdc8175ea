// Package eval scores ranked retrieval results against ground truth: the
// qrels file format, the IR metrics (precision, recall, reciprocal rank,
// nDCG, set Jaccard) and the two gates that decide whether a change to
// retrieval may land.
package eval

import "math"

// Doc identifies one page across sources.
type Doc struct {
	SourceID string `json:"source_id"`
	Slug     string `json:"slug"`
}

// Key is the comparison form used everywhere: "source_id::slug", so a hit
// from the wrong source never counts as relevant.
func (d Doc) Key() string { return d.SourceID + "::" + d.Slug }

// Judged is a query's relevance judgements: each relevant key with its grade
// (1 for binary relevance).
type Judged map[string]float64

// hits counts relevant keys among the first k of ranked.
func hits(ranked []string, rel Judged, k int) int {
	n := 0
	for i, key := range ranked {
		if i >= k {
			break
		}
		if rel[key] > 0 {
			n++
		}
	}
	return n
}

// PrecisionAt is the fraction of the k positions holding a relevant key;
// positions past the end of ranked count as misses.
func PrecisionAt(ranked []string, rel Judged, k int) float64 {
	if k <= 0 {
		return 0
	}
	return float64(hits(ranked, rel, k)) / float64(k)
}

// RecallAt is the fraction of relevant keys found in the first k; a query
// with no relevant keys has recall 0.
func RecallAt(ranked []string, rel Judged, k int) float64 {
	n := 0
	for _, g := range rel {
		if g > 0 {
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(hits(ranked, rel, k)) / float64(n)
}

// ReciprocalRank is 1/rank of the first relevant key in the first k, or 0.
func ReciprocalRank(ranked []string, rel Judged, k int) float64 {
	for i, key := range ranked {
		if i >= k {
			break
		}
		if rel[key] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// NDCGAt is normalised discounted cumulative gain over the first k with
// linear gain: DCG = sum of grade/log2(rank+1), divided by the DCG of the
// ideal order of the judged grades. Binary judgements are grade 1.
func NDCGAt(ranked []string, rel Judged, k int) float64 {
	dcg := 0.0
	for i, key := range ranked {
		if i >= k {
			break
		}
		dcg += rel[key] / math.Log2(float64(i+2))
	}
	grades := make([]float64, 0, len(rel))
	for _, g := range rel {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	sortDesc(grades)
	ideal := 0.0
	for i, g := range grades {
		if i >= k {
			break
		}
		ideal += g / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

func sortDesc(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] > x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

// Jaccard is |a ∩ b| / |a ∪ b| over the distinct members of a and b; two
// empty sets are identical, 1.0.
func Jaccard(a, b []string) float64 {
	sa := make(map[string]bool, len(a))
	for _, x := range a {
		sa[x] = true
	}
	sb := make(map[string]bool, len(b))
	for _, x := range b {
		sb[x] = true
	}
	if len(sa) == 0 && len(sb) == 0 {
		return 1
	}
	inter := 0
	for x := range sa {
		if sb[x] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}
