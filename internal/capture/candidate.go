package capture

import (
	"strings"

	"github.com/pgbrain/pgbrain/client/evalrow"
	"github.com/pgbrain/pgbrain/internal/search"
)

// Caller says who ran the operation. The CLI passes the zero value.
type Caller struct {
	Remote     bool   // true for MCP callers, false for the local CLI
	JobID      *int64 // the job, when a subagent's tool bridge made the call
	SubagentID *int64 // the subagent that owns the run
}

// newCandidate is the row capture inserts into brain.eval_candidates, before
// scrubbing; the database assigns id and created_at. It copies what capture
// keeps from a response, so the caller may reuse or change resp as soon as
// Record returns.
func newCandidate(resp *search.Response, c Caller) evalrow.Row {
	m := resp.Meta
	cand := evalrow.Row{
		SchemaVersion:     evalrow.SchemaVersion,
		ToolName:          m.Tool,
		Query:             resp.Query,
		RetrievedSlugs:    make([]string, 0, len(resp.Results)),
		RetrievedChunkIDs: make([]int64, 0, len(resp.Results)),
		SourceIDs:         []string{},
		ExpandEnabled:     copyPtr(m.ExpandEnabled),
		Detail:            copyPtr(m.Detail),
		DetailResolved:    copyPtr(m.DetailResolved),
		VectorEnabled:     copyPtr(&m.VectorEnabled),
		ExpansionApplied:  m.ExpansionApplied,
		LatencyMS:         m.LatencyMS,
		Remote:            c.Remote,
		JobID:             copyPtr(c.JobID),
		SubagentID:        copyPtr(c.SubagentID),
	}
	// Search has no expansion concept; the table refuses a value there.
	if cand.ToolName == "search" {
		cand.ExpandEnabled = nil
	}
	seenSlug := map[string]bool{}
	seenSource := map[string]bool{}
	for _, r := range resp.Results {
		if !seenSlug[r.Slug] {
			seenSlug[r.Slug] = true
			cand.RetrievedSlugs = append(cand.RetrievedSlugs, r.Slug)
		}
		cand.RetrievedChunkIDs = append(cand.RetrievedChunkIDs, r.ChunkID)
		if !seenSource[r.SourceID] {
			seenSource[r.SourceID] = true
			cand.SourceIDs = append(cand.SourceIDs, r.SourceID)
		}
	}
	return cand
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cleanText makes s storable as PostgreSQL text: invalid UTF-8 sequences and
// NUL bytes (which text cannot hold) become U+FFFD, so a hostile or binary
// query is captured rather than failing the insert.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}
