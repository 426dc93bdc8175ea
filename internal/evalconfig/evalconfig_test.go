package evalconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadPrecedence(t *testing.T) {
	tests := []struct {
		name        string
		file        string // "" means no file
		env         string
		wantCapture bool
		wantSource  string
		wantScrub   bool
		wantErr     bool
	}{
		{"nothing set", "", "", false, FromDefault, true, false},
		{"env on", "", "1", true, FromEnv, true, false},
		{"env other value is off", "", "true", false, FromDefault, true, false},
		{"file true", `{"eval":{"capture":true}}`, "", true, FromFile, true, false},
		{"file false beats env", `{"eval":{"capture":false}}`, "1", false, FromFile, true, false},
		{"file true with env", `{"eval":{"capture":true}}`, "1", true, FromFile, true, false},
		{"file without eval falls to env", `{"database_url":"x"}`, "1", true, FromEnv, true, false},
		{"scrub off", `{"eval":{"capture":true,"scrub_pii":false}}`, "", true, FromFile, false, false},
		{"scrub off but capture from env", `{"eval":{"scrub_pii":false}}`, "1", true, FromEnv, false, false},
		{"empty file", "  \n", "1", true, FromEnv, true, false},
		{"broken file is off even with env", `{"eval":`, "1", false, FromBrokenFile, true, true},
		{"wrong type", `{"eval":{"capture":"yes"}}`, "", false, FromBrokenFile, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(home, FileName), []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{ContributorModeEnv: tc.env}
			s, err := Load(home, func(k string) string { return env[k] })
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if s.Capture != tc.wantCapture || s.CaptureSource != tc.wantSource || s.ScrubPII != tc.wantScrub {
				t.Fatalf("got capture=%v (%s) scrub=%v, want capture=%v (%s) scrub=%v",
					s.Capture, s.CaptureSource, s.ScrubPII, tc.wantCapture, tc.wantSource, tc.wantScrub)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			return
		}
		s := Resolve(file, "1")
		// A file that names capture decides it; otherwise the env does.
		if file.Eval.Capture != nil && (s.Capture != *file.Eval.Capture || s.CaptureSource != FromFile) {
			t.Fatalf("file capture %v ignored: %+v", *file.Eval.Capture, s)
		}
		if file.Eval.Capture == nil && (!s.Capture || s.CaptureSource != FromEnv) {
			t.Fatalf("env ignored: %+v", s)
		}
		if file.Eval.ScrubPII == nil && !s.ScrubPII {
			t.Fatalf("scrub_pii must default to true: %+v", s)
		}
	})
}

func TestNightlySettings(t *testing.T) {
	home := t.TempDir()
	s, err := Load(home, func(string) string { return "" })
	if err != nil || s.Nightly.Enabled || s.Nightly.MaxUSD != DefaultNightlyMaxUSD {
		t.Fatalf("default nightly = %+v, %v", s.Nightly, err)
	}
	path := filepath.Join(home, FileName)
	if err := os.WriteFile(path, []byte(`{"eval":{"capture":true},"other":{"x":[1,2]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cap := 2.5
	if err := SetNightly(home, true, &cap); err != nil {
		t.Fatal(err)
	}
	s, err = Load(home, func(string) string { return "" })
	if err != nil || !s.Nightly.Enabled || s.Nightly.MaxUSD != 2.5 || !s.Capture {
		t.Fatalf("after enabling: %+v, %v", s, err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"other"`) {
		t.Fatalf("other keys lost: %s", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v", fi.Mode().Perm())
	}
	if err := SetNightly(home, false, nil); err != nil {
		t.Fatal(err)
	}
	if s, _ = Load(home, func(string) string { return "" }); s.Nightly.Enabled || s.Nightly.MaxUSD != 2.5 {
		t.Fatalf("after disabling: %+v", s.Nightly)
	}
	neg := -1.0
	if err := SetNightly(home, true, &neg); err == nil {
		t.Fatal("a negative cap was written")
	}
	if err := os.WriteFile(path, []byte(`{"nightly":{"max_usd":-3}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(home, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "max_usd") {
		t.Fatalf("negative max_usd: %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"nightly":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetNightly(home, true, nil); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("broken file: %v", err)
	}
}

// A misspelled key of a section pgbrain reads is listed (doctor warns);
// other sections' keys and known keys are not.
func TestUnknownKeysAreListed(t *testing.T) {
	home := t.TempDir()
	doc := `{"database_url":"x","eval":{"captrue":true,"Scrub_PII":true},"nightly":{"enabled":true,"max_usd":3,"maxusd":9},"other":{"k":1}}`
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(home, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Unknown, ","); got != "eval.captrue,nightly.maxusd" {
		t.Errorf("Unknown = %q, want eval.captrue,nightly.maxusd", got)
	}
	if s.Capture {
		t.Error("capture on from a misspelled key")
	}
}
