package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/audit"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/mcpserver"
	"github.com/pgbrain/pgbrain/internal/refusal"
	"github.com/pgbrain/pgbrain/internal/scrub"
	"github.com/pgbrain/pgbrain/internal/telemetry"
	"github.com/pgbrain/pgbrain/internal/tokens"
)

var eventsPathFlag = &cli.StringFlag{
	Name:  "events-path",
	Usage: "events file (default: $" + events.EnvPath + ", else $PGBRAIN_HOME/events.jsonl)",
}

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the brain to agents over MCP (stdio, or streamable HTTP with --http)",
		Description: "Tools: query, search, get_page, list_pages, list_sources (read-only).\n" +
			"Each call is written to the audit log (in the background, drained at\n" +
			"exit) and the events file; spans go to OTLP/HTTP when\n" +
			"OTEL_EXPORTER_OTLP_ENDPOINT is set. See docs/mcp.md.",
		Flags: []cli.Flag{
			eventsPathFlag,
			&cli.BoolFlag{Name: "no-events", Usage: "write no events file"},
			&cli.StringFlag{Name: "pii-block", Usage: "PII categories to refuse besides credential, payment_card and government_id (CSV; '' turns refusal off)"},
			&cli.BoolFlag{Name: "no-audit", Usage: "do not record tool calls in the audit log"},
			&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on `ADDR` (host:port, endpoint /mcp) instead of stdio; needs a token from 'pgbrain token create'"},
			&cli.StringFlag{Name: "tls-cert", Usage: "with --http: serve HTTPS with this certificate (PEM)"},
			&cli.StringFlag{Name: "tls-key", Usage: "with --http: the certificate's private key (PEM)"},
			&cli.StringSliceFlag{Name: "allow-origin", Usage: "with --http: a browser Origin allowed to call (repeatable); other origins get 403"},
			&cli.StringSliceFlag{Name: "allow-host", Usage: "with --http: the only Host header values accepted (repeatable; default any, except rebinding to loopback)"},
			&cli.Float64Flag{Name: "rate", Value: mcpserver.DefaultRate, Usage: "with --http: requests per second per token (token bucket; 0 < rate)"},
			&cli.IntFlag{Name: "burst", Value: mcpserver.DefaultBurst, Usage: "with --http: requests per token at once before --rate applies"},
			&cli.BoolFlag{Name: "json-response", Usage: "with --http: answer with application/json rather than an SSE stream"},
			&cli.BoolFlag{Name: "audit-checkpoint", Usage: "at stop, verify the audit chain and write a keyed checkpoint of its head (see 'pgbrain audit checkpoint')"},
			&cli.BoolFlag{Name: "no-auth", Usage: "with --http on a loopback address only: accept requests without a token (tests, the conformance suite)"},
		},
		Action: runServe,
	}
}

