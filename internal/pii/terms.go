package pii

import (
	"regexp"
	"strconv"
	"strings"
)

// Term lists. Strong phrases are personal data on their own; conditions and
// ICD-10 codes count only near a medical context word, because "depression"
// or "E11.9" alone are as likely economics or a part number.
var (
	healthStrong = phrases(
		"medical record", "medical records", "medical history", "medical condition",
		"medical conditions", "medical chart", "medical file", "health record",
		"health records", "patient record", "patient records", "patient chart",
		"patient history", "lab result", "lab results", "blood test", "blood tests",
		"blood type", "blood pressure", "blood sugar", "chemotherapy", "radiotherapy",
		"psychiatric", "psychotherapy", "antidepressant", "antidepressants",
		"hiv positive", "hiv status", "mental illness", "prescription medication",
		"prescription medications", "prescription drugs", "miscarriage", "pregnancy test",
	)
	healthConditions = phrases(
		"diabetes", "diabetic", "cancer", "carcinoma", "tumor", "tumour", "leukemia",
		"leukaemia", "lymphoma", "hiv", "aids", "hepatitis", "asthma", "depression",
		"anxiety", "schizophrenia", "bipolar", "epilepsy", "dementia", "alzheimer",
		"alzheimers", "parkinson", "parkinsons", "autism", "adhd", "ptsd", "ocd", "covid",
		"influenza", "hypertension", "obesity", "insomnia", "arthritis", "migraine",
		"migraines", "pregnant", "pregnancy", "anorexia", "bulimia", "tuberculosis",
		"herpes", "chlamydia", "heart disease", "kidney disease", "multiple sclerosis",
		"cystic fibrosis", "sickle cell", "addiction", "alcoholism", "eating disorder", "stroke",
	)
	medicalContext = wordSet(
		"diagnosis", "diagnoses", "diagnosed", "diagnose", "prescription", "prescriptions",
		"prescribed", "patient", "patients", "doctor", "doctors", "physician", "clinic",
		"hospital", "hospitalized", "hospitalised", "symptom", "symptoms", "treated",
		"treatment", "therapy", "icd", "icd10", "dx", "medication", "medications",
		"medical", "surgery", "nurse",
	)
	geneticTerms = phrases(
		"genotype", "genotypes", "genotyping", "genotyped", "genome sequencing",
		"whole genome", "genetic test", "genetic tests", "genetic testing", "genetic data",
		"genetic marker", "genetic markers", "genetic profile", "genetic predisposition",
		"genetic disorder", "genetic condition", "genetic screening", "genetic information",
		"dna test", "dna testing", "dna sample", "dna samples", "dna sequence",
		"dna sequencing", "dna profile", "dna results", "dna analysis", "brca1", "brca2",
		"brca mutation", "23andme", "ancestrydna", "carrier status", "gene mutation",
		"hereditary disease", "hereditary condition", "allele", "alleles",
	)
	biometricTerms = phrases(
		"face scan", "face scans", "facial recognition", "face recognition", "face id",
		"faceprint", "facial geometry", "retina scan", "retina scans", "retinal scan",
		"iris scan", "iris recognition", "voiceprint", "voice print", "palm print",
		"palmprint", "hand geometry", "biometric", "biometrics", "gait recognition",
	)
	// "fingerprint" is biometric only with a person or a finger in view and
	// no key, certificate or hash: see fingerprint.go.
	fingerprintPersonal = wordSet(
		// whose fingerprint
		"my", "his", "her", "their", "your", "our", "him", "them", "someone", "employee", "employees", "staff", "worker", "workers",
		"patient", "patients", "applicant", "applicants", "suspect", "suspects",
		"visitor", "visitors", "child", "children", "student", "students", "person",
		"persons", "people", "citizen", "citizens", "customer", "customers",
		"passenger", "passengers", "traveler", "travelers", "traveller", "travellers",
		"immigrant", "immigrants", "victim", "victims", "criminal", "criminals",
		"inmate", "inmates", "prisoner", "prisoners", "individual", "individuals",
		"police", "forensic", "forensics", "finger", "fingers", "thumb", "ink", "inked",
		// what is done with it
		"took", "taken", "collect", "collects", "collected",
		"collecting", "lifted", "dusted", "scan", "scans", "scanned", "scanning",
		"scanner", "scanners", "reader", "readers", "sensor", "sensors", "unlock",
		"unlocks", "unlocked", "unlocking", "enrol", "enroll", "enrolled", "enrolment",
		"enrollment", "login", "logon", "authentication", "recognition",
		"identification", "biometric", "biometrics", "template", "templates", "data",
		"record", "records",
	)
	// fingerprintSubjects are people who can be fingerprinted; "you verify
	// the fingerprint" is a manual speaking to its reader.
	fingerprintSubjects = wordSet("he", "she", "i", "we", "you", "they")
	// fingerprintTechnical anywhere in the window makes the fingerprint one of
	// a key, certificate, file or hash.
	fingerprintTechnical = wordSet(
		"key", "keys", "keyid", "keyring", "keyrings", "keygrip", "ssh", "sshfp", "host",
		"hosts", "gpg", "gnupg", "pgp", "openpgp", "tls", "ssl", "openssl", "x509",
		"certificate", "certificates", "cert", "certs", "crl", "sha", "sha1", "sha224",
		"sha256", "sha384", "sha512", "md5", "hash", "hashes", "hashed", "hex",
		"hexadecimal", "digest", "digests", "rsa", "dsa", "ecdsa", "ed25519", "fpr",
		"signature", "signatures", "signed", "signing", "dns", "browser", "canvas", "file",
		"files", "package", "packages", "commit", "build", "schema", "config", "binary",
		"checksum", "checksums", "crypto", "cryptography", "cryptographic", "molecular",
		"chemical",
	)
	// fingerprintQualifiers are technical only right before the word ("device
	// fingerprint"); further away they are as likely the phone a finger unlocks.
	fingerprintQualifiers = wordSet(
		"device", "public", "server", "client", "content", "query", "image", "audio",
		"digital", "api", "256",
	)
	behavioralTerms = phrases(
		"browsing history", "browser history", "search history", "purchase history",
		"purchasing history", "shopping history", "watch history", "viewing history",
		"listening history", "location history", "clickstream", "clickstreams",
		"click stream", "browsing habits", "shopping habits", "spending habits",
		"purchase behavior", "purchase behaviour", "browsing behavior", "browsing behaviour",
		"online behavior", "online behaviour", "online activity", "behavioral profile",
		"behavioural profile", "behavioral profiling", "behavioural profiling",
		"behavioral data", "behavioural data",
	)
	demographicTerms = phrases(
		"sexual orientation", "gender identity", "ethnic origin", "racial origin",
		"racial or ethnic origin", "religious belief", "religious beliefs",
		"religious affiliation", "political opinion", "political opinions",
		"political affiliation", "trade union membership",
	)
	// demographicFields are labels whose value ("race: Asian") is protected;
	// the bare words are too common ("race condition") to tag.
	demographicFields = wordSet("race", "ethnicity", "religion")
	fieldStopValues   = wordSet(
		"true", "false", "yes", "no", "none", "null", "nil", "n", "a", "an", "the",
		"condition", "conditions", "detected", "detector", "free", "found", "enabled",
		"disabled", "on", "off", "0", "1", "and", "or", "to",
	)
	// Self-identification: "she is Muslim", "I'm gay", "identifies as queer".
	identitySubjects = phrases(
		"i am", "i m", "im", "he is", "he s", "she is", "she s", "they are", "they re",
		"we are", "identifies as", "identify as", "identified as", "identifying as",
		"came out as",
	)
	identityTerms = wordSet(
		"gay", "lesbian", "bisexual", "transgender", "queer", "asexual", "pansexual",
		"nonbinary", "muslim", "jewish", "christian", "catholic", "protestant", "hindu",
		"buddhist", "sikh", "atheist", "agnostic", "mormon", "hispanic", "latino",
		"latina", "latinx",
	)
	streetSuffixes = wordSet(
		"street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd", "lane", "ln",
		"drive", "dr", "court", "ct", "place", "pl", "terrace", "way", "parkway", "pkwy",
		"highway", "hwy", "square", "sq", "circle", "cir", "crescent", "close", "row",
		"mews", "gardens", "alley", "plaza",
	)
)

