package check

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/matrix"
)

// perRequest serves each request of a connection with answer(n), n
// counting the connection's requests from 1, until the client closes it.
func perRequest(answer func(n int) string) func(net.Conn) {
	return func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for n := 1; ; n++ {
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			if _, err := io.WriteString(c, answer(n)); err != nil {
				return
			}
		}
	}
}

const okAnswer = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!"

// TestKeepAliveUnderLoad holds the keep-alive rule to servers that answer
// one request well and fail the next, or send what nobody asked for.
func TestKeepAliveUnderLoad(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer func(n int) string
		seen   string // in the finding
	}{
		{"500 on every second request", func(n int) string {
			if n%2 == 0 {
				return "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\noops!"
			}
			return okAnswer
		}, "a second GET / on one connection: status 500, want 200"},
		{"an unsolicited 500 after each answer", func(int) string {
			return okAnswer + "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
		}, "an answer nobody asked for followed it"},
		{"a Content-Length shorter than the body", func(int) string {
			return "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nHello, World!"
		}, "more bytes than its Content-Length of 5 followed it"},
		{"Connection: close on the second answer only", func(n int) string {
			if n == 2 {
				return "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!"
			}
			return okAnswer
		}, "a second GET / over HTTP/1.1 said Connection: close"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := KeepAlive(context.Background(), Plain(rawServer(t, perRequest(c.answer), false)), ask, timeout)
			want(t, f, RuleKeepAlive, false)
			if !strings.Contains(f.Seen, c.seen) {
				t.Errorf("want %q in: %s", c.seen, f)
			}
		})
	}
	// The server that answers well, for comparison.
	want(t, KeepAlive(context.Background(), Plain(rawServer(t, perRequest(func(int) string { return okAnswer }), false)), ask, timeout), RuleKeepAlive, true)
}

// TestBodyMessages: a body without end and a connection closed short of
// the Content-Length each read as what they are, not as a closed
// connection on the next request.
func TestBodyMessages(t *testing.T) {
	endless := rawServer(t, func(c net.Conn) {
		defer c.Close()
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
		chunk := fmt.Sprintf("%x\r\n%s\r\n", 1<<16, strings.Repeat("v", 1<<16))
		for range (maxBody >> 16) + 2 { // past what check reads, and no last chunk
			if _, err := io.WriteString(c, chunk); err != nil {
				return
			}
		}
		io.Copy(io.Discard, c) // open until the client closes it
	}, false)
	// 16 MiB must arrive before the time runs out for the body to read as
	// endless rather than slow: a loaded machine (CI, the end-to-end tests
	// beside it) took more than the usual bound, so this one is generous.
	f := KeepAlive(context.Background(), Plain(endless), ask, 10*timeout)
	want(t, f, RuleKeepAlive, false)
	if !strings.Contains(f.Seen, "its body went on past the 16 MiB check reads") {
		t.Errorf("an endless chunked body: %s", f)
	}

	short := rawServer(t, func(c net.Conn) {
		defer c.Close()
		if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nHello, World!")
		}
	}, false)
	f = KeepAlive(context.Background(), Plain(short), ask, timeout)
	want(t, f, RuleKeepAlive, false)
	if !strings.Contains(f.Seen, "closed the connection after 13 of the 100 bytes its Content-Length announced") {
		t.Errorf("a body short of its Content-Length: %s", f)
	}
}

// flood answers every request with a header that goes on for size bytes,
// then closes; it counts in wrote what it managed to send.
func flood(size int) func(net.Conn) {
	return func(c net.Conn) {
		defer c.Close()
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Long: ")
		line := strings.Repeat("v", 1<<16)
		for range size >> 16 {
			if _, err := io.WriteString(c, line); err != nil {
				return
			}
		}
	}
}

// TestHeaderFlood: a server whose headers do not end breaks the headers
// rule in every probe, which reads no more than maxHeader of them.
func TestHeaderFlood(t *testing.T) {
	addr := rawServer(t, flood(8<<20), false)
	want(t, KeepAlive(context.Background(), Plain(addr), ask, timeout), RuleHeaders, false)
	want(t, Concurrency(context.Background(), Plain(addr), ask, 4, timeout), RuleHeaders, false)
	sc := matrix.Scenario{Name: "plaintext", Path: "/", Expect: ask.Expect}
	fs := Scenario(context.Background(), nil, "http1", "http://"+addr, sc, nil, timeout)
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	want(t, fs[0], RuleHeaders, false)
	want(t, Speaks(context.Background(), nil, "http1", "http://"+addr, "/", nil, timeout), RuleHeaders, false)

	// Headers that end within the bound are no breach.
	long := rawServer(t, perRequest(func(int) string {
		return "HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("v", 8<<10) + "\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!"
	}), false)
	want(t, KeepAlive(context.Background(), Plain(long), ask, timeout), RuleKeepAlive, true)
	if !strings.Contains(Rules[len(Rules)-3].Text, fmt.Sprintf("%d KiB", maxHeader>>10)) {
		t.Errorf("the headers rule's text does not say %d KiB: %s", maxHeader>>10, Rules[len(Rules)-3].Text)
	}
}

// TestConcurrencyStatus: answers under concurrent connections are held to
// the expected status, not only to arriving.
func TestConcurrencyStatus(t *testing.T) {
	busy := rawServer(t, perRequest(func(int) string {
		return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n"
	}), false)
	f := Concurrency(context.Background(), Plain(busy), ask, 4, timeout)
	want(t, f, RuleConcurrency, false)
	if !strings.Contains(f.Seen, "status 503, want 200") {
		t.Errorf("want the status named: %s", f)
	}
}
