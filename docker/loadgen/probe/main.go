// Command probe makes one HTTP GET and prints what came back as JSON on
// stdout: {"status", "header", "body" (base64), "wire_bytes", "error"}; with
// -tcp it only opens a TCP connection. Like bombardier it follows no
// redirect, asks for no compression, and keeps the connection alive unless
// told -close (then it sends Connection: close, as bombardier does with
// keep-alive off); wire_bytes counts what it read off the connection
// (status line, headers, body framing), the figure bombardier's bytes read
// per response compares with, so the request must be asked the same way:
// servers answer Connection: close with other headers than keep-alive. It runs inside the
// load generator's container, so the harness checks a target from exactly
// where bombardier will load it, on any Docker host. It always exits 0 when
// it could print a result; "error" says when there was no answer.
//
// -H "Name: value" (repeatable) sends a request header, as the load
// generators' -H does: a scenario's headers, so that the answer verified is
// the one loaded (the probe still decodes nothing: a gzip body is printed
// as it came).
//
// -http10 asks as ApacheBench does: an HTTP/1.0 request line, and
// Connection: Keep-Alive unless -close. Servers frame their answers to it
// otherwise (no chunking; a close-delimited body, another Connection
// header), so the size ab's bytes are held to must come from such a request.
//
// -proto says what it speaks: http1 (the default), https (HTTP/1.1 over
// TLS, ALPN http/1.1), h2 (HTTP/2 over TLS, ALPN h2) or h2c (cleartext
// HTTP/2 with prior knowledge). Over TLS it trusts only the authority in
// -ca (the run's throwaway one) and verifies the chain and the URL's host
// against it; "negotiated" reports the answer's protocol and, over TLS, the
// version, the cipher suite, the ALPN protocol and the verified
// certificate's subject. A failed verification names the subject and the
// issuer of the certificate the server sent. wire_bytes is counted over
// HTTP/1.1 only, on the plaintext side of TLS (HTTP/2 compresses headers
// per connection: one answer's size says nothing of the next one's).
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/webbench/webbench/docker/loadgen/internal/wire"
)

type response struct {
	Status     int         `json:"status"`
	Header     http.Header `json:"header"`
	Body       []byte      `json:"body"`
	WireBytes  int64       `json:"wire_bytes"`
	Negotiated *negotiated `json:"negotiated,omitempty"`
	Error      string      `json:"error,omitempty"`
	// ClosedAfter: the server closed the connection after its answer to
	// an HTTP/1.0 keep-alive request (-http10), so ab -k, which then
	// reads each answer to the close, does not wait for one that never
	// comes.
	ClosedAfter bool `json:"closed_after,omitempty"`
}

type negotiated struct {
	HTTP    string `json:"http"`
	TLS     string `json:"tls,omitempty"`
	Cipher  string `json:"cipher,omitempty"`
	ALPN    string `json:"alpn,omitempty"`
	Subject string `json:"cert_subject,omitempty"`
}

func main() {
	timeout := flag.Duration("timeout", 2*time.Second, "whole-request timeout")
	tcp := flag.Bool("tcp", false, "only open a TCP connection to HOST:PORT (for services that do not speak HTTP)")
	closeConn := flag.Bool("close", false, "send Connection: close (bombardier with keep-alive off) instead of keeping the connection alive")
	proto := flag.String("proto", "http1", "http1, https, h2 or h2c")
	caFile := flag.String("ca", "", "PEM file of the only authority trusted over TLS")
	http10 := flag.Bool("http10", false, "ask with an HTTP/1.0 request line, as ab does (cleartext http1 only)")
	var headers headerFlag
	flag.Var(&headers, "H", `a request header "Name: value" (repeatable)`)
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: probe [-timeout 2s] [-close] [-http10] URL | probe -tcp HOST:PORT")
		os.Exit(2)
	}
	var out response
	switch {
	case *tcp:
		out = dial(flag.Arg(0), *timeout)
	case *http10 && *proto != "http1":
		fmt.Fprintln(os.Stderr, "probe: -http10 speaks cleartext HTTP/1.0 only, not -proto", *proto)
		os.Exit(2)
	case *http10:
		out = get10(flag.Arg(0), *timeout, *closeConn, headers)
	default:
		c, err := client(*proto, *caFile, *timeout, *closeConn)
		if err != nil {
			fmt.Fprintln(os.Stderr, "probe:", err)
			os.Exit(2)
		}
		out = c.get(flag.Arg(0), headers)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		os.Exit(1)
	}
}

