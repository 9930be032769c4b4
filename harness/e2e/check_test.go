package e2e

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/webbench/webbench/harness/check"
	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/engine"
)

// brokenServer breaks three rules at once: it answers in HTTP/1.0 and
// closes every connection (keep-alive), listens with socketserver's
// backlog of 5 (backlog) and prints no runtime line (runtime). At start it
// tries to reach a listener of the host's loopback, at HOST_PORT.
const brokenServer = `import os, socket
from http.server import BaseHTTPRequestHandler, HTTPServer

try:
    socket.create_connection(("127.0.0.1", int(os.environ["HOST_PORT"])), timeout=2).close()
except OSError:
    pass

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"Hello, World!"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

HTTPServer(("", int(os.environ["PORT"])), Handler).serve_forever()
`

// TestCheck runs harness check on the real engine against the python
// target harness new writes (no breach) and against a broken one (the
// breaches of the rules it breaks), which does not reach a listener of the
// host's loopback (check runs it on a network of its own, as a run does),
// and leaves no container or network behind.
func TestCheck(t *testing.T) {
	eng := connect(t)
	hostPort, reached := loopbackListener(t)
	dir := t.TempDir()
	targets := filepath.Join(dir, "targets")
	matrixFile := filepath.Join(dir, "matrix.yaml")
	if code, _ := runCLI(context.Background(), t, "new", "fine", "--lang", "python", "--dir", targets, "-f", matrixFile); code != cli.ExitOK {
		t.Fatalf("new: exit %d", code)
	}
	broken := filepath.Join(targets, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	dockerfile, err := os.ReadFile(filepath.Join(targets, "fine", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"Dockerfile": dockerfile, "server.py": []byte(brokenServer)} {
		if err := os.WriteFile(filepath.Join(broken, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := "version: 1\nimages:\n  python: python:3.12-slim-bookworm\nload: {duration: 1s, warmup: 0s, trials: 1}\nconnections: [16]\ntargets:\n" +
		"  fine:\n    build: targets/fine\n    port: 8080\n    scenarios: [plaintext]\n" +
		"  broken:\n    build: targets/broken\n    port: 8080\n    scenarios: [plaintext]\n    env: {HOST_PORT: \"" + strconv.Itoa(hostPort) + "\"}\n" +
		"scenarios:\n  plaintext:\n    path: /plaintext\n    expect: {status: 200, content_type: text/plain, body: \"Hello, World!\"}\n"
	if err := os.WriteFile(matrixFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := runCLI(context.Background(), t, "check", "-f", matrixFile, "--no-pull", "--timeout", "5s", filepath.Join(targets, "fine"))
	if code != cli.ExitOK || len(breachesIn(out)) > 0 {
		t.Errorf("check of the python template: exit %d, breaches %v", code, breachesIn(out))
	}
	code, out = runCLI(context.Background(), t, "check", "-f", matrixFile, "--no-pull", "--timeout", "5s", broken)
	got := breachesIn(out)
	for _, rule := range []string{check.RuleKeepAlive, check.RuleBacklog, check.RuleRuntime} {
		if !slices.Contains(got, rule) {
			t.Errorf("check of the broken target: no %s breach among %v", rule, got)
		}
	}
	if code != cli.ExitFailed {
		t.Errorf("check of the broken target: exit %d, want %d", code, cli.ExitFailed)
	}
	if n := reached.Load(); n > 0 || strings.Contains(out, "on the host's network") {
		t.Errorf("the checked target reached a listener of the host's loopback %d time(s); check said:\n%s", n, out)
	}
	left, err := eng.List(context.Background(), engine.LabelRun+"=check-"+strconv.Itoa(os.Getpid()))
	if err != nil || len(left) > 0 {
		t.Errorf("check left behind: %v %v", left, err)
	}
}

// loopbackListener listens on the host's loopback and counts the
// connections it accepts.
func loopbackListener(t *testing.T) (int, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, &n
}

// breachesIn are the rules of the breach lines check printed.
func breachesIn(out string) []string {
	var rules []string
	for _, m := range regexp.MustCompile(`(?m)^breach ([a-z-]+):`).FindAllStringSubmatch(out, -1) {
		rules = append(rules, m[1])
	}
	return rules
}
