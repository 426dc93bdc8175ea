// Package search runs the brain's retrieval functions (brain.keyword_search,
// brain.hybrid_search) for the CLI, the MCP server, replay and gates, so that
// every caller ranks exactly the same way.
package search

// Detail levels accepted by hybrid search.
const (
	DetailLow    = "low"
	DetailMedium = "medium"
	DetailHigh   = "high"
)

// MaxLimit is the largest number of results a search returns.
const MaxLimit = 100

// Options are the caller's request.
type Options struct {
	Limit     int      // default 10, clamped to 1..MaxLimit
	Detail    string   // "", low, medium, high ("" lets brain.detect_detail decide)
	SourceIDs []string // restrict to these sources (nil: all)
	// Expand records that the caller asked for query expansion (captured
	// as expand_enabled). Hybrid itself never expands: package expand asks
	// the model and calls Expanded with the variants.
	Expand bool
	// NoSnippets leaves Result.Snippet empty, for callers that only rank
	// (LongMemEval runs): highlighting is a good part of a small brain's
	// search time.
	NoSnippets bool
}

// Result is one hit, with every field the SQL functions return.
type Result struct {
	Slug        string  `json:"slug"`
	SourceID    string  `json:"source_id"`
	PageID      int64   `json:"page_id"`
	ChunkID     int64   `json:"chunk_id"`
	ChunkIndex  int     `json:"chunk_index"`
	ChunkSource string  `json:"chunk_source"`
	Title       string  `json:"title"`
	Type        string  `json:"type"`
	Score       float64 `json:"score"`
	KeywordRank *int    `json:"keyword_rank"`
	VectorRank  *int    `json:"vector_rank"`
	Snippet     string  `json:"snippet"`
}

// Meta describes how a search ran.
type Meta struct {
	Tool string `json:"tool"` // "query" or "search"
	// VectorEnabled: the vector arm could run (weight > 0, a query vector,
	// and a usable index).
	VectorEnabled bool `json:"vector_enabled"`
	// VectorIndex is brain.vector_index_status(): anything but "ready" or
	// "exact" means the vector arm was skipped (vector_enabled false) while
	// the index is suspended for a bulk import, rebuilt, or lost to a crash.
	VectorIndex    string  `json:"vector_index"`
	Detail         *string `json:"detail"`          // what the caller asked for
	DetailResolved *string `json:"detail_resolved"` // what was used
	ExpandEnabled  *bool   `json:"expand_enabled"`  // nil for search
	// ExpansionApplied is true only when variants were searched and fused.
	ExpansionApplied bool `json:"expansion_applied"`
	// Expansion says how an asked-for expansion went (nil when none was
	// asked for).
	Expansion *Expansion `json:"expansion,omitempty"`
	LatencyMS float64    `json:"latency_ms"`
	// VectorRan says whether the vector arm ran; VectorEnabled only says it
	// could. VectorSkipped says why it did not run (weight_zero, no_index,
	// no_terms, no_vector, keyword_filled), nil when it ran.
	VectorRan     bool    `json:"vector_ran"`
	VectorSkipped *string `json:"vector_skipped"`
	// KeywordWeight, VectorWeight and RRFK are the fusion parameters in
	// force (the vector weight as asked, before a skipped arm zeroed it).
	KeywordWeight float64 `json:"keyword_weight"`
	VectorWeight  float64 `json:"vector_weight"`
	RRFK          float64 `json:"rrf_k"`
	// Parser is brain.parse_query's account of the query: terms, phrases,
	// negated words, OR groups, the strict tsquery.
	Parser map[string]any `json:"parser,omitempty"`
	// KeywordScan is the keyword arm's candidate cut: candidates scored,
	// rounds, terms scanned of the total, and whether the top results are
	// provably those of exhaustive BM25.
	KeywordScan map[string]any `json:"keyword_scan,omitempty"`
	// Withheld is what the caller's row security hid (brain.search's
	// meta.withheld); nil when nothing was hidden.
	Withheld *Withheld `json:"withheld,omitempty"`
}

// Withheld counts the pages row security hid from a search: pages with a
// chunk among the first lim of either arm that the caller may not see.
type Withheld struct {
	Pages        int      `json:"pages"`
	Unclassified int      `json:"unclassified"` // no current classification
	Categories   []string `json:"categories"`   // of the classified ones
}

// Response is a search's answer.
type Response struct {
	Query   string   `json:"query"`
	Results []Result `json:"results"`
	Meta    Meta     `json:"meta"`
}

// Expansion is the account of one query expansion.
type Expansion struct {
	// Variants are the rephrasings searched beside the query (empty when
	// none were).
	Variants []string `json:"variants"`
	Model    string   `json:"model,omitempty"`
	// Cached: the variants came from brain.query_expansions, not a model call.
	Cached bool `json:"cached"`
	// Note says why no variant was used (the model failed, answered
	// nothing usable, or none is configured); empty when variants were used.
	Note string `json:"note,omitempty"`
}
