package events

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestRedactStrings(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"short text kept", "who is alice", "who is alice"},
		{"empty kept", "", ""},
		{"2048 bytes kept", strings.Repeat("a", 2048), strings.Repeat("a", 2048)},
		{"2049 bytes truncated", strings.Repeat("a", 2049), "<truncated:2049 bytes>"},
		{"1024 two-byte runes are 2048 bytes, kept", strings.Repeat("é", 1024), strings.Repeat("é", 1024)},
		{"1025 two-byte runes counted in bytes", strings.Repeat("é", 1025), "<truncated:2050 bytes>"},
		{"683 three-byte runes counted in bytes", strings.Repeat("日", 683), "<truncated:2049 bytes>"},
		{"long URL with credentials is truncated", "postgres://u:p@h/" + strings.Repeat("x", 2100), "<truncated:2117 bytes>"},

		{"postgres with password", "postgres://user:pass@host/db", MarkerConnectionURL},
		{"postgresql with port and params", "postgresql://u:p@db.internal:5432/brain?sslmode=require", MarkerConnectionURL},
		{"mysql", "mysql://root:secret@localhost:3306/app", MarkerConnectionURL},
		{"redis password only", "redis://:secret@cache:6379/0", MarkerConnectionURL},
		{"mongodb+srv", "mongodb+srv://admin:pw@cluster0.example.net/db", MarkerConnectionURL},
		{"any scheme", "amqp://guest:guest@rabbit:5672/", MarkerConnectionURL},
		{"user part alone is a credential", "https://ghp_token123@github.com/org/repo.git", MarkerConnectionURL},
		{"password query parameter", "postgres://db.internal/brain?user=app&password=hunter2", MarkerConnectionURL},
		{"token query parameter", "https://api.example.com/v1?access_token=abc", MarkerConnectionURL},
		{"URL inside text", "why does postgres://admin:s3cret@prod/db time out", MarkerConnectionURL},
		{"password containing @", "postgres://u:p@ss@host/db", MarkerConnectionURL},

		{"postgres without credentials kept", "postgres://localhost:5432/brain", "postgres://localhost:5432/brain"},
		{"socket URL kept", "postgresql:///brain?host=/tmp", "postgresql:///brain?host=/tmp"},
		{"https kept", "https://example.com/a/b?q=1#frag", "https://example.com/a/b?q=1#frag"},
		{"@ in path is not userinfo", "https://example.com/@alice/post", "https://example.com/@alice/post"},
		{"no scheme before ://", "://u:p@host", "://u:p@host"},
		{"harmless query keys kept", "https://example.com/?key_id=1&sort=asc", "https://example.com/?key_id=1&sort=asc"},

		{"email", "alice@example.com", MarkerEmail},
		{"email with plus and subdomain", "a.b+tag@mail.example.co.uk", MarkerEmail},
		// An email inside a longer string goes too, through the scrubber.
		{"email inside text", "mail alice@example.com today", "mail [REDACTED] today"},
		{"card inside a query", "who paid with 4111 1111 1111 1111?", "who paid with [REDACTED]?"},
		{"credentials inside a query", "why does password: hunter2 fail for AKIAIOSFODNN7EXAMPLE", "why does password: [REDACTED] fail for [REDACTED]"},
		{"aws secret inside a query", "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "export AWS_SECRET_ACCESS_KEY=[REDACTED]"},
		{"iban inside a query", "transfer to GB82 WEST 1234 5698 7654 32", "transfer to [REDACTED]"},
		{"ordinary text stays", "release 1.2.3 on 2024-01-15, order #12345678", "release 1.2.3 on 2024-01-15, order #12345678"},
		{"no dot in domain", "alice@localhost", "alice@localhost"},
		{"two at signs", "a@b@c.com", "a@[REDACTED]"},
		{"nothing before at", "@example.com", "@example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Redact(map[string]any{"v": tt.in})
			if got["v"] != tt.want {
				t.Errorf("Redact(%.60q) = %.80q, want %.80q", tt.in, got["v"], tt.want)
			}
		})
	}
}

