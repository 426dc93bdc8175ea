package migrate_test

import (
	"context"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/testdb"
)

// Another project's integration test points Migrate at any PostgreSQL with
// pgvector (a testcontainers one, say) and gets the whole schema.
func ExampleMigrate() {
	ctx := context.Background()
	admin, err := testdb.Server(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close(ctx)
	for _, sql := range []string{"DROP DATABASE IF EXISTS example_migrate WITH (FORCE)", "CREATE DATABASE example_migrate"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			fmt.Println(err)
			return
		}
	}
	u, err := url.Parse(admin)
	if err != nil {
		fmt.Println(err)
		return
	}
	u.Path = "/example_migrate"

	if err := migrate.Migrate(ctx, u.String()); err != nil {
		fmt.Println(err)
		return
	}

	db, err := pgx.Connect(ctx, u.String())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close(ctx)
	var search bool
	if err := db.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_proc WHERE proname = 'search' AND pronamespace = 'brain'::regnamespace)").Scan(&search); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("brain.search installed:", search)
	// Output: brain.search installed: true
}
