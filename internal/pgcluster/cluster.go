// Package pgcluster runs pgbrain's private PostgreSQL cluster: created with
// initdb on first use, started on demand, listening on a unix socket only.
// When the caller is root the server runs as an unprivileged owner (initdb
// and postgres refuse root), so root, CI and ordinary users all get the same
// behaviour.
package pgcluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Profile selects the server settings written at initdb time.
type Profile string

const (
	// Laptop is for a user's brain: modest memory, durable writes; commits
	// are acknowledged before the WAL flush, so a crash loses at most the
	// last moment of writes but never corrupts the cluster.
	Laptop Profile = "laptop"
	// Ephemeral is for throw-away test clusters: no fsync at all.
	Ephemeral Profile = "ephemeral"
)

// Options configure a Cluster.
type Options struct {
	// Home is the pgbrain home ($PGBRAIN_HOME); the cluster lives in
	// Home/pg unless the owner cannot reach it (see Dir).
	Home string
	// Database is created on first start. Default "pgbrain".
	Database string
	// Profile picks the server settings. Default Laptop.
	Profile Profile
	// BinDir overrides discovery of initdb/pg_ctl ($PGBRAIN_PG_BIN).
	BinDir string
	// Owner is the system user that owns and runs the server when the
	// caller is root ($PGBRAIN_CLUSTER_USER, default "postgres").
	Owner string
	// SharedDir, when the caller is root and Home is not reachable by Owner,
	// holds the cluster instead (default /var/lib/pgbrain).
	SharedDir string
}

// Cluster is one private PostgreSQL cluster.
type Cluster struct {
	home     string
	dir      string
	binDir   string
	database string
	profile  Profile
	owner    *owner // nil when the caller is not root
}

type owner struct {
	name     string
	uid, gid uint32
}

// Superuser is the role initdb creates; connections use it over the socket.
const Superuser = "pgbrain"

// port only names the socket file (.s.PGSQL.5432): nothing listens on TCP.
const port = 5432

// New resolves where the cluster lives and which binaries run it. It does
// not touch the disk beyond looking.
func New(opts Options) (*Cluster, error) {
	if opts.Home == "" {
		return nil, errors.New("pgcluster: no home directory given")
	}
	home, err := filepath.Abs(opts.Home)
	if err != nil {
		return nil, fmt.Errorf("resolving pgbrain home %q: %w", opts.Home, err)
	}
	c := &Cluster{home: home, database: opts.Database, profile: opts.Profile}
	if c.database == "" {
		c.database = "pgbrain"
	}
	if c.profile == "" {
		c.profile = Laptop
	}
	c.binDir, err = findBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}
	c.dir = filepath.Join(home, "pg")
	if os.Geteuid() == 0 {
		name := opts.Owner
		if name == "" {
			name = "postgres"
		}
		u, err := user.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("running as root needs an unprivileged system user to own the database cluster: user %q not found (create it, or set PGBRAIN_CLUSTER_USER to another user): %w", name, err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		if uid == 0 {
			return nil, fmt.Errorf("cluster owner %q is root; PostgreSQL refuses to run as root: set PGBRAIN_CLUSTER_USER to an unprivileged user", name)
		}
		c.owner = &owner{name: name, uid: uint32(uid), gid: uint32(gid)}
		if !reachable(c.dir, c.owner) {
			shared := opts.SharedDir
			if shared == "" {
				shared = "/var/lib/pgbrain"
			}
			sum := sha256.Sum256([]byte(home))
			c.dir = filepath.Join(shared, hex.EncodeToString(sum[:8]))
		}
	}
	return c, nil
}

// Dir is the cluster's root: data/, run/ (the socket) and postgres.log.
func (c *Cluster) Dir() string { return c.dir }

// DataDir is PGDATA.
func (c *Cluster) DataDir() string { return filepath.Join(c.dir, "data") }

// SocketDir holds the unix socket; only the owner (and root) may enter it.
func (c *Cluster) SocketDir() string { return filepath.Join(c.dir, "run") }

// LogFile is the server log.
func (c *Cluster) LogFile() string { return filepath.Join(c.dir, "postgres.log") }

// URL is the connection URL for database db (the default database when empty).
func (c *Cluster) URL(db string) string {
	if db == "" {
		db = c.database
	}
	return fmt.Sprintf("postgresql:///%s?host=%s&port=%d&user=%s&sslmode=disable", db, c.SocketDir(), port, Superuser)
}

