package pii

import (
	"encoding/hex"
	"net/netip"
	"strings"
)

// Documentation values are addresses set aside so that manuals, RFCs and
// examples never point at anyone: RFC 2606/6761 domain names, RFC 5737 and
// RFC 3849 address blocks, RFC 7042 hardware addresses, and a few
// placeholders everybody uses. A page that shows one documents a format; it
// holds no personal data. Classify ignores them (nonIdentifying), so a manual page quoting
// alice@example.com or 192.0.2.1 is not tagged (a false tag hides a page
// from agents under a refusal policy). Find still reports them: redaction
// must not depend on judging whether an address is real, and removing a
// placeholder costs nothing.
//
// Private ranges (RFC 1918, RFC 6598 shared space, IPv6 unique-local) are
// not documentation: they locate real hosts in someone's network, so they
// still tag a page as online_identifier.

// nonIdentifying reports whether detection c in text identifies no one: a
// documentation or reserved value, or a network written in CIDR notation
// (10.0.0.0/8 names a block of addresses, not a host).
func nonIdentifying(text string, c candidate) bool {
	v := text[c.start:c.end]
	switch c.kind {
	case KindEmail:
		at := strings.LastIndexByte(v, '@')
		return at >= 0 && reservedDomain(v[at+1:])
	case KindIPAddress:
		if hw, ok := hardwareAddr(v); ok {
			return documentationHardware(hw) // an EUI-64 written like IPv6
		}
		a, err := netip.ParseAddr(v)
		return err == nil && (documentationAddr(a) || network(text, c.end, a))
	case KindMACAddress:
		hw, ok := hardwareAddr(v)
		return ok && documentationHardware(hw)
	case KindURLPassword:
		return documentationHost(urlHost(text, c.end))
	}
	return false
}

// reservedDomain reports a name under a domain reserved for documentation
// and testing (RFC 2606, RFC 6761): example.com, example.net, example.org
// and the example, test, invalid and localhost top-level domains.
func reservedDomain(d string) bool {
	d = strings.TrimSuffix(asciiLower(d), ".")
	for _, r := range []string{"example.com", "example.net", "example.org"} {
		if d == r || strings.HasSuffix(d, "."+r) {
			return true
		}
	}
	tld := d[strings.LastIndexByte(d, '.')+1:]
	switch tld {
	case "example", "test", "invalid", "localhost":
		return true
	}
	return false
}

// documentationHost reports a URL host that is a documentation name or
// address. Unlike for emails and addresses, localhost and loopback do not
// count: a password for a local service is still a real credential.
func documentationHost(h string) bool {
	if h == "" {
		return false
	}
	if a, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return documentationNet(a.Unmap())
	}
	d := strings.TrimSuffix(asciiLower(h), ".")
	return reservedDomain(d) && d != "localhost" && !strings.HasSuffix(d, ".localhost")
}

// urlHost returns the host after the '@' at text[p] in
// scheme://user:password@host[:port][/...], or "".
func urlHost(text string, p int) string {
	if p >= len(text) || text[p] != '@' {
		return ""
	}
	rest := text[p+1:]
	if strings.HasPrefix(rest, "[") { // [IPv6]
		if k := strings.IndexByte(rest, ']'); k > 0 {
			return rest[:k+1]
		}
		return ""
	}
	end := strings.IndexAny(rest, ":/?#@ \t\r\n\"'<>)]")
	if end < 0 {
		end = len(rest)
	}
	return rest[:end]
}

// documentationNets are the blocks reserved for documentation and
// benchmarks: RFC 5737 TEST-NET-1/2/3, RFC 2544 benchmarking, RFC 3849 and
// RFC 9637 IPv6 documentation.
var documentationNets = []netip.Prefix{
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("3fff::/20"),
}

func documentationNet(a netip.Addr) bool {
	for _, p := range documentationNets {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// wellKnown are addresses that stand for a role, not a party: the classic
// placeholder 1.2.3.4 and public DNS resolvers, anycast services shared by
// millions, which is why examples use them.
var wellKnown = func() map[netip.Addr]bool {
	m := map[netip.Addr]bool{}
	for _, s := range []string{
		"1.2.3.4",
		"8.8.8.8", "8.8.4.4", "2001:4860:4860::8888", "2001:4860:4860::8844", // Google
		"1.1.1.1", "1.0.0.1", "2606:4700:4700::1111", "2606:4700:4700::1001", // Cloudflare
		"9.9.9.9", "149.112.112.112", "2620:fe::fe", // Quad9
		"208.67.222.222", "208.67.220.220", // OpenDNS
	} {
		m[netip.MustParseAddr(s)] = true
	}
	return m
}()

// documentationAddr reports an address that identifies no host of anyone's:
// documentation blocks, well-known placeholders and resolvers, and
// addresses that are not unicast host addresses at all (unspecified,
// "this network", loopback, link-local, multicast, broadcast and the
// reserved 240.0.0.0/4). The detectors already skip most of the latter;
// they are repeated here so Classify does not depend on that.
func documentationAddr(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	if documentationNet(a) || wellKnown[a] {
		return true
	}
	if a.IsUnspecified() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() {
		return true
	}
	if a.Is4() {
		b := a.As4()
		return b[0] == 0 || b[0] >= 240
	}
	return false
}

// hardwareAddr parses six or eight pairs of hex digits joined by ':' or '-'
// (EUI-48 or EUI-64 notation).
func hardwareAddr(s string) ([]byte, bool) {
	if len(s) != 17 && len(s) != 23 {
		return nil, false
	}
	sep := s[2]
	if sep != ':' && sep != '-' {
		return nil, false
	}
	out := make([]byte, 0, 8)
	for i := 0; i < len(s); i += 3 {
		if i+2 < len(s) && s[i+2] != sep {
			return nil, false
		}
		b, err := hex.DecodeString(s[i : i+2])
		if err != nil {
			return nil, false
		}
		out = append(out, b[0])
	}
	return out, true
}

// documentationHardware reports RFC 7042 documentation values: EUI-48
// 00-00-5E-00-53-xx (unicast) and 01-00-5E-90-10-xx (multicast); EUI-64
// 00-00-5E-EF-10-xx-xx-xx and 01-00-5E-EF-10-xx-xx-xx, and the modified
// EUI-64 02-00-5E-10-00-00-00-xx used as an IPv6 interface identifier
// example.
func documentationHardware(hw []byte) bool {
	p := string(hw)
	switch len(hw) {
	case 6:
		return strings.HasPrefix(p, "\x00\x00\x5e\x00\x53") || strings.HasPrefix(p, "\x01\x00\x5e\x90\x10")
	case 8:
		return strings.HasPrefix(p, "\x00\x00\x5e\xef\x10") || strings.HasPrefix(p, "\x01\x00\x5e\xef\x10") ||
			strings.HasPrefix(p, "\x02\x00\x5e\x10\x00\x00\x00")
	}
	return false
}

// network reports that a is followed, at text[p], by a prefix length shorter
// than the address and has no host bits set: the base of a CIDR block.
func network(text string, p int, a netip.Addr) bool {
	if p >= len(text) || text[p] != '/' {
		return false
	}
	q := p + 1
	for q < len(text) && q-p <= 3 && isDigit(text[q]) {
		q++
	}
	if q == p+1 || (q < len(text) && isAlnum(text[q])) {
		return false
	}
	bits := 0
	for _, c := range text[p+1 : q] {
		bits = bits*10 + int(c-'0')
	}
	if bits >= a.BitLen() {
		return false
	}
	pfx, err := a.Prefix(bits)
	return err == nil && pfx.Addr() == a
}
