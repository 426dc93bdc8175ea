package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// DefaultSource is the source of entries written with relevant_slugs.
const DefaultSource = "default"

// Query is one judged query of a qrels file.
type Query struct {
	ID   string
	Text string
	// Relevant lists the relevant pages in file order.
	Relevant []Doc
	// Grades holds every relevant key with its grade (1 when none was given).
	Grades Judged
	// Graded reports whether the file gave explicit grades.
	Graded bool
	// ExpectedTop1 is the page that should rank first, if the file names one.
	ExpectedTop1 *Doc
	// Line is where the entry starts in the file.
	Line int
}

// Qrels is a parsed qrels file.
type Qrels struct {
	Name    string
	Queries []Query
}

type rawDoc struct {
	SourceID *string  `json:"source_id"`
	Slug     *string  `json:"slug"`
	Grade    *float64 `json:"grade"`
}

type rawQuery struct {
	QueryID           *string            `json:"query_id"`
	Query             *string            `json:"query"`
	RelevantSlugs     []string           `json:"relevant_slugs"`
	FirstRelevantSlug *string            `json:"first_relevant_slug"`
	Grades            map[string]float64 `json:"grades"`
	Relevant          []rawDoc           `json:"relevant"`
	ExpectedTop1      *rawDoc            `json:"expected_top1"`
}

// ReadQrelsFile reads and parses a qrels file.
func ReadQrelsFile(path string) (*Qrels, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading qrels: %w", err)
	}
	return ParseQrels(path, data)
}