func runServe(c *cli.Context) error {
	// Everything serve prints may quote an agent's query: one scrubber for
	// it all, the one the events file uses.
	stderr := scrub.NewWriter(c.App.ErrWriter)
	if c.NArg() != 0 {
		return usageError("serve: takes no arguments")
	}
	if c.Bool("no-events") && c.IsSet("events-path") {
		return usageError("serve: --no-events and --events-path contradict each other; drop one")
	}
	policy, err := refusal.FromFlag(c.String("pii-block"), c.IsSet("pii-block"), stderr)
	if err != nil {
		return usageError("serve: %v", err)
	}
	httpOpts, err := httpOptions(c)
	if err != nil {
		return err
	}
	noAudit := c.Bool("no-audit")
	if noAudit {
		fmt.Fprintln(stderr, "pgbrain: serve: --no-audit: tool calls will not be recorded in the audit log")
		if c.IsSet("pii-block") {
			fmt.Fprintln(stderr, "pgbrain: warning: --pii-block with --no-audit: refusals are enforced but will not be recorded")
		}
	}
	home, err := homeDir(c)
	if err != nil {
		return err
	}
	b, err := openExistingBrain(c)
	if err != nil {
		return err
	}
	defer b.Close()
	emb, err := clientEmbedder(b)
	if err != nil {
		return err
	}

	cfg := mcpserver.Config{
		DB: b.Pool, Pages: b, Dim: b.Settings.Dim, Policy: policy,
		Version: version, Errors: stderr,
	}
	if emb != nil {
		cfg.Embedder = emb
	}
	var auditor *audit.Async
	if !noAudit {
		// Rows are written in the background, off the calls' latency, and
		// drained below before the pool closes.
		// Rows the database cannot take are spooled and chained, in call
		// order, when it is back; rows left from an earlier run go first.
		aw := audit.NewWriter(b.Pool, stderr).WithSpool(audit.NewSpool(home))
		if _, err := aw.DrainSpool(c.Context); err != nil {
			fmt.Fprintf(stderr, "pgbrain: serve: %v (the spooled rows stay and are retried)\n", err)
		}
		auditor = audit.NewAsync(aw, audit.AsyncOptions{})
		cfg.Audit = auditor
	}
	if !c.Bool("no-events") {
		path := events.ResolvePath(c.String("events-path"), os.Getenv(events.EnvPath), home)
		w, err := events.Open(path, events.Options{Errors: stderr})
		if err != nil {
			// The event stream is lossy by design: serve without it.
			fmt.Fprintf(stderr, "pgbrain: serve: no events will be written: %v\n", err)
		} else {
			defer w.Close()
			cfg.Events = w
		}
	}
	rec := capture.FromEnv(b.Pool, home, stderr)
	if rec.Enabled() {
		cfg.Capture = rec
	}
	tracer, err := telemetry.FromEnv(c.Context, os.Getenv, telemetry.Options{Errors: stderr, ServiceVersion: version})
	if err != nil {
		fmt.Fprintf(stderr, "pgbrain: serve: spans will not be exported: %v\n", err)
	}
	if tracer != nil {
		cfg.Spans = tracer
	}
	// The query tool's expand argument uses the chat model of the
	// environment (or, without one, cached expansions only); its usage is
	// reported when the server stops.
	meter, err := newMeter(c)
	if err != nil {
		// A broken price table must not stop the server: it only prices.
		fmt.Fprintf(stderr, "pgbrain: serve: model usage will be priced with the default table: %v\n", err)
		meter = budget.NewMeter(nil)
	}
	if cfg.Expander, err = newExpander(b.Pool, meter, expand.DefaultVariants); err != nil {
		fmt.Fprintf(stderr, "pgbrain: serve: query expansion will use cached expansions only: %v\n", err)
		cfg.Expander = &expand.Expander{DB: b.Pool, ModelName: chatModelName(), Hits: meter}
	}
	defer reportUsage(stderr, meter)
	srv, err := mcpserver.New(cfg)
	if err != nil {
		return err
	}
	var runErr error
	if addr := c.String("http"); addr != "" {
		if !c.Bool("no-auth") {
			httpOpts.Tokens = dbTokens{b.Pool}
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("serve: listening on %s: %w", addr, err)
		}
		scheme := "http"
		if httpOpts.TLSCert != "" {
			scheme = "https"
		}
		fmt.Fprintf(stderr, "pgbrain: serving over MCP on %s://%s/mcp (session %s)\n", scheme, ln.Addr(), srv.SessionID())
		runErr = srv.ServeHTTP(c.Context, ln, httpOpts)
	} else {
		fmt.Fprintf(stderr, "pgbrain: serving over MCP on stdio (session %s)\n", srv.SessionID())
		runErr = srv.Run(c.Context, &mcpserver.StdioTransport{In: c.App.Reader, Out: c.App.Writer})
	}

	if auditor != nil {
		// Every answered call must have its row once the process is gone.
		// Run has normally flushed already; Close stops the writer and
		// reports on stderr any rows the database did not take in time.
		drain, cancel := context.WithTimeout(context.Background(), audit.DefaultDrainTimeout)
		_ = auditor.Close(drain)
		cancel()
		if c.Bool("audit-checkpoint") {
			serveCheckpoint(c, home, stderr)
		}
	}
	// Flush what the calls left behind with a fresh context: c.Context is
	// already cancelled after SIGINT or SIGTERM.
	flush, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = rec.Close(flush) // reports on stderr itself
	if err := tracer.Shutdown(flush); err != nil {
		fmt.Fprintf(stderr, "pgbrain: serve: %v\n", err)
	}
	return runErr
}

