package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/testdb"
)

// update rewrites testdata/*.golden from this run:
// go test ./cmd/pgbrain/ -run TestCLIGolden -update
var update = flag.Bool("update", false, "rewrite the CLI golden files in testdata/")

// goldenStep is one pgbrain invocation of the scripted session.
type goldenStep struct {
	args  []string
	stdin string
	// save keeps stdout in this file of the session's directory, for a
	// later step to read.
	save string
	// process runs the step in a child process: an unknown command ends
	// the process (cli.OsExiter), which would end the test binary.
	process bool
	// after is SQL run on the session's database once the step is done;
	// it prints nothing.
	after string
}

// TestCLIGolden pins what the CLI prints: every command's --help, and a
// session over the sample brain (init, import, list, get, search, query,
// the eval loop on the sample qrels, doctor, audit, pii, and the usual
// mistakes). Volatile parts (times, durations, ids, paths, hashes) are
// normalised; anything else that changes shows up as a diff against
// testdata/*.golden. Rewrite them with -update after an intended change.
func TestCLIGolden(t *testing.T) {
	t.Parallel()
	t.Run("help", func(t *testing.T) {
		t.Parallel()
		var out strings.Builder
		for _, path := range commandPaths(newApp(nil, nil, nil)) {
			args := append(append([]string{"pgbrain"}, path...), "--help")
			writeStep(&out, args, "", runCLI(args, ""))
		}
		checkGolden(t, "help", out.String(), nil)
	})
	t.Run("session", func(t *testing.T) {
		t.Parallel()
		db := testdb.EmptyDatabase(t)
		dir := t.TempDir()
		home := filepath.Join(dir, "home")
		if err := os.MkdirAll(home, 0o700); err != nil {
			t.Fatal(err)
		}
		// Capture is switched on by the home's config, not the environment,
		// so the test can run beside others.
		if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"eval":{"capture":true,"scrub_pii":true}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		down := "postgresql:///nope?host=/nonexistent-dir&user=x"
		export := filepath.Join(dir, "export.ndjson")
		base := filepath.Join(dir, "baseline.ndjson")
		steps := []goldenStep{
			{args: []string{"init"}},
			{args: []string{"init", "--embedder", "local"}},
			{args: []string{"import", sampleBrainDir}},
			// Vacuumed, as autovacuum soon does after an import: the
			// searches below then take half the time (see sampleBrain).
			{args: []string{"import", sampleBrainDir, "--json"}, after: "VACUUM"},
			{args: []string{"list", "--limit", "5"}},
			{args: []string{"list", "--type", "function", "--limit", "3", "--json"}},
			{args: []string{"get", "go/strings/func-cut"}},
			{args: []string{"get", "go/strings/func-cut", "--json"}},
			{args: []string{"sources", "list"}},
			{args: []string{"search", "http client timeout"}},
			{args: []string{"search", "read a file line by line", "--limit", "3", "--json"}},
			{args: []string{"query", "hashmap safe for concurrent use"}},
			{args: []string{"query", "parse a url query string", "--limit", "3", "--json"}},
			{args: []string{"query", "numbers too large for int64", "--detail", "low", "--limit", "5"}},
			{args: []string{"query", "the"}},
			{args: []string{"eval", "export"}, save: export},
			{args: []string{"bench", "publish", "--from", export, "--to", base, "--label", "golden"}},
			{args: []string{"eval", "replay", "--against", export}},
			{args: []string{"eval", "replay", "--against", export, "--json", "--verbose"}},
			{args: []string{"eval", "gate", "--qrels", sampleQrels}},
			{args: []string{"eval", "gate", "--baseline", base, "--threshold-latency", "1000000", "--json"}},
			{args: []string{"eval", "qrels", sampleQrels, "-k", "5"}},
			{args: []string{"put", "notes/golden"}, stdin: "---\ntitle: Golden\n---\n# Golden\n\nMail ann@example.com or call +1 415 555 0100.\n"},
			{args: []string{"pii", "scan"}},
			{args: []string{"pii", "show", "notes/golden"}},
			{args: []string{"delete", "notes/golden"}},
			{args: []string{"doctor"}},
			{args: []string{"doctor", "--json"}},
			{args: []string{"audit", "verify"}},
			{args: []string{"audit", "verify", "--full", "--json"}},
			// Mistakes.
			{args: []string{"get", "no/such-page"}},
			{args: []string{"get"}},
			{args: []string{"list", "--nope"}},
			{args: []string{"list", "--limit", "-1"}},
			{args: []string{"search"}},
			{args: []string{"query", "x", "--limit", "0"}},
			{args: []string{"query", "x", "--detail", "extreme"}},
			{args: []string{"import", sampleBrainDir, "--writers", "17"}},
			{args: []string{"eval", "gate"}},
			{args: []string{"eval", "replay", "--against", filepath.Join(dir, "missing.ndjson")}},
			{args: []string{"frobnicate"}, process: true},
			{args: []string{"eval", "frobnicate"}, process: true},
			{args: []string{"serch", "widgets"}, process: true},
			{args: []string{"sources", "remve", "x"}, process: true},
			{args: []string{"--database-url", down, "list"}},
		}
		var out strings.Builder
		for _, s := range steps {
			args := append([]string{"pgbrain", "--home", home}, s.args...)
			if s.args[0] != "--database-url" {
				args = append([]string{"pgbrain", "--database-url", db}, args[1:]...)
			}
			var r cliResult
			if s.process {
				r = runCLIProcess(t, args, s.stdin)
			} else {
				r = runCLI(args, s.stdin)
			}
			if s.after != "" {
				conn, err := pgx.Connect(context.Background(), db)
				if err != nil {
					t.Fatal(err)
				}
				_, err = conn.Exec(context.Background(), s.after)
				conn.Close(context.Background())
				if err != nil {
					t.Fatalf("%s after %v: %v", s.after, s.args, err)
				}
			}
			if s.save != "" {
				if err := os.WriteFile(s.save, []byte(r.stdout), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			writeStep(&out, args, s.stdin, r)
		}
		checkGolden(t, "session", out.String(), map[string]string{
			db:   "<DATABASE_URL>",
			dir:  "<TMP>",
			down: "<DOWN_URL>",
		})
	})
}

type cliResult struct {
	stdout, stderr string
	code           int
}

func runCLI(args []string, stdin string) cliResult {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return cliResult{out.String(), errOut.String(), code}
}

// goldenChildEnv holds the arguments of a child process of the test binary
// that runs the CLI (runCLIProcess) instead of the tests.
const goldenChildEnv = "PGBRAIN_GOLDEN_CHILD_ARGS"

// TestCLIGoldenChild is not a test: it is the CLI inside a child process of
// the test binary, started by runCLIProcess.
func TestCLIGoldenChild(t *testing.T) {
	raw, ok := os.LookupEnv(goldenChildEnv)
	if !ok {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, "bad", goldenChildEnv, err)
		os.Exit(100)
	}
	os.Exit(run(context.Background(), args, os.Stdin, os.Stdout, os.Stderr))
}

// runCLIProcess runs the CLI in a child process and reports what it
// printed and its exit status.
func runCLIProcess(t *testing.T, args []string, stdin string) cliResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIGoldenChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), goldenChildEnv+"="+string(raw))
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %v in a child process: %v", args, err)
	}
	return cliResult{out.String(), errOut.String(), code}
}

