package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pgbrain/pgbrain/internal/columns"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/audit"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/events"
)

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:  "audit",
		Usage: "inspect and verify the tamper-evident audit log of tool calls",
		Subcommands: []*cli.Command{
			auditVerifyCommand(),
			auditListCommand(),
			auditCheckpointCommand(),
			auditFlushCommand(),
		},
	}
}

var auditSinceFlag = &cli.StringFlag{
	Name:  "since",
	Usage: "start at a row id (123), a time (2006-01-02, RFC 3339), an age (24h) or a chain_hash prefix (hash:0123ab)",
}

// resolveSince turns --since into a row id; a value of the wrong shape is a
// usage error, a database failure is not.
func resolveSince(c *cli.Context, b *brain.Brain) (int64, error) {
	id, err := audit.ResolveSince(c.Context, b.Pool, c.String("since"), time.Now())
	if errors.Is(err, audit.ErrBadSince) {
		return 0, usageError("audit %s: --since: %v", c.Command.Name, err)
	}
	return id, err
}

func auditVerifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "check the audit chain; exit status 1 names the rows that do not match",
		Description: "Without flags the newest " + fmt.Sprint(audit.DefaultWindow) + " rows are checked, the first of them linked to\n" +
			"its predecessor's stored hash. --full checks every row from the genesis.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "full", Usage: "check every row"},
			auditSinceFlag,
			&cli.BoolFlag{Name: "json", Usage: "print the mismatches as JSON lines"},
			&cli.BoolFlag{Name: "checkpoints", Usage: "also check every keyed checkpoint (see 'pgbrain audit checkpoint'): detects deleted newest rows and rewrites"},
			auditCheckpointFileFlag,
			&cli.StringFlag{Name: "events-path", Usage: "events file whose serve sessions are compared with the log (default: $" + events.EnvPath + ", else $PGBRAIN_HOME/events.jsonl)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("audit verify: takes no arguments (use --since X to pick a starting row)")
			}
			if c.Bool("full") && c.IsSet("since") {
				return usageError("audit verify: --full checks every row; drop --since or --full")
			}
			return withBrain(c, brain.RoleAuditor, func(ctx context.Context, b *brain.Brain) error {
				scope := audit.Scope{Full: c.Bool("full")}
				what := fmt.Sprintf("the newest %d rows", audit.DefaultWindow)
				switch {
				case scope.Full:
					what = "every row"
				case c.IsSet("since"):
					id, err := resolveSince(c, b)
					if err != nil {
						return err
					}
					scope.SinceID = id
					what = fmt.Sprintf("rows from id %d", scope.SinceID)
				}
				problems, err := audit.Verify(ctx, b.Pool, scope)
				if err != nil {
					return err
				}
				home, err := homeDir(c)
				if err != nil {
					return err
				}
				gaps, notes, err := auditGaps(c, b, home)
				if err != nil {
					return err
				}
				problems = append(problems, gaps...)
				if c.Bool("checkpoints") {
					key, err := auditKey(c, home, false)
					if err != nil {
						return err
					}
					path := audit.CheckpointPath(c.String("checkpoint-file"), os.Getenv, home)
					cps, held, err := audit.VerifyCheckpoints(ctx, b.Pool, path, key)
					if err != nil {
						return err
					}
					if held == 0 && len(cps) == 0 {
						return cli.Exit(fmt.Sprintf("audit verify --checkpoints: no checkpoint in %s: write one with 'pgbrain audit checkpoint'", path), 1)
					}
					problems = append(problems, cps...)
					notes = append(notes, fmt.Sprintf("%d checkpoint(s) in %s hold", held, path))
				}
				enc := json.NewEncoder(c.App.Writer)
				for _, p := range problems {
					if c.Bool("json") {
						if err := enc.Encode(p); err != nil {
							return err
						}
						continue
					}
					if p.ID == 0 {
						fmt.Fprintf(c.App.Writer, "%s: %s\n", p.Problem, p.Detail)
						continue
					}
					fmt.Fprintf(c.App.Writer, "row %d: %s: %s\n", p.ID, p.Problem, p.Detail)
				}
				for _, n := range notes {
					fmt.Fprintf(c.App.ErrWriter, "pgbrain: %s\n", n)
				}
				if len(problems) > 0 {
					why := "the rows named above were changed, removed or forged"
					if onlyMissingSessionRows(problems) {
						// After an outage the rows wait in the spool; say so
						// before suggesting tampering.
						why = "rows of the sessions named above are missing: if the database was down they wait in the audit spool and 'pgbrain audit flush' adds them; otherwise they were removed"
					}
					return cli.Exit(fmt.Sprintf("audit chain verification failed: %d problem(s) in %s; %s", len(problems), what, why), 1)
				}
				id, head, err := audit.Head(ctx, b.Pool)
				if err != nil {
					return err
				}
				if id == 0 {
					fmt.Fprintln(c.App.ErrWriter, "pgbrain: audit log is empty")
					return nil
				}
				fmt.Fprintf(c.App.ErrWriter, "pgbrain: audit chain valid (%s checked); head row %d chain_hash %s ('pgbrain audit checkpoint' anchors it)\n", what, id, head)
				return nil
			})
		},
	}
}