// Initialized reports whether initdb has run.
func (c *Cluster) Initialized() bool {
	_, err := os.Stat(filepath.Join(c.DataDir(), "PG_VERSION"))
	return err == nil
}

// ErrNoBinaries means PostgreSQL's server programs were not found.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found: run 'make setup', or set PGBRAIN_PG_BIN to their directory")

func findBinDir(explicit string) (string, error) {
	if explicit != "" {
		if isExec(filepath.Join(explicit, "pg_ctl")) && isExec(filepath.Join(explicit, "initdb")) {
			return explicit, nil
		}
		return "", fmt.Errorf("PGBRAIN_PG_BIN=%s holds no pg_ctl/initdb: %w", explicit, ErrNoBinaries)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Newest major version first; prefer one that has pgvector installed.
	sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) > majorOf(dirs[j]) })
	var fallback string
	for _, d := range dirs {
		if !isExec(filepath.Join(d, "pg_ctl")) || !isExec(filepath.Join(d, "initdb")) {
			continue
		}
		if fallback == "" {
			fallback = d
		}
		share := filepath.Join("/usr/share/postgresql", strconv.Itoa(majorOf(d)), "extension", "vector.control")
		if _, err := os.Stat(share); err == nil {
			return d, nil
		}
	}
	if fallback != "" {
		return fallback, nil
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		d := filepath.Dir(p)
		if isExec(filepath.Join(d, "initdb")) {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

func majorOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// reachable reports whether o can traverse every existing ancestor of dir.
// Go's t.TempDir and root's home are 0700, so the server owner often cannot.
func reachable(dir string, o *owner) bool {
	p := filepath.Dir(dir)
	for {
		st, err := os.Stat(p)
		if err != nil {
			// Not there yet: pgbrain will create it 0700 (as root), which
			// the owner cannot enter.
			return false
		}
		{
			sys, ok := st.Sys().(*syscall.Stat_t)
			if !ok {
				return false
			}
			perm := st.Mode().Perm()
			switch {
			case sys.Uid == o.uid:
				if perm&0o100 == 0 {
					return false
				}
			case sys.Gid == o.gid:
				if perm&0o010 == 0 {
					return false
				}
			default:
				if perm&0o001 == 0 {
					return false
				}
			}
		}
		next := filepath.Dir(p)
		if next == p {
			return true
		}
		p = next
	}
}

// command builds a server-side command that runs as the cluster owner.
func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.binDir, name), args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "LANG=C.UTF-8")
	if c.owner != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Credential: &syscall.Credential{Uid: c.owner.uid, Gid: c.owner.gid},
			Setpgid:    true,
		}
		cmd.Dir = "/"
	} else {
		// Its own process group keeps a Ctrl-C in the terminal from
		// reaching the server started on the user's behalf.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	return cmd
}

func (c *Cluster) run(ctx context.Context, what, name string, args ...string) error {
	out, err := c.command(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %s %s: %w\n%s", what, name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// mkdirOwned creates dir (mode) and hands it to the cluster owner.
func (c *Cluster) mkdirOwned(dir string, mode os.FileMode) error {
	if err := os.MkdirAll(dir, mode); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		return fmt.Errorf("setting mode of %s: %w", dir, err)
	}
	if c.owner != nil {
		if err := os.Chown(dir, int(c.owner.uid), int(c.owner.gid)); err != nil {
			return fmt.Errorf("handing %s to %s: %w", dir, c.owner.name, err)
		}
	}
	return nil
}

func (c *Cluster) settings() string {
	common := []string{
		"listen_addresses = ''",
		fmt.Sprintf("unix_socket_directories = '%s'", c.SocketDir()),
		"unix_socket_permissions = 0700",
		fmt.Sprintf("port = %d", port),
		"shared_buffers = 128MB",
		"work_mem = 16MB",
		"maintenance_work_mem = 256MB",
		"max_wal_size = 1GB",
		"timezone = 'UTC'",
		"log_timezone = 'UTC'",
		"lc_messages = 'C'",
	}
	switch c.profile {
	case Ephemeral:
		// Test binaries of several packages, each running tests in
		// parallel with pools of their own, share one test cluster.
		common = append(common, "max_connections = 200", "fsync = off", "full_page_writes = off", "synchronous_commit = off")
	default:
		common = append(common, "max_connections = 50", "synchronous_commit = off")
	}
	return "# Written by pgbrain at initdb time.\n" + strings.Join(common, "\n") + "\n"
}

// ctxSleep waits d or until ctx ends.
func ctxSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ping tries one connection to the maintenance database.
func (c *Cluster) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}
