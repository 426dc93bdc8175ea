package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/markdown"
	"github.com/pgbrain/pgbrain/internal/pii"
	"github.com/pgbrain/pgbrain/internal/refusal"
	"github.com/pgbrain/pgbrain/internal/search"
)

// Tool names.
const (
	ToolQuery       = "query"
	ToolSearch      = "search"
	ToolGetPage     = "get_page"
	ToolListPages   = "list_pages"
	ToolListSources = "list_sources"
)

// Cost classes recorded in the audit log (refused calls record "refused").
const (
	costSearch = "search"
	costRead   = "read"
)

// QueryInput is the query tool's arguments.
type QueryInput struct {
	Query   string   `json:"query" jsonschema:"the question, in natural language"`
	Limit   *int     `json:"limit,omitempty" jsonschema:"results to return, 1-100 (default 10)"`
	Detail  string   `json:"detail,omitempty" jsonschema:"low (compiled truth only), medium or high (everything, no source boost); default: detected from the query"`
	Sources []string `json:"sources,omitempty" jsonschema:"only search these source ids"`
	Expand  bool     `json:"expand,omitempty" jsonschema:"also search rephrasings of the question proposed by the server's chat model, fused with it (slower; off by default)"`
}

// SearchInput is the search tool's arguments.
type SearchInput struct {
	Query   string   `json:"query" jsonschema:"keywords; quotes make a phrase and a leading - excludes a word (not before a single character or a number)"`
	Limit   *int     `json:"limit,omitempty" jsonschema:"results to return, 1-100 (default 10)"`
	Sources []string `json:"sources,omitempty" jsonschema:"only search these source ids"`
}

// GetPageInput is the get_page tool's arguments.
type GetPageInput struct {
	Slug   string `json:"slug" jsonschema:"the page slug, e.g. people/alice"`
	Source string `json:"source,omitempty" jsonschema:"the source id (default: default)"`
}

// ListPagesInput is the list_pages tool's arguments.
type ListPagesInput struct {
	Source string `json:"source,omitempty" jsonschema:"only pages of this source id"`
	Type   string `json:"type,omitempty" jsonschema:"only pages of this type, e.g. person"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"pages to return, 1-100 (default 100)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor from the previous answer, to continue the list"`
}

// ListSourcesInput is the list_sources tool's (empty) arguments.
type ListSourcesInput struct{}

// SearchOutput answers query and search.
type SearchOutput struct {
	Envelope
	Results []search.Result `json:"results" jsonschema:"ranked results, best first"`
	Meta    *search.Meta    `json:"meta,omitempty" jsonschema:"how the search ran"`
}

// GetPageOutput answers get_page.
type GetPageOutput struct {
	Envelope
	Page *brain.Page `json:"page,omitempty" jsonschema:"the page, when status is success"`
}

// ListPagesOutput answers list_pages.
type ListPagesOutput struct {
	Envelope
	Pages []brain.PageSummary `json:"pages" jsonschema:"pages ordered by source and slug"`
	// NextCursor continues the list; absent on the last range.
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass as cursor to get the pages that follow; absent when there are no more"`
}

// ListSourcesOutput answers list_sources.
type ListSourcesOutput struct {
	Envelope
	Sources []brain.Source `json:"sources" jsonschema:"every source with its page count"`
}

// Limits the schemas advertise and the handlers enforce.
const (
	defaultSearchLimit = 10
	defaultListLimit   = 100
	maxLimit           = search.MaxLimit
	maxSources         = 100
	maxTypeLen         = 100
)

var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}

func (s *Server) register() error {
	regs := []error{
		addTool(s, &mcp.Tool{Name: ToolQuery, Title: "Ask the brain",
			Description: "Hybrid search (keywords and meaning, fused) over the brain's pages. Use it for questions."},
			costSearch, shapeQuery, QueryInput.check, s.query),
		addTool(s, &mcp.Tool{Name: ToolSearch, Title: "Keyword search",
			Description: "Full-text keyword search over the brain's pages. Use it for exact names and terms."},
			costSearch, shapeSearch, SearchInput.check, s.search),
		addTool(s, &mcp.Tool{Name: ToolGetPage, Title: "Read a page",
			Description: "Read one page (title, body, timeline, frontmatter) by its slug."},
			costRead, shapeGetPage, GetPageInput.check, s.getPage),
		addTool(s, &mcp.Tool{Name: ToolListPages, Title: "List pages",
			Description: "List page slugs and titles, optionally of one source or type, 100 at a time; pass next_cursor back as cursor for the rest."},
			costRead, shapeListPages, ListPagesInput.check, s.listPages),
		addTool(s, &mcp.Tool{Name: ToolListSources, Title: "List sources",
			Description: "List the brain's sources with their page counts."},
			costRead, func(*jsonschema.Schema) {}, ListSourcesInput.check, s.listSources),
	}
	return errors.Join(regs...)
}

