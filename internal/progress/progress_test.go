package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A bar draws only on a terminal: a file, a pipe, /dev/null and a buffer
// stay untouched, so redirected stderr never fills with redraws.
func TestBarDrawsOnlyOnTerminals(t *testing.T) {
	open := func(t *testing.T, name string, flag int) *os.File {
		t.Helper()
		f, err := os.OpenFile(name, flag, 0o644)
		if err != nil {
			t.Fatalf("opening %s: %v", name, err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	tests := []struct {
		name string
		f    *os.File
		want bool
	}{
		{"regular file", open(t, filepath.Join(t.TempDir(), "log"), os.O_CREATE|os.O_WRONLY), false},
		{"/dev/null", open(t, os.DevNull, os.O_WRONLY), false},
		{"pipe", pw, false},
		{"pseudo-terminal", open(t, "/dev/ptmx", os.O_RDWR), true},
	}
	for _, tt := range tests {
		if got := IsTerminal(tt.f); got != tt.want {
			t.Errorf("%s: IsTerminal = %v, want %v", tt.name, got, tt.want)
		}
		if got := New(tt.f, "x", true).w != nil; got != tt.want {
			t.Errorf("%s: bar enabled = %v, want %v", tt.name, got, tt.want)
		}
		if New(tt.f, "x", false).w != nil {
			t.Errorf("%s: a disabled bar draws", tt.name)
		}
	}
	var buf bytes.Buffer
	b := New(&buf, "x", true)
	b.Update(1, 2)
	b.Done()
	if buf.Len() != 0 {
		t.Errorf("a bar on a buffer wrote %q", buf.String())
	}
}
