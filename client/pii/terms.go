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
	// fingerprintQualifiers name technical fingerprints (of keys, files,
	// browsers) that are not biometric.
	fingerprintQualifiers = wordSet(
		"key", "ssh", "host", "gpg", "pgp", "tls", "ssl", "x509", "certificate", "cert",
		"sha1", "sha256", "sha", "256", "md5", "browser", "device", "canvas", "public",
		"server", "file", "content", "package", "hash", "commit", "build", "schema",
		"query", "image", "audio", "digital", "config", "api", "client",
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

// icd10RE matches ICD-10 codes such as E11.9 or J45; U is reserved and unused.
var icd10RE = regexp.MustCompile(`\b[A-TV-Z][0-9][0-9AB](?:\.[0-9A-TV-Z]{1,4})?\b`)

// contextDistance is how close (bytes) a condition must be to a medical word.
const contextDistance = 80

func (f *finder) words() {
	w := &wordScan{f: f, ws: splitWords(f.lower)}
	var context []int // starts of medical context words, ascending
	var conditions []word
	for k := range w.ws {
		wd := w.word(k)
		if medicalContext[wd] {
			context = append(context, w.ws[k].s)
		}
		for _, t := range directTerms {
			if end := w.match(t.table, k); end > 0 {
				w.addWords(k, end, t.kind)
			}
		}
		if end := w.match(healthConditions, k); end > 0 {
			conditions = append(conditions, word{w.ws[k].s, w.ws[end-1].e})
		}
		if wd == "fingerprint" || wd == "fingerprints" {
			if k == 0 || !w.joined(k-1) || !fingerprintQualifiers[w.word(k-1)] {
				w.addWords(k, k+1, KindBiometric)
			}
		}
		w.demographic(k)
		w.street(k)
		w.poBox(k)
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

// dna tags runs of at least 20 upper-case nucleotides (ACGT) standing alone.
func (f *finder) dna() {
	t := f.text
	for i := 0; i < len(t); {
		if strings.IndexByte("ACGT", t[i]) < 0 {
			i++
			continue
		}
		s := i
		for i < len(t) && strings.IndexByte("ACGT", t[i]) >= 0 {
			i++
		}
		if i-s >= 20 && (s == 0 || !isAlnum(t[s-1])) && (i == len(t) || !isAlnum(t[i])) {
			f.add(s, i, KindDNASequence)
		}
	}
}

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
