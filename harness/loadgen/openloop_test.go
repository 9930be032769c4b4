package loadgen

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"
)

// openloopBin builds the harness's open-loop generator, as the load
// generator image does.
var openloopBin = sync.OnceValues(func() (string, error) {
	dir, err := exec.Command("mktemp", "-d").Output()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(string(dir[:len(dir)-1]), "openloop")
	out, err := exec.Command("go", "build", "-o", bin, "../../docker/loadgen/openloop").CombinedOutput()
	if err != nil {
		return "", &exec.Error{Name: "go build openloop: " + string(out), Err: err}
	}
	return bin, nil
})

func TestOpenLoopCommand(t *testing.T) {
	s := Spec{URL: "http://t/p", Connections: 16, Duration: 5 * time.Second, Timeout: 2 * time.Second, Rate: 1000, Expect: 200}
	want := []string{"openloop", "-c", "16", "-rate", "1000", "-d", "5s", "-timeout", "2s", "http://t/p"}
	if got := (OpenLoop{}).Command(s); !reflect.DeepEqual(got, want) {
		t.Errorf("command %q, want %q", got, want)
	}
	if (OpenLoop{}).Unsupported(s) != "" || (OpenLoop{}).Unsupported(Spec{Connections: 1, Duration: time.Second}) == "" {
		t.Error("openloop must take fixed-rate cells and refuse the others")
	}
}

// Coordinated omission, measured at the loader's depth: a server that holds
// every answer for 300 ms each second, loaded at 200 requests/s. The
// open-loop generator times each request from its intended send and its
// p90 shows the stalls; bombardier at the same rate (-r, a token bucket in
// front of its connections) times each from its actual send, and its p90
// does not.
func TestOpenLoopShowsWhatBombardierOmits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two load generators")
	}
	start := time.Now()
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if in := time.Since(start) % time.Second; in < 300*time.Millisecond {
			time.Sleep(300*time.Millisecond - in)
		}
		mu.Unlock()
		w.Write([]byte("Hello, World!"))
	}))
	defer srv.Close()
	s := Spec{URL: srv.URL + "/", Connections: 4, Duration: 3 * time.Second, Timeout: 2 * time.Second, Rate: 200, Expect: 200}
	ob, err := openloopBin()
	if err != nil {
		t.Fatal(err)
	}
	bb, err := bombardierBin()
	if err != nil {
		t.Fatal(err)
	}
	open := runTool(t, OpenLoop{}, ob, s)
	closed := runTool(t, Bombardier{}, bb, s)
	t.Logf("open loop: p50 %.2f p90 %.2f p99 %.2f p99.9 %.2f ms, %d late, %d unsent; bombardier -r: p50 %.2f p90 %.2f p99 %.2f ms, %.0f rps",
		open.LatencyMS.P50, open.LatencyMS.P90, open.LatencyMS.P99, open.LatencyMS.P999, open.OpenLoop.Late, open.OpenLoop.Unsent,
		closed.LatencyMS.P50, closed.LatencyMS.P90, closed.LatencyMS.P99, closed.RPS)
	if open.LatencyMS.P90 < 50 {
		t.Errorf("open-loop p90 %.2f ms: the 300 ms stalls do not show", open.LatencyMS.P90)
	}
	if open.LatencyMS.P90 < 5*closed.LatencyMS.P90 {
		t.Errorf("open-loop p90 %.2f ms is not far above bombardier's %.2f ms: no coordinated omission shown", open.LatencyMS.P90, closed.LatencyMS.P90)
	}
	if open.OpenLoop == nil || open.OpenLoop.Late == 0 || open.OpenLoop.Scheduled != open.OpenLoop.Sent+open.OpenLoop.Unsent {
		t.Errorf("schedule figures %+v", open.OpenLoop)
	}
}
