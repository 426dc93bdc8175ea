package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pgbrain/pgbrain/internal/markdown"
	"github.com/pgbrain/pgbrain/internal/scrub"
	"github.com/pgbrain/pgbrain/internal/search"
)

// sourcePattern is the CHECK on brain.sources.id.
const sourcePattern = `^[a-z0-9][a-z0-9_-]{0,62}$`

// sourceRE is compiled once and only read afterwards.
var sourceRE = regexp.MustCompile(sourcePattern)

// decodeArgs decodes the arguments strictly: unknown names and wrong types
// are errors worded for the agent, without Go type names.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = json.RawMessage("{}")
	}
	// The schemas allow no null and no empty string anywhere: an argument
	// is given with a value or left out. Go's decoder would read both as
	// "left out", so they are refused here, before decoding.
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) == nil {
		names := make([]string, 0, len(fields))
		for k := range fields {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			switch string(bytes.TrimSpace(fields[k])) {
			case "null":
				return fmt.Errorf("argument %q is null; give a value or leave it out", clip(k))
			case `""`:
				return fmt.Errorf("argument %q is empty; give a value or leave it out", clip(k))
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.Decode(new(json.RawMessage)) != io.EOF {
		err = errors.New("the arguments hold more than one JSON value")
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Errorf("argument %q must be %s, not %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &typeErr):
		return errors.New("the arguments must be a JSON object")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("unknown argument %s; see the tool's input schema", strings.TrimPrefix(err.Error(), "json: unknown field "))
	default:
		return fmt.Errorf("the arguments are not valid JSON: %v", err)
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int64", "ptr":
		return "an integer"
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "struct":
		return "an object"
	default:
		return "of the schema's type"
	}
}

func checkQuery(q string) error {
	if strings.TrimSpace(q) == "" {
		return errors.New(`argument "query" is empty; give the question or keywords to search for`)
	}
	if err := search.CheckQuery(q); err != nil {
		return fmt.Errorf(`argument "query": %w`, err)
	}
	return nil
}

func checkLimit(l *int) error {
	if l != nil && (*l < 1 || *l > maxLimit) {
		return fmt.Errorf(`argument "limit" is %d; use 1 to %d`, *l, maxLimit)
	}
	return nil
}

func checkSource(name, id string) error {
	if !sourceRE.MatchString(id) {
		return fmt.Errorf("argument %q: %q is not a source id (1-63 lower-case letters, digits, '-' or '_'); list_sources names them", name, clip(id))
	}
	return nil
}

func checkSources(ids []string) error {
	if len(ids) > maxSources {
		return fmt.Errorf(`argument "sources" names %d sources; at most %d`, len(ids), maxSources)
	}
	for _, id := range ids {
		if err := checkSource("sources", id); err != nil {
			return err
		}
	}
	return nil
}

func (in QueryInput) check() error {
	switch in.Detail {
	case "", search.DetailLow, search.DetailMedium, search.DetailHigh:
	default:
		return fmt.Errorf(`argument "detail" is %q; use low, medium or high, or leave it out`, clip(in.Detail))
	}
	return errors.Join(checkQuery(in.Query), checkLimit(in.Limit), checkSources(in.Sources))
}

func (in SearchInput) check() error {
	return errors.Join(checkQuery(in.Query), checkLimit(in.Limit), checkSources(in.Sources))
}

func (in GetPageInput) check() error {
	var errs []error
	if !markdown.ValidSlug(markdown.NormalizeSlug(in.Slug)) {
		errs = append(errs, fmt.Errorf(`argument "slug": %q is not a page slug (lower-case '/'-separated segments of letters, digits and symbols of any script, '.', '_', '+' and '-', such as people/alice or 東京/café, at most %d bytes; list_pages shows them)`, clip(in.Slug), markdown.MaxSlugLen))
	}
	if in.Source != "" {
		errs = append(errs, checkSource("source", in.Source))
	}
	return errors.Join(errs...)
}

func (in ListPagesInput) check() error {
	var errs []error
	if in.Source != "" {
		errs = append(errs, checkSource("source", in.Source))
	}
	// Characters, not bytes: what maxLength in the schema counts.
	if utf8.RuneCountInString(in.Type) > maxTypeLen || !utf8.ValidString(in.Type) || strings.ContainsFunc(in.Type, unicode.IsControl) {
		errs = append(errs, fmt.Errorf(`argument "type" must be at most %d characters of printable text`, maxTypeLen))
	}
	if len(in.Cursor) > maxCursorLen {
		errs = append(errs, fmt.Errorf(`argument "cursor" is longer than %d characters; pass next_cursor unchanged`, maxCursorLen))
	} else if in.Cursor != "" {
		if _, err := decodeCursor(in.Cursor); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(append(errs, checkLimit(in.Limit))...)
}

func (ListSourcesInput) check() error { return nil }

// clip keeps error messages short when an argument is huge.
func clip(s string) string {
	// Scrubbed before it is cut: a secret cut in half is no longer seen
	// as one, and its first part would be shown.
	s = scrub.Scrub(s)
	if len(s) <= 80 {
		return s
	}
	return strings.ToValidUTF8(s[:77], "") + "..."
}

// The shape functions add to the derived schemas the constraints the check
// methods enforce, so agents can see them up front.

func shapeQuery(s *jsonschema.Schema) {
	shapeSearch(s)
	s.Properties["detail"].Enum = []any{search.DetailLow, search.DetailMedium, search.DetailHigh}
}

func shapeSearch(s *jsonschema.Schema) {
	q := s.Properties["query"]
	q.MinLength, q.MaxLength = ptr(1), ptr(search.MaxQueryChars)
	shapeLimit(s.Properties["limit"], defaultSearchLimit)
	src := s.Properties["sources"]
	src.Types, src.Type, src.MaxItems = nil, "array", ptr(maxSources)
	src.Items.Pattern = sourcePattern
}

func shapeGetPage(s *jsonschema.Schema) {
	sl := s.Properties["slug"]
	sl.Pattern, sl.MinLength, sl.MaxLength = markdown.SlugPattern, ptr(1), ptr(markdown.MaxSlugLen)
	s.Properties["source"].Pattern = sourcePattern
}

func shapeListPages(s *jsonschema.Schema) {
	s.Properties["source"].Pattern = sourcePattern
	s.Properties["type"].MaxLength = ptr(maxTypeLen)
	shapeLimit(s.Properties["limit"], defaultListLimit)
	s.Properties["cursor"].MaxLength = ptr(maxCursorLen)
}

// maxCursorLen bounds a cursor: base64 of a source id and a slug.
const maxCursorLen = 1024

// noEmptyStrings sets minLength 1 on every string property, top level and
// array items: decodeArgs refuses empty strings, and the schema says so.
func noEmptyStrings(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		for _, t := range []*jsonschema.Schema{p, p.Items} {
			if t != nil && t.Type == "string" && t.MinLength == nil {
				t.MinLength = ptr(1)
			}
		}
	}
}

func shapeLimit(l *jsonschema.Schema, def int) {
	l.Types, l.Type = nil, "integer"
	l.Minimum, l.Maximum = ptr(1.0), ptr(float64(maxLimit))
	l.Default = json.RawMessage(fmt.Sprint(def))
}

func ptr[T any](v T) *T { return &v }
