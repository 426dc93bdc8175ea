package pii

import "strings"

// The words either side of "fingerprint" that decide what it is, never
// reaching past the end of a sentence: a person must be within
// personalWindow words ("the police took his fingerprints"), and a
// technical word within technicalWindow vetoes ("list all keys along with
// their fingerprints"); the veto reaches further because man pages name
// the key once and then speak of "its fingerprint" or "their fingerprints".
const (
	personalWindow  = 4
	technicalWindow = 12
)

// biometricFingerprint reports whether word k ("fingerprint", "fingerprints",
// "fingerprinted") is a person's. Most text that says fingerprint means a
// key's, a certificate's or a file's (man pages of ssh, gpg, openssl), so it
// takes positive evidence: a person or what is done to a finger in the
// window ("her fingerprints", "fingerprint scanner", "took his
// fingerprints"), and no technical word there ("of the key", "SHA256
// fingerprint"), no qualifier right before it ("device fingerprint"), no hex
// digits after it ("fingerprint: 3A 5F") and no identifier around it
// ("--fingerprint", "sha1_fingerprint=", "${FINGERPRINT}").
func (w *wordScan) biometricFingerprint(k int) bool {
	t, ws := w.f.lower, w.ws
	if s, e := ws[k].s, ws[k].e; (s > 0 && strings.IndexByte("_-=$/{.", t[s-1]) >= 0) ||
		(e < len(t) && strings.IndexByte("_=(}", t[e]) >= 0) {
		return false
	}
	if k > 0 && w.joined(k-1) && fingerprintQualifiers[w.word(k-1)] {
		return false
	}
	if k+1 < len(ws) && hexGroup(w.word(k+1)) && strings.Trim(w.gapAfter(k), " \t:=\"'") == "" {
		return false
	}
	personal := false
	from, to := k, k
	for from > 0 && k-from < technicalWindow && !sentenceGap(w.gapAfter(from-1)) {
		from--
	}
	for to+1 < len(ws) && to-k < technicalWindow && !sentenceGap(w.gapAfter(to)) {
		to++
	}
	for j := from; j <= to; j++ {
		wd := w.word(j)
		if fingerprintTechnical[wd] {
			return false
		}
		if j < k-personalWindow || j > k+personalWindow || personal {
			continue
		}
		// "employee's", "patients'": a possessive, but not "it's" or
		// "the server's".
		owner := ""
		if j > 0 && wd == "s" && apostrophe(w.gapAfter(j-1)) == "'" {
			owner = w.word(j - 1)
		} else if j < k && strings.HasPrefix(apostrophe(w.gapAfter(j)), "' ") && strings.HasSuffix(wd, "s") {
			owner = wd
		}
		possessive := owner != "" && owner != "it" && !fingerprintQualifiers[owner]
		personal = fingerprintPersonal[wd] || possessive || fingerprintSubjects[wd] && w.word(k) == "fingerprinted"
	}
	return personal
}

// sentenceGap reports whether the text between two words ends a sentence or
// a clause: a full stop, semicolon, question or exclamation mark, or a blank
// line.
func sentenceGap(g string) bool {
	return strings.ContainsAny(g, ";!?") || strings.Contains(g, ". ") || strings.Contains(g, ".\n") ||
		strings.Contains(g, "\n\n")
}

// hexGroup reports whether s is a run of hex digits that holds a digit and
// is at least two long: "3a", "e0d96d6f".
func hexGroup(s string) bool {
	digit := false
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
		digit = digit || isDigit(s[i])
	}
	return digit && len(s) >= 2
}

func apostrophe(g string) string { return strings.ReplaceAll(g, "’", "'") }