// get10 makes one GET as ab writes it (HTTP/1.0; Host, User-Agent and
// Accept as ab sends them; Connection: Keep-Alive as ab -k does) on a
// connection of its own, and reads one answer. net/http's client writes
// HTTP/1.1 only, hence the request written here by hand; the answer is
// read by net/http.
func get10(rawURL string, timeout time.Duration, closeConn bool, headers headerFlag) response {
	u, err := url.Parse(rawURL)
	if err != nil {
		return response{Error: err.Error()}
	}
	if u.Scheme != "http" {
		return response{Error: fmt.Sprintf("-http10 speaks cleartext http, not %s", u.Scheme)}
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return response{Error: err.Error()}
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	keepAlive := "Connection: Keep-Alive\r\n"
	if closeConn {
		keepAlive = ""
	}
	var extra strings.Builder
	for _, h := range headers {
		extra.WriteString(h.name + ": " + h.value + "\r\n")
	}
	req := fmt.Sprintf("GET %s HTTP/1.0\r\n%sHost: %s\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n%s\r\n", u.RequestURI(), keepAlive, u.Host, extra.String())
	if _, err := io.WriteString(conn, req); err != nil {
		return response{Error: err.Error()}
	}
	var read atomic.Int64
	br := bufio.NewReader(wire.CountingConn{Conn: conn, N: &read})
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return response{Error: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return response{Status: resp.StatusCode, Header: resp.Header, Error: "read body: " + err.Error()}
	}
	out := response{Status: resp.StatusCode, Header: resp.Header, Body: body, WireBytes: read.Load(),
		Negotiated: &negotiated{HTTP: resp.Proto}}
	if !closeConn {
		out.ClosedAfter = closedAfter(conn, br)
	}
	return out
}

// closedAfter says whether the server closed conn after its answer: an end
// of stream within a short wait, rather than silence.
func closedAfter(conn net.Conn, br *bufio.Reader) bool {
	conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	_, err := br.ReadByte()
	return errors.Is(err, io.EOF)
}

func dial(addr string, timeout time.Duration) response {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return response{Error: err.Error()}
	}
	c.Close()
	return response{}
}

// prober is an HTTP client that speaks one protocol and remembers what the
// last TLS handshake agreed.
type prober struct {
	http  *http.Client
	read  atomic.Int64
	state *tls.ConnectionState
}

func client(proto, caFile string, timeout time.Duration, closeConn bool) (*prober, error) {
	p := &prober{}
	dialer := &net.Dialer{Timeout: timeout}
	count := func(conn net.Conn) net.Conn { return wire.CountingConn{Conn: conn, N: &p.read} }
	tr := &http.Transport{
		DisableCompression: true,
		DisableKeepAlives:  closeConn, // true sends Connection: close
		Protocols:          new(http.Protocols),
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := dialer.DialContext(ctx, network, addr)
			if err != nil || proto != "http1" {
				return conn, err
			}
			return count(conn), nil
		},
	}
	switch proto {
	case "http1":
		tr.Protocols.SetHTTP1(true)
	case "h2c":
		tr.Protocols.SetUnencryptedHTTP2(true)
	case "https", "h2":
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("-proto %s needs -ca: %w", proto, err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no certificate", caFile)
		}
		cfg := &tls.Config{RootCAs: roots, NextProtos: []string{"http/1.1"}}
		if proto == "h2" {
			cfg.NextProtos = []string{"h2"}
			tr.Protocols.SetHTTP2(true)
			tr.TLSClientConfig = cfg
			tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				conn, err := (&tls.Dialer{NetDialer: dialer, Config: cfg}).DialContext(ctx, network, addr)
				if err == nil {
					st := conn.(*tls.Conn).ConnectionState()
					p.state = &st
				}
				return conn, err
			}
			break
		}
		// HTTP/1.1 over TLS: bytes are counted on the plaintext side.
		tr.Protocols.SetHTTP1(true)
		tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := (&tls.Dialer{NetDialer: dialer, Config: cfg}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			st := conn.(*tls.Conn).ConnectionState()
			p.state = &st
			return count(conn), nil
		}
	default:
		return nil, fmt.Errorf("-proto %q: want http1, https, h2 or h2c", proto)
	}
	p.http = &http.Client{Timeout: timeout, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return p, nil
}

func (p *prober) get(url string, headers headerFlag) response {
	defer p.http.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return response{Error: err.Error()}
	}
	for _, h := range headers {
		req.Header.Add(h.name, h.value)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return response{Error: describe(err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return response{Status: resp.StatusCode, Header: resp.Header, Error: "read body: " + err.Error()}
	}
	out := response{Status: resp.StatusCode, Header: resp.Header, Body: body, WireBytes: p.read.Load(),
		Negotiated: &negotiated{HTTP: resp.Proto}}
	if st := p.state; st != nil {
		out.Negotiated.TLS = tls.VersionName(st.Version)
		out.Negotiated.Cipher = tls.CipherSuiteName(st.CipherSuite)
		out.Negotiated.ALPN = st.NegotiatedProtocol
		if len(st.PeerCertificates) > 0 {
			out.Negotiated.Subject = st.PeerCertificates[0].Subject.String()
		}
	}
	return out
}

// describe says what failed; a certificate the run's authority did not
// sign, or one for another name, is named by its subject and issuer. The
// harness reads the prefix "certificate verification failed" as a server
// that is up and untrusted.
func describe(err error) string {
	var verr *tls.CertificateVerificationError
	if !errors.As(err, &verr) || len(verr.UnverifiedCertificates) == 0 {
		return err.Error()
	}
	leaf := verr.UnverifiedCertificates[0]
	why := "is not valid"
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	switch {
	case errors.As(err, &unknown):
		why = "is not signed by the run's authority"
	case errors.As(err, &host):
		why = "does not name " + host.Host
	}
	return fmt.Sprintf("certificate verification failed: the server's certificate (subject %q, issuer %q) %s: %v", leaf.Subject, leaf.Issuer, why, err)
}

// headerFlag is the repeatable -H "Name: value".
type headerFlag []struct{ name, value string }

func (h *headerFlag) String() string { return fmt.Sprint(*h) }

func (h *headerFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("want Name: value, got %q", s)
	}
	*h = append(*h, struct{ name, value string }{strings.TrimSpace(name), strings.TrimSpace(value)})
	return nil
}
