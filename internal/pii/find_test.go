package pii

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

const (
	jwtHS256  = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	jwtNone   = "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0."
	jwtSpaced = "eyAiYWxnIjogIkhTMjU2IiB9.eyJzdWIiOiIxIn0.c2ln" // header {"alg": "HS256" } with spaces
	jwtNoAlg  = "eyJub3QiOiJqd3QifQ.eyJzdWIiOiIxIn0.c2ln"       // header {"not":"jwt"}
	jwtNulAlg = "eyJhbGciOm51bGx9.eyJzdWIiOiIxIn0.c2ln"         // header {"alg":null}
	jweDir    = "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ..aXY.Y3Q.dGFn"
	pemKey    = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"
)

func TestFindKinds(t *testing.T) {
	tests := []struct {
		kind string
		text string
		want []string // matched text, in order
	}{
		// contact
		{KindEmail, "mail alice@example.com today", []string{"alice@example.com"}},
		{KindEmail, "<first.last+tag@mail.example.co.uk>,", []string{"first.last+tag@mail.example.co.uk"}},
		{KindEmail, "see .bob@example.org", []string{"bob@example.org"}},
		{KindEmail, "x@y.co@z.com", []string{"x@y.co"}},
		{KindEmail, "ping user@localhost or user@localhost.", nil},
		{KindEmail, "icon@2x.png and logo@3x.webp", nil},
		{KindEmail, "npm i @scope/pkg; a@b; a@b.c", nil},
		{KindPhone, "call (415) 555-0132 now", []string{"(415) 555-0132"}},
		{KindPhone, "415-555-0132, 415.555.0132, 415 555 0132", []string{"415-555-0132", "415.555.0132", "415 555 0132"}},
		{KindPhone, "(415)555-0132", []string{"(415)555-0132"}},
		{KindPhone, "+44 20 7946 0958", []string{"+44 20 7946 0958"}},
		{KindPhone, "+1-415-555-0132 or 1-415-555-0132", []string{"+1-415-555-0132", "1-415-555-0132"}},
		{KindPhone, "+1 (415) 555-0132", []string{"+1 (415) 555-0132"}},
		{KindPhone, "+44 (0)20 7946 0958", []string{"+44 (0)20 7946 0958"}},
		{KindPhone, "tel:+442079460958", []string{"+442079460958"}},
		{KindPhone, "123-456-7890 and 415-055-0132", nil},
		{KindPhone, "415-555-01321 12-415-555-0132 415-555-0132.5", nil},
		{KindPhone, "4155550132 +1234 +1 234", nil},
		{KindPhone, "ID415-555-0132 x(415) 555-0132 ext+44 20 7946 0958", nil},
		{KindPhone, "2024-01-15 01/15/2024 978-0-306-40615-7 12:30:45 order #12345678", nil},
		{KindPOBox, "P.O. Box 1234, PO Box 42, Post Office Box 7", []string{"P.O. Box 1234", "PO Box 42", "Post Office Box 7"}},
		{KindPOBox, "the box 42 is empty", nil},

		// government_id
		{KindSSN, "SSN 123-45-6789.", []string{"123-45-6789"}},
		{KindSSN, "ssn: 123456789; Social Security No. 078 05 1120", []string{"123456789", "078 05 1120"}},
		{KindSSN, "000-12-3456 666-12-3456 900-12-3456 123-00-4567 123-45-0000", nil},
		{KindSSN, "call 123456789 or 123 45 6789", nil},
		{KindSSN, "1123-45-6789 123-45-6789-1 123-45-67890", nil},
		{KindPassport, "passport number: 123456789", []string{"123456789"}},
		{KindPassport, "Passport No. X1234567", []string{"X1234567"}},
		{KindPassport, "passport photos; passport renewal in 2024", nil},
		{KindDriversLicense, "driver's license D1234567", []string{"D1234567"}},
		{KindDriversLicense, "Driving licence number: MORGA657054SM9IJ", []string{"MORGA657054SM9IJ"}},
		{KindDriversLicense, "DL# 123-456-789", []string{"123-456-789"}},
		{KindDriversLicense, "driver's license renewal", nil},
		{KindNationalID, "National Insurance number: QQ 12 34 56 C", []string{"QQ 12 34 56 C"}},
		{KindNationalID, "EIN: 12-3456789", []string{"12-3456789"}},
		{KindNationalID, "national id 00000; tax id pending", nil},

		// payment_card
		{KindCard, "4111 1111 1111 1111", []string{"4111 1111 1111 1111"}},
		{KindCard, "4111-1111-1111-1111 and 4111111111111111", []string{"4111-1111-1111-1111", "4111111111111111"}},
		{KindCard, "amex 3782 822463 10005, mc 5555555555554444", []string{"3782 822463 10005", "5555555555554444"}},
		{KindCard, "ref 12345678 6011 1111 1111 1117 exp 12/27", []string{"6011 1111 1111 1117"}},
		{KindCard, "4111 1111 1111 1112 and 4111111111111112", nil},
		{KindCard, "4111-1111 1111-1111", nil},
		{KindCard, "isbn 9780306406157, 1234567812345670, +4111111111111111", nil},
		{KindCard, "4111111111111111.5 and 4111111111111111-7", nil},
		{KindCard, "x4111111111111111 4111111111111111y 4111111111111111_", nil},
		{KindCard, "alice@example.com4111111111111111", []string{"4111111111111111"}},

		// financial
		{KindIBAN, "IBAN: GB82 WEST 1234 5698 7654 32.", []string{"GB82 WEST 1234 5698 7654 32"}},
		{KindIBAN, "DE89370400440532013000", []string{"DE89370400440532013000"}},
		{KindIBAN, "GB83 WEST 1234 5698 7654 32, XX82WEST12345698765432, GB82WEST123456987654321", nil},
		{KindBankAccount, "account number: 12345678", []string{"12345678"}},
		{KindBankAccount, "checking account 0012345678; acct #987654321", []string{"0012345678", "987654321"}},
		{KindBankAccount, "order #12345678; user account 12345678", nil},
		{KindRoutingNumber, "routing number 021000021, ABA: 011000015", []string{"021000021", "011000015"}},
		{KindRoutingNumber, "sort code 12-34-56", []string{"12-34-56"}},
		{KindRoutingNumber, "routing number 123456789", nil},
		{KindSWIFT, "SWIFT code: DEUTDEFF; BIC: NWBKGB2LXXX", []string{"DEUTDEFF", "NWBKGB2LXXX"}},
		{KindSWIFT, "swift language features", nil},

		// credential
		{KindJWT, "token " + jwtHS256 + ".", []string{jwtHS256}},
		{KindJWT, jwtNone + " ok", []string{jwtNone}},
		{KindJWT, jwtSpaced, []string{jwtSpaced}},
		{KindJWT, jweDir, []string{jweDir}},
		{KindJWT, "key." + jwtHS256, []string{jwtHS256}},
		{KindJWT, "4111111111111111" + jwtSpaced, nil}, // one run: the header does not start it
		{KindJWT, jwtNoAlg + " " + jwtNulAlg + " eyJ.eyJ.eyJ", nil},
		{KindJWT, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0. end", nil},
		{KindBearer, "Authorization: Bearer abcDEF1234567890xyz", []string{"abcDEF1234567890xyz"}},
		{KindBearer, "BEARER abc123def456ghi789.", []string{"abc123def456ghi789"}},
		{KindBearer, "bearer bearer 0123456789abcdefXYZ", []string{"0123456789abcdefXYZ"}},
		{KindBearer, "Bearer dG9rZW4tdmFsdWUtaGVyZQ==", []string{"dG9rZW4tdmFsdWUtaGVyZQ=="}},
		{KindBearer, "the bearer of this letter; bearer bonds; bearer internationalization", nil},
		{KindBearer, "Bearer tokens are defined in RFC 6750; Bearer abc123", nil},
		{KindAPIKey, "OPENAI_API_KEY sk-proj-abc123def456ghi789jkl012", []string{"sk-proj-abc123def456ghi789jkl012"}},
		{KindAPIKey, "AKIA1234567890ABCDEF xoxb-1234567890-abcdef", []string{"AKIA1234567890ABCDEF", "xoxb-1234567890-abcdef"}},
		{KindAPIKey, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", []string{"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}},
		{KindAPIKey, "sk-learn-compatible-estimators task-1234567890abcdefghij AKIA123", nil},
		// Keys whose case was changed on the way still give the key away.
		{KindAPIKey, "token GHP_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 end", []string{"GHP_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"}},
		{KindAPIKey, "Github_Pat_11ABCDEFG0123456789_abcdefghijKLMNOP", []string{"Github_Pat_11ABCDEFG0123456789_abcdefghijKLMNOP"}},
		{KindAPIKey, "aws key akiaiosfodnn7example, Asia2345ABCDEFGHIJKL.", []string{"akiaiosfodnn7example", "Asia2345ABCDEFGHIJKL"}},
		// Words that only start like a key: no digit, glued, too short.
		{KindAPIKey, "asiaabcdefghijklmnop eurasiakia1234567890abcdef xghp_abcdefghijklmnopqrstuvwxyz0123456789 GHP_short1", nil},
		{KindPrivateKey, "key:\n" + pemKey + "\ndone", []string{pemKey}},
		{KindPrivateKey, "-----BEGIN OPENSSH PRIVATE KEY-----", []string{"-----BEGIN OPENSSH PRIVATE KEY-----"}},
		{KindPrivateKey, "-----BEGIN PUBLIC KEY-----", nil},
		{KindSecret, "password=hunter2", []string{"hunter2"}},
		{KindSecret, `DB_PASSWORD: 's3cr3t!'; "api_key": "abcd1234efgh5678"`, []string{"s3cr3t!", "abcd1234efgh5678"}},
		{KindSecret, "password: ********; password: ${DB_PASS}; api_key: short; password reset link", nil},
		{KindSecret, "if (pwd == NULL) return; secret: (required); password: [optional]", nil},
		// nsswitch.conf lines name lookup sources, not passwords.
		{KindSecret, "passwd:         files systemd\ngroup: compat\npasswd: hesiod", nil},
		{KindSecret, "passwd: s3cr3t-Value", []string{"s3cr3t-Value"}},
		// A path names a file: manual pages say "/etc/passwd: Text lines".
		{KindSecret, "similar to /etc/passwd: Text lines; see /usr/bin/passwd: it asks", nil},
		{KindSecret, "etc passwd: s3cr3t-Value", []string{"s3cr3t-Value"}},
		{KindSecret, "password: %s, password=%(pw)s, password: %DB_PASS%, password={{ .Pass }}, password=<your-password>, password=$PW, password=${PW}", nil},
		{KindSecret, "password=%eCvQTMy and password: <your password> and pwd={x", []string{"%eCvQTMy", "{x"}},
		{KindSecret, "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", []string{"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}},
		{KindSecret, "export AWS_SECRET_ACCESS_KEY=je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY\n", []string{"je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"}},
		{KindSecret, `{"SecretAccessKey": "9drTJvcXLB89EXAMPLELB8923FB892xMFI+3rXdh"}`, []string{"9drTJvcXLB89EXAMPLELB8923FB892xMFI+3rXdh"}},
		{KindSecret, "the AWS secret access key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY was rotated", []string{"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}},
		{KindSecret, "aws secret key is Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo", []string{"Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo"}},
		// Forty hex digits (a git commit) are not AWS keys, nor is a longer run.
		{KindSecret, "secret key id 3f786850e387550fdab836ed7e6dc881de23001b; secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYX1", nil},
		// AWS secret access keys: the credentials file and the shell variable.
		{KindSecret, "[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", []string{"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}},
		{KindSecret, "export AWS_SECRET_ACCESS_KEY=Zq8v+3Jk0pW2rT9yLm4nB7xC1dF6gH5sA0eR2uI8", []string{"Zq8v+3Jk0pW2rT9yLm4nB7xC1dF6gH5sA0eR2uI8"}},
		{KindSecret, "set aws_secret_access_key in ~/.aws/credentials; AWS_SECRET_ACCESS_KEY: required", nil},
		{KindURLPassword, "postgres://bob:s3cr3t@db/x", []string{"s3cr3t"}},
		{KindURLPassword, "postgres://user:password@localhost/db", nil},

		// online_identifier
		{KindIPAddress, "from 192.168.1.20 and 8.8.8.8.", []string{"192.168.1.20", "8.8.8.8"}},
		{KindIPAddress, "host 2001:db8:85a3::8a2e:370:7334", []string{"2001:db8:85a3::8a2e:370:7334"}},
		{KindIPAddress, "1.2.3 v1.2.3.4 version 1.2.3.4 256.1.1.1 1.2.3.4.5 01.02.03.04", nil},
		{KindIPAddress, "bump 1.22.0.1", []string{"1.22.0.1"}}, // four valid octets and no version word
		{KindIPAddress, "127.0.0.1 0.0.0.0 255.255.255.0 224.0.0.1 ::1 fe80::1 std::vector 12:30:45", nil},
		{KindMACAddress, "00:1A:2B:3C:4D:5E and 00-1a-2b-3c-4d-5f", []string{"00:1A:2B:3C:4D:5E", "00-1a-2b-3c-4d-5f"}},
		{KindMACAddress, "00:1A-2B:3C:4D:5E 12:30:45 00:00:00:00:00:00", nil},

		// location
		{KindStreetAddress, "at 221B Baker Street, London", []string{"221B Baker Street"}},
		{KindStreetAddress, "1600 Pennsylvania Avenue and 10 Downing St", []string{"1600 Pennsylvania Avenue", "10 Downing St"}},
		{KindStreetAddress, "10 items on the street; 221B baker street; Street 5", nil},
		{KindCoordinates, "at 37.7749, -122.4194 and -33.8688,151.2093", []string{"37.7749, -122.4194", "-33.8688,151.2093"}},
		{KindCoordinates, "40.7128° N, 74.0060° W", []string{"40.7128° N, 74.0060° W"}},
		{KindCoordinates, "1.5, 2.5 and 95.0000, 10.0000 and 12.345, 200.123", nil},

		// special categories
		{KindHealth, "she was diagnosed with diabetes", []string{"diabetes"}},
		{KindHealth, "the patient's medical history", []string{"medical history"}},
		{KindHealth, "the great depression", nil},
		{KindHealth, "diagnosis of the flaky test", nil},
		{KindHealth, "diabetes" + strings.Repeat(" word", 20) + " diagnosis", nil},
		{KindICD10, "diagnosis code E11.9", []string{"E11.9"}},
		{KindICD10, "part E11.9 in stock", nil},
		{KindGenetic, "BRCA1 mutation; genotype AA", []string{"BRCA1", "genotype"}},
		{KindGenetic, "generic types", nil},
		{KindDNASequence, "seq ACGTACGTACGTACGTACGTAC.", []string{"ACGTACGTACGTACGTACGTAC"}},
		{KindDNASequence, "ACGT ACGTACGTACGTACGTACGX", nil},
		{KindBiometric, "fingerprint scan; facial recognition; retina scan", []string{"fingerprint", "facial recognition", "retina scan"}},
		{KindBiometric, "SSH key fingerprint, host key fingerprint, retina display, browser fingerprint", nil},
		{KindBehavioral, "their browsing history and purchase history", []string{"browsing history", "purchase history"}},
		{KindBehavioral, "git history; the history of Rome", nil},
		{KindDemographic, "race: Asian; she is Muslim; I'm gay", []string{"Asian", "Muslim", "gay"}},
		{KindDemographic, "questions about sexual orientation", []string{"sexual orientation"}},
		{KindDemographic, "race condition; race: true; the religion chapter; Christian's laptop", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range FindKinds(tt.text, tt.kind) {
			got = append(got, tt.text[m.Start:m.End])
			if m.Kind != tt.kind || m.Category != kinds[tt.kind].category {
				t.Errorf("FindKinds(%q, %s) labelled a match %s/%s", tt.text, tt.kind, m.Kind, m.Category)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("FindKinds(%q, %s) = %q, want %q", tt.text, tt.kind, got, tt.want)
		}
	}
}

func TestJWEHeaderFixture(t *testing.T) {
	// Guards the fixtures above against typos: they must decode as claimed.
	for seg, want := range map[string]string{
		"eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ": `{"alg":"RSA-OAEP","enc":"A256GCM"}`,
		"eyAiYWxnIjogIkhTMjU2IiB9":                       `{ "alg": "HS256" }`,
		"eyJhbGciOm51bGx9":                               `{"alg":null}`,
	} {
		got, err := base64.RawURLEncoding.DecodeString(seg)
		if err != nil || string(got) != want {
			t.Errorf("%s decodes to %q, %v; want %q", seg, got, err, want)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"email alice@widgetworks.io", []string{Contact}},
		{"ship to 221B Baker Street", []string{Contact, Location}},
		{"password=alice@widgetworks.io", []string{Contact, Credential}},
		{"password=alice@example.com", []string{Credential}}, // the secret stays, the placeholder address does not
		{"card 4111 1111 1111 1111, SSN 123-45-6789", []string{GovernmentID, PaymentCard}},
		{"IBAN DE89370400440532013000 from 10.1.2.3", []string{Financial, OnlineIdentifier}},
		{"diagnosed with asthma; genotype; face scan; purchase history; she is Jewish",
			[]string{Behavioral, Biometric, DemographicProtected, Genetic, Health}},
		{"Bearer " + jwtHS256, []string{Credential}},
		{"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", []string{Credential}},
		{"export AWS_SECRET_ACCESS_KEY=Zq8v+3Jk0pW2rT9yLm4nB7xC1dF6gH5sA0eR2uI8", []string{Credential}},
	}
	for _, tt := range tests {
		if got := Classify(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Classify(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestNothingFound lists text that looks numeric or sensitive but is not
// personal data.
func TestNothingFound(t *testing.T) {
	for _, text := range []string{
		"upgrade to v1.2.3, go 1.22.0 or version 1.2.3.4",
		"released 2024-01-15 (01/15/2024) at 12:30:45",
		"ISBN 978-0-306-40615-7 and 9780306406157",
		"order #12345678 shipped; invoice 2024-000123",
		"write to user@localhost",
		"the bearer of this note; bearer bonds",
		"a race condition in the scheduler",
		"compare the SSH key fingerprint",
		"on a retina display",
		"the Swift language",
		"price $1,234.56 for 3 items",
		"see RFC 6750 section 2.1",
		"RFC 5280, Section 4.1.2.2; rfc5246#section-6.2.3.2; RFC 5280, 4.2.2.1; § 7.4.1.4",
		"assets icon@2x.png",
		"password: ${DB_PASSWORD}",
		"call 4111 1111 1111 1112",
	} {
		if got := Find(text); len(got) != 0 {
			t.Errorf("Find(%q) = %+v, want nothing", text, got)
		}
		if got := Classify(text); got != nil {
			t.Errorf("Classify(%q) = %v, want nothing", text, got)
		}
	}
}

func TestFindMergesOverlaps(t *testing.T) {
	text := "Authorization: Bearer " + jwtHS256
	got := Find(text)
	if len(got) != 1 {
		t.Fatalf("Find = %+v, want one merged match", got)
	}
	if m := got[0]; text[m.Start:m.End] != jwtHS256 || m.Kind != KindJWT || m.Category != Credential {
		t.Errorf("merged match = %+v (%q), want the JWT", m, text[m.Start:m.End])
	}

	text = "password=alice@example.com"
	got = Find(text)
	if len(got) != 1 || got[0].Kind != KindSecret || text[got[0].Start:got[0].End] != "alice@example.com" {
		t.Errorf("Find(%q) = %+v, want one secret covering the address", text, got)
	}
	// Restricted to emails, the address is still found on its own.
	if got := FindKinds(text, KindEmail); len(got) != 1 || got[0].Kind != KindEmail {
		t.Errorf("FindKinds(%q, email) = %+v", text, got)
	}
}

func TestFindKindsIgnoresUnknownKinds(t *testing.T) {
	if got := FindKinds("alice@example.com", "nonsense"); got != nil {
		t.Errorf("FindKinds with an unknown kind = %+v, want nothing", got)
	}
	if got := FindKinds("alice@example.com"); got != nil {
		t.Errorf("FindKinds with no kinds = %+v, want nothing", got)
	}
}

func TestFindHostileBytes(t *testing.T) {
	for _, text := range []string{
		"\xff\xfe alice@example.com \x00 4111111111111111 \xc3",
		"\x00\x00\x00",
		"é415-555-0132é",
		"Bearer \xffabcDEF1234567890xyz",
		strings.Repeat("\xe2\x82", 100) + "123-45-6789",
	} {
		ms := Find(text)
		checkMatches(t, text, ms)
		if utf8.ValidString(text) {
			continue
		}
		for _, m := range ms {
			if !utf8.ValidString(text[m.Start:m.End]) {
				t.Errorf("Find(%q) matched invalid UTF-8 %q", text, text[m.Start:m.End])
			}
		}
	}
	if got := Classify("é415-555-0132é"); !slices.Equal(got, []string{Contact}) {
		t.Errorf("phone between multi-byte runes: Classify = %v", got)
	}
}

// checkMatches asserts Find's contract: in order, non-overlapping, non-empty,
// in bounds, on rune boundaries of valid text, and labelled consistently.
func checkMatches(t *testing.T, text string, ms []Match) {
	t.Helper()
	prev := 0
	for _, m := range ms {
		if m.Start < prev || m.End <= m.Start || m.End > len(text) {
			t.Fatalf("bad match %+v after offset %d in %q", m, prev, text)
		}
		prev = m.End
		info, ok := kinds[m.Kind]
		if !ok || info.category != m.Category || !Valid(m.Category) {
			t.Fatalf("match %+v has an unknown kind or wrong category", m)
		}
		if utf8.ValidString(text) && (!utf8.RuneStart(text[m.Start]) || (m.End < len(text) && !utf8.RuneStart(text[m.End]))) {
			t.Fatalf("match %+v splits a rune in %q", m, text)
		}
	}
}
