package loadgen

import (
	"os"
	"os/exec"
	"reflect"
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
	if testing.Short() {
		t.Skip("runs wrk")
	}
	bin, err := exec.LookPath("wrk")
	if err != nil {
		t.Fatal("wrk is not installed (make test-tools installs Debian's): ", err)
	}
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
