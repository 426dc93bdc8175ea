// Package tokens keeps the bearer tokens of `pgbrain serve --http` in
// brain.mcp_tokens. Only the sha256 of a token is stored: the secret is
// shown once, by Create, and can never be read back.
package tokens

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB is what the functions need; *pgxpool.Pool and *pgx.Conn satisfy it.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Prefix starts every token, so that a leaked one is easy to recognise
// (and to search for in logs and repositories).
const Prefix = "pgb_"

// Name and role shapes; the table's CHECKs say the same.
var (
	nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,62}$`)
	roleRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)
)

// ErrUnknown means no live token has that name, or no token that secret.
var ErrUnknown = errors.New("no such token")

// Token is one stored token (never its secret).
type Token struct {
	Name      string     `json:"name"`
	Role      string     `json:"role,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// CheckName says what is wrong with a token name, or nil.
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("token name %q: use 1-63 lower-case letters, digits, '.', '-' or '_', starting with a letter or digit", name)
	}
	return nil
}

// Create stores a new token for name (role may be empty) and returns its
// secret, which is not stored anywhere.
func Create(ctx context.Context, db DB, name, role string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	if role != "" && !roleRE.MatchString(role) {
		return "", fmt.Errorf("role %q: use a PostgreSQL role name of lower-case letters, digits and '_'", role)
	}
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	secret := Prefix + base64.RawURLEncoding.EncodeToString(b[:])
	sum := Hash(secret)
	_, err := db.Exec(ctx, `INSERT INTO brain.mcp_tokens (name, token_sha256, role_name) VALUES ($1, $2, NULLIF($3, ''))`,
		name, sum[:], role)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return "", fmt.Errorf("a live token named %q exists already: revoke it first or pick another name", name)
	}
	if err != nil {
		return "", fmt.Errorf("storing token %q: %w", name, err)
	}
	return secret, nil
}

// Hash is what the table stores for a secret.
func Hash(secret string) [32]byte { return sha256.Sum256([]byte(secret)) }

// List returns every token, live and revoked, oldest first.
func List(ctx context.Context, db DB) ([]Token, error) {
	rows, err := db.Query(ctx, `SELECT name, coalesce(role_name, ''), created_at, revoked_at
		FROM brain.mcp_tokens ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("listing tokens: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Token, error) {
		var t Token
		err := r.Scan(&t.Name, &t.Role, &t.CreatedAt, &t.RevokedAt)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing tokens: %w", err)
	}
	return out, nil
}

// Revoke ends the live token named name; its row stays, marked revoked.
func Revoke(ctx context.Context, db DB, name string) error {
	tag, err := db.Exec(ctx, `UPDATE brain.mcp_tokens SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL`, name)
	if err != nil {
		return fmt.Errorf("revoking token %q: %w", name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("revoking token %q: %w ('pgbrain token list' shows the names)", name, ErrUnknown)
	}
	return nil
}

// Verify returns the live token whose secret this is, or ErrUnknown.
func Verify(ctx context.Context, db DB, secret string) (Token, error) {
	var t Token
	if !strings.HasPrefix(secret, Prefix) {
		return t, ErrUnknown
	}
	sum := Hash(secret)
	err := db.QueryRow(ctx, `SELECT name, coalesce(role_name, ''), created_at FROM brain.mcp_tokens
		WHERE token_sha256 = $1 AND revoked_at IS NULL`, sum[:]).Scan(&t.Name, &t.Role, &t.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, ErrUnknown
	}
	if err != nil {
		return t, fmt.Errorf("checking a token: %w", err)
	}
	return t, nil
}
