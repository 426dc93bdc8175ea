package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/embed"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/internal/pgcluster"
	"github.com/pgbrain/pgbrain/internal/progress"
)

// homeDir resolves --home / $PGBRAIN_HOME, default ~/.pgbrain.
func homeDir(c *cli.Context) (string, error) {
	if h := c.String("home"); h != "" {
		return filepath.Abs(h)
	}
	// --home= (a variable that expanded to nothing) would quietly use, and
	// start a server for, ~/.pgbrain. An empty PGBRAIN_HOME reads as unset;
	// with a PGBRAIN_HOME, an empty value here came from the flag.
	if env, fromEnv := os.LookupEnv("PGBRAIN_HOME"); c.IsSet("home") && (!fromEnv || env != "") {
		return "", usageError("--home is empty: give pgbrain's home directory, or leave --home out for ~/.pgbrain")
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding your home directory (set PGBRAIN_HOME): %w", err)
	}
	return filepath.Join(u, ".pgbrain"), nil
}

func embeddedCluster(c *cli.Context) (*pgcluster.Cluster, error) {
	home, err := homeDir(c)
	if err != nil {
		return nil, err
	}
	return pgcluster.New(pgcluster.Options{
		Home:   home,
		BinDir: os.Getenv("PGBRAIN_PG_BIN"),
		Owner:  os.Getenv("PGBRAIN_CLUSTER_USER"),
	})
}

// databaseURL returns the URL to use and whether it is the embedded cluster
// (started on demand).
func databaseURL(c *cli.Context) (string, bool, error) {
	if u := c.String("database-url"); u != "" {
		return u, false, nil
	}
	cl, err := embeddedCluster(c)
	if err != nil {
		return "", false, err
	}
	u, err := cl.Ensure(c.Context)
	if err != nil {
		return "", false, fmt.Errorf("starting the embedded PostgreSQL (%s): %w", cl.Dir(), err)
	}
	return u, true, nil
}

// connectingRole runs a command as the role of its URL (the owner): for
// the commands that may run DDL or write what only the owner may
// (import, put, embed rebuild the HNSW index; doctor, token, eval prune,
// the probes, audit flush; docs/security.md). Every other command passes
// brain.RoleReader, RoleWriter or RoleAuditor, and serve runs as
// pgbrain_agent (openExistingBrain); TestRolesLeastPrivilegeOfEachCommand
// checks the role the server sees for each.
const connectingRole = ""

// defaultStatementTimeout bounds every statement of the roles that answer
// questions (reader, agent): a query no index can serve fails instead of
// holding a backend. PGBRAIN_STATEMENT_TIMEOUT overrides it ("0" is off).
const defaultStatementTimeout = "30s"

// accessFor is how the command's connections act: its role, and the
// statement timeout of reader and agent commands.
func accessFor(c *cli.Context, role string) brain.Access {
	a := brain.Access{Role: role}
	if t, ok := os.LookupEnv("PGBRAIN_STATEMENT_TIMEOUT"); ok && t != "" {
		a.StatementTimeout = t
	} else if role == brain.RoleReader || role == brain.RoleAgent {
		a.StatementTimeout = defaultStatementTimeout
	}
	return a
}

// withBrain runs fn with the brain opened as role (see connectingRole) and
// closes it when fn returns; fn's own deferred calls (draining captures)
// run before the close.
func withBrain(c *cli.Context, role string, fn func(ctx context.Context, b *brain.Brain) error) error {
	b, err := openBrain(c, role)
	if err != nil {
		return err
	}
	defer b.Close()
	return fn(c.Context, b)
}

// withEmbedder is withBrain for a command that computes vectors: fn also
// gets the embedder the client runs itself (nil for the local one).
func withEmbedder(c *cli.Context, role string, fn func(ctx context.Context, b *brain.Brain, emb embed.Embedder) error) error {
	return withBrain(c, role, func(ctx context.Context, b *brain.Brain) error {
		emb, err := clientEmbedder(b)
		if err != nil {
			return err
		}
		return fn(ctx, b, emb)
	})
}

// withProgress runs fn with a progress bar on stderr, shown only on a
// terminal and never with --json, and ends the bar's line when fn returns.
func withProgress[T any](c *cli.Context, label string, fn func(update func(done, total int)) (T, error)) (T, error) {
	bar := progress.New(c.App.ErrWriter, label, !c.Bool("json"))
	v, err := fn(bar.Update)
	bar.Done()
	return v, err
}

