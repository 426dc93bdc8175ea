// Command samplegen turns the Go standard library's documentation into the
// markdown pages of the sample brain under sample/brain.
//
// One page is written per standard-library package. For the most widely used
// packages there are also focused pages per exported type (with its
// constructors and methods) and per package-level function, so retrieval can
// be judged at the granularity a developer asks about. API history from
// $GOROOT/api becomes a dated "## Timeline" section.
//
// Output depends only on the Go toolchain's sources: running the command
// twice yields identical files.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// topPackages get per-type and per-function pages in addition to their
// package page. The list is the commonly imported core of the library.
var topPackages = []string{
	"archive/zip",
	"bufio",
	"bytes",
	"compress/gzip",
	"context",
	"crypto/rand",
	"crypto/sha256",
	"crypto/tls",
	"database/sql",
	"encoding/base64",
	"encoding/binary",
	"encoding/csv",
	"encoding/hex",
	"encoding/json",
	"encoding/xml",
	"errors",
	"flag",
	"fmt",
	"html/template",
	"io",
	"io/fs",
	"log",
	"log/slog",
	"math/rand",
	"net",
	"net/http",
	"net/http/httptest",
	"net/url",
	"os",
	"os/exec",
	"os/signal",
	"path/filepath",
	"reflect",
	"regexp",
	"sort",
	"slices",
	"strconv",
	"strings",
	"sync",
	"sync/atomic",
	"testing",
	"text/template",
	"time",
	"unicode/utf8",
}

func main() {
	out := flag.String("out", "sample/brain", "directory to write the brain's markdown pages into")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintf(os.Stderr, "samplegen: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	if err := run(*out); err != nil {
		fmt.Fprintf(os.Stderr, "samplegen: %v\n", err)
		os.Exit(1)
	}
}

func run(out string) error {
	goroot, err := goCmd("env", "GOROOT")
	if err != nil {
		return err
	}
	goroot = strings.TrimSpace(goroot)
	list, err := goCmd("list", "std")
	if err != nil {
		return err
	}
	hist, err := loadAPIHistory(goroot)
	if err != nil {
		return err
	}
	top := map[string]bool{}
	for _, p := range topPackages {
		top[p] = true
	}

	pages := map[string]string{} // slug -> content
	var nPkg, nType, nFunc int
	for _, path := range publicPackages(list) {
		pkg, err := loadPackage(goroot, path)
		if errors.Is(err, errNoFiles) {
			fmt.Fprintf(os.Stderr, "samplegen: skip %s: no Go files for linux/amd64\n", path)
			continue
		}
		if err != nil {
			return err
		}
		r := &renderer{pkg: pkg, fset: pkg.fset, hist: hist, path: path, hub: top[path]}
		if err := addPage(pages, packageSlug(path), r.packagePage()); err != nil {
			return err
		}
		nPkg++
		if !top[path] {
			continue
		}
		for _, t := range pkg.doc.Types {
			if err := addPage(pages, leafSlug(path, "type", t.Name), r.typePage(t)); err != nil {
				return err
			}
			nType++
		}
		for _, f := range pkg.doc.Funcs {
			if err := addPage(pages, leafSlug(path, "func", f.Name), r.funcPage(f)); err != nil {
				return err
			}
			nFunc++
		}
	}
	for _, p := range topPackages {
		if _, ok := pages[packageSlug(p)]; !ok {
			return fmt.Errorf("top package %s produced no page; fix topPackages", p)
		}
	}
	size, err := writePages(out, pages)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "samplegen: wrote %d pages (%d package, %d type, %d function), %d bytes, to %s\n",
		len(pages), nPkg, nType, nFunc, size, out)
	return nil
}

func goCmd(args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(b), nil
}

// publicPackages keeps the importable, documented part of `go list std`.
func publicPackages(list string) []string {
	var out []string
	for _, p := range strings.Fields(list) {
		if p == "cmd" || strings.HasPrefix(p, "cmd/") {
			continue
		}
		skip := false
		for _, el := range strings.Split(p, "/") {
			if el == "internal" || el == "vendor" {
				skip = true
				break
			}
		}
		if !skip {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

var errNoFiles = errors.New("no Go files")

type loadedPackage struct {
	fset *token.FileSet
	doc  *doc.Package
}

// loadPackage parses one package for a fixed platform, so the output does
// not depend on the machine that runs the generator. Test files are parsed
// too because that is where the package's examples live.
func loadPackage(goroot, path string) (*loadedPackage, error) {
	ctxt := build.Default
	ctxt.GOROOT = goroot
	ctxt.GOOS = "linux"
	ctxt.GOARCH = "amd64"
	ctxt.CgoEnabled = true
	dir := filepath.Join(goroot, "src", filepath.FromSlash(path))
	bp, err := ctxt.ImportDir(dir, 0)
	var noGo *build.NoGoError
	if errors.As(err, &noGo) {
		return nil, errNoFiles
	}
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	var names []string
	names = append(names, bp.GoFiles...)
	names = append(names, bp.CgoFiles...)
	names = append(names, bp.TestGoFiles...)
	names = append(names, bp.XTestGoFiles...)
	sort.Strings(names)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		files = append(files, f)
	}
	if len(bp.GoFiles)+len(bp.CgoFiles) == 0 {
		return nil, errNoFiles
	}
	d, err := doc.NewFromFiles(fset, files, path)
	if err != nil {
		return nil, fmt.Errorf("doc %s: %w", path, err)
	}
	return &loadedPackage{fset: fset, doc: d}, nil
}

// packageSlug: "net/http" -> "go/net/http".
func packageSlug(path string) string {
	return "go/" + path
}

// leafSlug names type and function pages. The "type-"/"func-" prefix holds
// a hyphen, which no standard-library import path contains, so a leaf page
// can never collide with a package page.
func leafSlug(path, kind, name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return packageSlug(path) + "/" + kind + "-" + b.String()
}

// addPage refuses duplicates; a collision (e.g. two names differing only in
// case) must be resolved in code rather than silently overwriting a page.
func addPage(pages map[string]string, slug, content string) error {
	if _, dup := pages[slug]; dup {
		return fmt.Errorf("two pages map to slug %s", slug)
	}
	pages[slug] = content
	return nil
}

// writePages writes every page and removes stale pages left under out/go by
// an earlier run, so the directory always matches the generator exactly.
func writePages(out string, pages map[string]string) (int64, error) {
	slugs := make([]string, 0, len(pages))
	for s := range pages {
		slugs = append(slugs, s)
	}
	sort.Strings(slugs)
	want := map[string]bool{}
	var size int64
	for _, s := range slugs {
		p := filepath.Join(out, filepath.FromSlash(s)+".md")
		want[p] = true
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return 0, fmt.Errorf("create page dir: %w", err)
		}
		if err := os.WriteFile(p, []byte(pages[s]), 0o644); err != nil {
			return 0, fmt.Errorf("write page: %w", err)
		}
		size += int64(len(pages[s]))
	}
	root := filepath.Join(out, "go")
	var stale, dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
		} else if strings.HasSuffix(p, ".md") && !want[p] {
			stale = append(stale, p)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("scan %s: %w", root, err)
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil {
			return 0, fmt.Errorf("remove stale page: %w", err)
		}
	}
	// Deepest first, so emptied parents can go too; non-empty ones stay.
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		if ents, err := os.ReadDir(d); err == nil && len(ents) == 0 {
			if err := os.Remove(d); err != nil {
				return 0, fmt.Errorf("remove empty dir: %w", err)
			}
		}
	}
	return size, nil
}