// outPtr lets addTool build an Out whose envelope it can fill in.
type outPtr[Out any] interface {
	*Out
	enveloped
}

// addTool registers a tool whose arguments are decoded and checked here
// rather than by the SDK, so that bad arguments still get an answer with a
// status and an error kind.
func addTool[In, Out any, P outPtr[Out]](s *Server, t *mcp.Tool, cost string, shape func(*jsonschema.Schema),
	check func(In) error, h func(context.Context, *call, In) P) error {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("mcpserver: input schema of %s: %w", t.Name, err)
	}
	shape(in)
	noEmptyStrings(in)
	out, err := jsonschema.ForType(reflect.TypeFor[Out](), nil)
	if err != nil {
		return fmt.Errorf("mcpserver: output schema of %s: %w", t.Name, err)
	}
	singleTypes(out)
	t.InputSchema, t.OutputSchema, t.Annotations = in, out, readOnly
	s.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.handle(ctx, req, t.Name, cost, func(ctx context.Context, c *call, raw json.RawMessage) enveloped {
			var args In
			err := decodeArgs(raw, &args)
			if err == nil {
				err = check(args)
			}
			if err != nil {
				var o Out
				p := P(&o)
				*p.envelope() = failure(KindInvalidArgument, err.Error())
				return p
			}
			return h(ctx, c, args)
		})
	})
	return nil
}

// fail builds an Out carrying a failure envelope.
func fail[Out any, P outPtr[Out]](kind, msg string) P {
	var o Out
	p := P(&o)
	*p.envelope() = failure(kind, msg)
	return p
}

// storeFailure maps an error from the database to an answer kind. Details
// go to the operator's stderr, not to the agent.
func (s *Server) storeFailure(ctx context.Context, tool string, err error) (string, string) {
	if ctx.Err() != nil {
		return KindCancelled, "the call was cancelled"
	}
	fmt.Fprintf(s.cfg.Errors, "pgbrain: serve: %s: %v\n", tool, err)
	return KindInternal, "the brain could not answer; try again later"
}

func (s *Server) query(ctx context.Context, c *call, in QueryInput) *SearchOutput {
	return s.runSearch(ctx, c, ToolQuery, in.Query, search.Options{
		Limit: limitOr(in.Limit, defaultSearchLimit), Detail: in.Detail, SourceIDs: in.Sources, Expand: in.Expand})
}

func (s *Server) search(ctx context.Context, c *call, in SearchInput) *SearchOutput {
	return s.runSearch(ctx, c, ToolSearch, in.Query, search.Options{
		Limit: limitOr(in.Limit, defaultSearchLimit), SourceIDs: in.Sources})
}

func (s *Server) runSearch(ctx context.Context, c *call, tool, q string, o search.Options) *SearchOutput {
	// Personal data in the question itself is refused before it reaches the
	// database or the capture table.
	c.touched = pii.Classify(q)
	if blocked := s.cfg.Policy.Blocks(c.touched); len(blocked) > 0 {
		return fail[SearchOutput](KindPIIBlocked, fmt.Sprintf(
			"the query contains %s data, which this server refuses to search for; remove it and ask again",
			strings.Join(blocked, ", ")))
	}
	var resp *search.Response
	var err error
	if tool == ToolQuery {
		var variantVecs expand.Embedder
		if s.cfg.Embedder != nil {
			variantVecs = s.cfg.Embedder.Embed
		}
		resp, err = expand.Search(ctx, s.cfg.DB, s.cfg.Expander, q, s.embed(ctx, q), variantVecs, o, search.Tuning{})
		if err == nil && resp.Meta.Expansion != nil && resp.Meta.Expansion.Note != "" {
			fmt.Fprintf(s.cfg.Errors, "pgbrain: serve: query: %s\n", resp.Meta.Expansion.Note)
		}
	} else {
		resp, err = search.Keyword(ctx, s.cfg.DB, q, o, search.Tuning{})
	}
	if errors.Is(err, search.ErrBadQuery) {
		return fail[SearchOutput](KindInvalidArgument, err.Error())
	}
	if err != nil {
		return fail[SearchOutput](s.storeFailure(ctx, tool, err))
	}
	kept, withheld, err := s.withhold(ctx, c, resp.Results)
	if err != nil {
		// Without the page categories the policy cannot be applied: fail
		// closed rather than return pages that may be blocked.
		return fail[SearchOutput](s.storeFailure(ctx, tool, err))
	}
	resp.Results = kept
	// Pages the database's row security hid from this role (pgbrain_agent:
	// blocked, unclassified or stale): counted by brain.search itself.
	if dw := resp.Meta.Withheld; dw != nil && dw.Pages > 0 {
		if withheld == nil {
			withheld = &Withheld{Categories: []string{}}
		}
		withheld.Count += dw.Pages
		withheld.Categories = union(withheld.Categories, dw.Categories)
		c.touched = union(c.touched, dw.Categories)
	}
	// What is captured is what the agent saw, so withheld slugs never reach
	// the eval tables.
	if s.cfg.Capture != nil {
		s.cfg.Capture.Record(ctx, resp, capture.Caller{Remote: true})
	}
	c.result = map[string]int64{"results": int64(len(kept))}
	out := &SearchOutput{Results: kept, Meta: &resp.Meta}
	switch {
	case withheld != nil:
		c.result["withheld"] = int64(withheld.Count)
		out.Status, out.Withheld = StatusPartial, withheld
	case tool == ToolQuery && resp.Meta.VectorSkipped != nil && *resp.Meta.VectorSkipped == "no_vector":
		// No query vector could be made (a remote embedder failed): the
		// search ran keyword-only against the caller's wish. A DBA's
		// vector weight of 0 is a choice, not a degradation.
		out.Status = StatusDegraded
	case len(kept) == 0:
		out.Status = StatusEmpty
	default:
		out.Status = StatusSuccess
	}
	return out
}