// directTerms are the tables whose phrases are tagged wherever they occur.
var directTerms = []struct {
	table phraseTable
	kind  string
}{
	{healthStrong, KindHealth},
	{geneticTerms, KindGenetic},
	{biometricTerms, KindBiometric},
	{behavioralTerms, KindBehavioral},
	{demographicTerms, KindDemographic},
}

// Roles a word can play in words(). Each word is looked up once; the
// detectors run only for the few words that play a role.
const (
	roleMedical     = 1 << iota // a medical context word
	roleDirect                  // starts a phrase of a directTerms table
	roleCondition               // starts a healthConditions phrase
	roleFingerprint             // "fingerprint", "fingerprints", "fingerprinted"
	roleDemographic             // a demographic field or identity term
	roleStreet                  // a street suffix
	roleBox                     // "box", as in PO Box
)

// lexicon maps every word that plays a role to its roles.
var lexicon = func() wordRoles {
	l := wordRoles{words: map[string]uint8{}}
	add := func(role uint8, words ...string) {
		for _, w := range words {
			if len(w) >= 64 {
				panic("pii: lexicon word too long: " + w)
			}
			l.words[w] |= role
			l.lengths[w[0]] |= 1 << len(w)
		}
	}
	for w := range medicalContext {
		add(roleMedical, w)
	}
	for _, t := range directTerms {
		for w := range t.table {
			add(roleDirect, w)
		}
	}
	for w := range healthConditions {
		add(roleCondition, w)
	}
	add(roleFingerprint, "fingerprint", "fingerprints", "fingerprinted")
	for w := range demographicFields {
		add(roleDemographic, w)
	}
	for w := range identityTerms {
		add(roleDemographic, w)
	}
	for w := range streetSuffixes {
		add(roleStreet, w)
	}
	add(roleBox, "box")
	return l
}()

