package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/tokens"
)

// benchHTTP drives `pgbrain serve --http`: several clients, each with its
// own token, call one server at once; every call must succeed and be
// evented, captured and audited. Then one HTTP session and one stdio
// process take the same calls, interleaved, for the per-call cost of HTTP.
func benchHTTP(ctx context.Context, env *benchEnv) error {
	clients, calls, abCalls, pages := 4, 500, 500, 400
	if env.quick {
		clients, calls, abCalls, pages = 2, 50, 50, 150
	}
	dir, bin, url, seeded, err := serveFixture(ctx, env, "http", pages)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	home := filepath.Join(dir, "home")

	b, err := brain.Open(ctx, url)
	if err != nil {
		return err
	}
	secrets := make([]string, clients+1)
	for i := range secrets {
		if secrets[i], err = tokens.Create(ctx, b.Pool, fmt.Sprintf("bench-%d", i), ""); err != nil {
			b.Close()
			return err
		}
	}
	b.Close()

	eventsPath := filepath.Join(dir, "events-http.jsonl")
	srv, err := startHTTPServe(ctx, bin, url, home, []string{"PGBRAIN_CONTRIBUTOR_MODE=1"},
		"--events-path", eventsPath, "--rate", "1000000", "--burst", "1000000")
	if err != nil {
		return err
	}
	sessions := make([]*serveProc, clients)
	for i := range sessions {
		if sessions[i], err = connectHTTPClient(ctx, srv.url, secrets[i]); err != nil {
			srv.stop()
			return err
		}
	}
	var (
		mu    sync.Mutex
		lat   []time.Duration
		errs  int
		first error
		wg    sync.WaitGroup
	)
	start := time.Now()
	for i, p := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < calls; j++ {
				d, err := serveCall(ctx, p, i*calls+j)
				mu.Lock()
				if err != nil {
					errs++
					if first == nil {
						first = err
					}
				} else {
					lat = append(lat, d)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	for _, p := range sessions {
		p.cs.Close()
	}
	if err := srv.stop(); err != nil {
		return err
	}
	if errs > 0 {
		return fmt.Errorf("%d of %d HTTP calls failed, first: %w", errs, clients*calls, first)
	}
	evented, err := countToolEvents(eventsPath)
	if err != nil {
		return err
	}
	captured, audited, err := serveCounts(ctx, url)
	if err != nil {
		return err
	}
	if evented != clients*calls || captured != clients*calls || audited != clients*calls {
		return fmt.Errorf("%d HTTP calls: %d evented, %d captured, %d audited", clients*calls, evented, captured, audited)
	}
	s := summarize(lat)
	fmt.Fprintf(env.out, "## http: %d clients (one token each) x %d calls (search/query) over %d pages, one serve --http\n\n", clients, calls, seeded)
	fmt.Fprintln(env.out, "| calls | errors | wall s | calls/s | p50 ms | p99 ms | evented | captured | audited |")
	fmt.Fprintln(env.out, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	fmt.Fprintf(env.out, "| %d | %d | %.2f | %.0f | %.3f | %.3f | %d | %d | %d |\n\n",
		clients*calls, errs, wall.Seconds(), float64(clients*calls)/wall.Seconds(), s.p50, s.p99, evented, captured, audited)

	// HTTP vs stdio: the same calls, alternating which goes first; events
	// and audit on for both, capture off for both.
	hs, err := startHTTPServe(ctx, bin, url, home, nil, "--events-path", filepath.Join(dir, "events-ab-http.jsonl"),
		"--rate", "1000000", "--burst", "1000000")
	if err != nil {
		return err
	}
	defer hs.stop()
	hp, err := connectHTTPClient(ctx, hs.url, secrets[clients])
	if err != nil {
		return err
	}
	sp, err := startServe(ctx, bin, url, home, nil, "--events-path", filepath.Join(dir, "events-ab-stdio.jsonl"))
	if err != nil {
		return err
	}
	timings, err := serveAB(ctx, abCalls, hp, sp)
	hp.cs.Close()
	if cerr := closeAll([]*serveProc{sp}); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := hs.stop(); err != nil {
		return err
	}
	printVs(env, fmt.Sprintf("http: serve --http vs stdio, one session each, %d calls per transport, interleaved", abCalls),
		"transport", "http", "stdio", timings[0], timings[1], 1.3)
	return nil
}

// httpServe is one `pgbrain serve --http` process.
type httpServe struct {
	cmd    *exec.Cmd
	url    string
	stderr *strings.Builder
	once   sync.Once
	err    error
}

var servingRE = regexp.MustCompile(`serving over MCP on (http://\S+)`)

func startHTTPServe(ctx context.Context, bin, url, home string, extraEnv []string, serveArgs ...string) (*httpServe, error) {
	args := append([]string{"--database-url", url, "--home", home, "serve", "--http", "127.0.0.1:0"}, serveArgs...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=",
		"PGBRAIN_CONTRIBUTOR_MODE=", "PGBRAIN_HOME="+home, events.EnvPath+"=")
	cmd.Env = append(cmd.Env, extraEnv...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(args, " "), err)
	}
	h := &httpServe{cmd: cmd, stderr: &strings.Builder{}}
	found := make(chan string, 1)
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
			mu.Lock()
			h.stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
	}()
	select {
	case h.url = <-found:
		return h, nil
	case <-time.After(60 * time.Second):
	case <-ctx.Done():
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	mu.Lock()
	defer mu.Unlock()
	return nil, fmt.Errorf("serve --http did not start (stderr: %s)", h.stderr.String())
}

// stop sends SIGTERM and waits: the server drains its calls and audit rows.
func (h *httpServe) stop() error {
	h.once.Do(func() {
		_ = h.cmd.Process.Signal(syscall.SIGTERM)
		if err := h.cmd.Wait(); err != nil {
			h.err = fmt.Errorf("serve --http exited with %v (stderr: %s)", err, h.stderr.String())
		}
	})
	return h.err
}

// bearerRT adds the token to every request.
type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connectHTTPClient(ctx context.Context, url, token string) (*serveProc, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "pgbrain-bench-http", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearerRT{token}}}, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", url, err)
	}
	return &serveProc{cs: cs}, nil
}

// printVs prints two rows and the p50 ratio of a over b against its goal.
func printVs(env *benchEnv, title, what, nameA, nameB string, a, b []time.Duration, goal float64) {
	x, y := summarize(a), summarize(b)
	fmt.Fprintf(env.out, "## %s\n\n", title)
	fmt.Fprintf(env.out, "| %s | mean ms | p50 ms | p95 ms | p99 ms |\n", what)
	fmt.Fprintln(env.out, "|---|---:|---:|---:|---:|")
	fmt.Fprintf(env.out, "| %s | %.3f | %.3f | %.3f | %.3f |\n", nameA, x.mean, x.p50, x.p95, x.p99)
	fmt.Fprintf(env.out, "| %s | %.3f | %.3f | %.3f | %.3f |\n", nameB, y.mean, y.p50, y.p95, y.p99)
	fmt.Fprintf(env.out, "| %s / %s | %.2f | %.2f | %.2f | %.2f |\n\n", nameA, nameB, x.mean/y.mean, x.p50/y.p50, x.p95/y.p95, x.p99/y.p99)
	verdict := "met"
	if x.p50/y.p50 > goal {
		verdict = "NOT met"
	}
	fmt.Fprintf(env.out, "p50 ratio %.3f, goal <= %.2f: %s.\n\n", x.p50/y.p50, goal, verdict)
}