// embed returns the query vector when the client embeds; nil means the
// brain embeds in SQL or, after a failure, that the search runs
// keyword-only (reported as degraded).
func (s *Server) embed(ctx context.Context, q string) []float32 {
	if s.cfg.Embedder == nil {
		return nil
	}
	vs, err := s.cfg.Embedder.Embed(ctx, []string{q})
	if err != nil || len(vs) != 1 || (s.cfg.Dim > 0 && len(vs[0]) != s.cfg.Dim) {
		if err == nil {
			err = errors.New("the embedder returned an unusable vector")
		}
		fmt.Fprintf(s.cfg.Errors, "pgbrain: serve: embedding a query failed, searching by keyword only: %v\n", err)
		return nil
	}
	return vs[0]
}

// withhold drops results from pages whose PII categories the policy
// blocks. Every category of every hit counts as touched, withheld or not,
// so the audit row shows what the call came near.
func (s *Server) withhold(ctx context.Context, c *call, rs []search.Result) ([]search.Result, *Withheld, error) {
	ids := make([]int64, 0, len(rs))
	for _, r := range rs {
		if !slices.Contains(ids, r.PageID) {
			ids = append(ids, r.PageID)
		}
	}
	all, err := refusal.PageCategories(ctx, s.cfg.DB, ids)
	if err != nil {
		return nil, nil, err
	}
	c.touched = union(c.touched, all)
	if len(s.cfg.Policy.Blocks(all)) == 0 {
		return rs, nil, nil
	}
	// Some page is blocked: find which, one page at a time (at most 100).
	blockedPages := map[int64][]string{}
	for _, id := range ids {
		cats, err := refusal.PageCategories(ctx, s.cfg.DB, []int64{id})
		if err != nil {
			return nil, nil, err
		}
		if b := s.cfg.Policy.Blocks(cats); len(b) > 0 {
			blockedPages[id] = b
		}
	}
	kept := make([]search.Result, 0, len(rs))
	w := &Withheld{Categories: []string{}}
	for _, r := range rs {
		if b, ok := blockedPages[r.PageID]; ok {
			w.Count++
			w.Categories = union(w.Categories, b)
			continue
		}
		kept = append(kept, r)
	}
	return kept, w, nil
}

