package check

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/certs"
	"github.com/webbench/webbench/harness/matrix"
)

// timeout bounds each check in these tests; no test asserts a time.
const timeout = 3 * time.Second

func hello(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, "Hello, World!")
}

func addrOf(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }

// want fails unless f is about rule and is a breach (ok false) or not.
func want(t *testing.T, f Finding, rule string, ok bool) {
	t.Helper()
	if f.Rule != rule || f.OK != ok {
		t.Errorf("got %s, want rule %s ok=%v", f, rule, ok)
	}
}

// helloBody is what hello answers.
var helloBody = "Hello, World!"

// ask is a GET of / answered as hello answers.
var ask = Ask{Host: "x", Path: "/", Expect: matrix.Expect{Status: 200, ContentType: "text/plain", Body: &helloBody}}

func TestKeepAlive(t *testing.T) {
	good := httptest.NewServer(http.HandlerFunc(hello))
	defer good.Close()
	want(t, KeepAlive(context.Background(), Plain(addrOf(good)), ask, timeout), RuleKeepAlive, true)

	// A server that answers Connection: close to every request.
	closing := httptest.NewUnstartedServer(http.HandlerFunc(hello))
	closing.Config.SetKeepAlivesEnabled(false)
	closing.Start()
	defer closing.Close()
	want(t, KeepAlive(context.Background(), Plain(addrOf(closing)), ask, timeout), RuleKeepAlive, false)

	// One that says nothing and closes the connection after one answer.
	silent := rawServer(t, func(c net.Conn) {
		defer c.Close()
		if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nHello, World!")
		}
	}, false)
	want(t, KeepAlive(context.Background(), Plain(silent), ask, timeout), RuleKeepAlive, false)
}

// rawServer serves each accepted connection with serve: one at a time
// (serial), or each on its own goroutine. It returns its address.
func rawServer(t *testing.T, serve func(net.Conn), serial bool) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if serial {
				serve(c)
			} else {
				go serve(c)
			}
		}
	}()
	return l.Addr().String()
}

// keepAliveConn answers every request on c until the client closes it.
func keepAliveConn(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!")
	}
}

func TestConcurrency(t *testing.T) {
	good := httptest.NewServer(http.HandlerFunc(hello))
	defer good.Close()
	want(t, Concurrency(context.Background(), Plain(addrOf(good)), ask, 16, timeout), RuleConcurrency, true)

	// A server that serves one connection at a time, keeping it alive:
	// the first connection is answered, the others wait.
	serial := rawServer(t, keepAliveConn, true)
	f := Concurrency(context.Background(), Plain(serial), ask, 4, timeout)
	want(t, f, RuleConcurrency, false)
	if !strings.HasPrefix(f.Seen, "1 of 4 ") {
		t.Errorf("want one of four answered: %s", f)
	}
	// The same server on one connection: nothing to see.
	want(t, Concurrency(context.Background(), Plain(serial), ask, 1, timeout), RuleConcurrency, true)
}

func TestRuntime(t *testing.T) {
	for _, c := range []struct {
		logs string
		ok   bool
	}{
		{"runtime: python 3.12.1\n", true},
		{"starting\nruntime: go1.26.8\nlistening\n", true},
		{"  runtime: node v22.11.0  \n", true},
		{"runtime: python\n", false},       // no version
		{"Runtime = python 3.12\n", false}, // not the marker
		{"", false},
	} {
		f := Runtime(c.logs)
		if f.Rule != RuleRuntime || f.OK != c.ok {
			t.Errorf("Runtime(%q) = %s, want ok=%v", c.logs, f, c.ok)
		}
	}
}

func TestScenario(t *testing.T) {
	body := "Hello, World!"
	sc := matrix.Scenario{Name: "plaintext", Path: "/plaintext", Expect: matrix.Expect{Status: 200, ContentType: "text/plain", Body: &body}}
	good := httptest.NewServer(http.HandlerFunc(hello))
	defer good.Close()
	fs := Scenario(context.Background(), nil, "http1", good.URL, sc, nil, timeout)
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	want(t, fs[0], RuleScenario, true)

	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "Hello")
	}))
	defer wrong.Close()
	fs = Scenario(context.Background(), nil, "http1", wrong.URL, sc, nil, timeout)
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	want(t, fs[0], RuleScenario, false)

	// One finding per value of each param, the path substituted.
	var paths []string
	params := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		hello(w, r)
	}))
	defer params.Close()
	sc.Path = "/p/{a}/{b}"
	sc.Params = []matrix.Param{{Name: "a", Values: []string{"1", "2"}}, {Name: "b", Values: []string{"x", "y"}}}
	fs = Scenario(context.Background(), nil, "http1", params.URL, sc, nil, timeout)
	if len(fs) != 4 || strings.Join(paths, " ") != "/p/1/x /p/1/y /p/2/x /p/2/y" {
		t.Errorf("%d findings for paths %v, want 4 for /p/{1,2}/{x,y}", len(fs), paths)
	}
}

