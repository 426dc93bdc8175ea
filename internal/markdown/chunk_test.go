package markdown

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// wordGen produces unique words so tests can locate every chunk in the source.
type wordGen struct{ n int }

func (g *wordGen) sentence(words int) string {
	ws := make([]string, words)
	for i := range ws {
		g.n++
		ws[i] = fmt.Sprintf("w%05d", g.n)
	}
	return strings.Join(ws, " ") + "."
}

func (g *wordGen) paragraph(sentences, words int) string {
	ss := make([]string, sentences)
	for i := range ss {
		ss[i] = g.sentence(words)
	}
	return strings.Join(ss, " ")
}

func codeBlock(lines int) string {
	var b strings.Builder
	b.WriteString("```go\n")
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&b, "x%d := compute(a, b, c) // step %d of the loop\n", i, i)
	}
	b.WriteString("```")
	return b.String()
}

// mixedDoc has headings, paragraphs, lists, a table, code and one giant
// paragraph, so every splitting rule is exercised.
func mixedDoc() string {
	var g wordGen
	parts := []string{"# Title", g.paragraph(3, 10)}
	for s := 0; s < 4; s++ {
		parts = append(parts, fmt.Sprintf("## Section %d", s), g.paragraph(5, 9), g.paragraph(2, 14))
		parts = append(parts, "- "+g.sentence(6)+"\n- "+g.sentence(7)+"\n  "+g.sentence(3))
		parts = append(parts, "| a | b |\n|---|---|\n| "+g.sentence(2)+" | "+g.sentence(2)+" |")
		parts = append(parts, codeBlock(8))
	}
	parts = append(parts, "## Giant", g.paragraph(80, 11))
	parts = append(parts, "### Run-on", g.sentence(700))
	return strings.Join(parts, "\n\n")
}

func sectionsDoc(sections, words int) string {
	var g wordGen
	var parts []string
	for s := 0; s < sections; s++ {
		parts = append(parts, fmt.Sprintf("## Section %d", s), g.paragraph(words/10, 10))
	}
	return strings.Join(parts, "\n\n")
}

func isCodeChunk(text string) bool {
	return strings.Contains(text, "```") || strings.Contains(text, "~~~")
}

// checkChunks asserts what every ChunkPage result must satisfy.
func checkChunks(t *testing.T, p *Page, opt ChunkOptions, chunks []Chunk) {
	t.Helper()
	o := opt.resolved()
	compiled := p.Compiled
	if strings.TrimSpace(compiled) == "" {
		compiled = p.Title
	}
	seenTimeline := false
	for i, c := range chunks {
		if c.Index != i {
			t.Fatalf("chunk %d has Index %d", i, c.Index)
		}
		switch c.Source {
		case SourceCompiled:
			if seenTimeline {
				t.Fatalf("chunk %d: compiled chunk after a timeline chunk", i)
			}
			if !strings.Contains(compiled, c.Text) {
				t.Fatalf("chunk %d is not a slice of the compiled text: %q", i, c.Text)
			}
		case SourceTimeline:
			seenTimeline = true
			if !strings.Contains(p.Timeline, c.Text) {
				t.Fatalf("chunk %d is not a slice of the timeline: %q", i, c.Text)
			}
		default:
			t.Fatalf("chunk %d has Source %q", i, c.Source)
		}
		if strings.TrimSpace(c.Text) == "" || strings.TrimSpace(c.Text) != c.Text {
			t.Fatalf("chunk %d is empty or untrimmed: %q", i, c.Text)
		}
		if !utf8.ValidString(c.Text) {
			t.Fatalf("chunk %d is not valid UTF-8: %q", i, c.Text)
		}
		if len(c.Text) > o.MaxChunkBytes {
			t.Fatalf("chunk %d is %d bytes, cap is %d", i, len(c.Text), o.MaxChunkBytes)
		}
		if w := countWords(c.Text); w > o.TargetWords+o.OverlapWords && !isCodeChunk(c.Text) && !insideCode(p, c.Text) {
			t.Fatalf("chunk %d has %d words, limit is %d+%d: %q", i, w, o.TargetWords, o.OverlapWords, c.Text)
		}
	}
}

