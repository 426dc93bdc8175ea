package columns

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
)

func TestWidth(t *testing.T) {
	for s, want := range map[string]int{
		"abc": 3, "東京": 4, "プロジェクト": 12, "café": 4, "cafe\u0301": 4, "Ελληνικά": 8,
		"🎉": 2, "a\u200db": 2, "ｆｕｌｌ": 8, "": 0, "한국어": 6,
	} {
		if got := Width(s); got != want {
			t.Errorf("Width(%q) = %d, want %d", s, got, want)
		}
	}
}

// On text of one-cell characters the layout is text/tabwriter's, byte for
// byte: headers, ragged rows, empty cells, lines without tabs between
// blocks, and a last line without a newline.
func TestSameLayoutAsTabwriterOnNarrowText(t *testing.T) {
	inputs := []string{
		"SLUG\tTYPE\tTITLE\nalice\tperson\tAlice\nwidget-co\tcompany\tWidget Co\n",
		"a\tb\tc\n\nlonger cell\tx\n\tempty first\nno tabs here\nq\tr\ts\tt\n",
		"ID\tPAGES\tNAME\ndefault\t1127\t\nwork\t3\tWork notes",
		"x\t\t\ty\n\t\t\t\n",
		"",
	}
	for _, in := range inputs {
		var want, got bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
		fmt.Fprint(tw, in)
		tw.Flush()
		cw := New(&got, 2)
		fmt.Fprint(cw, in)
		if err := cw.Flush(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("input %q:\n got %q\nwant %q", in, got.String(), want.String())
		}
	}
}

// Wide characters keep the next column in line on a terminal.
func TestWideCellsKeepColumnsInLine(t *testing.T) {
	var out bytes.Buffer
	w := New(&out, 2)
	fmt.Fprint(w, "SLUG\tTYPE\tTITLE\n東京\tpage\tTokyo office\nalice\tperson\tAlice\n🎉-party\tevent\tParty\ncafé\tnote\tCafé\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	col := -1
	for _, l := range lines {
		// The display column where the second cell starts.
		first := strings.SplitN(l, "  ", 2)[0]
		rest := strings.TrimLeft(l[len(first):], " ")
		c := Width(l[:len(l)-len(rest)])
		if col == -1 {
			col = c
		} else if c != col {
			t.Errorf("line %q: second column starts at display column %d, want %d\n%s", l, c, col, out.String())
		}
	}
}
