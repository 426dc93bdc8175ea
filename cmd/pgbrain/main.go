// Command pgbrain keeps a brain of markdown pages inside PostgreSQL and
// searches it. See README.md for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/scrub"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	err := app.RunContext(ctx, interspersed(app, args))
	if err == nil {
		return 0
	}
	// An error may quote a query or a connection string: it is printed
	// through the scrubber the events file uses.
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(stderr, "pgbrain:", scrub.Message(msg))
			printHint(stderr, err)
		}
		return ec.ExitCode()
	}
	fmt.Fprintln(stderr, "pgbrain:", scrub.Message(err.Error()))
	printHint(stderr, err)
	return 1
}

// printHint prints the HINT of a PostgreSQL error, which the SQL functions
// use to say how to fix what they refuse (a bad brain.config value, an
// unknown setting) and which the error's text leaves out.
func printHint(stderr io.Writer, err error) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Hint != "" {
		fmt.Fprintln(stderr, "pgbrain: hint:", scrub.Message(pgErr.Hint))
	}
}

// usageError marks a mistake in how pgbrain was called (exit status 2).
func usageError(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), 2)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:                 "pgbrain",
		Usage:                "a retrieval brain of markdown pages inside PostgreSQL",
		Version:              version,
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		Flags: []cli.Flag{
			&cli.StringFlag{
				Name:    "database-url",
				Usage:   "PostgreSQL (with pgvector) to use instead of the embedded cluster",
				EnvVars: []string{"PGBRAIN_DATABASE_URL", "DATABASE_URL"},
			},
			&cli.StringFlag{
				Name:    "home",
				Usage:   "pgbrain's home directory (embedded cluster, config.json)",
				EnvVars: []string{"PGBRAIN_HOME"},
			},
		},
		OnUsageError: func(c *cli.Context, err error, isSubcommand bool) error {
			return usageError("%s (see 'pgbrain --help')", flagMessage(err, "", c.App.Flags))
		},
		ExitErrHandler: func(*cli.Context, error) {}, // run() prints and exits
		Commands: []*cli.Command{
			initCommand(),
			migrateCommand(),
			dbCommand(),
			importCommand(),
			putCommand(),
			getCommand(),
			listCommand(),
			deleteCommand(),
			sourcesCommand(),
			embedCommand(),
			searchCommand(),
			queryCommand(),
			auditCommand(),
			piiCommand(),
			evalCommand(),
			benchCommand(),
			doctorCommand(),
			serveCommand(),
			tailCommand(),
			tokenCommand(),
		},
	}
	setUsageErrors(app.Commands)
	app.CommandNotFound = func(c *cli.Context, name string) {
		fmt.Fprintln(c.App.ErrWriter, commandNotFoundMessage(c, name))
		cli.OsExiter(2)
	}
	return app
}

// commandPath is the command's words after pgbrain ("eval gate"): urfave's
// FullName is only the last word while flags are being parsed.
func commandPath(ctx *cli.Context) string {
	var words []string
	for _, c := range ctx.Lineage() {
		if c.Command != nil && c.Command.Name != "" && c.Command.Name != c.App.Name {
			words = append([]string{c.Command.Name}, words...)
		}
	}
	return strings.Join(words, " ")
}

// setUsageErrors makes flag mistakes in every subcommand exit with status 2.
func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		if c.OnUsageError == nil {
			c.OnUsageError = func(ctx *cli.Context, err error, _ bool) error {
				return usageError("%s: %s (see 'pgbrain %s --help')", commandPath(ctx), flagMessage(err, commandPath(ctx), ctx.Command.Flags), commandPath(ctx))
			}
		}
		setUsageErrors(c.Subcommands)
	}
}