// insideCode reports whether text lies within one fenced code block of the
// page: the parts of a block too large for one chunk.
func insideCode(p *Page, text string) bool {
	for _, src := range []string{p.Compiled, p.Timeline} {
		for _, b := range blocks(src) {
			if b.kind == kindCode && strings.Contains(src[b.start:b.end], text) {
				return true
			}
		}
	}
	return false
}

// squash drops all whitespace, so a partition of a text can be compared with
// the text itself.
func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}

func TestChunkSizes(t *testing.T) {
	var g wordGen
	docs := map[string]string{
		"mixed":     mixedDoc(),
		"sections":  sectionsDoc(12, 120),
		"one giant": g.paragraph(200, 9),
		"cjk":       strings.Repeat("東京は日本の首都です。人口は多い！", 400),
		"long word": strings.Repeat("x", 20000) + " tail " + strings.Repeat("é", 5000),
		"big code":  "intro\n\n" + codeBlock(400) + "\n\nafter",
		"list":      strings.Repeat("- 2024-01-01 met someone about something important\n", 300),
	}
	opts := []ChunkOptions{
		{},
		{TargetWords: 50, OverlapWords: 10, MaxChunkBytes: 400},
		{TargetWords: 20, OverlapWords: -1, MaxChunkBytes: 100},
		{TargetWords: 10, OverlapWords: 5, MaxChunkBytes: 16},
		{TargetWords: 1000, OverlapWords: 900, MaxChunkBytes: 1},
	}
	for name, doc := range docs {
		for _, opt := range opts {
			t.Run(fmt.Sprintf("%s/%+v", name, opt), func(t *testing.T) {
				p, err := Parse("x", []byte(doc+"\n\n## Timeline\n\n"+doc))
				if err != nil {
					t.Fatal(err)
				}
				chunks := ChunkPage(p, opt)
				if len(chunks) < 2 {
					t.Fatalf("got %d chunks, want at least one per section", len(chunks))
				}
				checkChunks(t, p, opt, chunks)

				// Without overlap the chunks partition each section in order.
				noOverlap := opt
				noOverlap.OverlapWords = -1
				var comp, tl strings.Builder
				for _, c := range ChunkPage(p, noOverlap) {
					if c.Source == SourceCompiled {
						comp.WriteString(c.Text)
					} else {
						tl.WriteString(c.Text)
					}
				}
				if squash(comp.String()) != squash(p.Compiled) || squash(tl.String()) != squash(p.Timeline) {
					t.Fatal("chunks without overlap do not reproduce the page text")
				}
			})
		}
	}
}

// wordsOf splits a chunk into words for overlap checks.
func wordsOf(s string) []string { return strings.Fields(s) }

// sharedWords is the longest suffix of a that is a prefix of b, in words.
func sharedWords(a, b string) int {
	wa, wb := wordsOf(a), wordsOf(b)
	for n := min(len(wa), len(wb)); n > 0; n-- {
		if reflect.DeepEqual(wa[len(wa)-n:], wb[:n]) {
			return n
		}
	}
	return 0
}

