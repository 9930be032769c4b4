package loadgen

import (
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestH2loadAndAbCommands(t *testing.T) {
	s := Spec{URL: "http://t:8080/p", Connections: 20, Requests: 20000, Timeout: 2 * time.Second, Expect: 200}
	if got, want := (H2load{}).Command(s), []string{"h2load", "--h1", "-t", "1", "-c", "20", "-N", "2", "-n", "20000", "http://t:8080/p"}; !reflect.DeepEqual(got, want) {
		t.Errorf("h2load %q, want %q", got, want)
	}
	if got, want := (Ab{}).Command(s), []string{"ab", "-q", "-c", "20", "-n", "20000", "-s", "2", "-k", "http://t:8080/p"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ab %q, want %q", got, want)
	}
	s.Close = true
	if got := (Ab{}).Command(s); got[len(got)-2] == "-k" {
		t.Errorf("ab with keep-alive off sends -k: %q", got)
	}
	for _, c := range []struct {
		tool Tool
		s    Spec
		want string
	}{
		{H2load{}, Spec{Connections: 8, Requests: 10, Close: true}, "Connection: close"},
		{H2load{}, Spec{Connections: 8, Requests: 10, Rate: 5}, "no fixed request rate"},
		{H2load{}, Spec{Connections: 8, Duration: time.Second}, ""},
		{Ab{}, Spec{Connections: 8, Duration: time.Second, Timeout: time.Second, Expect: 200}, "request count"},
		{Ab{}, Spec{Connections: 8, Requests: 10, Timeout: time.Second, Expect: 200, Threads: 2}, "one process"},
		{Ab{}, Spec{Connections: 8, Requests: 10, Timeout: time.Second, Expect: 404}, "only 2xx"},
		{Ab{}, Spec{Connections: 8, Requests: 10, Timeout: time.Second, Expect: 200, Close: true}, ""},
	} {
		got := c.tool.Unsupported(c.s)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s Unsupported(%+v) = %q, want %q", c.tool.Name(), c.s, got, c.want)
		}
	}
}

// Real runs (testdata): every 4th answer 503, 20,000 requests, c16.
func TestH2loadParse(t *testing.T) {
	out, _ := os.ReadFile("testdata/h2load-503.txt")
	r, err := H2load{}.Parse(out, Spec{Expect: 200})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 15000 || r.Errors != 5000 || r.ErrorKinds["5xx"] != 5000 || r.BytesRead != 2805000 || r.Seconds != 0.43141 {
		t.Errorf("parsed %+v", r)
	}
	if l := r.LatencyMS; l.P50 != 0 || l.P99 != 0 || l.Max != 12.04 || l.Mean != 0.331 {
		t.Errorf("latency %+v: h2load gives only mean and max", l)
	}
}

// ab counts the 200s as length failures here: its first answer was a 503
// of 5 bytes (15,000 length failures, 5,000 of them the non-2xx answers).
// Good answers are never overcounted: 5,000 of the 15,000 are read as good.
func TestAbParse(t *testing.T) {
	out, _ := os.ReadFile("testdata/ab-503.txt")
	r, err := Ab{}.Parse(out, Spec{Expect: 200})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 5000 || r.ErrorKinds["non-2xx"] != 5000 || r.ErrorKinds["length"] != 10000 || r.Seconds != 1.47 || r.BytesRead != 2805000 {
		t.Errorf("parsed %+v", r)
	}
	if l := r.LatencyMS; l.P50 != 1 || l.P90 != 2 || l.P99 != 3 || l.Max != 7 {
		t.Errorf("latency %+v", l)
	}
}

