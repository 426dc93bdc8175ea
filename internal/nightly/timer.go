package nightly

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pgbrain/pgbrain/internal/atomicfile"
)

// Unit names written by InstallTimer.
const (
	ServiceName = "pgbrain-nightly.service"
	TimerName   = "pgbrain-nightly.timer"
)

// EnvFile is the file in the configuration folder the service reads, if
// present, for the model settings (PGBRAIN_CHAT_*, PGBRAIN_CROSSMODAL_*,
// keys): secrets stay out of the unit files.
const EnvFile = "pgbrain/nightly.env"

// Units returns the service and timer for running bin's nightly probe
// once a day; home, when set, is passed as PGBRAIN_HOME, and envFile is
// read for the model settings.
func Units(bin, home, envFile string) (service, timer string) {
	var env string
	if home != "" {
		env = fmt.Sprintf("Environment=%s\n", systemdQuote("PGBRAIN_HOME="+home))
	}
	service = fmt.Sprintf(`[Unit]
Description=pgbrain nightly quality probe (LongMemEval fixture + cross-modal scoring)
Documentation=https://github.com/pgbrain/pgbrain/blob/main/docs/eval-loop.md#the-nightly-quality-probe

[Service]
Type=oneshot
%sEnvironmentFile=-%s
ExecStart=%s eval nightly
Nice=10
`, env, systemdQuote(envFile), systemdQuote(bin))
	timer = `[Unit]
Description=Run the pgbrain nightly quality probe once a day

[Timer]
OnCalendar=*-*-* 03:17:00
RandomizedDelaySec=15min
Persistent=true

[Install]
WantedBy=timers.target
`
	return service, timer
}

// systemdQuote quotes s for a unit file when it holds spaces or quotes.
func systemdQuote(s string) string {
	if !strings.ContainsAny(s, " \t\"'\\") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// InstallOptions say where and how to install.
type InstallOptions struct {
	// ConfigDir is the user's configuration folder (os.UserConfigDir);
	// units go to ConfigDir/systemd/user.
	ConfigDir string
	Bin       string // the pgbrain executable
	Home      string // PGBRAIN_HOME for the service, or ""
	// LookPath finds systemctl (exec.LookPath); Run runs it. When systemctl
	// is missing, nothing is run and the result says what to run.
	LookPath func(string) (string, error)
	Run      func(ctx context.Context, name string, args ...string) error
}

// Installed is what InstallTimer did.
type Installed struct {
	Service string   `json:"service"`
	Timer   string   `json:"timer"`
	Enabled bool     `json:"enabled"`
	ToRun   []string `json:"to_run,omitempty"` // commands left for the user
}

// InstallTimer writes the user units and, when systemctl is available,
// reloads the user manager and enables the timer.
func InstallTimer(ctx context.Context, o InstallOptions) (Installed, error) {
	if o.ConfigDir == "" || !filepath.IsAbs(o.ConfigDir) {
		return Installed{}, fmt.Errorf("installing the timer needs an absolute configuration folder, got %q: set HOME", o.ConfigDir)
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	if o.Run == nil {
		o.Run = func(ctx context.Context, name string, args ...string) error {
			out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
			if err != nil {
				return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
			}
			return nil
		}
	}
	dir := filepath.Join(o.ConfigDir, "systemd", "user")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Installed{}, fmt.Errorf("creating %s: %w", dir, err)
	}
	service, timer := Units(o.Bin, o.Home, filepath.Join(o.ConfigDir, EnvFile))
	in := Installed{Service: filepath.Join(dir, ServiceName), Timer: filepath.Join(dir, TimerName)}
	for path, text := range map[string]string{in.Service: service, in.Timer: timer} {
		if err := writeUnit(path, text); err != nil {
			return in, err
		}
	}
	cmds := [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", TimerName}}
	if _, err := o.LookPath("systemctl"); err != nil {
		for _, c := range cmds {
			in.ToRun = append(in.ToRun, strings.Join(c, " "))
		}
		return in, nil
	}
	for i, c := range cmds {
		if err := o.Run(ctx, c[0], c[1:]...); err != nil {
			for _, rest := range cmds[i:] {
				in.ToRun = append(in.ToRun, strings.Join(rest, " "))
			}
			return in, fmt.Errorf("the units are written, but enabling the timer failed (%w); run what is left by hand", err)
		}
	}
	in.Enabled = true
	return in, nil
}

// writeUnit replaces path with text, refusing to write through a symlink.
func writeUnit(path, text string) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink: remove it, then install again", path)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("checking %s: %w", path, err)
	}
	return atomicfile.Write(path, []byte(text), 0o644)
}
