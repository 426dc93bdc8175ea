package ingest

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/pgbrain/pgbrain/internal/classify"
	"github.com/pgbrain/pgbrain/internal/markdown"
	"github.com/pgbrain/pgbrain/internal/pii"
	"github.com/pgbrain/pgbrain/internal/shellquote"
)

// The parse stage: one file or document read, parsed, chunked and
// classified for PII, ready for a batch (runs on every core, no database).

type parsed struct {
	path   string
	page   *markdown.Page
	chunks []markdown.Chunk
	pii    []string // PII categories of the page (pii.Classify)
	// pageID and chunkIDs, when set, are the ids reserved for the page if
	// it is new and for its chunks.
	pageID   int64
	chunkIDs []int64
	// note says what of the file was stored otherwise than written.
	note string
}

func parseFile(f slugged, known map[string]string, opts Options) fileResult {
	r := fileResult{rel: f.rel, slug: f.slug}
	if f.err != nil {
		r.err = f.err
		return r
	}
	if h, ok := known[f.slug]; ok && f.hash != "" && f.hash == h {
		r.unchanged = true
		return r
	}
	data, err := readFile(f.walkFile)
	if err != nil {
		r.err = err
		return r
	}
	r = parseData(r, data, known, opts)
	if _, stored := known[f.slug]; stored && r.err == nil && !r.unchanged && len(bytes.TrimSpace(data)) == 0 {
		// A file truncated by a crash or a half-finished save must not
		// blank its page; put refuses empty input for the same reason.
		return fileResult{rel: f.rel, slug: f.slug, err: fmt.Errorf(
			"file is empty and page %q holds other content: the page was kept; write the file again, or delete the page with: pgbrain delete %s",
			f.slug, shellquote.Quote(f.slug))}
	}
	return r
}

// parseData parses one item's markdown into r (whose rel and slug are set):
// unchanged pages are only hashed, changed ones are prepared for writing.
func parseData(r fileResult, data []byte, known map[string]string, opts Options) fileResult {
	page, err := markdown.ParseFile(r.slug, r.rel, data)
	if err == nil {
		err = checkLimits(page)
	}
	if err != nil {
		r.err = err
		return r
	}
	if known[page.Slug] == page.ContentHash {
		r.unchanged = true
		return r
	}
	r.p = prepare(r.rel, page, opts)
	return r
}

// prepare finishes a parsed page for writing: normalised type, chunks and
// PII categories.
func prepare(path string, page *markdown.Page, opts Options) parsed {
	typed := page.Type
	page.Type = markdown.NormalizeType(page.Type)
	p := parsed{path: path, page: page, chunks: markdown.ChunkPage(page, opts.Chunking)}
	// A frontmatter type is normalised as documented ("Meeting Notes" is
	// meeting-notes); one that loses everything or is cut is named.
	if _, written := page.Frontmatter["type"]; written {
		switch t := markdown.TypeOf(typed); {
		case t == "":
			p.note = fmt.Sprintf("frontmatter type %q holds no letter, digit or symbol: stored as type page", typed)
		case utf8.RuneCountInString(t) == markdown.MaxTypeLen && utf8.RuneCountInString(typed) > markdown.MaxTypeLen:
			p.note = fmt.Sprintf("frontmatter type is longer than %d characters: stored cut, as %q", markdown.MaxTypeLen, t)
		}
	}
	if !opts.NoClassify {
		p.pii = pii.Classify(classify.PageText(page.Title, page.Body))
	}
	return p
}

func parseDoc(d Doc, known map[string]string, opts Options) fileResult {
	r := fileResult{rel: d.Slug}
	if !markdown.ValidSlug(d.Slug) {
		r.err = invalidSlug(d.Slug)
		return r
	}
	r.slug = d.Slug
	return parseData(r, d.Data, known, opts)
}

// invalidSlug is the error for a slug given by the caller (not derived from
// a path) that brain.pages would refuse.
func invalidSlug(slug string) error {
	return fmt.Errorf("slug %q is not valid: use '/'-separated lower-case segments of letters, digits and symbols of any script, '.', '_', '+' and '-', each starting with a letter, digit or symbol, in NFC, at most %d bytes (as 'pgbrain import' derives them from file names)", slug, markdown.MaxSlugLen)
}
