package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pgbrain/pgbrain/internal/markdown"
	"github.com/pgbrain/pgbrain/testdb"
)

// import names collisions and skipped entries on stderr and in --json,
// get accepts every slug exactly as list shows it, and a prune that would
// delete most of a source exits 1 and deletes nothing unless --force.
func TestImportNamesCollisionsAndSkippedEntries(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	for name, body := range map[string]string{
		"A B.md": "# A B\n\nspace\n", "a-b.md": "# a-b\n\nhyphen\n",
		"C++.md": "# C++\n\nclasses\n", "C.md": "# C\n\nno classes\n",
		"東京.md": "# 東京\n\n首都\n", "Café.md": "# Café\n\ncrème\n", "🎉.md": "# party\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := pgbrain(t, url, "", "import", "--no-embed", "--json", dir)
	var sum struct {
		Files, Added int
		Skipped      []struct{ Path, Reason string }
		Collisions   []struct {
			Path, Slug string
			PlainSlug  string `json:"plain_slug"`
			KeptBy     string `json:"kept_by"`
		}
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("import --json printed %q: %v", out, err)
	}
	suffixed := markdown.SuffixSlug("a-b", "A B.md")
	if code != 0 || sum.Files != 7 || sum.Added != 7 {
		t.Fatalf("import: code %d, %+v, stderr %q", code, sum, errOut)
	}
	if len(sum.Collisions) != 1 || sum.Collisions[0].Path != "A B.md" || sum.Collisions[0].Slug != suffixed || sum.Collisions[0].KeptBy != "a-b.md" {
		t.Fatalf("collisions = %+v, want A B.md stored as %s", sum.Collisions, suffixed)
	}
	if len(sum.Skipped) != 1 || sum.Skipped[0].Path != "pipe.md" || !strings.Contains(sum.Skipped[0].Reason, "FIFO") {
		t.Fatalf("skipped = %+v, want pipe.md named", sum.Skipped)
	}
	for _, want := range []string{"A B.md is stored as " + suffixed, "skipped pipe.md: named pipe (FIFO)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q does not say %q", errOut, want)
		}
	}

	// Every slug list shows is one get accepts.
	out, _, _ = pgbrain(t, url, "", "list", "--json")
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var p struct{ Slug string }
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatal(err)
		}
		if body, errOut, code := pgbrain(t, url, "", "get", p.Slug); code != 0 || body == "" {
			t.Errorf("get %q: code %d, %s", p.Slug, code, errOut)
		}
		n++
	}
	if n != 7 {
		t.Fatalf("list shows %d pages, want 7", n)
	}
	if body, _, code := pgbrain(t, url, "", "get", "cafe\u0301"); code != 0 || !strings.Contains(body, "crème") {
		t.Errorf("get of the NFD spelling: code %d, %q", code, body)
	}

	if _, errOut, code := pgbrain(t, url, "", "import", "--force", dir); code != 2 || !strings.Contains(errOut, "--force only applies to --prune") {
		t.Errorf("--force without --prune: code %d, %q", code, errOut)
	}
	empty := t.TempDir()
	out, errOut, code = pgbrain(t, url, "", "import", "--prune", empty)
	if code != 1 || !strings.Contains(errOut, "not pruned: pruning would delete 7 of the 7 imported pages") {
		t.Fatalf("prune of everything: code %d, out %q, stderr %q", code, out, errOut)
	}
	if out, _, _ = pgbrain(t, url, "", "list", "--json"); strings.Count(out, "\n") != 7 {
		t.Fatalf("pages after a refused prune: %q", out)
	}
	if _, _, code = pgbrain(t, url, "", "import", "--prune", "--force", empty); code != 0 {
		t.Fatalf("forced prune: code %d", code)
	}
	if out, _, _ = pgbrain(t, url, "", "list", "--json"); out != "" {
		t.Fatalf("pages after a forced prune: %q", out)
	}
}

