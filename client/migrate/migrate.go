// Package migrate installs and upgrades the brain schema in a PostgreSQL
// database through tern's Go API, in two tiers: the numbered migrations in
// sql/ (frozen once released: tables, constraints, triggers, and the
// functions stored data depends on), then the repeatable tier of
// functions/install.sql (search, export, verification, PII lookups), applied
// whenever its source differs from the copy recorded in the database. The
// stock tern CLI applies the very same SQL (see tern.conf).
package migrate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"testing/fstest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"

	pgbrain "github.com/pgbrain/pgbrain"
)

// VersionTable is where tern records the applied version. tern.conf names the
// same table so the Go API and the tern CLI agree on what has been applied.
const VersionTable = "public.pgbrain_schema_version"

// Defaults for a brain created without explicit settings.
const (
	DefaultDim        = 256
	DefaultEmbedder   = "local"
	DefaultEmbedModel = "hash-tsv-v1"
	MaxDim            = 2000 // the HNSW index limit for vector columns
)

// Options fixes what a new brain is created with. They are ignored for a
// database that already holds a brain: its recorded settings win.
type Options struct {
	Dim        int
	Embedder   string
	EmbedModel string
	// OnStart, when set, is told about each migration as it starts.
	OnStart func(sequence int32, name string)
	// Target stops at this schema version instead of the latest (0), for
	// staging an upgrade, as the upgrade tests do. Never downgrades.
	Target int32
}

// modelName keeps the model name safe to record through the SQL templates.
var modelName = regexp.MustCompile(`^[A-Za-z0-9._:/-]{1,128}$`)

// Settings are the values recorded in brain.config.
type Settings struct {
	Dim        int
	Embedder   string
	EmbedModel string
}

// Source returns the migrations with functions/ and triggers/ beside them, the
// layout tern.LoadMigrations expects (numbered files at the root).
func Source() (fs.FS, error) {
	out := fstest.MapFS{}
	err := fs.WalkDir(pgbrain.SQLFiles, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(pgbrain.SQLFiles, p)
		if err != nil {
			return err
		}
		name := p
		if path.Dir(p) == "sql" {
			name = path.Base(p)
		}
		out[name] = &fstest.MapFile{Data: data, Mode: 0o644}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading embedded SQL: %w", err)
	}
	return out, nil
}

// Latest is the number of migrations this build knows.
func Latest() (int32, error) {
	names, err := Names()
	return int32(len(names)), err
}

// Names lists the migrations' file names in order: the name of version N
// is Names()[N-1].
func Names() ([]string, error) {
	src, err := Source()
	if err != nil {
		return nil, err
	}
	paths, err := migrate.FindMigrations(src)
	if err != nil {
		return nil, fmt.Errorf("listing migrations: %w", err)
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = path.Base(p)
	}
	return names, nil
}

