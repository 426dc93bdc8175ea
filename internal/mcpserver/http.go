package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/scrub"
)

// TokenVerifier maps a bearer token's secret to the token's name; ok is
// false for an unknown or revoked token. err is for failures to check.
type TokenVerifier interface {
	VerifyToken(ctx context.Context, secret string) (name string, ok bool, err error)
}

// Defaults of HTTPOptions.
const (
	DefaultRate  = 50.0 // requests per second per token
	DefaultBurst = 100
)

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	// Tokens checks bearer tokens; every request needs a valid one (401
	// otherwise). Nil serves without authentication, which cmd/pgbrain
	// allows only on a loopback address (for the conformance suite).
	Tokens TokenVerifier
	// AllowedOrigins are the browser origins (scheme://host[:port]) allowed
	// to call; a request with any other Origin header gets 403. Requests
	// without Origin (non-browser clients) are not affected.
	AllowedOrigins []string
	// AllowedHosts, when set, are the only Host header values accepted
	// (403 otherwise). Requests reaching a loopback listener with a
	// non-loopback Host are refused in any case (DNS rebinding).
	AllowedHosts []string
	// Rate and Burst size each token's bucket: Rate requests per second
	// on average, Burst at once; past it the answer is 429. 0 means
	// DefaultRate / DefaultBurst; a negative Rate switches limiting off.
	Rate  float64
	Burst int
	// JSONResponse answers with application/json instead of an SSE stream
	// (no progress notifications then).
	JSONResponse bool
	// TLSCert and TLSKey, both set, serve HTTPS.
	TLSCert, TLSKey string
}

// Handler is the MCP endpoint with Origin/Host checks, authentication and
// rate limits in front of the SDK's streamable HTTP handler. It runs
// stateless: every POST carries its own request, and the answers reach
// tools through the same code as on stdio.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: opts.JSONResponse})
	h = scrubRefusals(h)
	h = limitRate(h, opts.Rate, opts.Burst)
	if opts.Tokens != nil {
		verify := func(ctx context.Context, secret string, _ *http.Request) (*auth.TokenInfo, error) {
			name, ok, err := opts.Tokens.VerifyToken(ctx, secret)
			if err != nil {
				fmt.Fprintf(s.cfg.Errors, "pgbrain: serve: checking a bearer token: %v\n", err)
				return nil, errors.New("the token could not be checked; try again later")
			}
			if !ok {
				return nil, fmt.Errorf("%w: unknown or revoked token", auth.ErrInvalidToken)
			}
			return &auth.TokenInfo{UserID: name}, nil
		}
		inner := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
		h = limitFailures(inner)
	}
	return checkOrigin(h, opts.AllowedOrigins, opts.AllowedHosts)
}

// scrubRefusals scrubs what the SDK itself answers with, which quotes
// what the client sent: the body of its HTTP refusals (4xx and 5xx: "JSON
// RPC not handled: <the method sent>"), and the message and data of its
// JSON-RPC error answers with status 200 ("unknown tool %q", a resource's
// uri), as one JSON answer or as the data lines of an SSE stream. Results
// pass untouched.
func scrubRefusals(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &refusalWriter{ResponseWriter: w}
		h.ServeHTTP(rw, r)
		rw.finish()
	})
}

// scrubBody scrubs a refusal's body: a JSON one value by value (it stays
// valid JSON; scrub.Message's Go quoting would not be), anything else as
// text.
func scrubBody(contentType string, body []byte) []byte {
	if strings.HasPrefix(contentType, "application/json") {
		var v any
		if json.Unmarshal(body, &v) == nil {
			if out, err := json.Marshal(scrubJSON(v)); err == nil {
				return out
			}
		}
	}
	return []byte(scrub.Message(string(body)))
}

