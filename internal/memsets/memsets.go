// Package memsets builds LongMemEval-format question sets of the hard kinds
// (questions in several parts, knowledge updates, dates) whose "things
// mentioned" are real Debian packages: their names and their short and long
// descriptions, text nobody here wrote. Each question gets a haystack of
// sessions like LongMemEval_S: the evidence sessions, distractor sessions
// about packages whose descriptions share the question's words, and filler
// sessions about other packages, dated over the half year before the
// question. The sentences around the descriptions are this package's own.
//
// Two template variants exist: Tuning, which retrieval may be tuned on, and
// HeldBack, with other phrasings of every kind, which is meant to be run
// only to check a finished method.
package memsets

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/pgbrain/pgbrain/internal/aptfolder"
	"github.com/pgbrain/pgbrain/internal/longmemeval"
)

// Variant picks the question phrasings.
type Variant int

const (
	// Tuning phrasings: the ones retrieval was developed against.
	Tuning Variant = iota
	// HeldBack phrasings: other wordings of every kind, for a final check.
	HeldBack
)

// The question types, named as LongMemEval names them.
const (
	SingleUser      = "single-session-user"
	SingleAssistant = "single-session-assistant"
	MultiSession    = "multi-session"
	KnowledgeUpdate = "knowledge-update"
	Temporal        = "temporal-reasoning"
)

// Types lists the question types a set holds, in order.
var Types = []string{SingleUser, SingleAssistant, MultiSession, KnowledgeUpdate, Temporal}

// Options shape a set.
type Options struct {
	Seed     uint64
	PerType  int // questions of each type; default 20
	Sessions int // haystack sessions a question; default 50
	Variant  Variant
	// Only, when set, restricts the set to these types.
	Only []string
}

// pkg is a package usable in a set.
type pkg struct {
	name, short, long string
	words             []string // content words of the short description
}

