// Package refusal decides which tool calls are refused because of the
// personal data they would touch. The policy is the always-on floor
// (credential, payment_card, government_id) widened by --pii-block; the
// categories a call touches come from brain.page_pii in one query.
package refusal

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/pii"
)

// Reason is the audit refusal_reason and error kind of a refused call.
const Reason = "pii_blocked"

// Policy lists the categories whose presence refuses a call. An empty
// Block refuses nothing.
type Policy struct {
	Block []string // sorted, distinct taxonomy names
}

// FromFlag builds the policy from a --pii-block value. Not set: the floor.
// Set to a list: the floor plus the list; an unknown name is an error that
// lists the twelve valid names. Set to the empty string: no refusals by
// the server, announced once on warn; row security in the database still
// withholds the floor from pgbrain_agent (docs/security.md).
func FromFlag(csv string, set bool, warn io.Writer) (Policy, error) {
	if !set {
		return Policy{Block: pii.RefusalFloor()}, nil
	}
	extra, err := pii.ParseList(csv)
	if err != nil {
		return Policy{}, fmt.Errorf("--pii-block: %w", err)
	}
	if len(extra) == 0 {
		if warn != nil {
			fmt.Fprintln(warn, "pgbrain: warning: --pii-block is empty: the server's own PII refusal is off; the database still hides from agents the pages holding credential, payment_card, government_id data or a brain.pii_policy category")
		}
		return Policy{}, nil
	}
	block, err := pii.BlockList(csv)
	if err != nil {
		return Policy{}, fmt.Errorf("--pii-block: %w", err)
	}
	return Policy{Block: block}, nil
}

// Blocks returns the sorted categories of touched that the policy refuses;
// none means the call may proceed.
func (p Policy) Blocks(touched []string) []string {
	var out []string
	for _, c := range touched {
		if slices.Contains(p.Block, c) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// Querier is what PageCategories needs; *pgxpool.Pool, *pgx.Conn and pgx.Tx
// satisfy it.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// PageCategories returns the sorted union of the PII categories of the given
// pages (brain.pages_pii_categories), what a call returning those pages
// touches. Unclassified pages contribute nothing.
func PageCategories(ctx context.Context, q Querier, pageIDs []int64) ([]string, error) {
	if len(pageIDs) == 0 {
		return []string{}, nil
	}
	var out []string
	if err := q.QueryRow(ctx, `SELECT brain.pages_pii_categories($1)`, pageIDs).Scan(&out); err != nil {
		return nil, fmt.Errorf("reading PII categories of %d pages: %w", len(pageIDs), err)
	}
	return out, nil
}
