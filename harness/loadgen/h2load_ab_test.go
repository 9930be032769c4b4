package loadgen

import (
	"os"
	"os/exec"
	"reflect"
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
