package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// lock takes the cluster's exclusive lock so that two pgbrain processes never
// initdb, start or stop the same cluster at once. The lock file lives in the
// pgbrain home, which the caller always owns.
func (c *Cluster) lock(ctx context.Context) (func(), error) {
	if err := os.MkdirAll(c.home, 0o700); err != nil {
		return nil, fmt.Errorf("creating pgbrain home %s: %w", c.home, err)
	}
	path := filepath.Join(c.home, "cluster.lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening lock %s: %w", path, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if err := ctxSleep(ctx, 50*time.Millisecond); err != nil {
			f.Close()
			return nil, fmt.Errorf("waiting for another pgbrain process to release %s: %w", path, err)
		}
	}
}

// Ensure makes the cluster usable: initdb on first use, start when stopped,
// create the database when missing. It returns the database URL. The fast
// path (server already answering) takes no lock.
func (c *Cluster) Ensure(ctx context.Context) (string, error) {
	if c.Initialized() && c.ping(ctx) == nil {
		if err := c.ensureDatabase(ctx); err != nil {
			return "", err
		}
		return c.URL(""), nil
	}
	unlock, err := c.lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	if err := c.initLocked(ctx); err != nil {
		return "", err
	}
	if err := c.startLocked(ctx); err != nil {
		return "", err
	}
	if err := c.ensureDatabase(ctx); err != nil {
		return "", err
	}
	return c.URL(""), nil
}

// Start starts the server (running initdb first if needed).
func (c *Cluster) Start(ctx context.Context) error {
	_, err := c.Ensure(ctx)
	return err
}

func (c *Cluster) initLocked(ctx context.Context) error {
	if c.Initialized() {
		return nil
	}
	if c.owner != nil {
		// The owner must be able to traverse the parent (it may be the
		// shared directory that root created for unreachable homes).
		if err := os.MkdirAll(filepath.Dir(c.dir), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(c.dir), err)
		}
	}
	if err := c.mkdirOwned(c.dir, 0o700); err != nil {
		return err
	}
	if err := c.mkdirOwned(c.SocketDir(), 0o700); err != nil {
		return err
	}
	data := c.DataDir()
	// A previous initdb that died half-way leaves a data directory without
	// PG_VERSION; initdb refuses a non-empty one.
	if err := os.RemoveAll(data); err != nil {
		return fmt.Errorf("clearing incomplete data directory %s: %w", data, err)
	}
	args := []string{"-D", data, "-U", Superuser, "-A", "trust", "-E", "UTF8", "--no-instructions"}
	if c.profile == Ephemeral {
		// A throw-away cluster runs with fsync off anyway; flushing the
		// fresh data directory to disk only costs seconds on a busy disk.
		args = append(args, "--no-sync")
	}
	err := c.run(ctx, "creating the database cluster", "initdb", append(args, "--locale=C.UTF-8")...)
	if err != nil {
		// Systems without the C.UTF-8 locale still get a UTF-8 cluster.
		_ = os.RemoveAll(data)
		if err2 := c.run(ctx, "creating the database cluster", "initdb", append(args, "--no-locale")...); err2 != nil {
			return err2
		}
	}
	conf := filepath.Join(data, "pgbrain.conf")
	if err := os.WriteFile(conf, []byte(c.settings()), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", conf, err)
	}
	main := filepath.Join(data, "postgresql.conf")
	f, err := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", main, err)
	}
	_, err = f.WriteString("\ninclude = 'pgbrain.conf'\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", main, err)
	}
	if c.owner != nil {
		if err := os.Chown(conf, int(c.owner.uid), int(c.owner.gid)); err != nil {
			return fmt.Errorf("handing %s to %s: %w", conf, c.owner.name, err)
		}
	}
	return nil
}

func (c *Cluster) startLocked(ctx context.Context) error {
	if pid, alive := c.serverPID(); alive {
		// A server is up but did not answer the ping: wait for it rather
		// than starting a second one.
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if c.ping(ctx) == nil {
				return nil
			}
			if _, alive := c.serverPID(); !alive {
				break
			}
			if err := ctxSleep(ctx, 100*time.Millisecond); err != nil {
				return err
			}
		}
		if _, alive := c.serverPID(); alive {
			return fmt.Errorf("the server (pid %d) is running but does not accept connections; see %s", pid, c.LogFile())
		}
	}
	if err := c.clearStale(); err != nil {
		return err
	}
	if err := c.mkdirOwned(c.SocketDir(), 0o700); err != nil {
		return err
	}
	if err := c.prepareLog(); err != nil {
		return err
	}
	closeInheritedOnExec()
	err := c.run(ctx, "starting PostgreSQL", "pg_ctl", "start", "-w", "-t", "120", "-D", c.DataDir(), "-l", c.LogFile(), "-s")
	if err != nil {
		return fmt.Errorf("%w\nserver log: %s", err, c.tailLog())
	}
	return nil
}

