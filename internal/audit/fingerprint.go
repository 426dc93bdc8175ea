// Package audit records tool calls in the brain's tamper-evident audit log
// (brain.audit_log) and reads and verifies it. The chain itself is kept by
// the database; this package writes entries, lists rows and runs
// brain.audit_verify. docs/audit.md documents the byte forms.
package audit

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
)

// Statuses a tool call can end with (brain.audit_log.status).
const (
	StatusSuccess  = "success"
	StatusEmpty    = "empty"
	StatusPartial  = "partial"
	StatusDegraded = "degraded"
	StatusError    = "error"
	StatusRefused  = "refused"
)

// Statuses lists every status the audit log accepts.
func Statuses() []string {
	return []string{StatusSuccess, StatusEmpty, StatusPartial, StatusDegraded, StatusError, StatusRefused}
}

// FingerprintVersion is the version of the structure Fingerprint hashes.
const FingerprintVersion = 1

// Entry is one tool call as the audit log records it: structural metadata
// only, never query text or page content.
type Entry struct {
	SessionID     string   // the server process's session id, 1-128 bytes of [A-Za-z0-9._:-]
	Caller        string   // the MCP client, as it named itself; may be empty
	Tool          string   // tool name, e.g. "query"
	Status        string   // one of the Status constants
	RefusalReason string   // set exactly when Status is StatusRefused, e.g. "pii_blocked"
	PIICategories []string // taxonomy names touched (or attempted); any order
	CostClass     string   // e.g. "cheap", "search", "refused"
}

// Fingerprint returns the entry's version-1 fingerprint, the value the
// database stores in audit_log.fingerprint and brain.audit_fingerprint
// computes: lower-case hex of sha256 over length-prefixed fields (tag, tool,
// status, refusal reason or NULL, sorted categories joined by ',', cost
// class). It carries no content, so it can serve as the OTel span's
// gen_ai.tool.call.id.
func Fingerprint(e Entry) string {
	var reason *string
	if e.RefusalReason != "" {
		reason = &e.RefusalReason
	}
	cats := normalize(e.PIICategories)
	b := field(nil, ptr("pgbrain.audit.fingerprint.v1"))
	b = field(b, &e.Tool)
	b = field(b, &e.Status)
	b = field(b, reason)
	b = field(b, ptr(strings.Join(cats, ",")))
	b = field(b, &e.CostClass)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// field appends brain.audit_field(v): a 4-byte big-endian length and the
// bytes, or ff ff ff ff for NULL.
func field(b []byte, v *string) []byte {
	if v == nil {
		return append(b, 0xff, 0xff, 0xff, 0xff)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(*v)))
	return append(b, *v...)
}

func ptr(s string) *string { return &s }

// normalize mirrors brain.pii_normalize for taxonomy names: trimmed,
// lower-cased, empty items dropped, sorted byte-wise and distinct.
func normalize(cats []string) []string {
	out := make([]string, 0, len(cats))
	for _, c := range cats {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