// scrubJSON scrubs every string of a decoded JSON value, keys included.
func scrubJSON(v any) any {
	switch x := v.(type) {
	case string:
		return scrub.Scrub(x)
	case []any:
		for i := range x {
			x[i] = scrubJSON(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[scrub.Scrub(k)] = scrubJSON(e)
		}
		return out
	}
	return v
}

// How refusalWriter treats a body, chosen when the status is written.
const (
	bodyPass   = iota // passed through as written
	bodyHeld          // a refusal: held, scrubbed as a whole at the end
	bodyAnswer        // one JSON-RPC answer: held, its error scrubbed at the end
	bodyStream        // an SSE stream: each data line's error scrubbed as it completes
)

// refusalWriter holds back what the SDK writes until it can be scrubbed:
// a refusal's or a JSON answer's whole body, an SSE stream's current line.
type refusalWriter struct {
	http.ResponseWriter
	code int
	mode int
	body bytes.Buffer
}

func (w *refusalWriter) WriteHeader(code int) {
	if w.code != 0 {
		return
	}
	w.code = code
	ct := w.Header().Get("Content-Type")
	switch {
	case code >= 400:
		w.mode = bodyHeld
		return
	case strings.HasPrefix(ct, "application/json"):
		w.mode = bodyAnswer
		w.Header().Del("Content-Length")
	case strings.HasPrefix(ct, "text/event-stream"):
		w.mode = bodyStream
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *refusalWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	switch w.mode {
	case bodyPass:
		return w.ResponseWriter.Write(p)
	case bodyStream:
		w.body.Write(p)
		if err := w.writeLines(); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return w.body.Write(p)
}

// writeLines writes the complete lines held so far, a data line's
// JSON-RPC error scrubbed, and keeps the unfinished one.
func (w *refusalWriter) writeLines() error {
	held := w.body.Bytes()
	end := bytes.LastIndexByte(held, '\n')
	if end < 0 {
		return nil
	}
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(held[:end+1], []byte("\n")) {
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			nl := bytes.HasSuffix(data, []byte("\n"))
			data = bytes.TrimSuffix(bytes.TrimPrefix(data, []byte(" ")), []byte("\n"))
			out.WriteString("data: ")
			out.Write(scrubErrorFrame(data))
			if nl {
				out.WriteByte('\n')
			}
			continue
		}
		out.Write(line)
	}
	rest := append([]byte(nil), held[end+1:]...)
	w.body.Reset()
	w.body.Write(rest)
	_, err := w.ResponseWriter.Write(out.Bytes())
	return err
}

// finish writes what is still held once the handler is done.
func (w *refusalWriter) finish() {
	switch w.mode {
	case bodyHeld:
		body := scrubBody(w.Header().Get("Content-Type"), w.body.Bytes())
		w.Header().Del("Content-Length")
		w.ResponseWriter.WriteHeader(w.code)
		w.ResponseWriter.Write(body)
	case bodyAnswer:
		if w.body.Len() > 0 {
			w.ResponseWriter.Write(scrubErrorFrame(bytes.TrimSpace(w.body.Bytes())))
		}
	case bodyStream:
		w.ResponseWriter.Write(w.body.Bytes()) // an unfinished last line
	}
}

func (w *refusalWriter) Flush() {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK) // as the ResponseWriter's own Flush would
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok && (w.mode == bodyPass || w.mode == bodyStream) {
		f.Flush()
	}
}

func (w *refusalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Failed authentications a client address may make: FailRate a second on
// average, FailBurst at once; past that its requests get 429 before any
// token is looked up, so guessing tokens cannot flood the database.
const (
	FailRate  = 10
	FailBurst = 50
)

// limitFailures answers 429 to a client address that has used up its
// allowance of failed authentications (401 answers; successful requests
// cost nothing), and adds the 401 challenge (challengeWriter).
func limitFailures(h http.Handler) http.Handler {
	var mu sync.Mutex
	buckets := map[string]*rate.Limiter{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			ip = r.RemoteAddr
		}
		mu.Lock()
		l, ok := buckets[ip]
		if !ok {
			if len(buckets) >= 10000 {
				clear(buckets) // bounded memory; a cleared address starts afresh
			}
			l = rate.NewLimiter(FailRate, FailBurst)
			buckets[ip] = l
		}
		mu.Unlock()
		if l.Tokens() < 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, fmt.Sprintf("too many failed authentications from %s: at most %d a second (bursts of %d); retry later with a valid token", ip, FailRate, FailBurst), http.StatusTooManyRequests)
			return
		}
		cw := &challengeWriter{ResponseWriter: w}
		h.ServeHTTP(cw, r)
		if cw.code == http.StatusUnauthorized {
			l.Allow()
		}
	})
}

// challengeWriter adds the WWW-Authenticate challenge RFC 6750 asks of a
// 401, which the SDK's middleware leaves out without OAuth metadata, and
// remembers the status it wrote.
type challengeWriter struct {
	http.ResponseWriter
	code int
}

