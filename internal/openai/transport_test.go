package openai

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestBackoffBounds(t *testing.T) {
	c := mustNew(t, Config{Dim: 1, Patience: Patience{BackoffBase: 500 * time.Millisecond}})
	tests := []struct {
		attempt int
		bound   time.Duration
	}{
		{0, 500 * time.Millisecond},
		{1, time.Second},
		{2, 2 * time.Second},
		{3, 4 * time.Second},
		{5, 16 * time.Second},
		{6, 20 * time.Second},
		{60, 20 * time.Second}, // must not overflow
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.attempt), func(t *testing.T) {
			var maxSeen time.Duration
			for range 2000 {
				d := c.t.backoff(tt.attempt, &failure{})
				if d < 0 || d > tt.bound {
					t.Fatalf("backoff(%d) = %v, want within [0, %v]", tt.attempt, d, tt.bound)
				}
				maxSeen = max(maxSeen, d)
			}
			// Full jitter spreads over the whole range, not just its start.
			if maxSeen < tt.bound/2 {
				t.Errorf("backoff(%d) never exceeded %v in 2000 draws; want spread up to %v", tt.attempt, maxSeen, tt.bound)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{" 2 ", 2 * time.Second, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(9 * time.Second).Format(http.TimeFormat), 9 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := parseRetryAfter(tt.in, now)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestParseAPIError(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   APIError
	}{
		{
			name:   "openai format",
			status: 400,
			body:   `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","param":null,"code":"context_length_exceeded"}}`,
			want:   APIError{StatusCode: 400, Message: "This model's maximum context length is 8192 tokens", Type: "invalid_request_error", Code: "context_length_exceeded"},
		},
		{
			name:   "openai format naming the field",
			status: 400,
			body:   `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`,
			want:   APIError{StatusCode: 400, Message: "Unsupported value: 'temperature' does not support 0 with this model.", Type: "invalid_request_error", Code: "unsupported_value", Param: "temperature"},
		},
		{
			name:   "error as string (Ollama)",
			status: 404,
			body:   `{"error":"model \"nomic\" not found, try pulling it first"}`,
			want:   APIError{StatusCode: 404, Message: `model "nomic" not found, try pulling it first`},
		},
		{
			name:   "message field (vLLM)",
			status: 400,
			body:   `{"object":"error","message":"dimensions is not supported","type":"BadRequestError"}`,
			want:   APIError{StatusCode: 400, Message: "dimensions is not supported"},
		},
		{
			name:   "detail field",
			status: 422,
			body:   `{"detail":"input too long"}`,
			want:   APIError{StatusCode: 422, Message: "input too long"},
		},
		{
			name:   "plain text",
			status: 502,
			body:   "  upstream connect error  ",
			want:   APIError{StatusCode: 502, Message: "upstream connect error"},
		},
		{
			name:   "long plain text is truncated",
			status: 500,
			body:   strings.Repeat("x", 600),
			want:   APIError{StatusCode: 500, Message: strings.Repeat("x", 512) + "..."},
		},
		{
			name:   "empty body",
			status: 503,
			body:   "",
			want:   APIError{StatusCode: 503, Message: "Service Unavailable"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseAPIError(tt.status, []byte(tt.body))
			if *got != tt.want {
				t.Errorf("parseAPIError = %+v, want %+v", *got, tt.want)
			}
		})
	}
}
