//go:build testcontainers

// This example shows how another project's integration tests set up a
// pgbrain schema in a throw-away PostgreSQL container with one call. It
// needs a container engine, so it only builds with -tags testcontainers:
//
//	go test -tags testcontainers ./...
package example

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/modules/postgres"

	"github.com/pgbrain/pgbrain/client/migrate"
)

func TestBrainInContainer(t *testing.T) {
	ctx := context.Background()
	ctr, err := postgres.Run(ctx, "pgvector/pgvector:pg16",
		postgres.WithDatabase("brain"),
		postgres.WithUsername("postgres"),
		postgres.WithPassword("postgres"),
		postgres.BasicWaitStrategies(),
	)
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatal(err)
	}
	url, err := ctr.ConnectionString(ctx, "sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}

	// One call installs the whole schema: tables, functions, triggers.
	if err := migrate.Migrate(ctx, url); err != nil {
		t.Fatal(err)
	}

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var dims int
	if err := conn.QueryRow(ctx, `SELECT vector_dims(brain.embed_local('hello'))`).Scan(&dims); err != nil {
		t.Fatal(err)
	}
	if dims != migrate.DefaultDim {
		t.Fatalf("embed_local returned %d dimensions, want %d", dims, migrate.DefaultDim)
	}
}
