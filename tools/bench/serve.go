package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/markdown"
)

// benchServe drives `pgbrain serve` end to end: several server processes,
// each with its own MCP client over stdio, answer search and query calls
// concurrently. Every call must succeed, be evented and be captured. Then
// one process with events and one with --no-events take the same calls,
// interleaved, to show what the events file costs per call.
func benchServe(ctx context.Context, env *benchEnv) error {
	procs, calls, abCalls, pages := 4, 500, 500, 400
	if env.quick {
		procs, calls, abCalls, pages = 2, 50, 50, 150
	}
	dir, bin, url, seeded, err := serveFixture(ctx, env, "serve", pages)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	// Concurrent processes, contributor mode on so every call is captured.
	home := filepath.Join(dir, "home")
	capEnv := []string{"PGBRAIN_CONTRIBUTOR_MODE=1", "PGBRAIN_HOME=" + home}
	sessions := make([]*serveProc, procs)
	for i := range sessions {
		p, err := startServe(ctx, bin, url, home, capEnv, "--events-path", filepath.Join(dir, fmt.Sprintf("events-%d.jsonl", i)))
		if err != nil {
			closeAll(sessions)
			return err
		}
		sessions[i] = p
	}
	var (
		mu      sync.Mutex
		lat     []time.Duration
		errs    int
		firstEr error
		wg      sync.WaitGroup
	)
	start := time.Now()
	for i, p := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, calls)
			bad := 0
			var first error
			for j := 0; j < calls; j++ {
				d, err := serveCall(ctx, p, i*calls+j)
				if err != nil {
					bad++
					if first == nil {
						first = err
					}
					continue
				}
				local = append(local, d)
			}
			mu.Lock()
			lat = append(lat, local...)
			errs += bad
			if firstEr == nil {
				firstEr = first
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	// Closing waits for each process to exit, which drains its captures.
	if err := closeAll(sessions); err != nil {
		return err
	}
	if errs > 0 {
		return fmt.Errorf("%d of %d calls failed, first: %w", errs, procs*calls, firstEr)
	}
	evented := 0
	for i, p := range sessions {
		n, err := countToolEvents(p.events)
		if err != nil {
			return err
		}
		if n != calls {
			return fmt.Errorf("process %d wrote %d tool-call events for %d calls", i, n, calls)
		}
		evented += n
	}
	captured, audited, err := serveCounts(ctx, url)
	if err != nil {
		return err
	}
	if captured != procs*calls {
		return fmt.Errorf("%d remote eval captures for %d calls", captured, procs*calls)
	}
	if audited != procs*calls {
		return fmt.Errorf("%d audit rows for %d calls", audited, procs*calls)
	}
	s := summarize(lat)
	fmt.Fprintf(env.out, "## serve: %d processes x %d calls (search/query) over %d pages\n\n", procs, calls, seeded)
	fmt.Fprintln(env.out, "| calls | errors | wall s | calls/s | p50 ms | p99 ms | evented | captured | audited |")
	fmt.Fprintln(env.out, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	fmt.Fprintf(env.out, "| %d | %d | %.2f | %.0f | %.3f | %.3f | %d | %d | %d |\n\n",
		procs*calls, errs, wall.Seconds(), float64(procs*calls)/wall.Seconds(), s.p50, s.p99, evented, captured, audited)

	// Events on vs off: same calls, alternating which mode goes first.
	on, err := startServe(ctx, bin, url, home, nil, "--events-path", filepath.Join(dir, "events-ab.jsonl"))
	if err != nil {
		return err
	}
	off, err := startServe(ctx, bin, url, home, nil, "--no-events")
	if err != nil {
		closeAll([]*serveProc{on})
		return err
	}
	timings, err := serveAB(ctx, abCalls, on, off)
	if cerr := closeAll([]*serveProc{on, off}); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n, err := countToolEvents(on.events); err != nil || n != abCalls+abWarmup {
		return fmt.Errorf("events-on process wrote %d tool-call events for %d calls (%v)", n, abCalls+abWarmup, err)
	}
	printAB(env, fmt.Sprintf("serve: events on vs off, one process each, %d calls per mode, interleaved", abCalls),
		"events", timings[0], timings[1], 1.05)
	return nil
}

// serveProc is one `pgbrain serve` process and its MCP client session.
type serveProc struct {
	cmd    *exec.Cmd
	cs     *mcp.ClientSession
	stderr *bytes.Buffer
	events string // the events file, "" with --no-events
}

// buildPgbrain builds ./cmd/pgbrain into dir (run from the repository root).
// serveFixture prepares what a serve benchmark needs: a temporary folder
// (the caller removes it), the built binary in it, and a fresh database
// seeded with pages of the sample brain.
func serveFixture(ctx context.Context, env *benchEnv, name string, pages int) (dir, bin, url string, seeded int, err error) {
	dir, err = os.MkdirTemp("", "pgbrain-bench-"+name+"-")
	if err != nil {
		return "", "", "", 0, err
	}
	fail := func(err error) (string, string, string, int, error) {
		os.RemoveAll(dir)
		return "", "", "", 0, err
	}
	if bin, err = buildPgbrain(ctx, dir); err != nil {
		return fail(err)
	}
	if url, err = env.newDatabase(ctx, "pgbrain_bench_"+name); err != nil {
		return fail(err)
	}
	if seeded, err = seedSample(ctx, url, pages); err != nil {
		return fail(err)
	}
	return dir, bin, url, seeded, nil
}

func buildPgbrain(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "pgbrain")
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/pgbrain").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building pgbrain (run from the repository root): %w\n%s", err, out)
	}
	return bin, nil
}

