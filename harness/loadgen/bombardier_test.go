package loadgen

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
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
	r, err := Parse(read(t, "requests.json"))
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
	want := Latency{P50: 0.286, P75: 0.442, P90: 0.637, P95: 0.937, P99: 1.454, Max: 5.335}
	if r.LatencyMS != want {
		t.Errorf("latency = %+v, want %+v", r.LatencyMS, want)
	}
	if !reflect.DeepEqual(r.StatusCodes, map[string]int64{"2xx": 2000}) {
		t.Errorf("status codes = %v", r.StatusCodes)
	}
}

func TestParseRefused(t *testing.T) {
	r, err := Parse(read(t, "refused.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 0 || r.RPS != 0 || r.Errors != 38483 {
		t.Errorf("refused run = %+v", r)
	}
	if s := r.ErrorSummary(); !strings.Contains(s, "38483× dial tcp") {
		t.Errorf("summary = %q", s)
	}
}

func TestParseGarbage(t *testing.T) {
	for _, in := range []string{"", "panic: boom", `{"result":{"timeTakenSeconds":0}}`, `{"result":`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
}

func TestArgs(t *testing.T) {
	got := strings.Join(Args(Spec{URL: "http://t:8080/x", Connections: 64, Duration: 10 * time.Second, Timeout: 2 * time.Second}), " ")
	if want := "-c 64 -t 2s -l -p r -o j -d 10s http://t:8080/x"; got != want {
		t.Errorf("Args = %q, want %q", got, want)
	}
	got = strings.Join(Args(Spec{URL: "http://t/", Connections: 512, Requests: 1000000, Timeout: time.Second}), " ")
	if want := "-c 512 -t 1s -l -p r -o j -n 1000000 http://t/"; got != want {
		t.Errorf("Args = %q, want %q", got, want)
	}
}
