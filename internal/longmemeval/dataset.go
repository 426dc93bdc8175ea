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
	"io"
	"os"
	"slices"
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
	// RepeatedSessions names sessions the file lists more than once for
	// this question, with the same turns; only the first copy is kept.
	RepeatedSessions []string `json:"-"`
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

// Questions is where a run takes its questions from, in order. Len and ID
// cost nothing; Question may read the entry from a file.
type Questions interface {
	Len() int
	ID(i int) string
	Question(i int) (Question, error)
}

// QuestionList is a dataset held in memory.
type QuestionList []Question

func (l QuestionList) Len() int                         { return len(l) }
func (l QuestionList) ID(i int) string                  { return l[i].QuestionID }
func (l QuestionList) Question(i int) (Question, error) { return l[i], nil }

// Dataset is a dataset file opened for a run. Open reads the whole file once
// and checks every entry as Parse does, so a bad entry stops the run before
// it starts, but keeps only where each entry is: LongMemEval_M is 2.7 GB,
// and a run needs one question's haystack at a time. Question reads an
// entry again when the run reaches it.
type Dataset struct {
	name    string
	r       io.ReaderAt
	closer  io.Closer
	entries []entry
	// repeated counts the questions that list a session more than once.
	repeated int
}

// MaxQuestionBytes bounds one question of a dataset file, in either form:
// a run holds a question whole in memory (several times its size once
// parsed), and no LongMemEval question comes near it (LongMemEval_M's
// 2.7 GB are 500 questions). A larger entry is refused before it is read
// whole, naming its line.
const MaxQuestionBytes = 64 << 20

// errQuestionTooLarge is what the bounded readers below return past the
// bound.
var errQuestionTooLarge = errors.New("question too large")

// tooLarge is the error for an entry at line that is over limit bytes.
func tooLarge(name string, line int, limit int) error {
	size := fmt.Sprintf("%d bytes", limit)
	if limit%(1<<20) == 0 {
		size = fmt.Sprintf("%d MiB", limit>>20)
	}
	return fmt.Errorf("%s:%d: this question is larger than %s, more than a run holds in memory for one question: check that the file is the LongMemEval dataset, or split the question's haystack", name, line, size)
}

// entry is where one question is in the file.
type entry struct {
	id   string
	off  int64
	size int
	line int
}

var _ Questions = (*Dataset)(nil)

// Open opens and checks a dataset file. Close it when the run is over.
func Open(path string) (*Dataset, error) {
	return open(path, nil)
}

// open checks the dataset file at path, handing each question to keep (when
// set) as it is read.
func open(path string, keep func(Question)) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the dataset: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading the dataset: %w", err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("reading the dataset: %s is a directory: give the LongMemEval JSON or JSONL file", path)
	}
	d, err := scan(path, f, fi.Size(), keep, MaxQuestionBytes)
	if err != nil {
		f.Close()
		return nil, err
	}
	d.closer = f
	return d, nil
}

// Close releases the file.
func (d *Dataset) Close() error {
	if d.closer == nil {
		return nil
	}
	return d.closer.Close()
}

// Len is the number of questions.
func (d *Dataset) Len() int { return len(d.entries) }

// Repeated is how many questions list one of their sessions more than once
// (with the same turns each time); each such session is imported once.
func (d *Dataset) Repeated() int { return d.repeated }

// ID is question i's question_id.
func (d *Dataset) ID(i int) string { return d.entries[i].id }

// Question reads question i from the file.
func (d *Dataset) Question(i int) (Question, error) {
	e := d.entries[i]
	raw := make([]byte, e.size)
	if _, err := d.r.ReadAt(raw, e.off); err != nil {
		return Question{}, fmt.Errorf("%s:%d: reading question %s: %w", d.name, e.line, e.id, err)
	}
	q, err := parseQuestion(raw)
	if err == nil && q.QuestionID != e.id {
		err = fmt.Errorf("found question %q where %q was", q.QuestionID, e.id)
	}
	if err != nil {
		return Question{}, fmt.Errorf("%s:%d: the file changed after it was opened (%v): leave it alone during a run", d.name, e.line, err)
	}
	q.Line = e.line
	return q, nil
}