var auditCheckpointFileFlag = &cli.StringFlag{
	Name:  "checkpoint-file",
	Usage: "checkpoint file (default: $" + audit.EnvCheckpoints + ", else $PGBRAIN_HOME/" + audit.CheckpointFile + ")",
}

// auditKey loads the checkpoint key from $PGBRAIN_AUDIT_KEY,
// $PGBRAIN_AUDIT_KEY_FILE or $PGBRAIN_HOME/audit.key; create makes the last
// one when it is missing.
func auditKey(c *cli.Context, home string, create bool) ([]byte, error) {
	envKey, path := audit.KeySource(os.Getenv, home)
	key, created, err := audit.LoadKey(envKey, path, create)
	if err != nil {
		return nil, err
	}
	if created {
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: audit: made a new checkpoint key in %s (mode 0600); keep a copy away from the database host: whoever holds it can forge checkpoints\n", path)
	}
	return key, nil
}

// auditGaps compares the serve sessions of the events file with the log and
// counts the rows still spooled.
func auditGaps(c *cli.Context, b *brain.Brain, home string) ([]audit.Problem, []string, error) {
	var notes []string
	pending, err := audit.NewSpool(home).Pending()
	if err != nil {
		return nil, nil, err
	}
	if pending > 0 {
		notes = append(notes, fmt.Sprintf("%d calls wait in the audit spool %s, not yet in the chain: 'pgbrain audit flush' chains them", pending, audit.NewSpool(home).Path()))
	}
	path := events.ResolvePath(c.String("events-path"), os.Getenv(events.EnvPath), home)
	sessions, err := audit.SessionsFromEvents(events.RotatedPath(path), path)
	if err != nil {
		return nil, nil, err
	}
	gaps, err := audit.SessionGaps(c.Context, b.Pool, sessions, pending)
	return gaps, notes, err
}

func auditCheckpointCommand() *cli.Command {
	return &cli.Command{
		Name:  "checkpoint",
		Usage: "verify the chain, then anchor its head with a keyed HMAC in a file outside the database",
		Description: "The key comes from $" + audit.EnvKey + ", the file named by $" + audit.EnvKeyFile + ", or\n" +
			"$PGBRAIN_HOME/" + audit.KeyFile + " (made, mode 0600, on first use). 'pgbrain audit verify --checkpoints'\n" +
			"then detects deleted newest rows and any rewrite of the rows a checkpoint covers. See docs/audit.md.",
		Flags: []cli.Flag{
			auditCheckpointFileFlag,
			&cli.BoolFlag{Name: "json", Usage: "print the checkpoint as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("audit checkpoint: takes no arguments")
			}
			home, err := homeDir(c)
			if err != nil {
				return err
			}
			key, err := auditKey(c, home, true)
			if err != nil {
				return err
			}
			return withBrain(c, brain.RoleAuditor, func(ctx context.Context, b *brain.Brain) error {
				path := audit.CheckpointPath(c.String("checkpoint-file"), os.Getenv, home)
				cp, err := audit.WriteCheckpoint(ctx, b.Pool, path, key, time.Now())
				if errors.Is(err, audit.ErrChainInvalid) {
					return cli.Exit(err.Error(), 1)
				}
				if err != nil {
					return err
				}
				if cp.HeadID == 0 {
					fmt.Fprintln(c.App.ErrWriter, "pgbrain: audit log is empty; nothing to anchor")
					return nil
				}
				if c.Bool("json") {
					return json.NewEncoder(c.App.Writer).Encode(cp)
				}
				fmt.Fprintf(c.App.Writer, "checkpoint row %d chain_hash %s at %s in %s\n", cp.HeadID, cp.HeadHash, cp.At.Format(time.RFC3339), path)
				return nil
			})
		},
	}
}

