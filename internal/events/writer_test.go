package events

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var testTime = time.Date(2026, 11, 21, 12, 0, 0, 123456000, time.UTC)

// seqEvent builds events whose lines all have the same length.
func seqEvent(i int) Event {
	return Event{
		Timestamp:       testTime,
		ServerSessionID: "session",
		Kind:            KindToolCall,
		ToolName:        "query",
		Status:          StatusSuccess,
		Message:         fmt.Sprintf("seq %06d", i),
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		return nil
	}
	if b[len(b)-1] != '\n' {
		t.Fatalf("%s does not end with a newline", path)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for _, l := range lines {
		if _, err := Parse([]byte(l)); err != nil {
			t.Fatalf("%s: bad line %q: %v", path, l, err)
		}
	}
	return lines
}

func messages(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, l := range readLines(t, path) {
		ev, _ := Parse([]byte(l))
		out = append(out, ev.Message)
	}
	return out
}

func seqs(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("seq %06d", i))
	}
	return out
}

func open(t *testing.T, path string, opts Options) (*Writer, *bytes.Buffer) {
	t.Helper()
	var errs bytes.Buffer
	if opts.Errors == nil {
		opts.Errors = &errs
	}
	w, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, &errs
}

func perm(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestOpenModes(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir, path string)
		wantDir  os.FileMode
		wantFile os.FileMode
	}{
		{
			name:     "fresh directory and file",
			setup:    func(t *testing.T, dir, path string) {},
			wantDir:  0o700,
			wantFile: 0o600,
		},
		{
			name: "loose existing file is tightened",
			setup: func(t *testing.T, dir, path string) {
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte{}, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, 0o666); err != nil {
					t.Fatal(err)
				}
			},
			wantDir:  0o700,
			wantFile: 0o600,
		},
		{
			name: "existing directory keeps its mode",
			setup: func(t *testing.T, dir, path string) {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			},
			wantDir:  0o755,
			wantFile: 0o600,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "home", "pgbrain")
			path := DefaultPath(dir)
			tt.setup(t, dir, path)
			w, _ := open(t, path, Options{})
			w.Write(seqEvent(0))
			if got := perm(t, dir); got != tt.wantDir {
				t.Errorf("dir mode = %o, want %o", got, tt.wantDir)
			}
			if got := perm(t, path); got != tt.wantFile {
				t.Errorf("file mode = %o, want %o", got, tt.wantFile)
			}
		})
	}
}

func TestOpenRejectsNonRegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want an error naming %s", err, path)
	}
}

