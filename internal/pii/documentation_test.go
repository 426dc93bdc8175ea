package pii

import (
	"slices"
	"testing"
)

// TestClassifyDocumentationValues: documentation and reserved values tag
// nothing; values that merely look like them, and real ones, still tag.
func TestClassifyDocumentationValues(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		// RFC 2606 / RFC 6761 names in addresses and URLs.
		{"example.com email", "write to alice@example.com", nil},
		{"example.org subdomain", "from bob@mail.example.org today", nil},
		{"example.net upper case", "EVE@EXAMPLE.NET", nil},
		{".test", "ping carol@ci.test", nil},
		{".invalid", "dave@host.invalid", nil},
		{".example", "erin@corp.example", nil},
		{".localhost", "frank@app.localhost", nil},
		{"url password, example host", "postgres://app:s3cr3t@db.example.com/orders", nil},
		{"url password, documentation address", "https://admin:pa55w0rd@192.0.2.10:8443/", nil},
		// RFC 5737, RFC 2544, RFC 3849, RFC 9637 blocks.
		{"TEST-NET-1", "the server at 192.0.2.1 answers", nil},
		{"TEST-NET-2", "dial 198.51.100.7", nil},
		{"TEST-NET-3", "from 203.0.113.254", nil},
		{"benchmarking", "load from 198.18.0.20", nil},
		{"IPv6 documentation", "host 2001:db8:85a3::8a2e:370:7334", nil},
		{"IPv6 documentation, full form", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", nil},
		{"IPv6 documentation, RFC 9637", "3fff:0:1::42", nil},
		// Well-known placeholders and resolvers, and non-host addresses.
		{"placeholder", `const DefaultRemoteAddr = "1.2.3.4"`, nil},
		{"public resolvers", "ParseIP(\"8.8.8.8\"), 1.1.1.1, 9.9.9.9, 2001:4860:4860::8888", nil},
		{"this network and reserved", "0.1.2.3 and 240.1.2.3", nil},
		{"link-local", "169.254.10.20", nil},
		{"IPv6 multicast", "ff02::1:ff00:1", nil},
		// RFC 7042 hardware addresses.
		{"EUI-48 documentation", "00:00:5e:00:53:01 or 00-00-5E-00-53-FF", nil},
		{"EUI-64 documentation", "02:00:5e:10:00:00:00:01", nil},
		// Section numbers are not addresses at all.
		{"section", "See RFC 5280, Section 4.1.2.2.", nil},
		{"section anchor", "https://tools.ietf.org/html/rfc5246#section-6.2.3.2", nil},
		{"abbreviated section", "Sec. 6.1.2.2 and § 7.4.1.4", nil},
		{"RFC section", "// RFC 5280, 4.2.2.1 (Authority Information Access); rfc5246 6.2.3.2", nil},
		// CIDR blocks name networks, not hosts.
		{"CIDR blocks", "in 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 or \"192.168.1.0/24\"", nil},
		{"host with a prefix length", "iface 10.1.2.3/24", []string{OnlineIdentifier}},
		{"single-host prefix", "allow 81.2.69.160/32", []string{OnlineIdentifier}},
		{"CIDR base followed by a word", "10.0.0.0/8x", []string{OnlineIdentifier}},
		{"RFC number far before", "RFC 5280 says: connect to 81.2.69.160", []string{OnlineIdentifier}},

		// Real-looking values still tag.
		{"real domain email", "write to alice@widgetworks.io", []string{Contact}},
		{"lookalike domain", "alice@myexample.com", []string{Contact}},
		{"reserved name inside a real domain", "bob@example.com.widgetworks.io", []string{Contact}},
		{"not reserved country domain", "carol@example.co.uk", []string{Contact}},
		{"tld containing test", "dave@mail.testing", []string{Contact}},
		{"public address", "the server at 81.2.69.160 answers", []string{OnlineIdentifier}},
		{"next to TEST-NET-1", "from 192.0.3.1", []string{OnlineIdentifier}},
		{"private address", "deploy to 10.0.0.1", []string{OnlineIdentifier}},
		{"private address, 192.168", "IP address to parse (default 192.168.0.100)", []string{OnlineIdentifier}},
		{"shared address space", "CGNAT 100.64.1.2", []string{OnlineIdentifier}},
		{"public IPv6", "host 2a00:1450:4001:82a::200e", []string{OnlineIdentifier}},
		{"unique-local IPv6", "fd12:3456:789a::1", []string{OnlineIdentifier}},
		{"next to IPv6 documentation", "2001:db9::1:2", []string{OnlineIdentifier}},
		{"real MAC", "mac 3c:22:fb:12:34:56", []string{OnlineIdentifier}},
		// "s3cr3t@db.internal.corp" is email-shaped as well, hence contact.
		{"url password, real host", "postgres://app:s3cr3t@db.internal.corp/orders", []string{Contact, Credential}},
		{"url password, localhost", "postgres://app:s3cr3t@localhost:5432/orders", []string{Credential}},
		{"section far from the address", "Section 4 applies; server 81.2.69.160", []string{OnlineIdentifier}},
		{"documentation email next to a real one", "alice@example.com, bob@widgetworks.io", []string{Contact}},
		{"secret whose value is a placeholder address", "password=alice@example.com", []string{Credential}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("Classify(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// TestFindKeepsDocumentationValues: redaction does not judge whether an
// address is real; only classification ignores documentation values.
func TestFindKeepsDocumentationValues(t *testing.T) {
	tests := []struct {
		text, kind string
	}{
		{"alice@example.com", KindEmail},
		{"192.0.2.1", KindIPAddress},
		{"2001:db8::1:2", KindIPAddress},
		{"00:00:5e:00:53:01", KindMACAddress},
	}
	for _, tt := range tests {
		if got := Find(tt.text); len(got) != 1 || got[0].Kind != tt.kind || got[0].Start != 0 || got[0].End != len(tt.text) {
			t.Errorf("Find(%q) = %+v, want one %s", tt.text, got, tt.kind)
		}
	}
}

// TestClassifyPages is the acceptance: pages holding a credential,
// a card number or a national id are tagged; an ordinary business page and a
// manual page full of documentation values are tagged nothing.
func TestClassifyPages(t *testing.T) {
	tests := []struct {
		name string
		page string
		want []string
	}{
		{"AWS access key", "# CI deploy user\n\nThe pipeline signs in with access key AKIAJ7Q2XK4LMN5P3R6T;\nrotate it every 90 days.\n",
			[]string{Credential}},
		{"card number", "# Travel\n\nBook flights on the team card 4111 1111 1111 1111, expiry 12/27.\n",
			[]string{PaymentCard}},
		{"SSN", "# New hire\n\nPayroll needs the SSN 123-45-6789 before the first run.\n",
			[]string{GovernmentID}},
		{"quarterly report schedule", "---\ntitle: Quarterly report schedule\ntype: process\n---\n" +
			"# Quarterly report schedule\n\n" +
			"| Quarter | Books close | Draft due | Board review |\n|---|---|---|---|\n" +
			"| Q1 2024 | 2024-03-31 | 2024-04-12 | 2024-04-25 10:00 |\n" +
			"| Q2 2024 | 2024-06-30 | 2024-07-12 | 2024-07-25 10:00 |\n" +
			"| Q3 2024 | 2024-09-30 | 2024-10-11 | 2024-10-24 10:00 |\n\n" +
			"Finance owns the report; the template is version 3.2.1 (section 4.1.2 lists the KPIs).\n" +
			"Revenue is reported in $ thousands, e.g. $1,234.5, rounded to 0.1.\n",
			nil},
		{"manual page", "# net\n\n```go\naddr := netip.MustParseAddr(\"192.0.2.1\")\nip := net.ParseIP(\"2001:db8::68\")\n" +
			"mac, _ := net.ParseMAC(\"00:00:5e:00:53:01\")\nm, _ := mail.ParseAddress(\"Barry Gibbs <bg@example.com>\")\n```\n\n" +
			"See RFC 5280, Section 4.1.2.2 and https://tools.ietf.org/html/rfc5246#section-6.2.3.2.\n",
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.page); !slices.Equal(got, tt.want) {
				t.Errorf("Classify = %v, want %v", got, tt.want)
			}
		})
	}
}
