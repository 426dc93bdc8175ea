package pgbrain

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlDefinition finds the start of a statement that defines something in
// the database, or a plpgsql body.
var sqlDefinition = regexp.MustCompile(`CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP\s+|UNLOGGED\s+|UNIQUE\s+|MATERIALIZED\s+)?(?:FUNCTION|PROCEDURE|TABLE|SCHEMA|VIEW|INDEX|TRIGGER|POLICY|ROLE|EXTENSION|TYPE|DATABASE)\b|plpgsql`)

// TestNoMultiLineSQLDefinitionsInGo holds the rule that SQL lives in sql/,
// functions/, triggers/, longmemeval/ or a testdata/ file: no string in a
// .go file holds a CREATE statement or plpgsql code longer than one line.
// One-line statements (CREATE DATABASE x, CREATE ROLE y in a test) stay.
func TestNoMultiLineSQLDefinitionsInGo(t *testing.T) {
	var found []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, loc := range sqlDefinition.FindAllStringIndex(s, -1) {
				start := strings.LastIndexByte(s[:loc[0]], ';') + 1
				end := len(s)
				if k := strings.IndexByte(s[loc[0]:], ';'); k >= 0 {
					end = loc[0] + k
				}
				if strings.Contains(strings.TrimSpace(s[start:end]), "\n") {
					found = append(found, fset.Position(lit.Pos()).String())
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("multi-line SQL definitions in Go strings (move them to a .sql file: sql/, functions/, triggers/, longmemeval/ or testdata/): %s", strings.Join(found, ", "))
	}
}
