package pii

import (
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/linearity"
)

// TestClassifyLinearWork compares the CPU time of Classify on 10 KB and on
// 100 KB of each hostile input (linearity.ClassifyUnits): linear work gives
// a ratio near 10, quadratic near 100, and linearity.Require refuses 35.
// CPU time of the measuring thread, unlike wall-clock time, does not grow
// while the machine is busy with other work, and no absolute budget is
// asserted here: how fast 100 KB is, is a speed claim for `make bench`
// (suite hostile).
func TestClassifyLinearWork(t *testing.T) {
	linearity.Require(t, func(s string) { Classify(s) }, linearity.ClassifyUnits())
}

func BenchmarkClassify100KB(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 100_000 {
		sb.WriteString("The patient at 221B Baker Street (alice@example.com, +44 20 7946 0958) ")
		sb.WriteString("paid with 4111 1111 1111 1111 from IBAN GB82 WEST 1234 5698 7654 32; ")
		for _, unit := range linearity.ClassifyUnits() {
			sb.WriteString(strings.Repeat(unit, 4))
		}
	}
	s := sb.String()[:100_000]
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Classify(s)
	}
}