// wordRoles is a word → roles table with a filter in front: lengths[b] has
// bit n set when some word starting with byte b has n bytes, which rejects
// most words without hashing them.
type wordRoles struct {
	lengths [256]uint64
	words   map[string]uint8
}

func (l *wordRoles) roles(w string) uint8 {
	if len(w) >= 64 || l.lengths[w[0]]&(1<<len(w)) == 0 {
		return 0
	}
	return l.words[w]
}

// icd10RE matches ICD-10 codes such as E11.9 or J45; U is reserved and unused.
var icd10RE = regexp.MustCompile(`\b[A-TV-Z][0-9][0-9AB](?:\.[0-9A-TV-Z]{1,4})?\b`)

// contextDistance is how close (bytes) a condition must be to a medical word.
const contextDistance = 80

func (f *finder) words() {
	w := &wordScan{f: f, ws: splitWords(f.lower)}
	var context []int // starts of medical context words, ascending
	var conditions []word
	for k := range w.ws {
		role := lexicon.roles(w.word(k))
		if role == 0 {
			continue
		}
		if role&roleMedical != 0 {
			context = append(context, w.ws[k].s)
		}
		if role&roleDirect != 0 {
			for _, t := range directTerms {
				if end := w.match(t.table, k); end > 0 {
					w.addWords(k, end, t.kind)
				}
			}
		}
		if role&roleCondition != 0 {
			if end := w.match(healthConditions, k); end > 0 {
				conditions = append(conditions, word{w.ws[k].s, w.ws[end-1].e})
			}
		}
		if role&roleFingerprint != 0 && w.biometricFingerprint(k) {
			w.addWords(k, k+1, KindBiometric)
		}
		if role&roleDemographic != 0 {
			w.demographic(k)
		}
		if role&roleStreet != 0 {
			w.street(k)
		}
		if role&roleBox != 0 {
			w.poBox(k)
		}
	}
	if len(context) == 0 {
		return
	}
	for _, c := range conditions {
		if near(context, c.s, c.e, contextDistance) {
			f.add(c.s, c.e, KindHealth)
		}
	}
	if f.wants(KindICD10) {
		nearby := window{before: contextDistance, after: contextDistance, extend: isWordByte}
		for _, m := range findAll(icd10RE, f.text, nearby.around(f.text, context)) {
			if near(context, m[0], m[1], contextDistance) {
				f.add(m[0], m[1], KindICD10)
			}
		}
	}
}

func (w *wordScan) demographic(k int) {
	wd := w.word(k)
	if demographicFields[wd] && k+1 < len(w.ws) {
		g := strings.Trim(w.gapAfter(k), " \t\"'")
		if (g == ":" || g == "=") && !fieldStopValues[w.word(k+1)] {
			w.addWords(k+1, k+2, KindDemographic)
		}
	}
	if !identityTerms[wd] || k == 0 || !w.joined(k-1) {
		return
	}
	j := k - 1 // last word of the subject
	if a := w.word(j); (a == "a" || a == "an") && j > 0 && w.joined(j-1) {
		j--
	}
	for from := max(0, j-2); from <= j; from++ {
		if w.match(identitySubjects, from) == j+1 {
			w.addWords(k, k+1, KindDemographic)
			return
		}
	}
}

