package pgcluster

import (
	"context"
	"os"
)

// ForTests describes the ephemeral cluster the test helpers and the bench
// use under dir, without starting it. PGBRAIN_PG_BIN and
// PGBRAIN_CLUSTER_USER choose the server binaries and, as root, the owner.
func ForTests(dir string) (*Cluster, error) {
	return New(Options{
		Home:     dir,
		Database: "postgres",
		Profile:  Ephemeral,
		BinDir:   os.Getenv("PGBRAIN_PG_BIN"),
		Owner:    os.Getenv("PGBRAIN_CLUSTER_USER"),
	})
}

// StartForTests starts the ForTests cluster under dir and returns its admin URL.
func StartForTests(ctx context.Context, dir string) (*Cluster, string, error) {
	c, err := ForTests(dir)
	if err != nil {
		return nil, "", err
	}
	u, err := c.Ensure(ctx)
	if err != nil {
		return nil, "", err
	}
	return c, u, nil
}
