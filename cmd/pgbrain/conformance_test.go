package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// mcpTools is tests/mcp: the pinned conformance suite, TypeScript SDK and
// Node 22 that scripts/test.sh installs with npm ci.
const mcpTools = "../../tests/mcp"

// node22 is the Node binary the npm package node-<os>-<cpu> provides.
func node22(t *testing.T) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(mcpTools, "node_modules", "node-*-*", "bin", "node"))
	if len(m) == 0 {
		t.Fatalf("Node 22 and the MCP test tools are not installed in %s: run 'PGBRAIN_SETUP_TESTS=1 scripts/setup.sh' (make test does): 'npm ci' alone installs no Node", mcpTools)
	}
	abs, err := filepath.Abs(m[0])
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

var servingRE = regexp.MustCompile(`serving over MCP on (http://\S+)`)

// serveHTTP starts `pgbrain serve --http 127.0.0.1:0` and returns its URL;
// the server is stopped with SIGTERM when the test ends.
func serveHTTP(t *testing.T, bin, url string, extra ...string) string {
	t.Helper()
	args := append([]string{"--database-url", url, "--home", t.TempDir(), "serve", "--no-events", "--http", "127.0.0.1:0"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	var log bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
			log.WriteString(sc.Text() + "\n")
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve --http exited with %v", err)
			}
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("serve --http did not stop on SIGINT")
		}
	})
	select {
	case u := <-found:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http did not start")
	}
	return ""
}

// TestMCPConformance runs the official conformance suite against serve
// --http: every server scenario not in tests/mcp/conformance-skip.yml must
// pass.
func TestMCPConformance(t *testing.T) {
	t.Parallel()
	node := node22(t)
	suite, err := filepath.Abs(filepath.Join(mcpTools, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(mcpTools, "conformance-skip.yml"))
	if err != nil {
		t.Fatal(err)
	}
	skip := map[string]string{}
	if err := yaml.Unmarshal(raw, &skip); err != nil {
		t.Fatalf("conformance-skip.yml: %v", err)
	}
	out, err := exec.Command(node, suite, "list", "--server").CombinedOutput()
	if err != nil {
		t.Fatalf("listing scenarios: %v\n%s", err, out)
	}
	var scenarios []string
	for _, m := range regexp.MustCompile(`(?m)^\s+- ([a-z0-9-]+)`).FindAllStringSubmatch(string(out), -1) {
		scenarios = append(scenarios, m[1])
	}
	if len(scenarios) < 10 {
		t.Fatalf("the suite lists %d server scenarios:\n%s", len(scenarios), out)
	}
	for name, reason := range skip {
		if !slices.Contains(scenarios, name) {
			t.Errorf("conformance-skip.yml names %q, which the suite does not have", name)
		}
		if strings.TrimSpace(reason) == "" {
			t.Errorf("conformance-skip.yml gives no reason for %q", name)
		}
	}
	url := serveHTTP(t, pgbrainBinary(t), sampleBrainURL(t), "--no-auth")
	ran := 0
	for _, sc := range scenarios {
		if _, ok := skip[sc]; ok {
			continue
		}
		t.Run(sc, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := exec.CommandContext(ctx, node, suite, "server", "--url", url, "--scenario", sc).CombinedOutput()
			if err != nil {
				t.Fatalf("scenario %s failed (%v):\n%s", sc, err, out)
			}
			if !regexp.MustCompile(`Passed: [1-9]\d*/\d+, 0 failed`).Match(out) {
				t.Fatalf("scenario %s checked nothing:\n%s", sc, out)
			}
		})
		ran++
	}
	if ran == 0 {
		t.Fatal("every scenario is skipped")
	}
}

// TestTypeScriptSDKClient drives serve with the official TypeScript SDK
// client over stdio and over HTTP with a token (tests/mcp/client.mjs):
// structured content validates against the output schemas, and every
// sample page an agent may see (row security hides the sample's pages
// that hold credentials or card numbers) is listed through cursors and as
// resources.
func TestTypeScriptSDKClient(t *testing.T) {
	t.Parallel()
	node := node22(t)
	bin := pgbrainBinary(t)
	url := sampleBrainURL(t)
	secret, errOut, code := pgbrain(t, url, "", "token", "create", "ts-client")
	if code != 0 {
		t.Fatalf("token create: %s", errOut)
	}
	httpURL := serveHTTP(t, bin, url)
	script, err := filepath.Abs(filepath.Join(mcpTools, "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	var pages int
	conn := connect(t, url)
	var all int
	if err := conn.QueryRow(context.Background(), `SELECT count(*), count(*) FILTER (WHERE EXISTS (
		SELECT 1 FROM brain.page_pii t WHERE t.page_id = p.id AND t.agent_visible)) FROM brain.pages p`).Scan(&all, &pages); err != nil {
		t.Fatal(err)
	}
	if pages == 0 || pages == all {
		t.Fatalf("%d of the sample's %d pages visible to agents: the test needs some of each", pages, all)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"stdio", []string{"stdio", bin, "serve", "--no-events"}},
		{"http", []string{"http", httpURL, strings.TrimSpace(secret)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, append([]string{script}, tc.args...)...)
			cmd.Dir = mcpTools
			// The stdio server gets its brain only from the environment, as
			// from a client config's env block.
			cmd.Env = append(os.Environ(), "DATABASE_URL="+url, "PGBRAIN_HOME="+t.TempDir(),
				"OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("client.mjs %s: %v\n%s", tc.name, err, stderr.String())
			}
			var sum struct {
				Tools       []string `json:"tools"`
				Calls       int      `json:"calls"`
				ListedPages int      `json:"listed_pages"`
				Resources   int      `json:"resources"`
				Read        string   `json:"read"`
				Templates   []string `json:"templates"`
			}
			if err := json.NewDecoder(io.LimitReader(bytes.NewReader(out), 1<<20)).Decode(&sum); err != nil {
				t.Fatalf("summary %q: %v", out, err)
			}
			if want := []string{"get_page", "list_pages", "list_sources", "query", "search"}; !slices.Equal(sum.Tools, want) {
				t.Errorf("tools %v, want %v", sum.Tools, want)
			}
			if sum.ListedPages != pages || sum.Resources != pages {
				t.Errorf("listed %d pages and %d resources through cursors, want %d each", sum.ListedPages, sum.Resources, pages)
			}
			if sum.Read == "" || !slices.Equal(sum.Templates, []string{"pgbrain://{source}/{+slug}"}) {
				t.Errorf("resource read %q, templates %v", sum.Read, sum.Templates)
			}
		})
	}
}