func TestChunkOverlap(t *testing.T) {
	var g wordGen
	giant := g.paragraph(60, 10) // 600 words in one paragraph
	tests := []struct {
		name    string
		text    string
		opt     ChunkOptions
		overlap int // exact shared words between consecutive chunks
		minN    int
	}{
		{"default overlap on long paragraph", giant, ChunkOptions{TargetWords: 100}, 50, 6},
		{"explicit overlap", giant, ChunkOptions{TargetWords: 60, OverlapWords: 15}, 15, 10},
		{"overlap capped at half the target", giant, ChunkOptions{TargetWords: 40, OverlapWords: 35}, 20, 15},
		{"no overlap", giant, ChunkOptions{TargetWords: 60, OverlapWords: -1}, 0, 10},
		{"run of paragraphs", g.paragraph(3, 10) + "\n\n" + g.paragraph(3, 10) + "\n\n" + g.paragraph(3, 10), ChunkOptions{TargetWords: 30, OverlapWords: 5}, 5, 3},
		{"headings cut without overlap", sectionsDoc(6, 100), ChunkOptions{TargetWords: 300, OverlapWords: 40}, 0, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Page{Title: "t", Compiled: tt.text}
			chunks := ChunkPage(p, tt.opt)
			checkChunks(t, p, tt.opt, chunks)
			if len(chunks) < tt.minN {
				t.Fatalf("got %d chunks, want at least %d", len(chunks), tt.minN)
			}
			for i := 1; i < len(chunks); i++ {
				if n := sharedWords(chunks[i-1].Text, chunks[i].Text); n != tt.overlap {
					t.Fatalf("chunks %d and %d share %d words, want %d:\n%q\n%q", i-1, i, n, tt.overlap, chunks[i-1].Text, chunks[i].Text)
				}
			}
		})
	}
}

func TestChunkHeadings(t *testing.T) {
	tests := []struct {
		name      string
		doc       string
		opt       ChunkOptions
		wantFirst []string // first line of each chunk
	}{
		{
			name:      "each substantial section gets its own chunk",
			doc:       sectionsDoc(4, 120),
			opt:       ChunkOptions{TargetWords: 300},
			wantFirst: []string{"## Section 0", "## Section 1", "## Section 2", "## Section 3"},
		},
		{
			name:      "small sections share a chunk until a third of the target",
			doc:       sectionsDoc(6, 20),
			opt:       ChunkOptions{TargetWords: 150},
			wantFirst: []string{"## Section 0", "## Section 3"},
		},
		{
			name:      "heading carried to the chunk with its text",
			doc:       "intro " + (&wordGen{}).paragraph(2, 9) + "\n\n## B\n\n" + (&wordGen{n: 500}).paragraph(8, 10),
			opt:       ChunkOptions{TargetWords: 90, OverlapWords: -1},
			wantFirst: []string{"intro w00001 w00002 w00003 w00004 w00005 w00006 w00007 w00008 w00009. w00010 w00011 w00012 w00013 w00014 w00015 w00016 w00017 w00018.", "## B"},
		},
		{
			name:      "heading takes the first sentences of a paragraph that does not fit with it",
			doc:       "## A\n\n" + (&wordGen{}).paragraph(9, 10),
			opt:       ChunkOptions{TargetWords: 91, OverlapWords: -1},
			wantFirst: []string{"## A", "w00081 w00082 w00083 w00084 w00085 w00086 w00087 w00088 w00089 w00090."},
		},
		{
			name:      "heading takes a code block larger than the target",
			doc:       "## A\n\n" + codeBlock(30),
			opt:       ChunkOptions{TargetWords: 50},
			wantFirst: []string{"## A"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Page{Title: "t", Compiled: tt.doc}
			chunks := ChunkPage(p, tt.opt)
			checkChunks(t, p, tt.opt, chunks)
			var first []string
			for _, c := range chunks {
				first = append(first, strings.SplitN(c.Text, "\n", 2)[0])
				lines := strings.Split(c.Text, "\n")
				if _, _, ok := atxHeading(lines[len(lines)-1]); ok {
					t.Errorf("chunk %d ends with a heading: %q", c.Index, c.Text)
				}
			}
			if !reflect.DeepEqual(first, tt.wantFirst) {
				t.Fatalf("chunks start with %q, want %q", first, tt.wantFirst)
			}
		})
	}
}