func TestRedactStructures(t *testing.T) {
	type payload struct {
		Email string `json:"email"`
		Count int    `json:"count"`
	}
	type slug string
	tests := []struct {
		name string
		in   map[string]any
		want map[string]any
	}{
		{
			name: "nil stays nil",
			in:   nil,
			want: nil,
		},
		{
			name: "non-string leaves kept",
			in:   map[string]any{"limit": 10, "ratio": 0.5, "on": true, "none": nil},
			want: map[string]any{"limit": 10, "ratio": 0.5, "on": true, "none": nil},
		},
		{
			name: "every leaf under filters, nested maps and lists",
			in: map[string]any{
				"query": "alice",
				"limit": 5,
				"filters": map[string]any{
					"email":  "a@b.com",
					"status": "open",
					"ids":    []any{1, "two", map[string]any{"deep": []any{true, nil}}},
					"empty":  map[string]any{},
				},
			},
			want: map[string]any{
				"query": "alice",
				"limit": 5,
				"filters": map[string]any{
					"email":  MarkerValue,
					"status": MarkerValue,
					"ids":    []any{MarkerValue, MarkerValue, map[string]any{"deep": []any{MarkerValue, MarkerValue}}},
					"empty":  map[string]any{},
				},
			},
		},
		{
			name: "filters as a scalar or list",
			in:   map[string]any{"filters": "type=person", "opts": map[string]any{"Filters": []string{"a", "b"}, "keep": "x"}},
			want: map[string]any{"filters": MarkerValue, "opts": map[string]any{"Filters": []any{MarkerValue, MarkerValue}, "keep": "x"}},
		},
		{
			name: "rules reach nested values",
			in: map[string]any{
				"people": []any{"bob@example.org", map[string]any{"dsn": "mysql://u:p@h/db"}},
				"nested": map[string]any{"list": []any{[]any{strings.Repeat("z", 3000)}}},
			},
			want: map[string]any{
				"people": []any{MarkerEmail, map[string]any{"dsn": MarkerConnectionURL}},
				"nested": map[string]any{"list": []any{[]any{"<truncated:3000 bytes>"}}},
			},
		},
		{
			// An agent names its own arguments: a key is redacted like a
			// value, and keys that become one stay apart.
			name: "keys are redacted like values",
			in: map[string]any{"alice@example.com": "x", "postgres://u:p@h/db": 1, strings.Repeat("k", 3000): "y",
				"why does ghp_R7kQ2mZx9LwP4vB8nT3yH6jD1sF5aG0cE2uK fail": 1, "query": "q",
				"nested": map[string]any{"carol@example.org": "v", "dave@example.org": "w"},
				"merged": map[string]any{"4111111111111111": "a", "[REDACTED]": "b"}},
			want: map[string]any{"<email>": "x", "<redacted-connection-url>": 1, "<truncated:3000 bytes>": "y",
				"why does [REDACTED] fail": 1, "query": "q",
				"nested": map[string]any{"<email>": "v", "<email> #2": "w"},
				"merged": map[string]any{"[REDACTED]": "a", "[REDACTED] #2": "b"}},
		},
		{
			name: "typed values",
			in: map[string]any{
				"emails":  []string{"a@b.com", "plain"},
				"counts":  map[string]int{"n": 2},
				"struct":  payload{Email: "c@d.io", Count: 3},
				"pointer": &payload{Email: "x", Count: 1},
				"slug":    slug("e@f.net"),
				"nilptr":  (*payload)(nil),
			},
			want: map[string]any{
				"emails":  []any{MarkerEmail, "plain"},
				"counts":  map[string]any{"n": 2},
				"struct":  map[string]any{"email": MarkerEmail, "count": json.Number("3")},
				"pointer": map[string]any{"email": "x", "count": json.Number("1")},
				"slug":    MarkerEmail,
				"nilptr":  nil,
			},
		},
		{
			name: "values JSON cannot carry",
			in:   map[string]any{"nan": math.NaN(), "inf": math.Inf(-1), "ch": make(chan int)},
			want: map[string]any{"nan": "NaN", "inf": "-Inf", "ch": "<unserializable:chan int>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Redact(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
			if _, err := json.Marshal(got); err != nil {
				t.Errorf("result does not encode: %v", err)
			}
			if again := Redact(tt.in); !reflect.DeepEqual(again, got) {
				t.Errorf("not deterministic: %#v vs %#v", again, got)
			}
		})
	}
}

func TestRedactDoesNotMutateInput(t *testing.T) {
	build := func() map[string]any {
		return map[string]any{
			"email":   "a@b.com",
			"filters": map[string]any{"x": []any{"y", map[string]any{"z": "w"}}},
			"list":    []any{"postgres://u:p@h/db", strings.Repeat("q", 4000)},
		}
	}
	in := build()
	out := Redact(in)
	if !reflect.DeepEqual(in, build()) {
		t.Fatalf("input changed: %#v", in)
	}
	// The copy must be deep: changing the output leaves the input alone.
	out["filters"].(map[string]any)["x"].([]any)[1].(map[string]any)["z"] = "changed"
	out["list"].([]any)[0] = "changed"
	if !reflect.DeepEqual(in, build()) {
		t.Fatalf("output shares memory with input: %#v", in)
	}
}

func TestRedactSelfReference(t *testing.T) {
	m := map[string]any{"name": "loop"}
	m["self"] = m
	got := Redact(m)
	depth := 0
	for cur := any(got); ; depth++ {
		next, ok := cur.(map[string]any)
		if !ok {
			if cur != markerTooDeep {
				t.Fatalf("chain ends in %#v, want %q", cur, markerTooDeep)
			}
			break
		}
		cur = next["self"]
	}
	// The top-level map plus maxDepth nested copies.
	if depth != maxDepth+1 {
		t.Errorf("depth = %d, want %d", depth, maxDepth+1)
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("filters", "postgres://user:pass@host/db")
	f.Add("query", "alice@example.com")
	f.Add("q", strings.Repeat("é", 1025))
	f.Add("url", "https://example.com/@x?password=1")
	f.Add("k", "plain text")
	f.Fuzz(func(t *testing.T, key, s string) {
		if key == "filters" || key == "list" {
			return // would collide with the fixed keys below
		}
		in := map[string]any{key: s, "filters": map[string]any{key: []any{s, 1}}, "list": []any{s, map[string]any{key: s}}}
		got := Redact(in)
		if _, ok := got[key]; !ok {
			t.Fatalf("key %q lost", key)
		}
		if _, err := json.Marshal(got); err != nil {
			t.Fatalf("result does not encode: %v", err)
		}
		if !reflect.DeepEqual(Redact(got), got) {
			t.Fatalf("redaction is not idempotent for %q", s)
		}
		filt := got["filters"].(map[string]any)[key].([]any)
		if filt[0] != MarkerValue || filt[1] != MarkerValue {
			t.Fatalf("filters leaked: %#v", filt)
		}
		r := got["list"].([]any)[0].(string)
		if len(r) > MaxStringBytes {
			t.Fatalf("kept %d bytes", len(r))
		}
		if r == s && (len(s) > MaxStringBytes || emailShape.MatchString(s) || hasCredentialURL(s)) {
			t.Fatalf("sensitive string kept: %q", s)
		}
		if r != s && r != MarkerEmail && r != MarkerConnectionURL && !strings.HasPrefix(r, "<truncated:") {
			t.Fatalf("unexpected replacement %q", r)
		}
	})
}
