package events

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pgbrain/pgbrain/internal/scrub"
)

// Redaction markers written in place of sensitive values.
const (
	MarkerConnectionURL = "<redacted-connection-url>"
	MarkerEmail         = "<email>"
	MarkerValue         = "<value>"
)

// MaxStringBytes is the longest string kept verbatim.
const MaxStringBytes = 2048

// maxDepth stops runaway recursion on self-referencing maps or slices.
const maxDepth = 64

const markerTooDeep = "<too-deep>"

var emailShape = regexp.MustCompile(`^[^\s@]+@[^\s@]+\.[^\s@]+$`)

// Redact returns a deep copy of args that is safe to write to disk. Keys go
// through the same string rules as values (an agent names its own
// arguments, so a key may hold anything a value may); two keys that become
// one are told apart by a " #2", " #3" suffix. Rules, per value:
//   - anything under a "filters" key, at any depth: every leaf becomes <value>
//     (filter values are user data: emails, customer ids);
//   - strings over MaxStringBytes bytes become <truncated:N bytes>;
//   - strings containing a URL with userinfo (user, or user:password) or a
//     password/secret/token query parameter become <redacted-connection-url>;
//   - email-shaped strings become <email>;
//   - anything else goes through scrub.Scrub, the detector set every place
//     query text is written shares: emails, phone numbers, cards, SSNs,
//     credentials, IBANs ... inside the string become [REDACTED].
//
// Values of other types (structs, typed maps and slices) are first converted
// to their JSON form, so the result always encodes as JSON; values that cannot
// be encoded become <unserializable:TYPE>, and non-finite floats become their
// string form. The input is never modified.
func Redact(args map[string]any) map[string]any {
	if args == nil {
		return nil
	}
	out := make(map[string]any, len(args))
	for _, k := range slices.Sorted(maps.Keys(args)) {
		put(out, k, redactValue(args[k], isFilters(k), 1))
	}
	return out
}

// put stores v under the redacted form of key k. Callers go through the
// keys in order, so which of two keys gets a suffix does not change.
func put(out map[string]any, k string, v any) {
	rk := redactString(k)
	if _, taken := out[rk]; taken {
		for n := 2; ; n++ {
			alt := rk + " #" + strconv.Itoa(n)
			if _, taken := out[alt]; !taken {
				rk = alt
				break
			}
		}
	}
	out[rk] = v
}

func isFilters(key string) bool { return strings.EqualFold(key, "filters") }

func redactValue(v any, inFilters bool, depth int) any {
	if depth > maxDepth {
		return markerTooDeep
	}
	switch x := v.(type) {
	case nil:
		return leaf(nil, inFilters)
	case string:
		return leaf(redactString(x), inFilters)
	case bool, json.Number,
		int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64, uintptr:
		return leaf(x, inFilters)
	case float64:
		return leaf(finite(x), inFilters)
	case float32:
		return leaf(finite(float64(x)), inFilters)
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			put(out, k, redactValue(x[k], inFilters || isFilters(k), depth+1))
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e, inFilters, depth+1)
		}
		return out
	}
	return redactReflect(reflect.ValueOf(v), inFilters, depth)
}

// redactReflect handles named and typed values ([]string, map[string]int,
// type Slug string, pointers) without a JSON round trip where it can.
func redactReflect(rv reflect.Value, inFilters bool, depth int) any {
	switch rv.Kind() {
	case reflect.String:
		return leaf(redactString(rv.String()), inFilters)
	case reflect.Bool:
		return leaf(rv.Bool(), inFilters)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return leaf(rv.Int(), inFilters)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return leaf(rv.Uint(), inFilters)
	case reflect.Float32, reflect.Float64:
		return leaf(finite(rv.Float()), inFilters)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return leaf(nil, inFilters)
		}
		return redactValue(rv.Elem().Interface(), inFilters, depth+1)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		if rv.IsNil() {
			return leaf(nil, inFilters)
		}
		out := make(map[string]any, rv.Len())
		keys := rv.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, key := range keys {
			k := key.String()
			put(out, k, redactValue(rv.MapIndex(key).Interface(), inFilters || isFilters(k), depth+1))
		}
		return out
	case reflect.Slice, reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			break // bytes encode as a base64 string; let JSON decide
		}
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return leaf(nil, inFilters)
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = redactValue(rv.Index(i).Interface(), inFilters, depth+1)
		}
		return out
	}
	return redactViaJSON(rv, inFilters, depth)
}

