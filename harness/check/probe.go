package check

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/verify"
)

// RuntimeMarker starts the line a target prints at start to say its
// runtime and version.
const RuntimeMarker = "runtime: "

// maxBody bounds what check reads of one answer.
const maxBody = 16 << 20

// Dialer opens one connection to the target, as the load generator's
// HTTP/1.1 connections are opened: over TCP, or over TLS offering ALPN
// http/1.1.
type Dialer func(ctx context.Context) (net.Conn, error)

// Plain dials addr over TCP.
func Plain(addr string) Dialer {
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
}

// TLS dials addr over TLS, trusting roots only and offering ALPN
// http/1.1.
func TLS(addr string, roots *x509.CertPool) Dialer {
	return func(ctx context.Context) (net.Conn, error) {
		d := tls.Dialer{Config: &tls.Config{RootCAs: roots, NextProtos: []string{"http/1.1"}}}
		return d.DialContext(ctx, "tcp", addr)
	}
}

// exchange writes a GET of path on conn and reads its answer whole.
func exchange(conn net.Conn, br *bufio.Reader, host, path string) (*http.Response, error) {
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: webbench-check\r\nAccept: */*\r\n\r\n", path, host)
	if _, err := io.WriteString(conn, req); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody)); err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	return resp, nil
}

// KeepAlive asks path twice on one connection: both must be answered,
// and the first answer must not announce the connection's close.
func KeepAlive(ctx context.Context, dial Dialer, host, path string, timeout time.Duration) Finding {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dial(ctx)
	if err != nil {
		return breach(RuleKeepAlive, "could not connect: %v", err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	br := bufio.NewReader(conn)
	first, err := exchange(conn, br, host, path)
	if err != nil {
		return breach(RuleKeepAlive, "GET %s got no answer: %v", path, err)
	}
	if first.Close {
		how := "Connection: close"
		if first.ProtoMajor == 1 && first.ProtoMinor == 0 {
			how = "HTTP/1.0 without keep-alive"
		}
		return breach(RuleKeepAlive, "the answer to GET %s over HTTP/1.1 said %s: every request would cost a new connection", path, how)
	}
	if _, err := exchange(conn, br, host, path); err != nil {
		return breach(RuleKeepAlive, "a second GET %s on the connection of the first got no answer (%v): the server closed it", path, err)
	}
	return pass(RuleKeepAlive, "two requests answered on one connection")
}

// Concurrency opens n connections at once, asks path on each and waits,
// with all of them open, until each is answered or timeout passes.
func Concurrency(ctx context.Context, dial Dialer, host, path string, n int, timeout time.Duration) Finding {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	errs := make([]error, n)
	conns := make([]net.Conn, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			conn, err := dial(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			conns[i] = conn // closed once every one is done: all stay open
			conn.SetDeadline(deadline)
			_, errs[i] = exchange(conn, bufio.NewReader(conn), host, path)
		})
	}
	wg.Wait()
	var failed []error
	for i := range n {
		if conns[i] != nil {
			conns[i].Close()
		}
		if errs[i] != nil {
			failed = append(failed, errs[i])
		}
	}
	if len(failed) > 0 {
		return breach(RuleConcurrency, "%d of %d connections opened at once were answered within %s while all stayed open (one connection served at a time, or a listen backlog shorter than the connections?); first failure: %v",
			n-len(failed), n, timeout, failed[0])
	}
	return pass(RuleConcurrency, "%d connections opened at once, all answered", n)
}

// Runtime finds the runtime line in what the target printed.
func Runtime(logs string) Finding {
	sc := bufio.NewScanner(strings.NewReader(logs))
	for sc.Scan() {
		v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), RuntimeMarker)
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if !strings.ContainsAny(v, "0123456789") {
			return breach(RuleRuntime, "the line %q names no version: want %s<name> <version>", clip(sc.Text(), 80), RuntimeMarker)
		}
		return pass(RuleRuntime, "%s", v)
	}
	first := clip(logs, 120)
	if first == "" {
		first = "nothing"
	}
	return breach(RuleRuntime, "no line \"%s<name> <version>\" in its output; it printed: %s", RuntimeMarker, first)
}

// Get asks url once, speaking protocol (http1, https, h2, h2c; over TLS
// trusting roots only), and returns the answer as verify reads it.
func Get(ctx context.Context, protocol, url string, roots *x509.CertPool, timeout time.Duration) verify.Response {
	tr := &http.Transport{DisableCompression: true, Protocols: new(http.Protocols)}
	defer tr.CloseIdleConnections()
	switch protocol {
	case cellid.ProtoH2C:
		tr.Protocols.SetUnencryptedHTTP2(true)
	case cellid.ProtoHTTPS:
		tr.Protocols.SetHTTP1(true)
		tr.TLSClientConfig = &tls.Config{RootCAs: roots, NextProtos: []string{"http/1.1"}}
	case cellid.ProtoH2:
		tr.Protocols.SetHTTP2(true)
		tr.TLSClientConfig = &tls.Config{RootCAs: roots, NextProtos: []string{"h2"}}
	default:
		tr.Protocols.SetHTTP1(true)
	}
	client := &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return verify.Response{Error: err.Error()}
	}
	resp, err := client.Do(req)
	if err != nil {
		var verr *tls.CertificateVerificationError
		if errors.As(err, &verr) {
			return verify.Response{Error: verify.VerificationFailed + ": " + err.Error()}
		}
		return verify.Response{Error: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	out := verify.Response{Status: resp.StatusCode, Header: resp.Header, Body: body, Negotiated: &results.Negotiated{HTTP: resp.Proto}}
	if err != nil {
		out.Error = "read body: " + err.Error()
	}
	if s := resp.TLS; s != nil {
		out.Negotiated.TLS = tls.VersionName(s.Version)
		out.Negotiated.Cipher = tls.CipherSuiteName(s.CipherSuite)
		out.Negotiated.ALPN = s.NegotiatedProtocol
		if len(s.PeerCertificates) > 0 {
			out.Negotiated.Subject = s.PeerCertificates[0].Subject.String()
		}
	}
	return out
}

// Speaks asks path at base in protocol and checks that the answer came in
// that protocol.
func Speaks(ctx context.Context, protocol, base, path string, roots *x509.CertPool, timeout time.Duration) Finding {
	r := Get(ctx, protocol, base+path, roots, timeout)
	if r.Error != "" {
		return breach(RuleProtocol, "%s: GET %s got no answer: %s", protocol, path, r.Error)
	}
	if problems := verify.Protocol(protocol, false, r); len(problems) > 0 {
		return breach(RuleProtocol, "%s: %s", protocol, strings.Join(problems, "; "))
	}
	n := r.Negotiated
	seen := n.HTTP
	if n.TLS != "" {
		seen += ", " + n.TLS
	}
	if n.ALPN != "" {
		seen += ", ALPN " + n.ALPN
	}
	return pass(RuleProtocol, "%s: answered in %s", protocol, seen)
}

// Scenario asks every path of sc, one per combination of its params'
// values, at base in protocol, and checks each answer against sc's
// expectation: one finding per path.
func Scenario(ctx context.Context, protocol, base string, sc matrix.Scenario, roots *x509.CertPool, timeout time.Duration) []Finding {
	var out []Finding
	for _, kvs := range combinations(sc.Params) {
		c := matrix.Cell{Scenario: sc.Name, Params: kvs}
		path := c.Subst(sc.Path)
		what := fmt.Sprintf("%s GET %s (%s)", sc.Name, path, protocol)
		problems, warnings := verify.Check(sc.Expect, Get(ctx, protocol, base+path, roots, timeout), c.Subst)
		switch {
		case len(problems) > 0:
			out = append(out, breach(RuleScenario, "%s: %s", what, strings.Join(problems, "; ")))
		case len(warnings) > 0:
			out = append(out, pass(RuleScenario, "%s: as expected (note: %s)", what, strings.Join(warnings, ", ")))
		default:
			out = append(out, pass(RuleScenario, "%s: as expected", what))
		}
	}
	return out
}

// combinations are every choice of one value per param, in file order;
// one empty choice for none.
func combinations(params []matrix.Param) [][]matrix.KV {
	out := [][]matrix.KV{nil}
	for _, p := range params {
		var next [][]matrix.KV
		for _, prefix := range out {
			for _, v := range p.Values {
				next = append(next, append(append([]matrix.KV(nil), prefix...), matrix.KV{Name: p.Name, Value: v}))
			}
		}
		out = next
	}
	return out
}
