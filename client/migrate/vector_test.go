package migrate

import (
	"errors"
	"strings"
	"testing"
)

func TestVectorVersionOK(t *testing.T) {
	for _, tc := range []struct {
		installed, available string
		want                 string // "" for accepted, else a fragment of the error
	}{
		{"0.8.0", "0.8.0", ""},
		{"0.8.1", "", ""},
		{"0.10.0", "0.10.0", ""},
		{"", "0.8.0", ""},
		{"", "1.0.0-dev", ""},
		{"0.7.4", "0.8.0", "this database has pgvector 0.7.4, but pgbrain needs 0.8.0 or later"},
		{"0.5.1", "", "ALTER EXTENSION vector UPDATE"},
		{"", "0.6.2", "this server offers pgvector 0.6.2"},
		{"", "", ErrNoVector.Error()},
	} {
		err := vectorVersionOK(tc.installed, tc.available)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("installed %q available %q: %v, want accepted", tc.installed, tc.available, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("installed %q available %q: %v, want an error with %q", tc.installed, tc.available, err, tc.want)
		}
	}
	if !errors.Is(vectorVersionOK("", ""), ErrNoVector) {
		t.Error("no pgvector at all is not ErrNoVector")
	}
}
