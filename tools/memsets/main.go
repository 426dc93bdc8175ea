// Command memsets writes a LongMemEval-format question set built from the
// machine's Debian package records (see package memsets) to stdout, for
// `pgbrain eval longmemeval`.
//
//	go run ./tools/memsets -seed 1 -per-type 20 > tune.json
//	go run ./tools/memsets -seed 9 -held-back > held.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/pgbrain/pgbrain/internal/aptfolder"
	"github.com/pgbrain/pgbrain/internal/memsets"
)

func main() {
	seed := flag.Uint64("seed", 1, "random seed")
	perType := flag.Int("per-type", 20, "questions of each type")
	sessions := flag.Int("sessions", 50, "haystack sessions a question")
	held := flag.Bool("held-back", false, "use the held-back phrasings")
	only := flag.String("types", "", "comma-separated question types (default: all)")
	flag.Parse()
	if err := run(*seed, *perType, *sessions, *held, *only); err != nil {
		fmt.Fprintln(os.Stderr, "memsets:", err)
		os.Exit(1)
	}
}

func run(seed uint64, perType, sessions int, held bool, only string) error {
	recs, err := aptfolder.Load(context.Background())
	if err != nil {
		return err
	}
	pool, err := memsets.NewPool(recs)
	if err != nil {
		return err
	}
	o := memsets.Options{Seed: seed, PerType: perType, Sessions: sessions}
	if held {
		o.Variant = memsets.HeldBack
	}
	if only != "" {
		o.Only = strings.Split(only, ",")
	}
	data, err := memsets.JSON(memsets.Build(pool, o))
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(data, '\n'))
	return err
}
