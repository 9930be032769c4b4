package loadgen

import (
	"bytes"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/latency"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Recorded from bombardier v1.2.6 against a local net/http server.
func TestParseRequests(t *testing.T) {
	r, err := Bombardier{}.Parse(read(t, "requests.json"), Spec{Expect: 200})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 2000 || r.Errors != 0 || r.BytesRead != 236000 {
		t.Errorf("counts = %+v", r)
	}
	// RPS is responses / timeTakenSeconds, not bombardier's rps.mean (22052).
	if want := 2000 / 0.092169645; math.Abs(r.RPS-want) > 1e-6 {
		t.Errorf("RPS = %v, want %v", r.RPS, want)
	}
	want := latency.Latency{Mean: 0.354269, P50: 0.286, P75: 0.442, P90: 0.637, P95: 0.937, P99: 1.454, Max: 5.335}
	if r.LatencyMS != want {
		t.Errorf("latency = %+v, want %+v", r.LatencyMS, want)
	}
	if !reflect.DeepEqual(r.StatusCodes, map[string]int64{"2xx": 2000}) {
		t.Errorf("status codes = %v", r.StatusCodes)
	}
}

func TestParseRefused(t *testing.T) {
	r, err := Bombardier{}.Parse(read(t, "refused.json"), Spec{Expect: 200})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 0 || r.RPS != 0 || r.Errors != 38483 || r.ErrorRate != 1 || len(r.StatusCodes) != 0 {
		t.Errorf("refused run = %+v", r)
	}
	if s := r.ErrorSummary(); s != "dial tcp 127.0.0.1:18099: connect: connection refused: 38,483" {
		t.Errorf("summary = %q", s)
	}
}

func TestParseGarbage(t *testing.T) {
	for _, in := range []string{"", "panic: boom", `{"result":{"timeTakenSeconds":0}}`, `{"result":`} {
		if _, err := (Bombardier{}).Parse([]byte(in), Spec{Expect: 200}); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
}

func TestBombardierCommand(t *testing.T) {
	got := strings.Join(Bombardier{}.Command(Spec{URL: "http://t:8080/x", Connections: 64, Duration: 10 * time.Second, Timeout: 2 * time.Second}), " ")
	if want := "bombardier -c 64 -t 2s -l -p r -o j -d 10s http://t:8080/x"; got != want {
		t.Errorf("Command = %q, want %q", got, want)
	}
	got = strings.Join(Bombardier{}.Command(Spec{URL: "http://t/", Connections: 512, Requests: 1000000, Timeout: time.Second}), " ")
	if want := "bombardier -c 512 -t 1s -l -p r -o j -n 1000000 http://t/"; got != want {
		t.Errorf("Command = %q, want %q", got, want)
	}
	got = strings.Join(Bombardier{}.Command(Spec{URL: "http://t/", Connections: 20, Requests: 20000, Timeout: time.Second, Close: true}), " ")
	if want := "bombardier -c 20 -t 1s -l -p r -o j -H Connection: close -n 20000 http://t/"; got != want {
		t.Errorf("Command without keep-alive = %q, want %q", got, want)
	}
	got = strings.Join(Bombardier{}.Command(Spec{URL: "http://t/", Connections: 8, Duration: time.Second, Timeout: time.Second, Rate: 1000}), " ")
	if want := "bombardier -c 8 -t 1s -l -p r -o j -r 1000 -d 1s http://t/"; got != want {
		t.Errorf("Command at a fixed rate = %q, want %q", got, want)
	}
}

// Only responses of the expected class count; other classes, responses
// bombardier could not classify and requests without a response are
// errors, by kind: a timeout is "timeout" whichever fasthttp bombardier was
// built with (v1.78 prefixes its errors with "fasthttp: ").
func TestParseCountsExpectedClass(t *testing.T) {
	out := []byte(`{"result":{"bytesRead":1,"timeTakenSeconds":2,"req1xx":0,"req2xx":100,"req3xx":0,"req4xx":0,"req5xx":50,` +
		`"others":13,"errors":[{"description":"fasthttp: timeout","count":6},{"description":"timeout","count":4}],` +
		`"latency":{"mean":2500,"max":9000,"percentiles":{"50":1000,"75":2000,"90":3000,"95":4000,"99":5000}}}}`)
	r, err := Bombardier{}.Parse(out, Spec{Expect: 200})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 100 || r.RPS != 50 || r.Errors != 63 || math.Abs(r.ErrorRate-63.0/163) > 1e-12 {
		t.Errorf("result = %+v", r)
	}
	if want := map[string]int64{"5xx": 50, "others": 3, "timeout": 10}; !reflect.DeepEqual(r.ErrorKinds, want) {
		t.Errorf("error kinds = %v, want %v", r.ErrorKinds, want)
	}
	if got := r.ErrorSummary(); got != "5xx: 50; timeout: 10; others: 3" {
		t.Errorf("summary = %q", got)
	}
	if r.Completed() != 153 || r.LatencyMS.Mean != 2.5 {
		t.Errorf("completed %d, mean %v", r.Completed(), r.LatencyMS.Mean)
	}
	// A scenario that expects a redirect counts the 3xx class only.
	r, _ = Bombardier{}.Parse(bytes.Replace(out, []byte(`"req3xx":0`), []byte(`"req3xx":7`), 1), Spec{Expect: 301})
	if r.Requests != 7 || r.ErrorKinds["2xx"] != 100 {
		t.Errorf("3xx scenario = %+v", r)
	}
}

func TestJudge(t *testing.T) {
	ok := Result{Requests: 6400, Seconds: 1, BytesRead: 6400 * 130, StatusCodes: map[string]int64{"2xx": 6400},
		LatencyMS: latency.Latency{Mean: 10}}
	j := Judge{Connections: 64, MaxErrorRate: 0.001, AnswerBytes: 130}
	if p, w := ok.Judge(j); p != "" || len(w) != 0 {
		t.Errorf("clean trial: %q %v", p, w)
	}
	// Half the requests 503: the trial fails, naming the errors.
	bad := ok
	bad.Errors, bad.ErrorRate, bad.ErrorKinds = 10231+40, 0.487, map[string]int64{"5xx": 10231, "timeout": 40}
	if p, _ := bad.Judge(j); p != "48.7% of requests failed (5xx: 10,231; timeout: 40), more than the 0.1% allowed (load.max_error_rate)" {
		t.Errorf("failing trial: %q", p)
	}
	// Below the threshold: a warning.
	few := ok
	few.Errors, few.ErrorRate, few.ErrorKinds = 3, 3.0/6403, map[string]int64{"5xx": 3}
	if p, w := few.Judge(j); p != "" || len(w) != 1 || w[0] != "0.0469% of requests failed (5xx: 3)" {
		t.Errorf("few errors: %q %v", p, w)
	}
	// The answers shrank under load (an error page in a 2xx, say).
	small := ok
	small.BytesRead = 6400 * 90
	if _, w := small.Judge(j); len(w) != 1 || !strings.HasPrefix(w[0], "answers changed under load: 90.0 bytes") {
		t.Errorf("small answers: %v", w)
	}
	within := ok
	within.BytesRead = 6400 * 138 // chunk framing and the like: within 10%
	if _, w := within.Judge(j); len(w) != 0 {
		t.Errorf("answers within 10%%: %v", w)
	}
	// 64 connections but only 3,200 rps × 10 ms = 32 busy: idle connections.
	idle := ok
	idle.Requests = 3200
	if _, w := idle.Judge(j); len(w) != 1 || !strings.Contains(w[0], "Little's law: 64 connections, but RPS × mean latency = 32.0") {
		t.Errorf("idle connections: %v", w)
	}
	if p, _ := (Result{Seconds: 2}).Judge(j); p != "no responses in 2.0s" {
		t.Errorf("empty run: %q", p)
	}
}

func TestDeadline(t *testing.T) {
	for _, tc := range []struct {
		s    Spec
		want time.Duration
	}{
		{Spec{Duration: 10 * time.Second, Timeout: 2 * time.Second}, 22 * time.Second},
		{Spec{Requests: 20000, Timeout: 2 * time.Second}, 212 * time.Second},
		{Spec{Requests: 1 << 62, Timeout: 2 * time.Second}, DeadlineCap},
		{Spec{Requests: 1000000, Timeout: time.Second}, DeadlineCap},
	} {
		if got := Deadline(tc.s); got != tc.want {
			t.Errorf("Deadline(%+v) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// At a fixed rate a trial below 99% of it could not sustain it and fails
// its cell; Little's law, which idle connections break by design, is not
// checked.
func TestJudgeFixedRate(t *testing.T) {
	r := Result{Requests: 900, Seconds: 1, StatusCodes: map[string]int64{"2xx": 900}, LatencyMS: latency.Latency{Mean: 1}}
	if p, w := r.Judge(Judge{Connections: 64, MaxErrorRate: 0.001, Rate: 1000}); p != "could not sustain 1,000/s (held 900/s)" || len(w) != 0 {
		t.Errorf("problem %q, warnings %q", p, w)
	}
	r.Requests = 995
	if p, w := r.Judge(Judge{Connections: 64, MaxErrorRate: 0.001, Rate: 1000}); p != "" || len(w) != 0 {
		t.Errorf("a held rate: problem %q, warnings %q", p, w)
	}
}
