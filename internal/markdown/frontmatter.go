package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// ErrFrontmatter reports a YAML frontmatter block that cannot be used.
var ErrFrontmatter = errors.New("frontmatter")

// splitFrontmatter finds a leading "---" ... "---" block in s (which has no
// BOM). It returns the YAML between the delimiter lines and the rest of the
// document after the closing line; ok is false when s has no frontmatter.
// The YAML always starts on file line 2.
func splitFrontmatter(s string) (yamlText, rest string, ok bool, err error) {
	first, _, found := strings.Cut(s, "\n")
	if !found || !isDelimiter(first) {
		return "", s, false, nil
	}
	start := len(first) + 1
	for pos := start; pos < len(s); {
		lineEnd, next := len(s), len(s)
		if i := strings.IndexByte(s[pos:], '\n'); i >= 0 {
			lineEnd, next = pos+i, pos+i+1
		}
		if isDelimiter(s[pos:lineEnd]) {
			return s[start:pos], s[next:], true, nil
		}
		pos = next
	}
	return "", "", false, fmt.Errorf("%w: the opening \"---\" on line 1 has no closing \"---\" line; add one after the YAML or remove the opening line", ErrFrontmatter)
}

// isDelimiter reports whether l is a "---" line, tolerating trailing blanks
// and the "\r" of CRLF files.
func isDelimiter(l string) bool {
	return strings.TrimRight(l, " \t\r") == "---"
}

// decodeFrontmatter parses the YAML block into JSON-compatible values.
func decodeFrontmatter(src string) (map[string]any, error) {
	root, err := parseYAML(src)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return map[string]any{}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: line %d: the block is a %s, not a mapping; write it as \"key: value\" lines", ErrFrontmatter, root.Line, kindName(root))
	}
	keepTextual(root)
	raw, err := decodeYAML(root)
	if err != nil {
		return nil, err
	}
	v, err := jsonValue(raw, "")
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the block did not decode to a mapping; write it as \"key: value\" lines", ErrFrontmatter)
	}
	return m, nil
}

// parseYAML parses exactly one YAML document. It returns a nil node for an
// empty or null document.
func parseYAML(src string) (root *yaml.Node, err error) {
	defer recoverYAML(&err)
	// The leading newline stands for the opening "---" so the parser's line
	// numbers are the file's.
	dec := yaml.NewDecoder(strings.NewReader("\n" + src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // empty or comments only
		}
		return nil, yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fmt.Errorf("%w: line %d starts a second YAML document; remove the extra \"---\" inside the frontmatter", ErrFrontmatter, extra.Line)
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlError(err)
	}
	root = &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, nil
	}
	return root, nil
}

func decodeYAML(n *yaml.Node) (v any, err error) {
	defer recoverYAML(&err)
	if err := n.Decode(&v); err != nil {
		return nil, yamlError(err)
	}
	return v, nil
}

// recoverYAML turns a panic inside the YAML library into an error: the
// library has had panics on hostile input, and one bad file must not stop
// an import of thousands.
func recoverYAML(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: the YAML parser failed (%v); simplify the frontmatter", ErrFrontmatter, r)
	}
}

// yamlError flattens the parser's multi-line messages into one line.
func yamlError(err error) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	return fmt.Errorf("%w: %s; fix the YAML between the \"---\" lines", ErrFrontmatter, msg)
}

func kindName(n *yaml.Node) string {
	if n.Kind == yaml.SequenceNode {
		return "list"
	}
	return "plain value"
}

// keepTextual retags timestamp and binary scalars as strings so dates keep
// the text the author wrote ("2024-01-01", not "2024-01-01T00:00:00Z") and
// binary data stays valid UTF-8 for JSON. Aliases are not followed: their
// targets are visited where they are defined.
func keepTextual(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!timestamp", "!!binary":
			n.Tag = "!!str"
		}
		return
	}
	for _, c := range n.Content {
		keepTextual(c)
	}
}

// jsonValue converts decoded YAML into values encoding/json accepts and
// PostgreSQL jsonb stores: string keys, no NaN/Inf, no NUL characters.
// path names the value in errors ("authors[1].name").
func jsonValue(v any, path string) (any, error) {
	switch x := v.(type) {
	case nil, bool, int, int64, uint64:
		return x, nil
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan", nil
		case math.IsInf(x, 1):
			return ".inf", nil
		case math.IsInf(x, -1):
			return "-.inf", nil
		}
		return x, nil
	case string:
		if err := checkText(x, path); err != nil {
			return nil, err
		}
		return x, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := jsonValue(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range sortedKeys(x) {
			if err := checkText(k, joinPath(path, k)); err != nil {
				return nil, err
			}
			c, err := jsonValue(x[k], joinPath(path, k))
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		return anyKeyMap(x, path)
	default:
		return nil, fmt.Errorf("%w: %s holds an unsupported %T value; use a string, number, list or mapping", ErrFrontmatter, describe(path), v)
	}
}

// anyKeyMap handles mappings with non-string keys (e.g. "1: one"), which
// JSON cannot hold, by writing the keys as text.
func anyKeyMap(x map[any]any, path string) (map[string]any, error) {
	byKey := make(map[string]any, len(x))
	for k, e := range x {
		ks, err := keyText(k, path)
		if err != nil {
			return nil, err
		}
		if _, dup := byKey[ks]; dup {
			return nil, fmt.Errorf("%w: %s has two keys that both read as %q; rename one", ErrFrontmatter, describe(path), ks)
		}
		byKey[ks] = e
	}
	out := make(map[string]any, len(x))
	for _, k := range sortedKeys(byKey) {
		c, err := jsonValue(byKey[k], joinPath(path, k))
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

// sortedKeys orders keys so that, of several bad values, errors always name
// the same one.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func keyText(k any, path string) (string, error) {
	if k == nil {
		return "null", nil
	}
	s, ok := scalarText(k)
	if !ok {
		return "", fmt.Errorf("%w: %s has a %T key; keys must be plain text", ErrFrontmatter, describe(path), k)
	}
	return s, checkText(s, joinPath(path, s))
}

// checkText rejects strings PostgreSQL cannot store in jsonb. YAML escapes
// such as "\0" can produce them even though the file itself is clean.
func checkText(s, path string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%w: %s contains a NUL character; remove the \\0 or \\x00 escape", ErrFrontmatter, describe(path))
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: %s is not valid UTF-8; remove the byte escapes", ErrFrontmatter, describe(path))
	}
	return nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describe(path string) string {
	if path == "" {
		return "the frontmatter"
	}
	return strconv.Quote(path)
}

// scalarText renders a frontmatter scalar as text for title, type and tags.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	}
	return "", false
}

// typeName names a frontmatter value's shape for error messages.
func typeName(v any) string {
	switch v.(type) {
	case []any:
		return "list"
	case map[string]any:
		return "mapping"
	}
	return "value"
}

// bomless strips a leading UTF-8 byte order mark.
func bomless(b []byte) []byte {
	return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
}
