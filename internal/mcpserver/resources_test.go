package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/mcpserver"
)

// allPages is every page of b as SOURCE/SLUG, in list order.
func allPages(t *testing.T, b *brain.Brain) []string {
	t.Helper()
	var out []string
	if err := b.ListPages(context.Background(), brain.ListFilter{}, func(p brain.PageSummary) error {
		out = append(out, p.SourceID+"/"+p.Slug)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSampleBrainThroughCursors: an agent sees every page of the sample
// brain (1,127 pages) through list_pages cursors and through resources/list
// cursors, each exactly once, and can read any of them as a resource.
func TestSampleBrainThroughCursors(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	if _, err := ingest.ImportDir(context.Background(), b, "../../sample/brain", ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	seed(t, b) // finance/card: refused by the floor policy
	want := allPages(t, b)
	if len(want) < 1000 {
		t.Fatalf("the sample brain has %d pages; expected the 1,127 of sample/brain", len(want))
	}
	h := start(t, b, nil)

	var got []string
	cursor, calls := "", 0
	for {
		args := map[string]any{"limit": 100}
		if cursor != "" {
			args["cursor"] = cursor
		}
		raw := h.callRaw(t, "list_pages", args)
		var out struct {
			Status string `json:"status"`
			Pages  []struct {
				SourceID string `json:"source_id"`
				Slug     string `json:"slug"`
			} `json:"pages"`
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal(raw, &out); err != nil || out.Status != "success" {
			t.Fatalf("list_pages: %s (%v)", raw, err)
		}
		for _, p := range out.Pages {
			got = append(got, p.SourceID+"/"+p.Slug)
		}
		calls++
		if out.NextCursor == "" {
			break
		}
		cursor = out.NextCursor
	}
	if !slices.Equal(got, want) {
		t.Errorf("list_pages through cursors: %d pages, want %d, in order, each once", len(got), len(want))
	}
	if wantCalls := (len(want) + 99) / 100; calls != wantCalls {
		t.Errorf("%d list_pages calls, want %d", calls, wantCalls)
	}

	var uris []string
	rc := ""
	for {
		res, err := h.cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: rc})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			if r.MIMEType != "text/markdown" || r.Name == "" {
				t.Fatalf("resource %+v", r)
			}
			uris = append(uris, r.URI)
		}
		if rc = res.NextCursor; rc == "" {
			break
		}
	}
	var wantURIs []string
	for _, p := range want {
		src, slug, _ := strings.Cut(p, "/")
		wantURIs = append(wantURIs, mcpserver.ResourceURI(src, slug))
	}
	if !slices.Equal(uris, wantURIs) {
		t.Errorf("resources/list through cursors: %d resources, want %d", len(uris), len(wantURIs))
	}

	// Any page reads as markdown, the same text get_page returns.
	for _, i := range []int{0, len(want) / 2, len(want) - 1} {
		src, slug, _ := strings.Cut(want[i], "/")
		if slug == "finance/card" {
			continue
		}
		res, err := h.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: wantURIs[i]})
		if err != nil {
			t.Fatalf("read %s: %v", wantURIs[i], err)
		}
		page := h.callTool(t, "get_page", map[string]any{"slug": slug, "source": src})
		if len(res.Contents) != 1 || res.Contents[0].MIMEType != "text/markdown" || page.Page == nil || res.Contents[0].Text != page.Page.Body {
			t.Errorf("read %s: %+v differs from get_page", wantURIs[i], res.Contents)
		}
	}
	templates, err := h.cs.ListResourceTemplates(context.Background(), nil)
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "pgbrain://{source}/{+slug}" {
		t.Errorf("templates %+v, %v", templates, err)
	}
}

// callRaw calls a tool and returns its structured content as JSON.
func (h *harness) callRaw(t *testing.T, name string, args any) json.RawMessage {
	t.Helper()
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestResourceReadsFollowGetPageRules(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	h := start(t, b, nil)
	cases := []struct {
		uri     string
		code    int64
		audited bool // reached the server; the SDK refuses URIs its template cannot match
	}{
		{"pgbrain://default/finance/card", jsonrpc.CodeInternalError, true}, // refused: payment_card
		{"pgbrain://default/no/such-page", mcp.CodeResourceNotFound, true},
		{"pgbrain://Default/people/alice", jsonrpc.CodeInvalidParams, true},
		{"pgbrain://default/People/../x", jsonrpc.CodeInvalidParams, true},
		{"pgbrain://default/people/alice?x=1", jsonrpc.CodeInvalidParams, true},
		{"pgbrain://default/数据/🧠", mcp.CodeResourceNotFound, false},
	}
	audited := 1 // the successful read below
	for _, tc := range cases {
		if tc.audited {
			audited++
		}
	}
	for _, tc := range cases {
		_, err := h.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: tc.uri})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != tc.code {
			t.Errorf("read %s: %v, want code %d", tc.uri, err, tc.code)
		}
	}
	if _, err := h.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "pgbrain://default/people/alice"}); err != nil {
		t.Errorf("read alice: %v", err)
	}
	h.stop(t)
	// Reads are audited like tool calls, refusals included.
	var reads, refused int
	for _, r := range auditRows(t, b) {
		if r.Tool == "read_resource" {
			reads++
			if r.Status == "refused" {
				refused++
			}
		}
	}
	if reads != audited || refused != 1 {
		t.Errorf("%d read_resource audit rows (%d refused), want %d (1 refused)", reads, refused, audited)
	}
}

