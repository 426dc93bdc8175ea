package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/client/audit"
	"github.com/pgbrain/pgbrain/client/capture"
	"github.com/pgbrain/pgbrain/client/events"
	"github.com/pgbrain/pgbrain/client/mcpserver"
	"github.com/pgbrain/pgbrain/client/refusal"
	"github.com/pgbrain/pgbrain/client/telemetry"
)

var eventsPathFlag = &cli.StringFlag{
	Name:  "events-path",
	Usage: "events file (default: $" + events.EnvPath + ", else $PGBRAIN_HOME/events.jsonl)",
}

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the brain to agents over MCP (stdio)",
		Description: "Tools: query, search, get_page, list_pages, list_sources (read-only).\n" +
			"Each call is written to the audit log (in the background, drained at\n" +
			"exit) and the events file; spans go to OTLP/HTTP when\n" +
			"OTEL_EXPORTER_OTLP_ENDPOINT is set. See docs/mcp.md.",
		Flags: []cli.Flag{
			eventsPathFlag,
			&cli.BoolFlag{Name: "no-events", Usage: "write no events file"},
			&cli.StringFlag{Name: "pii-block", Usage: "PII categories to refuse besides credential, payment_card and government_id (CSV; '' turns refusal off)"},
			&cli.BoolFlag{Name: "no-audit", Usage: "do not record tool calls in the audit log"},
		},
		Action: runServe,
	}
}

func runServe(c *cli.Context) error {
	stderr := c.App.ErrWriter
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
		auditor = audit.NewAsync(audit.NewWriter(b.Pool, stderr), audit.AsyncOptions{})
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
	srv, err := mcpserver.New(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "pgbrain: serving over MCP on stdio (session %s)\n", srv.SessionID())
	runErr := srv.Run(c.Context, &mcpserver.StdioTransport{In: c.App.Reader, Out: c.App.Writer})

	if auditor != nil {
		// Every answered call must have its row once the process is gone.
		// Run has normally flushed already; Close stops the writer and
		// reports on stderr any rows the database did not take in time.
		drain, cancel := context.WithTimeout(context.Background(), audit.DefaultDrainTimeout)
		_ = auditor.Close(drain)
		cancel()
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