// commandPaths lists every command and subcommand, parents first, with the
// top level as the empty path.
func commandPaths(app *cli.App) [][]string {
	paths := [][]string{nil}
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string(nil), prefix...), c.Name)
			paths = append(paths, p)
			walk(p, c.Subcommands)
		}
	}
	walk(nil, app.Commands)
	return paths
}

func writeStep(w *strings.Builder, args []string, stdin string, r cliResult) {
	fmt.Fprintf(w, "$ %s\n", strings.Join(quoteArgs(args), " "))
	if stdin != "" {
		fmt.Fprintf(w, "--- stdin\n%s", withNewline(stdin))
	}
	fmt.Fprintf(w, "--- exit %d\n", r.code)
	if r.stdout != "" {
		fmt.Fprintf(w, "--- stdout\n%s", withNewline(r.stdout))
	}
	if r.stderr != "" {
		fmt.Fprintf(w, "--- stderr\n%s", withNewline(r.stderr))
	}
	w.WriteString("\n")
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$&?*") {
			a = fmt.Sprintf("%q", a)
		}
		out[i] = a
	}
	return out
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n[no newline at end]\n"
}

// volatile are the parts of the output that differ from run to run, each
// with what it is replaced by. Order matters: timestamps before numbers.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	// RFC 3339 times (capture times, window ends, checkpoint times).
	{regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?`), "<TIME>"},
	// Durations printed by import and replay.
	{regexp.MustCompile(`in \d+\.\d+s`), "in <DUR>s"},
	{regexp.MustCompile(`(Mean latency Δ: +)[+-]\d+ms`), "${1}<MS>ms"},
	{regexp.MustCompile(`Rows over 2× latency: \d+`), "Rows over 2× latency: <N>"},
	// Measured latencies and timings, and ids (pages and chunks are
	// numbered in the order parallel import writers commit them), in JSON.
	{regexp.MustCompile(`("(?:elapsed\w*|\w*latency_\w*|\w+_latency|latency_multiplier|\w*_ms|id|page_id|chunk_id)":\s*)-?[0-9][0-9.eE+-]*`), "${1}<N>"},
	{regexp.MustCompile(`("(?:over_2x_latency)":\s*)(true|false)`), "${1}<BOOL>"},
	{regexp.MustCompile(`("retrieved_chunk_ids":\s*)\[[0-9,\s]*\]`), "${1}[<IDS>]"},
	// Hashes of files that hold times (bench publish's source), and of the
	// audit chain.
	{regexp.MustCompile(`sha256:[0-9a-f]{64}`), "sha256:<HEX>"},
	{regexp.MustCompile(`(chain_hash"?:?\s*"?)[0-9a-f]{64}`), "${1}<HEX>"},
	// The migrations an empty database receives, and the schema version,
	// change with every release (and numbers may be reassigned on merge).
	{regexp.MustCompile(`pgbrain: applying migrations 1 to \d+ \(001_\S+ to \S+\)\n`), "pgbrain: applying migrations 1 to <LATEST> (001_<NAME> to <NAME>)\n"},
	{regexp.MustCompile(`(schema +)\d+ \(this pgbrain: \d+\)`), "${1}<LATEST> (this pgbrain: <LATEST>)"},
	{regexp.MustCompile(`("(?:database_schema|latest_schema)":\s*)\d+`), "${1}<LATEST>"},
}

// normalise replaces the run's own names (database, directories) and then
// the volatile parts.
func normalise(s string, names map[string]string) string {
	for from, to := range names {
		if from == "" {
			continue
		}
		s = strings.ReplaceAll(s, from, to)
		if esc := url.QueryEscape(from); esc != from {
			s = strings.ReplaceAll(s, esc, to)
		}
	}
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

func checkGolden(t *testing.T, name, got string, names map[string]string) {
	t.Helper()
	got = normalise(got, names)
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with: go test ./cmd/pgbrain/ -run TestCLIGolden -update)", err)
	}
	if got == string(want) {
		return
	}
	// The whole output, for a diff by hand.
	gotPath := filepath.Join(os.TempDir(), "pgbrain-"+name+".golden.got")
	_ = os.WriteFile(gotPath, []byte(got), 0o644)
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs from this run at line %d:\n want %q\n got  %q\n(rewrite it with -update if the change is intended; got %d lines, want %d; this run's output is in %s)", path, i+1, w, g, len(gl), len(wl), gotPath)
		}
	}
}