func TestWriteAppendsOneLinePerEvent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(`{"timestamp":"2026-11-21T11:00:00Z","server_session_id":"old","kind":"server_event"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 12, 30, 0, 987654321, time.UTC)
	w, errs := open(t, path, Options{Now: func() time.Time { return now }})
	w.Write(Event{ServerSessionID: "s", Kind: KindToolCall, ToolName: "query",
		ArgsSummary: map[string]any{"query": "alice@example.com", "limit": 3}})
	lines := readLines(t, path)
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want the old line plus one", len(lines))
	}
	want := `{"timestamp":"2026-11-21T12:30:00.987654Z","server_session_id":"s","kind":"tool_call","tool_name":"query","args_summary":{"limit":3,"query":"<email>"},"duration_ms":0}`
	if lines[1] != want {
		t.Errorf("line\n got %s\nwant %s", lines[1], want)
	}
	if errs.Len() != 0 {
		t.Errorf("unexpected report: %s", errs)
	}
}

func TestRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	line, _ := seqEvent(0).MarshalJSON()
	lineLen := int64(len(line) + 1)
	maxBytes := 3*lineLen + lineLen/2 // room for three lines
	w, errs := open(t, path, Options{MaxBytes: maxBytes})
	rotated := RotatedPath(path)

	for i := 0; i < 4; i++ {
		w.Write(seqEvent(i))
	}
	if got, want := messages(t, rotated), seqs(0, 3); !slices.Equal(got, want) {
		t.Errorf("after first rotation .1 = %v, want %v", got, want)
	}
	if got, want := messages(t, path), seqs(3, 4); !slices.Equal(got, want) {
		t.Errorf("after first rotation active = %v, want %v", got, want)
	}

	for i := 4; i < 7; i++ {
		w.Write(seqEvent(i))
	}
	if got, want := messages(t, rotated), seqs(3, 6); !slices.Equal(got, want) {
		t.Errorf("after second rotation .1 = %v, want %v (older .1 replaced)", got, want)
	}
	if got, want := messages(t, path), seqs(6, 7); !slices.Equal(got, want) {
		t.Errorf("after second rotation active = %v, want %v", got, want)
	}
	for _, p := range []string{path, rotated} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > maxBytes {
			t.Errorf("%s is %d bytes, over MaxBytes %d", p, fi.Size(), maxBytes)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %o, want 600", p, fi.Mode().Perm())
		}
	}
	matches, _ := filepath.Glob(path + "*")
	if len(matches) != 2 {
		t.Errorf("files = %v, want only the active file and .1", matches)
	}
	if errs.Len() != 0 {
		t.Errorf("unexpected report: %s", errs)
	}
}

func TestOversizedEventStillWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w, _ := open(t, path, Options{MaxBytes: 10})
	w.Write(seqEvent(0))
	w.Write(seqEvent(1))
	if got := messages(t, RotatedPath(path)); !slices.Equal(got, seqs(0, 1)) {
		t.Errorf(".1 = %v", got)
	}
	if got := messages(t, path); !slices.Equal(got, seqs(1, 2)) {
		t.Errorf("active = %v", got)
	}
	if w.Dropped() != 0 {
		t.Errorf("dropped = %d", w.Dropped())
	}
}

func TestConcurrentWrites(t *testing.T) {
	tests := []struct {
		name     string
		maxBytes int64
	}{
		{"no rotation", 0},
		{"rotating", 8 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "events.jsonl")
			w, errs := open(t, path, Options{MaxBytes: tt.maxBytes})
			const workers, each = 32, 200
			var wg sync.WaitGroup
			for g := 0; g < workers; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < each; i++ {
						w.Write(Event{ServerSessionID: "s", Kind: KindToolCall, ToolName: "search",
							Message: fmt.Sprintf("%d/%d", g, i), ArgsSummary: map[string]any{"q": strings.Repeat("x", g*7)}})
					}
				}()
			}
			wg.Wait()
			seen := map[string]int{}
			files := []string{path}
			if tt.maxBytes > 0 {
				files = append(files, RotatedPath(path))
			}
			for _, p := range files {
				for _, m := range messages(t, p) {
					seen[m]++
				}
			}
			for m, n := range seen {
				if n != 1 {
					t.Errorf("%s seen %d times", m, n)
				}
			}
			if tt.maxBytes == 0 && len(seen) != workers*each {
				t.Errorf("got %d events, want %d", len(seen), workers*each)
			}
			if w.Dropped() != 0 || errs.Len() != 0 {
				t.Errorf("dropped %d, report %q", w.Dropped(), errs)
			}
		})
	}
}

func TestWriteFailureReportedOncePerKind(t *testing.T) {
	tests := []struct {
		name    string
		breakIt func(t *testing.T, w *Writer, path string)
		fix     func(t *testing.T, path string)
		want    string
	}{
		{
			name: "path replaced by a directory",
			breakIt: func(t *testing.T, w *Writer, path string) {
				must(t, os.Remove(path))
				must(t, os.Mkdir(path, 0o700))
			},
			fix:  func(t *testing.T, path string) { must(t, os.Remove(path)) },
			want: "is a directory",
		},
		{
			name: "parent directory replaced by a file",
			breakIt: func(t *testing.T, w *Writer, path string) {
				dir := filepath.Dir(path)
				must(t, os.RemoveAll(dir))
				must(t, os.WriteFile(dir, nil, 0o600))
			},
			fix:  func(t *testing.T, path string) { must(t, os.Remove(filepath.Dir(path))) },
			want: "not a directory",
		},
		{
			name: "descriptor cannot write",
			breakIt: func(t *testing.T, w *Writer, path string) {
				ro, err := os.Open(path)
				must(t, err)
				w.mu.Lock()
				w.f.Close()
				w.f = ro
				w.mu.Unlock()
			},
			fix: func(t *testing.T, path string) {
				// Moving the file away makes the writer reopen the path.
				must(t, os.Rename(path, path+".old"))
			},
			want: "bad file descriptor",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dir", "events.jsonl")
			w, errs := open(t, path, Options{})
			tt.breakIt(t, w, path)
			for i := 0; i < 5; i++ {
				w.Write(seqEvent(i)) // must return, not block or panic
			}
			if got := strings.Count(errs.String(), "\n"); got != 1 {
				t.Fatalf("got %d reports, want 1:\n%s", got, errs)
			}
			if !strings.Contains(errs.String(), tt.want) || !strings.Contains(errs.String(), "pgbrain: events:") {
				t.Errorf("report %q does not mention %q", errs, tt.want)
			}
			if w.Dropped() != 5 {
				t.Errorf("dropped = %d, want 5", w.Dropped())
			}
			tt.fix(t, path)
			w.Write(seqEvent(5))
			if got := messages(t, path); !slices.Equal(got, seqs(5, 6)) {
				t.Errorf("after recovery file holds %v", got)
			}
			if got := strings.Count(errs.String(), "\n"); got != 1 {
				t.Errorf("recovery added reports:\n%s", errs)
			}
		})
	}
}

func TestDistinctKindsEachReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w, errs := open(t, path, Options{})
	must(t, os.Remove(path))
	must(t, os.Mkdir(path, 0o700))
	w.Write(seqEvent(0))
	w.Write(seqEvent(1))
	must(t, w.Close())
	w.Write(seqEvent(2))
	w.Write(seqEvent(3))
	w.Write(Event{Timestamp: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	w.Write(Event{Timestamp: time.Date(10001, 1, 1, 0, 0, 0, 0, time.UTC)})
	sc := bufio.NewScanner(errs)
	var reports []string
	for sc.Scan() {
		reports = append(reports, sc.Text())
	}
	if len(reports) != 3 {
		t.Fatalf("got %d reports, want open, closed and encode once each:\n%s", len(reports), strings.Join(reports, "\n"))
	}
	for i, want := range []string{"is a directory", "file already closed", "year outside"} {
		if !strings.Contains(reports[i], want) {
			t.Errorf("report %d = %q, want it to mention %q", i, reports[i], want)
		}
	}
	if w.Dropped() != 6 {
		t.Errorf("dropped = %d, want 6", w.Dropped())
	}
}

func TestNilWriter(t *testing.T) {
	var w *Writer
	w.Write(seqEvent(0))
	if w.Dropped() != 0 || w.Path() != "" || w.Close() != nil {
		t.Fatal("nil writer must be a silent no-op")
	}
}

func TestResolvePath(t *testing.T) {
	tests := []struct {
		flag, env, home, want string
	}{
		{"/f/events.jsonl", "/e/events.jsonl", "/h", "/f/events.jsonl"},
		{"", "/e/events.jsonl", "/h", "/e/events.jsonl"},
		{"", "", "/h", "/h/events.jsonl"},
		{"", "", "/h/", "/h/events.jsonl"},
	}
	for _, tt := range tests {
		if got := ResolvePath(tt.flag, tt.env, tt.home); got != tt.want {
			t.Errorf("ResolvePath(%q, %q, %q) = %q, want %q", tt.flag, tt.env, tt.home, got, tt.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRotationFailureKeepsEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	// A directory at .1 makes the rename fail.
	must(t, os.Mkdir(RotatedPath(path), 0o700))
	w, errs := open(t, path, Options{MaxBytes: 10})
	for i := 0; i < 4; i++ {
		w.Write(seqEvent(i))
	}
	if got := messages(t, path); !slices.Equal(got, seqs(0, 4)) {
		t.Errorf("active file holds %v, want every event", got)
	}
	if w.Dropped() != 0 {
		t.Errorf("dropped = %d, want 0", w.Dropped())
	}
	if n := strings.Count(errs.String(), "\n"); n != 1 || !strings.Contains(errs.String(), "rotate") {
		t.Errorf("want one rotate report, got:\n%s", errs)
	}
}

func TestTornWriteIsolated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w, _ := open(t, path, Options{})
	w.Write(seqEvent(0))
	// Simulate a write that stopped part-way, as on a full disk.
	line, _ := seqEvent(1).MarshalJSON()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.Write(line[:20])
	must(t, err)
	must(t, f.Close())
	w.mu.Lock()
	w.torn = true
	w.mu.Unlock()
	w.Write(seqEvent(2))

	b, err := os.ReadFile(path)
	must(t, err)
	got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(got) != 3 || got[1] != string(line[:20]) {
		t.Fatalf("lines = %q, want the fragment alone on the middle line", got)
	}
	for _, i := range []int{0, 2} {
		if _, err := Parse([]byte(got[i])); err != nil {
			t.Errorf("line %d damaged: %v", i, err)
		}
	}
}
