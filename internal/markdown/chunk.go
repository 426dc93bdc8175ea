package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunk sources, matching the chunk_source CHECK in the chunks table.
const (
	SourceCompiled = "compiled_truth"
	SourceTimeline = "timeline"
)

// Chunk defaults used when ChunkOptions fields are zero.
const (
	DefaultTargetWords   = 300
	DefaultOverlapWords  = 50
	DefaultMaxChunkBytes = 8000
)

// Chunk is one searchable slice of a page.
type Chunk struct {
	Index  int    // 0..n-1 across both sources, compiled chunks first
	Source string // SourceCompiled or SourceTimeline
	Text   string // a trimmed slice of the page's markdown
}

// ChunkOptions sizes chunks. Zero fields take the defaults.
type ChunkOptions struct {
	// TargetWords is the usual chunk size in words (default 300). Each chunk
	// holds at most TargetWords new words plus the overlap, except a fenced
	// code block, which is kept whole up to MaxChunkBytes.
	TargetWords int
	// OverlapWords is how many words of the previous chunk a chunk repeats
	// when a run of text had to be cut (default 50; negative for none). It is
	// capped at TargetWords/2.
	OverlapWords int
	// MaxChunkBytes is a hard cap on chunk text length (default 8000, at
	// least 4 so one UTF-8 character always fits).
	MaxChunkBytes int
}

func (o ChunkOptions) resolved() ChunkOptions {
	if o.TargetWords <= 0 {
		o.TargetWords = DefaultTargetWords
	}
	switch {
	case o.OverlapWords == 0:
		o.OverlapWords = DefaultOverlapWords
	case o.OverlapWords < 0:
		o.OverlapWords = 0
	}
	if o.OverlapWords > o.TargetWords/2 {
		o.OverlapWords = o.TargetWords / 2
	}
	if o.MaxChunkBytes <= 0 {
		o.MaxChunkBytes = DefaultMaxChunkBytes
	}
	if o.MaxChunkBytes < utf8.UTFMax {
		o.MaxChunkBytes = utf8.UTFMax
	}
	return o
}

// ChunkPage splits a page into chunks: the compiled part first, then the
// timeline. A page whose compiled part is empty gets one compiled chunk made
// of its title, so every page can be found. The result depends only on the
// page and the options.
func ChunkPage(p *Page, opt ChunkOptions) []Chunk {
	if p == nil {
		return nil
	}
	opt = opt.resolved()
	compiled := p.Compiled
	if strings.TrimSpace(compiled) == "" {
		compiled = p.Title
	}
	var out []Chunk
	for _, part := range []struct{ source, text string }{
		{SourceCompiled, compiled},
		{SourceTimeline, p.Timeline},
	} {
		for _, t := range chunkText(part.text, opt) {
			out = append(out, Chunk{Index: len(out), Source: part.source, Text: t})
		}
	}
	return out
}

type unitKind int

const (
	kindText unitKind = iota
	kindHeading
	kindCode
)

// unitLevel says how finely a unit was cut; the packer cuts a unit one
// level finer only to keep a heading together with its text.
type unitLevel int

const (
	levelBlock unitLevel = iota
	levelSentence
	levelWord // words and character pieces: not cut further
)

// unit is the smallest piece the packer places: a whole block, or a part
// of a block too large to place whole. src[start:end] is trimmed.
type unit struct {
	start, end int
	words      int
	kind       unitKind
	level      unitLevel
}

// chunkText splits one section into trimmed, non-empty chunk texts.
func chunkText(src string, opt ChunkOptions) []string {
	var units []unit
	for _, b := range blocks(src) {
		units = appendUnits(units, src, b, opt)
	}
	pk := packer{src: src, opt: opt, overlapAt: -1}
	for _, u := range units {
		if u.kind == kindCode {
			pk.code = append(pk.code, u)
		}
	}
	for _, u := range units {
		pk.push(u)
	}
	pk.cut(false)
	return pk.out
}