// ReadFile reads a whole dataset file into memory; a run over a large one
// should Open it instead.
func ReadFile(path string) ([]Question, error) {
	var qs []Question
	d, err := open(path, func(q Question) { qs = append(qs, q) })
	if err != nil {
		return nil, err
	}
	return qs, d.Close()
}

// Parse reads the public dataset in either of its forms: one JSON array of
// questions, or JSON Lines with one question per line. Errors name the file
// and line of the bad entry.
func Parse(name string, data []byte) ([]Question, error) {
	var qs []Question
	if _, err := scan(name, bytes.NewReader(data), int64(len(data)), func(q Question) { qs = append(qs, q) }, MaxQuestionBytes); err != nil {
		return nil, err
	}
	return qs, nil
}

// scan indexes and checks the dataset in r, of size bytes, which name
// names in errors, handing each question to keep when it is set. No
// question may be larger than limit bytes.
func scan(name string, r io.ReaderAt, size int64, keep func(Question), limit int) (*Dataset, error) {
	d := &Dataset{name: name, r: r}
	start, first, err := firstContent(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if start == size {
		return nil, fmt.Errorf("%s: the dataset is empty: give the LongMemEval JSON or JSONL file", name)
	}
	if err := notADataset(r, start, size); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	seen := map[string]int{}
	add := func(raw []byte, off int64, line int) error {
		q, err := parseQuestion(raw)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if prev, dup := seen[q.QuestionID]; dup {
			return fmt.Errorf("%s:%d: question_id %q already appears on line %d: remove one of them", name, line, q.QuestionID, prev)
		}
		seen[q.QuestionID] = line
		d.entries = append(d.entries, entry{id: q.QuestionID, off: off, size: len(raw), line: line})
		if len(q.RepeatedSessions) > 0 {
			d.repeated++
		}
		if keep != nil {
			q.Line = line
			keep(q)
		}
		return nil
	}
	if first == '[' {
		err = scanArray(name, r, size, start, limit, add)
	} else {
		err = scanLines(name, r, size, limit, add)
	}
	if err != nil {
		return nil, err
	}
	if len(d.entries) == 0 {
		return nil, fmt.Errorf("%s: the dataset holds no questions", name)
	}
	return d, nil
}

// notADataset recognises files that are often given by mistake: a
// compressed download, a Git LFS pointer (a clone of the dataset's
// repository without git-lfs) or a web page saved instead of the file.
func notADataset(r io.ReaderAt, start, size int64) error {
	head := make([]byte, min(64, size-start))
	if _, err := r.ReadAt(head, start); err != nil && err != io.EOF {
		return err
	}
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return errors.New("the file is gzip-compressed: decompress it first (gunzip)")
	case bytes.HasPrefix(head, []byte("version https://git-lfs")):
		return errors.New("the file is a Git LFS pointer, not the data: run `git lfs pull` in the dataset's clone, or download the file itself")
	case bytes.HasPrefix(head, []byte("<")):
		return errors.New("the file is HTML or XML, not the dataset: download the raw JSON file")
	}
	return nil
}

// firstContent finds the first byte that is not white space or a byte
// order mark.
func firstContent(r io.ReaderAt, size int64) (int64, byte, error) {
	buf := make([]byte, 4096)
	for off := int64(0); off < size; {
		n, err := r.ReadAt(buf, off)
		if n == 0 && err != nil {
			return 0, 0, err
		}
		b := buf[:n]
		rest := bytes.TrimLeft(b, " \t\r\n\ufeff")
		if len(rest) > 0 {
			// A BOM cut by the buffer's end leaves a byte of it behind.
			if k := len(b) - len(rest); rest[0] >= 0x80 && n == len(buf) && len(rest) < 3 && off+int64(n) < size {
				off += int64(k)
				continue
			}
			return off + int64(len(b)-len(rest)), rest[0], nil
		}
		off += int64(n)
	}
	return size, 0, nil
}

