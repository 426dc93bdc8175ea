package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxErrorBodyBytes bounds an error reply quoted back to the user.
const maxErrorBodyBytes = 512

// Patience is how long each request may take and how failures are retried;
// embedder and chat model share it. Zero values take the defaults.
type Patience struct {
	// Timeout bounds each HTTP attempt, not the whole call.
	Timeout time.Duration
	// MaxRetries is how many times a failed request is retried after the
	// first attempt. Negative disables retries.
	MaxRetries int
	// BackoffBase is the first retry's upper bound; it doubles per retry up
	// to BackoffMax, and the actual wait is uniform in [0, bound].
	BackoffBase time.Duration
	// BackoffMax caps every wait, including one asked for by Retry-After.
	BackoffMax time.Duration
	// HTTPClient defaults to a fresh http.Client; per-attempt deadlines come
	// from Timeout, so its own Timeout can stay zero.
	HTTPClient *http.Client
	// Sleep waits between retries and must return early with ctx.Err() when
	// ctx ends. Tests replace it to observe waits without spending them.
	Sleep func(ctx context.Context, d time.Duration) error
}

// withDefaults fills zero fields, with timeout as the default Timeout.
func (p Patience) withDefaults(timeout time.Duration) Patience {
	if p.Timeout <= 0 {
		p.Timeout = timeout
	}
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = DefaultMaxRetries
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.BackoffBase <= 0 {
		p.BackoffBase = DefaultBackoffBase
	}
	if p.BackoffMax <= 0 {
		p.BackoffMax = DefaultBackoffMax
	}
	if p.HTTPClient == nil {
		p.HTTPClient = &http.Client{}
	}
	if p.Sleep == nil {
		p.Sleep = sleepCtx
	}
	return p
}

// transport is what every endpoint client shares: one JSON POST per
// attempt under a per-attempt timeout, retries of transport failures, 429
// and 5xx with full-jitter backoff (or the server's Retry-After), and errors
// that say what to do.
type transport struct {
	who string // names the client in every error: "openai embedder", "chat model"
	url string
	// hint says what to do about a non-2xx reply.
	hint func(e *APIError) string
	// maxBytes bounds how much of a reply is read, so a misbehaving server
	// cannot exhaust memory; tooLarge says what to do when a reply is bigger.
	maxBytes int
	tooLarge string

	apiKey string
	Patience
}

// failure is one attempt's outcome when it did not produce a result.
type failure struct {
	err        error
	retry      bool
	retryAfter time.Duration
	hasAfter   bool // the server named a wait with Retry-After
}

// post sends body and hands a 2xx reply to decode, retrying what may
// succeed later. decode's errors are final: a server that answers in the
// wrong shape will not answer differently next time.
func (t *transport) post(ctx context.Context, body []byte, decode func([]byte) error) error {
	for attempt := 0; ; attempt++ {
		f := t.attempt(ctx, body, decode)
		if f == nil {
			return nil
		}
		if !f.retry {
			return f.err
		}
		if attempt >= t.MaxRetries {
			n := "1 attempt"
			if attempt > 0 {
				n = fmt.Sprintf("%d attempts", attempt+1)
			}
			return fmt.Errorf("giving up after %s: %w", n, f.err)
		}
		if err := t.Sleep(ctx, t.backoff(attempt, f)); err != nil {
			return fmt.Errorf("%w; retry abandoned: %w", f.err, err)
		}
	}
}

// backoff is full-jitter exponential unless the server asked for a wait.
// Both are capped so a single call never stalls for minutes.
func (t *transport) backoff(attempt int, f *failure) time.Duration {
	if f.hasAfter {
		return min(f.retryAfter, t.BackoffMax)
	}
	bound := t.BackoffBase
	for i := 0; i < attempt && bound < t.BackoffMax; i++ {
		bound *= 2
	}
	bound = min(bound, t.BackoffMax)
	return rand.N(bound + 1)
}

