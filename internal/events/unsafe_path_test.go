package events

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesSymlink: a link planted at the events path is neither
// followed nor is its target's mode changed, whether the target exists or not.
func TestOpenRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	must(t, os.WriteFile(target, []byte("precious\n"), 0o644))
	dangling := filepath.Join(dir, "nowhere")
	for name, dest := range map[string]string{"existing target": target, "dangling": dangling} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
			must(t, os.Symlink(dest, path))
			w, err := Open(path, Options{})
			if err == nil {
				w.Close()
				t.Fatalf("Open(%s -> %s) succeeded, want a refusal", path, dest)
			}
			if !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q should name the path and say it is a symbolic link", err)
			}
		})
	}
	if got := perm(t, target); got != 0o644 {
		t.Errorf("target mode = %v, want it left at 0644", got)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious\n" {
		t.Errorf("target content changed to %q", b)
	}
	if _, err := os.Lstat(dangling); !os.IsNotExist(err) {
		t.Errorf("a dangling link's target was created: %v", err)
	}
}

// TestWriteRefusesSymlinkSwappedIn: a link put in place of the file while
// the writer runs (it reopens the path after a rotation or removal) is not
// followed either; the event is dropped and reported.
func TestWriteRefusesSymlinkSwappedIn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	target := filepath.Join(dir, "target")
	must(t, os.WriteFile(target, nil, 0o644))
	w, errs := open(t, path, Options{})
	w.Write(seqEvent(1))
	must(t, os.Remove(path))
	must(t, os.Symlink(target, path))
	w.Write(seqEvent(2))
	if w.Dropped() != 1 {
		t.Errorf("Dropped() = %d, want 1", w.Dropped())
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Errorf("the link's target received %q", b)
	}
	if got := perm(t, target); got != 0o644 {
		t.Errorf("target mode = %v, want it left at 0644", got)
	}
	if !strings.Contains(errs.String(), "symbolic link") {
		t.Errorf("stderr %q does not report the link", errs.String())
	}
}

func TestOpenRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	must(t, syscall.Mkfifo(path, 0o600))
	done := make(chan error, 1)
	go func() {
		w, err := Open(path, Options{})
		if err == nil {
			w.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		// With no reader the open itself fails (ENXIO); with one, the
		// regular-file check refuses it. Either way: refused, not blocked.
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Open(fifo) = %v, want a refusal naming %s", err, path)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open(fifo) blocked")
	}
}

// TestOpenRefusesFileOfAnotherUser needs to create a file owned by someone
// else, which only root can; as any other user the test makes sure the
// check does not refuse the user's own file instead.
func TestOpenRefusesFileOfAnotherUser(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	must(t, os.WriteFile(path, nil, 0o600))
	if os.Getuid() != 0 {
		w, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("Open(own file) = %v", err)
		}
		w.Close()
		return
	}
	must(t, os.Chown(path, 65534, 65534))
	w, err := Open(path, Options{})
	if err == nil {
		w.Close()
		t.Fatal("Open(file owned by uid 65534) succeeded, want a refusal")
	}
	if !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("error %q should name the owner", err)
	}
}

// TestRefusedQueryLeavesNoSecretInFile: the finding of issue 14, at the
// writer: a refused search's arguments reach the file without the card
// number, the email inside the query or the credentials in it.
func TestRefusedQueryLeavesNoSecretInFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w, _ := open(t, path, Options{})
	secrets := []string{"4111 1111 1111 1111", "alice@example.com", "hunter2", "AKIAIOSFODNN7EXAMPLE",
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"}
	w.Write(Event{
		ServerSessionID: "s", Kind: KindToolCall, ToolName: "search", Status: StatusRefused, ErrorKind: "pii_blocked",
		ArgsSummary: map[string]any{"query": "who paid with 4111 1111 1111 1111, ask alice@example.com; password: hunter2",
			"sources": []any{"AKIAIOSFODNN7EXAMPLE aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}},
		Message: "token ghp_16C7e42F292c6912E7710c838347Ae178B4a",
	})
	must(t, w.Close())
	b, err := os.ReadFile(path)
	must(t, err)
	for _, s := range secrets {
		if strings.Contains(string(b), s) {
			t.Errorf("events file holds %q:\n%s", s, b)
		}
	}
	if !strings.Contains(string(b), "who paid with [REDACTED]") {
		t.Errorf("the query's ordinary words were lost:\n%s", b)
	}
}
