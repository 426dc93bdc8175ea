package mcpserver

import "github.com/pgbrain/pgbrain/internal/scrub"

// Statuses an answer can carry; they mirror events.Status and the audit log.
const (
	StatusSuccess  = "success"
	StatusEmpty    = "empty"
	StatusPartial  = "partial"
	StatusDegraded = "degraded"
	StatusError    = "error"
	StatusRefused  = "refused"
)

// Error kinds of error and refused answers.
const (
	KindInvalidArgument = "invalid_argument" // the arguments break the tool's schema
	KindNotFound        = "not_found"        // no page with that slug
	KindPIIBlocked      = "pii_blocked"      // the refusal policy blocks what the call touches
	KindCancelled       = "cancelled"        // the client or the server stopped the call
	KindInternal        = "internal"         // the database or the server failed
)

// Envelope is what every answer starts with.
type Envelope struct {
	Status   string     `json:"status" jsonschema:"success, empty, partial (some results withheld), degraded (keyword-only), error or refused"`
	Error    *ToolError `json:"error,omitempty" jsonschema:"set when status is error or refused"`
	Withheld *Withheld  `json:"withheld,omitempty" jsonschema:"set when status is partial"`
}

func (e *Envelope) envelope() *Envelope { return e }

// ToolError says why a call failed or was refused.
type ToolError struct {
	Kind    string `json:"kind" jsonschema:"invalid_argument, not_found, pii_blocked, cancelled or internal"`
	Message string `json:"message" jsonschema:"what went wrong and what to change"`
}

// Withheld counts results left out because of the PII refusal policy. It
// names categories, never the withheld pages.
type Withheld struct {
	Count      int      `json:"count" jsonschema:"number of results left out"`
	Categories []string `json:"categories" jsonschema:"the blocked PII categories those results carry"`
}

// failure is a tool's error answer. Its message may quote what the agent
// sent (an argument's name or value): scrubbed, since clients keep
// transcripts of answers.
func failure(kind, msg string) Envelope {
	st := StatusError
	if kind == KindPIIBlocked {
		st = StatusRefused
	}
	return Envelope{Status: st, Error: &ToolError{Kind: kind, Message: scrub.Message(msg)}}
}