// h2load and ab at the loader's depth, against Debian's binaries on the
// host: with every 4th answer a 503, one in 50 answered slowly (80 ms,
// within the timeout) and a request count, good answers (slow ones
// included) and 503s are what the server counted (for ab, once its first
// answer is a good one, as the harness's verification before load makes
// it), and the slow answers show in the maximum latency.
func TestH2loadAndAbCountWhatTheServerCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs h2load and ab")
	}
	for _, tool := range []Tool{H2load{}, Ab{}} {
		t.Run(tool.Name(), func(t *testing.T) {
			bin, err := exec.LookPath(tool.Name())
			if err != nil {
				t.Fatalf("%s is not installed (make test-tools installs it): %v", tool.Name(), err)
			}
			srv, k := countingServer(t, func(i int64) string {
				switch {
				case i > 1 && i%4 == 0: // the first answer is good, as after verification
					return "503"
				case i%50 == 25:
					return "slow"
				}
				return "ok"
			}, 80*time.Millisecond)
			const n = 2000
			res := runTool(t, tool, bin, Spec{URL: srv.URL + "/", Connections: 4, Requests: n, Timeout: time.Second, Expect: 200})
			bad := res.ErrorKinds["5xx"] + res.ErrorKinds["non-2xx"]
			if res.Requests != k.good.Load()+k.slow.Load() || bad != k.bad.Load() || res.Requests+res.Errors != n || k.received.Load() != n {
				t.Errorf("%s: %d good, %d errors %v; the server received %d, answered %d good, %d slowly and %d 503",
					tool.Name(), res.Requests, res.Errors, res.ErrorKinds, k.received.Load(), k.good.Load(), k.slow.Load(), k.bad.Load())
			}
			if k.slow.Load() == 0 || res.LatencyMS.Max < 80 {
				t.Errorf("%s: max latency %.1f ms with %d answers held 80 ms", tool.Name(), res.LatencyMS.Max, k.slow.Load())
			}
		})
	}
}

// Each protocol's command line: h2load over HTTP/1.1 (--h1) for http1 and
// https, over HTTP/2 for h2 (https URL: ALPN) and h2c (http URL: prior
// knowledge); bombardier, wrk and openloop take https from the URL; a
// tool that cannot speak a cell's protocol says so, naming it.
func TestProtocolCommands(t *testing.T) {
	base := Spec{URL: "https://t:8080/p", Connections: 8, Duration: 5 * time.Second, Timeout: 2 * time.Second, Expect: 200, Threads: 1}
	for _, c := range []struct {
		proto string
		h1    bool
	}{{"", true}, {"http1", true}, {"https", true}, {"h2", false}, {"h2c", false}} {
		s := base
		s.Protocol = c.proto
		cmd := H2load{}.Command(s)
		if slices.Contains(cmd, "--h1") != c.h1 || cmd[len(cmd)-1] != s.URL {
			t.Errorf("h2load %q: %q", c.proto, cmd)
		}
		if why := (H2load{}).Unsupported(s); why != "" {
			t.Errorf("h2load %q: unsupported: %s", c.proto, why)
		}
	}
	for _, c := range []struct {
		tool  Tool
		proto string
		want  string // "" : supported
	}{
		{Bombardier{}, "https", ""},
		{Bombardier{}, "h2", "bombardier does not speak h2 here"},
		{Bombardier{}, "h2c", "bombardier does not speak h2c here"},
		{Wrk{}, "https", ""},
		{Wrk{}, "h2", "wrk does not speak h2 here"},
		{Ab{}, "https", "ab does not speak https here"},
		{OpenLoop{}, "https", ""},
		{OpenLoop{}, "h2c", "openloop does not speak h2c here"},
	} {
		s := base
		s.Protocol = c.proto
		if _, ok := c.tool.(Ab); ok {
			s.Duration, s.Requests = 0, 1000
		}
		if _, ok := c.tool.(OpenLoop); ok {
			s.Rate = 100
		}
		if got := c.tool.Unsupported(s); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s %s: unsupported %q, want %q", c.tool.Name(), c.proto, got, c.want)
		}
		if c.want == "" && c.tool.Command(s)[len(c.tool.Command(s))-1] != s.URL {
			t.Errorf("%s %s: %q does not end in the https URL", c.tool.Name(), c.proto, c.tool.Command(s))
		}
	}
	s := base
	s.Protocol, s.Close = "h2", true
	if why := (H2load{}).Unsupported(s); !strings.Contains(why, "HTTP/2 has no Connection: close") {
		t.Errorf("h2 keep-alive off: %q", why)
	}
}

// ab -k keeps a connection only when the answer names keep-alive: Python's
// http.server answers HTTP/1.1 with neither header and keeps the
// connection open, which left ab waiting for its timeout.
func TestAbKeepAliveRefused(t *testing.T) {
	python := http.Header{"Server": {"BaseHTTP/0.6 Python/3.11"}, "Content-Length": {"27"}}
	if (Ab{}).KeepAliveRefused(python) == "" {
		t.Error("an answer without Keep-Alive accepted for ab -k")
	}
	for _, h := range []http.Header{{"Connection": {"keep-alive"}}, {"Keep-Alive": {"timeout=5"}}, {"Connection": {"Keep-Alive"}}} {
		if why := (Ab{}).KeepAliveRefused(h); why != "" {
			t.Errorf("%v refused: %s", h, why)
		}
	}
}
