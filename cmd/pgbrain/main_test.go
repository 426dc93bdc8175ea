package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/audit"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) {
	// Started under the name pgbrain (pgbrainBinary), the test binary is
	// the command itself, before anything of the tests' set-up runs.
	if filepath.Base(os.Args[0]) == cliName {
		main()
	}
	// A developer's own settings must not reach the tests. Cleared once,
	// here, the tests that only need them unset can run in parallel (a
	// test that calls t.Setenv cannot); a test that sets one still does so
	// with t.Setenv, and runs alone.
	for _, k := range hermeticEnv() {
		os.Unsetenv(k)
	}
	testdb.Main(m)
}

// cliName is the name under which the test binary runs as the command.
const cliName = "pgbrain"

// pgbrainBinary returns a path that runs the command as a process of its
// own, for tests that kill it, signal it, talk to it over stdio or start
// two at once: a link named pgbrain to this test binary, whose TestMain
// then runs main. The binary is the command's code as 'go build' compiles
// it (test files only add functions nothing in main calls), without a
// compile and link per test.
func pgbrainBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatalf("finding the test binary: %v", err)
	}
	bin := filepath.Join(t.TempDir(), cliName)
	if err := os.Symlink(self, bin); err != nil {
		t.Fatalf("linking the test binary as %s: %v", bin, err)
	}
	return bin
}

// hermeticEnv names the variables pgbrain reads that would change what a
// test sees: where the brain is, capture, audit keys, events, and every
// chat or embedding model.
func hermeticEnv() []string {
	env := []string{
		"PGBRAIN_HOME", "PGBRAIN_DATABASE_URL", "DATABASE_URL", "PGBRAIN_CONTRIBUTOR_MODE",
		"PGBRAIN_EVENTS_PATH", audit.EnvKey, audit.EnvKeyFile, audit.EnvCheckpoints,
		"PGBRAIN_STATEMENT_TIMEOUT", envJudgeModel,
		"PGBRAIN_CHAT_BASE_URL", "PGBRAIN_CHAT_MODEL", "PGBRAIN_CHAT_API_KEY", "PGBRAIN_CHAT_TEMPERATURE",
		"PGBRAIN_OPENAI_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY",
	}
	for n := 1; n <= 3; n++ {
		for _, s := range []string{"BASE_URL", "MODEL", "API_KEY"} {
			env = append(env, fmt.Sprintf("PGBRAIN_CROSSMODAL_%d_%s", n, s))
		}
	}
	return env
}