// gap skips white space from off (and commas, with commas set), returning
// where the next content starts and how many newlines it passed.
func gap(r io.ReaderAt, off, size int64, commas bool) (int64, int, error) {
	buf := make([]byte, 512)
	lines := 0
	for off < size {
		n, err := r.ReadAt(buf, off)
		if n == 0 && err != nil {
			return off, lines, err
		}
		for _, c := range buf[:n] {
			switch {
			case c == '\n':
				lines++
			case c == ' ' || c == '\t' || c == '\r' || (commas && c == ','):
			default:
				return off, lines, nil
			}
			off++
		}
	}
	return off, lines, nil
}

// lineOf is the line of byte off, counted from the file's start: only
// errors need it, so it reads the file again.
func lineOf(r io.ReaderAt, off, size int64) int {
	off = max(0, min(off, size))
	buf := make([]byte, 64<<10)
	line := 1
	for pos := int64(0); pos < off; {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), off-pos)], pos)
		line += bytes.Count(buf[:n], []byte{'\n'})
		pos += int64(n)
		if n == 0 || err != nil && err != io.EOF {
			break
		}
	}
	return line
}

// scanArray reads the JSON array form, whose "[" is at start.
func scanArray(name string, r io.ReaderAt, size, start int64, limit int, add func([]byte, int64, int) error) error {
	br := &boundedReader{r: r, pos: start, size: size, from: start, limit: int64(limit)}
	dec := json.NewDecoder(br)
	line := lineOf(r, start, size)
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%s:%d: %w", name, line, err)
	}
	end := start + 1 // of the previous value
	for {
		// The decoder reads the white space after a value before it sees
		// a comma or the end; the bound counts from where that ends, so
		// no amount of it reads as a question too large.
		blank, nl, err := gap(r, end, size, false)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		br.from = blank
		if !dec.More() {
			break
		}
		// Then the comma and the white space after it.
		at, nl2, err := gap(r, blank, size, true)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		line += nl + nl2
		var raw json.RawMessage
		br.from = at
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, errQuestionTooLarge) {
				return tooLarge(name, line, limit)
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("%s:%d: the file ends inside the array: is it cut short?", name, lineOf(r, size, size))
			}
			return fmt.Errorf("%s:%d: not valid JSON: %w", name, lineOf(r, syntaxErrorAt(r, at, size), size), err)
		}
		if len(raw) > limit {
			return tooLarge(name, line, limit)
		}
		if err := add(raw, at, line); err != nil {
			return err
		}
		line += bytes.Count(raw, []byte{'\n'})
		end = at + int64(len(raw))
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%s:%d: the array is not closed: %w", name, lineOf(r, size, size), err)
	}
	after := start + dec.InputOffset()
	if at, _, err := gap(r, after, size, false); err != nil || at < size {
		return fmt.Errorf("%s:%d: unexpected content after the array", name, lineOf(r, at, size))
	}
	return nil
}

// scanLines reads the JSON Lines form.
func scanLines(name string, r io.ReaderAt, size int64, limit int, add func([]byte, int64, int) error) error {
	br := bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 1<<20)
	var off int64
	for line := 1; ; line++ {
		b, err := readLine(br, limit+len("\ufeff"))
		if errors.Is(err, errQuestionTooLarge) {
			return tooLarge(name, line, limit)
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if len(b) == 0 && err == io.EOF {
			return nil
		}
		t := bytes.TrimSpace(b)
		if line == 1 {
			t = bytes.TrimPrefix(t, []byte("\ufeff"))
		}
		if len(t) > limit {
			return tooLarge(name, line, limit)
		}
		if len(t) > 0 {
			// t is a subslice of b: its offset in b is how much of b's
			// capacity precedes it.
			if err := add(t, off+int64(cap(b)-cap(t)), line); err != nil {
				return err
			}
		}
		off += int64(len(b))
		if err == io.EOF {
			return nil
		}
	}
}