// serveCheckpoint anchors the chain at stop; a failure is reported, not
// returned: the calls were answered and their rows written. serve's own
// pool is pgbrain_agent's, which may append audit rows but not read them,
// so the chain is read through a short-lived pgbrain_auditor pool.
func serveCheckpoint(c *cli.Context, home string, stderr io.Writer) {
	key, err := auditKey(c, home, true)
	if err == nil {
		err = writeServeCheckpoint(c, home, key, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pgbrain: serve: no audit checkpoint written: %v\n", err)
	}
}

func writeServeCheckpoint(c *cli.Context, home string, key []byte, stderr io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u, _, err := databaseURL(c)
	if err != nil {
		return err
	}
	ab, err := brain.OpenAs(ctx, u, accessFor(c, brain.RoleAuditor))
	if err != nil {
		return fmt.Errorf("connecting as %s to read the audit chain: %w", brain.RoleAuditor, err)
	}
	defer ab.Close()
	path := audit.CheckpointPath("", os.Getenv, home)
	cp, err := audit.WriteCheckpoint(ctx, ab.Pool, path, key, time.Now())
	if err == nil && cp.HeadID > 0 {
		fmt.Fprintf(stderr, "pgbrain: serve: audit checkpoint at row %d in %s\n", cp.HeadID, path)
	}
	return err
}

// httpOptions checks the --http flags before anything is opened.
func httpOptions(c *cli.Context) (mcpserver.HTTPOptions, error) {
	o := mcpserver.HTTPOptions{
		AllowedOrigins: c.StringSlice("allow-origin"), AllowedHosts: c.StringSlice("allow-host"),
		Rate: c.Float64("rate"), Burst: c.Int("burst"), JSONResponse: c.Bool("json-response"),
		TLSCert: c.String("tls-cert"), TLSKey: c.String("tls-key"),
	}
	addr := c.String("http")
	if addr == "" {
		for _, f := range []string{"tls-cert", "tls-key", "allow-origin", "allow-host", "rate", "burst", "json-response", "no-auth"} {
			if c.IsSet(f) {
				return o, usageError("serve: --%s applies only with --http ADDR", f)
			}
		}
		return o, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return o, usageError("serve: --http %q: give host:port, e.g. 127.0.0.1:8080 or :8443", addr)
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return o, usageError("serve: --tls-cert and --tls-key go together; give both or neither")
	}
	if o.Rate <= 0 || o.Burst < 1 {
		return o, usageError("serve: --rate must be above 0 and --burst at least 1")
	}
	if c.Bool("no-auth") && !mcpserver.IsLoopback(addr) {
		return o, usageError("serve: --no-auth is allowed only on a loopback address (127.0.0.1, [::1], localhost), not %q; create a token with 'pgbrain token create NAME'", addr)
	}
	return o, nil
}

// dbTokens checks bearer tokens against brain.mcp_tokens.
type dbTokens struct{ db tokens.DB }

func (d dbTokens) VerifyToken(ctx context.Context, secret string) (string, bool, error) {
	t, err := tokens.Verify(ctx, d.db, secret)
	if errors.Is(err, tokens.ErrUnknown) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return t.Name, true, nil
}