func TestChunkCodeFences(t *testing.T) {
	var g wordGen
	small := codeBlock(60) // about 600 words, under 8000 bytes
	tilde := "~~~\n" + strings.Repeat("line with several words in it\n", 80) + "~~~"
	nested := "- item\n\n    ```sh\n    # comment\n" + strings.Repeat("    echo one two three four\n", 50) + "    ```"
	tests := []struct {
		name  string
		doc   string
		opt   ChunkOptions
		whole string // must appear intact inside one chunk
	}{
		{"block larger than target kept whole", g.paragraph(5, 10) + "\n\n" + small + "\n\n" + g.paragraph(5, 10), ChunkOptions{TargetWords: 100}, small},
		{"block after a nearly full chunk", g.paragraph(9, 10) + "\n\n" + small, ChunkOptions{TargetWords: 100, OverlapWords: 20}, small},
		{"tilde fence", g.paragraph(2, 10) + "\n\n" + tilde + "\n\n" + g.paragraph(2, 10), ChunkOptions{TargetWords: 50}, tilde},
		{"fence nested in a list", nested + "\n\n" + g.paragraph(2, 10), ChunkOptions{TargetWords: 50}, strings.TrimSpace(nested[strings.Index(nested, "```"):])},
		{"unclosed fence runs to the end", g.paragraph(2, 10) + "\n\n```\n" + strings.Repeat("a b c\n", 100), ChunkOptions{TargetWords: 50}, "```\n" + strings.TrimSpace(strings.Repeat("a b c\n", 100))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Page{Title: "t", Compiled: tt.doc}
			chunks := ChunkPage(p, tt.opt)
			checkChunks(t, p, tt.opt, chunks)
			holders := 0
			for _, c := range chunks {
				if strings.Contains(c.Text, tt.whole) {
					holders++
					continue
				}
				// No chunk may hold only part of the block.
				if strings.Contains(c.Text, "compute(") || strings.Contains(c.Text, "echo one") || strings.Contains(c.Text, "several words") || strings.Contains(c.Text, "a b c") {
					t.Fatalf("chunk %d holds part of the code block: %q", c.Index, c.Text)
				}
			}
			if holders != 1 {
				t.Fatalf("%d chunks hold the whole code block, want 1", holders)
			}
		})
	}
}

