package main

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
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
		r := p.get(c.scheme+"://"+c.addr+"/", nil)
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
	r := p.get("https://"+addr+"/", nil)
	if !strings.Contains(r.Error, "certificate verification failed") || !strings.Contains(r.Error, "webbench target other") {
		t.Errorf("another authority's certificate: %q", r.Error)
	}
	// A name the certificate does not carry.
	p, _ = client("https", ca, 2*time.Second, false)
	r = p.get("https://localhost:"+strings.Split(serve(t, set, both), ":")[1]+"/", nil)
	if !strings.Contains(r.Error, "does not name localhost") {
		t.Errorf("wrong name: %q", r.Error)
	}
	if _, err := client("https", "", time.Second, false); err == nil {
		t.Error("https without -ca: want an error")
	}
}

// rawServer answers each connection with answer after reading its
// request head, which it sends on heads; it closes the connection after
// the answer only when closeAfter is set (a close-delimited body).
func rawServer(t *testing.T, answer string, closeAfter bool) (addr string, heads chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	heads = make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var head strings.Builder
				r := bufio.NewReader(c)
				for !strings.HasSuffix(head.String(), "\r\n\r\n") {
					line, err := r.ReadString('\n')
					if head.WriteString(line); err != nil {
						break
					}
				}
				heads <- head.String()
				io.WriteString(c, answer)
				if !closeAfter {
					r.ReadByte() // hold the connection until the client closes it
				}
			}()
		}
	}()
	return ln.Addr().String(), heads
}

// Asked with -http10, the probe writes the request as ab does (an HTTP/1.0
// request line, Connection: Keep-Alive unless -close, ab's Host,
// User-Agent and Accept), reads the answer whether its length is given or
// it ends with the connection, and reports every byte of it as read.
func TestHTTP10(t *testing.T) {
	for _, c := range []struct {
		close  bool
		answer string
	}{
		{false, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nHello"},
		{true, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nHello"}, // close-delimited, as nginx answers ab over FastCGI
	} {
		addr, heads := rawServer(t, c.answer, c.close)
		r := get10("http://"+addr+"/x?y=1", 2*time.Second, c.close, nil)
		keepAlive := "Connection: Keep-Alive\r\n"
		if c.close {
			keepAlive = ""
		}
		want := "GET /x?y=1 HTTP/1.0\r\n" + keepAlive + "Host: " + addr + "\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n"
		if head := <-heads; head != want {
			t.Errorf("close %v: the server read %q, want %q", c.close, head, want)
		}
		proto := c.answer[:8]
		switch {
		case r.Error != "" || r.Status != 200 || string(r.Body) != "Hello":
			t.Errorf("close %v: %d %q %q", c.close, r.Status, r.Body, r.Error)
		case r.Negotiated == nil || r.Negotiated.HTTP != proto:
			t.Errorf("close %v: negotiated %+v, want %s", c.close, r.Negotiated, proto)
		case r.WireBytes != int64(len(c.answer)):
			t.Errorf("close %v: %d wire bytes, the server wrote %d", c.close, r.WireBytes, len(c.answer))
		}
	}
	if r := get10("https://127.0.0.1:1/", time.Second, true, nil); r.Error == "" {
		t.Error("-http10 over https: want an error")
	}
}

// After an answer to ab's keep-alive request, the probe tells a server
// that closes the connection (ab -k then reads to the close, and works)
// from one that keeps it open without a Keep-Alive header (ab -k hangs).
func TestClosedAfter(t *testing.T) {
	for _, closes := range []bool{true, false} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			c.Read(buf)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			if closes {
				c.Close()
				return
			}
			time.Sleep(2 * time.Second)
			c.Close()
		}()
		r := get10("http://"+ln.Addr().String()+"/", 2*time.Second, false, nil)
		ln.Close()
		if r.Error != "" || r.ClosedAfter != closes {
			t.Errorf("server closes %v: %+v", closes, r)
		}
	}
}

// -H sends a request header, on HTTP/1.1 and on ab's HTTP/1.0 alike, and
// the probe decodes nothing it asked for: a gzip body comes as it was sent.
func TestHeaders(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		io.WriteString(w, "ae="+r.Header.Get("Accept-Encoding"))
	}))
	defer ts.Close()
	var h headerFlag
	if err := h.Set("Accept-Encoding: gzip"); err != nil {
		t.Fatal(err)
	}
	p, err := client("http1", "", 2*time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	if r := p.get(ts.URL+"/", h); string(r.Body) != "ae=gzip" {
		t.Errorf("HTTP/1.1: body %q, error %q; want ae=gzip as sent", r.Body, r.Error)
	}
	if r := get10(ts.URL+"/", 2*time.Second, true, h); string(r.Body) != "ae=gzip" {
		t.Errorf("HTTP/1.0: body %q, error %q; want ae=gzip", r.Body, r.Error)
	}
	if err := h.Set("no colon"); err == nil {
		t.Error("-H without a colon accepted")
	}
}
