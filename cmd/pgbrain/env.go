package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/client/brain"
	"github.com/pgbrain/pgbrain/client/embed"
	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/client/openai"
	"github.com/pgbrain/pgbrain/client/pgcluster"
)

// homeDir resolves --home / $PGBRAIN_HOME, default ~/.pgbrain.
func homeDir(c *cli.Context) (string, error) {
	if h := c.String("home"); h != "" {
		return filepath.Abs(h)
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

// openBrain connects to the brain. The embedded cluster is pgbrain's own, so
// it is initialised or upgraded on first use; another database must be set
// up explicitly with 'pgbrain init' or 'pgbrain migrate'.
func openBrain(c *cli.Context) (*brain.Brain, error) {
	u, embedded, err := databaseURL(c)
	if err != nil {
		return nil, err
	}
	b, err := brain.Open(c.Context, u)
	if embedded && err != nil {
		if errors.Is(err, brain.ErrNotInitialized) {
			fmt.Fprintln(c.App.ErrWriter, "pgbrain: initialising a new brain in the embedded cluster (local embedder)")
		}
		if merr := migrate.Migrate(c.Context, u, migrate.Options{}); merr != nil {
			return nil, merr
		}
		b, err = brain.Open(c.Context, u)
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
	b, err := brain.Open(c.Context, u)
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
		return brain.Open(c.Context, u)
	}
	return b, err
}
