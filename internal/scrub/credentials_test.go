package scrub

import "testing"

// credentialCases are the secret shapes the page classifier knows, as they
// turn up pasted into a search box; R is Redacted. Every one must go from
// every place query text is written.
var credentialCases = []struct {
	name, in, want string
}{
	// AWS.
	{"aws access key id", "why is AKIAIOSFODNN7EXAMPLE denied", "why is R denied"},
	{"aws session key id", "ASIAY34FZKBOKMUTVV7A expired", "R expired"},
	{"aws secret assignment", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = R"},
	{"aws secret export", "export AWS_SECRET_ACCESS_KEY=je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY", "export AWS_SECRET_ACCESS_KEY=R"},
	{"aws secret json", `"SecretAccessKey": "9drTJvcXLB89EXAMPLELB8923FB892xMFI+3rXdh"`, `"SecretAccessKey": "R"`},
	{"aws secret after label", "aws secret access key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY leaked", "aws secret access key R leaked"},
	// Vendor tokens.
	{"github classic", "ghp_16C7e42F292c6912E7710c838347Ae178B4a rotate", "R rotate"},
	{"github oauth", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "R"},
	{"github fine grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCD", "R"},
	{"gitlab", "glpat-xxxxxxxxxx1234567890 in ci", "R in ci"},
	{"slack bot", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "R"},
	{"slack user", "token xoxp-1234567890-abcdef for the workspace", "token R for the workspace"},
	{"stripe secret", "sk_live_4eC39HqLyjWDarjtT1zdp7dc charge failed", "R charge failed"},
	{"stripe restricted", "rk_live_51H8abcdEFGHijkl0123", "R"},
	{"stripe publishable", "pk_live_51H8abcdEFGHijkl0123 checkout", "R checkout"},
	{"openai", "sk-abc123def456ghi789jkl012mno345 quota", "R quota"},
	{"openai project", "OPENAI_API_KEY=sk-proj-abc123def456ghi789jkl012", "OPENAI_API_KEY=R"},
	{"anthropic", "sk-ant-api03-abc123def456ghi789jkl", "R"},
	{"google api key", "AIzaSyD-1234567890abcdefghijklmnopqrstu maps", "R maps"},
	{"npm", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "R"},
	// Private keys.
	{"private key block", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234\n-----END RSA PRIVATE KEY-----", "R"},
	{"private key header only", "why -----BEGIN OPENSSH PRIVATE KEY----- fails", "why R fails"},
	// A paste cut off before its END line loses its body too.
	{"private key cut off", "-----BEGIN PRIVATE KEY----- MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw more", "R more"},
	{"private key lines cut off", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx7abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLM\nQWERTYUIOPASDFGHJKLZXCVBNM1234567890qw==\nthanks", "R\nthanks"},
	// HTTP Basic credentials: base64 of user:password.
	{"basic authorization header", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic R"},
	{"basic in curl", "curl -H 'Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l' http://x", "curl -H 'Authorization: Basic R' http://x"},
	{"basic without header", "basic dXNlcjpwYXNz header rejected", "basic R header rejected"},
	// Passwords on command lines and under a short name.
	{"pass equals", "pass=Tr0ub4dor&3", "pass=R"},
	{"smtp pass", "smtp_pass = hunter2 and user=bob", "smtp_pass = R and user=bob"},
	{"mysql -p", "mysql -u root -pS3cretPass db", "mysql -u root -p[REDACTED] db"},
	{"mysqldump -p quoted", "mysqldump -h db -u app -p'x y' mydb", "mysqldump -h db -u app -p'R' mydb"},
	{"sshpass -p", "sshpass -p hunter2 ssh host", "sshpass -p R ssh host"},
	{"mysql -P is the port", "mysql -h db -P3306 -u root -pS3cret db", "mysql -h db -P3306 -u root -p[REDACTED] db"},
	{"sshpass -P is the prompt", "sshpass -P 'Password:' -p hunter2 ssh host", "sshpass -P 'Password:' -p R ssh host"},
	{"pass quoted", `PASS="hunter 2" next`, `PASS="R" next`},
	{"basic with an empty user", "Authorization: Basic OmZvbw==", "Authorization: Basic R"},
	{"pgpassword", "PGPASSWORD=hunter3 psql -h db", "PGPASSWORD=R psql -h db"},
	{"pgpassword quoted", `export PGPASSWORD="hunter 3"`, `export PGPASSWORD="R"`},
	{"password option", "mongosh --password hunter4 --host db", "mongosh --password R --host db"},
	{"docker login password", "docker login --password 'x y z' reg.example", "docker login --password 'R' reg.example"},
	{"curl user", "curl -u admin:hunter2 https://x", "curl -u admin:R https://x"},
	{"curl long user", "curl --user=admin:s3cr3t http://h", "curl --user=admin:R http://h"},
	{"aws secret after key id", "AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "R:R"},
	{"aws secret after key id spaced", "aws key AKIAIOSFODNN7EXAMPLE secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws key R secret R"},
	// Assignments.
	{"password colon", "password: hunter2", "password: R"},
	{"password equals", "PASSWORD=hunter2", "PASSWORD=R"},
	{"passwd", "passwd=letmein", "passwd=R"},
	// A page's "/etc/passwd: Text lines" names a file; a query's is scrubbed.
	{"passwd after a path", "/etc/passwd: hunter2", "/etc/passwd: R"},
	{"pwd", "pwd=x1", "pwd=R"},
	{"secret", "secret=abc", "secret=R"},
	{"token", "token=abc", "token=R"},
	{"db password quoted", `DB_PASSWORD: "correct horse battery"`, `DB_PASSWORD: "R"`},
	{"client secret", "client_secret='0a1b2c3d4e5f'", "client_secret='R'"},
	{"api key json", `{"api_key": "abcd1234efgh5678"}`, `{"api_key": "R"}`},
	{"access token", "access_token=ya29.a0AfH6SMBx", "access_token=R"},
	// The password and host read as an address as well: both go.
	{"url password", "postgres://app:s3cr3t@db.internal:5432/prod", "postgres://app:R:5432/prod"},
	{"url password ip host", "mysql://root:toor@10.0.0.5/db", "mysql://root:R@10.0.0.5/db"},
	// Financial and government identifiers.
	{"iban spaced", "IBAN GB82 WEST 1234 5698 7654 32 please", "IBAN R please"},
	{"iban solid", "DE89370400440532013000", "R"},
	{"iban lower case", "iban de89 3704 0044 0532 0130 00", "iban R"},
	{"iban french", "FR14 2004 1010 0505 0001 3M02 606", "R"},
	{"passport", "passport number 123456789", "passport number R"},
	{"passport no", "Passport No. X1234567 expired", "Passport No. R expired"},
	{"drivers license", "driver's license D1234567", "driver's license R"},
	{"national insurance", "national insurance AB 12 34 56 C", "national insurance R"},
	{"bank account", "bank account 12345678", "bank account R"},
	// A solid card number glued to words.
	{"card glued", "card:4242424242424242exp1227", "card:[REDACTED]exp1227"},
	{"card after brand", "visa4111111111111111 declined", "visa[REDACTED] declined"},
	// Other schemes, languages and vendors.
	{"authorization token", "Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", "Authorization: Token R"},
	{"russian password", "пароль: qwerty123 не подходит", "пароль: R не подходит"},
	{"chinese password", "密码：abc12345 错误", "密码：R 错误"},
	{"german password", "Passwort: geheim123", "Passwort: R"},
	{"slack webhook", "post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX now", "post to https://hooks.slack.com/services/R now"},
	{"slack app token", "xapp-1-A0123456789-1234567890123-abcdef0123456789", "R"},
	{"stripe webhook secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "R"},
	{"private key id", `"private_key_id": "4c2a1b3d5e6f708192a3b4c5d6e7f8091a2b3c4d"`, `"private_key_id": "R"`},
	{"jwt split across lines", "decode eyJhbGciOiJIUzI1NiJ9.\neyJzdWIiOiIxMjM0NTY3ODkwIn0.\nE81C7bLK6kcIIM2mdpr9BQSrPmkOXLkv fails", "decode R fails"},
	{"jwt spaced at its dots", "decode eyJhbGciOiJIUzI1NiJ9 . eyJzdWIiOiIxMjM0NTY3ODkwIn0 . E81C7bLK6kcIIM2mdpr9BQ", "decode R"},
	{"docker login -p", "docker login -u me -p Dkr_Pw_9x8y registry.io", "docker login -u me -p R registry.io"},
	{"token glued to a word", "tokenghp_16C7e42F292c6912E7710c838347Ae178B4a", "token[REDACTED]"},
	{"aws key glued", "xAKIAIOSFODNN7EXAMPLE", "x[REDACTED]"},
	// Disguised: a zero-width space inside, full-width forms.
	{"zero width in a name", "pass\u200bword=hunter2 login", "pass\u200bword=R login"},
	{"zero width in a card", "4111\u200b1111\u200b1111\u200b1111", "R"},
	{"zero width in a token", "ghp_16C7e42F292c6912\u200bE7710c838347Ae178B4a", "R"},
	{"full width token", "ｇｈｐ＿16C7e42F292c6912E7710c838347Ae178B4a rotate", "R rotate"},
	{"full width assignment", "ｐａｓｓｗｏｒｄ＝ｈｕｎｔｅｒ２ now", "ｐａｓｓｗｏｒｄ＝R now"},
	{"url encoded assignment", "q=password%3Dhunter2&x=1", "q=password%3D[REDACTED]"},
	{"url encoded card", "card%204111%201111%201111%201111", "card%20[REDACTED]"},
	// Emails anywhere, not only whole.
	{"email inside", "what did carol@example.org say about Q3", "what did R say about Q3"},
	// Several at once.
	{"mixed credentials", "user=bob password=hunter2 key AKIAIOSFODNN7EXAMPLE card 4111111111111111", "user=bob password=R key R card R"},
}

// keptCases are ordinary text that looks a little like a secret: it must
// survive, or captured queries and the events file stop being useful.
// Decisions: UUIDs are ids of records, not of people, and stay; 40-digit
// hex is a git commit, not an AWS key; a credential word in prose, with no
// ':' or '=' after it, is prose.
var keptCases = []string{
	"upgrade from 1.2.3 to 2.0.0-rc.1+build.5",
	"go1.22.4 linux/amd64",
	"commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
	"psql --password -h db",
	"psql --password mydb",
	"--pass through mode",
	"Authorization: Token required",
	"authorization: token based auth",
	"authorization: key rotation policy",
	"пароль и логин",
	"La parola: ciao",
	"Passwort: vergessen",
	"senha: como recuperar",
	"mot de passe: oublié",
	"密码：忘记了怎么办",
	"docker run -u 1000:1000 image",
	"podman run --user root:root image",
	"tar -u file:a.txt",
	"xoxo-gossip-girl-reboot",
	"go get example.com/mod@v0.0.0-20240115093005-abcdef123456",
	"the Slack webhooks docs at hooks.slack.com/services",
	"mysql -u root -h db",
	"curl -u admin https://x",
	"sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 of the empty file",
	"short hash 3f78685 in the changelog",
	"released on 2024-01-15, again 15/01/2024 and Jan 15, 2024",
	"order #12345678 shipped, tracking 1Z999AA10123456784",
	"ISBN 978-0-306-40615-7 and ISBN-10 0-306-40615-2",
	"listen on port 5432 or :8080, localhost:6379",
	"request id 550e8400-e29b-41d4-a716-446655440000",
	"how do I reset my password",
	"password reset link expired",
	"where is the secret key stored",
	"rotate the api key every 90 days",
	"the token bucket algorithm",
	"bearer tokens vs session cookies",
	"AWS secret access key rotation policy",
	"sk-learn pipeline with a random forest",
	"task-1234567890 is blocked",
	"BEGIN PUBLIC KEY block format",
	"postgres://localhost:5432/brain",
	"passport photo requirements",
	"IBAN format for Germany",
	"error E11000 duplicate key",
	"RFC 6750 section 2.1",
	"price $1,299.99 or €1.299,99",
	"coordinates 48.8584, 2.2945",
	"IP 192.168.1.20",
	"call the API with limit=10&offset=20",
	"key=value pairs in the config",
	"password: ******** in the docs",
	"token: ${GITHUB_TOKEN} in the workflow",
	"café naïve 東京 Ελληνικά 🙂",
	"basic authentication in nginx",
	"Basic usage of Basic Auth",
	"first pass: lexing, second pass: parsing",
	"int col_in_pass = PNG_COL_IN_INTERLACE_PASS(output_x, pass);",
	"mysql -u root -p db (asks for the password)",
	"what does -p do in grep -p",
	"mysql replication -postgres",
	"mysql vs postgres -performance",
	"mysql dump then perl -pi -e 's/a/b/'",
	"x264 --pass=1 in.y4m",
}

func TestScrubCredentials(t *testing.T) {
	for _, c := range credentialCases {
		t.Run(c.name, func(t *testing.T) {
			want := markerRE.ReplaceAllString(c.want, Redacted)
			got := Scrub(c.in)
			if got != want {
				t.Errorf("Scrub(%q)\n got %q\nwant %q", c.in, got, want)
			}
			if again := Scrub(got); again != got {
				t.Errorf("Scrub is not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestScrubKeepsOrdinaryText(t *testing.T) {
	for _, in := range keptCases {
		if got := Scrub(in); got != in {
			t.Errorf("Scrub(%q) = %q, want it unchanged", in, got)
		}
	}
}

// Found by running the scrubber over the manual pages: not values.
var keptFromManPages = []string{
	"if (pwd == NULL) {",
	"secret: (required) The name of the secret in Secret Manager.",
	"password: [optional]",
}

func TestScrubKeepsComparisonsAndPlaceholders(t *testing.T) {
	for _, in := range keptFromManPages {
		if got := Scrub(in); got != in {
			t.Errorf("Scrub(%q) = %q, want it unchanged", in, got)
		}
	}
}
