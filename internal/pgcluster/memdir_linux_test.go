package pgcluster

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestTestHome: a test cluster's home is a new directory that others may
// enter (as root, the cluster's owner must), on /dev/shm exactly when that
// is a tmpfs with room, else in the default temporary directory.
func TestTestHome(t *testing.T) {
	a, err := TestHome("pgbrain-home-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(a)
	b, err := TestHome("pgbrain-home-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(b)
	if a == b {
		t.Fatalf("two homes share %s", a)
	}
	fi, err := os.Stat(a)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o755 {
		t.Fatalf("home %s: %v, %v; want a directory with mode 0755", a, fi.Mode(), err)
	}
	want := os.TempDir()
	var st syscall.Statfs_t
	if syscall.Statfs("/dev/shm", &st) == nil && st.Type == 0x01021994 && st.Bavail*uint64(st.Bsize) >= 4<<30 {
		want = "/dev/shm"
	}
	if got := filepath.Dir(a); got != filepath.Clean(want) {
		t.Errorf("home %s is in %s, want %s", a, got, want)
	}
}
