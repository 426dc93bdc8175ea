// Package longmemeval runs the public LongMemEval benchmark's retrieval:
// each question's haystack sessions become the pages of a brain emptied for
// that question (a scratch database beside the user's brain, never the
// user's brain itself), the question is searched, and one JSON line per
// question records what came back and whether the answer sessions were
// found.
package longmemeval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Turn is one message of a chat session.
type Turn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer,omitempty"`
}

// Question is one entry of the dataset.
type Question struct {
	QuestionID         string   `json:"question_id"`
	QuestionType       string   `json:"question_type"`
	Question           string   `json:"question"`
	Answer             string   `json:"-"`
	QuestionDate       string   `json:"question_date"`
	HaystackSessionIDs []string `json:"haystack_session_ids"`
	HaystackDates      []string `json:"haystack_dates"`
	HaystackSessions   [][]Turn `json:"haystack_sessions"`
	AnswerSessionIDs   []string `json:"answer_session_ids"`
	// Line is where the entry starts in its file.
	Line int `json:"-"`
}

// Abstention reports whether q is an abstention question: one whose answer
// was never said, marked by "_abs" in its id. Its answer_session_ids, if
// any, name related sessions rather than evidence, so, as in the
// benchmark's own scoring, it counts in no recall.
func (q Question) Abstention() bool { return strings.Contains(q.QuestionID, "_abs") }

type rawQuestion struct {
	Question
	Answer json.RawMessage `json:"answer"`
}

// ReadFile reads a dataset file.
func ReadFile(path string) ([]Question, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the dataset: %w", err)
	}
	return Parse(path, data)
}

// Parse reads the public dataset in either of its forms: one JSON array of
// questions, or JSON Lines with one question per line. Errors name the file
// and line of the bad entry.
func Parse(name string, data []byte) ([]Question, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: the dataset is empty: give the LongMemEval JSON or JSONL file", name)
	}
	var out []Question
	seen := map[string]int{}
	add := func(line int, raw []byte) error {
		q, err := parseQuestion(raw)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		q.Line = line
		if prev, dup := seen[q.QuestionID]; dup {
			return fmt.Errorf("%s:%d: question_id %q already appears on line %d: remove one of them", name, line, q.QuestionID, prev)
		}
		seen[q.QuestionID] = line
		out = append(out, q)
		return nil
	}
	if trimmed[0] == '[' {
		off := int64(len(data) - len(trimmed))
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("%s:1: %w", name, err)
		}
		for dec.More() {
			start := skipSpace(trimmed, dec.InputOffset())
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("%s:%d: not valid JSON: %w", name, lineAt(data, off+errOffset(err, start)), err)
			}
			if err := add(lineAt(data, off+start), raw); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("%s:%d: the array is not closed: %w", name, lineAt(data, int64(len(data))), err)
		}
		if rest := bytes.TrimSpace(trimmed[dec.InputOffset():]); len(rest) > 0 {
			return nil, fmt.Errorf("%s:%d: unexpected content after the array", name, lineAt(data, off+dec.InputOffset()))
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 1<<20), len(data)+1)
		for line := 1; sc.Scan(); line++ {
			b := bytes.TrimSpace(sc.Bytes())
			if line == 1 {
				b = bytes.TrimPrefix(b, []byte("\ufeff"))
			}
			if len(b) == 0 {
				continue
			}
			if err := add(line, b); err != nil {
				return nil, err
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: the dataset holds no questions", name)
	}
	return out, nil
}

func errOffset(err error, fallback int64) int64 {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fallback + se.Offset
	}
	return fallback
}

func parseQuestion(raw []byte) (Question, error) {
	var r rawQuestion
	if err := json.Unmarshal(raw, &r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Question{}, fmt.Errorf("field %q has the wrong type (%s): check the file is the LongMemEval format", strings.TrimPrefix(te.Field, "Question."), te.Value)
		}
		return Question{}, fmt.Errorf("not a JSON object: %w", err)
	}
	q := r.Question
	switch {
	case q.QuestionID == "":
		return q, errors.New("\"question_id\" is missing or empty")
	case q.Question == "":
		return q, fmt.Errorf("question %s: \"question\" is missing or empty", q.QuestionID)
	case len(q.HaystackSessionIDs) != len(q.HaystackSessions):
		return q, fmt.Errorf("question %s: %d haystack_session_ids but %d haystack_sessions: they must pair up", q.QuestionID, len(q.HaystackSessionIDs), len(q.HaystackSessions))
	case len(q.HaystackDates) != 0 && len(q.HaystackDates) != len(q.HaystackSessions):
		return q, fmt.Errorf("question %s: %d haystack_dates but %d haystack_sessions: give one date per session or none", q.QuestionID, len(q.HaystackDates), len(q.HaystackSessions))
	}
	if q.QuestionType == "" {
		q.QuestionType = "unknown"
	}
	ids := map[string]bool{}
	for i, id := range q.HaystackSessionIDs {
		if id == "" {
			return q, fmt.Errorf("question %s: haystack_session_ids[%d] is empty", q.QuestionID, i)
		}
		if ids[id] {
			return q, fmt.Errorf("question %s: session %q appears twice in haystack_session_ids", q.QuestionID, id)
		}
		ids[id] = true
	}
	// Answers are strings in most entries and numbers in a few.
	if len(r.Answer) > 0 && string(r.Answer) != "null" {
		var s string
		if err := json.Unmarshal(r.Answer, &s); err == nil {
			q.Answer = s
		} else {
			var n json.Number
			if err := json.Unmarshal(r.Answer, &n); err != nil {
				return q, fmt.Errorf("question %s: \"answer\" must be a string or a number", q.QuestionID)
			}
			q.Answer = n.String()
		}
	}
	return q, nil
}

func lineAt(data []byte, off int64) int {
	off = max(0, min(off, int64(len(data))))
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

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