// TestImportSaysWhyNothingWasImported: a folder holding no .md file, only
// other files, says what was left out and how to add them; a file given
// as the directory names put.
func TestImportSaysWhyNothingWasImported(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	for _, name := range []string{"a.markdown", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("# notes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// (the summary on stdout, the note on stderr)
	out, errOut, code := pgbrain(t, url, "", "import", dir)
	if code != 0 || !strings.Contains(out, "imported 0 files") || !strings.Contains(errOut, "no .md file found: 2 other files were left out") {
		t.Errorf("import of a folder without .md files: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, errOut, _ := pgbrain(t, url, "", "import", t.TempDir()); !strings.Contains(errOut, "no .md file found: the folder holds none") {
		t.Errorf("import of an empty folder: stderr %q, want it to say it holds no .md file", errOut)
	}
	file := filepath.Join(dir, "a.md")
	if err := os.WriteFile(file, []byte("# a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = pgbrain(t, url, "", "import", file)
	if code == 0 || !strings.Contains(errOut, "is not a directory; to add one file, use: pgbrain put SLUG <") {
		t.Errorf("import of a file: exit %d, stderr %q", code, errOut)
	}
}

// TestInitRefusesAnotherDimension: init on an existing brain with a
// --dim it was not created with fails, naming what was not applied; plain
// init there succeeds.
func TestInitRefusesAnotherDimension(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	if out, errOut, code := pgbrain(t, url, "", "init"); code != 0 {
		t.Fatalf("init: exit %d: %s %s", code, out, errOut)
	}
	_, errOut, code := pgbrain(t, url, "", "init", "--dim", "512")
	if code == 0 || !strings.Contains(errOut, "--dim 512 was not applied") {
		t.Errorf("init --dim 512 on an existing brain: exit %d, stderr %q; want a failure naming --dim 512", code, errOut)
	}
	// A dimension no index can hold is a usage error, on a new brain or
	// an existing one, before anything is looked at.
	for _, dim := range []string{"0", "-1", "2001"} {
		_, errOut, code := pgbrain(t, url, "", "init", "--dim", dim)
		if code != 2 || !strings.Contains(errOut, "--dim "+dim+" is out of range: choose 1..2000") {
			t.Errorf("init --dim %s: exit %d, stderr %q; want usage status 2 naming the range", dim, code, errOut)
		}
	}
}

// TestMigrateSaysWhenNothingIsPending: migrate on a brain at the newest
// version says so instead of printing only what a fresh migrate prints.
func TestMigrateSaysWhenNothingIsPending(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	out, errOut, code := pgbrain(t, url, "", "migrate")
	if code != 0 || !strings.Contains(out, "brain ready") || !strings.Contains(errOut, "already: no migration to apply") || strings.Contains(errOut, "applying migration") {
		t.Errorf("migrate at the newest version: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// A file name with a line break cannot print a stderr line of its own.
func TestImportQuotesNamesWithControlCharacters(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad\npgbrain: failed: fake.md"), []byte("caf\xe9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, _ := pgbrain(t, url, "", "import", dir)
	for _, line := range strings.Split(errOut, "\n") {
		if strings.HasPrefix(line, "pgbrain: failed: fake.md") {
			t.Errorf("stderr %q has a line forged by a file name", errOut)
		}
	}
	if !strings.Contains(errOut, `pgbrain: failed: "bad\npgbrain: failed: fake.md": `) {
		t.Errorf("stderr %q, want the name quoted", errOut)
	}
}

// doctor --strict turns a warning into exit status 1 (for cron and CI);
// plain doctor reports it and exits 0.
func TestDoctorStrictFailsOnWarnings(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nsome words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "import", "--no-embed", dir); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "doctor"); code != 0 || !strings.Contains(errOut, "no embedding") {
		t.Errorf("doctor with a stale chunk: exit %d, stderr %q; want 0 and the warning", code, errOut)
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "doctor", "--strict"); code != 1 {
		t.Errorf("doctor --strict with a warning: exit %d (%s), want 1", code, errOut)
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "doctor", "--strict", "--json"); code != 1 {
		t.Errorf("doctor --strict --json with a warning: exit %d (%s), want 1", code, errOut)
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "embed", "--stale"); code != 0 {
		t.Fatalf("embed --stale: %s", errOut)
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "doctor", "--strict"); code != 0 {
		t.Errorf("doctor --strict without warnings: exit %d, stderr %q", code, errOut)
	}
}
