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

// DialFunc opens a connection as net.Dialer's DialContext does: check's
// opens it in the target's network namespace. Nil is net.Dialer's.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (d DialFunc) orDefault() DialFunc {
	if d != nil {
		return d
	}
	var nd net.Dialer
	return nd.DialContext
}

// Plain dials addr over TCP.
func Plain(addr string) Dialer { return PlainVia(nil, addr) }

// PlainVia dials addr over TCP with dial.
func PlainVia(dial DialFunc, addr string) Dialer {
	return func(ctx context.Context) (net.Conn, error) {
		return dial.orDefault()(ctx, "tcp", addr)
	}
}

// TLS dials addr over TLS, trusting roots only and offering ALPN
// http/1.1.
func TLS(addr string, roots *x509.CertPool) Dialer { return TLSVia(nil, addr, roots) }

// TLSVia dials addr with dial, then speaks TLS as TLS does.
func TLSVia(dial DialFunc, addr string, roots *x509.CertPool) Dialer {
	return func(ctx context.Context) (net.Conn, error) {
		raw, err := dial.orDefault()(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		host, _, _ := net.SplitHostPort(addr)
		conn := tls.Client(raw, &tls.Config{RootCAs: roots, ServerName: host, NextProtos: []string{"http/1.1"}})
		if err := conn.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, err
		}
		return conn, nil
	}
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

// Get asks url once with dial, speaking protocol (http1, https, h2, h2c;
// over TLS trusting roots only), and returns the answer as verify reads
// it.
func Get(ctx context.Context, dial DialFunc, protocol, url string, roots *x509.CertPool, timeout time.Duration) verify.Response {
	return GetWith(ctx, dial, protocol, url, nil, roots, timeout)
}

// GetWith is Get sending headers ("Name: value"), a scenario's.
func GetWith(ctx context.Context, dial DialFunc, protocol, url string, headers []string, roots *x509.CertPool, timeout time.Duration) verify.Response {
	tr := &http.Transport{DisableCompression: true, Protocols: new(http.Protocols), MaxResponseHeaderBytes: maxHeader, DialContext: dial.orDefault()}
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
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ":")
		req.Header.Add(name, strings.TrimSpace(value))
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

// endlessHeaders says whether a Transport's error is its refusal of
// headers longer than MaxResponseHeaderBytes (net/http says so in words
// only).
func endlessHeaders(err string) bool {
	return strings.Contains(err, "response headers exceeded")
}

// Speaks asks path at base in protocol and checks that the answer came in
// that protocol.
func Speaks(ctx context.Context, dial DialFunc, protocol, base, path string, roots *x509.CertPool, timeout time.Duration) Finding {
	r := Get(ctx, dial, protocol, base+path, roots, timeout)
	if r.Error != "" {
		if endlessHeaders(r.Error) {
			return breach(RuleHeaders, "%s: the answer to GET %s: %v", protocol, path, errHeaders)
		}
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
// expectation: one finding per path. A TechEmpower database test is asked
// further as TFB asks it (verify.FollowUp: DateGap more per path), and a
// workload scenario as its rules ask (verify.Workload).
func Scenario(ctx context.Context, dial DialFunc, protocol, base string, sc matrix.Scenario, roots *x509.CertPool, timeout time.Duration) []Finding {
	var out []Finding
	for _, kvs := range combinations(sc.Params) {
		c := matrix.Cell{Key: cellid.Key{Scenario: sc.Name, Params: kvs}}
		path := c.Subst(sc.Path)
		what := fmt.Sprintf("%s GET %s (%s)", sc.Name, path, protocol)
		r := GetWith(ctx, dial, protocol, base+path, sc.HeaderLines(), roots, timeout)
		problems, warnings := verify.Check(sc.Expect, r, c.Subst)
		if len(problems) == 0 && r.Error == "" {
			ask := func(ctx context.Context, url string, headers []string) (verify.Response, error) {
				return GetWith(ctx, dial, protocol, url, headers, roots, timeout), nil
			}
			get := func(ctx context.Context, url string) (verify.Response, error) { return ask(ctx, url, sc.HeaderLines()) }
			more, err := verify.FollowUp{Get: get}.Check(ctx, sc, c, base+path, r)
			if err == nil && len(more) == 0 {
				more, err = verify.Workload{Ask: ask}.Check(ctx, sc, base+path, r)
			}
			problems = append(problems, verify.Texts(more)...)
			if err != nil {
				problems = append(problems, err.Error())
			}
		}
		switch {
		case endlessHeaders(r.Error):
			out = append(out, breach(RuleHeaders, "%s: %v", what, errHeaders))
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
