package embed

import (
	"errors"
	"fmt"
	"testing"
)

func TestDimensionError(t *testing.T) {
	tests := []struct {
		name string
		err  *DimensionError
		want string
	}{
		{
			name: "with embedder",
			err:  &DimensionError{Embedder: "openai", Model: "text-embedding-3-small", Want: 256, Got: 1536},
			want: `embedder "openai" model "text-embedding-3-small" returned 1536-dimensional vectors but this brain stores 256; ` +
				`re-run 'pgbrain init --dim 1536' on a new brain or pick a model with 256 dimensions`,
		},
		{
			name: "without embedder",
			err:  &DimensionError{Model: "m", Want: 3, Got: 4},
			want: `model "m" returned 4-dimensional vectors but this brain stores 3; ` +
				`re-run 'pgbrain init --dim 4' on a new brain or pick a model with 3 dimensions`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() =\n%s\nwant\n%s", got, tt.want)
			}
			wrapped := fmt.Errorf("embedding page: %w", tt.err)
			if !errors.Is(wrapped, ErrDimensionMismatch) {
				t.Errorf("errors.Is(wrapped, ErrDimensionMismatch) = false")
			}
			var de *DimensionError
			if !errors.As(wrapped, &de) || de.Want != tt.err.Want || de.Got != tt.err.Got {
				t.Errorf("errors.As gave %+v, want %+v", de, tt.err)
			}
		})
	}
}

func TestCheckDim(t *testing.T) {
	tests := []struct {
		name    string
		want    int
		vecs    [][]float32
		wantGot int // 0 means no error expected
	}{
		{name: "all match", want: 2, vecs: [][]float32{{1, 2}, {3, 4}}},
		{name: "no vectors", want: 2, vecs: nil},
		{name: "second too long", want: 2, vecs: [][]float32{{1, 2}, {3, 4, 5}}, wantGot: 3},
		{name: "first too short", want: 2, vecs: [][]float32{{1}, {3, 4, 5}}, wantGot: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDim("local", "m", tt.want, tt.vecs)
			if tt.wantGot == 0 {
				if err != nil {
					t.Fatalf("CheckDim: unexpected error %v", err)
				}
				return
			}
			var de *DimensionError
			if !errors.As(err, &de) {
				t.Fatalf("CheckDim error = %v, want *DimensionError", err)
			}
			want := DimensionError{Embedder: "local", Model: "m", Want: tt.want, Got: tt.wantGot}
			if *de != want {
				t.Errorf("DimensionError = %+v, want %+v", *de, want)
			}
		})
	}
}
