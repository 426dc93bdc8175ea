// Command bench measures pgbrain side by side in one run and prints ratios:
// `make bench` runs every suite; `go run ./tools/bench -suite import` one.
// Each suite starts from its own fresh database on one ephemeral cluster
// (or on TEST_DATABASE_URL), and the server is settled between suites (their
// databases dropped, a checkpoint, autovacuum idle), so suites do not disturb
// each other.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/pgcluster"
	"github.com/pgbrain/pgbrain/testdb"
)

// suite is one benchmark; it prints a markdown section to env.out.
type suite struct {
	name string
	run  func(ctx context.Context, env *benchEnv) error
	// slow suites (tens of minutes) run only with -slow or when named.
	slow bool
}

func suites() []suite {
	return []suite{
		{name: "import", run: benchImport},
		{name: "search", run: benchSearch},
		{name: "search-real", run: benchSearchReal},
		{name: "rowsecurity", run: benchRowSecurity},
		{name: "scale", run: benchScale},
		{name: "importquery", run: benchImportQuery, slow: true},
		{name: "capture", run: benchCapture},
		{name: "serve", run: benchServe},
		{name: "http", run: benchHTTP},
		{name: "audit", run: benchAudit},
		{name: "export", run: benchExport},
		{name: "longmemeval", run: benchLongMemEval},
		{name: "longmemeval-hard", run: benchLongMemEvalHard},
		{name: "hostile", run: benchHostile},
	}
}

// benchEnv is what every suite gets.
type benchEnv struct {
	out   io.Writer
	admin string // admin URL of the server
	pages int    // corpus size in pages (-pages)
	quick bool   // smaller sizes for a smoke run (-quick)
	scale []int  // brain sizes in pages for the scale suite (-scale)
	keep  bool   // leave the scale suite's brains in place (-keep)
	reuse bool   // time kept scale brains instead of importing again (-reuse)
	// keywordOnly imports the scale suite's brains without embeddings and
	// times only keyword search (-keyword-only): the 1,000,000-page point
	// of the keyword goal without the hours an HNSW build takes here.
	keywordOnly bool
	// nice is the importquery suite's import priority: on (lowered, the
	// default), off (--no-nice) or both, side by side (-nice).
	nice string
	// forget stops a database from being dropped after its suite (-keep).
	forget func(name string)
	// newDatabase returns the URL of a fresh, migrated database.
	newDatabase func(ctx context.Context, name string) (string, error)
}

// openBrain opens a brain on a fresh, migrated database called name.
func (e *benchEnv) openBrain(ctx context.Context, name string) (*brain.Brain, error) {
	u, err := e.newDatabase(ctx, name)
	if err != nil {
		return nil, err
	}
	return brain.Open(ctx, u)
}

func main() {
	only := flag.String("suite", "", "run only these suites (comma-separated)")
	pages := flag.Int("pages", 20000, "corpus size in pages")
	quick := flag.Bool("quick", false, "small sizes, to check the suites work")
	slow := flag.Bool("slow", false, "also run the slow suites (importquery: an hour or more at -pages 20000)")
	scale := flag.String("scale", "20000,200000", "brain sizes in pages for the scale suite (comma-separated; make bench-large adds 1000000)")
	keep := flag.Bool("keep", false, "scale suite: leave its brains in place (database pgbrain_bench_scale_N; useful with TEST_DATABASE_URL)")
	reuse := flag.Bool("reuse", false, "scale suite: time the brains a -keep run left instead of importing again")
	keywordOnly := flag.Bool("keyword-only", false, "scale suite: import without embeddings and time keyword search only (the 1,000,000-page keyword point in minutes instead of hours)")
	niceMode := flag.String("nice", "on", "importquery suite: import at lowered CPU priority (on), at the usual one (off), or both side by side (both)")
	flag.Parse()
	var sizes []int
	for _, f := range strings.Split(*scale, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "bench: -scale %q: want page counts separated by commas, such as 20000,200000\n", *scale)
			os.Exit(2)
		}
		sizes = append(sizes, n)
	}
	if *niceMode != "on" && *niceMode != "off" && *niceMode != "both" {
		fmt.Fprintf(os.Stderr, "bench: -nice %q: want on, off or both\n", *niceMode)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *only, *pages, *quick, *slow, runOptions{scale: sizes, keep: *keep, reuse: *reuse, keywordOnly: *keywordOnly, nice: *niceMode}); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// runOptions are the scale suite's flags.
type runOptions struct {
	scale       []int
	keep, reuse bool
	keywordOnly bool
	nice        string
}

func run(ctx context.Context, only string, pages int, quick, slow bool, o runOptions) error {
	admin := os.Getenv("TEST_DATABASE_URL")
	if admin == "" {
		dir, err := os.MkdirTemp("", "pgbrain-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		var c *pgcluster.Cluster
		c, admin, err = pgcluster.StartForTests(ctx, dir)
		if err != nil {
			return err
		}
		defer c.Destroy(context.WithoutCancel(ctx))
	}
	if quick && pages > 2000 {
		pages = 2000
	}
	var created []string // by the running suite
	env := &benchEnv{out: os.Stdout, admin: admin, pages: pages, quick: quick,
		scale: o.scale, keep: o.keep, reuse: o.reuse, keywordOnly: o.keywordOnly, nice: o.nice,
		newDatabase: func(ctx context.Context, name string) (string, error) {
			created = append(created, name)
			return testdb.CreateMigrated(ctx, admin, name, testdb.Options{})
		},
		forget: func(name string) {
			created = slices.DeleteFunc(created, func(s string) bool { return s == name })
		}}
	fmt.Fprintf(env.out, "# pgbrain bench, %s\n\n", time.Now().UTC().Format(time.RFC3339))
	for _, s := range suites() {
		if only != "" && !contains(strings.Split(only, ","), s.name) || only == "" && s.slow && !slow {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: running %s\n", s.name)
		if err := s.run(ctx, env); err != nil {
			return fmt.Errorf("suite %s: %w", s.name, err)
		}
		if err := settle(ctx, admin, created); err != nil {
			return fmt.Errorf("after suite %s: %w", s.name, err)
		}
		created = created[:0]
	}
	return nil
}

// settle leaves the server as the next suite should find it: the finished
// suite's databases dropped, its writes checkpointed, and no autovacuum
// worker still busy with them. Otherwise a suite that wrote gigabytes (the
// import) is still being vacuumed and flushed while a later one is timed.
func settle(ctx context.Context, admin string, dbs []string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, db := range dbs {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("dropping %s: %w", db, err)
		}
	}
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
		var busy int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`).Scan(&busy); err != nil {
			return err
		}
		if busy == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}
