package mcpserver_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/mcpserver"
)

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their paths and a pool trusting the certificate.
func selfSigned(t *testing.T) (certPath, keyPath string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pgbrain test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certPath, keyPath, pool
}

// TestHTTPWithTLS: --tls-cert/--tls-key serve HTTPS; plain HTTP to the same
// port gets no MCP answer.
func TestHTTPWithTLS(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	seed(t, b)
	certPath, keyPath, pool := selfSigned(t)
	h := startHTTP(t, b, mcpserver.HTTPOptions{TLSCert: certPath, TLSKey: keyPath, Rate: -1}, nil)
	secure := strings.Replace(h.url, "http://", "https://", 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "tls-agent", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: secure,
		HTTPClient: &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}}, nil)
	if err != nil {
		t.Fatalf("connecting over HTTPS: %v", err)
	}
	defer cs.Close()
	a := callOver(t, cs, "search", map[string]any{"query": "widget"})
	if a != "success" && a != "partial" {
		t.Errorf("search over HTTPS: status %q", a)
	}
	if code, _, _ := post(t, h.url, nil); code == http.StatusOK {
		t.Error("plain HTTP to the HTTPS port answered 200")
	}
}

// TestHTTPBodyLimit: a request body over 4 MiB is refused with 413, like an
// oversize stdio frame.
func TestHTTPBodyLimit(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	h := startHTTP(t, b, mcpserver.HTTPOptions{Rate: -1}, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", mcpserver.DefaultMaxFrameBytes) + `"}}`
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d for a %d-byte body, want 413", resp.StatusCode, len(body))
	}
	if code, _, body := post(t, h.url, nil); code != http.StatusOK {
		t.Errorf("ping after the oversize body: %d %s", code, body)
	}
}

func callOver(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var a answer
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &a)
	return a.Status
}
