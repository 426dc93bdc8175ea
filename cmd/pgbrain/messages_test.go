package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/columns"
	"github.com/pgbrain/pgbrain/testdb"
)

// Commands that change something say what they changed on stderr, and an
// export that finds nothing says when that is because capture is off.
func TestCommandsSayWhatTheyDid(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	home := t.TempDir()
	steps := []struct {
		args       []string
		stdin      string
		wantErr    string
		notWantErr string
	}{
		{args: []string{"sources", "add", "work", "Work notes"}, wantErr: "pgbrain: added source work\n"},
		{args: []string{"put", "--no-embed", "--source", "work", "a"}, stdin: "# A\n\none\n"},
		{args: []string{"put", "--no-embed", "--source", "work", "b"}, stdin: "# B\n\ntwo\n"},
		{args: []string{"sources", "remove", "--with-pages", "work"}, wantErr: "pgbrain: removed source work and its 2 pages\n"},
		{args: []string{"sources", "add", "empty"}, wantErr: "pgbrain: added source empty\n"},
		{args: []string{"sources", "remove", "empty"}, wantErr: "pgbrain: removed source empty and its 0 pages\n"},
		{args: []string{"eval", "export"}, wantErr: "capture is off here (default), so this home records no queries: turn it on with PGBRAIN_CONTRIBUTOR_MODE=1"},
	}
	for _, s := range steps {
		_, errOut, code := pgbrain(t, url, s.stdin, append([]string{"--home", home}, s.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", s.args, code, errOut)
		}
		if !strings.Contains(errOut, s.wantErr) {
			t.Errorf("%v: stderr %q, want it to contain %q", s.args, errOut, s.wantErr)
		}
	}
	// With capture on, an empty export is just empty.
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"eval": {"capture": true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := pgbrain(t, url, "", "--home", home, "eval", "export"); code != 0 || strings.Contains(errOut, "capture is off") {
		t.Errorf("eval export with capture on: exit %d, stderr %q; want no capture-off hint", code, errOut)
	}
}

func TestSettingSourceReadsOnceInTheDoctorLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"default (off)": "default", "default (on)": "default", "config file": "config file", "PGBRAIN_CONTRIBUTOR_MODE": "PGBRAIN_CONTRIBUTOR_MODE"} {
		if got := settingSource(in); got != want {
			t.Errorf("settingSource(%q) = %q, want %q", in, got, want)
		}
	}
}

// put with a name that is not a slug names the slug import would give it.
func TestPutSuggestsTheSlugImportWouldUse(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	for name, want := range map[string]string{"Test/New Page": "test/new-page", "Café Notes": "café-notes", "a//b": "a/b"} {
		_, errOut, code := pgbrain(t, url, "# X\n\nbody\n", "put", "--no-embed", name)
		if code == 0 || !strings.Contains(errOut, `imports as "`+want+`": put it under that slug`) {
			t.Errorf("put %q: exit %d, %q; want a refusal suggesting %q", name, code, errOut, want)
			continue
		}
		if _, errOut, code := pgbrain(t, url, "# X\n\nbody\n", "put", "--no-embed", want); code != 0 {
			t.Errorf("put %q (the suggested slug): exit %d, %s", want, code, errOut)
		}
	}
	// A name with a segment of nothing a slug keeps would import under a
	// hash ("x3973e022"): no name to suggest.
	for _, name := range []string{"-", "!!!", "..", "notes/---"} {
		_, errOut, code := pgbrain(t, url, "# X\n\nbody\n", "put", "--no-embed", name)
		if code == 0 || !strings.Contains(errOut, "is not valid") || strings.Contains(errOut, "imports as") {
			t.Errorf("put %q: exit %d, %q; want a refusal suggesting no slug", name, code, errOut)
		}
	}
}