// connect opens a connection to url for checks in SQL, closed when the test
// ends.
func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// pgbrain runs the CLI in-process against url and returns stdout, stderr
// and the exit status.
func pgbrain(t *testing.T, url, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"pgbrain", "--database-url", url}, args...), strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestPageCommandsRoundTrip(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	page := "---\ntitle: Widget Co\ntype: company\n---\nWidget Co makes widgets.\n"
	if err := os.WriteFile(filepath.Join(dir, "widget-co.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.md"), []byte("\xff\xfe"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := pgbrain(t, url, "", "import", dir, "--writers", "1")
	if code != 1 || !strings.Contains(out, "1 added") || strings.Contains(out, "bad.md") || !strings.Contains(errOut, "pgbrain: failed: bad.md") {
		t.Fatalf("import with a bad file: code %d, stdout %q, stderr %q; want the summary on stdout and the failure on stderr", code, out, errOut)
	}
	out, _, code = pgbrain(t, url, "", "get", "widget-co")
	if code != 0 || out != page {
		t.Fatalf("get: code %d, %q", code, out)
	}
	if _, _, code := pgbrain(t, url, "# Put\n\nput body\n", "put", "notes/put"); code != 0 {
		t.Fatalf("put: code %d", code)
	}
	out, _, _ = pgbrain(t, url, "", "list", "--json")
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, `"slug":"notes/put"`) {
		t.Fatalf("list --json = %q", out)
	}
	if _, errOut, code := pgbrain(t, url, "", "delete", "notes/put"); code != 0 {
		t.Fatalf("delete: %d %s", code, errOut)
	}
	if _, errOut, code := pgbrain(t, url, "", "get", "notes/put"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Fatalf("get deleted: code %d, %q", code, errOut)
	}
	if _, _, code := pgbrain(t, url, "", "sources", "add", "team-a", "Team A"); code != 0 {
		t.Fatal("sources add failed")
	}
	out, _, _ = pgbrain(t, url, "", "sources", "list")
	if !strings.Contains(out, "team-a") || !strings.Contains(out, "default") {
		t.Fatalf("sources list = %q", out)
	}
	if _, errOut, code := pgbrain(t, url, "", "sources", "add", "Bad Id"); code != 1 || !strings.Contains(errOut, "not valid") {
		t.Fatalf("bad source id: %d %q", code, errOut)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	for _, args := range [][]string{
		{"get"},
		{"import"},
		{"import", ".", "--writers", "-1"},
		{"import", ".", "--writers", "17"},
		{"list", "--limit", "-1"},
		{"list", "--nope"},
		{"embed", "--stale", "--all"},
		{"init", "--embedder", "magic"},
	} {
		if _, errOut, code := pgbrain(t, url, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, errOut)
		}
	}
}

func TestDatabaseDownIsNamed(t *testing.T) {
	t.Parallel()
	_, errOut, code := pgbrain(t, "postgresql:///nope?host=/nonexistent-dir&user=x", "", "list")
	if code != 1 || !strings.Contains(errOut, "connecting") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// TestEmbeddedClusterFromTwoProcesses starts the command twice
// at once on a fresh home: both must succeed against one cluster.
func TestEmbeddedClusterFromTwoProcesses(t *testing.T) {
	t.Parallel()
	bin := pgbrainBinary(t)
	home := filepath.Join(t.TempDir(), "home")
	env := append(os.Environ(), "PGBRAIN_HOME="+home, "PGBRAIN_DATABASE_URL=", "DATABASE_URL=")
	t.Cleanup(func() {
		// Run as root, the cluster lives outside the home (under
		// /var/lib/pgbrain) when its owner cannot reach the home, so removing
		// the temporary home alone would leave it behind.
		cmd := exec.Command(bin, "db", "status", "--json")
		cmd.Env = env
		out, _ := cmd.Output()
		var st struct {
			Dir string `json:"dir"`
		}
		_ = json.Unmarshal(out, &st)
		cmd = exec.Command(bin, "db", "stop")
		cmd.Env = env
		cmd.Run()
		if st.Dir != "" {
			if err := os.RemoveAll(st.Dir); err != nil {
				t.Errorf("removing the test cluster: %v", err)
			}
		}
	})
	var wg sync.WaitGroup
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	for i := range outs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(bin, "list")
			cmd.Env = env
			outs[i], errs[i] = cmd.CombinedOutput()
		}(i)
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil {
			t.Fatalf("process %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	cmd := exec.Command(bin, "db", "status")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "running") {
		t.Fatalf("db status: %v\n%s", err, out)
	}
	cmd = exec.Command(bin, "db", "url")
	cmd.Env = env
	out, err = cmd.Output()
	if err != nil || !strings.HasPrefix(string(out), "postgresql://") {
		t.Fatalf("db url: %v %q", err, out)
	}
}

func TestFlagsAfterArguments(t *testing.T) {
	t.Parallel()
	app := newApp(nil, nil, nil)
	for _, tc := range []struct{ in, want string }{
		{"pgbrain get a/b --json", "pgbrain get --json -- a/b"},
		{"pgbrain --home /h get --source s a/b", "pgbrain --home /h get --source s -- a/b"},
		{"pgbrain list --limit 5", "pgbrain list --limit 5"},
		{"pgbrain sources add x --json", "pgbrain sources add --json -- x"},
		{"pgbrain get -- --json", "pgbrain get -- --json"},
		// A negated word is query text; a flag of the command is still a flag.
		{"pgbrain search -draft notes --limit 3", "pgbrain search --limit 3 -- -draft notes"},
		{"pgbrain query --limit 3 alpha -beta", "pgbrain query --limit 3 -- alpha -beta"},
		{"pgbrain get -draft", "pgbrain get -draft"},
		// Global flags after the command go back in front of it.
		{"pgbrain query shell --database-url postgres://x/db", "pgbrain --database-url postgres://x/db query -- shell"},
		{"pgbrain serve --home /h --no-events", "pgbrain --home /h serve --no-events"},
		{"pgbrain eval export --limit 2 --database-url=postgres://x/db", "pgbrain --database-url=postgres://x/db eval export --limit 2"},
	} {
		got := strings.Join(interspersed(app, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.in, got, tc.want)
		}
	}
}

func TestQueryAndSearchAreCapturedWhenOptedIn(t *testing.T) {
	url := testdb.New(t)
	home := t.TempDir()
	t.Setenv("PGBRAIN_CONTRIBUTOR_MODE", "1")
	if _, errOut, code := pgbrain(t, url, "# Alice\n\nAlice runs Widget Co.\n", "put", "people/alice"); code != 0 {
		t.Fatalf("put: %s", errOut)
	}
	for _, args := range [][]string{
		{"--home", home, "query", "who runs widget co, mail alice@example.com"},
		{"--home", home, "search", "widget", "--limit", "3"},
	} {
		if out, errOut, code := pgbrain(t, url, "", args...); code != 0 || !strings.Contains(out, "people/alice") {
			t.Fatalf("%v: code %d\n%s\n%s", args, code, out, errOut)
		}
	}
	out, errOut, code := pgbrain(t, url, "", "--home", home, "eval", "export")
	if code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("export printed %d rows, want 2:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, `{"schema_version":1,`) || !strings.Contains(l, `"remote":false`) || !strings.Contains(l, `"people/alice"`) {
			t.Errorf("export row %s", l)
		}
	}
	if strings.Contains(out, "alice@example.com") || !strings.Contains(out, "[REDACTED]") {
		t.Errorf("captured query was not scrubbed:\n%s", out)
	}
}
