package pgbrain_test

import (
	"fmt"
	"io/fs"

	pgbrain "github.com/pgbrain/pgbrain"
)

// The SQL tree travels inside every binary that imports the module: the
// migrations in order, then the functions and triggers they install.
func Example() {
	first, err := fs.Glob(pgbrain.SQLFiles, "sql/001_*.sql")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(first)
	// Output: [sql/001_brain.sql]
}
