package telemetry_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/pgbrain/pgbrain/internal/telemetry"
)

// receiver is a minimal OTLP/HTTP trace endpoint that decodes each export.
type receiver struct {
	mu     sync.Mutex
	spans  []*tracepb.Span
	paths  []string
	status int
	// arrived, when set, gets a value for every export received.
	arrived chan struct{}
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var ex collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &ex); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.paths = append(r.paths, req.URL.Path)
	if r.arrived != nil {
		r.arrived <- struct{}{}
	}
	if r.status != 0 {
		http.Error(w, "refused by test", r.status)
		return
	}
	for _, rs := range ex.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			r.spans = append(r.spans, ss.Spans...)
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Write(out)
}

func attrs(s *tracepb.Span) map[string]*commonpb.AnyValue {
	m := map[string]*commonpb.AnyValue{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestDisabledWithoutEndpoint(t *testing.T) {
	tr, err := telemetry.FromEnv(context.Background(), func(string) string { return "" }, telemetry.Options{})
	if err != nil || tr != nil {
		t.Fatalf("FromEnv without endpoint = %v, %v; want nil, nil", tr, err)
	}
	// A nil tracer must be usable as is.
	tr.ToolCall(context.Background(), telemetry.Call{Tool: "query", Status: "success"})
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{telemetry.EnvEndpoint, telemetry.EnvTracesEndpoint} {
		if !telemetry.Enabled(func(k string) string {
			if k == env {
				return "http://127.0.0.1:4318"
			}
			return ""
		}) {
			t.Errorf("%s set: Enabled = false", env)
		}
	}
}

func TestSpansExported(t *testing.T) {
	rec := &receiver{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	t.Setenv(telemetry.EnvEndpoint, srv.URL)
	t.Setenv(telemetry.EnvTracesEndpoint, "")

	ctx := context.Background()
	tr, err := telemetry.FromEnv(ctx, os.Getenv, telemetry.Options{ServiceVersion: "test"})
	if err != nil || tr == nil {
		t.Fatalf("FromEnv = %v, %v", tr, err)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	calls := []telemetry.Call{
		{Tool: "query", CallID: "fp1", SessionID: "s-1", Status: "partial", Start: start,
			Duration: 1500 * time.Microsecond, Result: map[string]int64{"results": 3, "withheld": 1}},
		{Tool: "get_page", CallID: "fp2", SessionID: "s-1", Status: "refused", ErrorKind: "pii_blocked",
			Start: start, Duration: time.Millisecond},
		{Tool: "search", CallID: "fp3", SessionID: "s-1", Status: "error", ErrorKind: "invalid_argument",
			Start: start, Duration: time.Millisecond},
		// Text attributes go through the scrubber.
		{Tool: "list_pages", CallID: "fp4", SessionID: "s-1", Status: "error",
			ErrorKind: "bad 4111 1111 1111 1111 for bob@example.com", Start: start, Duration: time.Millisecond},
	}
	for _, c := range calls {
		tr.ToolCall(ctx, c)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := tr.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.spans) != len(calls) {
		t.Fatalf("receiver got %d spans, want %d", len(rec.spans), len(calls))
	}
	if rec.paths[0] != "/v1/traces" {
		t.Errorf("export path %q, want /v1/traces", rec.paths[0])
	}
	byName := map[string]*tracepb.Span{}
	for _, s := range rec.spans {
		byName[s.Name] = s
	}
	cases := []struct {
		name      string
		status    tracepb.Status_StatusCode
		message   string
		callID    string
		errorKind string
		results   map[string]int64
	}{
		{"execute_tool query", tracepb.Status_STATUS_CODE_OK, "", "fp1", "", map[string]int64{"results": 3, "withheld": 1}},
		{"execute_tool get_page", tracepb.Status_STATUS_CODE_ERROR, "pii_blocked", "fp2", "pii_blocked", nil},
		{"execute_tool search", tracepb.Status_STATUS_CODE_ERROR, "invalid_argument", "fp3", "invalid_argument", nil},
		{"execute_tool list_pages", tracepb.Status_STATUS_CODE_ERROR, "bad [REDACTED] for [REDACTED]", "fp4", "bad [REDACTED] for [REDACTED]", nil},
	}
	for _, tc := range cases {
		s := byName[tc.name]
		if s == nil {
			t.Errorf("no span %q", tc.name)
			continue
		}
		if s.Status.GetCode() != tc.status || s.Status.GetMessage() != tc.message {
			t.Errorf("%s: status %v %q, want %v %q", tc.name, s.Status.GetCode(), s.Status.GetMessage(), tc.status, tc.message)
		}
		a := attrs(s)
		if a["gen_ai.operation.name"].GetStringValue() != "execute_tool" ||
			a["gen_ai.tool.call.id"].GetStringValue() != tc.callID ||
			a["pgbrain.session.id"].GetStringValue() != "s-1" ||
			a["pgbrain.error_kind"].GetStringValue() != tc.errorKind {
			t.Errorf("%s: attributes %v", tc.name, a)
		}
		if got := a["gen_ai.tool.name"].GetStringValue(); "execute_tool "+got != tc.name {
			t.Errorf("%s: gen_ai.tool.name %q", tc.name, got)
		}
		for k, v := range tc.results {
			if a["pgbrain.result."+k].GetIntValue() != v {
				t.Errorf("%s: pgbrain.result.%s = %v, want %d", tc.name, k, a["pgbrain.result."+k], v)
			}
		}
		for k := range a {
			if strings.Contains(k, "arg") || strings.Contains(k, "query") {
				t.Errorf("%s: unexpected attribute %s", tc.name, k)
			}
		}
		if got := time.Duration(s.EndTimeUnixNano - s.StartTimeUnixNano); s.StartTimeUnixNano != uint64(start.UnixNano()) || got <= 0 {
			t.Errorf("%s: start %d, duration %v", tc.name, s.StartTimeUnixNano, got)
		}
	}
	if d := attrs(byName["execute_tool query"])["pgbrain.duration_ms"].GetDoubleValue(); d != 1.5 {
		t.Errorf("pgbrain.duration_ms = %v, want 1.5", d)
	}
}

func TestExportFailureReportedOnce(t *testing.T) {
	rec := &receiver{status: http.StatusBadRequest, arrived: make(chan struct{}, 16)}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	t.Setenv(telemetry.EnvEndpoint, "")
	t.Setenv(telemetry.EnvTracesEndpoint, srv.URL+"/custom/traces")

	var errs bytes.Buffer
	ctx := context.Background()
	tr, err := telemetry.FromEnv(ctx, os.Getenv, telemetry.Options{Errors: &errs, BatchTimeout: 10 * time.Millisecond})
	if err != nil || tr == nil {
		t.Fatalf("FromEnv = %v, %v", tr, err)
	}
	for i := 0; i < 3; i++ {
		tr.ToolCall(ctx, telemetry.Call{Tool: "search", Status: "success", Start: time.Now()})
		// Each span goes out, and fails, in its own batch.
		select {
		case <-rec.arrived:
		case <-time.After(30 * time.Second):
			t.Fatalf("span %d was never exported", i)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := tr.Shutdown(sctx); err != nil {
		t.Fatalf("Shutdown after failed exports: %v", err)
	}
	rec.mu.Lock()
	n := len(rec.paths)
	path := ""
	if n > 0 {
		path = rec.paths[0]
	}
	rec.mu.Unlock()
	if n != 3 || path != "/custom/traces" {
		t.Fatalf("receiver saw %d exports (first at %q), want 3 at /custom/traces", n, path)
	}
	if got := strings.Count(errs.String(), "\n"); got != 1 || !strings.Contains(errs.String(), "exporting spans failed") {
		t.Errorf("stderr = %q, want exactly one report", errs.String())
	}
}