// list keeps its columns in line on a terminal when slugs or types hold
// wide characters.
func TestListAlignsWideCharacters(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	for slug, page := range map[string]string{"東京": "# 東京オフィス\n\n本社\n", "alice": "# Alice\n\nperson\n", "🎉-party": "# Party\n\nfun\n"} {
		if _, errOut, code := pgbrain(t, url, page, "put", "--no-embed", slug); code != 0 {
			t.Fatalf("put %s: %s", slug, errOut)
		}
	}
	out, errOut, code := pgbrain(t, url, "", "list")
	if code != 0 {
		t.Fatalf("list: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("list printed %d lines, want a header and 3 pages:\n%s", len(lines), out)
	}
	// The display column where TYPE (every page's is "page") starts.
	typeAt := func(l, word string) int { return columns.Width(l[:strings.Index(l, word)]) }
	for _, l := range lines[1:] {
		if got, want := typeAt(l, " page ")+1, typeAt(lines[0], "TYPE"); got != want {
			t.Errorf("row %q: TYPE column at display column %d, header's at %d:\n%s", l, got, want, out)
		}
	}
}

// db stop says it stopped a server only when one was running.
func TestDBStopSaysWhenNothingRan(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	r := runCLIProcess(t, []string{"pgbrain", "--home", home, "db", "stop"}, "")
	if r.code != 0 {
		t.Fatalf("db stop on a home without a cluster: exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "pgbrain: embedded PostgreSQL was not running") || strings.Contains(r.stderr, "stopped") {
		t.Errorf("db stop on a home without a cluster: stderr %q, want it to say nothing was running", r.stderr)
	}
}

// put refuses an empty stdin (a failed pipe) instead of blanking the page,
// unless --allow-empty; list refuses an unknown --source like search does.
func TestPutRefusesEmptyInputAndListAnUnknownSource(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	if _, errOut, code := pgbrain(t, url, "# Awk\n\npattern scanning\n", "put", "--no-embed", "awk"); code != 0 {
		t.Fatalf("put awk: %s", errOut)
	}
	for _, stdin := range []string{"", " \n\t\n"} {
		_, errOut, code := pgbrain(t, url, stdin, "put", "--no-embed", "awk")
		if code != 2 || !strings.Contains(errOut, "stdin is empty, so awk was not written") || !strings.Contains(errOut, "--allow-empty") {
			t.Errorf("put awk < %q: exit %d, %q; want a usage error naming --allow-empty", stdin, code, errOut)
		}
	}
	if out, _, _ := pgbrain(t, url, "", "get", "awk"); !strings.Contains(out, "pattern scanning") {
		t.Errorf("after refused empty puts, get awk = %q; want the page unchanged", out)
	}
	if _, errOut, code := pgbrain(t, url, "", "put", "--no-embed", "--allow-empty", "blank"); code != 0 {
		t.Errorf("put --allow-empty blank: exit %d, %s", code, errOut)
	}
	if _, errOut, code := pgbrain(t, url, "", "list", "--source", "nosuch"); code == 0 || !strings.Contains(errOut, `source "nosuch" does not exist`) {
		t.Errorf("list --source nosuch: exit %d, %q; want an error naming the source", code, errOut)
	}
}

// put of exactly an imported page's content says that the page is now one
// written by name (which import --prune keeps); a second such put does not.
func TestPutOfAnImportedPagesContentSaysItIsNowPut(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	const content = "# Awk\n\npattern scanning\n"
	writeFile(t, filepath.Join(dir, "awk.md"), content)
	if _, errOut, code := pgbrain(t, url, "", "import", "--no-embed", dir); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	const note = "is now a page written by name, which import --prune keeps"
	for i, want := range []bool{true, false} {
		_, errOut, code := pgbrain(t, url, content, "put", "--no-embed", "awk")
		if code != 0 || !strings.Contains(errOut, "unchanged awk") || strings.Contains(errOut, note) != want {
			t.Errorf("put %d of the imported content: exit %d, %q; want unchanged, note shown %v", i+1, code, errOut, want)
		}
	}
}

// An empty argument, as a shell variable that expanded to nothing gives,
// is a usage error naming what to give, not a lookup of nothing; an empty
// --home does not quietly fall back to ~/.pgbrain.
func TestEmptyArgumentsAreUsageErrors(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", ""}, "get: give exactly one slug"},
		{[]string{"delete", " "}, "delete: give exactly one slug"},
		{[]string{"import", ""}, "import: give exactly one directory"},
		{[]string{"put", ""}, "put: give exactly one slug"},
	} {
		_, errOut, code := pgbrain(t, url, "page\n", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("pgbrain %q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// An empty --home is refused whether PGBRAIN_HOME is set or not (with it
// set, the flag's empty value would otherwise fall back to ~/.pgbrain).
func TestEmptyHomeIsAUsageError(t *testing.T) {
	for _, env := range []string{"", "/nonexistent/pgbrain-home"} {
		t.Run("PGBRAIN_HOME="+env, func(t *testing.T) {
			if env == "" {
				t.Setenv("PGBRAIN_HOME", "x") // (so that Unsetenv is undone after the test)
				os.Unsetenv("PGBRAIN_HOME")
			} else {
				t.Setenv("PGBRAIN_HOME", env)
			}
			var out, errOut strings.Builder
			code := run(context.Background(), []string{"pgbrain", "--home=", "list"}, strings.NewReader(""), &out, &errOut)
			if code != 2 || !strings.Contains(errOut.String(), "--home is empty") {
				t.Errorf("pgbrain --home= list: exit %d, stderr %q; want exit 2 naming the empty --home", code, errOut.String())
			}
		})
	}
}
