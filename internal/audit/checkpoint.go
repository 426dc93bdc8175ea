package audit

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Checkpoint files and keys. A checkpoint anchors the chain outside the
// database: an HMAC, under a key the database never sees, of the head row's
// id and chain_hash. Someone who can rewrite brain.audit_log (a superuser
// disabling its triggers) can recompute every chain hash, but not a
// checkpoint; so a rewrite or a truncation of anything a checkpoint covers
// shows.
const (
	CheckpointFile = "audit-checkpoints.jsonl"
	KeyFile        = "audit.key"
	// EnvKey holds the key itself (at least 32 characters), EnvKeyFile a
	// path to it, EnvCheckpoints the checkpoint file's path.
	EnvKey         = "PGBRAIN_AUDIT_KEY"
	EnvKeyFile     = "PGBRAIN_AUDIT_KEY_FILE"
	EnvCheckpoints = "PGBRAIN_AUDIT_CHECKPOINTS"
	minKeyBytes    = 32
)

// Checkpoint is one line of the checkpoint file.
type Checkpoint struct {
	Version  int       `json:"v"`
	At       time.Time `json:"at"`
	HeadID   int64     `json:"head_id"`
	HeadHash string    `json:"head_hash"` // chain_hash of row HeadID, hex
	MAC      string    `json:"hmac"`      // hex HMAC-SHA256, see mac
}

// mac is HMAC-SHA256 under key of the length-prefixed fields
// "pgbrain.audit.checkpoint.v1", head id (decimal), head hash (hex) and the
// time (RFC 3339, UTC, nanoseconds), the same field form as the chain.
func (c Checkpoint) mac(key []byte) string {
	m := hmac.New(sha256.New, key)
	for _, f := range []string{"pgbrain.audit.checkpoint.v1", strconv.FormatInt(c.HeadID, 10), c.HeadHash,
		c.At.UTC().Format(time.RFC3339Nano)} {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(f)))
		m.Write(n[:])
		m.Write([]byte(f))
	}
	return hex.EncodeToString(m.Sum(nil))
}

// KeySource says where the checkpoint key comes from: the environment
// (EnvKey, then EnvKeyFile) or home's KeyFile.
func KeySource(getenv func(string) string, home string) (envKey, path string) {
	if k := getenv(EnvKey); k != "" {
		return k, ""
	}
	if p := getenv(EnvKeyFile); p != "" {
		return "", p
	}
	return "", filepath.Join(home, KeyFile)
}