func (t *transport) attempt(ctx context.Context, body []byte, decode func([]byte) error) *failure {
	actx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()

	req, err := http.NewRequestWithContext(actx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return &failure{err: fmt.Errorf("%s: building request for %s: %w", t.who, t.url, err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if t.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+t.apiKey)
	}

	resp, err := t.HTTPClient.Do(req)
	if err != nil {
		return t.transportFailure(ctx, "calling", err)
	}
	defer resp.Body.Close()

	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(t.maxBytes)+1))
	if err != nil {
		return t.transportFailure(ctx, "reading the response from", err)
	}
	if len(data) > t.maxBytes {
		return &failure{err: fmt.Errorf("%s: response from %s exceeds %d bytes; %s", t.who, t.url, t.maxBytes, t.tooLarge)}
	}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return t.statusFailure(resp, data)
	}
	if err := decode(data); err != nil {
		return &failure{err: err}
	}
	return nil
}

// transportFailure classifies errors below HTTP. They are retried unless the
// caller's own context ended, which means the caller gave up.
func (t *transport) transportFailure(ctx context.Context, doing string, err error) *failure {
	if ctx.Err() != nil {
		return &failure{err: fmt.Errorf("%s: %s %s: %w", t.who, doing, t.url, err)}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &failure{
			err:   fmt.Errorf("%s: %s %s: no response within %v: %w; raise Timeout or check the server's load", t.who, doing, t.url, t.Timeout, err),
			retry: true,
		}
	}
	return &failure{
		err:   fmt.Errorf("%s: %s %s: %w; check that the server is running and the base URL is right", t.who, doing, t.url, err),
		retry: true,
	}
}

func (t *transport) statusFailure(resp *http.Response, body []byte) *failure {
	apiErr := parseAPIError(resp.StatusCode, body)
	f := &failure{
		err:   fmt.Errorf("%s: POST %s: %w; %s", t.who, t.url, apiErr, t.hint(apiErr)),
		retry: resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500,
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		f.retryAfter, f.hasAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return f
}

// resolveURL turns a server root, with or without "/v1", into the URL of
// one of its endpoints, so users can paste whatever their provider
// documents. example is a root to suggest when base is unusable.
func resolveURL(base, endpoint, example string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("parsing base URL %q: %w; use a URL such as %s", base, err, example)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q needs an http:// or https:// scheme and a host; use a URL such as %s", base, example)
	}
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/v1")
	u.Path = p + "/v1/" + endpoint
	u.RawPath = ""
	return u.String(), nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// APIError is a non-2xx reply. Message is the server's own explanation when
// it sent one in the OpenAI error format, else the start of the body.
type APIError struct {
	StatusCode int
	Type       string
	Code       string
	// Param names the request field the server refused, when it says.
	Param   string
	Message string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("HTTP %d", e.StatusCode)
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Type != "" {
		s += " (" + e.Type + ")"
	}
	return s
}

func parseAPIError(status int, body []byte) *APIError {
	e := &APIError{StatusCode: status}
	// OpenAI: {"error":{"message","type","code"}}; some compatible servers
	// use {"error":"..."} or a bare {"message":"..."} / {"detail":"..."}.
	var wire struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &wire) == nil {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
			Param   any    `json:"param"`
		}
		var str string
		switch {
		case json.Unmarshal(wire.Error, &obj) == nil && obj.Message != "":
			e.Message, e.Type = obj.Message, obj.Type
			if obj.Code != nil {
				e.Code = fmt.Sprint(obj.Code)
			}
			if obj.Param != nil {
				e.Param = fmt.Sprint(obj.Param)
			}
		case json.Unmarshal(wire.Error, &str) == nil && str != "":
			e.Message = str
		case wire.Message != "":
			e.Message = wire.Message
		case wire.Detail != nil:
			if d, err := json.Marshal(wire.Detail); err == nil {
				e.Message = strings.Trim(string(d), `"`)
			}
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(body))
		if len(e.Message) > maxErrorBodyBytes {
			e.Message = e.Message[:maxErrorBodyBytes] + "..."
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	if e.Message == "" {
		e.Message = "the reply gave no reason"
	}
	return e
}

// parseRetryAfter reads delay-seconds (fractions tolerated) or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || secs > 24*60*60 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
