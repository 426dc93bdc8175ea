// Package embed defines what the rest of pgbrain needs from an embedding
// provider and the errors shared by every provider.
package embed

import (
	"context"
	"errors"
	"fmt"
)

// Embedder turns texts into vectors for one model at one fixed dimension.
type Embedder interface {
	// Name is the provider name stored with the brain ("local", "openai").
	Name() string
	// Model is the provider's model identifier.
	Model() string
	// Dim is the vector length every call returns; it must equal the brain's
	// vector column.
	Dim() int
	// Embed returns one vector per text, in input order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ErrDimensionMismatch reports vectors whose length differs from the brain's
// vector column. Match it with errors.Is; errors.As with *DimensionError gives
// the numbers.
var ErrDimensionMismatch = errors.New("embedding dimension mismatch")

// DimensionError says which model produced vectors of the wrong length.
type DimensionError struct {
	Embedder string // provider name, e.g. "openai"; may be empty
	Model    string
	Want     int // the brain's dimension
	Got      int // what the model returned
}

func (e *DimensionError) Error() string {
	who := fmt.Sprintf("model %q", e.Model)
	if e.Embedder != "" {
		who = fmt.Sprintf("embedder %q %s", e.Embedder, who)
	}
	return fmt.Sprintf("%s returned %d-dimensional vectors but this brain stores %d; "+
		"re-run 'pgbrain init --dim %d' on a new brain or pick a model with %d dimensions",
		who, e.Got, e.Want, e.Got, e.Want)
}

// Unwrap lets errors.Is(err, ErrDimensionMismatch) match.
func (e *DimensionError) Unwrap() error { return ErrDimensionMismatch }

// CheckDim returns a *DimensionError for the first vector whose length is not
// want, so every provider reports a mismatch the same way.
func CheckDim(embedder, model string, want int, vecs [][]float32) error {
	for _, v := range vecs {
		if len(v) != want {
			return &DimensionError{Embedder: embedder, Model: model, Want: want, Got: len(v)}
		}
	}
	return nil
}