func (w *challengeWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	if code == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="pgbrain"`)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *challengeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *challengeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// checkOrigin refuses (403) a browser origin not allowed, and a Host not
// allowed when hosts are listed.
func checkOrigin(h http.Handler, origins, hosts []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !slices.Contains(origins, o) && !sameLoopbackOrigin(o, r.Host) {
			// (the header is the client's: it may hold credentials)
			http.Error(w, scrub.Message(fmt.Sprintf("origin %q is not allowed; start serve with --allow-origin %s to allow it", o, o)), http.StatusForbidden)
			return
		}
		if len(hosts) > 0 && !slices.Contains(hosts, r.Host) {
			http.Error(w, fmt.Sprintf("host %q is not allowed (see --allow-host)", r.Host), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// sameLoopbackOrigin: a page served by this very loopback address may call
// it. A rebound name (evil.example resolving to 127.0.0.1) never gets here:
// its Host is not loopback, which the SDK refuses on loopback listeners.
func sameLoopbackOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host == host && IsLoopback(hostPort(host))
}

// hostPort adds a port to a Host header that has none.
func hostPort(h string) string {
	if _, _, err := net.SplitHostPort(h); err == nil {
		return h
	}
	return net.JoinHostPort(strings.Trim(h, "[]"), "0")
}

// limitRate gives each token (or, without authentication, the whole
// server) a token bucket.
func limitRate(h http.Handler, perSec float64, burst int) http.Handler {
	if perSec < 0 {
		return h
	}
	if perSec == 0 {
		perSec = DefaultRate
	}
	if burst <= 0 {
		burst = DefaultBurst
	}
	var mu sync.Mutex
	buckets := map[string]*rate.Limiter{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := ""
		if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
			key = ti.UserID
		}
		mu.Lock()
		l, ok := buckets[key]
		if !ok {
			l = rate.NewLimiter(rate.Limit(perSec), burst)
			buckets[key] = l
		}
		mu.Unlock()
		if !l.Allow() {
			w.Header().Set("Retry-After", "1")
			http.Error(w, fmt.Sprintf("rate limit: at most %g requests per second (bursts of %d) per token; retry later", perSec, burst), http.StatusTooManyRequests)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ServeHTTP serves MCP over streamable HTTP on ln until ctx is cancelled
// (SIGINT, SIGTERM). It writes server_start and server_stop like Run. On
// the way out it stops accepting requests and lets those in flight finish
// and deliver their answers within DrainTimeout, then flushes the audit
// writer.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts HTTPOptions) (err error) {
	scheme := "http"
	if opts.TLSCert != "" {
		scheme = "https"
	}
	s.lifecycle(events.SubtypeServerStart, s.startMessage(fmt.Sprintf("serving over MCP on %s://%s", scheme, ln.Addr())))
	stopMsg := "stopped"
	defer func() { s.lifecycle(events.SubtypeServerStop, stopMsg) }()

	srv := &http.Server{
		Handler:           s.Handler(opts),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		// Handshake failures and the like go where the server's other
		// problems go, not to the process's default logger.
		ErrorLog: log.New(s.cfg.Errors, "pgbrain: serve: http: ", 0),
	}
	served := make(chan error, 1)
	go func() {
		if opts.TLSCert != "" || opts.TLSKey != "" {
			served <- srv.ServeTLS(ln, opts.TLSCert, opts.TLSKey)
		} else {
			served <- srv.Serve(ln)
		}
	}()
	var serveErr error
	select {
	case <-ctx.Done():
		stopMsg = "stopped: " + stopCause(ctx)
	case serveErr = <-served:
		stopMsg = "listener failed: " + serveErr.Error()
	}
	deadline := time.Now().Add(s.cfg.DrainTimeout)
	sctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		fmt.Fprintf(s.cfg.Errors, "pgbrain: serve: requests still running after %v; stopping without them\n", s.cfg.DrainTimeout)
		srv.Close()
	}
	s.finish(ctx, deadline)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serving MCP over HTTP on %s: %w", ln.Addr(), serveErr)
	}
	return nil
}

// IsLoopback reports whether addr (host:port) names only loopback
// interfaces, where serving without tokens is allowed.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