// ParseQrels parses a qrels document: {"schema_version":1,"queries":[...]}.
// Each entry has either relevant_slugs (+ optional first_relevant_slug and
// grades {slug: grade}) in the default source, or relevant
// [{source_id, slug, grade?}] (+ optional expected_top1 {source_id, slug}).
// Errors name the file and line and say what to fix.
func ParseQrels(name string, data []byte) (*Qrels, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(off int64, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, lineAt(data, off), fmt.Sprintf(format, args...))
	}
	jsonErr := func(err error) error {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fail(se.Offset, "not valid JSON: %v", err)
		case errors.As(err, &te):
			// (Go's message names the decoding struct: rawQuery.grades)
			return fail(te.Offset, "field %q has the wrong type: it is a JSON %s (see the qrels format in docs/eval-loop.md)", te.Field[strings.LastIndexByte(te.Field, '.')+1:], te.Value)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return fail(int64(len(data)), "the file ends early: it must be one JSON object {\"schema_version\":1,\"queries\":[...]}")
		}
		return fail(dec.InputOffset(), "%v", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErr(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fail(0, "a qrels file is one JSON object {\"schema_version\":1,\"queries\":[...]}")
	}
	q := &Qrels{Name: name}
	var version *float64
	sawQueries := false
	ids := map[string]int{}
	for dec.More() {
		keyOff := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonErr(err)
		}
		key, _ := tok.(string)
		switch key {
		case "schema_version":
			var v float64
			if err := dec.Decode(&v); err != nil {
				return nil, jsonErr(err)
			}
			version = &v
		case "queries":
			sawQueries = true
			tok, err := dec.Token()
			if err != nil {
				return nil, jsonErr(err)
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return nil, fail(keyOff, "\"queries\" must be an array of entries")
			}
			for dec.More() {
				off := skipSpace(data, dec.InputOffset())
				var rq rawQuery
				if err := dec.Decode(&rq); err != nil {
					return nil, jsonErr(err)
				}
				line := lineAt(data, off)
				e, err := rq.build(len(q.Queries) + 1)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: query entry %d: %w", name, line, len(q.Queries)+1, err)
				}
				e.Line = line
				if prev, dup := ids[e.ID]; dup {
					return nil, fmt.Errorf("%s:%d: query_id %q is already used on line %d: give each entry its own query_id", name, line, e.ID, prev)
				}
				ids[e.ID] = line
				q.Queries = append(q.Queries, e)
			}
			if _, err := dec.Token(); err != nil {
				return nil, jsonErr(err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, jsonErr(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonErr(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fail(dec.InputOffset(), "unexpected content after the qrels object")
	}
	switch {
	case version == nil:
		return nil, fail(0, "missing \"schema_version\": add \"schema_version\":1")
	case *version != 1:
		return nil, fail(0, "schema_version %v is not supported (this pgbrain reads version 1): upgrade pgbrain or convert the file", *version)
	case !sawQueries:
		return nil, fail(0, "missing \"queries\": add \"queries\":[...]")
	case len(q.Queries) == 0:
		return nil, fail(0, "\"queries\" is empty: add at least one judged query")
	}
	return q, nil
}

func (r rawQuery) build(n int) (Query, error) {
	var q Query
	if r.Query == nil || strings.TrimSpace(*r.Query) == "" {
		return q, errors.New("\"query\" is missing or empty: give the query text")
	}
	q.Text = *r.Query
	q.ID = fmt.Sprintf("#%d", n)
	if r.QueryID != nil {
		if *r.QueryID == "" {
			return q, errors.New("\"query_id\" is empty: give an id or leave the field out")
		}
		q.ID = *r.QueryID
	}
	q.Grades = Judged{}
	add := func(d Doc, g *float64) error {
		if d.Slug == "" {
			return errors.New("a relevant slug is empty")
		}
		if _, dup := q.Grades[d.Key()]; dup {
			return fmt.Errorf("%s is listed twice as relevant", d.Key())
		}
		grade := 1.0
		if g != nil {
			if math.IsNaN(*g) || math.IsInf(*g, 0) || *g <= 0 {
				return fmt.Errorf("grade %v for %s must be a positive number", *g, d.Key())
			}
			grade = *g
			q.Graded = true
		}
		q.Relevant = append(q.Relevant, d)
		q.Grades[d.Key()] = grade
		return nil
	}
	simple := r.RelevantSlugs != nil || r.FirstRelevantSlug != nil || r.Grades != nil
	explicit := r.Relevant != nil || r.ExpectedTop1 != nil
	switch {
	case simple && explicit:
		return q, errors.New("mixes relevant_slugs/first_relevant_slug/grades with relevant/expected_top1: use one shape per entry")
	case simple:
		if len(r.RelevantSlugs) == 0 {
			return q, errors.New("\"relevant_slugs\" is missing or empty: list at least one relevant slug")
		}
		for _, s := range r.RelevantSlugs {
			var g *float64
			if v, ok := r.Grades[s]; ok {
				g = &v
			}
			if err := add(Doc{SourceID: DefaultSource, Slug: s}, g); err != nil {
				return q, err
			}
		}
		for s := range r.Grades {
			if _, ok := q.Grades[Doc{SourceID: DefaultSource, Slug: s}.Key()]; !ok {
				return q, fmt.Errorf("\"grades\" names %q, which is not in relevant_slugs: add it there or remove its grade", s)
			}
		}
		if r.FirstRelevantSlug != nil {
			d := Doc{SourceID: DefaultSource, Slug: *r.FirstRelevantSlug}
			if _, ok := q.Grades[d.Key()]; !ok {
				return q, fmt.Errorf("first_relevant_slug %q is not in relevant_slugs: add it there", d.Slug)
			}
			q.ExpectedTop1 = &d
		}
	case explicit:
		if len(r.Relevant) == 0 {
			return q, errors.New("\"relevant\" is missing or empty: list at least one {\"source_id\",\"slug\"}")
		}
		for i, rd := range r.Relevant {
			if rd.SourceID == nil || *rd.SourceID == "" || rd.Slug == nil || *rd.Slug == "" {
				return q, fmt.Errorf("relevant[%d] needs both \"source_id\" and \"slug\"", i)
			}
			if err := add(Doc{SourceID: *rd.SourceID, Slug: *rd.Slug}, rd.Grade); err != nil {
				return q, err
			}
		}
		if e := r.ExpectedTop1; e != nil {
			if e.SourceID == nil || *e.SourceID == "" || e.Slug == nil || *e.Slug == "" {
				return q, errors.New("\"expected_top1\" needs both \"source_id\" and \"slug\"")
			}
			d := Doc{SourceID: *e.SourceID, Slug: *e.Slug}
			if _, ok := q.Grades[d.Key()]; !ok {
				return q, fmt.Errorf("expected_top1 %s is not in relevant: add it there", d.Key())
			}
			q.ExpectedTop1 = &d
		}
	default:
		return q, errors.New("no judgements: give \"relevant_slugs\" (default source) or \"relevant\":[{\"source_id\",\"slug\"}]")
	}
	return q, nil
}

// lineAt is the 1-based line holding byte offset off.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// skipSpace moves past whitespace and the separating comma to the next value.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
		default:
			return off
		}
	}
	return off
}
