package pgcluster

import (
	"context"
	"fmt"
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

// TestHome makes a new home directory for an ephemeral test cluster
// (os.MkdirTemp pattern) and returns it. It lies on a memory file system
// when the machine has one with room to spare, else under os.TempDir(): a
// test run creates and drops hundreds of databases, and on a disk file
// system such as ext4 a CREATE DATABASE spends most of its CPU in the
// kernel, allocating inodes for its few hundred files. The directory is
// left enterable by others so that, as root, the cluster's unprivileged
// owner can keep the cluster in it.
func TestHome(pattern string) (string, error) {
	dir, err := os.MkdirTemp(MemoryDir(), pattern)
	if err != nil {
		return "", fmt.Errorf("making the test cluster's home: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("making the test cluster's home: %w", err)
	}
	return dir, nil
}
