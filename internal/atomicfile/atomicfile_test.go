package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	for _, tc := range []struct {
		data string
		perm os.FileMode
	}{
		{"first\n", 0o600},
		{"second, longer than the first\n", 0o644},
		{"", 0o600},
	} {
		if err := Write(path, []byte(tc.data), tc.perm); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != tc.data {
			t.Fatalf("content %q, %v; want %q", got, err, tc.data)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != tc.perm {
			t.Fatalf("mode %v, %v; want %v", fi.Mode().Perm(), err, tc.perm)
		}
	}
	// Nothing is left beside it.
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("folder holds %v, %v; want only config.json", entries, err)
	}
}

func TestWriteFailureKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := Write(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A directory in the way of the rename: the write fails, the file that
	// was there (here: the directory) is untouched, no temporary is left.
	blocked := filepath.Join(dir, "sub")
	if err := os.Mkdir(blocked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(blocked, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := Write(blocked, []byte("new"), 0o600)
	if err == nil || !strings.Contains(err.Error(), blocked) {
		t.Fatalf("err = %v, want a failure naming %s", err, blocked)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Fatalf("folder holds %v after a failed write, want f and sub", entries)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("f = %q, want old", got)
	}
}