// blocks splits src into headings, fenced code blocks and paragraphs
// (runs of non-blank lines).
func blocks(src string) []unit {
	var out []unit
	para := -1 // start of the open paragraph, -1 when none
	paraEnd := 0
	endPara := func() {
		if para >= 0 {
			out = appendTrimmed(out, src, para, paraEnd, kindText)
			para = -1
		}
	}
	var open fence
	code := -1 // start of the open code block, -1 when none
	for _, l := range splitLines(src) {
		t := src[l.start:l.end]
		if code >= 0 {
			if open.closes(t) {
				out = appendTrimmed(out, src, code, l.end, kindCode)
				code = -1
			}
			continue
		}
		if isBlank(t) {
			endPara()
			continue
		}
		if f, ok := openFence(t); ok {
			endPara()
			open, code = f, l.start
			continue
		}
		if _, _, ok := atxHeading(t); ok {
			endPara()
			out = appendTrimmed(out, src, l.start, l.end, kindHeading)
			continue
		}
		if para < 0 {
			para = l.start
		}
		paraEnd = l.end
	}
	endPara()
	if code >= 0 { // an unclosed fence runs to the end, as in CommonMark
		out = appendTrimmed(out, src, code, len(src), kindCode)
	}
	return out
}

func appendTrimmed(out []unit, src string, start, end int, kind unitKind) []unit {
	start, end = trimRange(src, start, end)
	if start >= end {
		return out
	}
	return append(out, unit{start: start, end: end, words: countWords(src[start:end]), kind: kind})
}

// appendUnits adds b as one unit when it fits a chunk, and otherwise the
// pieces it splits into: code by lines, text by sentences, then words, then
// UTF-8 characters as a last resort for the byte cap.
func appendUnits(out []unit, src string, b unit, opt ChunkOptions) []unit {
	size := b.end - b.start
	if b.kind == kindCode {
		if size <= opt.MaxChunkBytes {
			return append(out, b) // kept whole even above TargetWords
		}
		return appendCodePieces(out, src, b, opt.MaxChunkBytes)
	}
	if b.words <= opt.TargetWords && size <= opt.MaxChunkBytes {
		return append(out, b)
	}
	for _, s := range sentences(src, b.start, b.end) {
		if s.words <= opt.TargetWords && s.end-s.start <= opt.MaxChunkBytes {
			out = append(out, s)
			continue
		}
		for _, w := range words(src, s.start, s.end) {
			if w.end-w.start <= opt.MaxChunkBytes {
				out = append(out, w)
				continue
			}
			out = appendRunePieces(out, src, w.start, w.end, opt.MaxChunkBytes, kindText)
		}
	}
	return out
}

// appendCodePieces cuts an oversized code block at line ends into pieces of
// at most max bytes. Each piece stays a code unit so it is never merged
// with text or used as overlap.
func appendCodePieces(out []unit, src string, b unit, max int) []unit {
	start := b.start
	end := b.start // end of the last line that fits
	flush := func() {
		if end > start {
			out = appendTrimmed(out, src, start, end, kindCode)
		}
	}
	for _, l := range splitLines(src[b.start:b.end]) {
		ls, le := b.start+l.start, b.start+l.end
		switch {
		case le-start <= max:
			end = le
		case le-ls <= max:
			flush()
			start, end = ls, le
		default:
			flush()
			out = appendRunePieces(out, src, ls, le, max, kindCode)
			start, end = le, le
		}
	}
	flush()
	return out
}

// appendRunePieces cuts src[start:end] at UTF-8 character boundaries into
// pieces of at most max bytes.
func appendRunePieces(out []unit, src string, start, end, max int, kind unitKind) []unit {
	for start < end {
		cut := start + max
		if cut >= end {
			cut = end
		} else {
			for cut > start && !utf8.RuneStart(src[cut]) {
				cut--
			}
			if cut == start { // not UTF-8 text; still make progress
				cut = start + max
			}
		}
		n := len(out)
		out = appendTrimmed(out, src, start, cut, kind)
		if len(out) > n {
			out[n].level = levelWord
		}
		start = cut
	}
	return out
}

