package baseline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pgbrain/pgbrain/internal/scrub"
)

// QueryHash is the normalised identity of a query: sha256 (hex) of the text
// lower-cased with runs of white space collapsed to one space and trimmed.
func QueryHash(q string) string {
	norm := strings.Join(strings.Fields(strings.ToLower(q)), " ")
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:])
}

// ErrExists means the target file exists and overwriting was not asked for.
var ErrExists = errors.New("file exists")

// Options control Publish.
type Options struct {
	Label string
	Now   time.Time
	// Thresholds are embedded in the metadata (JSON object).
	Thresholds any
}

// Build turns an export (or a baseline) read from name into baseline bytes.
// Two rows of one tool with the same normalised query are an error naming
// both lines, unless the query holds the scrubber's marker: queries that
// were wholly or partly a secret become the same text at capture, replay
// skips them, and the first of them is kept.
func Build(name string, data []byte, o Options) ([]byte, *Metadata, error) {
	f, err := Read(name, bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	type keyed struct {
		row  Row
		hash string
	}
	rows := make([]keyed, 0, len(f.Rows))
	seen := map[string]int{}
	total := 0.0
	for _, r := range f.Rows {
		h := QueryHash(r.Query)
		k := r.ToolName + "\x00" + h
		if prev, dup := seen[k]; dup {
			if strings.Contains(r.Query, scrub.Redacted) {
				continue
			}
			return nil, nil, fmt.Errorf("%s:%d and %s:%d: the same %s query %q appears twice: keep one of the two lines and publish again",
				name, prev, name, r.Line, r.ToolName, abbreviate(r.Query))
		}
		seen[k] = r.Line
		rows = append(rows, keyed{r, h})
		total += r.LatencyMS
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].row.ToolName != rows[j].row.ToolName {
			return rows[i].row.ToolName < rows[j].row.ToolName
		}
		return rows[i].hash < rows[j].hash
	})
	sum := sha256.Sum256(data)
	th, err := json.Marshal(o.Thresholds)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding thresholds: %w", err)
	}
	meta := &Metadata{
		SchemaVersion: 1,
		Kind:          Kind,
		Label:         o.Label,
		PublishedAt:   o.Now.UTC().Format("2006-01-02T15:04:05.000000Z"),
		SourceHash:    "sha256:" + hex.EncodeToString(sum[:]),
		Thresholds:    th,
		RowCount:      len(rows),
	}
	if len(rows) > 0 {
		meta.BaselineMeanLatencyMS = total / float64(len(rows))
	}
	var buf bytes.Buffer
	mline, err := json.Marshal(meta)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding baseline metadata: %w", err)
	}
	buf.Write(mline)
	buf.WriteByte('\n')
	for _, k := range rows {
		line, err := withQueryHash(k.row.Raw, k.hash)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", name, k.row.Line, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), meta, nil
}

// withQueryHash returns the row's JSON with query_hash set, keeping every
// other field and its order as exported.
func withQueryHash(raw []byte, hash string) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	if _, ok := fields["query_hash"]; ok {
		// Republishing a baseline: drop the old hash, the new one is appended.
		raw = removeKey(raw, "query_hash")
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' {
		return nil, errors.New("row is not a JSON object")
	}
	h, _ := json.Marshal(hash)
	out := append([]byte(nil), raw[:len(raw)-1]...)
	if len(bytes.TrimSpace(raw[1:len(raw)-1])) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"query_hash":`...)
	out = append(out, h...)
	return append(out, '}'), nil
}

// removeKey re-encodes an object without key, in the original key order.
func removeKey(raw []byte, key string) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	out.WriteByte('{')
	if _, err := dec.Token(); err != nil {
		return raw
	}
	first := true
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return raw
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return raw
		}
		if k == key {
			continue
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(v)
	}
	out.WriteByte('}')
	return out.Bytes()
}

// PublishFile reads the export at from and writes the baseline to to. An
// existing to is refused with ErrExists unless force is set. The file is
// written beside to and moved into place, so a reader never sees half of it.
func PublishFile(from, to string, force bool, o Options) (*Metadata, error) {
	data, err := os.ReadFile(from)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", from, err)
	}
	out, meta, err := Build(from, data, o)
	if err != nil {
		return nil, err
	}
	if !force {
		if _, err := os.Stat(to); err == nil {
			return nil, fmt.Errorf("%s: %w: pass --force to replace it", to, ErrExists)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("checking %s: %w", to, err)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(to), "."+filepath.Base(to)+".*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", to, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("writing %s: %w", to, err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("writing %s: %w", to, err)
	}
	if force {
		err = os.Rename(tmp.Name(), to)
	} else {
		// A link never replaces an existing file, even one created meanwhile.
		err = os.Link(tmp.Name(), to)
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%s: %w: pass --force to replace it", to, ErrExists)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", to, err)
	}
	return meta, nil
}

func abbreviate(q string) string {
	r := []rune(q)
	if len(r) <= 60 {
		return q
	}
	return string(r[:57]) + "..."
}
