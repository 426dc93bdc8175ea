package sample_test

import (
	"encoding/json"
	"fmt"

	"github.com/pgbrain/pgbrain/sample"
)

// The shipped LongMemEval-format sample: one JSON array of questions.
func Example() {
	var questions []struct {
		Type string `json:"question_type"`
	}
	if err := json.Unmarshal(sample.LongMemEval, &questions); err != nil {
		fmt.Println(err)
		return
	}
	types := map[string]bool{}
	for _, q := range questions {
		types[q.Type] = true
	}
	fmt.Println(len(questions), "questions,", len(types), "types")
	// Output: 14 questions, 6 types
}
