package loadgen

import (
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWrkCommand(t *testing.T) {
	s := Spec{URL: "http://t:8080/p", Connections: 64, Duration: 5 * time.Second, Timeout: 2 * time.Second, Expect: 200, Threads: 2}
	if why := (Wrk{}).Unsupported(s); why != "" {
		t.Fatal(why)
	}
	want := []string{"wrk", "-t", "2", "-c", "64", "-d", "5s", "--timeout", "2s", "-s", WrkScript, "http://t:8080/p"}
	if got := (Wrk{}).Command(s); !reflect.DeepEqual(got, want) {
		t.Errorf("command %q, want %q", got, want)
	}
	s.Close = true
	if got := (Wrk{}).Command(s); got[len(got)-3] != "-H" || got[len(got)-2] != "Connection: close" {
		t.Errorf("keep-alive off: %q", got)
	}
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{Connections: 8, Requests: 100}, "no request count"},
		{Spec{Connections: 8, Duration: time.Second, Rate: 100}, "no fixed rate"},
		{Spec{Connections: 1, Duration: time.Second, Threads: 2}, "a connection per thread"},
		{Spec{Connections: 8, Duration: time.Second, Timeout: 200 * time.Millisecond}, "whole seconds"},
		{Spec{Connections: 8, Duration: time.Second, Timeout: time.Second, Close: true}, ""},
	} {
		if got := (Wrk{}).Unsupported(c.s); (c.want == "") != (got == "") || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("Unsupported(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

// Pipelined, wrk is given the depth after --, for report.lua; h2load
// gets -m; the tools that cannot pipeline, and wrk without keep-alive,
// skip the cell saying so.
func TestPipelineCommands(t *testing.T) {
	s := Spec{URL: "http://t:8080/p", Connections: 64, Duration: 5 * time.Second, Timeout: 2 * time.Second, Expect: 200, Pipeline: 16}
	if why := (Wrk{}).Unsupported(s); why != "" {
		t.Fatal(why)
	}
	if got := (Wrk{}).Command(s); !slices.Equal(got[len(got)-4:], []string{WrkScript, "http://t:8080/p", "--", "16"}) {
		t.Errorf("wrk %q, want the script given 16 after the URL", got)
	}
	if got := (H2load{}).Command(s); !slices.Contains(got, "-m") || got[slices.Index(got, "-m")+1] != "16" {
		t.Errorf("h2load %q, want -m 16", got)
	}
	counted := s
	counted.Requests, counted.Duration = 1000, 0
	for _, c := range []struct {
		tool Tool
		s    Spec
		want string
	}{
		{Bombardier{}, s, "bombardier cannot pipeline (scenario pipeline: 16)"},
		{Ab{}, counted, "ab cannot pipeline"},
		{OpenLoop{}, Spec{Connections: 8, Duration: time.Second, Rate: 100, Pipeline: 16}, "openloop cannot pipeline"},
		{Wrk{}, Spec{Connections: 8, Duration: time.Second, Timeout: time.Second, Close: true, Pipeline: 16}, "only with keep-alive"},
		{H2load{}, counted, ""},
		{Bombardier{}, Spec{Connections: 8, Duration: time.Second, Pipeline: 1}, ""},
	} {
		if got := c.tool.Unsupported(c.s); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s Unsupported(pipeline %d) = %q, want %q", c.tool.Name(), c.s.Pipeline, got, c.want)
		}
	}
}

// Real wrk runs through report.lua (1 thread, 4 connections, 2 s, against
// a Go net/http server): testdata/wrk-histogram.txt one request at a time,
// testdata/wrk-pipeline.txt 16 at a time. The distribution read is what
// wrk measured: one latency per answer (35,732), where the histogram wrk
// printed held 44,366 with its synthetic ones; pipelined, one per batch of
// 16, and its p95…p99.9, which wrk's own walk read as 0, are there.
func TestWrkParseHistogram(t *testing.T) {
	plain, err := os.ReadFile("testdata/wrk-histogram.txt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Wrk{}.Parse(plain, Spec{Expect: 200, Connections: 4})
	if err != nil {
		t.Fatal(err)
	}
	if r.Distribution == nil || r.Distribution.TotalCount() != r.Requests || r.Requests != 35732 {
		t.Errorf("%d answers, distribution %v: want one latency per answer", r.Requests, r.Distribution)
	}
	if l := r.LatencyMS; !(l.P50 > 0 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max) || l.Max != 53.284 {
		t.Errorf("latency %+v", l)
	}
	out, err := os.ReadFile("testdata/wrk-pipeline.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep := wrkLine(t, out)
	r, err = Wrk{}.Parse(out, Spec{Expect: 200, Pipeline: 16, Connections: 4})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != rep.Statuses["200"] || r.Requests != 67808 || r.Errors != 0 {
		t.Errorf("parsed %d good, %d errors; wrk answered %v", r.Requests, r.Errors, rep.Statuses)
	}
	if batches := r.Distribution.TotalCount(); batches*16 > r.Requests || batches*16 < r.Requests-4*16 {
		t.Errorf("%d latencies for %d answers: want one per batch of 16", batches, r.Requests)
	}
	if l := r.LatencyMS; rep.LatencyUS.Percentiles["95"] != 0 || !(l.P90 <= l.P95 && 0 < l.P95 && l.P95 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max) {
		t.Errorf("latency %+v; wrk printed %v", l, rep.LatencyUS.Percentiles)
	}
	// A walk the script gave up (null) leaves wrk's own figures.
	i := strings.Index(string(plain), `"histogram":[`)
	j := i + strings.Index(string(plain[i:]), "]")
	r, err = Wrk{}.Parse([]byte(string(plain[:i])+`"histogram":null`+string(plain[j+1:])), Spec{Expect: 200, Connections: 4})
	if err != nil || r.Distribution != nil || r.LatencyMS.P50 != 0.13 || r.LatencyMS.P999 != 47.469 {
		t.Errorf("without a histogram: %v, latency %+v; want wrk's own", err, r.LatencyMS)
	}
	for _, bad := range []string{`"histogram":[250,3,400,`, `"histogram":[-1,3,`} {
		broken := strings.Replace(string(out), `"histogram":[`, bad, 1)
		if _, err := (Wrk{}).Parse([]byte(broken), Spec{Expect: 200, Connections: 4}); err == nil {
			t.Errorf("a histogram starting %s parsed", bad)
		}
	}
}

// wrkLine is the report line of a recorded wrk run, as the script wrote it.
func wrkLine(t *testing.T, out []byte) wrkReport {
	t.Helper()
	_, line, _ := strings.Cut(string(out), wrkMarker)
	line, _, _ = strings.Cut(line, "\n")
	var r wrkReport
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// A real wrk run (testdata/wrk-503.txt: every 4th answer 503, 1 thread,
// 16 connections, 2 s) reads as 200s good and 503s errors by class.
func TestWrkParse(t *testing.T) {
	out, err := os.ReadFile("testdata/wrk-503.txt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Wrk{}.Parse(out, Spec{Expect: 200})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 64890 || r.Errors != 21629 || r.ErrorKinds["5xx"] != 21629 || r.StatusCodes["2xx"] != 64890 ||
		r.BytesRead != 12134259 || r.Seconds != 2.001782 {
		t.Errorf("parsed %+v", r)
	}
	if l := r.LatencyMS; l.P50 != 0.25 || l.P99 != 3.73 || l.P999 != 5.602 || l.Max != 8.811 {
		t.Errorf("latency %+v", l)
	}
	if _, err := (Wrk{}).Parse([]byte("Running 2s test\n  1 threads\n"), Spec{Expect: 200}); err == nil {
		t.Error("output without the script's report parsed")
	}
}

// wrk at the loader's depth, against Debian's wrk on the host (make
// test-tools installs it). wrk does not retry: every request the server
// received is counted once, as a good answer or an error, except those
// still in flight when the duration ends (at most one per connection).
// Answers are counted by status exactly; a dropped connection is a read
// error. Its timeout is coarse: wrk checks it every couple of seconds, so
// an answer past it may still count as good.
func TestWrkCountsWhatTheServerCounted(t *testing.T) {
	bin := wrkBin(t)
	const conns = 4
	within := func(got, want int64) bool { return got <= want && got >= want-conns }
	for _, c := range []struct {
		name  string
		how   func(int64) string
		close bool
		check func(t *testing.T, k *counted, r Result)
	}{
		{"every 4th answered 503", every(4, "503"), false, func(t *testing.T, k *counted, r Result) {
			if !within(r.Requests, k.good.Load()) || !within(r.ErrorKinds["5xx"], k.bad.Load()) {
				t.Errorf("wrk: %d good, %d 5xx; the server answered %d good, %d 503", r.Requests, r.ErrorKinds["5xx"], k.good.Load(), k.bad.Load())
			}
		}},
		{"every 50th too slow", every(50, "slow"), false, func(t *testing.T, k *counted, r Result) {
			if r.Requests < k.good.Load()-conns {
				t.Errorf("wrk: %d good; the server answered %d in time", r.Requests, k.good.Load())
			}
		}},
		{"every 20th dropped, keep-alive off", every(20, "drop"), true, func(t *testing.T, k *counted, r Result) {
			if !within(r.Requests, k.good.Load()) || !within(r.ErrorKinds["read"], k.dropped.Load()) {
				t.Errorf("wrk: %d good, %d read errors; the server answered %d, dropped %d", r.Requests, r.ErrorKinds["read"], k.good.Load(), k.dropped.Load())
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, k := countingServer(t, c.how, 1500*time.Millisecond)
			res := runTool(t, Wrk{Script: "../../docker/loadgen/wrk/report.lua"}, bin,
				Spec{URL: srv.URL + "/", Connections: conns, Duration: 2 * time.Second, Timeout: time.Second, Expect: 200, Close: c.close})
			t.Logf("server: %d received, %d good, %d 503, %d slow, %d dropped; wrk: %d good, %d errors %v",
				k.received.Load(), k.good.Load(), k.bad.Load(), k.slow.Load(), k.dropped.Load(), res.Requests, res.Errors, res.ErrorKinds)
			if !within(res.Requests+res.Errors, k.received.Load()) {
				t.Errorf("wrk counted %d requests (%d good, %d errors); the server received %d", res.Requests+res.Errors, res.Requests, res.Errors, k.received.Load())
			}
			c.check(t, k, res)
		})
	}
}

// Pipelined 16 deep against a server that counts (Go's net/http answers a
// connection's pipelined requests in order), wrk counts every answer, not
// every write: the server's count, less at most the 16 per connection in
// flight when the duration ends, 503s by class as ever; and it times each
// batch once, so its distribution holds one latency per 16 answers.
func TestWrkPipelinedCountsAnswers(t *testing.T) {
	bin := wrkBin(t)
	const conns, depth = 4, 16
	srv, k := countingServer(t, every(4, "503"), time.Second)
	res := runTool(t, Wrk{Script: "../../docker/loadgen/wrk/report.lua"}, bin,
		Spec{URL: srv.URL + "/", Connections: conns, Duration: 2 * time.Second, Timeout: time.Second, Expect: 200, Pipeline: depth})
	got, server := res.Requests+res.Errors, k.received.Load()
	t.Logf("server: %d received, %d good, %d 503; wrk: %d good, %d errors %v", server, k.good.Load(), k.bad.Load(), res.Requests, res.Errors, res.ErrorKinds)
	if got > server || got < server-conns*depth {
		t.Errorf("wrk counted %d answers; the server answered %d", got, server)
	}
	if bad := res.ErrorKinds["5xx"]; bad > k.bad.Load() || bad < k.bad.Load()-conns*depth {
		t.Errorf("wrk counted %d 5xx; the server answered %d 503", bad, k.bad.Load())
	}
	if res.Distribution == nil {
		t.Fatal("wrk exported no latency distribution")
	}
	if batches := res.Distribution.TotalCount(); batches*depth > got+conns*depth || batches*depth < got-conns*depth {
		t.Errorf("%d latencies for %d answers: want one per batch of %d", batches, got, depth)
	}
}

// wrkBin is Debian's wrk on the host (make test-tools installs it); a
// -short run skips the test.
func wrkBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs wrk")
	}
	bin, err := exec.LookPath("wrk")
	if err != nil {
		t.Fatal("wrk is not installed (make test-tools installs Debian's): ", err)
	}
	return bin
}
