package tail

import (
	"bytes"
	"slices"
	"testing"
)

type splitResult struct {
	lines []string
	bad   int
}

func splitChunks(max int, chunks ...string) (splitResult, *splitter) {
	s := &splitter{max: max}
	var r splitResult
	for _, c := range chunks {
		s.feed([]byte(c), func(line []byte, ok bool) error {
			if ok {
				r.lines = append(r.lines, string(line))
			} else {
				r.bad++
			}
			return nil
		})
	}
	return r, s
}

func TestSplitter(t *testing.T) {
	tests := []struct {
		name        string
		max         int
		chunks      []string
		wantLines   []string
		wantBad     int
		wantPending string
	}{
		{name: "whole lines", max: 100, chunks: []string{"a\nb\n"}, wantLines: []string{"a", "b"}},
		{name: "line split across reads", max: 100, chunks: []string{"ab", "c", "d\ne"}, wantLines: []string{"abcd"}, wantPending: "e"},
		{name: "empty lines kept", max: 100, chunks: []string{"\n\nx\n"}, wantLines: []string{"", "", "x"}},
		{name: "no newline at all", max: 100, chunks: []string{"abc"}, wantPending: "abc"},
		{name: "exactly max bytes", max: 3, chunks: []string{"abc\n"}, wantLines: []string{"abc"}},
		{name: "over max in one read", max: 3, chunks: []string{"abcd\nok\n"}, wantLines: []string{"ok"}, wantBad: 1},
		{name: "over max across reads", max: 3, chunks: []string{"ab", "cd", "ef\nok\n"}, wantLines: []string{"ok"}, wantBad: 1},
		{name: "held then over max on completion", max: 3, chunks: []string{"ab", "cd\n"}, wantBad: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, s := splitChunks(tt.max, tt.chunks...)
			if !slices.Equal(r.lines, tt.wantLines) || r.bad != tt.wantBad {
				t.Errorf("lines %q bad %d, want %q bad %d", r.lines, r.bad, tt.wantLines, tt.wantBad)
			}
			if string(s.buf) != tt.wantPending {
				t.Errorf("pending %q, want %q", s.buf, tt.wantPending)
			}
		})
	}
}

func FuzzSplitter(f *testing.F) {
	f.Add([]byte("a\nbc\n\nd"), uint8(1), uint8(3))
	f.Add([]byte(`{"timestamp":"x"}`+"\n"+`{"kind"`), uint8(7), uint8(0))
	f.Add([]byte("\n\n\n"), uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, step1, step2 uint8) {
		// Feeding in arbitrary chunk sizes must frame exactly like splitting
		// the whole input at once.
		var chunks []string
		steps := []int{int(step1)%16 + 1, int(step2)%16 + 1}
		for i, k := 0, 0; i < len(data); k++ {
			n := min(steps[k%2], len(data)-i)
			chunks = append(chunks, string(data[i:i+n]))
			i += n
		}
		r, s := splitChunks(1<<20, chunks...)
		parts := bytes.Split(data, []byte("\n"))
		var want []string
		for _, p := range parts[:len(parts)-1] {
			want = append(want, string(p))
		}
		if !slices.Equal(r.lines, want) || r.bad != 0 {
			t.Fatalf("lines %q bad %d, want %q", r.lines, r.bad, want)
		}
		if string(s.buf) != string(parts[len(parts)-1]) {
			t.Fatalf("pending %q, want %q", s.buf, parts[len(parts)-1])
		}
	})
}