// Migrate brings the database at url up to the latest schema. It is what
// other projects' integration tests call to set up pgbrain in one step:
//
//	err := migrate.Migrate(ctx, url)
//
// Options (at most one) choose the embedder and dimension of a new brain.
func Migrate(ctx context.Context, url string, options ...Options) error {
	var opts Options
	if len(options) > 0 {
		opts = options[0]
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connecting to migrate: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return Up(ctx, conn, opts)
}

// Up migrates the database behind conn to the latest schema.
func Up(ctx context.Context, conn *pgx.Conn, opts Options) error {
	settings, err := resolveSettings(ctx, conn, opts)
	if err != nil {
		return err
	}
	m, err := migrate.NewMigrator(ctx, conn, VersionTable)
	if err != nil {
		return fmt.Errorf("preparing migrator: %w", err)
	}
	vectorSchema, err := checkVector(ctx, conn)
	if err != nil {
		return err
	}
	m.Data = map[string]any{
		"dim":           strconv.Itoa(settings.Dim),
		"embedder":      settings.Embedder,
		"embed_model":   settings.EmbedModel,
		"vector_schema": vectorSchema,
	}
	if opts.OnStart != nil {
		m.OnStart = func(seq int32, name, _, _ string) { opts.OnStart(seq, name) }
	}
	src, err := Source()
	if err != nil {
		return err
	}
	if err := m.LoadMigrations(src); err != nil {
		return fmt.Errorf("loading migrations: %w", err)
	}
	current, err := m.GetCurrentVersion(ctx)
	if err != nil {
		return fmt.Errorf("reading schema version: %w", err)
	}
	if latest := int32(len(m.Migrations)); current > latest {
		return fmt.Errorf("database schema is at version %d but this pgbrain knows only %d: upgrade pgbrain", current, latest)
	}
	target := int32(len(m.Migrations))
	if opts.Target > 0 && opts.Target < target {
		target = opts.Target
	}
	if current < trigramMigration && target >= trigramMigration {
		if err := checkTrigram(ctx, conn); err != nil {
			return err
		}
	}
	if current < target {
		if err := m.MigrateTo(ctx, target); err != nil {
			if errors.Is(err, ErrNoVector) || isMissingVector(err) {
				return fmt.Errorf("%w (%v)", ErrNoVector, err)
			}
			return fmt.Errorf("applying migrations: %w", err)
		}
	}
	// The repeatable tier is written for the newest schema only.
	if target < int32(len(m.Migrations)) {
		return nil
	}
	if err := applyFunctions(ctx, conn, m.Data); err != nil {
		return err
	}
	// Grants follow the schema: run on every migrate, so a table added by a
	// later migration, or roles a superuser created after a migration by a
	// role that could not, get what docs/security.md lists. Roles that are
	// missing and cannot be created are a WARNING, not an error: the brain
	// still works for its owner.
	// Under tern's lock, like the migrations and the functions: a second
	// process migrating at the same time would deadlock with these grants.
	if err := migrate.LockExecTx(ctx, conn, `SELECT brain.setup_roles()`); err != nil {
		return fmt.Errorf("granting the pgbrain roles (brain.setup_roles): %w", err)
	}
	return nil
}

// ErrNoVector reports that the server lacks the pgvector extension.
var ErrNoVector = errors.New("the pgvector extension (0.8+) is not available on this server: install it (make setup does so for the embedded cluster) or ask a superuser to run CREATE EXTENSION vector")

// Version reports the applied schema version (0 for an empty database).
func Version(ctx context.Context, conn *pgx.Conn) (int32, error) {
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, VersionTable).Scan(&exists); err != nil {
		return 0, fmt.Errorf("checking for %s: %w", VersionTable, err)
	}
	if !exists {
		return 0, nil
	}
	var v int32
	if err := conn.QueryRow(ctx, `SELECT version FROM `+VersionTable).Scan(&v); err != nil {
		return 0, fmt.Errorf("reading %s: %w", VersionTable, err)
	}
	return v, nil
}

func resolveSettings(ctx context.Context, conn *pgx.Conn, opts Options) (Settings, error) {
	s := Settings{Dim: opts.Dim, Embedder: opts.Embedder, EmbedModel: opts.EmbedModel}
	if s.Dim == 0 {
		s.Dim = DefaultDim
	}
	if s.Embedder == "" {
		s.Embedder = DefaultEmbedder
	}
	if s.EmbedModel == "" {
		s.EmbedModel = DefaultEmbedModel
	}
	existing, ok, err := ReadSettings(ctx, conn)
	if err != nil {
		return s, err
	}
	if ok {
		return existing, nil
	}
	if s.Dim < 1 || s.Dim > MaxDim {
		return s, fmt.Errorf("embedding dimension %d is out of range: choose 1..%d", s.Dim, MaxDim)
	}
	if s.Embedder != "local" && s.Embedder != "openai" {
		return s, fmt.Errorf("unknown embedder %q: choose local or openai", s.Embedder)
	}
	if !modelName.MatchString(s.EmbedModel) {
		return s, fmt.Errorf("embedding model name %q is not valid: use 1-128 letters, digits and . _ : / -", s.EmbedModel)
	}
	return s, nil
}

// ReadSettings returns the settings recorded in brain.config, and false when
// the database holds no brain yet.
func ReadSettings(ctx context.Context, conn *pgx.Conn) (Settings, bool, error) {
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('brain.config') IS NOT NULL`).Scan(&exists); err != nil {
		return Settings{}, false, fmt.Errorf("checking for brain.config: %w", err)
	}
	if !exists {
		return Settings{}, false, nil
	}
	var s Settings
	var dim string
	err := conn.QueryRow(ctx, `SELECT
		(SELECT value FROM brain.config WHERE key = 'embedding_dim'),
		(SELECT value FROM brain.config WHERE key = 'embedder'),
		(SELECT value FROM brain.config WHERE key = 'embed_model')`).Scan(&dim, &s.Embedder, &s.EmbedModel)
	if err != nil {
		return s, false, fmt.Errorf("reading brain.config: %w", err)
	}
	if s.Dim, err = strconv.Atoi(dim); err != nil {
		return s, false, fmt.Errorf("brain.config embedding_dim %q is not a number: %w", dim, err)
	}
	return s, true, nil
}