// sentences splits src[start:end] after ".", "!" or "?" (with any closing
// quotes or brackets) followed by whitespace, after CJK full stops, and
// before lines that start a list item, table row or quote.
func sentences(src string, start, end int) []unit {
	var out []unit
	from := start
	for i := start; i < end; {
		r, n := utf8.DecodeRuneInString(src[i:end])
		next := i + n
		switch {
		case r == '.' || r == '!' || r == '?':
			j := skipClosers(src, next, end)
			if (j == end || startsWithSpace(src[j:end])) && !isListNumber(src[from:i]) {
				out = appendTrimmed(out, src, from, j, kindText)
				from = j
			}
			next = j
		case r == '。' || r == '！' || r == '？':
			j := skipClosers(src, next, end)
			out = appendTrimmed(out, src, from, j, kindText)
			from, next = j, j
		case r == '\n' && startsItem(src[next:end]):
			out = appendTrimmed(out, src, from, i, kindText)
			from = next
		}
		i = next
	}
	out = appendTrimmed(out, src, from, end, kindText)
	for i := range out {
		out[i].level = levelSentence
	}
	return out
}

// isListNumber reports whether s is the "12" of an ordered list item "12. ",
// whose dot does not end a sentence.
func isListNumber(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// skipClosers moves past sentence punctuation and closing quotes/brackets.
func skipClosers(src string, i, end int) int {
	for i < end {
		r, n := utf8.DecodeRuneInString(src[i:end])
		if !strings.ContainsRune(`.!?"')]}*_”’»。！？」』`, r) {
			break
		}
		i += n
	}
	return i
}

func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isSpace(r)
}

// startsItem reports whether a line starts a list item, table row or quote.
func startsItem(l string) bool {
	l = strings.TrimLeft(l, " \t")
	if l == "" {
		return false
	}
	switch l[0] {
	case '|', '>':
		return true
	case '-', '*', '+':
		return len(l) > 1 && (l[1] == ' ' || l[1] == '\t')
	}
	i := 0
	for i < len(l) && i < 9 && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(l) && (l[i] == '.' || l[i] == ')') && (l[i+1] == ' ' || l[i+1] == '\t')
}

// words returns each whitespace-separated word of src[start:end].
func words(src string, start, end int) []unit {
	var out []unit
	w := -1
	for i := start; i < end; {
		r, n := utf8.DecodeRuneInString(src[i:end])
		if isSpace(r) {
			if w >= 0 {
				out = append(out, unit{start: w, end: i, words: 1, kind: kindText, level: levelWord})
				w = -1
			}
		} else if w < 0 {
			w = i
		}
		i += n
	}
	if w >= 0 {
		out = append(out, unit{start: w, end: end, words: 1, kind: kindText, level: levelWord})
	}
	return out
}

// packer greedily fills chunks with units.
type packer struct {
	src  string
	opt  ChunkOptions
	code []unit // every code unit of src, in order
	out  []string

	start     int    // start of the current chunk, overlap included
	cur       []unit // units placed in the current chunk, overlap excluded
	words     int    // words in cur
	overlapAt int    // where the next chunk may start to repeat text; -1 for none
}

func (p *packer) push(u unit) {
	// A heading is a natural boundary once the chunk has some substance;
	// cutting earlier would leave tiny chunks.
	if u.kind == kindHeading && len(p.cur) > 0 && p.words*3 >= p.opt.TargetWords {
		p.cut(false)
	}
	for {
		if len(p.cur) == 0 {
			p.begin(u)
			return
		}
		if p.words+u.words <= p.opt.TargetWords && u.end-p.start <= p.opt.MaxChunkBytes {
			p.add(u)
			return
		}
		if p.onlyHeadings() {
			// Rather than leave headings alone in a chunk, give them the code
			// block that follows when the byte cap allows (code may exceed
			// the word target anyway) or the first part of their text.
			if u.kind == kindCode && u.end-p.start <= p.opt.MaxChunkBytes {
				p.add(u)
				return
			}
			if parts := p.finer(u); parts != nil {
				for _, q := range parts {
					p.push(q)
				}
				return
			}
		}
		p.cut(true)
	}
}

func (p *packer) add(u unit) {
	p.cur = append(p.cur, u)
	p.words += u.words
}

func (p *packer) onlyHeadings() bool {
	for _, u := range p.cur {
		if u.kind != kindHeading {
			return false
		}
	}
	return len(p.cur) > 0
}

// finer cuts a text unit into its sentences, or a sentence into its words.
// It returns nil for code, headings and single words.
func (p *packer) finer(u unit) []unit {
	for u.kind == kindText && u.level < levelWord {
		var parts []unit
		if u.level == levelBlock {
			parts = sentences(p.src, u.start, u.end)
		} else {
			parts = words(p.src, u.start, u.end)
		}
		if len(parts) > 1 {
			return parts
		}
		u.level++
	}
	return nil
}