// startServe starts `pgbrain serve` with serveArgs and connects to it.
// Capture is off unless extraEnv turns it on.
func startServe(ctx context.Context, bin, url, home string, extraEnv []string, serveArgs ...string) (*serveProc, error) {
	args := append([]string{"--database-url", url, "--home", home, "serve"}, serveArgs...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=",
		"PGBRAIN_CONTRIBUTOR_MODE=", "PGBRAIN_HOME="+home, events.EnvPath+"=")
	cmd.Env = append(cmd.Env, extraEnv...)
	p := &serveProc{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = p.stderr
	for i, a := range serveArgs {
		if a == "--events-path" && i+1 < len(serveArgs) {
			p.events = serveArgs[i+1]
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "pgbrain-bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w (stderr: %s)", strings.Join(args, " "), err, p.stderr.String())
	}
	p.cs = cs
	return p, nil
}

// closeAll closes every session (the server sees EOF and drains) and
// checks that each process exited cleanly.
func closeAll(ps []*serveProc) error {
	var errs []error
	for _, p := range ps {
		if p == nil || p.cs == nil {
			continue
		}
		if err := p.cs.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing a serve session: %w (stderr: %s)", err, p.stderr.String()))
			continue
		}
		if st := p.cmd.ProcessState; st == nil || st.ExitCode() != 0 {
			errs = append(errs, fmt.Errorf("serve exited with %v (stderr: %s)", st, p.stderr.String()))
		}
	}
	return errors.Join(errs...)
}

var serveQueries = []string{
	"http server handler", "json encoding struct tags", "context cancellation deadline",
	"read file bytes", "sort slice of strings", "time format layout", "mutex lock unlock",
	"tls certificate config", "regular expression match", "unicode letter digit",
	"buffered reader writer", "dial tcp timeout", "reflect value kind", "base64 encoding",
	"url query escape", "error wrapping unwrap", "goroutine wait group", "sha256 hash sum",
	"environment variable", "string builder append",
}

// serveCall makes call i: search or query, alternating, over the query list.
func serveCall(ctx context.Context, p *serveProc, i int) (time.Duration, error) {
	tool := "search"
	if (i/len(serveQueries))%2 == 1 {
		tool = "query"
	}
	q := serveQueries[i%len(serveQueries)]
	start := time.Now()
	res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"query": q}})
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("%s %q: %w", tool, q, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var env struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(raw, &env)
	switch {
	case res.IsError:
		return d, fmt.Errorf("%s %q: tool error %s", tool, q, raw)
	case env.Status == "error" || env.Status == "refused" || env.Status == "":
		return d, fmt.Errorf("%s %q: status %q: %s", tool, q, env.Status, raw)
	}
	return d, nil
}

