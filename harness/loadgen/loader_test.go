package loadgen

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// bombardierBin builds bombardier at the version go.mod pins (the one the
// load generator image runs), once per test binary.
var bombardierBin = sync.OnceValues(func() (string, error) {
	dir, err := exec.Command("mktemp", "-d").Output()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(string(dir[:len(dir)-1]), "bombardier")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/codesenberg/bombardier").CombinedOutput()
	if err != nil {
		return "", &exec.Error{Name: "go build bombardier: " + string(out), Err: err}
	}
	return bin, nil
})

// counted is a test server that answers as how says for the nth request
// (from 1) and counts what it did.
type counted struct {
	received, good, bad, slow, dropped atomic.Int64
}

// runTool drives tool at s as the runner does (its Command, then its
// Parse), on the host, with bin in place of the command's program.
func runTool(t *testing.T, tool Tool, bin string, s Spec) Result {
	t.Helper()
	cmd := tool.Command(s)
	out, err := exec.Command(bin, cmd[1:]...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", tool.Name(), cmd[1:], err)
	}
	res, err := tool.Parse(out, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// countingServer answers request i (from 1) as how says: "ok", "503",
// "slow" (after slow, past the client's timeout) or "drop" (the
// connection closed unanswered), and counts what it did.
func countingServer(t *testing.T, how func(i int64) string, slow time.Duration) (*httptest.Server, *counted) {
	k := &counted{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := k.received.Add(1)
		switch how(i) {
		case "503":
			k.bad.Add(1)
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case "slow":
			k.slow.Add(1)
			time.Sleep(slow)
			w.Write([]byte("Hello, World!"))
		case "drop":
			k.dropped.Add(1)
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.(*net.TCPConn).SetLinger(0)
				conn.Close()
			}
		default:
			k.good.Add(1)
			w.Write([]byte("Hello, World!"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, k
}

// every answers how to every nth request, "ok" to the others.
func every(n int64, how string) func(int64) string {
	return func(i int64) string {
		if i%n == 0 {
			return how
		}
		return "ok"
	}
}

// The adapter at the loader's depth: bombardier really runs against a
// server that answers some requests 503, some too slowly and some not at
// all, and the Result is held to what the server counted. Good answers and
// 5xx answers are counted exactly. An attempt that got no answer (timed
// out, or its connection dropped) is not: bombardier's fasthttp client
// retries an idempotent request (fasthttp's default, 5 attempts in all) and
// counts an error only when every attempt failed, so the server sees more
// requests than bombardier reports. The test pins that behaviour (README,
// "What bombardier counts"); a bombardier that stops retrying fails it.
func TestBombardierCountsWhatTheServerCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs bombardier")
	}
	cases := []struct {
		name string
		n    int64
		// how answers request i (from 1): "ok", "503", "slow" (past the
		// client's timeout) or "drop" (the connection closed unanswered).
		how   func(i int64) string
		close bool
		// the errors bombardier reports without an answer, and the
		// attempts it retried unreported
		unanswered, retried func(k *counted) int64
	}{
		{"every 4th answered 503", 600, every(4, "503"), false, none, none},
		{"every 50th too slow", 600, every(50, "slow"), false, none, func(k *counted) int64 { return k.slow.Load() }},
		{"every 20th dropped, keep-alive off", 600, every(20, "drop"), true, none, func(k *counted) int64 { return k.dropped.Load() }},
		{"every one dropped", 20, every(1, "drop"), false,
			func(*counted) int64 { return 20 }, func(k *counted) int64 { return k.dropped.Load() - 20 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, k := countingServer(t, c.how, 600*time.Millisecond)
			bin, err := bombardierBin()
			if err != nil {
				t.Fatal(err)
			}
			res := runTool(t, Bombardier{}, bin, Spec{URL: srv.URL + "/", Connections: 4, Requests: c.n, Timeout: 200 * time.Millisecond, Expect: 200, Close: c.close})
			if res.Requests != k.good.Load() {
				t.Errorf("good responses: bombardier %d, the server answered %d", res.Requests, k.good.Load())
			}
			if got := res.ErrorKinds["5xx"]; got != k.bad.Load() {
				t.Errorf("5xx counted %d, the server answered %d (kinds %v)", got, k.bad.Load(), res.ErrorKinds)
			}
			if got, want := res.Requests+res.Errors, c.n; got != want {
				t.Errorf("requests counted: %d good + %d errors = %d, asked %d", res.Requests, res.Errors, got, want)
			}
			if got, want := res.Errors-res.ErrorKinds["5xx"], c.unanswered(k); got != want {
				t.Errorf("errors without an answer: %d, want %d (kinds %v)", got, want, res.ErrorKinds)
			}
			if got, want := k.received.Load()-c.n, c.retried(k); got != want {
				t.Errorf("attempts retried unreported: the server received %d for %d requests, %d more; want %d more", k.received.Load(), c.n, got, want)
			}
			t.Logf("asked %d; server: %d received, %d good, %d 503, %d slow, %d dropped; bombardier: %d good, %d errors %v",
				c.n, k.received.Load(), k.good.Load(), k.bad.Load(), k.slow.Load(), k.dropped.Load(), res.Requests, res.Errors, res.ErrorKinds)
			if res.Seconds <= 0 || res.LatencyMS.Max < res.LatencyMS.P99 {
				t.Errorf("implausible figures: %+v", res)
			}
		})
	}
}

func none(*counted) int64 { return 0 }
