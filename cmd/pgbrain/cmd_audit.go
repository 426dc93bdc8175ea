package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/client/audit"
	"github.com/pgbrain/pgbrain/client/brain"
)

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:  "audit",
		Usage: "inspect and verify the tamper-evident audit log of tool calls",
		Subcommands: []*cli.Command{
			auditVerifyCommand(),
			auditListCommand(),
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
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("audit verify: takes no arguments (use --since X to pick a starting row)")
			}
			if c.Bool("full") && c.IsSet("since") {
				return usageError("audit verify: --full checks every row; drop --since or --full")
			}
			b, err := openBrain(c)
			if err != nil {
				return err
			}
			defer b.Close()
			scope := audit.Scope{Full: c.Bool("full")}
			what := fmt.Sprintf("the newest %d rows", audit.DefaultWindow)
			switch {
			case scope.Full:
				what = "every row"
			case c.IsSet("since"):
				if scope.SinceID, err = resolveSince(c, b); err != nil {
					return err
				}
				what = fmt.Sprintf("rows from id %d", scope.SinceID)
			}
			problems, err := audit.Verify(c.Context, b.Pool, scope)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(c.App.Writer)
			for _, p := range problems {
				if c.Bool("json") {
					if err := enc.Encode(p); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(c.App.Writer, "row %d: %s: %s\n", p.ID, p.Problem, p.Detail)
			}
			if len(problems) > 0 {
				return cli.Exit(fmt.Sprintf("audit chain verification failed: %d problem(s) in %s; the rows named above were changed, removed or forged", len(problems), what), 1)
			}
			id, head, err := audit.Head(c.Context, b.Pool)
			if err != nil {
				return err
			}
			if id == 0 {
				fmt.Fprintln(c.App.ErrWriter, "pgbrain: audit log is empty")
				return nil
			}
			fmt.Fprintf(c.App.ErrWriter, "pgbrain: audit chain valid (%s checked); head row %d chain_hash %s (keep it elsewhere to detect a rewrite later)\n", what, id, head)
			return nil
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
			b, err := openBrain(c)
			if err != nil {
				return err
			}
			defer b.Close()
			if c.IsSet("since") {
				if f.SinceID, err = resolveSince(c, b); err != nil {
					return err
				}
			}
			rows, err := audit.List(c.Context, b.Pool, f)
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
			tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
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
		},
	}
}
