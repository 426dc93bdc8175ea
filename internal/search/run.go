package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/scrub"
)

// MaxQueryChars is the longest query accepted, in characters; it matches
// the CHECK on captured queries (brain.eval_candidates).
const MaxQueryChars = 51200

// ErrBadQuery marks query text that is refused before it reaches the database.
var ErrBadQuery = errors.New("invalid query")

// Querier is what search needs from the database; *pgxpool.Pool, *pgx.Conn
// and pgx.Tx satisfy it.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Tuning overrides brain.search_setting defaults for one call; nil fields
// keep the brain's defaults. Evaluation and benchmarks use it to run one arm.
type Tuning struct {
	KeywordWeight *float64
	VectorWeight  *float64
	RRFK          *float64
	TypeShare     *float64
	// VectorFillOnly overrides search.vector_fill_only: true runs the
	// vector arm only when the keyword arm found fewer pages than asked.
	VectorFillOnly *bool
	PerPage        int // chunks per page, default 1
	// VariantWeight is an expanded search's weight of each variant's list
	// (brain.search_expanded's variant_weight, default 0.5, in (0, 1)).
	VariantWeight *float64
}

// CheckQuery refuses text PostgreSQL cannot store or that is too long to be a
// query, naming the fix.
func CheckQuery(q string) error {
	switch {
	case !utf8.ValidString(q):
		return fmt.Errorf("%w: the query is not valid UTF-8; re-encode it as UTF-8", ErrBadQuery)
	case strings.IndexByte(q, 0) >= 0:
		return fmt.Errorf("%w: the query contains a NUL byte; remove it", ErrBadQuery)
	}
	if n := utf8.RuneCountInString(q); n > MaxQueryChars {
		return fmt.Errorf("%w: the query has %d characters, more than the limit of %d; shorten it", ErrBadQuery, n, MaxQueryChars)
	}
	return nil
}

// Keyword runs keyword-only search (BM25 over the full-text index) at detail
// medium: the `search` tool.
func Keyword(ctx context.Context, db Querier, q string, o Options, t Tuning) (*Response, error) {
	zero := 0.0
	t.VectorWeight = &zero
	r, err := run(ctx, db, q, nil, false, DetailMedium, o, t)
	if err != nil {
		return nil, err
	}
	r.Meta.Tool = "search"
	return r, nil
}

// Hybrid runs brain.hybrid_search: the `query` tool. qvec is the query's
// embedding from a client-side embedder; when it is nil, a 'local' brain
// embeds the query in SQL and any other brain runs keyword-only, reported as
// Meta.VectorEnabled=false.
func Hybrid(ctx context.Context, db Querier, q string, qvec []float32, o Options, t Tuning) (*Response, error) {
	switch o.Detail {
	case "", DetailLow, DetailMedium, DetailHigh:
	default:
		return nil, fmt.Errorf("%w: detail %q is not one of low, medium, high", ErrBadQuery, o.Detail)
	}
	r, err := run(ctx, db, q, qvec, true, o.Detail, o, t)
	if err != nil {
		return nil, err
	}
	stampQuery(r, o)
	return r, nil
}

// stampQuery records in r's meta what a query tool call asked for: the
// tool, whether expansion was enabled and the detail level given.
func stampQuery(r *Response, o Options) {
	r.Meta.Tool = "query"
	expand := o.Expand
	r.Meta.ExpandEnabled = &expand
	if o.Detail != "" {
		d := o.Detail
		r.Meta.Detail = &d
	}
}

// Expanded runs brain.search_expanded: Hybrid over q and its variants
// (rephrasings from package expand), fused with q weighted highest.
// variantVecs, when not nil, holds one query vector per variant (nil entries
// allowed) from a client-side embedder. Meta.ExpansionApplied is what the
// SQL function reports: true only when a variant survived its cleaning and
// was searched.
func Expanded(ctx context.Context, db Querier, q string, qvec []float32, variants []string, variantVecs [][]float32, o Options, t Tuning) (*Response, error) {
	switch o.Detail {
	case "", DetailLow, DetailMedium, DetailHigh:
	default:
		return nil, fmt.Errorf("%w: detail %q is not one of low, medium, high", ErrBadQuery, o.Detail)
	}
	for _, v := range variants {
		if err := CheckQuery(v); err != nil {
			return nil, fmt.Errorf("expansion variant %q: %w", abbreviate(v), err)
		}
	}
	if variants == nil {
		variants = []string{}
	}
	var vecs []*string
	if variantVecs != nil {
		if len(variantVecs) != len(variants) {
			return nil, fmt.Errorf("expanded search: %d variant vectors for %d variants", len(variantVecs), len(variants))
		}
		vecs = make([]*string, len(variantVecs))
		for i, v := range variantVecs {
			if v != nil {
				s := vectorText(v)
				vecs[i] = &s
			}
		}
	}
	r, err := runSQL(ctx, db, expandedSQL, q, qvec, true, o.Detail, o, t, variants, vecs, t.VariantWeight)
	if err != nil {
		return nil, err
	}
	stampQuery(r, o)
	return r, nil
}

// expandedSQL is searchSQL over brain.search_expanded.
const expandedSQL = `
SELECT s.slug, s.source_id, s.page_id, s.chunk_id, s.chunk_index, s.chunk_source, s.title, s.type,
       s.score, s.keyword_rank, s.vector_rank, s.snippet, s.meta
FROM brain.search_expanded($1, $14::text[], $2::text::vector, $15::text[]::vector[], $3, nullif($4, ''), $5, $6, $7, $8, $9, $10, NOT $11, $12, $13, $16) s`

