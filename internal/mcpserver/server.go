// Package mcpserver serves a brain to agents over the Model Context
// Protocol. Agents are untrusted: the five tools only read, every input is
// validated before any database work, and every answer carries a status
// (success, empty, partial, degraded, error, refused) in its structured
// content with a text copy. Around each call the server writes one audit row,
// one event line, one span and, for query and search, one eval capture;
// none of those can fail the call.
package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/audit"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/refusal"
	"github.com/pgbrain/pgbrain/internal/scrub"
	"github.com/pgbrain/pgbrain/internal/search"
	"github.com/pgbrain/pgbrain/internal/telemetry"
)

// DB is the database handle the search tools and the PII lookups use; a
// *pgxpool.Pool satisfies it.
type DB interface {
	search.Querier
	refusal.Querier
}

// Pages reads pages and sources; *brain.Brain satisfies it.
type Pages interface {
	GetPage(ctx context.Context, source, slug string) (*brain.Page, error)
	ListPages(ctx context.Context, f brain.ListFilter, fn func(brain.PageSummary) error) error
	Sources(ctx context.Context) ([]brain.Source, error)
}

// Embedder embeds the query text when the brain's embedder runs in the
// client rather than in SQL.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Auditor appends one audit row per call and returns its fingerprint, also
// when the row could not be written; *audit.Async (rows written in the
// background, what serve uses) and *audit.Writer (synchronous) satisfy it.
// The server ignores the error: the auditor reports its failures.
type Auditor interface {
	Record(ctx context.Context, e audit.Entry) (string, error)
}

// stopper is a transport that can stop reading and still answer the calls
// it read (StdioTransport).
type stopper interface{ Stop() }

// auditFlusher is an Auditor that writes in the background: Run flushes it
// after the last call, so that every answered call has its row when Run
// returns. *audit.Async satisfies it.
type auditFlusher interface {
	Flush(ctx context.Context) error
}

// EventSink receives one event per call and per lifecycle step;
// *events.Writer satisfies it.
type EventSink interface {
	Write(ev events.Event)
}

// Capturer records query and search answers as eval candidates;
// *capture.Recorder satisfies it.
type Capturer interface {
	Record(ctx context.Context, resp *search.Response, c capture.Caller)
}

// Spans records one span per call; *telemetry.Tracer satisfies it.
type Spans interface {
	ToolCall(ctx context.Context, c telemetry.Call)
}

// Config wires a Server. DB and Pages are required; every other dependency
// may be nil, which switches that concern off.
type Config struct {
	DB       DB
	Pages    Pages
	Embedder Embedder // nil when the brain embeds in SQL
	Dim      int      // the brain's vector dimension, checked on client embeddings
	Policy   refusal.Policy
	Audit    Auditor
	Events   EventSink
	Capture  Capturer
	Spans    Spans
	// Expander expands the query tool's questions that ask for it; nil
	// answers them unexpanded, with a note in meta.expansion.
	Expander *expand.Expander
	// SessionID identifies this server process in events, audit rows and
	// spans; empty means a fresh random UUID.
	SessionID string
	Version   string
	// Errors receives problems the server cannot report anywhere else,
	// scrubbed (internal/scrub); nil discards them.
	Errors io.Writer
	// DrainTimeout bounds how long Run waits for calls still running when
	// the connection ends; 0 means 5 seconds.
	DrainTimeout time.Duration
	// ProgressEvery is how often a call that runs long tells a client that
	// asked for progress (by sending a progress token) that it still runs;
	// 0 means every second.
	ProgressEvery time.Duration
}

// Server is one MCP server session over one transport.
type Server struct {
	cfg      Config
	mcp      *mcp.Server
	inflight sync.WaitGroup
}

// New builds the server and registers its tools.
func New(cfg Config) (*Server, error) {
	if cfg.DB == nil || cfg.Pages == nil {
		return nil, errors.New("mcpserver: Config needs DB and Pages")
	}
	if cfg.SessionID == "" {
		cfg.SessionID = newSessionID()
	}
	if cfg.Errors == nil {
		cfg.Errors = io.Discard
	}
	// Operator messages may quote a query or a database error that does:
	// they go through the same scrubber as the events file.
	cfg.Errors = scrub.NewWriter(cfg.Errors)
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = 5 * time.Second
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = time.Second
	}
	version := cfg.Version
	if version == "" {
		version = "dev"
	}
	s := &Server{cfg: cfg}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "pgbrain", Version: version}, &mcp.ServerOptions{
		Instructions: "pgbrain is a read-only brain of markdown pages. Use query for questions " +
			"(hybrid keyword and vector search), search for exact keywords, get_page to read " +
			"a page by slug, list_pages and list_sources to browse. Every answer has a status; " +
			"partial means some results were withheld by the PII policy.",
		// Exactly what is implemented: fixed tools and page resources (no
		// list-change notifications, no subscriptions), no logging, prompts
		// or completion.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
	})
	if err := s.register(); err != nil {
		return nil, err
	}
	s.registerResources()
	return s, nil
}