// TestScenarioTFB: a TechEmpower database scenario is asked further as
// TFB asks it, at each of its values of the queries parameter, then again
// for a fresh Date; a server that does not clamp 501 to 500 breaches the
// scenario rule there, naming TFB's count rule.
func TestScenarioTFB(t *testing.T) {
	sc := matrix.Scenario{Name: "queries", Path: "/queries?queries={queries}", Params: []matrix.Param{{Name: "queries", Values: []string{"20"}}},
		Expect: matrix.Expect{Status: 200, ContentType: "application/json", TFB: &matrix.TFB{Test: matrix.TFBQueries, Queries: "{queries}"}}}
	for _, clamp := range []bool{true, false} {
		var asked []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked = append(asked, r.URL.RawQuery)
			n, err := strconv.Atoi(r.URL.Query().Get("queries"))
			switch {
			case err != nil:
				n = 1
			case clamp || n < 1:
				n = min(max(n, 1), 500)
			}
			w.Header().Set("Server", "test")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "["+strings.TrimSuffix(strings.Repeat(`{"id":1,"randomNumber":2},`, n), ",")+"]")
		}))
		fs := Scenario(context.Background(), nil, "http1", srv.URL, sc, nil, timeout)
		srv.Close()
		if len(fs) != 1 {
			t.Fatalf("%d findings, want 1", len(fs))
		}
		want(t, fs[0], RuleScenario, clamp)
		if !clamp && !strings.Contains(fs[0].Seen, "count: queries?queries=501: 501 rows, want 500") {
			t.Errorf("finding %q, want the count rule at queries=501", fs[0])
		}
		if got := strings.Join(asked, " "); got != "queries=20 queries=2 queries=0 queries=foo queries=501 queries= queries=20" {
			t.Errorf("asked %s, want queries=20, TFB's five values, queries=20 again", got)
		}
	}
}

// tlsServer serves hello over TLS with a certificate from a throwaway
// authority, offering HTTP/2 or not; it returns its base URL (localhost)
// and the authority.
func tlsServer(t *testing.T, h2 bool) (string, *x509.CertPool) {
	t.Helper()
	set, err := certs.New("test", []string{"localhost", "127.0.0.1"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(set.Cert, set.Key)
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(http.HandlerFunc(hello))
	s.EnableHTTP2 = h2
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	s.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	s.StartTLS()
	t.Cleanup(s.Close)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(set.CA)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.URL, "https://"))
	return "https://localhost:" + port, roots
}

func TestSpeaks(t *testing.T) {
	base, roots := tlsServer(t, true)
	want(t, Speaks(context.Background(), nil, "h2", base, "/", roots, timeout), RuleProtocol, true)
	want(t, Speaks(context.Background(), nil, "https", base, "/", roots, timeout), RuleProtocol, true)
	// Untrusted: the check trusts the given authority only.
	want(t, Speaks(context.Background(), nil, "https", base, "/", x509.NewCertPool(), timeout), RuleProtocol, false)

	// A server that offers HTTP/1.1 only, for a target that declares h2.
	base1, roots1 := tlsServer(t, false)
	want(t, Speaks(context.Background(), nil, "h2", base1, "/", roots1, timeout), RuleProtocol, false)

	// h2c declared, HTTP/1.1 spoken only.
	plain := httptest.NewServer(http.HandlerFunc(hello))
	defer plain.Close()
	want(t, Speaks(context.Background(), nil, "h2c", plain.URL, "/", nil, timeout), RuleProtocol, false)
	want(t, Speaks(context.Background(), nil, "http1", plain.URL, "/", nil, timeout), RuleProtocol, true)

	// The keep-alive rule over TLS, as for a target without cleartext.
	want(t, KeepAlive(context.Background(), TLS(strings.TrimPrefix(base, "https://"), roots), Ask{Host: "localhost", Path: "/", Expect: ask.Expect}, timeout), RuleKeepAlive, true)
}

func TestBacklog(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0") // Go listens with the kernel's largest backlog
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	want(t, Backlog(l.Addr().(*net.TCPAddr).Port, 64), RuleBacklog, true)
	if strings.HasPrefix(Backlog(l.Addr().(*net.TCPAddr).Port, 64).Seen, "not checked") {
		t.Skip("sock_diag is not available here")
	}

	// A socket listening with a backlog of 5, as Python's socketserver.
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 5); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	port := sa.(*syscall.SockaddrInet4).Port
	f := Backlog(port, 64)
	want(t, f, RuleBacklog, false)
	if !strings.Contains(f.Seen, "backlog of 5,") {
		t.Errorf("want the backlog 5 named: %s", f)
	}
	want(t, Backlog(port, 4), RuleBacklog, true)
}

func TestAllInterfaces(t *testing.T) {
	if otherAddress() == nil {
		t.Skip("this machine has no address but loopback")
	}
	local, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	want(t, AllInterfaces(context.Background(), nil, otherAddress(), local.Addr().(*net.TCPAddr).Port, timeout), RulePort, false)

	all, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	go func() {
		for {
			c, err := all.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	want(t, AllInterfaces(context.Background(), nil, otherAddress(), all.Addr().(*net.TCPAddr).Port, timeout), RulePort, true)
}

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in            []string
		clear, secure string
	}{
		{nil, "http1", ""},
		{[]string{"http1", "https", "h2", "h2c"}, "http1 h2c", "https h2"},
		{[]string{"h2"}, "", "h2"},
	} {
		cl, se := split(c.in)
		if strings.Join(cl, " ") != c.clear || strings.Join(se, " ") != c.secure {
			t.Errorf("split(%v) = %v, %v; want %q, %q", c.in, cl, se, c.clear, c.secure)
		}
	}
}

// TestRulesDocumented holds docs/targets.md, the contract's reference, to
// the rules check knows: each rule's ID and text in its table.
func TestRulesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/targets.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range Rules {
		checked := "yes"
		if !r.Checked {
			checked = "no: " + r.Why
		}
		row := "| " + strconv.Itoa(i+1) + " | `" + r.ID + "` | " + r.Text + " | " + checked + " |"
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/targets.md lacks the row of rule %s:\n%s", r.ID, row)
		}
	}
}