// searchSQL calls the one search entry point; detail resolution, the
// query embedding on a 'local' brain, whether the vector arm ran and what
// the parser did all come back in its meta column, so this client cannot
// disagree with psql.
const searchSQL = `
SELECT s.slug, s.source_id, s.page_id, s.chunk_id, s.chunk_index, s.chunk_source, s.title, s.type,
       s.score, s.keyword_rank, s.vector_rank, s.snippet, s.meta
FROM brain.search($1, $2::text::vector, $3, nullif($4, ''), $5, $6, $7, $8, $9, $10, NOT $11, $12, $13) s`

// sqlMeta is the part of brain.search's meta the client reports.
type sqlMeta struct {
	DetailResolved string         `json:"detail_resolved"`
	VectorEnabled  bool           `json:"vector_enabled"`
	VectorRan      bool           `json:"vector_ran"`
	VectorSkipped  *string        `json:"vector_skipped"`
	KeywordWeight  float64        `json:"keyword_weight"`
	VectorWeight   float64        `json:"vector_weight"`
	RRFK           float64        `json:"rrf_k"`
	Parser         map[string]any `json:"parser"`
	KeywordScan    map[string]any `json:"keyword_scan"`
	VectorIndex    string         `json:"vector_index"`
	// Set by brain.search_expanded only.
	ExpansionApplied bool      `json:"expansion_applied"`
	Withheld         *Withheld `json:"withheld"`
}

func run(ctx context.Context, db Querier, q string, qvec []float32, useVector bool, detail string, o Options, t Tuning) (*Response, error) {
	return runSQL(ctx, db, searchSQL, q, qvec, useVector, detail, o, t)
}

// runSQL runs searchSQL or expandedSQL; extra are the latter's variant
// arguments ($14 to $16).
func runSQL(ctx context.Context, db Querier, sql, q string, qvec []float32, useVector bool, detail string, o Options, t Tuning, extra ...any) (*Response, error) {
	if err := CheckQuery(q); err != nil {
		return nil, err
	}
	lim := o.Limit
	if lim <= 0 {
		lim = 10
	}
	lim = min(lim, MaxLimit)
	var vec *string
	if qvec != nil {
		s := vectorText(qvec)
		vec = &s
	}
	var sources []string
	if len(o.SourceIDs) > 0 {
		sources = o.SourceIDs
	}
	perPage := t.PerPage
	if perPage <= 0 {
		perPage = 1
	}
	start := time.Now()
	args := append([]any{q, vec, lim, detail, sources, perPage,
		t.KeywordWeight, t.VectorWeight, t.RRFK, t.TypeShare, o.NoSnippets, useVector, t.VectorFillOnly}, extra...)
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("searching for %q: %w", abbreviate(q), err)
	}
	resp := &Response{Query: q, Results: []Result{}}
	var meta []byte
	for rows.Next() {
		var r Result
		var slug, src, csrc, title, typ, snip *string
		var pid, cid *int64
		var cidx *int
		var score *float64
		if err := rows.Scan(&slug, &src, &pid, &cid, &cidx, &csrc,
			&title, &typ, &score, &r.KeywordRank, &r.VectorRank, &snip, &meta); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading search results for %q: %w", abbreviate(q), err)
		}
		if slug == nil { // the meta-only row of an empty result
			continue
		}
		r.Slug, r.SourceID, r.PageID, r.ChunkID, r.ChunkIndex = *slug, *src, *pid, *cid, *cidx
		r.ChunkSource, r.Title, r.Type, r.Score = *csrc, *title, *typ, *score
		if snip != nil {
			r.Snippet = *snip
		}
		resp.Results = append(resp.Results, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("searching for %q: %w", abbreviate(q), err)
	}
	resp.Meta.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	var m sqlMeta
	if err := json.Unmarshal(meta, &m); err != nil {
		return nil, fmt.Errorf("reading the meta of the search for %q: %w", abbreviate(q), err)
	}
	resp.Meta.DetailResolved = &m.DetailResolved
	resp.Meta.VectorEnabled = m.VectorEnabled
	resp.Meta.VectorRan = m.VectorRan
	resp.Meta.VectorSkipped = m.VectorSkipped
	resp.Meta.KeywordWeight, resp.Meta.VectorWeight, resp.Meta.RRFK = m.KeywordWeight, m.VectorWeight, m.RRFK
	resp.Meta.Parser = m.Parser
	resp.Meta.KeywordScan = m.KeywordScan
	resp.Meta.VectorIndex = m.VectorIndex
	resp.Meta.ExpansionApplied = m.ExpansionApplied
	if m.Withheld != nil && m.Withheld.Pages > 0 {
		resp.Meta.Withheld = m.Withheld
	}
	return resp, nil
}

// vectorText is pgvector's text form, so no client type registration is needed.
func vectorText(v []float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, f := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

// abbreviate keeps error messages readable for very long queries, and
// free of what the scrubber removes: they are printed and logged.
func abbreviate(q string) string {
	q = scrub.Scrub(q)
	if utf8.RuneCountInString(q) <= 80 {
		return q
	}
	r := []rune(q)
	return string(r[:77]) + "..."
}
