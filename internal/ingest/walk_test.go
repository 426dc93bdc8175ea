package ingest

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
)

func mkfile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func relsOf(files []walkFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.rel)
	}
	return out
}

func skippedMap(s []Skipped) map[string]string {
	m := map[string]string{}
	for _, k := range s {
		m[k.Path] = k.Reason
	}
	return m
}

// Every kind of entry the walk meets: what it imports, what it names as
// skipped, and whether the walk counts as complete.
func TestWalkDirNamesEverySkippedEntry(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	mkfile(t, filepath.Join(root, "a.md"), "a")
	mkfile(t, filepath.Join(root, "sub/b.md"), "b")
	mkfile(t, filepath.Join(root, "sub/deeper/c.MD"), "c")
	mkfile(t, filepath.Join(root, "image.png"), "not markdown")
	mkfile(t, filepath.Join(root, ".hidden/h.md"), "hidden")
	mkfile(t, filepath.Join(outside, "o.md"), "outside")
	symlink(t, outside, filepath.Join(root, "linked"))                   // directory outside: followed
	symlink(t, filepath.Join(root, "sub"), filepath.Join(root, "alias")) // second link to sub: walked once
	symlink(t, root, filepath.Join(root, "sub/loop"))                    // back to the root
	symlink(t, "../..", filepath.Join(root, "sub/up"))                   // to the root's parent: not followed
	symlink(t, "a.md", filepath.Join(root, "a-link.md"))                 // link to a file: imported under its name
	symlink(t, "gone.md", filepath.Join(root, "broken.md"))
	symlink(t, "self", filepath.Join(root, "self"))
	symlink(t, "missing.png", filepath.Join(root, "stale.png"))
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(root, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	res, err := walkDir(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a-link.md", "a.md", "linked/o.md", "sub/b.md", "sub/deeper/c.MD"}
	if got := relsOf(res.files); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("files = %q, want %q", got, want)
	}
	skipped := skippedMap(res.skipped)
	for path, reason := range map[string]string{
		"alias":     `directory already walked as "sub"`,
		"sub/loop":  `directory already walked as "."`,
		"sub/up":    "which holds the imported folder",
		"broken.md": `broken symlink to "gone.md"`,
		"self":      "symlink loop",
		"stale.png": `broken symlink to "missing.png"`,
		"pipe.md":   "named pipe (FIFO)",
		"sock":      "socket",
	} {
		if !strings.Contains(skipped[path], reason) {
			t.Errorf("skipped[%q] = %q, want it to say %q", path, skipped[path], reason)
		}
	}
	if len(skipped) != 8 {
		t.Errorf("skipped = %v, want exactly the 8 entries above", skipped)
	}
	// image.png; hidden entries are not counted.
	if res.notMarkdown != 1 {
		t.Errorf("notMarkdown = %d, want 1 (image.png)", res.notMarkdown)
	}
	// A broken .md link may have been a page: the walk is incomplete.
	if !res.incomplete {
		t.Error("walk with a broken .md symlink is complete; want incomplete")
	}
}

func TestWalkDirCompleteness(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(t *testing.T, root string)
		incomplete bool
	}{
		{"plain", func(t *testing.T, root string) {}, false},
		{"loop to the root", func(t *testing.T, root string) { symlink(t, root, filepath.Join(root, "loop")) }, false},
		{"broken link with another extension", func(t *testing.T, root string) { symlink(t, "x.png", filepath.Join(root, "y.png")) }, false},
		{"fifo not named .md", func(t *testing.T, root string) {
			if err := syscall.Mkfifo(filepath.Join(root, "p"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"broken link without extension", func(t *testing.T, root string) { symlink(t, "gone", filepath.Join(root, "dir")) }, true},
		{"fifo named .md", func(t *testing.T, root string) {
			if err := syscall.Mkfifo(filepath.Join(root, "p.md"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			mkfile(t, filepath.Join(root, "a.md"), "a")
			tt.setup(t, root)
			res, err := walkDir(root)
			if err != nil {
				t.Fatal(err)
			}
			if res.incomplete != tt.incomplete {
				t.Fatalf("incomplete = %v, want %v (skipped %v)", res.incomplete, tt.incomplete, res.skipped)
			}
			if len(res.files) != 1 || res.files[0].rel != "a.md" {
				t.Fatalf("files = %v, want a.md", relsOf(res.files))
			}
		})
	}
}

// A symlinked root is walked like the directory it names: the same files
// under the same relative paths.
func TestWalkDirFollowsSymlinkedRoot(t *testing.T) {
	root := t.TempDir()
	mkfile(t, filepath.Join(root, "a.md"), "a")
	mkfile(t, filepath.Join(root, "sub/b.md"), "b")
	link := filepath.Join(t.TempDir(), "link")
	symlink(t, root, link)
	direct, err := walkDir(root)
	if err != nil {
		t.Fatal(err)
	}
	viaLink, err := walkDir(link)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := strings.Join(relsOf(direct.files), ","), strings.Join(relsOf(viaLink.files), ","); a != b || a != "a.md,sub/b.md" {
		t.Fatalf("via link %q, direct %q; want both a.md,sub/b.md", b, a)
	}
	if viaLink.incomplete || len(viaLink.skipped) != 0 {
		t.Fatalf("walk through a symlinked root skipped %v", viaLink.skipped)
	}
}

// An oversized file is refused from its stat size: the walked file below
// does not exist, so any attempt to open it would report that instead.
func TestReadFileRefusesOversizedFilesUnread(t *testing.T) {
	_, err := readFile(walkFile{rel: "big.md", abs: filepath.Join(t.TempDir(), "absent.md"), size: 50 << 20})
	if err == nil || !strings.Contains(err.Error(), "52428800 bytes") || !strings.Contains(err.Error(), "10485760") || !strings.Contains(err.Error(), "not read") {
		t.Fatalf("readFile of a 50 MiB file: %v; want a refusal naming its size and the 10485760-byte limit", err)
	}
	// A file that grew after the walk is cut off at the limit, not read whole.
	p := filepath.Join(t.TempDir(), "grew.md")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, MaxFileBytes+4096); err != nil {
		t.Fatal(err)
	}
	if _, err := readFile(walkFile{rel: "grew.md", abs: p, size: 10}); err == nil || !strings.Contains(err.Error(), "grew past the limit") {
		t.Fatalf("readFile of a file that grew: %v; want a refusal", err)
	}
}

// asUnprivileged runs fn on a thread whose file-system uid is nobody's.
// Tests run as root, which reads any directory whatever its mode; a
// file-system uid other than 0 drops that privilege for the calling thread
// only (setfsuid(2)), so a directory of mode 000 fails to open exactly as it
// would for a normal user. The thread is discarded afterwards.
func asUnprivileged(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		if os.Getuid() == 0 {
			if err := syscall.Setfsuid(65534); err != nil {
				t.Errorf("setfsuid: %v", err)
				return
			}
		}
		fn()
	}()
	<-done
}

// makeUnreadable gives dir mode 000 and makes the directories above it
// searchable by everyone, so only dir itself is refused.
func makeUnreadable(t *testing.T, root, dir string) {
	t.Helper()
	for d := root; ; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if d == filepath.Dir(d) || filepath.Dir(d) == os.TempDir() || filepath.Dir(d) == "/tmp" {
			break
		}
	}
	if err := os.Chmod(dir, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
}

func TestWalkDirNamesUnreadableDirectory(t *testing.T) {
	root := t.TempDir()
	mkfile(t, filepath.Join(root, "a.md"), "a")
	mkfile(t, filepath.Join(root, "locked/b.md"), "b")
	mkfile(t, filepath.Join(root, "open/c.md"), "c")
	makeUnreadable(t, root, filepath.Join(root, "locked"))
	var res walkResult
	var err error
	asUnprivileged(t, func() {
		if _, e := os.ReadDir(filepath.Join(root, "locked")); e == nil {
			t.Error("a mode-000 directory is readable on the unprivileged thread; the test cannot cause the failure")
			return
		}
		res, err = walkDir(root)
	})
	if t.Failed() {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(relsOf(res.files), ","); got != "a.md,open/c.md" {
		t.Fatalf("files = %q, want a.md,open/c.md", got)
	}
	if reason := skippedMap(res.skipped)["locked"]; !strings.Contains(reason, "cannot read directory (permission denied)") {
		t.Fatalf("skipped = %v, want locked named with permission denied", res.skipped)
	}
	if !res.incomplete {
		t.Fatal("walk with an unreadable directory is complete; want incomplete")
	}
}

// An unreadable subfolder is named, everything else imports, and --prune
// deletes nothing, not even the pages whose files sat in that folder.
func TestImportDirWithUnreadableSubfolderDoesNotPrune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	root := t.TempDir()
	mkfile(t, filepath.Join(root, "a.md"), "# a\n")
	mkfile(t, filepath.Join(root, "locked/b.md"), "# b\n")
	mkfile(t, filepath.Join(root, "locked/c.md"), "# c\n")
	if _, err := ImportDir(ctx, b, root, Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	mkfile(t, filepath.Join(root, "new.md"), "# new\n")
	makeUnreadable(t, root, filepath.Join(root, "locked"))
	// Connections are opened now: the unprivileged thread below only uses
	// them (opening the server's socket is not what this test is about).
	if err := b.Pool.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	var sum Summary
	var err error
	asUnprivileged(t, func() { sum, err = ImportDir(ctx, b, root, Options{NoEmbed: true, Prune: true}) })
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 2 || sum.Added != 1 || sum.Unchanged != 1 || sum.Pruned != 0 {
		t.Fatalf("summary = %+v, want a.md unchanged, new.md added, nothing pruned", sum)
	}
	if len(sum.Skipped) != 1 || sum.Skipped[0].Path != "locked" || !strings.Contains(sum.Skipped[0].Reason, "permission denied") {
		t.Fatalf("skipped = %v, want locked named with permission denied", sum.Skipped)
	}
	if !strings.Contains(sum.PruneSkipped, "incomplete") {
		t.Fatalf("prune_skipped = %q, want the incomplete walk named", sum.PruneSkipped)
	}
	var n int
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.pages WHERE slug IN ('locked/b', 'locked/c')`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d of the locked folder's pages left (%v), want 2", n, err)
	}
}

// A root that is a symlink to a folder that is gone names the link's
// target.
func TestWalkDirNamesABrokenRootLink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "usb")
	symlink(t, filepath.Join(dir, "unmounted"), link)
	_, err := walkDir(link)
	if err == nil || !strings.Contains(err.Error(), "is a symlink to "+filepath.Join(dir, "unmounted")) {
		t.Errorf("walkDir of a broken root link: %v, want the target named", err)
	}
}