func auditFlushCommand() *cli.Command {
	return &cli.Command{
		Name:  "flush",
		Usage: "chain the audit rows spooled while the database was unreachable ($PGBRAIN_HOME/" + audit.SpoolFile + ")",
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("audit flush: takes no arguments")
			}
			home, err := homeDir(c)
			if err != nil {
				return err
			}
			return withBrain(c, connectingRole, func(ctx context.Context, b *brain.Brain) error {
				w := audit.NewWriter(b.Pool, c.App.ErrWriter).WithSpool(audit.NewSpool(home))
				n, err := w.DrainSpool(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "chained %d spooled calls\n", n)
				return nil
			})
		},
	}
}

func auditListCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "print audit rows in chain order",
		Flags: []cli.Flag{
			auditSinceFlag,
			&cli.StringFlag{Name: "status", Usage: "only rows with this status (" + strings.Join(audit.Statuses(), ", ") + ")"},
			&cli.StringFlag{Name: "tool", Usage: "only rows of this tool"},
			&cli.IntFlag{Name: "limit", Usage: "print at most N rows (0: all)"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per row"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("audit list: takes no arguments")
			}
			f := audit.Filter{Status: c.String("status"), Tool: c.String("tool"), Limit: c.Int("limit")}
			if f.Status != "" && !slices.Contains(audit.Statuses(), f.Status) {
				return usageError("audit list: --status %q is not a status: use one of %s", f.Status, strings.Join(audit.Statuses(), ", "))
			}
			if f.Limit < 0 {
				return usageError("audit list: --limit must be 0 or more, not %d", f.Limit)
			}
			return withBrain(c, brain.RoleAuditor, func(ctx context.Context, b *brain.Brain) error {
				if c.IsSet("since") {
					id, err := resolveSince(c, b)
					if err != nil {
						return err
					}
					f.SinceID = id
				}
				rows, err := audit.List(ctx, b.Pool, f)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					enc := json.NewEncoder(c.App.Writer)
					for _, r := range rows {
						if r.PIICategories == nil {
							r.PIICategories = []string{}
						}
						if err := enc.Encode(r); err != nil {
							return err
						}
					}
					return nil
				}
				tw := columns.New(c.App.Writer, 2)
				fmt.Fprintln(tw, "ID\tOCCURRED_AT\tSESSION\tCALLER\tTOOL\tSTATUS\tREASON\tPII\tCOST\tFINGERPRINT")
				for _, r := range rows {
					reason := "-"
					if r.RefusalReason != nil {
						reason = *r.RefusalReason
					}
					cats := strings.Join(r.PIICategories, ",")
					if cats == "" {
						cats = "-"
					}
					caller := r.Caller
					if caller == "" {
						caller = "-"
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.OccurredAt.Format(time.RFC3339Nano),
						r.SessionID, caller, r.Tool, r.Status, reason, cats, r.CostClass, r.Fingerprint[:16])
				}
				return tw.Flush()
			})
		},
	}
}

// onlyMissingSessionRows is whether every problem is a serve session whose
// rows are not (yet) in the chain.
func onlyMissingSessionRows(problems []audit.Problem) bool {
	for _, p := range problems {
		if p.Problem != "missing_session_rows" {
			return false
		}
	}
	return len(problems) > 0
}