// street matches "221B Baker Street": a house number (up to five digits and
// an optional letter), one to three capitalised words, and a capitalised
// street suffix, separated by one or two spaces.
func (w *wordScan) street(k int) {
	if !streetSuffixes[w.word(k)] || !w.capitalized(k) || k < 2 {
		return
	}
	spaced := func(j int) bool { g := w.gapAfter(j); return g == " " || g == "  " }
	for j := k - 1; j >= 0 && j >= k-4; j-- {
		if !spaced(j) {
			return
		}
		if j < k-1 && houseNumber(w.word(j)) {
			w.addWords(j, k+1, KindStreetAddress)
			return
		}
		if !w.capitalized(j) {
			return
		}
	}
}

func houseNumber(s string) bool {
	d := 0
	for d < len(s) && isDigit(s[d]) {
		d++
	}
	return d >= 1 && d <= 5 && s[0] != '0' && (d == len(s) || (d == len(s)-1 && isLowerByte(s[d])))
}

// poBox matches "PO Box 123", "P.O. Box 123" and "Post Office Box 123".
func (w *wordScan) poBox(k int) {
	if w.word(k) != "box" || k+1 >= len(w.ws) {
		return
	}
	short := func(j int) bool { g := w.gapAfter(j); return len(g) <= 3 && strings.Trim(g, " .") == "" }
	num := w.word(k + 1)
	if len(num) > 6 || countDigits(num) != len(num) || (!short(k) && strings.Trim(w.gapAfter(k), " #") != "") {
		return
	}
	from := -1
	switch {
	case k >= 1 && w.word(k-1) == "po" && short(k-1):
		from = k - 1
	case k >= 2 && w.word(k-2) == "p" && w.word(k-1) == "o" && short(k-2) && short(k-1):
		from = k - 2
	case k >= 2 && w.word(k-2) == "post" && w.word(k-1) == "office" && short(k-2) && short(k-1):
		from = k - 2
	}
	if from >= 0 {
		w.addWords(from, k+2, KindPOBox)
	}
}

// minDNA is the shortest run of nucleotides dna tags.
const minDNA = 20

// dna tags runs of at least minDNA upper-case nucleotides (ACGT) standing
// alone. Any such run covers the byte minDNA-1 past where it could start,
// so the scan looks there first and, when that byte is no nucleotide, skips
// minDNA bytes at once: ordinary text costs about one look per 20 bytes.
func (f *finder) dna() {
	t := f.text
	// Invariant: no run of nucleotides crosses from before i to i or after.
	for i := 0; i+minDNA <= len(t); {
		j := i + minDNA - 1
		if !isNucleotide(t[j]) {
			i = j + 1
			continue
		}
		s, e := j, j+1
		for s > i && isNucleotide(t[s-1]) {
			s--
		}
		for e < len(t) && isNucleotide(t[e]) {
			e++
		}
		if e-s >= minDNA && (s == 0 || !isAlnum(t[s-1])) && (e == len(t) || !isAlnum(t[e])) {
			f.add(s, e, KindDNASequence)
		}
		i = e
	}
}

func isNucleotide(c byte) bool { return c == 'A' || c == 'C' || c == 'G' || c == 'T' }

// degreesRE matches "37.7749° N, 122.4194° W" on the lower-cased text.
var degreesRE = regexp.MustCompile(`(\d{1,2}(?:\.\d+)?)°[ \t]*([ns])[ \t]*,?[ \t]*(\d{1,3}(?:\.\d+)?)°[ \t]*([ew])\b`)

// degreesWindow covers a coordinate pair around each degree sign.
var degreesWindow = window{before: 24, after: 40, extend: isWordByte}

func (f *finder) degrees() {
	for _, m := range findAll(degreesRE, f.lower, degreesWindow.spans(f.lower, []string{"°"})) {
		lat, lon := f.lower[m[2]:m[3]], f.lower[m[6]:m[7]]
		if inRange(lat, 90) && inRange(lon, 180) && (m[0] == 0 || !isDigit(f.lower[m[0]-1])) {
			f.add(m[0], m[1], KindCoordinates)
		}
	}
}

func inRange(num string, limit float64) bool {
	v, err := strconv.ParseFloat(num, 64)
	return err == nil && v <= limit
}
