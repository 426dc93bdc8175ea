// Package sample holds the sample data shipped inside the pgbrain binary:
// the small LongMemEval-format dataset the nightly quality probe runs on
// wherever the binary is started from.
package sample

import _ "embed"

// LongMemEval is longmemeval.json: fourteen questions covering the six
// question types (see README.md).
//
//go:embed longmemeval.json
var LongMemEval []byte