// redactViaJSON reduces structs and other values to their JSON form so the
// same rules reach every string inside them.
func redactViaJSON(rv reflect.Value, inFilters bool, depth int) any {
	b, err := json.Marshal(rv.Interface())
	if err != nil {
		return fmt.Sprintf("<unserializable:%s>", rv.Type())
	}
	var generic any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return fmt.Sprintf("<unserializable:%s>", rv.Type())
	}
	return redactValue(generic, inFilters, depth+1)
}

func leaf(v any, inFilters bool) any {
	if inFilters {
		return MarkerValue
	}
	return v
}

// finite keeps NaN and infinities from making the whole line unencodable.
func finite(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return f
}

func redactString(s string) string {
	if len(s) > MaxStringBytes {
		return "<truncated:" + strconv.Itoa(len(s)) + " bytes>"
	}
	// URLs first: a credentialed URL is also email-shaped.
	if hasCredentialURL(s) {
		return MarkerConnectionURL
	}
	if emailShape.MatchString(s) {
		return MarkerEmail
	}
	return scrub.Scrub(s)
}

// Clean returns ev as Write would store it: arguments redacted and the
// message scrubbed. Readers of files written by older versions use it
// (pgbrain tail) so nothing a writer let through is shown again; changed
// reports whether anything was removed.
func Clean(ev Event) (out Event, changed bool) {
	out = ev
	out.ArgsSummary = Redact(ev.ArgsSummary)
	out.Message = scrub.Scrub(ev.Message)
	out.ErrorKind = scrub.Scrub(ev.ErrorKind)
	changed = out.Message != ev.Message || out.ErrorKind != ev.ErrorKind ||
		!reflect.DeepEqual(out.ArgsSummary, ev.ArgsSummary)
	return out, changed
}

// hasCredentialURL reports whether s contains scheme://... with userinfo in
// the authority or a secret-looking query parameter. Any userinfo counts, not
// only user:password, since a bare user part is often an access token.
func hasCredentialURL(s string) bool {
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			return false
		}
		j += i
		i = j + 3
		if !hasScheme(s[:j]) {
			continue
		}
		rest := s[j+3:]
		if end := strings.IndexFunc(rest, isURLSpace); end >= 0 {
			rest = rest[:end]
		}
		authority := rest
		if end := strings.IndexAny(authority, "/?#"); end >= 0 {
			authority = authority[:end]
		}
		if strings.Contains(authority, "@") {
			return true
		}
		if q := strings.IndexByte(rest, '?'); q >= 0 && secretQuery(rest[q+1:]) {
			return true
		}
	}
	return false
}

// hasScheme reports whether prefix ends in an RFC 3986 scheme.
func hasScheme(prefix string) bool {
	k := len(prefix)
	for k > 0 && isSchemeChar(prefix[k-1]) {
		k--
	}
	for k < len(prefix) && !isAlpha(prefix[k]) {
		k++
	}
	return k < len(prefix)
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isSchemeChar(c byte) bool {
	return isAlpha(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isURLSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' || r == '"' || r == '\''
}

// secretQuery reports whether a query string carries a credential, as in
// postgres://host/db?user=u&password=p.
func secretQuery(q string) bool {
	if end := strings.IndexByte(q, '#'); end >= 0 {
		q = q[:end]
	}
	for _, pair := range strings.FieldsFunc(q, func(r rune) bool { return r == '&' || r == ';' }) {
		key, _, _ := strings.Cut(pair, "=")
		key = strings.ToLower(key)
		if key == "pwd" || key == "apikey" || key == "api_key" ||
			strings.Contains(key, "pass") || strings.Contains(key, "secret") || strings.Contains(key, "token") {
			return true
		}
	}
	return false
}
