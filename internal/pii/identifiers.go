package pii

import (
	"regexp"
	"slices"
	"strings"
)

// Context-anchored identifiers. The number formats alone (six to nine
// alphanumerics, nine digits) are far too common to tag, so each needs its
// label right before it. All run on the lower-cased text; label is an
// optional "number", "no.", "#" after the name.
const label = `(?:[ \t]*(?:number|num|nr|no\.?|#))?[ \t]*[:#]?[ \t]*`

type contextRule struct {
	kind  string
	hints []string // the expression runs only around these
	re    *regexp.Regexp
	valid func(value string) bool // value is from the original text
	// need holds for a window of the original text that can hold a valid
	// value: one with a digit, or for SWIFT codes a capital. Most windows
	// around a hint ("tin" in "testing") fail it, and the expression is not
	// run there.
	need func(window string) bool
}

var contextRules = []contextRule{
	{
		kind:  KindPassport,
		hints: []string{"passport"},
		re:    regexp.MustCompile(`\bpassport` + label + `([a-z0-9]{6,9})\b`),
		valid: func(v string) bool { return countDigits(v) >= 1 },
		need:  hasDigit,
	},
	{
		kind:  KindDriversLicense,
		hints: []string{"licen", "dl"},
		re: regexp.MustCompile(`\b(?:(?:driver(?:'|’)?s?|driving)[ \t]+licen[cs]e` + label +
			`|dl[ \t]*(?:number|num|nr|no\.?|#)[ \t]*[:#]?[ \t]*)([a-z0-9][a-z0-9\-]{4,19})\b`),
		valid: func(v string) bool { return countDigits(v) >= 3 },
		need:  hasDigit,
	},
	{
		kind:  KindNationalID,
		hints: []string{"insurance", "nino"},
		re:    regexp.MustCompile(`\b(?:national insurance|nino)` + label + `([a-z]{2} ?\d{2} ?\d{2} ?\d{2} ?[a-d])\b`),
		valid: func(v string) bool { return true },
		need:  hasDigit,
	},
	{
		kind:  KindNationalID,
		hints: []string{"tax", "tin", "ein"},
		re: regexp.MustCompile(`\b(?:ein|itin|tin|tax[ \t]+id(?:entification)?|taxpayer[ \t]+id(?:entification)?)` + label +
			`(\d{2}-\d{7}|\d{3}-\d{2}-\d{4}|\d{9})\b`),
		valid: func(v string) bool { return strings.Trim(v, "0-") != "" },
		need:  hasDigit,
	},
	{
		kind:  KindNationalID,
		hints: []string{"national id", "identity card", "id card"},
		re:    regexp.MustCompile(`\b(?:national[ \t]+id|identity[ \t]+card|id[ \t]+card)` + label + `([a-z0-9]{6,12})\b`),
		valid: func(v string) bool { return countDigits(v) >= 4 },
		need:  hasDigit,
	},
	{
		kind:  KindBankAccount,
		hints: []string{"acc", "acct", "a/c"},
		re: regexp.MustCompile(`\b(?:(?:bank|checking|savings|chequing|current)[ \t]+(?:account|acct)` + label +
			`|(?:account|acct)[ \t]*(?:number|num|nr|no\.?|#)[ \t]*[:#]?[ \t]*|(?:acct|a/c)[ \t]*[:#]?[ \t]*)(\d(?:[ \-]?\d){5,16})\b`),
		valid: func(v string) bool { return strings.Trim(v, "0 -") != "" },
		need:  hasDigit,
	},
	{
		kind:  KindRoutingNumber,
		hints: []string{"routing", "aba", "rtn"},
		re:    regexp.MustCompile(`\b(?:routing|aba|rtn)(?:[ \t]+transit)?` + label + `(\d{9})\b`),
		valid: abaValid,
		need:  hasDigit,
	},
	{
		kind:  KindRoutingNumber,
		hints: []string{"sort code"},
		re:    regexp.MustCompile(`\bsort[ \t]+code` + label + `(\d{2}-\d{2}-\d{2}|\d{6})\b`),
		valid: func(v string) bool { return true },
		need:  hasDigit,
	},
	{
		kind:  KindSWIFT,
		hints: []string{"swift", "bic"},
		re:    regexp.MustCompile(`\b(?:swift|bic)(?:[ \t]+code)?` + label + `([a-z]{6}[a-z0-9]{2}(?:[a-z0-9]{3})?)\b`),
		// Written in capitals in practice; lower-case words after "swift"
		// ("swift language") are prose.
		valid: func(v string) bool { return strings.ToUpper(v) == v },
		need:  hasUpper,
	},
}

func hasDigit(s string) bool { return strings.IndexAny(s, "0123456789") >= 0 }

func hasUpper(s string) bool { return strings.IndexAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") >= 0 }

// contextWindow covers a label (hints sit at most a word or two into it)
// and its value.
var contextWindow = window{before: 24, after: 64, extend: isWordByte}

func (f *finder) identifiers() {
	for i, r := range contextRules {
		if !f.wants(r.kind) {
			continue
		}
		spans := slices.DeleteFunc(contextWindow.around(f.lower, f.hintsAt(hintContext+i)),
			func(sp [2]int) bool { return !r.need(f.text[sp[0]:sp[1]]) })
		for _, m := range findAll(r.re, f.lower, spans) {
			s, e := m[len(m)-2], m[len(m)-1]
			if s >= 0 && r.valid(f.text[s:e]) {
				f.add(s, e, r.kind)
			}
		}
	}
	if f.wants(KindIBAN) {
		f.ibans(false)
	}
}

// ibans scans for CCdd followed by the country's exact IBAN length of upper-
// case alphanumerics, optionally grouped by single spaces, and checks mod 97.
// Query mode (FindForRedaction, on top of the page scan) also reads IBANs
// written in lower or mixed case ("de89 3704 0044 0532 0130 00"), by
// scanning the upper-cased text; the mod-97 check keeps words out.
func (f *finder) ibans(query bool) {
	t := f.text
	if query {
		t = asciiUpper(f.text)
		if t == f.text {
			return // the page scan saw this very text
		}
	}
	for i := 0; i+4 <= len(t); i++ {
		if !isUpper(t[i]) || !isUpper(t[i+1]) || !isDigit(t[i+2]) || !isDigit(t[i+3]) ||
			(i > 0 && isAlnum(t[i-1])) {
			continue
		}
		want, ok := ibanLengths[t[i:i+2]]
		if !ok {
			continue
		}
		var buf [34]byte
		compact := buf[:0]
		p := i
		for p < len(t) && len(compact) < want {
			c := t[p]
			if c == ' ' && len(compact) > 0 && p+1 < len(t) && t[p+1] != ' ' {
				p++
				continue
			}
			if !isUpper(c) && !isDigit(c) {
				break
			}
			compact = append(compact, c)
			p++
		}
		if len(compact) == want && (p == len(t) || !isAlnum(t[p])) && ibanMod97(string(compact)) {
			f.out = append(f.out, candidate{i, p, KindIBAN}) // both callers want IBANs
			i = p - 1
		}
	}
}
