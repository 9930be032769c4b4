package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// overTLS is a matrix of real targets over HTTPS, HTTP/2 over TLS and
// cleartext HTTP/2, each measured by h2load and bombardier where they speak
// the protocol, and a server whose certificate another authority signed.
// wrk over HTTPS, with its ceiling, is TestTwoEngines' (across two
// engines); which protocols each generator refuses is harness/loadgen's
// TestProtocolCommands.
const overTLS = `version: 1
images: {debian: debian:bookworm-slim, golang: golang:1.26-bookworm, node: node:22-bookworm-slim, nginx: nginx:1.27-bookworm}
network: bridge
load: {duration: 1s, warmup: 0s, trials: 1, timeout: 2s}
connections: [8]
protocol: [https, h2, h2c]
generator: [h2load, bombardier]
targets:
  go-nethttp: {build: ROOT/targets/go-nethttp, port: 8080, protocols: [http1, https, h2, h2c]}
  node-http: {build: ROOT/targets/node-http, port: 8080, protocols: [http1, https, h2]}
  fastcgi-go:
    services:
      backend: {build: ROOT/targets/fastcgi/go-fcgi, replicas: 2, port: 9000}
      nginx: {build: ROOT/targets/fastcgi/nginx}
    entry: nginx
    port: 80
    protocols: [http1, https, h2]
  foreign: {build: ROOT/harness/e2e/testdata/misbehave, port: 8080, env: {MODE: foreign-cert}, protocols: [https]}
scenarios:
  plaintext:
    path: /plaintext
    expect: {status: 200, body: "Hello, World!"}
`

// Real targets are measured over HTTPS, h2 and h2c with the run's
// throwaway certificate, verified by the probe against the run's
// authority; each cell records what was negotiated; the generators that
// cannot speak a protocol skip its cells, naming it; each (protocol,
// generator) has its ceiling against the fixed-response server speaking
// that protocol; a server presenting another authority's certificate fails
// its cell naming the certificate's subject; and the key is in no file the
// run writes.
func TestProtocols(t *testing.T) {
	eng := connect(t)
	file := writeRooted(t, overTLS)
	out := t.TempDir()
	runCLI(context.Background(), t, "run", "-f", file, "--out", out, "--only", "go-nethttp,node-http,fastcgi-go,foreign")
	noLeftovers(t, eng)
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	cells := cellsByID(run)
	for _, c := range []struct{ id, http, alpn string }{
		{"go-nethttp/plaintext/1cpu/c8/https", "HTTP/1.1", "http/1.1"},
		{"go-nethttp/plaintext/1cpu/c8/h2load/https", "HTTP/1.1", "http/1.1"},
		{"go-nethttp/plaintext/1cpu/c8/h2load/h2", "HTTP/2.0", "h2"},
		{"go-nethttp/plaintext/1cpu/c8/h2load/h2c", "HTTP/2.0", ""},
		{"node-http/plaintext/1cpu/c8/https", "HTTP/1.1", "http/1.1"},
		{"node-http/plaintext/1cpu/c8/h2load/h2", "HTTP/2.0", "h2"},
		{"fastcgi-go/plaintext/1cpu/c8/https", "HTTP/1.1", "http/1.1"},
		{"fastcgi-go/plaintext/1cpu/c8/h2load/h2", "HTTP/2.0", "h2"},
	} {
		cell := cells[c.id]
		if cell == nil || cell.Status != results.OK || cell.Summary == nil || cell.Summary.RPS <= 0 {
			t.Errorf("%s: %+v", c.id, cell)
			continue
		}
		n := cell.Negotiated
		if n == nil || n.HTTP != c.http || n.ALPN != c.alpn || (c.alpn != "") != (n.TLS != "") {
			t.Errorf("%s: negotiated %+v", c.id, n)
		} else if c.alpn != "" && (n.Cipher == "" || !strings.Contains(n.Subject, "webbench target")) {
			t.Errorf("%s: negotiated %+v", c.id, n)
		}
		t.Logf("%s: %.0f rps, %+v", c.id, cell.Summary.RPS, *n)
	}
	for id, want := range map[string]string{
		"go-nethttp/plaintext/1cpu/c8/h2":  "bombardier does not speak h2",
		"go-nethttp/plaintext/1cpu/c8/h2c": "bombardier does not speak h2c",
	} {
		if c := cells[id]; c == nil || c.Status != results.Skipped || !strings.Contains(c.Reason, want) {
			t.Errorf("%s: %+v, want skipped: %s", id, c, want)
		}
	}
	foreign := cells["foreign/plaintext/1cpu/c8/https"]
	if foreign == nil || foreign.Status != results.Failed || !strings.Contains(foreign.Reason, "certificate verification failed") ||
		!strings.Contains(foreign.Reason, "misbehave foreign") {
		t.Errorf("a certificate of another authority: %+v", foreign)
	}
	seen := map[string]bool{}
	for _, ce := range run.Ceilings {
		if ce.Error != "" || ce.RPS <= 0 {
			t.Errorf("ceiling %+v", ce)
		}
		seen[ce.GeneratorName()+"/"+ce.Protocol] = true
	}
	for _, k := range []string{"h2load/https", "h2load/h2", "h2load/h2c", "bombardier/https"} {
		if !seen[k] {
			t.Errorf("no ceiling for %s: %v", k, seen)
		}
	}
	// No key in what the run wrote.
	filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), "PRIVATE KEY") {
				t.Errorf("%s holds a private key", path)
			}
		}
		return nil
	})
}
