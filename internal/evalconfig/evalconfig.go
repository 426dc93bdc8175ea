// Package evalconfig decides whether eval capture is on and whether captured
// queries are scrubbed, from $PGBRAIN_HOME/config.json and the environment.
//
// Resolution, most explicit first: `eval.capture` (true or false) in the
// config file, then PGBRAIN_CONTRIBUTOR_MODE=1, then off. The file wins over
// the environment because it is a deliberate, persistent per-brain decision
// someone wrote down, while an environment variable is often inherited from a
// shell profile that was set up for other work; an explicit `false` in the
// file is how an operator keeps capture off for one brain even on a machine
// where contributor mode is exported globally. `eval.scrub_pii` defaults to
// true whatever turned capture on.
package evalconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pgbrain/pgbrain/internal/atomicfile"
)

// FileName is the config file inside $PGBRAIN_HOME.
const FileName = "config.json"

// ContributorModeEnv turns capture on when set to "1" and the file is silent.
const ContributorModeEnv = "PGBRAIN_CONTRIBUTOR_MODE"

// Why capture is on or off.
const (
	FromFile         = "config file"
	FromEnv          = ContributorModeEnv + "=1"
	FromDefault      = "default (off)"
	FromBrokenFile   = "config file unreadable (off)"
	scrubFromFile    = "config file"
	scrubFromDefault = "default (on)"
)

// Settings is the resolved switch.
type Settings struct {
	Capture       bool   `json:"capture"`
	CaptureSource string `json:"capture_source"` // one of FromFile, FromEnv, FromDefault, FromBrokenFile
	ScrubPII      bool   `json:"scrub_pii"`
	ScrubSource   string `json:"scrub_source"`
	Path          string `json:"config_path"`
	// Nightly is the nightly quality probe's switch and budget.
	Nightly Nightly `json:"nightly"`
	// Unknown lists the keys of the eval and nightly sections this
	// package does not read ("eval.captrue"): a misspelling would
	// otherwise leave a setting silently at its default.
	Unknown []string `json:"unknown_keys,omitempty"`
}

// knownKeys are the keys of each section Parse reads.
var knownKeys = map[string][]string{"eval": {"capture", "scrub_pii"}, "nightly": {"enabled", "max_usd"}}

// unknownKeys lists, sorted, the keys of the eval and nightly sections of
// a config.json document that are not in knownKeys, as section.key.
func unknownKeys(data []byte) []string {
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	for section, keys := range knownKeys {
		var m map[string]json.RawMessage
		if json.Unmarshal(doc[section], &m) != nil {
			continue
		}
		for k := range m {
			// (encoding/json matches keys case-insensitively: "Capture" is read)
			if !slices.ContainsFunc(keys, func(known string) bool { return strings.EqualFold(known, k) }) {
				out = append(out, section+"."+k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Nightly is the "nightly" section: the nightly quality probe runs only
// when Enabled, and never spends more than MaxUSD (estimated) per run.
type Nightly struct {
	Enabled bool    `json:"enabled"`
	MaxUSD  float64 `json:"max_usd"`
}

// DefaultNightlyMaxUSD caps a nightly run when config.json names no cap.
const DefaultNightlyMaxUSD = 5.0

// File is the part of config.json this package reads; other keys are ignored.
type File struct {
	Eval struct {
		Capture  *bool `json:"capture"`
		ScrubPII *bool `json:"scrub_pii"`
	} `json:"eval"`
	Nightly struct {
		Enabled *bool    `json:"enabled"`
		MaxUSD  *float64 `json:"max_usd"`
	} `json:"nightly"`
}

// Parse reads the eval section of a config.json document. An empty document
// counts as an empty object.
func Parse(data []byte) (File, error) {
	var f File
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return File{}, err
	}
	if m := f.Nightly.MaxUSD; m != nil && !(*m >= 0 && *m < 1e9) {
		return File{}, fmt.Errorf("nightly.max_usd %v is not a budget: give US dollars, 0 or more", *m)
	}
	return f, nil
}

// Resolve applies the precedence rules to a parsed file and the value of
// PGBRAIN_CONTRIBUTOR_MODE.
func Resolve(f File, contributorMode string) Settings {
	s := Settings{CaptureSource: FromDefault, ScrubPII: true, ScrubSource: scrubFromDefault}
	switch {
	case f.Eval.Capture != nil:
		s.Capture, s.CaptureSource = *f.Eval.Capture, FromFile
	case contributorMode == "1":
		s.Capture, s.CaptureSource = true, FromEnv
	}
	if f.Eval.ScrubPII != nil {
		s.ScrubPII, s.ScrubSource = *f.Eval.ScrubPII, scrubFromFile
	}
	s.Nightly = Nightly{MaxUSD: DefaultNightlyMaxUSD}
	if f.Nightly.Enabled != nil {
		s.Nightly.Enabled = *f.Nightly.Enabled
	}
	if f.Nightly.MaxUSD != nil {
		s.Nightly.MaxUSD = *f.Nightly.MaxUSD
	}
	return s
}

// Load resolves the settings for the brain whose home is home. getenv is
// os.Getenv outside tests. A missing file is not an error. A file that cannot
// be read or parsed returns settings with capture off (never on by accident)
// together with an error naming the file and the fix.
func Load(home string, getenv func(string) string) (Settings, error) {
	path := filepath.Join(home, FileName)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s := Settings{CaptureSource: FromBrokenFile, ScrubPII: true, ScrubSource: scrubFromDefault, Path: path}
		return s, fmt.Errorf("reading %s: %w (fix its permissions or remove it)", path, err)
	}
	f, perr := Parse(data)
	if perr != nil {
		s := Settings{CaptureSource: FromBrokenFile, ScrubPII: true, ScrubSource: scrubFromDefault, Path: path}
		return s, fmt.Errorf("parsing %s: %w (expected JSON like {\"eval\":{\"capture\":true,\"scrub_pii\":true},\"nightly\":{\"enabled\":true,\"max_usd\":5}})", path, perr)
	}
	s := Resolve(f, getenv(ContributorModeEnv))
	s.Path = path
	s.Unknown = unknownKeys(data)
	return s, nil
}

// SetNightly writes the "nightly" section of home's config.json (enabled,
// and max_usd when maxUSD is not nil), keeping every other key as it was.
// The file is replaced atomically and readable by its owner only.
func SetNightly(home string, enabled bool, maxUSD *float64) error {
	path := filepath.Join(home, FileName)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if _, err := Parse(data); err != nil {
		return fmt.Errorf("parsing %s: %w (fix it by hand first; nothing was changed)", path, err)
	}
	doc := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("parsing %s: %w (fix it by hand first; nothing was changed)", path, err)
		}
	}
	section := map[string]json.RawMessage{}
	if raw, ok := doc["nightly"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &section); err != nil {
			return fmt.Errorf("parsing %s: \"nightly\" is not an object: %w (fix it by hand first; nothing was changed)", path, err)
		}
	}
	section["enabled"], _ = json.Marshal(enabled)
	if maxUSD != nil {
		if !(*maxUSD >= 0 && *maxUSD < 1e9) {
			return fmt.Errorf("max_usd %v is not a budget: give US dollars, 0 or more", *maxUSD)
		}
		section["max_usd"], _ = json.Marshal(*maxUSD)
	}
	doc["nightly"], _ = json.Marshal(section)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", home, err)
	}
	return atomicfile.Write(path, append(out, '\n'), 0o600)
}
