package pii

import (
	"compress/gzip"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestFingerprintContext(t *testing.T) {
	tests := []struct {
		text string
		want []string // the biometric matches
	}{
		// a person's
		{"We store employees' fingerprints for the door.", []string{"fingerprints"}},
		{"We store employees’ fingerprints for the door.", []string{"fingerprints"}},
		{"the employee's fingerprint opens the lab", []string{"fingerprint"}},
		{"Install a fingerprint scanner at the entrance.", []string{"fingerprint"}},
		{"the police took his fingerprints", []string{"fingerprints"}},
		{"Fingerprints were taken at the station.", []string{"Fingerprints"}},
		{"He was fingerprinted on arrival.", []string{"fingerprinted"}},
		{"my fingerprint unlocks the phone", []string{"fingerprint"}},
		{"fingerprint enrolment for patients; fingerprint templates", []string{"fingerprint", "fingerprint"}},
		{"Their fingerprints were collected. The key is in the drawer.", []string{"fingerprints"}},
		// a key's, a certificate's, a file's
		{"Check the fingerprint of the certificate.", nil},
		{"the fingerprints of the keys", nil},
		{"Always verify the fingerprint before you trust it.", nil},
		{"fingerprint: 3A 5F 77 0C", nil},
		{"SHA256 fingerprint of your host key", nil},
		{"signed with my OpenPGP fingerprint", nil},
		{"List all keys along with their fingerprints.", nil},
		{"a fingerprint of the server's public key is presented to the user", nil},
		{"Export your key's fingerprint", nil},
		{"his key fingerprint", nil},
		{"the device fingerprint of my phone", nil},
		{"the browser fingerprint your users leave", nil},
		{"run gpg --fingerprint; set fingerprint=FINGERPRINT or ${FINGERPRINT}", nil},
		{"allowed_application=sha1_fingerprint=foo", nil},
		{"Take the fingerprint from that output.", nil},
		{"Assets are fingerprinted for caching.", nil},
		{"fingerprint", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range FindKinds(tt.text, KindBiometric) {
			got = append(got, tt.text[m.Start:m.End])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("FindKinds(%q, biometric) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestFingerprintManPages runs the classifier over installed pages that
// speak of key and certificate fingerprints, text nobody here wrote; the
// earlier rule tagged each of them biometric.
func TestFingerprintManPages(t *testing.T) {
	for _, p := range []string{
		"/usr/share/man/man1/ssh.1.gz",
		"/usr/share/man/man5/ssh_config.5.gz",
		"/usr/share/man/man1/ssh-keygen.1.gz",
		"/usr/share/man/man1/dpkg-buildpackage.1.gz",
		"/usr/share/man/man5/sources.list.5.gz",
		"/usr/share/doc/openssh-client/README.dns",
	} {
		text := readInstalled(t, p)
		if !strings.Contains(strings.ToLower(text), "fingerprint") {
			t.Fatalf("%s no longer mentions fingerprints; pick another page", p)
		}
		if got := FindKinds(text, KindBiometric); len(got) != 0 {
			m := got[0]
			t.Errorf("%s: %d biometric matches, first %q in %q", p, len(got), text[m.Start:m.End],
				text[max(0, m.Start-60):min(len(text), m.End+60)])
		}
	}
}

func readInstalled(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v (the test reads real pages: apt-get install openssh-client dpkg-dev apt, with no dpkg path-exclude for /usr/share/man or /usr/share/doc)", path, err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("decompress %s: %v", path, err)
		}
		r = z
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(b)
}