func TestChunkOversizedCodeBlock(t *testing.T) {
	block := codeBlock(300) // about 15 KB
	p := &Page{Title: "t", Compiled: "Intro text.\n\n" + block + "\n\nOutro text."}
	opt := ChunkOptions{MaxChunkBytes: 2000}
	chunks := ChunkPage(p, opt)
	checkChunks(t, p, opt, chunks)
	// Every code line appears whole, exactly once, in order.
	var lines []string
	for _, c := range chunks {
		for _, l := range strings.Split(c.Text, "\n") {
			if strings.Contains(l, "compute(") {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) != 300 {
		t.Fatalf("code lines in chunks = %d, want 300", len(lines))
	}
	for i, l := range lines {
		if want := fmt.Sprintf("x%d := compute(a, b, c) // step %d of the loop", i, i); l != want {
			t.Fatalf("code line %d = %q, want %q", i, l, want)
		}
	}
	if len(chunks) < 8 {
		t.Fatalf("got %d chunks, want the 15 KB block split under the 2000-byte cap", len(chunks))
	}
}

func TestChunkTitleFallback(t *testing.T) {
	tests := []struct {
		name string
		page Page
		want []Chunk
	}{
		{"empty compiled uses title", Page{Title: "Alice"}, []Chunk{{0, SourceCompiled, "Alice"}}},
		{"whitespace compiled uses title", Page{Title: "Alice", Compiled: " \n\t\n"}, []Chunk{{0, SourceCompiled, "Alice"}}},
		{"timeline only", Page{Title: "Alice", Timeline: "- 2024 met"}, []Chunk{{0, SourceCompiled, "Alice"}, {1, SourceTimeline, "- 2024 met"}}},
		{"compiled present ignores title", Page{Title: "Alice", Compiled: "facts"}, []Chunk{{0, SourceCompiled, "facts"}}},
		{"nothing at all", Page{}, nil},
		{"whitespace timeline dropped", Page{Compiled: "a", Timeline: "\n \n"}, []Chunk{{0, SourceCompiled, "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ChunkPage(&tt.page, ChunkOptions{})
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ChunkPage = %#v, want %#v", got, tt.want)
			}
		})
	}
	if got := ChunkPage(nil, ChunkOptions{}); got != nil {
		t.Fatalf("ChunkPage(nil) = %#v, want nil", got)
	}
}

func TestChunkParsedEmptyPage(t *testing.T) {
	p, err := Parse("people/alice-smith", []byte("---\ntags: [a]\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := ChunkPage(p, ChunkOptions{})
	want := []Chunk{{0, SourceCompiled, "alice-smith"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ChunkPage = %#v, want %#v", got, want)
	}
}

func TestChunkDeterministic(t *testing.T) {
	p, err := Parse("x", []byte(mixedDoc()))
	if err != nil {
		t.Fatal(err)
	}
	opt := ChunkOptions{TargetWords: 80, OverlapWords: 20, MaxChunkBytes: 900}
	first := ChunkPage(p, opt)
	for i := 0; i < 5; i++ {
		if again := ChunkPage(p, opt); !reflect.DeepEqual(first, again) {
			t.Fatal("ChunkPage gave different chunks for the same input")
		}
	}
}

func TestChunkOptionsResolved(t *testing.T) {
	tests := []struct {
		in, want ChunkOptions
	}{
		{ChunkOptions{}, ChunkOptions{300, 50, 8000}},
		{ChunkOptions{TargetWords: -5, OverlapWords: -1, MaxChunkBytes: -1}, ChunkOptions{300, 0, 8000}},
		{ChunkOptions{TargetWords: 40}, ChunkOptions{40, 20, 8000}},
		{ChunkOptions{TargetWords: 1, OverlapWords: 3, MaxChunkBytes: 2}, ChunkOptions{1, 0, 4}},
		{ChunkOptions{TargetWords: 500, OverlapWords: 80, MaxChunkBytes: 100}, ChunkOptions{500, 80, 100}},
	}
	for _, tt := range tests {
		if got := tt.in.resolved(); got != tt.want {
			t.Errorf("%+v resolved to %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two! Three? Four", []string{"One.", "Two!", "Three?", "Four"}},
		{`He said "stop." Then left.`, []string{`He said "stop."`, "Then left."}},
		{"v1.2 is out... really", []string{"v1.2 is out...", "really"}},
		{"東京。大阪！京都", []string{"東京。", "大阪！", "京都"}},
		{"intro\n- a\n- b\n1. c\n| t |\n> q\nplain\nwrap", []string{"intro", "- a", "- b", "1. c", "| t |", "> q\nplain\nwrap"}},
		{"12. Twelve. Done", []string{"12. Twelve.", "Done"}},
	}
	for _, tt := range tests {
		var got []string
		for _, u := range sentences(tt.in, 0, len(tt.in)) {
			got = append(got, tt.in[u.start:u.end])
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("sentences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCountWordsMatchesFields(t *testing.T) {
	for _, s := range []string{
		"", " ", "one", " one  two\tthree\nfour\v\ffive\r", "a\u00a0b\u2003c\u0085d", "\x00\x08\x0e\x1f x",
		"naïve café", "bad\xffutf8 \xe2\x80 end", "日本語 テキスト", "x\u200by",
	} {
		if got, want := countWords(s), len(strings.Fields(s)); got != want {
			t.Errorf("countWords(%q) = %d, strings.Fields gives %d", s, got, want)
		}
	}
}