// LoadKey reads the key: envKey if set, else the file at path, which must be
// a regular file (not a link) owned by the user and readable by no one
// else. create makes a missing file with a fresh random key.
func LoadKey(envKey, path string, create bool) (key []byte, created bool, err error) {
	if envKey != "" {
		if len(envKey) < minKeyBytes {
			return nil, false, fmt.Errorf("$%s is %d characters; use at least %d (for example: openssl rand -hex 32)", EnvKey, len(envKey), minKeyBytes)
		}
		return []byte(envKey), false, nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) && create {
		return newKeyFile(path)
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, false, fmt.Errorf("audit key %s is a symbolic link; refusing to follow it: give the real path in $%s", path, EnvKeyFile)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("no audit key at %s: run 'pgbrain audit checkpoint' once to create it, or set $%s or $%s", path, EnvKey, EnvKeyFile)
	}
	if err != nil {
		return nil, false, fmt.Errorf("opening audit key %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("checking audit key %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("audit key %s is not a regular file", path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, false, fmt.Errorf("audit key %s is owned by uid %d, not by you (uid %d)", path, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, false, fmt.Errorf("audit key %s has mode %v: others can read it; run chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return nil, false, fmt.Errorf("reading audit key %s: %w", path, err)
	}
	b = bytes.TrimSpace(b)
	if len(b) < minKeyBytes {
		return nil, false, fmt.Errorf("audit key %s holds %d bytes; use at least %d (delete it and run 'pgbrain audit checkpoint' to make a new one)", path, len(b), minKeyBytes)
	}
	return b, false, nil
}

func newKeyFile(path string) ([]byte, bool, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, false, fmt.Errorf("making an audit key: %w", err)
	}
	key := []byte(hex.EncodeToString(raw[:]))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, fmt.Errorf("making an audit key at %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("making an audit key at %s: %w", path, err)
	}
	if _, err := f.Write(append(key, '\n')); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("writing the audit key %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return nil, false, fmt.Errorf("writing the audit key %s: %w", path, err)
	}
	return key, true, nil
}

// CheckpointPath is where checkpoints go: flag, else EnvCheckpoints, else
// home's CheckpointFile.
func CheckpointPath(flag string, getenv func(string) string, home string) string {
	switch {
	case flag != "":
		return flag
	case getenv(EnvCheckpoints) != "":
		return getenv(EnvCheckpoints)
	}
	return filepath.Join(home, CheckpointFile)
}

// ErrChainInvalid marks a checkpoint refused because the chain it would
// anchor does not verify.
var ErrChainInvalid = errors.New("the audit chain does not verify")

// WriteCheckpoint verifies the chain since the last checkpoint in path (all
// of it when there is none), then appends a checkpoint of the head row. An
// empty log gives no checkpoint (HeadID 0, nil error). Anchoring a chain
// that does not verify would bless a tampering: that is ErrChainInvalid.
func WriteCheckpoint(ctx context.Context, q Querier, path string, key []byte, now time.Time) (Checkpoint, error) {
	cps, _, err := ReadCheckpoints(path)
	if err != nil {
		return Checkpoint{}, err
	}
	scope := Scope{Full: true}
	for _, c := range cps {
		if c.MAC == c.mac(key) && c.HeadID > scope.SinceID {
			scope = Scope{SinceID: c.HeadID}
		}
	}
	problems, err := Verify(ctx, q, scope)
	if err != nil {
		return Checkpoint{}, err
	}
	if len(problems) > 0 {
		p := problems[0]
		return Checkpoint{}, fmt.Errorf("%w: row %d: %s: %s (run 'pgbrain audit verify --full'); no checkpoint written", ErrChainInvalid, p.ID, p.Problem, p.Detail)
	}
	id, hash, err := Head(ctx, q)
	if err != nil || id == 0 {
		return Checkpoint{}, err
	}
	c := Checkpoint{Version: 1, At: now.UTC(), HeadID: id, HeadHash: hash}
	c.MAC = c.mac(key)
	line, err := json.Marshal(c)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("encoding the checkpoint: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return Checkpoint{}, fmt.Errorf("writing checkpoint to %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return Checkpoint{}, fmt.Errorf("checkpoint file %s is a symbolic link; refusing to follow it", path)
	}
	if err != nil {
		return Checkpoint{}, fmt.Errorf("writing checkpoint to %s: %w", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return Checkpoint{}, fmt.Errorf("checkpoint file %s is not a regular file", path)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return Checkpoint{}, fmt.Errorf("writing checkpoint to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return Checkpoint{}, fmt.Errorf("writing checkpoint to %s: %w", path, err)
	}
	return c, nil
}

// ReadCheckpoints returns the checkpoints in path in file order and the
// numbers of the lines that could not be decoded; a missing file holds
// none.
func ReadCheckpoints(path string) ([]Checkpoint, []int, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, nil, fmt.Errorf("checkpoint file %s is a symbolic link; refusing to follow it", path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading checkpoints %s: %w", path, err)
	}
	defer f.Close()
	var out []Checkpoint
	var bad []int
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var c Checkpoint
		if err := json.Unmarshal(line, &c); err != nil || c.Version != 1 || c.HeadID <= 0 {
			bad = append(bad, n)
			continue
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading checkpoints %s: %w", path, err)
	}
	return out, bad, nil
}

// VerifyCheckpoints checks every checkpoint in path against the log: its
// HMAC under key (else checkpoint_forged), that its head row still exists
// (else truncated) and still has the anchored chain_hash (else rewritten).
// It returns the problems and how many checkpoints held.
func VerifyCheckpoints(ctx context.Context, q Querier, path string, key []byte) ([]Problem, int, error) {
	cps, bad, err := ReadCheckpoints(path)
	if err != nil {
		return nil, 0, err
	}
	var problems []Problem
	for _, n := range bad {
		problems = append(problems, Problem{Problem: "checkpoint_unreadable", Detail: fmt.Sprintf("line %d of %s is not a checkpoint", n, path)})
	}
	var maxID int64
	if err := q.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM brain.audit_log`).Scan(&maxID); err != nil {
		return nil, 0, fmt.Errorf("reading the audit chain head: %w", err)
	}
	held := 0
	for _, c := range cps {
		when := c.At.UTC().Format(time.RFC3339)
		if !hmac.Equal([]byte(c.MAC), []byte(c.mac(key))) {
			problems = append(problems, Problem{ID: c.HeadID, Problem: "checkpoint_forged",
				Detail: fmt.Sprintf("the checkpoint of %s in %s does not carry a valid HMAC under this key (wrong key, or the line was edited)", when, path)})
			continue
		}
		var hash string
		err := q.QueryRow(ctx, `SELECT encode(chain_hash, 'hex') FROM brain.audit_log WHERE id = $1`, c.HeadID).Scan(&hash)
		switch {
		case errors.Is(err, pgx.ErrNoRows) && c.HeadID > maxID:
			problems = append(problems, Problem{ID: c.HeadID, Problem: "truncated",
				Detail: fmt.Sprintf("the checkpoint of %s saw row %d; the log now ends at row %d: its newest rows were deleted", when, c.HeadID, maxID)})
		case errors.Is(err, pgx.ErrNoRows):
			problems = append(problems, Problem{ID: c.HeadID, Problem: "missing_rows",
				Detail: fmt.Sprintf("row %d, anchored by the checkpoint of %s, is gone", c.HeadID, when)})
		case err != nil:
			return nil, 0, fmt.Errorf("reading audit row %d: %w", c.HeadID, err)
		case !strings.EqualFold(hash, c.HeadHash):
			problems = append(problems, Problem{ID: c.HeadID, Problem: "rewritten",
				Detail: fmt.Sprintf("row %d has chain_hash %s, the checkpoint of %s anchored %s: the chain up to it was rewritten", c.HeadID, hash, when, c.HeadHash)})
		default:
			held++
		}
	}
	return problems, held, nil
}