// begin starts a chunk with u, repeating the previous chunk's tail when that
// still fits the byte cap. A heading opens a new topic, so it gets none.
func (p *packer) begin(u unit) {
	p.start = u.start
	if p.overlapAt >= 0 && p.overlapAt < u.start && u.kind != kindHeading && u.end-p.overlapAt <= p.opt.MaxChunkBytes {
		p.start = p.overlapAt
	}
	p.overlapAt = -1
	p.cur = append(p.cur[:0], u)
	p.words = u.words
}

// cut emits the current chunk. full says the chunk ended because the next
// unit did not fit: then trailing headings move on to the next chunk (a
// heading belongs with what follows it) and, when none do, the next chunk
// starts with an overlap.
func (p *packer) cut(full bool) {
	if len(p.cur) == 0 {
		return
	}
	n := len(p.cur)
	k := n
	if full {
		for k > 0 && p.cur[k-1].kind == kindHeading {
			k--
		}
	}
	if k > 0 && k < n {
		p.emit(p.start, p.cur[k-1].end)
		carried := p.cur[k:]
		p.start = carried[0].start
		p.words = 0
		for _, u := range carried {
			p.words += u.words
		}
		p.cur = append(p.cur[:0], carried...)
		return
	}
	end := p.cur[n-1].end
	p.emit(p.start, end)
	if full && k == n {
		p.overlapAt = p.overlapStart(p.start, end)
	}
	p.cur = p.cur[:0]
	p.words = 0
}

func (p *packer) emit(start, end int) {
	if t := strings.TrimSpace(p.src[start:end]); t != "" {
		p.out = append(p.out, t)
	}
}

// overlapStart finds where the last OverlapWords words of src[start:end]
// begin, taking at most half the chunk so chunks never mostly repeat each
// other. It never lands inside a code block. -1 means no overlap.
func (p *packer) overlapStart(start, end int) int {
	want := p.opt.OverlapWords
	// The chunk holds at least its units' words less one per joint, which
	// usually settles the cap without counting the text again.
	if p.words-len(p.cur) < 2*want {
		if half := countWords(p.src[start:end]) / 2; want > half {
			want = half
		}
	}
	if want == 0 {
		return -1
	}
	pos := end
	for n := 0; n < want && pos > start; n++ {
		pos = wordStartBefore(p.src, start, pos)
	}
	// Code units are sorted and pos only moves forward, so one pass does.
	for _, c := range p.code {
		if pos > c.start && pos < c.end {
			pos = c.end
		}
	}
	pos, _ = trimRange(p.src, pos, end)
	if pos >= end {
		return -1
	}
	return pos
}

// wordStartBefore returns the start of the last word that begins before pos.
func wordStartBefore(src string, floor, pos int) int {
	for pos > floor { // skip trailing whitespace
		r, n := utf8.DecodeLastRuneInString(src[floor:pos])
		if !isSpace(r) {
			break
		}
		pos -= n
	}
	for pos > floor {
		r, n := utf8.DecodeLastRuneInString(src[floor:pos])
		if isSpace(r) {
			break
		}
		pos -= n
	}
	return pos
}

// trimRange narrows src[start:end] to exclude surrounding whitespace.
func trimRange(src string, start, end int) (int, int) {
	for start < end {
		r, n := utf8.DecodeRuneInString(src[start:end])
		if !isSpace(r) {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(src[start:end])
		if !isSpace(r) {
			break
		}
		end -= n
	}
	return start, end
}

// countWords counts what strings.Fields would split s into, without
// allocating. ASCII bytes skip rune decoding: the chunker counts every byte
// of an import at least once.
func countWords(s string) int {
	n := 0
	in := false
	for i := 0; i < len(s); {
		var space bool
		if c := s[i]; c < utf8.RuneSelf {
			space = c == ' ' || c-'\t' <= '\r'-'\t' // \t \n \v \f \r
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			space = isSpace(r)
			i += size
		}
		if space {
			in = false
		} else if !in {
			in = true
			n++
		}
	}
	return n
}

func isSpace(r rune) bool { return unicode.IsSpace(r) }
