package testdb_test

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/testdb"
)

// In a test, url := testdb.New(t) is all it takes; CreateMigrated does the
// same where no testing.TB is at hand (benchmarks, examples).
func ExampleCreateMigrated() {
	ctx := context.Background()
	admin, err := testdb.Server(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	url, err := testdb.CreateMigrated(ctx, admin, "example_testdb", testdb.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close(ctx)
	var pages int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM brain.pages").Scan(&pages); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pages:", pages)
	// Output: pages: 0
}
