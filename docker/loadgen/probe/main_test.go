package main

import (
	"crypto/tls"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/certs"
)

// serve serves "Hello" on a loopback port over protocols, with TLS when
// set is not nil; it returns the address.
func serve(t *testing.T, set *certs.Set, protocols func(*http.Protocols)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("Hello")) }),
		Protocols: new(http.Protocols)}
	protocols(s.Protocols)
	if set != nil {
		pair, err := tls.X509KeyPair(set.Cert, set.Key)
		if err != nil {
			t.Fatal(err)
		}
		s.TLSConfig = &tls.Config{Certificates: []tls.Certificate{pair}}
		ln = tls.NewListener(ln, s.TLSConfig)
		if s.Protocols.HTTP2() {
			s.TLSConfig.NextProtos = []string{"h2", "http/1.1"}
		}
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return ln.Addr().String()
}

func caFile(t *testing.T, set *certs.Set) string {
	f := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(f, set.CA, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// Each protocol is spoken as asked, over TLS verified against the run's
// authority, and what was agreed is reported; a server whose certificate
// another authority signed is refused, naming its subject.
func TestProtocols(t *testing.T) {
	set, err := certs.New("t", []string{"127.0.0.1"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ca := caFile(t, set)
	both := func(p *http.Protocols) { p.SetHTTP1(true); p.SetHTTP2(true) }
	cleartext := func(p *http.Protocols) { p.SetHTTP1(true); p.SetUnencryptedHTTP2(true) }
	for _, c := range []struct {
		proto, scheme, addr, http, alpn string
		bytes                           bool
	}{
		{"http1", "http", serve(t, nil, cleartext), "HTTP/1.1", "", true},
		{"h2c", "http", serve(t, nil, cleartext), "HTTP/2.0", "", false},
		{"https", "https", serve(t, set, both), "HTTP/1.1", "http/1.1", true},
		{"h2", "https", serve(t, set, both), "HTTP/2.0", "h2", false},
	} {
		p, err := client(c.proto, ca, 2*time.Second, false)
		if err != nil {
			t.Fatal(err)
		}
		r := p.get(c.scheme + "://" + c.addr + "/")
		if r.Error != "" || string(r.Body) != "Hello" {
			t.Errorf("%s: %q %q", c.proto, r.Body, r.Error)
			continue
		}
		n := r.Negotiated
		if n == nil || n.HTTP != c.http || n.ALPN != c.alpn || (c.alpn != "") != (n.TLS != "") {
			t.Errorf("%s: negotiated %+v", c.proto, n)
		}
		if c.alpn != "" && (n.Cipher == "" || !strings.Contains(n.Subject, "webbench target t")) {
			t.Errorf("%s: negotiated %+v", c.proto, n)
		}
		if (r.WireBytes > 0) != c.bytes {
			t.Errorf("%s: wire bytes %d", c.proto, r.WireBytes)
		}
	}
	other, _ := certs.New("other", []string{"127.0.0.1"}, time.Now())
	addr := serve(t, other, both)
	p, _ := client("https", ca, 2*time.Second, false)
	r := p.get("https://" + addr + "/")
	if !strings.Contains(r.Error, "certificate verification failed") || !strings.Contains(r.Error, "webbench target other") {
		t.Errorf("another authority's certificate: %q", r.Error)
	}
	// A name the certificate does not carry.
	p, _ = client("https", ca, 2*time.Second, false)
	r = p.get("https://localhost:" + strings.Split(serve(t, set, both), ":")[1] + "/")
	if !strings.Contains(r.Error, "does not name localhost") {
		t.Errorf("wrong name: %q", r.Error)
	}
	if _, err := client("https", "", time.Second, false); err == nil {
		t.Error("https without -ca: want an error")
	}
}
