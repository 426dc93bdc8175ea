package aptfolder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseMergesPackagesAndTranslations(t *testing.T) {
	recs := map[string]*Record{}
	Parse(strings.NewReader("Package: gobjc++\nVersion: 1\nDescription: GNU Objective-C++ compiler\nDescription-md5: x\n\nPackage: gobjc\nDescription: GNU Objective-C compiler\n"), recs)
	Parse(strings.NewReader("Package: gobjc++\nDescription-md5: x\nDescription-en: GNU Objective-C++ compiler\n This is the compiler.\n .\n Second paragraph.\n"), recs)
	if r := recs["gobjc++"]; r == nil || r.Short != "GNU Objective-C++ compiler" || r.Long != "This is the compiler.\n\nSecond paragraph." {
		t.Fatalf("gobjc++ = %+v", r)
	}
	if r := recs["gobjc"]; r == nil || r.Short != "GNU Objective-C compiler" || r.Long != "" {
		t.Fatalf("gobjc = %+v", r)
	}
}

func TestWriteNamesFilesAfterPackages(t *testing.T) {
	recs := []Record{{Name: "gobjc", Short: "C"}, {Name: "gobjc++", Short: "C++", Long: "long"}, {Name: "zzz", Short: "z"}}
	dir := t.TempDir()
	n, err := Write(dir, recs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(recs) + 1 + len(Extra); n != want { // + one upper-case twin
		t.Fatalf("wrote %d files, want %d", n, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "gobjc++.md"))
	if err != nil || string(b) != "# gobjc++\n\nC++\n\nlong\n" {
		t.Fatalf("gobjc++.md = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "GOBJC.md")); err != nil {
		t.Fatalf("no upper-case twin: %v", err)
	}
}

// FuzzParse: any input parses without panicking into records named by a
// Package field.
func FuzzParse(f *testing.F) {
	f.Add("Package: a\nDescription: b\n c\n .\n d\n\nPackage: e\n")
	f.Add("Description: orphan\n long\nPackage:\n\n\n")
	f.Add(" continuation first\nPackage: x y\nDescription-en:\n")
	f.Fuzz(func(t *testing.T, in string) {
		recs := map[string]*Record{}
		Parse(strings.NewReader(in), recs)
		for name, r := range recs {
			if name == "" || r.Name != name || strings.Contains(name, "\n") {
				t.Fatalf("record %q = %+v", name, r)
			}
		}
	})
}