// openBrain connects to the brain as role. The embedded cluster is
// pgbrain's own, so it is initialised or upgraded on first use; another
// database must be set up explicitly with 'pgbrain init' or 'pgbrain
// migrate'. Prefer withBrain; openBrain is for a brain held across a run.
func openBrain(c *cli.Context, role string) (*brain.Brain, error) {
	u, embedded, err := databaseURL(c)
	if err != nil {
		return nil, err
	}
	access := accessFor(c, role)
	b, err := brain.OpenAs(c.Context, u, access)
	if embedded && err != nil {
		if errors.Is(err, brain.ErrNotInitialized) {
			fmt.Fprintln(c.App.ErrWriter, "pgbrain: initialising a new brain in the embedded cluster (local embedder)")
		}
		if merr := migrate.Migrate(c.Context, u, migrate.Options{}); merr != nil {
			return nil, merr
		}
		b, err = brain.OpenAs(c.Context, u, access)
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// clientEmbedder returns the embedder the client must run itself: nil for
// the local embedder (computed in SQL), an HTTP client for openai.
func clientEmbedder(b *brain.Brain) (embed.Embedder, error) {
	switch b.Settings.Embedder {
	case "local":
		return nil, nil
	case "openai":
		cfg, err := openai.FromEnv(b.Settings.Dim)
		if err != nil {
			return nil, err
		}
		cfg.Model = b.Settings.EmbedModel
		return openai.New(cfg)
	default:
		return nil, fmt.Errorf("brain.config names embedder %q, which this pgbrain does not know", b.Settings.Embedder)
	}
}

// restoreIndex rebuilds a vector index that a crashed command left
// suspended, before a command writes vectors (see internal/ingest/index.go).
// A running import that owns the index is left to rebuild it itself.
func restoreIndex(c *cli.Context, b *brain.Brain) error {
	rebuilt, err := ingest.RestoreIndex(c.Context, b)
	if errors.Is(err, ingest.ErrIndexBusy) {
		return nil
	}
	if err != nil {
		return err
	}
	if rebuilt {
		fmt.Fprintln(c.App.ErrWriter, "pgbrain: rebuilt the vector index, which an interrupted command had left suspended")
	}
	return nil
}

var sourceFlag = &cli.StringFlag{Name: "source", Value: "default", Usage: "source id"}

// errNoBrain explains why serve refuses to start without a brain: MCP
// clients launch it with almost no environment (the SDKs pass HOME, PATH
// and a few more), so a missing PGBRAIN_HOME or DATABASE_URL would silently
// open a new, empty brain instead of the user's.
func errNoBrain(where string) error {
	return cli.Exit("serve: no brain to serve: "+where+". serve never creates a brain. "+
		"Set PGBRAIN_HOME (or --home) to the home of an existing brain, or DATABASE_URL (or --database-url) to its database; "+
		"an MCP client passes neither unless its config has an env block, e.g. "+
		`"env": {"PGBRAIN_HOME": "/home/you/.pgbrain"}. `+
		"Create a brain with 'pgbrain init' or 'pgbrain import'. See docs/mcp.md.", 1)
}

// openExistingBrain is openBrain for serve: it upgrades an existing
// embedded brain but never initialises one.
func openExistingBrain(c *cli.Context) (*brain.Brain, error) {
	if c.String("database-url") == "" {
		cl, err := embeddedCluster(c)
		if err != nil {
			return nil, err
		}
		if !cl.Initialized() {
			home, err := homeDir(c)
			if err != nil {
				return nil, err
			}
			where := home
			if cl.Dir() != home {
				where = fmt.Sprintf("%s (its cluster would be %s)", home, cl.Dir())
			}
			return nil, errNoBrain(fmt.Sprintf("no database is configured and there is no embedded brain in %s", where))
		}
	}
	u, embedded, err := databaseURL(c)
	if err != nil {
		return nil, err
	}
	access := accessFor(c, brain.RoleAgent)
	b, err := brain.OpenAs(c.Context, u, access)
	switch {
	case errors.Is(err, brain.ErrNotInitialized) && embedded:
		return nil, errNoBrain("the embedded cluster holds no brain yet")
	case errors.Is(err, brain.ErrNotInitialized):
		return nil, errNoBrain("the configured database holds no brain yet")
	case err != nil && embedded:
		// An existing embedded brain of an older schema: upgrade it, as
		// every other command does.
		if merr := migrate.Migrate(c.Context, u, migrate.Options{}); merr != nil {
			return nil, merr
		}
		return brain.OpenAs(c.Context, u, access)
	}
	return b, err
}
