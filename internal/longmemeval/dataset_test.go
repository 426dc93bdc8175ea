package longmemeval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Open finds every entry where Parse of the whole file does, whatever the
// white space, byte order mark or line endings around and inside entries.
func TestOpenFindsEveryEntry(t *testing.T) {
	t.Parallel()
	q := func(id string) string {
		return fmt.Sprintf(`{"question_id":"%s","question":"Where?","answer":"here",`+"\n"+
			`  "haystack_session_ids":["s-%s"],"haystack_sessions":[[{"role":"user","content":"line one\nline two, {not json]"}]]}`, id, id)
	}
	oneLine := func(id string) string { return strings.ReplaceAll(q(id), "\n  ", "") }
	cases := []struct {
		name  string
		data  string
		lines []int // of each entry's first byte
	}{
		{"array", "[" + q("a") + "," + q("b") + "]", []int{1, 2}},
		{"pretty array", "\ufeff\r\n[\r\n  " + q("a") + " ,\n\n  " + q("b") + "\n]\n", []int{3, 6}},
		{"long white space", strings.Repeat(" ", 5000) + "\n[" + strings.Repeat("\n", 3) + q("a") + "]", []int{5}},
		{"bom across a read", strings.Repeat(" ", 4095) + "\ufeff[" + q("a") + "]", []int{1}},
		{"jsonl", oneLine("a") + "\n" + oneLine("b") + "\n", []int{1, 2}},
		{"jsonl crlf, blanks, bom", "\ufeff" + oneLine("a") + "\r\n\r\n  " + oneLine("b") + "  \r\n\n" + oneLine("c"), []int{1, 3, 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.json")
			if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			d := openDataset(t, path)
			if d.Len() != len(c.lines) {
				t.Fatalf("%d entries, want %d", d.Len(), len(c.lines))
			}
			for i, line := range c.lines {
				got, err := d.Question(i)
				if err != nil {
					t.Fatal(err)
				}
				id := d.ID(i)
				if got.QuestionID != id || got.Line != line || got.Answer != "here" || len(got.HaystackSessions) != 1 ||
					got.HaystackSessions[0][0].Content != "line one\nline two, {not json]" {
					t.Errorf("entry %d = %+v (id %q), want line %d", i, got, id, line)
				}
			}
			parsed, err := Parse(path, []byte(c.data))
			if err != nil {
				t.Fatal(err)
			}
			var read []Question
			for i := 0; i < d.Len(); i++ {
				q, err := d.Question(i)
				if err != nil {
					t.Fatal(err)
				}
				read = append(read, q)
			}
			whole, err := ReadFile(path)
			if err != nil || !reflect.DeepEqual(read, parsed) || !reflect.DeepEqual(whole, parsed) {
				t.Errorf("read one at a time = %+v; ReadFile = %+v, %v; Parse = %+v", read, whole, err, parsed)
			}
		})
	}
}