// SessionID is the id this server stamps on its events, audit rows and spans.
func (s *Server) SessionID() string { return s.cfg.SessionID }

// Run serves t until the client closes the connection or ctx is cancelled
// (how SIGINT and SIGTERM arrive). It writes server_start before the first
// request is read and server_stop on every way out, after the calls still
// running have finished or DrainTimeout passed. A client that hangs up and a
// cancelled ctx are clean shutdowns and return nil. When the auditor writes
// in the background, Run also waits (within the same DrainTimeout) for the
// audit rows of every call it answered.
func (s *Server) Run(ctx context.Context, t mcp.Transport) (err error) {
	s.lifecycle(events.SubtypeServerStart, s.startMessage("serving over MCP"))
	stopMsg := "client closed the connection"
	defer func() {
		p := recover()
		if p != nil {
			stopMsg = fmt.Sprintf("server panicked: %v", p)
		}
		s.lifecycle(events.SubtypeServerStop, stopMsg)
		if p != nil {
			panic(p)
		}
	}()
	runCtx := ctx
	if st, ok := t.(stopper); ok {
		// The transport ends input itself and answers every call it already
		// read before closing, so the session must outlive ctx.
		runCtx = context.WithoutCancel(ctx)
		defer context.AfterFunc(ctx, st.Stop)()
	}
	runErr := s.mcp.Run(runCtx, t)
	s.finish(ctx, time.Now().Add(s.cfg.DrainTimeout))
	switch {
	case ctx.Err() != nil:
		stopMsg = "stopped: " + stopCause(ctx)
		return nil
	case runErr == nil || errors.Is(runErr, io.EOF) || errors.Is(runErr, io.ErrClosedPipe):
		return nil
	default:
		stopMsg = "connection failed: " + runErr.Error()
		return fmt.Errorf("serving MCP: %w", runErr)
	}
}

// stopCause names why ctx ended, preferring a cause set by the caller
// (for example the signal that arrived).
func stopCause(ctx context.Context) string {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c.Error()
	}
	return "interrupted"
}

// finish waits for the calls still running and then for their audit rows,
// both within deadline.
func (s *Server) finish(ctx context.Context, deadline time.Time) {
	if !s.drain(deadline) {
		fmt.Fprintf(s.cfg.Errors, "pgbrain: serve: tool calls still running after %v; stopping without them\n", s.cfg.DrainTimeout)
	}
	if f, ok := s.cfg.Audit.(auditFlusher); ok {
		// Same budget as the calls: shutting down stays bounded. Whatever is
		// still queued is the audit writer's to drain or report on Close.
		fctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
		if err := f.Flush(fctx); err != nil {
			fmt.Fprintf(s.cfg.Errors, "pgbrain: serve: %v\n", err)
		}
		cancel()
	}
}

func (s *Server) drain(deadline time.Time) bool {
	done := make(chan struct{})
	go func() { s.inflight.Wait(); close(done) }()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// startMessage marks a session that writes no audit rows, so that 'pgbrain
// audit verify' does not count its calls as missing rows.
func (s *Server) startMessage(msg string) string {
	if s.cfg.Audit == nil {
		return msg + " " + audit.AuditOffMarker
	}
	return msg
}

func (s *Server) lifecycle(subtype, msg string) {
	if s.cfg.Events == nil {
		return
	}
	s.cfg.Events.Write(events.Event{
		Timestamp:       time.Now(),
		ServerSessionID: s.cfg.SessionID,
		Kind:            events.KindServerEvent,
		EventSubtype:    subtype,
		Message:         msg,
	})
}

// call collects what a tool learns while it runs, for the audit row, the
// event and the span.
type call struct {
	touched []string         // PII categories the call touched or attempted
	result  map[string]int64 // counts for result_summary and span attributes
}

// enveloped is every tool output: each embeds Envelope.
type enveloped interface{ envelope() *Envelope }

// handle runs one tool call and does the bookkeeping around it.
func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest, tool, costClass string, run func(context.Context, *call, json.RawMessage) enveloped) (*mcp.CallToolResult, error) {
	var raw json.RawMessage
	caller := "unknown"
	if req != nil {
		if req.Params != nil {
			raw = req.Params.Arguments
			if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
				defer s.reportProgress(ctx, req.Session, tok, tool)()
			}
		}
		caller = callerOf(req.Extra, req.Session)
	}
	return toResult(s.bookkeep(ctx, caller, raw, tool, costClass, run))
}