var (
	simpleName = regexp.MustCompile(`^[a-z][a-z0-9]{2,}$`)
	wordRE     = regexp.MustCompile(`[a-z][a-z0-9]+`)
)

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for with from that this are can into its use used using your you
		not but all any has have will which files file package packages library tool tools program
		data support based version module modules plugin plugins set utility utilities simple small
		other more new one two via per also only such these those their them than then when what
		dev doc docs development documentation runtime common shared static binary binaries`) {
		stop[w] = true
	}
}

// Pool is the packages a set draws from, indexed by description word.
type Pool struct {
	pkgs   []pkg
	byWord map[string][]int
}

// NewPool keeps the records fit for a set: a plain name (letters and
// digits), a short description of three to nine words, a long description
// of at least 25 words.
func NewPool(recs []aptfolder.Record) (*Pool, error) {
	p := &Pool{byWord: map[string][]int{}}
	seenShort := map[string]bool{}
	for _, r := range recs {
		short := strings.TrimSpace(r.Short)
		if i := strings.Index(short, " ("); i > 0 {
			short = short[:i]
		}
		n := len(strings.Fields(short))
		if !simpleName.MatchString(r.Name) || n < 3 || n > 9 || len(strings.Fields(r.Long)) < 25 {
			continue
		}
		key := strings.ToLower(short)
		if seenShort[key] {
			continue
		}
		seenShort[key] = true
		var words []string
		seen := map[string]bool{}
		for _, w := range wordRE.FindAllString(key, -1) {
			if len(w) >= 3 && !stop[w] && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
		if len(words) < 2 {
			continue
		}
		p.pkgs = append(p.pkgs, pkg{name: r.Name, short: short, long: strings.Join(strings.Fields(r.Long), " "), words: words})
		for _, w := range words {
			p.byWord[w] = append(p.byWord[w], len(p.pkgs)-1)
		}
	}
	if len(p.pkgs) < 2000 {
		return nil, fmt.Errorf("only %d Debian packages have a plain name and long description (a set needs 2,000): run 'apt-get update' so apt knows the full archive", len(p.pkgs))
	}
	return p, nil
}

// Len is how many packages the pool holds.
func (p *Pool) Len() int { return len(p.pkgs) }

// builder makes one question's haystack.
type builder struct {
	p    *Pool
	rng  *rand.Rand
	used map[int]bool
}

// distractors returns up to n packages sharing at least one description
// word with target, most shared words first, none used yet.
func (b *builder) distractors(target int, n int) []int {
	count := map[int]int{}
	for _, w := range b.p.pkgs[target].words {
		list := b.p.byWord[w]
		if len(list) > 400 { // a word in that many descriptions is shared by chance
			continue
		}
		for _, i := range list {
			if i != target && !b.used[i] {
				count[i]++
			}
		}
	}
	cand := make([]int, 0, len(count))
	for i := range count {
		cand = append(cand, i)
	}
	sort.Slice(cand, func(x, y int) bool {
		if count[cand[x]] != count[cand[y]] {
			return count[cand[x]] > count[cand[y]]
		}
		return cand[x] < cand[y]
	})
	// The strongest half, then a random draw of the rest.
	out := []int{}
	for _, i := range cand {
		if len(out) >= n {
			break
		}
		if len(out) < n/2 || b.rng.IntN(3) == 0 {
			out = append(out, i)
			b.used[i] = true
		}
	}
	return out
}

// fresh returns a random package not used yet, one with few competitors
// for its description words when targetLike is set.
func (b *builder) fresh(targetLike bool) int {
	for {
		i := b.rng.IntN(len(b.p.pkgs))
		if b.used[i] {
			continue
		}
		if targetLike {
			ok := 0
			for _, w := range b.p.pkgs[i].words {
				if n := len(b.p.byWord[w]); n >= 3 && n <= 300 {
					ok++
				}
			}
			if ok < 2 {
				continue
			}
		}
		b.used[i] = true
		return i
	}
}

// sentences cuts a long description to at most n words, ending on a
// sentence where possible.
func sentences(long string, n int) string {
	w := strings.Fields(long)
	if len(w) <= n {
		return long
	}
	s := strings.Join(w[:n], " ")
	if i := strings.LastIndex(s, ". "); i > len(s)/2 {
		return s[:i+1]
	}
	return s + "."
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	if len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z' { // an acronym
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

var chatter = []string{
	"Thanks, that is helpful.",
	"Could you say a bit more about how it is configured?",
	"How does it compare with what ships by default?",
	"Is it maintained these days?",
	"Good to know. I will read the manual page tonight.",
	"Does it need a lot of memory on an older laptop?",
}

// filler is a session about k random packages, none of them used elsewhere.
func (b *builder) filler(k int) []longmemeval.Turn {
	var ts []longmemeval.Turn
	for j := 0; j < k; j++ {
		q := b.p.pkgs[b.fresh(false)]
		ts = append(ts, b.talk(q, "")...)
	}
	return ts
}

// talk is a user turn naming q (with opener, or a random question about it)
// and the assistant's answer quoting its description, then small talk.
func (b *builder) talk(q pkg, opener string) []longmemeval.Turn {
	if opener == "" {
		openers := []string{
			"I came across %s, described as %s. What is it good for?",
			"A colleague mentioned %s (%s). Should I look into it?",
			"What can you tell me about %s? The summary says %s.",
			"Is %s worth installing? It says %s.",
		}
		opener = fmt.Sprintf(openers[b.rng.IntN(len(openers))], q.name, lowerFirst(q.short))
	}
	ts := []longmemeval.Turn{
		{Role: "user", Content: opener},
		{Role: "assistant", Content: fmt.Sprintf("%s is packaged in Debian as %s. %s", q.name, lowerFirst(q.short), sentences(q.long, 90))},
	}
	if b.rng.IntN(2) == 0 {
		ts = append(ts, longmemeval.Turn{Role: "user", Content: chatter[b.rng.IntN(len(chatter))]},
			longmemeval.Turn{Role: "assistant", Content: sentences(q.long, 40)})
	}
	return ts
}

// session is one haystack session in the making.
type session struct {
	id     string
	date   time.Time
	turns  []longmemeval.Turn
	answer bool
}

// Build makes a set from the pool.
func Build(p *Pool, o Options) []longmemeval.Question {
	if o.PerType <= 0 {
		o.PerType = 20
	}
	if o.Sessions <= 0 {
		o.Sessions = 50
	}
	types := o.Only
	if len(types) == 0 {
		types = Types
	}
	rng := rand.New(rand.NewPCG(o.Seed, uint64(o.Variant)+1))
	var out []longmemeval.Question
	for n := 0; n < o.PerType; n++ {
		for _, typ := range types {
			b := &builder{p: p, rng: rng, used: map[int]bool{}}
			out = append(out, b.question(typ, n, o))
		}
	}
	return out
}

var months = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

func (b *builder) question(typ string, n int, o Options) longmemeval.Question {
	// Question dates spread over 2023 and 2024, at a random hour.
	qdate := time.Date(2023, 7, 1, 9+b.rng.IntN(10), b.rng.IntN(60), 0, 0, time.UTC).AddDate(0, 0, b.rng.IntN(400))
	earliest := qdate.AddDate(0, 0, -180)
	randDate := func() time.Time {
		return earliest.Add(time.Duration(b.rng.Int64N(int64(qdate.Sub(earliest) - 24*time.Hour))))
	}
	v := int(o.Variant)
	pick := func(opts [2][]string) string { l := opts[v]; return l[b.rng.IntN(len(l))] }
	var ss []session
	add := func(turns []longmemeval.Turn, date time.Time, answer bool) {
		ss = append(ss, session{turns: turns, date: date, answer: answer})
	}
	// distract adds sessions about packages sharing target's words.
	distract := func(target, k int) {
		for _, d := range b.distractors(target, k) {
			t := b.talk(b.p.pkgs[d], "")
			if b.rng.IntN(2) == 0 {
				t = append(t, b.filler(1)...)
			}
			add(t, randDate(), false)
		}
	}
	desc := func(i int) string { return lowerFirst(b.p.pkgs[i].short) }
	var question string
	switch typ {
	case SingleUser:
		t := b.fresh(true)
		question = fmt.Sprintf(pick([2][]string{
			{"Which package did I set up as my %s?", "What was the name of the %s I installed?"},
			{"Remind me which %s I ended up going with.", "What did I pick when I needed a %s?"},
		}), desc(t))
		opener := fmt.Sprintf("I set up %s today as my %s. Any tips before I rely on it?", b.p.pkgs[t].name, desc(t))
		add(append(b.filler(1), b.talk(b.p.pkgs[t], opener)...), randDate(), true)
		distract(t, 8)
	case SingleAssistant:
		t := b.fresh(true)
		question = fmt.Sprintf(pick([2][]string{
			{"What did you recommend to me as a %s?", "Which package did you suggest when I asked for a %s?"},
			{"You once pointed me to a %s. What was it called?", "What was your suggestion for a %s?"},
		}), desc(t))
		q := b.p.pkgs[t]
		turns := append(b.filler(1),
			longmemeval.Turn{Role: "user", Content: fmt.Sprintf("I need a %s. What would you suggest?", desc(t))},
			longmemeval.Turn{Role: "assistant", Content: fmt.Sprintf("I would recommend %s. %s", q.name, sentences(q.long, 90))})
		add(turns, randDate(), true)
		distract(t, 8)
	case MultiSession:
		parts := 3
		if v == 1 && n%3 == 2 {
			parts = 2
		}
		ts := make([]int, parts)
		for k := range ts {
			ts[k] = b.fresh(true)
			opener := fmt.Sprintf(pick([2][]string{
				{"I installed %s for %s.", "I have started using %s as my %s."},
				{"Today I tried %s, a %s.", "Set up %s this morning: it is my new %s."},
			}), b.p.pkgs[ts[k]].name, desc(ts[k]))
			add(b.talk(b.p.pkgs[ts[k]], opener+" "+chatter[b.rng.IntN(len(chatter))]), randDate(), true)
		}
		// Distractors pair two parts' words in one session, as a question
		// in parts draws sessions that each touch several of its parts.
		ds := make([][]int, parts)
		for k, t := range ts {
			ds[k] = b.distractors(t, 6)
		}
		for j := 0; j < 6; j++ {
			for k := range ts {
				other := ds[(k+1)%parts]
				if j < len(ds[k]) && j < len(other) && (parts > 2 || k == 0) {
					add(append(b.talk(b.p.pkgs[ds[k][j]], ""), b.talk(b.p.pkgs[other[(j+1)%len(other)]], "")...), randDate(), false)
				}
			}
		}
		if parts == 3 {
			question = fmt.Sprintf(pick([2][]string{
				{"Which three packages did I mention: one for %s, one for %s and one for %s?",
					"What were the packages I used for %s, for %s, and for %s?"},
				{"Can you list the tools I brought up: a %s, a %s, and a %s?",
					"I talked about three things: the %s, the %s and the %s. What were their names?"},
			}), desc(ts[0]), desc(ts[1]), desc(ts[2]))
		} else {
			question = fmt.Sprintf("Which two packages did I set up, the %s and the %s?", desc(ts[0]), desc(ts[1]))
		}
	case KnowledgeUpdate:
		a, c := b.fresh(true), b.fresh(false)
		first := randDate()
		if first.After(qdate.AddDate(0, 0, -60)) {
			first = first.AddDate(0, 0, -60)
		}
		later := first.Add(time.Duration(b.rng.Int64N(int64(qdate.Sub(first) - 24*time.Hour))))
		an, cn := b.p.pkgs[a].name, b.p.pkgs[c].name
		add(b.talk(b.p.pkgs[a], fmt.Sprintf("I picked %s as my %s. It looks fine so far.", an, desc(a))), first, true)
		update := fmt.Sprintf(pick([2][]string{
			{"Quick update: %s kept getting in my way, so I replaced it with %s.", "I stopped using %s last week; %s does the job better for me."},
			{"Goodbye %s! I moved everything over to %s.", "After a month with %s I gave up and switched to %s."},
		}), an, cn)
		add(b.talk(b.p.pkgs[c], update+" Anything I should know?"), later, true)
		if b.rng.IntN(2) == 0 {
			// One more session about another package, sometimes.
			add(b.talk(b.p.pkgs[b.fresh(false)], ""), randDate(), false)
		}
		question = fmt.Sprintf(pick([2][]string{
			{"What do I use now as my %s?", "Which package am I currently using as my %s?"},
			{"What is my %s these days?", "Do I still use the same %s I started with?"},
		}), desc(a))
		distract(a, 8)
	case Temporal:
		// Several sessions try a package for the same need; the question
		// names the time of one.
		need := b.fresh(true)
		words := desc(need)
		var dates []time.Time
		var when string
		var target time.Time
		switch kind := (n + b.rng.IntN(2)) % 4; {
		case v == 0 && kind == 0, v == 1 && kind == 0:
			// A month: the most recent such month before the question.
			m := qdate.AddDate(0, -1-b.rng.IntN(4), 0)
			target = time.Date(m.Year(), m.Month(), 3+b.rng.IntN(24), 10+b.rng.IntN(8), 0, 0, 0, time.UTC)
			when = "in " + months[m.Month()-1]
			if v == 1 {
				when = "back in " + months[m.Month()-1]
			}
		case kind == 1:
			if v == 0 {
				target = qdate.AddDate(0, 0, -7-b.rng.IntN(3))
				when = "last week"
			} else {
				target = qdate.AddDate(0, 0, -1)
				when = "yesterday"
			}
		case kind == 2:
			if v == 0 {
				target = qdate.AddDate(0, 0, -14+b.rng.IntN(3)-1)
				when = "two weeks ago"
			} else {
				target = qdate.AddDate(0, 0, -21+b.rng.IntN(3)-1)
				when = "three weeks ago"
			}
		default:
			target = qdate.AddDate(0, 0, -20-b.rng.IntN(100))
			if v == 0 {
				when = "on " + target.Format("2006/01/02")
			} else {
				when = "on " + months[target.Month()-1] + " " + fmt.Sprint(target.Day())
			}
		}
		// Competitors: at least 40 days from the target, so no reading of
		// the date words could take them in.
		for len(dates) < 6 {
			d := randDate()
			if d.Sub(target) > 40*24*time.Hour || target.Sub(d) > 40*24*time.Hour {
				dates = append(dates, d)
			}
		}
		mk := func(i int) string {
			f := pick([2][]string{{"For my %[1]s I tried %[2]s today.", "Today I gave %[2]s a go as a %[1]s."},
				{"I am testing %[2]s as my %[1]s.", "Spent the afternoon with %[2]s, hoping for a good %[1]s."}})
			return fmt.Sprintf(f, words, b.p.pkgs[i].name)
		}
		t := b.fresh(false)
		add(b.talk(b.p.pkgs[t], mk(t)), target, true)
		for _, d := range dates {
			o := b.fresh(false)
			add(b.talk(b.p.pkgs[o], mk(o)), d, false)
		}
		question = fmt.Sprintf(pick([2][]string{
			{"Which package did I try %[2]s for my %[1]s?", "What did I test as my %[1]s %[2]s?"},
			{"%[2]s I tried something as my %[1]s. What was it?", "Which %[1]s was I testing %[2]s?"},
		}), words, when)
		question = strings.ToUpper(question[:1]) + question[1:]
		distract(need, 4)
	}
	for len(ss) < o.Sessions {
		add(b.filler(1+b.rng.IntN(3)), randDate(), false)
	}
	// Time order, as LongMemEval lists sessions.
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].date.Before(ss[j].date) })
	q := longmemeval.Question{
		QuestionID:   fmt.Sprintf("%s-%d-%s-%03d", map[Variant]string{Tuning: "tune", HeldBack: "held"}[o.Variant], o.Seed, typ, n),
		QuestionType: typ,
		Question:     question,
		QuestionDate: lmeDate(qdate),
	}
	for i, s := range ss {
		id := fmt.Sprintf("s%02d_%s", i, q.QuestionID)
		q.HaystackSessionIDs = append(q.HaystackSessionIDs, id)
		q.HaystackDates = append(q.HaystackDates, lmeDate(s.date))
		q.HaystackSessions = append(q.HaystackSessions, s.turns)
		if s.answer {
			q.AnswerSessionIDs = append(q.AnswerSessionIDs, id)
		}
	}
	return q
}

// lmeDate writes t as LongMemEval does: "2023/05/20 (Sat) 02:21".
func lmeDate(t time.Time) string { return t.Format("2006/01/02 (Mon) 15:04") }

// JSON encodes qs as a public-format dataset file. The format requires an
// answer; these sets grade retrieval only, so it names the evidence
// sessions' count.
func JSON(qs []longmemeval.Question) ([]byte, error) {
	type entry struct {
		longmemeval.Question
		Answer string `json:"answer"`
	}
	out := make([]entry, len(qs))
	for i, q := range qs {
		out[i] = entry{q, fmt.Sprintf("%d evidence sessions", len(q.AnswerSessionIDs))}
	}
	return json.Marshal(out)
}
