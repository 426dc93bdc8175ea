package budget

import (
	"math"
	"testing"
)

func FuzzParsePrices(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"budget":{"prices":{"m":{"input_per_mtok":1,"output_per_mtok":2}}}}`,
		`{"budget":{"prices":{"m":{"input_per_mtok":-1,"output_per_mtok":2}}}}`, `{"budget":null}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePrices(data)
		if err != nil {
			return
		}
		for name, pr := range p {
			for _, x := range []float64{pr.InputPerMTok, pr.OutputPerMTok} {
				if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("accepted price %v for %q", x, name)
				}
			}
		}
	})
}