// reportProgress sends a progress notification every ProgressEvery until
// the returned stop is called; calls that finish sooner send none. The
// total is unknown, so progress counts the notifications.
func (s *Server) reportProgress(ctx context.Context, ss *mcp.ServerSession, token any, tool string) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(s.cfg.ProgressEvery)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				// A client that went away only costs a failed write.
				_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(n),
					Message: fmt.Sprintf("%s still running after %ds", tool, time.Duration(n)*s.cfg.ProgressEvery/time.Second),
				})
			}
		}
	}()
	return func() { close(done); <-finished }
}

// bookkeep runs one call (a tool, or a resource read) and writes its audit
// row, event and span.
func (s *Server) bookkeep(ctx context.Context, caller string, raw json.RawMessage, tool, costClass string, run func(context.Context, *call, json.RawMessage) enveloped) enveloped {
	s.inflight.Add(1)
	defer s.inflight.Done()
	start := time.Now()
	c := &call{}
	out := s.protect(ctx, c, raw, run)
	env := out.envelope()
	dur := time.Since(start)

	entry := audit.Entry{
		SessionID:     s.cfg.SessionID,
		Caller:        caller,
		Tool:          tool,
		Status:        env.Status,
		PIICategories: c.touched,
		CostClass:     costClass,
	}
	if env.Status == StatusRefused {
		entry.RefusalReason = env.Error.Kind
		entry.CostClass = "refused"
	}
	// Record returns the fingerprint (the span's call id) at once, whether or
	// not, and however late, the row is written; the auditor reports its own
	// failures and the call goes on regardless.
	var fp string
	if s.cfg.Audit != nil {
		fp, _ = s.cfg.Audit.Record(ctx, entry)
	} else {
		fp = audit.Fingerprint(entry)
	}
	errKind := ""
	if env.Error != nil {
		errKind = env.Error.Kind
	}
	if s.cfg.Events != nil {
		s.cfg.Events.Write(events.Event{
			Timestamp:       start,
			ServerSessionID: s.cfg.SessionID,
			Kind:            events.KindToolCall,
			ToolName:        tool,
			ArgsSummary:     argsSummary(raw),
			Status:          events.Status(env.Status),
			ErrorKind:       errKind,
			DurationMS:      events.DurationMS(dur),
			ResultSummary:   c.result,
		})
	}
	if s.cfg.Spans != nil {
		s.cfg.Spans.ToolCall(ctx, telemetry.Call{
			Tool: tool, CallID: fp, SessionID: s.cfg.SessionID, Status: env.Status,
			ErrorKind: errKind, Start: start, Duration: dur, Result: c.result,
		})
	}
	return out
}

// protect turns a panic in a tool into an internal error answer, so one bad
// call cannot take the server down.
func (s *Server) protect(ctx context.Context, c *call, raw json.RawMessage, run func(context.Context, *call, json.RawMessage) enveloped) (out enveloped) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(s.cfg.Errors, "pgbrain: serve: tool call panicked: %v\n", p)
			e := failure(KindInternal, "the server failed while answering; the problem was logged")
			out = &e
		}
	}()
	return run(ctx, c, raw)
}

// toResult renders the answer as structured content plus the same JSON as
// text, for clients that only read text.
func toResult(out enveloped) (*mcp.CallToolResult, error) {
	emptySlices(out)
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding the answer: %w", err)
	}
	st := out.envelope().Status
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
		IsError:           st == StatusError || st == StatusRefused,
	}, nil
}

// callerOf is, over HTTP, "token:" and the bearer token's name (the
// identity the server checked); over stdio the client's name from
// initialize; else "unknown".
func callerOf(extra *mcp.RequestExtra, ss *mcp.ServerSession) string {
	if extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
		return "token:" + extra.TokenInfo.UserID
	}
	if ss == nil {
		return "unknown"
	}
	p := ss.InitializeParams()
	if p == nil || p.ClientInfo == nil {
		return "unknown"
	}
	// The name is the client's own claim: scrubbed like any text an agent
	// sends (it is stored in every audit row and event), and kept within
	// what the audit log's CHECK accepts (printable, at most 256 bytes) so
	// the row is not lost.
	name := scrub.Scrub(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(p.ClientInfo.Name, "")))
	for len(name) > maxCallerBytes {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" {
		return "unknown"
	}
	return name
}

const maxCallerBytes = 256

// argsSummary is the arguments as the agent sent them; the event writer
// redacts them before they reach disk.
func argsSummary(raw json.RawMessage) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return map[string]any{"unparsed_bytes": len(raw)}
	}
	return m
}

// newSessionID returns a random (version 4) UUID.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