// A run reads one question at a time, so an open dataset holds where its
// entries are and not their haystacks: what it keeps does not grow with
// the sessions.
//
// Not parallel: it measures the process's heap, which other tests' work
// would swell.
func TestOpenHoldsNoHaystack(t *testing.T) {
	// Eight haystacks of 256 KiB: holding even one of them passes the 256 KiB
	// bound below, and all of them (2 MiB) are what ReadFile must be seen to
	// hold for the measure to be trusted.
	const questions, sessionBytes = 8, 256 << 10
	var b bytes.Buffer
	b.WriteString("[")
	turn := strings.Repeat("I walked the dog along the river again today. ", sessionBytes/47)
	for i := 0; i < questions; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		e, err := json.Marshal(map[string]any{
			"question_id": fmt.Sprintf("q%d", i), "question": "Where did I walk the dog?",
			"haystack_session_ids": []string{"s"},
			"haystack_sessions":    [][]Turn{{{Role: "user", Content: turn}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(e)
	}
	b.WriteString("]")
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	size := b.Len()
	b = bytes.Buffer{}

	heldBy := func(open func() (any, error)) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v, err := open()
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(v)
		if after.HeapAlloc < before.HeapAlloc {
			return 0
		}
		return after.HeapAlloc - before.HeapAlloc
	}
	whole := heldBy(func() (any, error) { return ReadFile(path) })
	opened := heldBy(func() (any, error) {
		d, err := Open(path)
		if err == nil {
			t.Cleanup(func() { d.Close() })
		}
		return d, err
	})
	// The whole file in memory is the check that the measure works.
	if whole < uint64(size)/2 || opened > 256<<10 {
		t.Errorf("a %d-byte dataset: ReadFile holds %d bytes, Open %d (want under 256 KiB)", size, whole, opened)
	}
}

// A file changed under an open dataset is reported, not misread.
func TestDatasetChangedAfterOpen(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "d.jsonl")
	line := `{"question_id":"a","question":"q","haystack_session_ids":[],"haystack_sessions":[]}`
	if err := os.WriteFile(path, []byte(line+"\n"+strings.Replace(line, `"a"`, `"b"`, 1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := openDataset(t, path)
	if err := os.WriteFile(path, []byte(strings.Replace(line, `"a"`, `"x"`, 1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := d.Question(0)
	if err == nil || !strings.Contains(err.Error(), path+":1: the file changed after it was opened") {
		t.Errorf("changed entry: %v", err)
	}
	if _, err := d.Question(1); err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Errorf("entry past the new end: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	entry := `{"question_id":"%s","question":"q"}`
	cases := []struct{ name, data, want string }{
		{"bad json on line 4", "[\n" + fmt.Sprintf(entry, "a") + ",\n" + fmt.Sprintf(entry, "b") + ",\n" + `{"question_id": "c", "question": oops}` + "\n]", "d:4: not valid JSON"},
		{"unclosed", "[\n" + fmt.Sprintf(entry, "a") + ",\n", "d:3: the file ends inside the array"},
		{"not objects", "[1]", "d:1: not a JSON object but a number"},
		{"empty array", "[ ]", "the dataset holds no questions"},
		{"garbage line", fmt.Sprintf(entry, "a") + "\n\nnot json\n", "d:3: not a JSON object"},
		{"gzip", "\x1f\x8b\x08\x00rest", "d: the file is gzip-compressed"},
		{"lfs pointer", "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 277383467\n", "d: the file is a Git LFS pointer"},
		{"web page", "\n<!DOCTYPE html><html>", "d: the file is HTML or XML"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, "d")
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if d, err := Open(path); err == nil || !strings.Contains(err.Error(), strings.Replace(c.want, "d:", path+":", 1)) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
			if d != nil {
				d.Close()
			}
		}
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("a missing file: %v", err)
	}
}

// LongMemEval_S lists a few filler sessions twice for one question, with
// the same turns under two dates: such a session is kept once, with its
// first date. The same id over different turns is refused.
func TestRepeatedSessions(t *testing.T) {
	t.Parallel()
	entry := func(second string) string {
		return `{"question_id":"q1","question":"Where?","haystack_session_ids":["s1","s2","s1"],
		"haystack_dates":["2023/01/01 (Sun) 10:00","2023/01/02 (Mon) 10:00","2023/01/03 (Tue) 10:00"],
		"haystack_sessions":[[{"role":"user","content":"filler"}],[{"role":"user","content":"evidence"}],` + second + `]}`
	}
	qs, err := Parse("d.json", []byte("["+entry(`[{"role":"user","content":"filler"}]`)+"]"))
	if err != nil {
		t.Fatal(err)
	}
	q := qs[0]
	if !slices.Equal(q.HaystackSessionIDs, []string{"s1", "s2"}) || len(q.HaystackSessions) != 2 ||
		q.HaystackSessions[1][0].Content != "evidence" || !slices.Equal(q.HaystackDates, []string{"2023/01/01 (Sun) 10:00", "2023/01/02 (Mon) 10:00"}) ||
		!slices.Equal(q.RepeatedSessions, []string{"s1"}) {
		t.Errorf("question = %+v", q)
	}
	path := filepath.Join(t.TempDir(), "d.json")
	if err := os.WriteFile(path, []byte("["+entry(`[{"role":"user","content":"filler"}]`)+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := openDataset(t, path); d.Repeated() != 1 {
		t.Errorf("Repeated() = %d, want 1", d.Repeated())
	}
	_, err = Parse("d.json", []byte("["+entry(`[{"role":"user","content":"other"}]`)+"]"))
	if err == nil || !strings.Contains(err.Error(), `d.json:1: question q1: session "s1" appears twice in haystack_session_ids (at 0 and 2) with different turns`) {
		t.Errorf("different turns under one id: %v", err)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r    *bytes.Reader
	read int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.read += int64(n)
	return n, err
}

// A question over the bound is refused with its line, in either form,
// without the rest of it being read; one at the bound is read.
func TestQuestionSizeBound(t *testing.T) {
	t.Parallel()
	small := `{"question_id":"a","question":"q"}`
	big := `{"question_id":"b","question":"` + strings.Repeat("x", 1<<20) + `"}`
	huge := `{"question_id":"c","question":"` + strings.Repeat("x", 8<<20) + `"}`
	cases := []struct {
		name, data string
		limit      int
		want       string // "" when the scan must succeed
	}{
		{"array, at the bound", "[\n" + small + ",\n" + big + "\n]", len(big), ""},
		{"array, one byte over", "[\n" + small + ",\n" + big + "\n]", len(big) - 1, "f:3: this question is larger than"},
		{"array, far over", "[\n" + small + ",\n\n" + huge + ",\n" + small + "\n]", 4096, "f:4: this question is larger than 4096 bytes"},
		{"array, white space over the bound between questions",
			"[\n" + small + strings.Repeat(" \n", 5000) + ",\n" + strings.Replace(small, `"a"`, `"d"`, 1) + strings.Repeat("\t", 9000) + "\n]", 4096, ""},
		{"lines, at the bound", small + "\n" + big + "\n", len(big), ""},
		{"lines, one byte over", small + "\n" + big + "\n", len(big) - 1, "f:2: this question is larger than"},
		{"lines, far over, no line end", small + "\n\n" + huge, 4096, "f:3: this question is larger than 4096 bytes"},
		{"lines, byte order mark at the bound", "\ufeff" + small + "\n", len(small), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &countingReader{r: bytes.NewReader([]byte(c.data))}
			d, err := scan("f", r, int64(len(c.data)), nil, c.limit)
			if c.want == "" {
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				if d.Len() < 1 {
					t.Fatalf("scan found %d questions", d.Len())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "split the question") {
				t.Fatalf("err = %v, want %q and the fix", err, c.want)
			}
			// The scan stops soon after the bound: the file's reader is not
			// asked for the whole oversized question (bufio and the decoder
			// read ahead by at most their buffers).
			if c.limit < 1<<16 && r.read > int64(c.limit)+(2<<20) {
				t.Errorf("read %d bytes of a %d-byte file before refusing a question over %d bytes", r.read, len(c.data), c.limit)
			}
		})
	}
	if MaxQuestionBytes < 32<<20 {
		t.Errorf("MaxQuestionBytes = %d: LongMemEval_M's questions must fit", MaxQuestionBytes)
	}
}
