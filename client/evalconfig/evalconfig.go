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
}

// File is the part of config.json this package reads; other keys are ignored.
type File struct {
	Eval struct {
		Capture  *bool `json:"capture"`
		ScrubPII *bool `json:"scrub_pii"`
	} `json:"eval"`
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
		return s, fmt.Errorf("parsing %s: %w (expected JSON like {\"eval\":{\"capture\":true,\"scrub_pii\":true}})", path, perr)
	}
	s := Resolve(f, getenv(ContributorModeEnv))
	s.Path = path
	return s, nil
}