func (c *Cluster) prepareLog() error {
	f, err := os.OpenFile(c.LogFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("creating server log %s: %w", c.LogFile(), err)
	}
	f.Close()
	if c.owner != nil {
		return os.Chown(c.LogFile(), int(c.owner.uid), int(c.owner.gid))
	}
	return nil
}

func (c *Cluster) tailLog() string {
	data, err := os.ReadFile(c.LogFile())
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return strings.Join(lines, "\n")
}

// serverPID reads postmaster.pid and reports whether that process is a live
// postgres server for this data directory (a crashed server leaves the file
// behind, and its pid may since belong to an unrelated process).
func (c *Cluster) serverPID() (int, bool) {
	data, err := os.ReadFile(filepath.Join(c.DataDir(), "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0, false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return pid, false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		// No /proc: trust the signal check.
		return pid, true
	}
	return pid, bytes.Contains(cmdline, []byte("postgres"))
}

// clearStale removes the pid and socket lock files a crashed server left.
func (c *Cluster) clearStale() error {
	if _, alive := c.serverPID(); alive {
		return nil
	}
	stale := []string{
		filepath.Join(c.DataDir(), "postmaster.pid"),
		filepath.Join(c.SocketDir(), fmt.Sprintf(".s.PGSQL.%d.lock", port)),
		filepath.Join(c.SocketDir(), fmt.Sprintf(".s.PGSQL.%d", port)),
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing stale %s: %w", p, err)
		}
	}
	return nil
}

func (c *Cluster) ensureDatabase(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("connecting to the embedded cluster: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, c.database).Scan(&exists); err != nil {
		return fmt.Errorf("looking for database %s: %w", c.database, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{c.database}.Sanitize())
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		return fmt.Errorf("creating database %s: %w", c.database, err)
	}
	return nil
}

// Stop shuts the server down (fast mode: open sessions are ended).
func (c *Cluster) Stop(ctx context.Context) error {
	_, err := c.StopRunning(ctx)
	return err
}

// StopRunning is Stop, and reports whether a server was running: under the
// cluster's lock, so the answer cannot go stale between looking and stopping.
func (c *Cluster) StopRunning(ctx context.Context) (wasRunning bool, err error) {
	unlock, err := c.lock(ctx)
	if err != nil {
		return false, err
	}
	defer unlock()
	if _, alive := c.serverPID(); !alive {
		return false, c.clearStale()
	}
	return true, c.run(ctx, "stopping PostgreSQL", "pg_ctl", "stop", "-w", "-t", "60", "-m", "fast", "-D", c.DataDir(), "-s")
}

// Status describes the cluster.
type Status struct {
	Initialized bool   `json:"initialized"`
	Running     bool   `json:"running"`
	PID         int    `json:"pid,omitempty"`
	Dir         string `json:"dir"`
	URL         string `json:"url"`
	LogFile     string `json:"log_file"`
	Owner       string `json:"owner,omitempty"`
	BinDir      string `json:"bin_dir"`
}

// Status reports whether the cluster exists and is running.
func (c *Cluster) Status(ctx context.Context) Status {
	st := Status{Initialized: c.Initialized(), Dir: c.dir, URL: c.URL(""), LogFile: c.LogFile(), BinDir: c.binDir}
	if c.owner != nil {
		st.Owner = c.owner.name
	}
	if pid, alive := c.serverPID(); alive && c.ping(ctx) == nil {
		st.Running, st.PID = true, pid
	}
	return st
}

// Destroy stops the server and removes the cluster directory. Used for
// ephemeral test clusters.
func (c *Cluster) Destroy(ctx context.Context) error {
	if err := c.Stop(ctx); err != nil && c.Initialized() {
		return err
	}
	return os.RemoveAll(c.dir)
}
