// Command testcluster starts and stops the one ephemeral PostgreSQL cluster
// that `make test` shares between every test binary of a run.
//
//	testcluster start DIR   prints the admin URL on stdout
//	testcluster stop DIR    stops the cluster and removes DIR
package main

import (
	"context"
	"fmt"
	"os"
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
	if os.Args[1] == "start" {
		_, url, err := pgcluster.StartForTests(ctx, os.Args[2])
		if err != nil {
			fmt.Fprintf(os.Stderr, "testcluster: %v\n", err)
			os.Exit(1)
		}
		fmt.Println(url)
		return
	}
	c, err := pgcluster.ForTests(os.Args[2])
	if err == nil {
		err = c.Destroy(ctx)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "testcluster: %v\n", err)
		os.Exit(1)
	}
	_ = os.RemoveAll(os.Args[2])
}
