package pii

import (
	"net/netip"
	"strings"
)

// network finds IPv6 and MAC addresses as maximal runs of hex digits and
// separators, validated by shape and, for IPv6, by netip.
func (f *finder) network() {
	l := f.lower
	if f.wants(KindIPAddress) {
		eachRunWith(l, ":", func(c byte) bool { return isHex(c) || c == ':' }, func(s, e int) {
			if f.ipv6(s, e) {
				f.add(s, e, KindIPAddress)
			}
		})
	}
	if f.wants(KindMACAddress) {
		eachRunWith(l, ":-", func(c byte) bool { return isHex(c) || c == ':' || c == '-' }, func(s, e int) {
			if e-s == 17 && mac(l[s:e]) && !isAlnum(at(l, s-1)) && !isAlnum(at(l, e)) {
				f.add(s, e, KindMACAddress)
			}
		})
	}
}

func isHex(c byte) bool { return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F') }

// at returns s[i], or 0 outside s.
func at(s string, i int) byte {
	if i < 0 || i >= len(s) {
		return 0
	}
	return s[i]
}

// eachRunWith calls fn with the bounds of every maximal run of bytes in s for
// which in holds and that contains one of the bytes in seps (for which in
// must hold). Both addresses need a separator, and looking for separators
// first skips the hex-looking words of ordinary text.
func eachRunWith(s, seps string, in func(byte) bool, fn func(start, end int)) {
	for from := 0; from < len(s); {
		k := strings.IndexAny(s[from:], seps)
		if k < 0 {
			return
		}
		start, end := from+k, from+k+1
		for start > from && in(s[start-1]) {
			start--
		}
		for end < len(s) && in(s[end]) {
			end++
		}
		fn(start, end)
		from = end
	}
}

// mac accepts six pairs of hex digits joined by one kind of separator,
// except the all-zero and broadcast addresses.
func mac(s string) bool {
	sep := s[2]
	if sep != ':' && sep != '-' {
		return false
	}
	for i := range 17 {
		if (i%3 == 2) != (s[i] == sep) || (i%3 != 2 && !isHex(s[i])) {
			return false
		}
	}
	return s != "00:00:00:00:00:00" && s != "ff:ff:ff:ff:ff:ff" && s != "00-00-00-00-00-00" && s != "ff-ff-ff-ff-ff-ff"
}

// ipv6 accepts a parseable address with at least three non-empty groups
// (which rules out "::", "a::b" in code and clock times), not glued to other
// address-like text, and not loopback, unspecified or link-local.
func (f *finder) ipv6(s, e int) bool {
	l := f.lower
	if e-s > 39 || strings.Count(l[s:e], ":") < 2 {
		return false
	}
	if p := at(l, s-1); isAlnum(p) || p == '.' {
		return false
	}
	if n := at(l, e); isAlnum(n) || (n == '.' && isDigit(at(l, e+1))) {
		return false
	}
	groups := 0
	for _, part := range strings.Split(l[s:e], ":") {
		if part != "" {
			groups++
		}
	}
	if groups < 3 {
		return false
	}
	a, err := netip.ParseAddr(l[s:e])
	return err == nil && a.Is6() && !a.IsLoopback() && !a.IsUnspecified() && !a.IsLinkLocalUnicast()
}
