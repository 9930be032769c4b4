package main

import (
	"crypto/tls"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// writeCounter counts what a listener's connections write: the bytes on
// the wire a probe must report as read.
type writeCounter struct {
	net.Listener
	n *atomic.Int64
}

func (l writeCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return countedConn{c, l.n}, err
}

type countedConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// Asked with -http10, the probe writes the request as ab does (HTTP/1.0,
// Connection: Keep-Alive unless -close) and reports the answer and every
// byte the server wrote for it. A handler that flushes makes an HTTP/1.1
// answer chunked and an HTTP/1.0 one close-delimited: the sizes differ,
// which is why ab's bytes must be held to an answer asked its way.
func TestHTTP10(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var written atomic.Int64
	var proto, connection atomic.Value
	s := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto.Store(r.Proto)
		connection.Store(r.Header.Get("Connection"))
		w.Write([]byte("Hello"))
		w.(http.Flusher).Flush()
	})}
	go s.Serve(writeCounter{ln, &written})
	t.Cleanup(func() { s.Close() })
	url := "http://" + ln.Addr().String() + "/x?y=1"

	p, err := client("http1", "", 2*time.Second, true)
	if err != nil {
		t.Fatal(err)
	}
	r11 := p.get(url)
	for _, close := range []bool{true, false} {
		written.Store(0)
		r := get10(url, 2*time.Second, close)
		wantConn := "Keep-Alive"
		if close {
			wantConn = ""
		}
		switch {
		case r.Error != "" || r.Status != 200 || string(r.Body) != "Hello":
			t.Errorf("close %v: %d %q %q", close, r.Status, r.Body, r.Error)
		case proto.Load() != "HTTP/1.0" || connection.Load() != wantConn:
			t.Errorf("close %v: the server read %v with Connection %q, want HTTP/1.0 with %q", close, proto.Load(), connection.Load(), wantConn)
		case r.Negotiated == nil || r.Negotiated.HTTP != "HTTP/1.0":
			t.Errorf("close %v: negotiated %+v, want HTTP/1.0 (Go answers in the request's version)", close, r.Negotiated)
		case r.WireBytes != written.Load():
			t.Errorf("close %v: %d wire bytes, the server wrote %d", close, r.WireBytes, written.Load())
		}
	}
	if r11.WireBytes == 0 || r11.WireBytes == written.Load() {
		t.Errorf("the HTTP/1.1 answer (%d bytes) should be framed otherwise than the HTTP/1.0 one (%d)", r11.WireBytes, written.Load())
	}
	if r := get10("https://"+ln.Addr().String()+"/", time.Second, true); r.Error == "" {
		t.Error("-http10 over https: want an error")
	}
}
