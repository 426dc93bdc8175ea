package pii

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// apiKeyRE matches vendor key formats with a fixed prefix; see apiKeyHints.
var apiKeyRE = regexp.MustCompile(`\b(?:` +
	`sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{20,}` + // OpenAI, Anthropic and similar
	`|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}` + // Stripe secret and restricted keys
	`|(?:AKIA|ASIA)[0-9A-Z]{16}` + // AWS access key IDs
	`|gh[pousr]_[A-Za-z0-9]{30,}` + // GitHub tokens
	`|github_pat_[A-Za-z0-9_]{22,}` +
	`|xox[abposr]-[A-Za-z0-9\-]{10,}` + // Slack
	`|AIza[0-9A-Za-z_\-]{35}` + // Google API keys
	`|glpat-[A-Za-z0-9_\-]{20,}` + // GitLab
	`|npm_[A-Za-z0-9]{36}` +
	`)`)

// queryGluedKeyRE is the vendor keys of apiKeyRE whose prefix no word
// holds, found in a query even glued to what stands before them
// ("tokenghp_...", "xAKIA..."): apiKeyRE wants a word boundary.
var queryGluedKeyRE = regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{30,}` +
	`|github_pat_[A-Za-z0-9_]{22,}` +
	`|(?:sk|rk)_live_[A-Za-z0-9]{16,}` +
	// (Slack's token types, their numeric team id first: "xoxo-gossip" is a word)
	`|xox[abpsre]-[0-9]+-[A-Za-z0-9\-]{8,}` +
	`|(?:AKIA|ASIA)[0-9A-Z]{16}` +
	`|AIza[0-9A-Za-z_\-]{35}` +
	`|glpat-[A-Za-z0-9_\-]{20,}`)

var gluedKeyHints = []string{"gh", "github_pat_", "_live_", "xox", "AKIA", "ASIA", "AIza", "glpat-"}

func containsAny(s string, subs []string) bool {
	return slices.ContainsFunc(subs, func(x string) bool { return strings.Contains(s, x) })
}

// apiKeyHints are the literals every apiKeyRE match starts with; the
// expression only runs on the text around them.
var apiKeyHints = []string{"sk-", "sk_", "rk_", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AIza", "glpat-", "npm_"}

// caseKeyRE matches the vendor keys of apiKeyRE whose prefix marks them
// whatever the case, in any case: a token pasted through a tool that
// upper-cases ("GHP_..."), an AWS key id lower-cased ("akia..."). The key is
// no longer valid as written, but it still gives most of the real one away.
// caseVariantKey checks what is left to tell it from prose.
var caseKeyRE = regexp.MustCompile(`(?i)(?:gh[pousr]_[a-z0-9]{30,}` +
	`|github_pat_[a-z0-9_]{22,}` +
	`|(?:akia|asia)[a-z0-9]{16})`)

// caseKeyHints are caseKeyRE's prefixes, matched in any case.
var caseKeyHints = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "akia", "asia"}

// caseVariantKey reports whether t[s:e], a match of caseKeyRE, is a whole
// key: not glued to a word before or after it, and, for an AWS key id,
// holding a digit as the base32 ids AWS issues all but always do ("Asia" +
// sixteen letters is a run-together word, not a key).
func caseVariantKey(t string, s, e int) bool {
	if (s > 0 && isWordByte(t[s-1])) || (e < len(t) && isWordByte(t[e])) {
		return false
	}
	if k := asciiLower(t[s:e]); strings.HasPrefix(k, "akia") || strings.HasPrefix(k, "asia") {
		return countDigits(k[4:]) > 0
	}
	return true
}

var privateKeyRE = regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)

// secretAssignRE matches "password: x", "DB_PASSWORD=x", `"api_key": "x"` on
// the lower-cased text. Group 1 is the name; groups 2-4 the value (double
// quoted, single quoted, bare).
var secretAssignRE = regexp.MustCompile(`\b(?:[a-z0-9]+[_\-])*(password|passwd|passphrase|pwd|secret|api[_\-]?key|access[_\-]?token|auth[_\-]?token|refresh[_\-]?token|client[_\-]?secret|secret[_\-]?key|secret[_\-]?access[_\-]?key|private[_\-]?key)["']?[ \t]*[:=][ \t]*(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"',;]+))`)

// querySecretRE is secretAssignRE with more names: bare token, access_key.
// Group 1 is the name, groups 2-4 the value.
var querySecretRE = regexp.MustCompile(`\b(?:[a-z0-9]+[_\-])*(password|passwd|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key|secret[_\-]?key|private[_\-]?key)["']?[ \t]*[:=][ \t]*(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"',;]+))`)

// queryKeyRE is vendor key shapes the page scan leaves out: Stripe
// publishable keys (public by design, so a page holding one is not a
// credential page, but a query has no reason to keep it) and Stripe keys
// shorter than the page scan's minimum.
var queryKeyRE = regexp.MustCompile(`\b(?:pk|sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`)

var secretHints = []string{"pass", "pwd", "secret", "key", "token"}

// secretNameEnds are the endings of every name secretAssignRE accepts; each
// starts with one of secretHints.
var secretNameEnds = []string{"password", "passwd", "passphrase", "pwd", "secret", "key", "token"}

// assignmentIn reports whether the window sp of lower can hold a match of
// secretAssignRE: at one of the hint positions at in it, a name ending is
// followed by an optional quote, blanks and ':' or '=' inside the window.
// Prose mentions keys and tokens far more often than it assigns them, and
// this spares the expression those windows.
func assignmentIn(lower string, at []int, sp [2]int) bool {
	i, _ := slices.BinarySearch(at, sp[0])
	for ; i < len(at) && at[i] < sp[1]; i++ {
		if _, ok := assignedValue(lower[:sp[1]], at[i]); ok {
			return true
		}
	}
	return false
}

// assignedValue returns where the value starts when a secret name ending
// at the hint position p is followed by an optional quote, blanks and ':' or
// '=' in lower.
func assignedValue(lower string, p int) (int, bool) {
	w := lower[p:]
	for _, end := range secretNameEnds {
		if !strings.HasPrefix(w, end) {
			continue
		}
		q := len(end)
		if q < len(w) && (w[q] == '"' || w[q] == '\'') {
			q++
		}
		for q < len(w) && (w[q] == ' ' || w[q] == '\t') {
			q++
		}
		if q < len(w) && (w[q] == ':' || w[q] == '=') {
			q++
			for q < len(w) && (w[q] == ' ' || w[q] == '\t' || w[q] == '"' || w[q] == '\'') {
				q++
			}
			return p + q, true
		}
	}
	return 0, false
}

// awsSecretRE matches an AWS secret access key after its label, on the
// lower-cased text: aws_secret_access_key = KEY, export
// AWS_SECRET_ACCESS_KEY=KEY, "SecretAccessKey": "KEY", or the label and the
// key separated only by blanks or "is". Group 1 is the 40-character key;
// awsSecretValue checks what follows it and its mix of characters.
var awsSecretRE = regexp.MustCompile(`\b(?:[a-z0-9]+[_\-. ])?secret[_\-. ]?(?:access[_\-. ]?)?key(?:[_\-. ]?id)?["']?[ \t]*(?:[:=]|[ \t]is\b)?[ \t]*["']?([a-z0-9/+]{40})`)

// awsSecretValue reports whether t[s:e], a match of awsSecretRE's group 1,
// is a whole key: not glued to more key characters, and random-looking
// (upper and lower case letters, plus a digit, '/' or '+'), as the base64
// keys AWS issues are.
func awsSecretValue(t string, s, e int) bool {
	if e < len(t) && (isAlnum(t[e]) || t[e] == '/' || t[e] == '+' || t[e] == '=') {
		return false
	}
	v := t[s:e]
	return strings.IndexFunc(v, func(r rune) bool { return 'a' <= r && r <= 'z' }) >= 0 &&
		hasUpper(v) && strings.ContainsAny(v, "0123456789/+")
}

// urlPasswordRE finds the password in scheme://user:password@host.
var urlPasswordRE = regexp.MustCompile(`[a-z][a-z0-9+.\-]*://[^\s/:@]*:([^\s/@]+)@`)

// placeholders are values that document a secret rather than reveal one.
var placeholders = map[string]bool{
	"password": true, "pass": true, "passwd": true, "secret": true,
	"redacted": true, "[redacted]": true, "<redacted>": true, "null": true, "none": true,
	"nil": true, "true": true, "false": true, "required": true, "optional": true,
	"string": true, "example": true, "xxx": true, "xxxx": true, "...": true,
}

// The sets in hints, the index secrets and identifiers share: one pass over
// the text finds the hints of all of them.
const (
	hintAPIKey  = iota
	hintSecret  // secretHints
	hintCaseKey // caseKeyHints
	hintContext // the first of contextRules' hints, in order
)

var hints = newHintIndex(hintSets()...)

// hintSets are the sets hints indexes, in the order of the constants above.
func hintSets() []hintSet {
	sets := []hintSet{{hints: apiKeyHints, exact: true}, {hints: secretHints}, {hints: caseKeyHints}}
	for _, r := range contextRules {
		sets = append(sets, hintSet{hints: r.hints})
	}
	return sets
}

var (
	// keyWindow covers a vendor key: it starts at its hint and runs to the
	// end of the token.
	keyWindow = window{extend: func(c byte) bool { return isWordByte(c) || c == '-' }}
	// assignWindow covers name = value: a prefixed name, a quoted value of
	// ordinary length, or a bare value of any length.
	assignWindow = window{before: 64, after: 256, extend: func(c byte) bool { return c > ' ' }}
	// urlWindow covers scheme://user:password@ up to the next space.
	urlWindow = window{before: 32, after: 1, extend: func(c byte) bool { return c != ' ' && c != '\n' && c != '\t' }}
)

// secrets finds credentials. In page mode (Find, Classify) it finds vendor
// keys, private key blocks, values assigned to credential names that look
// like secrets, AWS secret keys after their label and URL passwords, each
// when wanted. In query mode (FindForRedaction, on top of the page scan) a
// query is about to be written where others read it (events file, eval
// captures, logs), so any value assigned to a credential name goes, however
// short, under more names (bare token, access_key), and so do Stripe
// publishable keys and short Stripe keys: all the page scan's secrets and
// more (TestRedactionCoversFind holds that).
func (f *finder) secrets(query bool) {
	t := f.text
	if query {
		f.awsSecrets(f.hintsAt(hintSecret))
		f.assignments(true)
		f.queryCredentials()
		if containsAny(t, gluedKeyHints) {
			for _, m := range queryGluedKeyRE.FindAllStringIndex(t, -1) {
				f.out = append(f.out, candidate{m[0], m[1], KindAPIKey})
			}
		}
		if strings.Contains(t, "_live_") || strings.Contains(t, "_test_") {
			for _, m := range queryKeyRE.FindAllStringIndex(t, -1) {
				f.out = append(f.out, candidate{m[0], m[1], KindAPIKey})
			}
		}
		return
	}
	if f.wants(KindAPIKey) {
		for _, m := range findAll(apiKeyRE, t, keyWindow.around(t, f.hintsAt(hintAPIKey))) {
			key := t[m[0]:m[1]]
			// A long hyphenated word after "sk-" is prose; real keys are random
			// and all but certain to hold a digit.
			if strings.HasPrefix(key, "AKIA") || strings.HasPrefix(key, "ASIA") || countDigits(key[3:]) > 0 {
				f.add(m[0], m[1], KindAPIKey)
			}
		}
		for _, m := range findAll(caseKeyRE, t, keyWindow.around(t, f.hintsAt(hintCaseKey))) {
			if caseVariantKey(t, m[0], m[1]) {
				f.add(m[0], m[1], KindAPIKey)
			}
		}
	}
	if f.wants(KindPrivateKey) && strings.Contains(t, "-----BEGIN") {
		f.privateKeys()
	}
	if f.wants(KindSecret) {
		f.assignments(false)
		f.awsSecrets(f.hintsAt(hintSecret))
	}
	if f.wants(KindURLPassword) {
		lower := f.lower
		for _, m := range findAll(urlPasswordRE, lower, urlWindow.spans(lower, []string{"://"})) {
			if v := t[m[2]:m[3]]; !placeholder(v) {
				f.add(m[2], m[3], KindURLPassword)
			}
		}
	}
}

// assignments finds values assigned to credential names: "password: x",
// "DB_PASSWORD=x", `"api_key": "x"`. In page mode the value must look like
// a secret (secretValue) and the expression runs only on windows that can
// hold an assignment; in query mode any value but a placeholder counts,
// and hints whose value is already a marker are skipped, so a scrubbed text
// ("token: [REDACTED]") checked again on the next pass costs no expression
// work. Query-mode secrets are recorded whatever f wants: FindForRedaction
// does not ask the page scan for them (see redactionWant).
func (f *finder) assignments(query bool) {
	lower := f.lower
	at := f.hintsAt(hintSecret)
	re := secretAssignRE
	var spans [][2]int
	if query {
		re = querySecretRE
		open := make([]int, 0, len(at))
		for _, p := range at {
			if v, ok := assignedValue(lower, p); ok && !strings.HasPrefix(lower[v:], "[redacted]") {
				open = append(open, p)
			}
		}
		spans = assignWindow.around(lower, open)
	} else {
		spans = slices.DeleteFunc(assignWindow.around(lower, at),
			func(sp [2]int) bool { return !assignmentIn(lower, at, sp) })
	}
	for _, m := range findAll(re, lower, spans) {
		// On a page, a path ("/etc/passwd: the account list",
		// "/usr/bin/passwd: run it") names a file, not a credential; a query
		// is scrubbed whatever precedes the name.
		if !query && m[0] > 0 && lower[m[0]-1] == '/' {
			continue
		}
		name := lower[m[2]:m[3]]
		for g := 4; g <= 8; g += 2 {
			if m[g] < 0 {
				continue
			}
			v := f.text[m[g]:m[g+1]]
			switch {
			case query && !notAValue(v):
				f.out = append(f.out, candidate{m[g], m[g+1], KindSecret})
			case !query && secretValue(name, v):
				f.add(m[g], m[g+1], KindSecret)
			}
		}
	}
}

// queryCredentialRules are credentials pasted into queries in shapes no
// name = value rule reads, the secret in the first group that matched:
//   - "pass=" under at most one prefix ("smtp_pass", "imap.pass"; not
//     "col_in_pass" of C code), only with '=' ("first pass: lexing" is
//     prose), its value quoted or bare;
//   - the password glued to a MySQL client's -p flag, or given to sshpass
//     -p, after the command and nothing but its options (each an option
//     and at most one value): read on the text as typed, since -P is
//     another option (mysql's port, sshpass's prompt), and "mysql vs
//     postgres -performance" is a search with a -word, not a command;
//   - HTTP Basic credentials (basicCredentials checks the token).
//
// hint is a text the rule needs (in the lower-cased text) to be tried;
// secret, whether a match's value v, at in the lower-cased text, is one.
var queryCredentialRules = []struct {
	re      *regexp.Regexp
	asTyped bool   // matched on the text as typed, not lower-cased
	hint    string // a text the rule needs; several are split by '|'
	secret  func(lower string, at int, v string) bool
}{
	{regexp.MustCompile(`\b(?:[a-z0-9]+[_\-.])?pass["']?[ \t]*=[ \t]*(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"',;]+))`), false, "pass",
		func(_ string, _ int, v string) bool { return !notAValue(v) && !smallCount(v) }},
	{regexp.MustCompile(`\b(?i:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mariadb|mariadb-dump)(?:[ \t]+--?[A-Za-z][^\s]*(?:[ \t]+[^\s-][^\s]*)?)*?[ \t]+-p(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"'-][^\s"']*))`), true, "-p",
		anyValue},
	{regexp.MustCompile(`\b(?i:sshpass)(?:[ \t]+-[A-Za-z](?:[ \t]*(?:'[^'\n]*'|"[^"\n]*"|[^\s"'-][^\s]*))?)*?[ \t]+-p[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"'-][^\s"']*))`), true, "sshpass",
		anyValue},
	{regexp.MustCompile(`\bbasic[ \t]+([a-z0-9+/]{4,}={0,2})(?:[^a-z0-9+/=]|$)`), false, "basic", basicCredentials},
	// A password name glued to a prefix: libpq's PGPASSWORD, MYSQLPASSWORD.
	{regexp.MustCompile(`\b[a-z0-9]+(?:password|passwd)["']?[ \t]*[:=][ \t]*(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"',;]+))`), false, "passw",
		anyValue},
	// A long password option with its value as the next word (docker
	// login, mongosh, mysql: --password hunter2), not another option; the
	// value looks like a password ("psql --password mydb" asks for one,
	// its next word is the database, and "--pass through" is prose).
	{regexp.MustCompile(`(?:^|[\s'"])--(?:password|passwd|pass)[ \t]+(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"'-][^\s"']*))`), false, "--pass",
		passwordShape},
	// curl's and wget's user:password (-u, --user), the password after the
	// colon; other commands' -u user:group ("docker run -u 1000:1000") is not one.
	{regexp.MustCompile(`\b(?i:curl|wget)\b[^\n]*?(?:^|[\s'"])(?:-u|--user)(?:[ \t]+|=)['"]?[^\s:'"]*:([^\s'"]+)`), true, "-u",
		anyValue},
	// Other header schemes carrying a token (Django REST's "Token", "ApiKey"),
	// the token shaped like one ("authorization: token based auth" is prose).
	{regexp.MustCompile(`\bauthorization["']?[ \t]*:[ \t]*(?:token|apikey|api-key|key)[ \t]+([^\s"',;]+)`), false, "authorization",
		func(_ string, _ int, v string) bool { return len(v) >= 8 && passwordShape("", 0, v) }},
	// Password names of other languages, assigned with ':' or '=' (full
	// width too): пароль, 密码, パスワード, Passwort, contraseña, senha, ...,
	// the value holding a digit or a symbol: "Passwort: vergessen" and
	// "密码：忘记了怎么办" ask how to reset one.
	{regexp.MustCompile(`(?i)(?:пароль|密码|密碼|パスワード|비밀번호|passwort|kennwort|contraseña|contrasena|mot de passe|senha|wachtwoord|hasło|haslo|şifre|sifre)[ \t]*[:=：＝][ \t]*(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"',;，。、]+))`), true, "ароль|密码|密碼|パスワード|비밀번호|passwort|kennwort|contrase|mot de passe|senha|wachtwoord|hasło|haslo|şifre|sifre",
		passwordShape},
	// Slack incoming webhooks: the URL is the credential.
	{regexp.MustCompile(`\bhooks\.slack\.com/services/([a-z0-9]+/[a-z0-9]+/[a-z0-9]+)`), false, "hooks.slack.com",
		anyValue},
	// Vendor secrets the page scan leaves out: Slack app tokens, Stripe
	// webhook secrets, Google service accounts' private_key_id.
	{regexp.MustCompile(`\b((?:xapp|xoxe)-[0-9a-z-]{20,}|whsec_[a-z0-9]{20,})`), false, "xapp-|xoxe-|whsec_",
		anyValue},
	{regexp.MustCompile(`\bprivate_key_id["']?[ \t]*[:=][ \t]*["']?([0-9a-f]{40})`), false, "private_key_id",
		anyValue},
	// A JWT split across lines or spaced at its dots, as pasted from a
	// wrapped log line: header and payload are base64 of JSON objects.
	// (unsplit tokens are the JWT finder's, which checks the header)
	{regexp.MustCompile(`\b(eyJ[A-Za-z0-9_-]{8,}[ \t\r\n]*\.[ \t\r\n]*eyJ[A-Za-z0-9_-]{8,}(?:[ \t\r\n]*\.[ \t\r\n]*[A-Za-z0-9_-]{8,})?)`), true, "eyj",
		func(_ string, _ int, v string) bool { return strings.ContainsAny(v, " \t\r\n") }},
	// docker login's password (-p, --password) after its other options.
	{regexp.MustCompile(`\b(?i:docker|podman|nerdctl)[ \t]+login(?:[ \t]+-[A-Za-z-]+(?:[ \t]+[^\s-][^\s]*)?)*?[ \t]+(?:-p|--password)[ \t]+(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"'-][^\s"']*))`), true, "login",
		anyValue},
	// An AWS secret key beside its key id ("AKIA...:wJalr...", "key AKIA...
	// secret wJalr..."): 40 characters of base64 in a query holding a key
	// id, with both cases or a '/' or '+' (a git commit's 40 hex digits has
	// neither).
	{regexp.MustCompile(`(?:^|[^A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`), true, "akia|asia",
		awsSecretBesideKeyID},
}

// awsKeyIDRE is an AWS access key id in the lower-cased text.
var awsKeyIDRE = regexp.MustCompile(`\b(?:akia|asia)[a-z0-9]{16}\b`)

// awsSecretBesideKeyID reports whether v is an AWS secret key: the query
// holds a key id, and v mixes cases or holds '/' or '+'.
func awsSecretBesideKeyID(lower string, _ int, v string) bool {
	if !awsKeyIDRE.MatchString(lower) {
		return false
	}
	return strings.ContainsAny(v, "/+") || hasUpper(v) && strings.ToUpper(v) != v
}

// passwordShape is a value that looks like a password rather than a
// word: not a placeholder, and holding a digit or a character that is no
// letter.
func passwordShape(_ string, _ int, v string) bool {
	return !notAValue(v) && strings.ContainsFunc(v, func(r rune) bool { return !unicode.IsLetter(r) })
}

// anyValue is any value but a placeholder.
func anyValue(_ string, _ int, v string) bool { return !notAValue(v) }

// queryCredentials records the matches of queryCredentialRules whose value
// the rule's secret accepts.
func (f *finder) queryCredentials() {
	lower := f.lower
	for _, r := range queryCredentialRules {
		if !slices.ContainsFunc(strings.Split(r.hint, "|"), func(h string) bool { return strings.Contains(lower, h) }) {
			continue
		}
		t := lower
		if r.asTyped {
			t = f.text // lower folds ASCII only: offsets are the same
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(t, -1) {
			g := 2 // the first group that matched: quoted or bare
			for g+2 < len(m) && m[g] < 0 {
				g += 2
			}
			if !r.secret(lower, m[0], f.text[m[g]:m[g+1]]) {
				continue
			}
			f.out = append(f.out, candidate{m[g], m[g+1], KindSecret})
		}
	}
}

// smallCount reports a value of one or two digits: "--pass=1" of a
// two-pass encoder counts passes.
func smallCount(v string) bool {
	return len(v) <= 2 && strings.Trim(v, "0123456789") == ""
}

// basicCredentials reports whether v, the token after "Basic" at at in
// lower, is HTTP Basic credentials: base64 of "user:password" (RFC 7617),
// or any base64-looking token right after an Authorization header. "basic
// authentication" and "Basic usage" are words, not tokens.
func basicCredentials(lower string, at int, v string) bool {
	raw := strings.TrimRight(v, "=")
	// (user:password, or :password with an empty user name)
	if b, err := base64.RawStdEncoding.DecodeString(raw); err == nil && bytes.IndexByte(b, ':') >= 0 && len(b) >= 2 && printableASCII(b) {
		return true
	}
	before := strings.TrimRight(lower[:at], " \t\"'")
	return strings.HasSuffix(before, "authorization:") && (hasUpper(v) || strings.ContainsAny(v, "0123456789+/="))
}

func printableASCII(b []byte) bool {
	for _, c := range b {
		if c < ' ' || c > '~' {
			return false
		}
	}
	return true
}

// awsSecrets finds AWS secret access keys after their label, which
// secretAssignRE does not accept (the name ends in "access_key") and which
// may be separated from the key by blanks alone.
func (f *finder) awsSecrets(at []int) {
	lower := f.lower
	spans := slices.DeleteFunc(assignWindow.around(lower, at), func(sp [2]int) bool {
		w := lower[sp[0]:sp[1]]
		return !strings.Contains(w, "secret") || !strings.Contains(w, "key")
	})
	for _, m := range findAll(awsSecretRE, lower, spans) {
		if awsSecretValue(f.text, m[2], m[3]) {
			// Not f.add: FindForRedaction calls this without asking
			// the page scan for secrets (see assignments).
			f.out = append(f.out, candidate{m[2], m[3], KindSecret})
		}
	}
}

// privateKeys covers a PEM block from BEGIN to its END line, or just the
// BEGIN line when the block is cut off. The END position is reused across
// headers so many headers without an END stay linear.
func (f *finder) privateKeys() {
	t := f.text
	endFrom, endAt := -1, -1 // endAt is the first END marker at or after endFrom; -1 none
	for _, m := range privateKeyRE.FindAllStringIndex(t, -1) {
		stop := m[1]
		if endFrom < 0 || (endAt >= 0 && endAt < m[1]) {
			endFrom = m[1]
			endAt = -1
			if k := strings.Index(t[m[1]:], "-----END "); k >= 0 {
				endAt = m[1] + k
			}
		}
		if endAt >= 0 {
			if k := strings.Index(t[endAt+9:], "-----"); k >= 0 && k < 64 {
				stop = endAt + 9 + k + 5
			}
		} else {
			stop = keyBodyEnd(t, stop)
		}
		f.add(m[0], stop, KindPrivateKey)
	}
}

// keyBodyEnd returns where the base64 body of a PEM block cut off before
// its END line ends, reading from p: runs of the base64 alphabet of 16 or
// more characters (a body line is 64), separated by white space; the first
// shorter run ends it unless it closes the body with '='. A pasted key cut
// short loses its body too, not just its header.
func keyBodyEnd(t string, p int) int {
	end := p
	for q := p; ; {
		for q < len(t) && (t[q] == ' ' || t[q] == '\t' || t[q] == '\r' || t[q] == '\n') {
			q++
		}
		r := q
		for r < len(t) && (isAlnum(t[r]) || t[r] == '+' || t[r] == '/' || t[r] == '=') {
			r++
		}
		if r == q || (r-q < 16 && t[r-1] != '=') || (r < len(t) && t[r] > ' ' && t[r] != '-') {
			return end
		}
		end, q = r, r
		if t[r-1] == '=' {
			return end
		}
	}
}

// notAValue reports what follows a secret name's ':' or '=' without being
// its value: a placeholder, also in parentheses or brackets ("secret:
// (required)", "password: [optional]"), or the rest of a comparison ("pwd
// == NULL" reads as pwd, '=', then "=").
func notAValue(v string) bool {
	if v[0] == '=' || v[0] == ':' || placeholder(v) {
		return true
	}
	inner := strings.Trim(v, "()[]")
	return inner == "" || placeholder(inner)
}

func placeholder(v string) bool {
	lv := asciiLower(v)
	if placeholders[lv] || strings.Trim(lv, "*x•.#-_ ") == "" {
		return true
	}
	// Templating and environment references: ${X}, $X, {{ .X }},
	// <your-key>, %s, %(name)s, %VAR%: whole references, or the start of
	// one cut at a blank ("{{", "<your"). A value that merely starts with
	// '%', '$' or '{' ("%eCvQTMy") is a secret.
	return referenceRE.MatchString(v)
}

var referenceRE = regexp.MustCompile(`^(?:\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{\{.*|\{.*\}|<.*|%[-+# 0-9.]*[A-Za-z]|%\([A-Za-z_][A-Za-z0-9_]*\)[A-Za-z]|%[A-Za-z_][A-Za-z0-9_]*%)$`)

// secretValue decides whether a value assigned to a secret-looking name is a
// real secret. Passwords may be short; keys and tokens are long.
func secretValue(name, v string) bool {
	if notAValue(v) {
		return false
	}
	switch name {
	case "passwd":
		// nsswitch.conf and the docs that quote it: "passwd: files systemd"
		// names where accounts are looked up, not a password.
		return !nssServices[asciiLower(v)]
	case "password", "passphrase", "pwd":
		return true
	}
	return len(v) >= 8
}

// nssServices are the name-service sources an nsswitch.conf line lists.
var nssServices = map[string]bool{
	"files": true, "compat": true, "db": true, "nis": true, "nisplus": true, "ldap": true,
	"sss": true, "systemd": true, "winbind": true, "hesiod": true, "dns": true,
	"mymachines": true, "resolve": true, "myhostname": true, "altfiles": true,
	"cache": true, "extrausers": true, "usrfiles": true,
}
