// Package telemetry ships one OpenTelemetry span per MCP tool call over
// OTLP/HTTP. It is off unless OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; off means a nil *Tracer, whose
// methods do nothing, so an unconfigured server pays nothing for it.
// Exporter failures are reported once on stderr and never reach a tool call.
package telemetry

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/pgbrain/pgbrain/internal/scrub"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Environment variables that switch span export on. The exporter reads them
// (and the other standard OTEL_EXPORTER_OTLP_* settings) itself.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// instrumentation names the tracer, as OTel asks of libraries.
const instrumentation = "github.com/pgbrain/pgbrain/internal/telemetry"

// Call is a finished tool call as a span records it. It deliberately has no
// field for the call's arguments: spans can land in dashboards with a wider
// audience than the events file, so arguments never go there.
type Call struct {
	Tool      string
	CallID    string // the audit fingerprint
	SessionID string // the serve process's session id
	Status    string // success | empty | partial | degraded | error | refused
	ErrorKind string
	Start     time.Time
	Duration  time.Duration
	Result    map[string]int64 // counts, exported as pgbrain.result.<key>
}

// Tracer turns calls into spans. A nil *Tracer is valid and records nothing.
type Tracer struct {
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
}

// Options tunes FromEnv. The zero value is right for the server.
type Options struct {
	// Errors receives the one-time report of an export failure; nil
	// discards it.
	Errors io.Writer
	// ServiceVersion is recorded as the service.version resource attribute.
	ServiceVersion string
	// BatchTimeout is how long spans may wait before export; 0 keeps the
	// SDK default.
	BatchTimeout time.Duration
}

// Enabled reports whether the environment (read through getenv) asks for
// span export.
func Enabled(getenv func(string) string) bool {
	return getenv(EnvEndpoint) != "" || getenv(EnvTracesEndpoint) != ""
}

// FromEnv returns a Tracer exporting to the configured OTLP/HTTP endpoint,
// or nil when no endpoint is configured.
func FromEnv(ctx context.Context, getenv func(string) string, opts Options) (*Tracer, error) {
	if !Enabled(getenv) {
		return nil, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("telemetry: configuring the OTLP/HTTP exporter: %w", err)
	}
	return New(exp, opts), nil
}

// New returns a Tracer exporting through exp in batches.
func New(exp sdktrace.SpanExporter, opts Options) *Tracer {
	errs := opts.Errors
	if errs == nil {
		errs = io.Discard
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", "pgbrain")}
	if opts.ServiceVersion != "" {
		attrs = append(attrs, attribute.String("service.version", opts.ServiceVersion))
	}
	var batch []sdktrace.BatchSpanProcessorOption
	if opts.BatchTimeout > 0 {
		batch = append(batch, sdktrace.WithBatchTimeout(opts.BatchTimeout))
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(&quietExporter{SpanExporter: exp, errs: errs}, batch...),
		sdktrace.WithResource(resource.NewSchemaless(attrs...)),
	)
	return &Tracer{provider: tp, tracer: tp.Tracer(instrumentation)}
}

// ToolCall records c as one span named "execute_tool <tool>".
func (t *Tracer) ToolCall(ctx context.Context, c Call) {
	if t == nil {
		return
	}
	// Spans leave the machine: every text attribute goes through the
	// scrubber the events file uses, in case a caller ever puts query text
	// or an error message in one.
	c.Tool, c.CallID, c.SessionID = scrub.Scrub(c.Tool), scrub.Scrub(c.CallID), scrub.Scrub(c.SessionID)
	c.Status, c.ErrorKind = scrub.Scrub(c.Status), scrub.Scrub(c.ErrorKind)
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", c.Tool),
		attribute.String("gen_ai.tool.call.id", c.CallID),
		attribute.String("pgbrain.session.id", c.SessionID),
		attribute.String("pgbrain.status", c.Status),
		attribute.Float64("pgbrain.duration_ms", float64(c.Duration.Microseconds())/1000),
	}
	if c.ErrorKind != "" {
		attrs = append(attrs, attribute.String("pgbrain.error_kind", c.ErrorKind))
	}
	keys := make([]string, 0, len(c.Result))
	for k := range c.Result {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		attrs = append(attrs, attribute.Int64("pgbrain.result."+k, c.Result[k]))
	}
	// The span is created after the call with its real start time: the
	// call's context is not carried across the stdio transport, so there is
	// no parent to attach to while it runs.
	_, span := t.tracer.Start(context.WithoutCancel(ctx), "execute_tool "+c.Tool,
		trace.WithTimestamp(c.Start),
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs...))
	switch c.Status {
	case "error", "refused":
		span.SetStatus(codes.Error, c.ErrorKind)
	default:
		span.SetStatus(codes.Ok, "")
	}
	span.End(trace.WithTimestamp(c.Start.Add(c.Duration)))
}

// Shutdown exports what is still queued, waiting until ctx is done.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	if err := t.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("telemetry: flushing spans: %w", err)
	}
	return nil
}

// quietExporter reports the first export failure and then swallows
// failures, so the SDK's process-wide error handler never prints one line
// per batch while a collector is down.
type quietExporter struct {
	sdktrace.SpanExporter
	errs io.Writer
	once sync.Once
}

func (e *quietExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := e.SpanExporter.ExportSpans(ctx, spans); err != nil {
		e.once.Do(func() {
			fmt.Fprintf(e.errs, "pgbrain: telemetry: exporting spans failed: %v (further export errors are not reported; tool calls are not affected)\n", err)
		})
	}
	return nil
}