// abWarmup is how many untimed calls serveAB makes on each session first.
const abWarmup = 10

// serveAB makes n calls on each of two sessions, alternating which goes
// first, and returns the per-call timings of a and of b.
func serveAB(ctx context.Context, n int, a, b *serveProc) ([2][]time.Duration, error) {
	var out [2][]time.Duration
	ps := [2]*serveProc{a, b}
	// Warm both processes up before timing.
	for i := 0; i < abWarmup; i++ {
		for _, p := range ps {
			if _, err := serveCall(ctx, p, i); err != nil {
				return out, err
			}
		}
	}
	for i := 0; i < n; i++ {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		for _, k := range order {
			d, err := serveCall(ctx, ps[k], i)
			if err != nil {
				return out, err
			}
			out[k] = append(out[k], d)
		}
	}
	return out, nil
}

// printAB prints an on/off table and the p50 ratio against its goal.
func printAB(env *benchEnv, title, what string, on, off []time.Duration, goal float64) {
	a, b := summarize(on), summarize(off)
	fmt.Fprintf(env.out, "## %s\n\n", title)
	fmt.Fprintf(env.out, "| %s | mean ms | p50 ms | p95 ms | p99 ms |\n", what)
	fmt.Fprintln(env.out, "|---|---:|---:|---:|---:|")
	fmt.Fprintf(env.out, "| on | %.3f | %.3f | %.3f | %.3f |\n", a.mean, a.p50, a.p95, a.p99)
	fmt.Fprintf(env.out, "| off | %.3f | %.3f | %.3f | %.3f |\n", b.mean, b.p50, b.p95, b.p99)
	fmt.Fprintf(env.out, "| on / off | %.2f | %.2f | %.2f | %.2f |\n\n", a.mean/b.mean, a.p50/b.p50, a.p95/b.p95, a.p99/b.p99)
	verdict := "met"
	if a.p50/b.p50 > goal {
		verdict = "NOT met"
	}
	fmt.Fprintf(env.out, "p50 ratio %.3f, goal <= %.2f: %s.\n\n", a.p50/b.p50, goal, verdict)
}

// countToolEvents counts the tool-call events in an events file.
func countToolEvents(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		ev, err := events.Parse(sc.Bytes())
		if err != nil {
			return n, fmt.Errorf("%s: %w", path, err)
		}
		if ev.Kind == events.KindToolCall {
			n++
		}
	}
	return n, sc.Err()
}

// serveCounts returns the remote eval captures and the audit rows.
func serveCounts(ctx context.Context, url string) (captured, audited int, err error) {
	b, err := brain.Open(ctx, url)
	if err != nil {
		return 0, 0, err
	}
	defer b.Close()
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE remote) FROM brain.eval_candidates`).Scan(&captured); err != nil {
		return 0, 0, err
	}
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.audit_log`).Scan(&audited); err != nil {
		return 0, 0, err
	}
	return captured, audited, nil
}

// seedSample puts up to n pages of sample/brain into the database at url.
func seedSample(ctx context.Context, url string, n int) (int, error) {
	root := filepath.Join("sample", "brain")
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("reading %s (run from the repository root): %w", root, err)
	}
	slices.Sort(files)
	b, err := brain.Open(ctx, url)
	if err != nil {
		return 0, err
	}
	defer b.Close()
	put := 0
	for _, f := range files {
		if put == n {
			break
		}
		rel, _ := filepath.Rel(root, f)
		slug := strings.TrimSuffix(filepath.ToSlash(rel), ".md")
		if !markdown.ValidSlug(slug) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return put, err
		}
		if _, err := ingest.PutPage(ctx, b, slug, data, ingest.Options{}); err != nil {
			return put, fmt.Errorf("putting %s: %w", slug, err)
		}
		put++
	}
	if put == 0 {
		return 0, errors.New("no sample pages could be put")
	}
	if _, err := b.Pool.Exec(ctx, `VACUUM ANALYZE brain.pages, brain.chunks`); err != nil {
		return put, err
	}
	return put, nil
}
