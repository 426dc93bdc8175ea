package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/testdb"
)

// sampleTemplate is a database holding the imported sample brain (1,127
// pages), made once per test binary: each test that needs the sample brain
// gets a clone of it, which takes a fraction of the CPU an import does. The
// test server is removed when the run ends, and the template with it.
var sampleTemplate struct {
	once        sync.Once
	admin, name string
	err         error
}

// sampleBrainURL returns the URL of a fresh database holding the sample
// brain as 'pgbrain import sample/brain' leaves it, dropped with the test
// unless the test failed.
func sampleBrainURL(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	sampleTemplate.once.Do(func() {
		sampleTemplate.admin, sampleTemplate.name, sampleTemplate.err = makeSampleTemplate(ctx, testdb.New(t))
	})
	if sampleTemplate.err != nil {
		t.Fatalf("preparing the sample brain: %v", sampleTemplate.err)
	}
	admin := sampleTemplate.admin
	name := "pgbrain_test_sample_" + randomHex()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, sampleTemplate.name)); err != nil {
		t.Fatalf("cloning the sample brain: %v", err)
	}
	u, err := withDatabase(admin, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kept database %s for inspection: psql '%s'", name, u)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("dropping %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("dropping %s: %v", name, err)
		}
	})
	return u
}

// makeSampleTemplate imports the sample brain into a migrated database on
// the server of seed (a test's database) and marks it a template.
func makeSampleTemplate(ctx context.Context, seed string) (admin, name string, err error) {
	if admin, err = withDatabase(seed, "postgres"); err != nil {
		return "", "", err
	}
	name = "pgbrain_sample_" + randomHex()
	u, err := testdb.CreateMigrated(ctx, admin, name, testdb.Options{})
	if err != nil {
		return "", "", fmt.Errorf("creating %s: %w", name, err)
	}
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"pgbrain", "--database-url", u, "import", sampleBrainDir}, strings.NewReader(""), &out, &errOut); code != 0 {
		return "", "", fmt.Errorf("importing %s: exit %d: %s", sampleBrainDir, code, errOut.String())
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s IS_TEMPLATE true", name)); err != nil {
		return "", "", err
	}
	return admin, name, nil
}

func withDatabase(raw, db string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("parsing the database URL: %w", err)
	}
	u.Path = "/" + db
	return u.String(), nil
}

func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
