// Command aptfolder writes a folder of markdown notes built from this
// machine's Debian package records (see package aptfolder), for trying
// imports on data nobody here wrote:
//
//	go run ./tools/aptfolder -n 20000 /tmp/apt-notes
//	pgbrain import /tmp/apt-notes
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/pgbrain/pgbrain/internal/aptfolder"
)

func main() {
	n := flag.Int("n", 20000, "package files to write (0: every package)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: aptfolder [-n N] DIR")
		os.Exit(2)
	}
	recs, err := aptfolder.Load(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "aptfolder:", err)
		os.Exit(1)
	}
	written, err := aptfolder.Write(flag.Arg(0), recs, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aptfolder:", err)
		os.Exit(1)
	}
	fmt.Printf("%d files from %d package records in %s\n", written, len(recs), flag.Arg(0))
}