// readLine is bufio.Reader.ReadBytes('\n') that gives up with
// errQuestionTooLarge once the line holds more than limit bytes (its line
// end and surrounding white space aside), before it has read the rest.
// (The caller checks the exact bound; this one only stops the reading.)
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		line = append(line, frag...)
		if len(bytes.TrimSpace(line)) > limit {
			return nil, errQuestionTooLarge
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// boundedReader reads r from pos on, as io.Reader, for the array form's
// JSON decoder, and never lets it read more than limit bytes past from,
// the start of the value being decoded: a larger value then fails with
// errQuestionTooLarge instead of being buffered whole. Values are at most
// limit bytes, so every value that fits is read in full; the caller checks
// the exact bound.
type boundedReader struct {
	r                      io.ReaderAt
	pos, size, from, limit int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.pos >= b.size {
		return 0, io.EOF
	}
	allow := b.from + b.limit + 1 - b.pos // one byte more shows the value goes on
	if allow <= 0 {
		return 0, errQuestionTooLarge
	}
	p = p[:min(int64(len(p)), allow, b.size-b.pos)]
	n, err := b.r.ReadAt(p, b.pos)
	b.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// syntaxErrorAt is where the JSON value starting at off goes wrong. A
// stream decoder's SyntaxError.Offset does not count what its Token and More
// calls read, so the value is decoded again on its own, where the offset
// (one past the bad byte) counts from the value's start.
func syntaxErrorAt(r io.ReaderAt, off, size int64) int64 {
	var raw json.RawMessage
	var se *json.SyntaxError
	if err := json.NewDecoder(io.NewSectionReader(r, off, size-off)).Decode(&raw); errors.As(err, &se) {
		return off + max(se.Offset-1, 0)
	}
	return off
}

// dropRepeatedSessions keeps the first of several haystack entries with one
// session id, when they hold the same turns, and records the id in
// q.RepeatedSessions. LongMemEval_S has such copies (the same filler
// session sampled twice for one question, under two dates); one session is
// one page. The same id over different turns is an error.
func dropRepeatedSessions(q *Question) error {
	first := make(map[string]int, len(q.HaystackSessionIDs))
	keep := 0
	for i, id := range q.HaystackSessionIDs {
		if id == "" {
			return fmt.Errorf("question %s: haystack_session_ids[%d] is empty", q.QuestionID, i)
		}
		if j, seen := first[id]; seen {
			if !slices.Equal(q.HaystackSessions[j], q.HaystackSessions[i]) {
				return fmt.Errorf("question %s: session %q appears twice in haystack_session_ids (at %d and %d) with different turns: give each session its own id", q.QuestionID, id, j, i)
			}
			q.RepeatedSessions = append(q.RepeatedSessions, id)
			continue
		}
		first[id] = keep
		q.HaystackSessionIDs[keep] = id
		q.HaystackSessions[keep] = q.HaystackSessions[i]
		if len(q.HaystackDates) > 0 {
			q.HaystackDates[keep] = q.HaystackDates[i]
		}
		keep++
	}
	q.HaystackSessionIDs = q.HaystackSessionIDs[:keep]
	q.HaystackSessions = q.HaystackSessions[:keep]
	if len(q.HaystackDates) > 0 {
		q.HaystackDates = q.HaystackDates[:keep]
	}
	return nil
}

func parseQuestion(raw []byte) (Question, error) {
	var r rawQuestion
	if err := json.Unmarshal(raw, &r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return Question{}, fmt.Errorf("not a JSON object but a %s: each question is an object", te.Value)
		}
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
	// A scored question whose answer sessions are all missing from its
	// haystack can never be found: a broken file, not a retrieval miss.
	if len(q.AnswerSessionIDs) > 0 && !q.Abstention() && !slices.ContainsFunc(q.AnswerSessionIDs, func(id string) bool {
		return slices.Contains(q.HaystackSessionIDs, id)
	}) {
		return q, fmt.Errorf("question %s: none of its answer_session_ids (%s) is in its haystack_session_ids, so it can never be found: check the file", q.QuestionID, strings.Join(q.AnswerSessionIDs, ", "))
	}
	if err := dropRepeatedSessions(&q); err != nil {
		return q, err
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
