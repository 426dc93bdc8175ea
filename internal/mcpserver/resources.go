package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/markdown"
)

// Pages are resources named pgbrain://SOURCE/SLUG (the slug keeps its
// slashes), text/markdown, read under the same refusal rules as get_page.
const (
	resourceScheme   = "pgbrain"
	resourceTemplate = "pgbrain://{source}/{+slug}"
	resourcePageSize = 100
	toolReadResource = "read_resource" // the audit log's name for resources/read
)

// ResourceURI names a page as a resource.
func ResourceURI(source, slug string) string {
	return resourceScheme + "://" + source + "/" + slug
}

// parseResourceURI is ResourceURI's inverse; it checks both parts.
func parseResourceURI(uri string) (source, slug string, err error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != resourceScheme || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", "", fmt.Errorf("%q is not a page resource; use pgbrain://SOURCE/SLUG", clip(uri))
	}
	source, slug = u.Host, strings.TrimPrefix(u.Path, "/")
	if err := checkSource("source", source); err != nil {
		return "", "", fmt.Errorf("resource %q: %w", clip(uri), err)
	}
	if !markdown.ValidSlug(slug) {
		return "", "", fmt.Errorf("resource %q: %q is not a page slug", clip(uri), clip(slug))
	}
	return source, slug, nil
}

// pageCursor is the position after which a list continues. It is opaque
// to clients: base64url of this JSON.
type pageCursor struct {
	Source string `json:"s"`
	Slug   string `json:"g"`
}

func encodeCursor(p brain.PageSummary) string {
	b, _ := json.Marshal(pageCursor{p.SourceID, p.Slug})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(c string) (pageCursor, error) {
	var pc pageCursor
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		err = json.Unmarshal(b, &pc)
	}
	if err != nil || !sourceRE.MatchString(pc.Source) || !markdown.ValidSlug(pc.Slug) {
		return pc, errors.New(`argument "cursor" is not a cursor this server gave out; pass next_cursor from the previous answer unchanged`)
	}
	return pc, nil
}

// listPageRange lists up to limit pages after cursor c ("" for the first),
// and the cursor of the next range ("" when this one is the last).
func (s *Server) listPageRange(ctx context.Context, f brain.ListFilter, c string, limit int) ([]brain.PageSummary, string, error) {
	if c != "" {
		pc, err := decodeCursor(c)
		if err != nil {
			return nil, "", err
		}
		f.After.Source, f.After.Slug = pc.Source, pc.Slug
	}
	f.Limit = limit + 1 // one more tells whether another range follows
	pages := []brain.PageSummary{}
	if err := s.cfg.Pages.ListPages(ctx, f, func(p brain.PageSummary) error { pages = append(pages, p); return nil }); err != nil {
		return nil, "", err
	}
	next := ""
	if len(pages) > limit {
		pages = pages[:limit]
		next = encodeCursor(pages[limit-1])
	}
	return pages, next, nil
}

// registerResources adds the page template and takes over resources/list,
// which lists pages from the database rather than from a fixed set.
func (s *Server) registerResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: resourceTemplate, Name: "page", Title: "A brain page",
		Description: "A page of the brain as markdown; SOURCE is a source id (list_sources), SLUG a page slug.",
		MIMEType:    "text/markdown",
	}, s.readResource)
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "resources/list":
				p, _ := req.GetParams().(*mcp.ListResourcesParams)
				return s.listResources(ctx, p)
			case "logging/setLevel", "prompts/list", "prompts/get", "completion/complete",
				"resources/subscribe", "resources/unsubscribe":
				// Not advertised, so not answered as if it were.
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
					Message: fmt.Sprintf("method %q is not supported: pgbrain offers tools and resources only", method)}
			}
			return next(ctx, method, req)
		}
	})
}

func (s *Server) listResources(ctx context.Context, p *mcp.ListResourcesParams) (*mcp.ListResourcesResult, error) {
	cursor := ""
	if p != nil {
		cursor = p.Cursor
	}
	pages, next, err := s.listPageRange(ctx, brain.ListFilter{}, cursor, resourcePageSize)
	if err != nil {
		if _, bad := decodeCursor(cursor); bad != nil && cursor != "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor: pass nextCursor from the previous answer unchanged"}
		}
		_, msg := s.storeFailure(ctx, "resources/list", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	}
	out := &mcp.ListResourcesResult{Resources: make([]*mcp.Resource, 0, len(pages)), NextCursor: next}
	for _, pg := range pages {
		title := pg.Title
		if title == "" {
			title = pg.Slug
		}
		out.Resources = append(out.Resources, &mcp.Resource{
			URI: ResourceURI(pg.SourceID, pg.Slug), Name: pg.Slug, Title: title, MIMEType: "text/markdown",
		})
	}
	return out, nil
}

// readResource reads a page through the same code as get_page, so the
// refusal policy, the audit row, the event and the span are the same; a
// refused or missing page is a JSON-RPC error, as resources have no
// status envelope.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	var page *brain.Page
	out := s.bookkeep(ctx, callerOf(req.Extra, req.Session), nil, toolReadResource, costRead, func(ctx context.Context, c *call, _ json.RawMessage) enveloped {
		source, slug, err := parseResourceURI(uri)
		if err != nil {
			return fail[GetPageOutput](KindInvalidArgument, err.Error())
		}
		o := s.getPage(ctx, c, GetPageInput{Slug: slug, Source: source})
		page = o.Page
		return o
	})
	env := out.envelope()
	switch {
	case env.Status == StatusSuccess && page != nil:
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: uri, MIMEType: "text/markdown", Text: page.Body,
		}}}, nil
	case env.Error != nil && env.Error.Kind == KindNotFound:
		return nil, mcp.ResourceNotFoundError(uri)
	case env.Error != nil && env.Error.Kind == KindInvalidArgument:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: env.Error.Message}
	case env.Error != nil:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: env.Error.Kind + ": " + env.Error.Message}
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the page could not be read"}
}