// TestCapabilitiesAsImplemented: the server advertises tools and resources
// without list-change notifications or subscriptions, and refuses what it
// does not advertise.
func TestCapabilitiesAsImplemented(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	h := start(t, b, nil)
	caps, _ := json.Marshal(h.cs.InitializeResult().Capabilities)
	if string(caps) != `{"resources":{},"tools":{}}` {
		t.Errorf("capabilities %s", caps)
	}
	// Over the wire, each unadvertised method is "method not found".
	w, answers, _ := stdioServer(t, b, &mcpserver.StdioTransport{}, context.Background())
	send(t, w, initFrame, initializedFrame)
	next(t, answers)
	for i, m := range []string{
		`"logging/setLevel","params":{"level":"debug"}`,
		`"prompts/list"`,
		`"prompts/get","params":{"name":"x"}`,
		`"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}`,
		`"resources/subscribe","params":{"uri":"pgbrain://default/x"}`,
	} {
		send(t, w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%s}`, i+10, m))
		if a := next(t, answers); a.Error == nil || a.Error.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s answered %s %+v, want -32601", m, a.Result, a.Error)
		}
	}
}

// TestProgressForLongCalls: a call that runs past ProgressEvery sends
// progress notifications while it runs when the client gave a progress
// token; a quick one, or one without a token, sends none.
func TestProgressForLongCalls(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	pages := newSlowPages(b, 0) // list_sources runs until given a permit
	srvCfg := func(c *mcpserver.Config) { c.Pages = pages; c.ProgressEvery = 400 * time.Millisecond }
	var mu sync.Mutex
	notes := map[any]int{}
	noted := make(chan struct{}, 1)
	h := startWith(t, b, srvCfg, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			notes[r.Params.ProgressToken]++
			mu.Unlock()
			select {
			case noted <- struct{}{}:
			default:
			}
		},
	})
	count := func(token any) int {
		mu.Lock()
		defer mu.Unlock()
		return notes[token]
	}
	waitNotes := func(token any, n int) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for count(token) < n {
			select {
			case <-noted:
			case <-timeout:
				t.Fatalf("%d progress notifications for %v while the call ran, want %d", count(token), token, n)
			}
		}
	}
	call := func(name string, token any) <-chan error {
		p := &mcp.CallToolParams{Name: name}
		if token != nil {
			p.SetProgressToken(token)
		}
		done := make(chan error, 1)
		go func() {
			_, err := h.cs.CallTool(context.Background(), p)
			done <- err
		}()
		return done
	}
	// A long call with a token hears from the server while it runs.
	long := call("list_sources", "tok-long")
	pages.waitStarted(t)
	waitNotes("tok-long", 2)
	pages.permit <- struct{}{}
	if err := <-long; err != nil {
		t.Fatal(err)
	}
	// A long call without a token runs while a second long call (with a
	// token) is told twice that it still runs; meanwhile a quick call with
	// a token finishes. Notifications arrive in order, so once the second
	// call's have arrived, any for the others would have too.
	silent := call("list_sources", nil)
	pages.waitStarted(t)
	witness := call("list_sources", "tok-witness")
	pages.waitStarted(t)
	if err := <-call("list_pages", "tok-quick"); err != nil {
		t.Fatal(err)
	}
	waitNotes("tok-witness", 2)
	pages.permit <- struct{}{}
	pages.permit <- struct{}{}
	for _, done := range []<-chan error{silent, witness} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for token, n := range notes {
		if token != "tok-long" && token != "tok-witness" {
			t.Errorf("%d progress notifications for token %v (a quick call, or a call without a token)", n, token)
		}
	}
}

// TestSchemasAndValidationAgree generates edge inputs from every tool's
// input schema (null, empty, at and past each length in multi-byte
// characters, at and past each bound) and requires the server to accept
// exactly what the schema accepts.
func TestSchemasAndValidationAgree(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	h := start(t, b, nil)
	tools, err := h.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]map[string]any{
		"query":        {"query": "widget"},
		"search":       {"query": "widget"},
		"get_page":     {"slug": "people/alice"},
		"list_pages":   {},
		"list_sources": {},
	}
	checked := 0
	for _, tool := range tools.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		var schema jsonschema.Schema
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		resolved, err := schema.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolving the input schema: %v", tool.Name, err)
		}
		rawOut, _ := json.Marshal(tool.OutputSchema)
		var outSchema jsonschema.Schema
		if err := json.Unmarshal(rawOut, &outSchema); err != nil {
			t.Fatal(err)
		}
		resolvedOut, err := outSchema.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolving the output schema: %v", tool.Name, err)
		}
		for name, prop := range schema.Properties {
			for _, v := range edgeValues(name, prop) {
				args := map[string]any{}
				for k, x := range base[tool.Name] {
					args[k] = x
				}
				args[name] = v
				// Round-trip through JSON: the validator sees what the server sees.
				var inst map[string]any
				j, _ := json.Marshal(args)
				_ = json.Unmarshal(j, &inst)
				schemaOK := resolved.Validate(inst) == nil
				res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: args})
				if err != nil {
					t.Fatalf("%s %s: %v", tool.Name, j, err)
				}
				out, _ := json.Marshal(res.StructuredContent)
				var a answer
				_ = json.Unmarshal(out, &a)
				var outInst any
				_ = json.Unmarshal(out, &outInst)
				if err := resolvedOut.Validate(outInst); err != nil {
					t.Errorf("%s %.200s: the answer breaks the output schema: %v (%s)", tool.Name, j, err, clipOut(out))
				}
				serverOK := a.Error == nil || a.Error.Kind != "invalid_argument"
				if schemaOK != serverOK {
					t.Errorf("%s %.200s: schema accepts=%v, server accepts=%v (%s)", tool.Name, j, schemaOK, serverOK, clipOut(out))
				}
				checked++
			}
		}
	}
	if checked < 40 {
		t.Errorf("only %d edge inputs checked", checked)
	}
}

func clipOut(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// edgeValues are the values at the edges of what prop allows.
// A cursor is opaque: only its type and emptiness are schema matters; the
// server alone knows which strings it gave out.
func edgeValues(name string, prop *jsonschema.Schema) []any {
	if name == "cursor" {
		return []any{nil, "", 7}
	}
	vals := []any{nil}
	typ := prop.Type
	switch typ {
	case "string":
		vals = append(vals, "", 7)
		if prop.MaxLength != nil && prop.Pattern == "" {
			n := *prop.MaxLength
			// Multi-byte characters: maxLength counts characters.
			vals = append(vals, strings.Repeat("é", n), strings.Repeat("数", n+1), strings.Repeat("🧠", n))
		}
		if prop.Pattern != "" {
			vals = append(vals, "UPPER", "a b", strings.Repeat("a", 63), strings.Repeat("a", 64))
		}
		for _, e := range prop.Enum {
			vals = append(vals, e)
		}
		if len(prop.Enum) > 0 {
			vals = append(vals, "LOW")
		}
	case "integer":
		vals = append(vals, "5", 2.5)
		if prop.Minimum != nil {
			vals = append(vals, int(*prop.Minimum), int(*prop.Minimum)-1)
		}
		if prop.Maximum != nil {
			vals = append(vals, int(*prop.Maximum), int(*prop.Maximum)+1)
		}
	case "array":
		vals = append(vals, []any{}, "x", []any{"default"}, []any{""}, []any{"Bad Id"})
		if prop.MaxItems != nil {
			many := make([]any, *prop.MaxItems+1)
			for i := range many {
				many[i] = fmt.Sprintf("s%d", i)
			}
			vals = append(vals, many[:*prop.MaxItems], many)
		}
	}
	return vals
}

// TestOutputSchemasUseSingleTypes: output schemas give one type per value,
// except the scalars whose null carries meaning.
func TestOutputSchemasUseSingleTypes(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	h := start(t, b, nil)
	tools, err := h.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	nullable := []string{"meta.detail", "meta.detail_resolved", "meta.expand_enabled", "meta.vector_skipped", "results[].keyword_rank", "results[].vector_rank"}
	for _, tool := range tools.Tools {
		raw, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		var walk func(s *jsonschema.Schema, path string)
		walk = func(s *jsonschema.Schema, path string) {
			if s == nil {
				return
			}
			if len(s.Types) > 0 && !slices.Contains(nullable, strings.TrimPrefix(path, ".")) {
				t.Errorf("%s: %s has the type list %v", tool.Name, path, s.Types)
			}
			for k, p := range s.Properties {
				walk(p, path+"."+k)
			}
			walk(s.Items, path+"[]")
		}
		walk(&s, "")
	}
}
