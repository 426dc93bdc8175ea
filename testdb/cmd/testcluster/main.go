// Command testcluster starts and stops the one ephemeral PostgreSQL cluster
// that `make test` shares between every test binary of a run.
//
//	testcluster start DIR   prints the admin URL on stdout
//	testcluster stop DIR    stops the cluster and removes DIR
//
// The cluster itself lives in a home of its own on a memory file system
// when there is one (pgcluster.TestHome), named in DIR/home.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pgbrain/pgbrain/internal/pgcluster"
)

func main() {
	if len(os.Args) != 3 || (os.Args[1] != "start" && os.Args[1] != "stop") {
		fmt.Fprintln(os.Stderr, "usage: testcluster start|stop DIR")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := os.Args[2]
	if os.Args[1] == "start" {
		url, err := start(ctx, dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testcluster: %v\n", err)
			os.Exit(1)
		}
		fmt.Println(url)
		return
	}
	if err := stop(ctx, dir); err != nil {
		fmt.Fprintf(os.Stderr, "testcluster: %v\n", err)
		os.Exit(1)
	}
}

func start(ctx context.Context, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	home, err := pgcluster.TestHome("pgbrain-test-")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "home"), []byte(home+"\n"), 0o600); err != nil {
		os.RemoveAll(home)
		return "", fmt.Errorf("recording the cluster's home in %s: %w", dir, err)
	}
	_, url, err := pgcluster.StartForTests(ctx, home)
	return url, err
}

// stop removes the cluster started for dir: the one in the home named in
// dir/home, or (started before homes were recorded) the one in dir.
func stop(ctx context.Context, dir string) error {
	home := dir
	switch b, err := os.ReadFile(filepath.Join(dir, "home")); {
	case err == nil:
		home = strings.TrimSpace(string(b))
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	c, err := pgcluster.ForTests(home)
	if err == nil {
		err = c.Destroy(ctx)
	}
	if err != nil {
		return err
	}
	_ = os.RemoveAll(home)
	return os.RemoveAll(dir)
}
