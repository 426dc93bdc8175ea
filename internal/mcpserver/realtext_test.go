package mcpserver_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/mcpserver"
)

// manLines returns up to n non-empty lines of the machine's manual pages
// (roff source: dots, backslashes, quotes, braces, every script the
// translations hold).
func manLines(t *testing.T, n int) []string {
	t.Helper()
	files, _ := filepath.Glob("/usr/share/man/*/*.gz")
	if len(files) == 0 {
		t.Fatal("no manual pages under /usr/share/man: this test reads real roff text from them (apt-get install man-db manpages)")
	}
	var out []string
	for i := 0; i < len(files) && len(out) < n; i += max(1, len(files)/200) {
		f, err := os.Open(files[i])
		if err != nil {
			continue
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			continue
		}
		sc := bufio.NewScanner(io.LimitReader(zr, 1<<20))
		sc.Buffer(nil, 1<<20)
		for k := 0; sc.Scan() && k < 20 && len(out) < n; k++ {
			if l := strings.TrimSpace(sc.Text()); l != "" {
				out = append(out, l)
			}
		}
		f.Close()
	}
	return out
}

// TestManPageLinesAsFrames: lines of real manual pages sent as frames each
// get exactly one error answer (or, for the rare line that is valid JSON
// of the wrong shape, -32600), and the session still answers afterwards.
func TestManPageLinesAsFrames(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	lines := manLines(t, 400)
	w, answers, _ := stdioServer(t, b, &mcpserver.StdioTransport{}, context.Background())
	send(t, w, initFrame, initializedFrame)
	next(t, answers)
	for _, l := range lines {
		send(t, w, l)
		a := next(t, answers)
		if a.Error == nil || (a.Error.Code != -32700 && a.Error.Code != -32600) || string(a.ID) != "null" {
			t.Fatalf("line %q answered %s %+v", l, a.Result, a.Error)
		}
	}
	send(t, w, `{"jsonrpc":"2.0","id":"last","method":"ping"}`)
	if a := next(t, answers); string(a.ID) != `"last"` || a.Error != nil {
		t.Fatalf("ping after %d man-page lines answered %+v", len(lines), a)
	}
}

// debianDescriptions returns up to n package descriptions (short and long
// lines) from apt-cache dumpavail.
func debianDescriptions(t *testing.T, n int) []string {
	t.Helper()
	out, err := exec.Command("apt-cache", "dumpavail").Output()
	if err != nil || len(out) == 0 {
		t.Fatalf("apt-cache dumpavail: %v: this test reads real package descriptions (run on Debian or Ubuntu with package lists: apt-get update)", err)
	}
	var descs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	k := 0
	for sc.Scan() && len(descs) < n {
		l := sc.Text()
		if strings.HasPrefix(l, "Description: ") || (strings.HasPrefix(l, " ") && len(l) > 40) {
			k++
			if k%37 == 0 || strings.HasPrefix(l, "Description: ") && k%5 == 0 {
				descs = append(descs, strings.TrimPrefix(strings.TrimSpace(l), "Description: "))
			}
		}
	}
	return descs
}

// TestDebianTextSchemaAgreement: real package descriptions, whole and cut
// to the schema's limits, as list_pages types and as search queries: the
// server accepts exactly what the advertised schema accepts.
func TestDebianTextSchemaAgreement(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	h := start(t, b, nil)
	tools, err := h.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range tools.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		if schemas[tool.Name], err = s.Resolve(nil); err != nil {
			t.Fatal(err)
		}
	}
	descs := debianDescriptions(t, 150)
	if len(descs) < 50 {
		t.Fatalf("only %d descriptions from apt-cache dumpavail", len(descs))
	}
	checked := 0
	for _, d := range descs {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"list_pages", map[string]any{"type": d}},
			{"list_pages", map[string]any{"type": strings.Repeat(d, 1+100/max(1, len([]rune(d))))}},
			{"search", map[string]any{"query": d}},
			{"get_page", map[string]any{"slug": strings.ToLower(strings.ReplaceAll(d, " ", "-"))}},
		} {
			j, _ := json.Marshal(c.args)
			var inst map[string]any
			_ = json.Unmarshal(j, &inst)
			schemaOK := schemas[c.tool].Validate(inst) == nil
			res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatalf("%s %s: %v", c.tool, j, err)
			}
			out, _ := json.Marshal(res.StructuredContent)
			var a answer
			_ = json.Unmarshal(out, &a)
			serverOK := a.Error == nil || a.Error.Kind != "invalid_argument"
			if schemaOK != serverOK {
				t.Errorf("%s %.160s: schema accepts=%v, server accepts=%v (%s)", c.tool, j, schemaOK, serverOK, clipOut(out))
			}
			checked++
		}
	}
	t.Logf("%d calls with Debian package text", checked)
}