func (s *Server) getPage(ctx context.Context, c *call, in GetPageInput) *GetPageOutput {
	source := in.Source
	if source == "" {
		source = "default"
	}
	// An agent may send the slug decomposed (NFD); stored slugs are NFC.
	in.Slug = markdown.NormalizeSlug(in.Slug)
	p, err := s.cfg.Pages.GetPage(ctx, source, in.Slug)
	if errors.Is(err, brain.ErrPageNotFound) {
		// Row security hides blocked and unclassified pages from the
		// agent role: say which, rather than that the page is missing.
		if msg, cats, aerr := s.pageAccess(ctx, source, in.Slug); aerr != nil {
			return fail[GetPageOutput](s.storeFailure(ctx, ToolGetPage, aerr))
		} else if msg != "" {
			c.touched = cats
			return fail[GetPageOutput](KindPIIBlocked, msg)
		}
		return fail[GetPageOutput](KindNotFound, fmt.Sprintf(
			"no page %q in source %q; use search or list_pages to find slugs", in.Slug, source))
	}
	if err != nil {
		return fail[GetPageOutput](s.storeFailure(ctx, ToolGetPage, err))
	}
	cats, err := refusal.PageCategories(ctx, s.cfg.DB, []int64{p.ID})
	if err != nil {
		return fail[GetPageOutput](s.storeFailure(ctx, ToolGetPage, err))
	}
	c.touched = cats
	if blocked := s.cfg.Policy.Blocks(cats); len(blocked) > 0 {
		return fail[GetPageOutput](KindPIIBlocked, fmt.Sprintf(
			"page %q holds %s data, which this server does not release", in.Slug, strings.Join(blocked, ", ")))
	}
	c.result = map[string]int64{"pages": 1, "chunks": int64(p.Chunks), "body_bytes": int64(len(p.Body))}
	return &GetPageOutput{Envelope: Envelope{Status: StatusSuccess}, Page: p}
}

// pageAccess explains why row security hides an existing page (a refusal
// message and the blocked categories), or returns "" when the page does
// not exist or is not hidden.
func (s *Server) pageAccess(ctx context.Context, source, slug string) (string, []string, error) {
	var state string
	var blocked []string
	err := s.cfg.DB.QueryRow(ctx, `SELECT state, blocked FROM brain.page_access($1, $2)`, source, slug).Scan(&state, &blocked)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("reading the access state of page %s: %w", slug, err)
	}
	switch state {
	case "blocked":
		return fmt.Sprintf("page %q holds %s data, which this server does not release", slug, strings.Join(blocked, ", ")), blocked, nil
	case "unclassified", "stale":
		what := "has not been classified for personal data"
		if state == "stale" {
			what = "changed since it was classified for personal data"
		}
		return fmt.Sprintf("page %q %s, so it is withheld until an operator runs 'pgbrain pii scan'", slug, what), []string{}, nil
	}
	return "", nil, nil
}

func (s *Server) listPages(ctx context.Context, c *call, in ListPagesInput) *ListPagesOutput {
	pages, next, err := s.listPageRange(ctx, brain.ListFilter{Source: in.Source, Type: in.Type}, in.Cursor, limitOr(in.Limit, defaultListLimit))
	if err != nil {
		return fail[ListPagesOutput](s.storeFailure(ctx, ToolListPages, err))
	}
	c.result = map[string]int64{"pages": int64(len(pages))}
	return &ListPagesOutput{Envelope: Envelope{Status: statusOf(len(pages))}, Pages: pages, NextCursor: next}
}

func (s *Server) listSources(ctx context.Context, c *call, _ ListSourcesInput) *ListSourcesOutput {
	srcs, err := s.cfg.Pages.Sources(ctx)
	if err != nil {
		return fail[ListSourcesOutput](s.storeFailure(ctx, ToolListSources, err))
	}
	if srcs == nil {
		srcs = []brain.Source{}
	}
	c.result = map[string]int64{"sources": int64(len(srcs))}
	return &ListSourcesOutput{Envelope: Envelope{Status: statusOf(len(srcs))}, Sources: srcs}
}

func statusOf(n int) string {
	if n == 0 {
		return StatusEmpty
	}
	return StatusSuccess
}

func limitOr(l *int, def int) int {
	if l == nil {
		return def
	}
	return *l
}

// union returns the sorted, distinct union of a and b.
func union(a, b []string) []string {
	out := append(append([]string{}, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// singleTypes replaces the ["null", T] type lists the schema generator
// writes for pointers and slices with T, where the answer never holds a
// null: optional fields are left out rather than null, and arrays are
// always arrays (emptySlices). Only required scalars whose null means
// something (a rank the result has no part in, a detail not set) keep
// ["null", T]. Some clients handle type lists poorly.
func singleTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for name, p := range s.Properties {
		if len(p.Types) == 2 && slices.Contains(p.Types, "null") {
			other := p.Types[0]
			if other == "null" {
				other = p.Types[1]
			}
			if other == "array" || other == "object" || !slices.Contains(s.Required, name) {
				p.Types, p.Type = nil, other
			}
		}
		singleTypes(p)
	}
	singleTypes(s.Items)
}

// emptySlices sets the nil slice fields of the struct out points to (an
// answer) to empty ones, so that arrays are never null on the wire.
func emptySlices(out any) {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	v = v.Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.IsNil() && f.CanSet() {
			f.Set(reflect.MakeSlice(f.Type(), 0, 0))
		}
	}
}
